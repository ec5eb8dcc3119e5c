"""One platform session's rows made actions: messages, and the Follower's strokes turned into the
grid cells they drew or erased, on a :class:`corpus.canvas.Canvas`.

A stroke's cells are the difference between the canvas before it and the canvas state it logged:
``metadata.filledCells`` on grid maps, the ink PNG rasterized onto the grid on image maps. A stroke
that changed no grid cell, or whose canvas state is not there (its ink image missing), and an undo
of such a stroke, is imported as an action with no cell change (``no_cell_change``) when it carries
an annotation: the annotation is kept, the canvas does not change. Without one it is left out, with
a warning.

Ink images are read one at a time (:class:`InkImages`): sizes from the PNG headers, and each image
decoded once, when its stroke is replayed, reduced to the share of each grid cell it covers and
dropped, so memory does not grow with the number or the size of the images.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

from corpus.canvas import Canvas
from corpus.importers.asciimap import InkLayer, filled_cells, ink_image_size, read_ink_layer
from corpus.importers.platform.bundle import inkless_export_stroke
from corpus.importers.platform.rows import PlatformOptions, Row
from corpus.loading.report import counted
from corpus.loading.validate import ERROR, WARNING, Report
from corpus.model import Action, Cell, GridMap

# Called as progress(strokes done, strokes in all): with 0 before the first ink image is read,
# then after each ink stroke.
Progress = Callable[[int, int], None]

_progress: ContextVar[Progress | None] = ContextVar("ink_progress", default=None)

T = TypeVar("T")


@contextmanager
def reporting_progress(progress: Progress | None) -> Iterator[None]:
    """Within the block, the ink of platform imports is reported to ``progress``."""
    token = _progress.set(progress)
    try:
        yield
    finally:
        _progress.reset(token)


def _ink_path(row: Row) -> Path:
    return (row.folder / cast(str, row.map_image)).resolve()


def count_ink_strokes(rows: Iterable[Row]) -> int:
    """The strokes whose canvas is an ink image that is there: strokes naming an existing image,
    in sessions that log no grid cells."""
    by_session: dict[str, list[Row]] = {}
    for r in rows:
        by_session.setdefault(r.session_id, []).append(r)
    return sum(
        sum(1 for r in srows if r.kind == "stroke" and r.map_image and _ink_path(r).is_file())
        for srows in by_session.values()
        if not any(r.filled is not None for r in srows)
    )


class InkImages:
    """The ink images of one import, read one at a time.

    An image's size comes from its PNG header, without decoding it. When a stroke needs its cells
    the image is decoded once, the share of each grid cell it covers is computed and the pixels
    are dropped; nothing of the image is kept. ``progress`` (or the one set with
    :func:`reporting_progress`) hears of the ink strokes of ``rows``: (0, n) first, then
    (k, n) after the k-th image is rasterized.
    """

    def __init__(self, rows: Iterable[Row] = (), progress: Progress | None = None) -> None:
        self.progress = progress if progress is not None else _progress.get()
        self.total = count_ink_strokes(rows)
        self.done = 0
        if self.progress is not None:
            self.progress(0, self.total)

    def shape(self, path: Path) -> tuple[int, int]:
        """(height, width) of the image at ``path``, from its header."""
        width, height = ink_image_size(path)
        return height, width

    def layer(self, path: Path, grid: tuple[int, int]) -> InkLayer:
        """The image at ``path`` decoded and reduced to its coverage of ``grid`` (progress is told,
        also when the image cannot be read)."""
        try:
            return read_ink_layer(path, [grid])
        finally:
            self.done += 1
            if self.progress is not None:
                self.progress(self.done, max(self.total, self.done))


def time_origins(rows: list[Row]) -> tuple[float, float]:
    """(the session's time zero, the platform's session start) as POSIX seconds."""
    first = min(r.when for r in rows).timestamp()
    starts = [r.when.timestamp() - r.elapsed for r in rows if r.elapsed is not None]
    origin = statistics.median(starts) if starts else first
    return min([first, *starts]), origin


def order_cells(cells: set[Cell], near: Cell | None = None, hint: list[Cell] | None = None) -> list[Cell]:
    """The cells of one stroke in a plausible drawing order.

    With ``hint`` (the platform's own insertion order on grid maps) that order is kept. Otherwise
    a walk from the end nearest ``near`` (the previous stroke's end) to the nearest unvisited cell,
    side neighbours before diagonal ones.
    """
    if hint is not None:
        seen = [c for c in hint if c in cells]
        rest = sorted(cells - set(seen))
        return seen + rest
    todo = set(cells)
    if not todo:
        return []

    def degree(c: Cell) -> int:
        return sum((c[0] + dr, c[1] + dc) in todo for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)

    ends = [c for c in todo if degree(c) <= 1] or list(todo)
    if near is not None:
        current = min(ends, key=lambda c: (max(abs(c[0] - near[0]), abs(c[1] - near[1])), c))
    else:
        current = min(ends)
    out = [current]
    todo.discard(current)
    while todo:
        r, c = current
        current = min(todo, key=lambda x: (max(abs(x[0] - r), abs(x[1] - c)), abs(x[0] - r) + abs(x[1] - c), x))
        out.append(current)
        todo.discard(current)
    return out


def _read_ink(row: Row, report: Report, read: Callable[[Path], T]) -> T | None:
    """``read`` applied to the ink image a row names; None when the file is not there, or when it
    cannot be read (reported as an error of the row)."""
    path = _ink_path(row)  # callers pass only rows that name an image
    if not path.is_file():
        return None
    try:
        return read(path)
    except Exception as exc:  # PIL raises many types for a broken image
        report.add(row.file, row.where, "map_image", f"cannot read the ink image {row.map_image}: {exc}")
        return None


def ink_shape_of(row: Row, ink: InkImages, report: Report) -> tuple[int, int] | None:
    """(height, width) of the ink image a row names, from its header; None as for :func:`_read_ink`."""
    return _read_ink(row, report, ink.shape)


class _Snapshots:
    """The canvas state each stroke row logged, as a set of grid cells."""

    def __init__(
        self, grid_map: GridMap, map_kind: str, options: PlatformOptions, report: Report, ink: InkImages
    ) -> None:
        self.grid_map, self.map_kind, self.options, self.report, self.ink = grid_map, map_kind, options, report, ink
        self.grid = cast(tuple[int, int], tuple(grid_map.grid_size))
        self.warned_shape = False

    def __call__(self, row: Row) -> set[Cell] | None:
        """The canvas the row logged, or None when it logged none."""
        if self.map_kind == "grid":
            return self._filled(row)
        if self.map_kind != "image" or not row.map_image:
            return None
        return self._inked(row)

    def _filled(self, row: Row) -> set[Cell] | None:
        rows_n, cols_n = self.grid
        cells = set(row.filled or [])
        outside = [c for c in cells if not (0 <= c[0] < rows_n and 0 <= c[1] < cols_n)]
        if outside:
            r, c = sorted(outside)[0]
            self.report.add(
                row.file,
                row.where,
                "metadata.filledCells",
                f"cell {r},{c} is outside the {rows_n}x{cols_n} grid of map '{self.grid_map.id}'",
            )
            return None
        return cells

    def _inked(self, row: Row) -> set[Cell] | None:
        layer = _read_ink(row, self.report, lambda path: self.ink.layer(path, self.grid))
        if layer is None:
            return None
        if not layer.has_ink:
            return set()
        h, w = layer.height, layer.width
        rows_n, cols_n = self.grid
        if abs((w / h) / (cols_n / rows_n) - 1) > 0.08 and not self.warned_shape:
            self.warned_shape = True
            self.report.add(
                row.file,
                row.where,
                "map_image",
                f"the ink image is {w}x{h} px but the grid is {rows_n}x{cols_n} cells: the shapes differ, "
                "so cells are stretched (further images of this session not reported)",
                WARNING,
            )
        try:
            cov = layer.coverage_of(self.grid)
        except ValueError as exc:
            self.report.add(row.file, row.where, "map_image", str(exc))
            return None
        return filled_cells(cov, self.options.ink_share)


# What an action with no cell change is, in the session notes and the import's report: (its type,
# why) -> what the sentence counts.
NO_CHANGE_KINDS = {
    "changed_no_cell": "strokes that changed no grid cell",
    "ink_missing": "strokes whose ink image is missing",
    "no_state": "strokes that logged no canvas state",
    "undo": "undos of such strokes",
}


@dataclass
class BuiltSession:
    """A session's actions in time order, the action-id index, notes for the session, and what was
    made of the strokes without a cell change: the ones imported (by :data:`NO_CHANGE_KINDS` key, the
    file of each), and the export's strokes left out for their missing ink (counted once for the
    import)."""

    actions: list[Action]
    ids: dict[str, int]
    notes: list[str]
    kept: dict[str, list[str]] = field(default_factory=dict)
    inkless: list[Row] = field(default_factory=list)


class _Replay:
    """One session's rows replayed in time order on a canvas, the actions made into ``built``."""

    def __init__(self, rows: list[Row], roles: dict[str, str], snapshot: _Snapshots, annotated: Container[str]) -> None:
        self.roles, self.snapshot, self.annotated = roles, snapshot, annotated
        self.map_kind, self.report = snapshot.map_kind, snapshot.report
        self.t0, _ = time_origins(rows)
        self.canvas = Canvas(snapshot.grid)
        # The platform's own undo stack on image maps holds every stroke, including strokes that
        # changed no grid cell (its grid maps keep only strokes that changed a cell): each entry is why
        # its stroke has no cell change, or None for a stroke that changed cells. Undoing a stroke with
        # no cell change changes no cell either.
        self.platform_stack: list[str | None] = []
        self.tools: Counter = Counter()
        self.left_out: Counter = Counter()
        self.built = BuiltSession([], {}, [])
        self.last_end: Cell | None = None

    def add(self, row: Row, type_: str, content: Any = None, no_cell_change: str | None = None) -> None:
        """An action of ``row`` appended, its id indexed."""
        actions = self.built.actions
        t = round(max(row.when.timestamp() - self.t0, 0.0), 3)
        actions.append(
            Action(
                index=len(actions),
                timestamp=t,
                role=self.roles[row.participant_id],
                type=type_,
                content=content,
                no_cell_change=no_cell_change,
                route_pixel_ratio=None if type_ == "message" else row.route_pixel_ratio,  # (a drawing measure)
            )
        )
        self.built.ids[row.action_id] = len(actions) - 1

    def row(self, row: Row) -> None:
        """One row replayed: a message, a tool selection, a reset, an undo or a stroke."""
        if row.kind == "message":
            self.add(row, "message", row.text)
        elif row.kind == "tool":
            self.tools[row.text] += 1
        elif row.kind == "reset":
            self.add(row, "reset")
            self.canvas.reset()
            self.platform_stack.clear()
        elif row.kind == "undo":
            self.undo(row)
        elif row.kind == "stroke":
            self.stroke(row)

    def undo(self, row: Row) -> None:
        """An undo: of a stroke that changed cells, or of one with no cell change (kept when
        annotated, else left out)."""
        undone = self.platform_stack.pop() if self.platform_stack else None
        if undone is None:
            self.add(row, "undo")
            self.canvas.undo()
        elif row.action_id in self.annotated:
            self.add(row, "undo", no_cell_change=undone)
            self.built.kept.setdefault("undo", []).append(row.file)
        else:
            what = "changed no grid cell" if undone == "changed_no_cell" else "has no ink image"
            self.report.add(
                row.file,
                row.where,
                "action_content",
                f"undo of a stroke that {what} changes no known cell either; left out",
                WARNING,
            )
            self.left_out[
                "undo of a stroke that changed no cell"
                if undone == "changed_no_cell"
                else "undo of a stroke whose ink image is missing"
            ] += 1

    def stroke(self, row: Row) -> None:
        """A stroke: the cells it drew or erased applied to the canvas, or, with none, kept or left out."""
        type_ = "erase" if row.tool == "eraser" else "draw"
        state = self.snapshot(row)
        cells: set[Cell] = set()
        extra: set[Cell] = set()
        if state is not None:
            current = self.canvas.cells()
            added, removed = state - current, current - state
            cells, extra = (removed, added) if row.tool == "eraser" else (added, removed)
        why = "ink_missing" if state is None else None if cells else "changed_no_cell"
        if self.map_kind == "image":
            self.platform_stack.append(why)
        if why is not None:
            self.no_change(row, type_, why)
            return
        if extra:
            self.report.add(
                row.file,
                row.where,
                "action_content",
                f"the {row.tool} stroke also {'added' if type_ == 'erase' else 'removed'} {len(extra)} cell(s); "
                f"only its {type_} cells are kept",
                WARNING,
            )
        ordered = order_cells(cells, near=self.last_end, hint=row.filled if self.map_kind == "grid" else None)
        self.add(row, type_, ordered)
        self.last_end = ordered[-1]
        self.canvas.apply(type_, cells)

    def no_change(self, row: Row, type_: str, why: str) -> None:
        """A stroke with no cell change (``why``): imported when annotated, else left out with a warning."""
        if row.action_id in self.annotated:
            self.add(row, type_, no_cell_change=why)
            kind = "no_state" if why == "ink_missing" and self.map_kind != "image" else why
            self.built.kept.setdefault(kind, []).append(row.file)
        elif why == "changed_no_cell":
            self.report.add(
                row.file,
                row.where,
                "action_content",
                f"the {row.tool} stroke ({row.text}) changed no grid cell; left out",
                WARNING,
            )
            self.left_out["strokes that changed no cell"] += 1
        elif self.map_kind == "image" and inkless_export_stroke(row):
            self.built.inkless.append(row)  # (said once for the import)
        else:
            _report_no_state(row, self.map_kind, self.report)
            self.left_out["strokes without a canvas state"] += 1

    def notes(self) -> None:
        """The session's notes: its tool selections, and the strokes kept and left out."""
        built = self.built
        if self.tools:
            built.notes.append(
                "tool selections (not edits): " + ", ".join(f"{k} {v}" for k, v in sorted(self.tools.items()))
            )
        if built.kept:
            built.notes.append(
                "imported with no cell change, for their annotations: "
                + ", ".join(f"{len(built.kept[k])} {what}" for k, what in NO_CHANGE_KINDS.items() if k in built.kept)
            )
        for what, n in sorted(self.left_out.items()):
            built.notes.append(f"left out: {n} {what}")
        if built.inkless:
            built.notes.append(
                f"left out: {counted(len(built.inkless), 'stroke')} whose ink image the export does not carry"
            )


def build_session(
    rows: list[Row],
    roles: dict[str, str],
    grid_map: GridMap,
    map_kind: str,
    options: PlatformOptions,
    report: Report,
    ink: InkImages,
    annotated: Container[str] = frozenset(),
) -> BuiltSession:
    """The session's actions; ``annotated``: the ids of the actions that carry an annotation (a
    stroke with no cell change is imported when it is one of them)."""
    rows = sorted(rows, key=lambda r: (r.when, r.order))
    replay = _Replay(rows, roles, _Snapshots(grid_map, map_kind, options, report, ink), annotated)
    for row in rows:
        replay.row(row)
    replay.notes()
    return replay.built


def _report_no_state(row: Row, map_kind: str, report: Report) -> None:
    """A stroke with no canvas state is left out with a warning (unless its row has an error)."""
    if map_kind == "image" and row.map_image:
        msg = f"ink image {row.map_image} not found"
    elif map_kind == "image":
        msg = "the row names no ink image (map_image)"
    else:
        msg = "no canvas state (no metadata.filledCells or map_image)"
    if not any(i.file == row.file and i.record == row.where and i.severity == ERROR for i in report.issues):
        report.add(
            row.file,
            row.where,
            "map_image" if map_kind != "grid" else "metadata.filledCells",
            f"{msg}: the {row.tool} stroke cannot be turned into cells and is left out",
            WARNING,
        )
