"""The map model: a Map Task map on a grid, its landmarks and their summaries (Appendix D).

Part of the data model (:mod:`corpus.model` re-exports it); validated like it, strictly from files.
"""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from corpus.modelbase import Cell
from corpus.modelbase import StrictModel as _Strict


class BBox(_Strict):
    row_min: int
    row_max: int
    col_min: int
    col_max: int


class Corners(_Strict):
    top_left: Cell
    top_right: Cell
    bottom_left: Cell
    bottom_right: Cell


class LandmarkSummary(_Strict):
    bbox: BBox
    corners: Corners
    centroid: tuple[float, float]
    boundary_cells: list[Cell]


def summarize_cells(cells: list[Cell]) -> LandmarkSummary:
    """Bounding box, corners, centroid and boundary cells of a landmark (Appendix D)."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    r0, r1, c0, c1 = min(rows), max(rows), min(cols), max(cols)
    cellset = set(cells)
    boundary = [
        (r, c)
        for r, c in cells
        if any((r + dr, c + dc) not in cellset for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    ]
    n = len(cells)
    return LandmarkSummary(
        bbox=BBox(row_min=r0, row_max=r1, col_min=c0, col_max=c1),
        corners=Corners(top_left=(r0, c0), top_right=(r0, c1), bottom_left=(r1, c0), bottom_right=(r1, c1)),
        centroid=(round(sum(rows) / n, 2), round(sum(cols) / n, 2)),
        boundary_cells=sorted(boundary),
    )


def _check_summary(given: LandmarkSummary, computed: LandmarkSummary) -> None:
    """A summary given in a file must describe the landmark's cells (the centroid to 0.01)."""
    if given.bbox != computed.bbox:
        raise ValueError(
            f"summary.bbox: {given.bbox.model_dump()} does not match the cells "
            f"(which span {computed.bbox.model_dump()})"
        )
    if given.corners != computed.corners:
        raise ValueError(f"summary.corners: {given.corners.model_dump()} do not match the cells' bounding box")
    if any(abs(g - c) > 0.01 for g, c in zip(given.centroid, computed.centroid)):
        raise ValueError(
            f"summary.centroid: {[float(x) for x in given.centroid]} does not match the cells "
            f"(whose centroid is {list(computed.centroid)})"
        )
    if set(given.boundary_cells) != set(computed.boundary_cells):
        raise ValueError(
            "summary.boundary_cells: do not match the cells (give the cells with a side outside the landmark, or omit the summary)"
        )


class Landmark(_Strict):
    cells: list[Cell] = Field(min_length=1)
    type: str = "blocked"
    summary: LandmarkSummary | None = None

    @model_validator(mode="after")
    def _fill_summary(self) -> Landmark:
        if len(set(self.cells)) != len(self.cells):
            raise ValueError("cells: lists the same cell twice")
        computed = summarize_cells(self.cells)
        if self.summary is not None:
            _check_summary(self.summary, computed)
        self.summary = computed
        return self

    @property
    def blocked(self) -> bool:
        return self.type == "blocked"


class GridMap(_Strict):
    """A Map Task map on a grid: the Guide's view (landmarks and route) and the Follower's.

    ``follower_landmarks`` is the Follower's map; it usually equals ``landmarks`` except for one
    misplaced landmark. When omitted, the Follower's map is the Guide's.
    """

    id: str
    name: str = ""
    grid_size: tuple[int, int]
    start_cell: Cell
    finish_cell: Cell | None = None
    landmarks: dict[str, Landmark]
    # Empty only for a map whose route is not known yet (an imported session's placeholder grid):
    # task metrics are then undefined rather than zero.
    route: list[Cell] = Field(default_factory=list)
    follower_landmarks: dict[str, Landmark] | None = None

    @field_validator("grid_size")
    @classmethod
    def _positive_grid(cls, v: tuple[int, int]) -> tuple[int, int]:
        if v[0] < 1 or v[1] < 1 or v[0] > 1000 or v[1] > 1000:
            raise ValueError(f"grid_size {list(v)} must be between 1 and 1000 in each direction")
        return v

    @model_validator(mode="after")
    def _cells_inside(self) -> GridMap:
        rows, cols = self.grid_size

        def outside(cell: Cell) -> bool:
            return not (0 <= cell[0] < rows and 0 <= cell[1] < cols)

        for name in ("start_cell", "finish_cell"):
            cell = getattr(self, name)
            if cell is not None and outside(cell):
                raise ValueError(f"{name}: {list(cell)} is outside the {rows}x{cols} grid")
        for i, cell in enumerate(self.route):
            if outside(cell):
                raise ValueError(f"route[{i}]: {list(cell)} is outside the {rows}x{cols} grid")
        for i in range(1, len(self.route)):
            (r0, c0), (r1, c1) = self.route[i - 1], self.route[i]
            if max(abs(r1 - r0), abs(c1 - c0)) != 1:
                raise ValueError(
                    f"route: not a connected path: route[{i - 1}] {[r0, c0]} and "
                    f"route[{i}] {[r1, c1]} are not neighbours"
                )
        for view, landmarks in (("landmarks", self.landmarks), ("follower_landmarks", self.follower_landmarks or {})):
            for name, lm in landmarks.items():
                for cell in lm.cells:
                    if outside(cell):
                        raise ValueError(f"{view}.{name}.cells: {list(cell)} is outside the {rows}x{cols} grid")
        return self

    @property
    def follower_view(self) -> dict[str, Landmark]:
        return self.follower_landmarks if self.follower_landmarks is not None else self.landmarks

    def misplaced_landmarks(self) -> list[str]:
        """Landmarks whose position differs between the Guide's and the Follower's map."""
        if self.follower_landmarks is None:
            return []
        names = set(self.landmarks) | set(self.follower_landmarks)
        return sorted(
            n
            for n in names
            if n not in self.landmarks
            or n not in self.follower_landmarks
            or set(self.landmarks[n].cells) != set(self.follower_landmarks[n].cells)
        )
