"""The map image a map is drawn over: PNG or JPEG, checked before anything is kept.

Limits: :data:`MAX_IMAGE_BYTES` (20 MiB) per file and :data:`MAX_IMAGE_PIXELS` (20 megapixels, well
below Pillow's own bomb limit of about 89), checked from the file's header before any pixel is
decoded; the platform's map images are 1620 x 2360 (3.8 megapixels, about 0.2 MiB), a page scanned
at 300 dpi is 9 to 17. An accepted image is decoded once, at most
:data:`MAX_IMAGE_PIXELS` x 4 bytes, and at once reduced to a working copy of at most
:data:`WORKING_SIDE` pixels on its longer side (what the canvas and the views are drawn from); only
the file's bytes and that copy are kept. Anything else (not an image, another format, a truncated
file, a larger image) is refused with a message naming the file and what was wrong.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field
from typing import Any

from corpus.mapedit.draft import EditError

MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_IMAGE_PIXELS = 20_000_000
WORKING_SIDE = 2048  # the longer side of the working copy (the canvas is at most 720 pixels high)
FORMATS = ("PNG", "JPEG")


@dataclass(frozen=True)
class MapImage:
    name: str
    digest: str  # SHA-256 of the bytes: the image's identity in drafts and caches
    width: int
    height: int
    format: str
    data: bytes = field(repr=False)
    working: Any = field(default=None, repr=False, compare=False)  # RGBA Pillow image, <= WORKING_SIDE


def limits_text() -> str:
    return f"PNG or JPEG, at most {MAX_IMAGE_BYTES // 2**20} MiB and {MAX_IMAGE_PIXELS // 1_000_000} megapixels"


def read_map_image(data: bytes, name: str = "image") -> MapImage:
    """Check ``data`` is a PNG or JPEG map image within the limits; raise :class:`EditError` if not."""
    from PIL import Image, UnidentifiedImageError

    if len(data) > MAX_IMAGE_BYTES:
        raise EditError(f"{name}: the file is {len(data) / 2**20:.1f} MiB; map images are {limits_text()}")
    if not data:
        raise EditError(f"{name}: the file is empty")
    try:
        with Image.open(io.BytesIO(data)) as im:  # reads the header only
            fmt, (w, h) = im.format, im.size
            if fmt not in FORMATS:
                raise EditError(f"{name}: a {fmt} image; map images are {limits_text()}")
            if w * h > MAX_IMAGE_PIXELS:
                raise EditError(
                    f"{name}: {w} x {h} pixels ({w * h / 1e6:.0f} megapixels); map images are {limits_text()}"
                )
            im.draft("RGB", _working_size(w, h))  # JPEG: decode at a reduced scale
            im.load()  # a truncated or corrupt file fails here, not later on the page
            working = _working_copy(im)
    except EditError:
        raise
    except UnidentifiedImageError:
        raise EditError(
            f"{name}: not an image (the file is neither PNG nor JPEG); map images are {limits_text()}"
        ) from None
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise EditError(f"{name}: the image cannot be read ({exc})") from None
    return MapImage(
        name=name, digest=hashlib.sha256(data).hexdigest(), width=w, height=h, format=fmt, data=data, working=working
    )


def _working_size(w: int, h: int) -> tuple[int, int]:
    scale = min(1.0, WORKING_SIDE / max(w, h))
    return max(1, round(w * scale)), max(1, round(h * scale))


def _working_copy(im):  # noqa: ANN001, ANN202 - Pillow images
    """The decoded image reduced to at most :data:`WORKING_SIDE` on its longer side, transparent parts
    on white, as RGBA (16-bit and palette images included)."""
    from PIL import Image

    size = _working_size(*im.size)
    if im.mode in ("I;16", "I;16B", "I;16L", "I", "F"):
        im = im.point(lambda v: v / 256).convert("L") if im.mode != "F" else im.convert("L")
    small = im.resize(size, Image.Resampling.BOX) if im.size != size else im
    rgba = small.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba)


def fit_image(image: MapImage, size: tuple[int, int]):
    """The image scaled to ``size`` (a Pillow RGBA image; transparent parts on white), from its
    working copy."""
    from PIL import Image

    working = image.working
    if working is None:  # made without read_map_image
        working = read_map_image(image.data, image.name).working
    return working.resize(size, Image.Resampling.LANCZOS)
