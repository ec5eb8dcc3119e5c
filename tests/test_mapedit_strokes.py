"""Canvas strokes to grid cells (corpus.mapedit.strokes): rectangles, polygons, free strokes, points
and route paths, at several grid sizes and canvas scales, against hand-computed cells."""

from __future__ import annotations

import numpy as np
import pytest

from corpus.importers.asciimap import DEFAULT_INK_SHARE
from corpus.mapedit.strokes import CanvasFrame, StrokeError, coverage, object_cells, route_cells, shape_of
from corpus.mapedit.strokes import brush_path as free_path

GRIDS = [(10, 10), (40, 60), (60, 41), (7, 13)]
SCALES = [0.5, 1.0, 2.7, 12.0]  # canvas pixels per cell side: a shrunk and an enlarged image


def frame(grid, px_per_cell, aspect=1.0) -> CanvasFrame:
    rows, cols = grid
    return CanvasFrame(width=cols * px_per_cell, height=rows * px_per_cell * aspect, rows=rows, cols=cols)


def centre(f: CanvasFrame, cell) -> tuple[float, float]:
    cw, ch = f.cell_px
    return (cell[1] + 0.5) * cw, (cell[0] + 0.5) * ch


def rect(x0, y0, x1, y1, stroke=0.0) -> dict:
    """A Rect as the canvas's rectangle tool sends it (origin left/top, stroke outside the box)."""
    return {
        "type": "Rect",
        "originX": "left",
        "originY": "top",
        "left": x0 - stroke / 2,
        "top": y0 - stroke / 2,
        "width": x1 - x0,
        "height": y1 - y0,
        "strokeWidth": stroke,
        "strokeUniform": True,
        "scaleX": 1,
        "scaleY": 1,
    }


def dense(points, step=2.0):
    """Points every ``step`` px along a polyline, as a mouse drag delivers them."""
    out = [np.asarray(points[0], dtype=float)]
    for a, b in zip(points[:-1], points[1:]):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        n = max(1, int(np.ceil(np.linalg.norm(b - a) / step)))
        out += [a + (b - a) * t for t in np.linspace(0, 1, n + 1)[1:]]
    return out


def block(r0, r1, c0, c1):
    return [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]


@pytest.mark.parametrize("grid", GRIDS)
@pytest.mark.parametrize("scale", SCALES)
def test_rectangle_from_cell_centre_to_cell_centre_covers_the_block(grid, scale):
    # The rectangle's edges run through the middle of the edge cells: each is half covered (>= 10 %).
    rows, cols = grid
    f = frame(grid, scale)
    a, b = (1, 2), (rows - 2, cols - 3)
    (x0, y0), (x1, y1) = centre(f, a), centre(f, b)
    assert object_cells(rect(x0, y0, x1, y1), f, as_area=True) == block(a[0], b[0], a[1], b[1])


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("aspect", [1.0, 0.6, 1.8])  # an image whose aspect differs from the grid's: cells stretch
def test_a_cell_counts_from_ten_percent_of_it(scale, aspect):
    f = frame((10, 10), scale, aspect)
    cw, ch = f.cell_px
    # Rows 3-5 fully; column 2 covered 0.12 of its width, column 7 0.08: 2 counts, 7 does not.
    x0, x1 = (3 - 0.12) * cw, (7 + 0.08) * cw
    cells = object_cells(rect(x0, 3 * ch, x1, 6 * ch), f, as_area=True)
    assert cells == block(3, 5, 2, 6)
    cov = coverage(shape_of(rect(x0, 3 * ch, x1, 6 * ch), f), f)
    k = 1 / 32  # the mask's resolution: 32 pixels per cell side at this grid size
    assert cov[4, 2] == pytest.approx(0.12, abs=k) and cov[4, 7] == pytest.approx(0.08, abs=k)
    assert cov[4, 4] == 1.0 and cov[2, 4] == 0.0
    assert DEFAULT_INK_SHARE == 0.10


def test_the_rectangle_tool_s_stroke_is_not_counted_as_area():
    # A 20-px stroke pads the drawn box; the shape is the box's outline centre, as Fabric draws it.
    f = frame((10, 10), 20)
    drawn = rect(40, 40, 120, 100, stroke=20)
    assert object_cells(drawn, f, as_area=True) == block(2, 4, 2, 5)


@pytest.mark.parametrize("grid", [(8, 8), (40, 60)])
@pytest.mark.parametrize("scale", [1.0, 5.0, 13.0])
def test_polygon_triangle_covers_the_lower_triangle_and_the_diagonal(grid, scale):
    # Vertices on cell corners: cells below the diagonal are covered wholly, those on it by half,
    # those above not at all.
    f = frame(grid, scale)
    cw, ch = f.cell_px
    n = 6
    pts = [(0, 0), (0, n * ch), (n * cw, n * ch)]
    poly = {
        "type": "Polygon",
        "originX": "center",
        "originY": "center",
        "left": n * cw / 2,
        "top": n * ch / 2,
        "width": n * cw,
        "height": n * ch,
        "strokeWidth": 2,
        "points": [{"x": x, "y": y} for x, y in pts],
    }
    assert object_cells(poly, f, as_area=True) == [(r, c) for r in range(n) for c in range(r + 1)]


def test_a_moved_and_scaled_polygon_is_placed_by_its_transform():
    # Fabric keeps a polygon's points and moves it by left/top; scaleX stretches it about its centre.
    f = frame((10, 10), 10)
    square = [{"x": 0, "y": 0}, {"x": 20, "y": 0}, {"x": 20, "y": 20}, {"x": 0, "y": 20}]
    moved = {
        "type": "Polygon",
        "originX": "center",
        "originY": "center",
        "left": 55,
        "top": 35,
        "width": 20,
        "height": 20,
        "scaleX": 2,
        "scaleY": 1,
        "strokeWidth": 0,
        "points": square,
    }
    # x from 55 - 20 to 55 + 20, y from 35 - 10 to 35 + 10: half of the edge cells each way.
    assert object_cells(moved, f, as_area=True) == block(2, 4, 3, 7)


@pytest.mark.parametrize("grid", GRIDS)
@pytest.mark.parametrize("scale", [4.0, 11.0, 30.0])
def test_free_stroke_along_a_row_inks_that_row(grid, scale):
    # A brush half a cell wide along the cells' centres covers half of each cell on its way and
    # nothing of the rows beside it; the round caps stay inside the end cells.
    f = frame(grid, scale)
    cw, _ = f.cell_px
    r, c0, c1 = grid[0] // 2, 1, grid[1] - 2
    pts = [centre(f, (r, c)) for c in range(c0, c1 + 1)]
    assert object_cells(free_path(pts, cw / 2), f, as_area=False) == [(r, c) for c in range(c0, c1 + 1)]


def test_a_closed_free_stroke_is_an_outline_filled():
    f = frame((10, 10), 10)
    loop = dense([(25, 25), (75, 25), (75, 65), (25, 65), (26, 26)])  # ends 1.4 px apart: closed
    assert object_cells(free_path(loop, 2), f, as_area=True) == block(2, 6, 2, 7)
    # The same stroke as a route or with a landmark tool but left open is only ink.
    open_stroke = dense([(25, 25), (75, 25), (75, 65)])
    cells = object_cells(free_path(open_stroke, 2), f, as_area=True)
    assert (4, 4) not in cells and (2, 4) in cells and (4, 7) in cells


@pytest.mark.parametrize("scale", SCALES)
def test_a_point_is_the_cell_under_its_centre(scale):
    f = frame((40, 60), scale)
    x, y = centre(f, (12, 33))
    r = 4.0
    # The point tool's Circle: origin left/centre, its left edge at centre - radius - stroke / 2.
    point = {
        "type": "Circle",
        "radius": r,
        "originX": "left",
        "originY": "center",
        "left": x - r - 1,
        "top": y,
        "width": 2 * r,
        "height": 2 * r,
        "strokeWidth": 2,
    }
    assert object_cells(point, f) == [(12, 33)]


@pytest.mark.parametrize("grid", [(60, 41), (40, 60), (12, 12)])
@pytest.mark.parametrize("scale", [6.0, 12.7, 25.0])
def test_route_stroke_becomes_the_ordered_cells_from_its_start_to_its_end(grid, scale):
    f = frame(grid, scale)
    cw, _ = f.cell_px
    path = [(2, 2), (2, 3), (2, 4), (2, 5), (3, 5), (4, 5), (5, 5), (5, 4), (5, 3), (6, 3), (7, 3)]
    stroke = free_path([centre(f, c) for c in path], 0.6 * cw)
    assert route_cells(stroke, f) == path
    backwards = free_path([centre(f, c) for c in reversed(path)], 0.6 * cw)
    assert route_cells(backwards, f) == path[::-1]


def test_route_stroke_with_ink_too_thin_to_connect_its_ends_is_refused():
    f = frame((10, 10), 40)
    # A 1-px brush along a diagonal through cell corners covers about 1 % of each cell it touches.
    stroke = free_path([(40, 40), (200, 200)], 1)
    with pytest.raises(StrokeError, match="wider brush"):
        route_cells(stroke, f)


def test_unknown_or_malformed_objects_are_refused_with_the_field():
    f = frame((10, 10), 10)
    with pytest.raises(StrokeError, match="unsupported canvas object type 'IText'"):
        object_cells({"type": "IText", "text": "x"}, f)
    with pytest.raises(StrokeError, match=r"Rect.left: expected a number"):
        object_cells({**rect(0, 0, 10, 10), "left": "west"}, f)
    with pytest.raises(StrokeError, match="a polygon needs 3 points"):
        object_cells({"type": "Polygon", "points": [{"x": 1, "y": 1}]}, f)
