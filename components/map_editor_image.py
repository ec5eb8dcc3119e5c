"""The map being edited drawn over its image: the canvas background and the side-by-side views.

Pure (Pillow and numpy, no streamlit). The grid is stretched over the image as the importer
stretches ink over the grid; cells are tinted with the replay's colours (landmark, blocked
landmark, route, start, finish), the route is also drawn as a line through its cells in order
(so a gap shows as a jump), landmark names sit at their centroids, the landmark being edited and
landmarks moved on the Follower's map are outlined, and cells with a problem are boxed in red.
"""

from __future__ import annotations

import io

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from analysis.replay import BLOCKED, EMPTY, FINISH, LANDMARK, ROUTE, START
from components.grid_canvas import CELL_COLORS, MISPLACED_COLOR
from corpus.mapedit.draft import GUIDE, Draft
from corpus.model import Cell

PROBLEM_COLOR = "#dc2626"
SELECTED_COLOR = "#0ea5e9"
GRID_RGBA = (71, 85, 105, 70)
_ALPHA = {EMPTY: 0, LANDMARK: 120, BLOCKED: 140, ROUTE: 190, START: 235, FINISH: 235}


def _rgba(code: int) -> tuple[int, int, int, int]:
    h = CELL_COLORS[code]
    return int(h[1:3], 16), int(h[3:5], 16), int(h[5:7], 16), _ALPHA[code]


_TABLE = np.array([_rgba(k) if k in _ALPHA else (0, 0, 0, 0) for k in range(max(_ALPHA) + 1)], dtype=np.uint8)


def canvas_size(aspect_w: float, aspect_h: float, max_width: int, max_height: int) -> tuple[int, int]:
    """The largest canvas of the given aspect within ``max_width`` x ``max_height`` pixels."""
    scale = min(max_width / aspect_w, max_height / aspect_h)
    return max(1, round(aspect_w * scale)), max(1, round(aspect_h * scale))


def cell_codes(draft: Draft, view: str = GUIDE, show_route: bool = True) -> np.ndarray:
    rows, cols = draft.grid_size
    codes = np.full((rows, cols), EMPTY, dtype=np.uint8)

    def put(cells, code):
        inside = [c for c in cells if draft.inside(c)]
        if inside:
            a = np.asarray(inside, dtype=np.int64)
            codes[a[:, 0], a[:, 1]] = code

    for _, lm in draft.view(view):
        put(lm.cells, BLOCKED if lm.blocked else LANDMARK)
    if show_route:
        put(draft.route, ROUTE)
        if draft.finish is not None:
            put([draft.finish], FINISH)
    if draft.start is not None:
        put([draft.start], START)
    return codes


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def render(
    draft: Draft,
    size: tuple[int, int],
    base: Image.Image | None = None,
    *,
    view: str = GUIDE,
    selected: str | None = None,
    problems: set[Cell] | frozenset = frozenset(),
    show_names: bool = True,
) -> Image.Image:
    """The draft's ``view`` over ``base`` (or white), ``size`` pixels."""
    w, h = size
    rows, cols = draft.grid_size
    img = base.copy() if base is not None else Image.new("RGBA", size, (255, 255, 255, 255))
    if img.size != size:
        img = img.resize(size)
    codes = cell_codes(draft, view, show_route=view == GUIDE)
    yi = np.minimum(np.arange(h) * rows // h, rows - 1)
    xi = np.minimum(np.arange(w) * cols // w, cols - 1)
    overlay = Image.fromarray(_TABLE[codes[yi][:, xi]], "RGBA")
    draw = ImageDraw.Draw(overlay)
    cw, ch = w / cols, h / rows

    def box(r0, r1, c0, c1):
        return (c0 * cw, r0 * ch, (c1 + 1) * cw - 1, (r1 + 1) * ch - 1)

    if min(cw, ch) >= 4:
        for c in range(1, cols):
            draw.line([(c * cw, 0), (c * cw, h)], fill=GRID_RGBA)
        for r in range(1, rows):
            draw.line([(0, r * ch), (w, r * ch)], fill=GRID_RGBA)
    if view == GUIDE and len(draft.route) > 1:
        centres = [((c + 0.5) * cw, (r + 0.5) * ch) for r, c in draft.route]
        draw.line(centres, fill=(146, 64, 14, 230), width=max(1, round(min(cw, ch) / 5)))
    moved = set(draft.moved())
    landmarks = {name: np.asarray(lm.cells, dtype=np.int64) for name, lm in draft.view(view) if lm.cells}
    for name, a in landmarks.items():
        (r0, c0), (r1, c1) = a.min(axis=0), a.max(axis=0)
        if name == selected:
            draw.rectangle(box(r0, r1, c0, c1), outline=SELECTED_COLOR, width=3)
        elif name in moved:
            draw.rectangle(box(r0, r1, c0, c1), outline=MISPLACED_COLOR, width=2)
    for r, c in sorted(problems):
        draw.rectangle(box(r, r, c, c), outline=PROBLEM_COLOR, width=2)
    for cell in (draft.start, draft.finish if view == GUIDE else None):
        if cell is not None:
            x0, y0, x1, y1 = box(cell[0], cell[0], cell[1], cell[1])
            draw.ellipse((x0 - 2, y0 - 2, x1 + 2, y1 + 2), outline="#111827", width=2)
    img = Image.alpha_composite(img.convert("RGBA"), overlay)
    if show_names:
        draw = ImageDraw.Draw(img)
        font = _font(max(10, min(15, round(min(cw, ch)))))
        for name, a in landmarks.items():
            r, c = a.mean(axis=0)  # the centroid, as in the landmark's summary
            x, y = (c + 0.5) * cw, (r + 0.5) * ch
            tb = draw.textbbox((x, y), name, font=font, anchor="mm")
            draw.rectangle((tb[0] - 2, tb[1] - 1, tb[2] + 2, tb[3] + 1), fill=(255, 255, 255, 215))
            draw.text((x, y), name, fill="#0f172a", font=font, anchor="mm")
    return img.convert("RGB")


def png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=3)
    return buf.getvalue()
