"""Grids for imported sessions: ASCII grid maps, ink images rasterized onto a grid, placeholders.

ASCII grid maps are the collection platform's text maps: one character per cell, rows top to
bottom, ``#`` a landmark cell, ``.`` a route cell, ``S`` the start, ``F`` the finish, a space an
empty cell. Landmarks are the 8-connected components of ``#`` (named ``landmark_1``,
``landmark_2``, ... in reading order of their first cell, unless a name file is given); the route
is the ordered path from ``S`` to ``F`` through the route cells.

Ink images are the Follower's drawing layer as the platform saves it after each stroke (a PNG,
transparent where nothing is drawn). A cell is filled when the ink covers at least ``share`` of
it (:data:`DEFAULT_INK_SHARE`; docs/importers.md explains the default).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import numpy as np

from corpus.loading.reading import read_json
from corpus.loading.validate import Report, read_text
from corpus.model import Cell, GridMap, Landmark

# A cell counts as drawn when ink covers at least this share of it (see docs/importers.md).
DEFAULT_INK_SHARE = 0.10
# Image maps without a grid specification get a grid with this many cells on the longer side
# (the platform's own ASCII grid maps are 60 cells wide).
DEFAULT_LONG_SIDE_CELLS = 60

_N4 = ((0, 1), (1, 0), (0, -1), (-1, 0))
_N8 = _N4 + ((1, 1), (1, -1), (-1, 1), (-1, -1))


# ---------------------------------------------------------------------------------------------
# ASCII grid maps
# ---------------------------------------------------------------------------------------------


@dataclass
class _Cells:
    """The cells of an ASCII grid map by what their character marks."""

    landmarks: set[Cell] = field(default_factory=set)
    route: set[Cell] = field(default_factory=set)
    starts: list[Cell] = field(default_factory=list)
    finishes: list[Cell] = field(default_factory=list)


def _map_lines(text: str) -> list[str]:
    """The rows of an ASCII grid map's text (any line ending; the newline that ends the file is no row)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()  # the newline that ends the file is not a row
    return lines


def _scan_cells(lines: list[str], report: Report, rel: str) -> _Cells | None:
    """The marked cells of the rows, or None when a character is none of the map's (the first 20 reported)."""
    cells = _Cells()
    bad = 0
    for r, line in enumerate(lines):
        for c, ch in enumerate(line):
            if ch == "#":
                cells.landmarks.add((r, c))
            elif ch == ".":
                cells.route.add((r, c))
            elif ch == "S":
                cells.starts.append((r, c))
            elif ch == "F":
                cells.finishes.append((r, c))
            elif ch not in (" ", "\t"):
                if bad < 20:
                    report.add(
                        rel,
                        f"line {r + 1}",
                        f"column {c + 1}",
                        f"unknown map character {ch!r} (expected '#' landmark, '.' route, 'S' start, 'F' finish or a space)",
                    )
                bad += 1
    return None if bad else cells


def _ends(cells: _Cells, report: Report, rel: str) -> tuple[Cell, Cell] | None:
    """(start, finish), or None when the map has not exactly one of each."""
    ok = True
    for what, found in (("S (start)", cells.starts), ("F (finish)", cells.finishes)):
        if len(found) != 1:
            where = ", ".join(f"line {r + 1} column {c + 1}" for r, c in found) or "nowhere"
            report.add(rel, "-", what, f"a map needs exactly one {what}; found {len(found)} ({where})")
            ok = False
    return (cells.starts[0], cells.finishes[0]) if ok else None


def _map_route(start: Cell, finish: Cell, route_cells: set[Cell], report: Report, rel: str) -> list[Cell] | None:
    """The route from start to finish through the route cells (a warning for cells off it), or None."""
    route, off_path = route_path(start, finish, route_cells)
    if route is None:
        report.add(
            rel,
            f"line {start[0] + 1}",
            "route",
            f"no connected path of '.' cells from S (line {start[0] + 1}, column {start[1] + 1}) "
            f"to F (line {finish[0] + 1}, column {finish[1] + 1})",
        )
        return None
    if off_path:
        r, c = min(off_path)
        report.add(
            rel,
            f"line {r + 1}",
            "route",
            f"{len(off_path)} route cell(s) are not on the path from S to F (first at line {r + 1}, "
            f"column {c + 1}); they are left out of the route",
            "warning",
        )
    return route


def _named_landmarks(
    landmark_cells: set[Cell], names: dict[str, str] | None, report: Report, rel: str
) -> dict[str, Landmark] | None:
    """The landmarks (the components of the landmark cells) under their names, or None when a
    name is for no landmark or two landmarks share one."""
    components = connected_components(landmark_cells)
    landmarks: dict[str, Landmark] = {}
    default_names = [f"landmark_{k + 1}" for k in range(len(components))]
    rename = dict(names or {})
    unknown = sorted(set(rename) - set(default_names))
    for key in unknown:
        report.add(
            rel,
            "-",
            f"names.{key}",
            f"no landmark '{key}' on this map (it has landmark_1 .. landmark_{len(components)})",
        )
    if unknown:
        return None
    for default, cells in zip(default_names, components):
        landmarks[rename.get(default, default)] = Landmark(cells=sorted(cells))
    if len(landmarks) != len(components):
        report.add(rel, "-", "names", "two landmarks were given the same name")
        return None
    return landmarks


def parse_ascii_map(
    text: str,
    map_id: str,
    report: Report,
    rel: str,
    names: dict[str, str] | None = None,
    name: str = "",
) -> GridMap | None:
    """A :class:`GridMap` from the text of an ASCII grid map; problems go to ``report``.

    ``names`` renames landmarks: ``{"landmark_3": "fossil bed"}``.
    """
    lines = _map_lines(text)
    if not lines or not any(line.strip() for line in lines):
        report.add(rel, "-", "(file)", "empty map: no cells")
        return None
    cells = _scan_cells(lines, report, rel)
    ends = _ends(cells, report, rel) if cells is not None else None
    if cells is None or ends is None:
        return None
    start, finish = ends
    route = _map_route(start, finish, cells.route, report, rel)
    if route is None:
        return None
    landmarks = _named_landmarks(cells.landmarks, names, report, rel)
    if landmarks is None:
        return None
    return GridMap(
        id=map_id,
        name=name or map_id,
        grid_size=(len(lines), max(len(line) for line in lines)),
        start_cell=start,
        finish_cell=finish,
        landmarks=landmarks,
        route=route,
    )


def read_ascii_map(
    path: Path, report: Report, rel: str, map_id: str | None = None, names_path: Path | None = None
) -> GridMap | None:
    text = read_text(path, report, rel)
    if text is None:
        return None
    names = None
    if names_path is not None:
        names = read_landmark_names(names_path, report, names_path.name)
        if names is None:
            return None
    mid = map_id or safe_id(path.stem)
    return parse_ascii_map(text, mid, report, rel, names=names, name=path.stem)


def read_landmark_names(path: Path, report: Report, rel: str) -> dict[str, str] | None:
    """Landmark names: JSON ``{"landmark_1": "old mill", ...}`` or text, one name per line in order."""
    if path.suffix.lower() == ".json":
        n_errors = len(report.errors)
        obj = read_json(path, report, rel)
        if len(report.errors) > n_errors:
            return None
        if not isinstance(obj, dict) or not all(isinstance(v, str) and v.strip() for v in obj.values()):
            report.add(rel, "-", "(file)", 'expected a JSON object {"landmark_1": "a name", ...}')
            return None
        return {str(k): v.strip() for k, v in obj.items()}
    text = read_text(path, report, rel)
    if text is None:
        return None
    names = [line.strip() for line in text.splitlines() if line.strip()]
    return {f"landmark_{k + 1}": n for k, n in enumerate(names)}


def connected_components(cells: Iterable[Cell]) -> list[list[Cell]]:
    """8-connected components, ordered by their first cell in reading order."""
    todo = set(cells)
    out: list[list[Cell]] = []
    for seed in sorted(todo):
        if seed not in todo:
            continue
        todo.discard(seed)
        comp = [seed]
        stack = [seed]
        while stack:
            r, c = stack.pop()
            for dr, dc in _N8:
                n = (r + dr, c + dc)
                if n in todo:
                    todo.discard(n)
                    comp.append(n)
                    stack.append(n)
        out.append(sorted(comp))
    return out


def route_path(start: Cell, finish: Cell, cells: set[Cell]) -> tuple[list[Cell] | None, set[Cell]]:
    """The ordered path S -> F through ``cells`` and the route cells it leaves out.

    The cheapest path where a side step costs 1 and a diagonal step 2.5: more than going round
    the corner, so the path follows the drawn line cell by cell and only moves diagonally where
    the line itself does. Dead-end spurs are not on it.
    """
    import heapq

    allowed = set(cells) | {start, finish}
    best = {start: 0.0}
    prev: dict[Cell, Cell] = {}
    heap: list[tuple[float, Cell]] = [(0.0, start)]
    while heap:
        cost, cell = heapq.heappop(heap)
        if cell == finish:
            break
        if cost > best.get(cell, float("inf")):
            continue
        r, c = cell
        for k, (dr, dc) in enumerate(_N8):
            n = (r + dr, c + dc)
            if n not in allowed:
                continue
            nc = cost + (1.0 if k < 4 else 2.5)
            if nc < best.get(n, float("inf")):
                best[n] = nc
                prev[n] = cell
                heapq.heappush(heap, (nc, n))
    if finish not in best:
        return None, set(cells)
    path = [finish]
    while path[-1] != start:
        path.append(prev[path[-1]])
    path.reverse()
    return path, set(cells) - set(path)


# ---------------------------------------------------------------------------------------------
# Ink images
# ---------------------------------------------------------------------------------------------


# The ink density of each level of a decoded image, exactly as float32 arithmetic on its pixels
# gives it: alpha / 255 for a transparent image (level = alpha), 1 - L / 255 for an image without
# alpha (level = 255 - L) and 1 - mean(R, G, B) / 255 for an opaque RGBA image (level =
# 765 - (R + G + B)). Level 0 is no ink. Kept as float64 so that sums over cells are exact.
_BYTE = np.arange(256, dtype=np.float32)
ALPHA_DENSITY = (_BYTE / 255.0).astype(np.float64)
GRAY_DENSITY = (1.0 - _BYTE[::-1] / 255.0).astype(np.float64)
_RGB_SUMS = np.zeros((766, 3), dtype=np.float32)
_RGB_SUMS[:, 0] = np.arange(765, -1, -1)
RGB_DENSITY = (1.0 - _RGB_SUMS.mean(axis=1) / 255.0).astype(np.float64)


def ink_image_size(path: Path) -> tuple[int, int]:
    """(width, height) of the ink image at ``path``, read from its header without decoding it."""
    from PIL import Image

    with Image.open(path) as im:
        return im.size


def read_ink_levels(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Decode the ink image at ``path`` into one ink level per pixel and the density of each level.

    The density of a pixel is ``density[level]``: the alpha channel, or darkness for an opaque
    image. Levels are one byte per pixel (two for an opaque RGBA image). Only the one-byte bands
    needed are taken from the decoded image, which is closed before they become arrays.
    """
    from PIL import Image

    with Image.open(path) as im:
        im.load()
        size = (im.height, im.width)
        if im.mode in ("RGBA", "LA", "PA") or "transparency" in im.info:
            rgba = im if im.mode == "RGBA" else im.convert("RGBA")
            alpha = rgba.getchannel("A")
            lowest, _ = cast(tuple[int, int], alpha.getextrema())
            if lowest < 255:
                kind, bands = "alpha", [alpha]
            else:
                kind, bands = "rgb", [rgba.getchannel(b) for b in "RGB"]
            del rgba, alpha
        else:
            kind, bands = "gray", [im.convert("L")]
        im.close()  # frees the decoded pixels (leaving the block only closes the file)
    if kind == "alpha":
        return np.asarray(bands.pop()), ALPHA_DENSITY
    if kind == "gray":
        return 255 - np.asarray(bands.pop()), GRAY_DENSITY
    levels = np.full(size, 765, dtype=np.uint16)
    while bands:
        levels -= np.asarray(bands.pop())
    return levels, RGB_DENSITY


def ink_coverage(alpha: np.ndarray, grid_size: tuple[int, int], density: np.ndarray | None = None) -> np.ndarray:
    """Share of each grid cell covered by ink (rows x cols), the image stretched over the grid.

    ``alpha`` holds the ink density of each pixel in [0, 1], or, with ``density``, an ink level per
    pixel whose density is ``density[level]`` (level 0: no ink). Cell edges are rounded to whole
    pixels, so every pixel belongs to one cell. The sums run one row of cells at a time and only
    over the pixel columns holding ink, so no full-size copy of the image is made; for the
    densities of :func:`read_ink_levels` every partial sum is exact in float64, so the result does
    not depend on the order of summation.
    """
    rows, cols = grid_size
    h, w = alpha.shape
    if h < rows or w < cols:
        raise ValueError(f"a {w}x{h} image is smaller than the {rows}x{cols} grid")
    ys = np.round(np.arange(rows) * h / rows).astype(np.int64)
    xs = np.round(np.arange(cols) * w / cols).astype(np.int64)
    heights = np.diff(np.append(ys, h))
    widths = np.diff(np.append(xs, w))
    cell_of_column = np.repeat(np.arange(cols), widths)
    sums = np.zeros((rows, cols))
    for r in range(rows):
        band = alpha[ys[r] : ys[r] + heights[r]]
        inked = np.flatnonzero(band.any(axis=0))
        if inked.size == 0:
            continue
        part = band[:, inked]
        values = density[part] if density is not None else part.astype(np.float64)
        sums[r] = np.bincount(cell_of_column[inked], weights=values.sum(axis=0), minlength=cols)
    return sums / np.outer(heights, widths)


@dataclass(frozen=True)
class InkLayer:
    """What is kept of an ink image once it is read: its size, whether it holds any ink, and the
    share of each cell it covers on each grid asked for (rows x cols floats; no pixels)."""

    height: int
    width: int
    has_ink: bool
    coverage: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)

    def coverage_of(self, grid_size: tuple[int, int]) -> np.ndarray:
        """The coverage of ``grid_size``; ValueError when the image is smaller than the grid."""
        if grid_size in self.coverage:
            return self.coverage[grid_size]
        rows, cols = grid_size
        if self.height < rows or self.width < cols:
            raise ValueError(f"a {self.width}x{self.height} image is smaller than the {rows}x{cols} grid")
        if not self.has_ink:
            return np.zeros(grid_size)
        raise KeyError(f"the {rows}x{cols} grid was not asked for when the image was read")


def read_ink_layer(path: Path, grids: Iterable[tuple[int, int]]) -> InkLayer:
    """Decode the ink image at ``path`` once and keep only its coverage of each of ``grids``."""
    levels, density = read_ink_levels(path)
    h, w = levels.shape
    has_ink = bool(levels.any())
    coverage: dict[tuple[int, int], np.ndarray] = {}
    if has_ink:
        for grid in dict.fromkeys((int(g[0]), int(g[1])) for g in grids):
            if h >= grid[0] and w >= grid[1]:
                coverage[grid] = ink_coverage(levels, grid, density)
    return InkLayer(h, w, has_ink, coverage)


def filled_cells(coverage: np.ndarray, share: float) -> set[Cell]:
    """The cells a coverage array fills at ``share`` (row by row)."""
    return {(int(r), int(c)) for r, c in zip(*((coverage >= share).nonzero()))}


def rasterize_ink(path: Path, grid_size: tuple[int, int], share: float = DEFAULT_INK_SHARE) -> set[Cell]:
    """The cells of ``grid_size`` that the ink image at ``path`` covers by at least ``share``."""
    layer = read_ink_layer(path, [grid_size])
    if not layer.has_ink:
        return set()
    return filled_cells(layer.coverage_of(grid_size), share)


def grid_for_image(width: int, height: int, long_side: int = DEFAULT_LONG_SIDE_CELLS) -> tuple[int, int]:
    """A grid of square cells over a ``width`` x ``height`` image, ``long_side`` cells on its longer side."""
    if height >= width:
        return long_side, max(1, round(long_side * width / height))
    return max(1, round(long_side * height / width)), long_side


# ---------------------------------------------------------------------------------------------
# Placeholders
# ---------------------------------------------------------------------------------------------


def placeholder_map(map_id: str, name: str, grid_size: tuple[int, int]) -> GridMap:
    """A grid with no landmarks for a map the source does not include.

    Its route is empty, so task metrics (accuracy, coverage) are undefined for its sessions, not
    zero. Pass an annotated map file to the importer to get landmarks, route and task metrics.
    """
    rows, cols = grid_size
    return GridMap(id=map_id, name=name, grid_size=(rows, cols), start_cell=(0, 0), landmarks={}, route=[])


def safe_id(text: str) -> str:
    """An id usable as a file or folder name: letters, digits, '-', '_' and '.'."""
    out = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in text.strip())
    out = out.strip(".-") or "map"
    return out[:80]
