"""The map image a map is drawn over: PNG or JPEG, checked before anything is kept.

Limits: :data:`MAX_IMAGE_BYTES` (20 MiB) per file and :data:`MAX_IMAGE_PIXELS` (40 megapixels);
the platform's map images are 1620 x 2360 (3.8 megapixels, about 0.2 MiB). Anything else (not an
image, another format, a truncated file, a larger image) is refused with a message naming the
file and what was wrong.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass, field

from corpus.mapedit.draft import EditError

MAX_IMAGE_BYTES = 20 * 1024 * 1024
MAX_IMAGE_PIXELS = 40_000_000
FORMATS = ("PNG", "JPEG")


@dataclass(frozen=True)
class MapImage:
    name: str
    digest: str  # SHA-256 of the bytes: the image's identity in drafts and caches
    width: int
    height: int
    format: str
    data: bytes = field(repr=False)


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
        with Image.open(io.BytesIO(data)) as im:
            fmt, (w, h) = im.format, im.size
            if fmt not in FORMATS:
                raise EditError(f"{name}: a {fmt} image; map images are {limits_text()}")
            if w * h > MAX_IMAGE_PIXELS:
                raise EditError(f"{name}: {w} x {h} pixels ({w * h / 1e6:.0f} megapixels); map images are {limits_text()}")
            im.load()  # a truncated or corrupt file fails here, not later on the page
    except EditError:
        raise
    except UnidentifiedImageError:
        raise EditError(f"{name}: not an image (the file is neither PNG nor JPEG); map images are {limits_text()}") from None
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise EditError(f"{name}: the image cannot be read ({exc})") from None
    return MapImage(name=name, digest=hashlib.sha256(data).hexdigest(), width=w, height=h, format=fmt, data=data)


def fit_image(image: MapImage, size: tuple[int, int]):
    """The image's pixels scaled to ``size`` (a Pillow RGBA image; transparent parts on white)."""
    from PIL import Image

    with Image.open(io.BytesIO(image.data)) as im:
        im.draft("RGB", size)  # JPEG: decode at a reduced scale when that is enough
        rgba = im.convert("RGBA")
    white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
    return Image.alpha_composite(white, rgba).resize(size, Image.Resampling.LANCZOS)
