"""Strokes drawn on the editor's canvas, turned into grid cells.

The canvas shows the map image (or a blank grid) stretched over ``width`` x ``height`` canvas
pixels, and the grid of ``rows`` x ``cols`` cells covers it (:class:`CanvasFrame`). Strokes arrive
as Fabric.js objects, the JSON the drawing canvas sends (``Rect``, ``Polygon``, ``Path``,
``Circle`` for a point, ``Line``), in canvas pixels.

The rule is the one the platform importer uses for ink (:mod:`corpus.importers.asciimap`): **a
cell counts when the stroke covers at least ``share`` of it** (default
:data:`~corpus.importers.asciimap.DEFAULT_INK_SHARE`). What a stroke covers:

- a rectangle or a polygon: its area (its outline's width is not counted);
- a free stroke: the brush's ink, the line as wide as the brush; a free stroke that ends near
  where it started (:data:`CLOSE_CELLS` cells) is an outline and covers the area it encloses;
- a point: the one cell under its centre.

The stroke is drawn into a mask aligned with the grid (up to 32 x 32 pixels per cell) and the
share of each cell is measured with :func:`corpus.importers.asciimap.ink_coverage`, so the cells
do not depend on the canvas size the stroke was drawn at, only on where it lies on the map.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from corpus.importers.asciimap import DEFAULT_INK_SHARE, ink_coverage, route_path
from corpus.loading.report import describe
from corpus.model import Cell

MASK_PIXELS = 4_000_000  # the mask's size is capped; cells get fewer pixels on huge grids
MAX_PX_PER_CELL = 32
CLOSE_CELLS = 1.5  # a free stroke whose ends are this many cells apart or less is an outline
_ORIGIN = {"left": 0.0, "top": 0.0, "center": 0.5, "right": 1.0, "bottom": 1.0}


class StrokeError(ValueError):
    """A canvas object that cannot be read as a stroke."""


@dataclass(frozen=True)
class CanvasFrame:
    """How the canvas lies over the grid: ``width`` x ``height`` pixels, ``rows`` x ``cols`` cells."""

    width: float
    height: float
    rows: int
    cols: int

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0 or self.rows < 1 or self.cols < 1:
            raise StrokeError(f"a canvas of {self.width} x {self.height} px over a {self.rows} x {self.cols} grid")

    @property
    def cell_px(self) -> tuple[float, float]:
        """A cell's width and height in canvas pixels."""
        return self.width / self.cols, self.height / self.rows

    def cell_at(self, x: float, y: float) -> Cell:
        """The cell under canvas point (x, y), clamped to the grid."""
        col = min(self.cols - 1, max(0, math.floor(x * self.cols / self.width)))
        row = min(self.rows - 1, max(0, math.floor(y * self.rows / self.height)))
        return int(row), int(col)


@dataclass(frozen=True)
class Shape:
    """A stroke's geometry in canvas pixels: ``kind`` is ``area``, ``line`` or ``point``."""

    kind: str
    points: np.ndarray  # (n, 2) x, y
    width: float = 0.0  # the brush width of a line


# -- Fabric objects -> geometry -----------------------------------------------------------------


def _num(obj: dict, key: str, default: float = 0.0) -> float:
    value = obj.get(key, default)
    if value is None:
        return default
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise StrokeError(f"{obj.get('type', 'object')}.{key}: expected a number, got {value!r}")
    return float(value)


def _placement(obj: dict) -> tuple[np.ndarray, np.ndarray]:
    """The object's centre on the canvas and its linear transform (rotation x scale x flip)."""
    sx = _num(obj, "scaleX", 1.0) * (-1 if obj.get("flipX") else 1)
    sy = _num(obj, "scaleY", 1.0) * (-1 if obj.get("flipY") else 1)
    a = math.radians(_num(obj, "angle"))
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    linear = rot @ np.diag([sx, sy])
    # Fabric positions an object by the box around it and its stroke (left/top at the origin point).
    sw = _num(obj, "strokeWidth")
    w, h = _num(obj, "width"), _num(obj, "height")
    if obj.get("strokeUniform"):
        box = np.array([w * abs(sx) + sw, h * abs(sy) + sw])
    else:
        box = np.array([(w + sw) * abs(sx), (h + sw) * abs(sy)])
    ox = _ORIGIN.get(str(obj.get("originX", "left")), 0.0)
    oy = _ORIGIN.get(str(obj.get("originY", "top")), 0.0)
    centre = np.array([_num(obj, "left"), _num(obj, "top")]) + rot @ (np.array([0.5 - ox, 0.5 - oy]) * box)
    return centre, linear


def _own_to_canvas(obj: dict, pts: np.ndarray) -> np.ndarray:
    """Points in the object's own plane (a path's or polygon's coordinates) onto the canvas."""
    centre, linear = _placement(obj)
    mid = (pts.min(axis=0) + pts.max(axis=0)) / 2  # Fabric's pathOffset: the middle of the points
    return (pts - mid) @ linear.T + centre


def _bezier(p0, ctrl: list) -> list[np.ndarray]:
    p0 = np.asarray(p0, dtype=float)
    hull = np.vstack([p0, np.asarray(ctrl, dtype=float)])
    steps = int(min(16, max(1, math.ceil(np.linalg.norm(np.diff(hull, axis=0), axis=1).sum() / 2))))
    t = np.linspace(0, 1, steps + 1)[1:, None]
    if len(ctrl) == 2:  # quadratic
        c, p1 = (np.asarray(v, dtype=float) for v in ctrl)
        return list((1 - t) ** 2 * p0 + 2 * (1 - t) * t * c + t**2 * p1)
    c1, c2, p1 = (np.asarray(v, dtype=float) for v in ctrl)
    return list((1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * c1 + 3 * (1 - t) * t**2 * c2 + t**3 * p1)


def path_points(path: Sequence) -> tuple[np.ndarray, bool]:
    """The points along an SVG-style path (M, L, Q, C, Z commands) and whether it is closed."""
    pts: list[np.ndarray] = []
    closed = False
    for seg in path:
        if not isinstance(seg, (list, tuple)) or not seg or not isinstance(seg[0], str):
            raise StrokeError(f"Path.path: bad segment {seg!r}")
        cmd, args = seg[0].upper(), [float(v) for v in seg[1:]]
        pairs = [args[i : i + 2] for i in range(0, len(args) - 1, 2)]
        if cmd in ("M", "L") and pairs:
            pts.append(np.asarray(pairs[-1]))
        elif cmd in ("Q", "C") and pts and len(pairs) == (2 if cmd == "Q" else 3):
            pts.extend(_bezier(pts[-1], pairs))
        elif cmd == "Z":
            closed = True
        else:
            raise StrokeError(f"Path.path: unsupported segment {seg!r}")
    if not pts:
        raise StrokeError("Path.path: no points")
    return np.asarray(pts, dtype=float), closed


def shape_of(obj: dict[str, Any], frame: CanvasFrame, as_area: bool = False) -> Shape:
    """The geometry of one Fabric object.

    ``as_area``: a free stroke (``Path``) drawn with a landmark tool; it is an outline (an area)
    when closed or when its ends are at most :data:`CLOSE_CELLS` cells apart, else a line.
    """
    if not isinstance(obj, dict):
        raise StrokeError(f"expected a canvas object, got {describe(obj)}")
    kind = obj.get("type")
    sw = _num(obj, "strokeWidth")
    if kind == "Rect":
        centre, linear = _placement(obj)
        hw, hh = _num(obj, "width") / 2, _num(obj, "height") / 2
        corners = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]]) @ linear.T + centre
        return Shape("area", corners)
    if kind == "Circle":  # the point tool
        centre, _ = _placement(obj)
        return Shape("point", centre[None, :])
    if kind in ("Polygon", "Polyline"):
        raw = obj.get("points") or []
        try:
            pts = np.array([[float(p["x"]), float(p["y"])] for p in raw])
        except (TypeError, KeyError, ValueError):
            raise StrokeError(f"{kind}.points: expected a list of {{x, y}}") from None
        if len(pts) < 3:
            raise StrokeError(f"{kind}.points: a polygon needs 3 points, got {len(pts)}")
        return Shape("area", _own_to_canvas(obj, pts))
    if kind == "Line":
        x1, y1, x2, y2 = (_num(obj, k) for k in ("x1", "y1", "x2", "y2"))
        return Shape("line", _own_to_canvas(obj, np.array([[x1, y1], [x2, y2]])), sw)
    if kind == "Path":
        pts, closed = path_points(obj.get("path") or [])
        pts = _own_to_canvas(obj, pts) if len(pts) > 1 else _placement(obj)[0][None, :]
        if as_area and len(pts) >= 3:
            cw, ch = frame.cell_px
            gap = np.hypot(*((pts[-1] - pts[0]) / (cw, ch)))
            if closed or gap <= CLOSE_CELLS:
                return Shape("area", pts)
        return Shape("line", pts, sw)
    raise StrokeError(f"unsupported canvas object type {kind!r} (expected Rect, Polygon, Path, Circle or Line)")


def brush_path(points, width: float) -> dict[str, Any]:
    """A ``Path`` object as the canvas's free-drawing brush sends it for a drag through ``points``
    (quadratic segments through the midpoints, placed by its centre): for tests and benchmarks."""
    pts = np.asarray(points, dtype=float)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    cmds = [["M", *pts[0]]] + [["Q", *a, *(a + b) / 2] for a, b in zip(pts[:-1], pts[1:])] + [["L", *pts[-1]]]
    return {
        "type": "Path",
        "originX": "center",
        "originY": "center",
        "left": (lo[0] + hi[0]) / 2,
        "top": (lo[1] + hi[1]) / 2,
        "width": hi[0] - lo[0],
        "height": hi[1] - lo[1],
        "strokeWidth": width,
        "path": [[c[0], *map(float, c[1:])] for c in cmds],
    }


# -- geometry -> cells --------------------------------------------------------------------------


def px_per_cell(rows: int, cols: int) -> int:
    return int(max(2, min(MAX_PX_PER_CELL, math.isqrt(MASK_PIXELS // (rows * cols)))))


def _fill_polygon(mask: np.ndarray, pts: np.ndarray) -> None:
    """Set the mask pixels whose centre lies inside the polygon (even-odd rule), row by row."""
    h, w = mask.shape
    x, y = pts[:, 0], pts[:, 1]
    x2, y2 = np.roll(x, -1), np.roll(y, -1)
    rows = np.arange(max(0, math.floor(y.min() - 0.5)), min(h, math.ceil(y.max() + 0.5)))
    if not len(rows):
        return
    yc = rows[:, None] + 0.5
    crosses = ((y <= yc) & (yc < y2)) | ((y2 <= yc) & (yc < y))
    with np.errstate(divide="ignore", invalid="ignore"):
        xs = np.where(crosses, x + (yc - y) * (x2 - x) / (y2 - y), np.inf)
    xs.sort(axis=1)
    for row, n, xrow in zip(rows, crosses.sum(axis=1), xs):
        for a, b in zip(xrow[:n:2], xrow[1:n:2]):
            i0, i1 = max(0, math.ceil(a - 0.5)), min(w, math.ceil(b - 0.5))
            if i1 > i0:
                mask[row, i0:i1] = True


def _ink(mask: np.ndarray, pts: np.ndarray, radius: float, scale: np.ndarray) -> None:
    """Set the mask pixels whose centre is within ``radius`` canvas pixels of the polyline (round
    caps and joins); ``pts`` and ``radius`` in canvas pixels, ``scale`` mask pixels per canvas pixel."""
    h, w = mask.shape
    segments = list(zip(pts[:-1], pts[1:])) if len(pts) > 1 else [(pts[0], pts[0])]
    for p, q in segments:
        lo, hi = (np.minimum(p, q) - radius) * scale, (np.maximum(p, q) + radius) * scale
        x0, y0 = max(0, math.floor(lo[0])), max(0, math.floor(lo[1]))
        x1, y1 = min(w, math.ceil(hi[0]) + 1), min(h, math.ceil(hi[1]) + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        cx = (np.arange(x0, x1) + 0.5) / scale[0]  # pixel centres, in canvas pixels
        cy = (np.arange(y0, y1) + 0.5) / scale[1]
        d = q - p
        length2 = float(d @ d)
        px, py = cx[None, :] - p[0], cy[:, None] - p[1]
        t = np.clip((px * d[0] + py * d[1]) / length2, 0, 1) if length2 > 0 else 0.0
        dist2 = (px - t * d[0]) ** 2 + (py - t * d[1]) ** 2
        mask[y0:y1, x0:x1] |= dist2 <= radius * radius


def coverage(shape: Shape, frame: CanvasFrame) -> np.ndarray:
    """The share of every cell the shape covers (rows x cols, 0-1).

    The shape is drawn into a mask of ``k`` x ``k`` pixels per cell (:func:`px_per_cell`, up to
    32), a pixel counting when its centre is covered, and each cell's share of covered pixels is
    measured by the platform importer's :func:`~corpus.importers.asciimap.ink_coverage`.
    """
    k = px_per_cell(frame.rows, frame.cols)
    mask = np.zeros((frame.rows * k, frame.cols * k), dtype=bool)
    scale = np.array([frame.cols * k / frame.width, frame.rows * k / frame.height])
    if shape.kind == "area":
        _fill_polygon(mask, shape.points * scale)
    else:
        _ink(mask, shape.points, max(shape.width, 1.0) / 2, scale)
    return ink_coverage(mask.astype(np.float32), (frame.rows, frame.cols))


def shape_cells(shape: Shape, frame: CanvasFrame, share: float = DEFAULT_INK_SHARE) -> list[Cell]:
    """The cells a shape covers by at least ``share`` (a point: the cell under it), in reading order."""
    if shape.kind == "point":
        return [frame.cell_at(*shape.points[0])]
    cov = coverage(shape, frame)
    return [(int(r), int(c)) for r, c in np.argwhere(cov >= share)]


def object_cells(obj: dict, frame: CanvasFrame, share: float = DEFAULT_INK_SHARE, as_area: bool = False) -> list[Cell]:
    return shape_cells(shape_of(obj, frame, as_area), frame, share)


def route_cells(obj: dict, frame: CanvasFrame, share: float = DEFAULT_INK_SHARE) -> list[Cell]:
    """A route stroke as an ordered path of 8-neighbour cells, from where it starts to where it ends.

    The cells are those the ink covers (the rule above) plus the cells under the stroke's two ends;
    the order is the importer's route path through them (:func:`corpus.importers.asciimap.route_path`):
    it follows the line cell by cell and leaves out cells the brush only grazed beside it.
    Raises :class:`StrokeError` when the ink does not connect the two ends (a brush too thin for
    the cells, or a share too high).
    """
    shape = shape_of(obj, frame)
    first, last = frame.cell_at(*shape.points[0]), frame.cell_at(*shape.points[-1])
    if shape.kind == "point" or first == last and len(shape.points) < 2:
        return [first]
    inked = set(shape_cells(Shape("line", shape.points, shape.width), frame, share))
    path, _ = route_path(first, last, inked)
    if path is None:
        raise StrokeError(
            f"the stroke's ink does not connect its ends {list(first)} and {list(last)} by cells it covers "
            f"at least {share:.0%} of: draw with a wider brush"
        )
    return path
