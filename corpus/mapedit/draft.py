"""A map being edited: the Guide's landmarks, the route, start and finish, the Follower's variant.

A :class:`Draft` may be incomplete or wrong (no start yet, a route with a gap, two landmarks on
the same cells): :mod:`corpus.mapedit.checks` lists what is wrong, and only a draft without
errors becomes a :class:`corpus.model.GridMap` (:func:`to_gridmap`). Drafts are immutable: every
edit is a function that returns a new draft, so undo and redo keep whole drafts
(:mod:`corpus.mapedit.history`).

The Follower's map (``follower``) is ``None`` while it equals the Guide's. Once a landmark is moved
on it, it holds every landmark of the Follower's map; an edit of a Guide's landmark is made on the
Follower's map too while the two still agree on that landmark, so only the moved one differs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

from corpus.importers.asciimap import safe_id
from corpus.model import Cell, GridMap, Landmark

BLOCKED = "blocked"
OPEN = "open"
GUIDE = "guide"
FOLLOWER = "follower"


class EditError(ValueError):
    """An edit that cannot be made, with the reason in words."""


@dataclass(frozen=True)
class LandmarkDraft:
    cells: tuple[Cell, ...]  # sorted, each once
    type: str = BLOCKED

    @classmethod
    def of(cls, cells: Iterable[Cell], type: str = BLOCKED) -> LandmarkDraft:
        return cls(cells=tuple(sorted({(int(r), int(c)) for r, c in cells})), type=type)

    @property
    def blocked(self) -> bool:
        return self.type == BLOCKED


Landmarks = tuple[tuple[str, LandmarkDraft], ...]  # in order; names unique


@dataclass(frozen=True)
class Draft:
    map_id: str
    grid_size: tuple[int, int]
    name: str = ""
    landmarks: Landmarks = ()
    route: tuple[Cell, ...] = ()
    start: Cell | None = None
    finish: Cell | None = None
    follower: Landmarks | None = None  # None: the Follower's map is the Guide's
    image: str | None = None  # digest of the background image (not part of the map)

    # -- reading ----------------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        return [n for n, _ in self.landmarks]

    def landmark(self, name: str, view: str = GUIDE) -> LandmarkDraft | None:
        return dict(self.view(view)).get(name)

    def view(self, view: str = GUIDE) -> Landmarks:
        """The landmarks of the Guide's or the Follower's map."""
        if view == FOLLOWER and self.follower is not None:
            return self.follower
        return self.landmarks

    def moved(self) -> list[str]:
        """Landmarks placed differently on the Follower's map (or on one map only)."""
        if self.follower is None:
            return []
        guide, follower = dict(self.landmarks), dict(self.follower)
        return [
            n
            for n in dict.fromkeys([*guide, *follower])
            if n not in guide or n not in follower or set(guide[n].cells) != set(follower[n].cells)
        ]

    def inside(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.grid_size[0] and 0 <= cell[1] < self.grid_size[1]

    def next_name(self) -> str:
        taken = {n for n, _ in self.landmarks} | {n for n, _ in (self.follower or ())}
        k = len(self.landmarks) + 1
        while f"landmark_{k}" in taken:
            k += 1
        return f"landmark_{k}"


def _map_id(map_id: str) -> str:
    map_id = map_id.strip()
    if not map_id:
        raise EditError("the map needs an id")
    if map_id != safe_id(map_id):
        raise EditError(
            f"map id '{map_id}': use letters, digits, '-', '_' and '.' (it names the map's file), e.g. '{safe_id(map_id)}'"
        )
    return map_id


def new_draft(map_id: str, grid_size: tuple[int, int], name: str = "", image: str | None = None) -> Draft:
    rows, cols = int(grid_size[0]), int(grid_size[1])
    if not (1 <= rows <= 1000 and 1 <= cols <= 1000):
        raise EditError(f"grid {rows} x {cols}: rows and columns must each be between 1 and 1000")
    return Draft(map_id=_map_id(map_id), grid_size=(rows, cols), name=name.strip(), image=image)


def set_id(draft: Draft, map_id: str) -> Draft:
    """Another id (and so file name) for the map, e.g. to attach it beside the map it was made from."""
    return dataclasses.replace(draft, map_id=_map_id(map_id))


# -- landmarks ----------------------------------------------------------------------------------


def _replace(landmarks: Landmarks, name: str, new: tuple[str, LandmarkDraft] | None) -> Landmarks:
    """``landmarks`` with ``name`` replaced by ``new`` in place (``None``: removed)."""
    out = []
    for n, lm in landmarks:
        if n == name:
            if new is not None:
                out.append(new)
        else:
            out.append((n, lm))
    return tuple(out)


def _edit_both(draft: Draft, name: str, new: tuple[str, LandmarkDraft] | None) -> Draft:
    """Apply a Guide's-map edit of ``name``, and the same on the Follower's map where it agrees."""
    guide = dict(draft.landmarks)
    follower = draft.follower
    if follower is not None:
        theirs = dict(follower).get(name)
        if theirs is not None and (_same(theirs, guide.get(name)) or new is None):
            follower = _replace(follower, name, new)
        elif theirs is not None and new is not None and new[0] != name:  # a rename, moved or not
            follower = _replace(follower, name, (new[0], theirs))
    return dataclasses.replace(draft, landmarks=_replace(draft.landmarks, name, new), follower=follower)


def _same(a: LandmarkDraft | None, b: LandmarkDraft | None) -> bool:
    return a is not None and b is not None and a.type == b.type and set(a.cells) == set(b.cells)


def _cells_inside(draft: Draft, cells: Iterable[Cell]) -> list[Cell]:
    cells = list(cells)
    outside = [c for c in cells if not draft.inside(c)]
    if outside:
        rows, cols = draft.grid_size
        raise EditError(f"cells {_fmt(outside[:5])} are outside the {rows} x {cols} grid")
    return cells


def add_landmark(
    draft: Draft, cells: Iterable[Cell], name: str | None = None, type: str = BLOCKED
) -> tuple[Draft, str]:
    """A new landmark on both maps; returns the draft and the landmark's name."""
    cells = _cells_inside(draft, cells)
    if not cells:
        raise EditError("a landmark needs at least one cell")
    name = (name or "").strip() or draft.next_name()
    if name in draft.names:
        raise EditError(f"there is already a landmark named '{name}'")
    lm = LandmarkDraft.of(cells, type)
    follower = None if draft.follower is None else (*draft.follower, (name, lm))
    return dataclasses.replace(draft, landmarks=(*draft.landmarks, (name, lm)), follower=follower), name


def _require(draft: Draft, name: str, view: str = GUIDE) -> LandmarkDraft:
    lm = draft.landmark(name, view)
    if lm is None:
        where = "" if view == GUIDE else " on the Follower's map"
        raise EditError(f"no landmark named '{name}'{where}")
    return lm


def set_cells(draft: Draft, name: str, cells: Iterable[Cell], view: str = GUIDE) -> Draft:
    """Replace a landmark's cells; on the Follower's map this moves it there only."""
    cells = _cells_inside(draft, cells)
    if not cells:
        raise EditError(f"'{name}' needs at least one cell")
    lm = _require(draft, name, view)
    new = (name, LandmarkDraft.of(cells, lm.type))
    if view == FOLLOWER:
        return dataclasses.replace(draft, follower=_replace(draft.view(FOLLOWER), name, new))
    return _edit_both(draft, name, new)


def add_cells(draft: Draft, name: str, cells: Iterable[Cell], view: str = GUIDE) -> Draft:
    """Add cells to a landmark (the union with the cells it has)."""
    lm = _require(draft, name, view)
    return set_cells(draft, name, [*lm.cells, *cells], view)


def rename_landmark(draft: Draft, old: str, new: str) -> Draft:
    new = new.strip()
    lm = _require(draft, old)
    if not new:
        raise EditError("a landmark needs a name")
    if new == old:
        return draft
    if new in draft.names or (draft.follower is not None and new in dict(draft.follower)):
        raise EditError(f"there is already a landmark named '{new}'")
    return _edit_both(draft, old, (new, lm))


def set_type(draft: Draft, name: str, type: str) -> Draft:
    """Blocked (the route may not cross it) or open; the same on both maps."""
    type = type.strip()
    if not type:
        raise EditError("a landmark type cannot be empty")
    lm = _require(draft, name)
    draft = _edit_both(draft, name, (name, dataclasses.replace(lm, type=type)))
    theirs = draft.landmark(name, FOLLOWER) if draft.follower is not None else None
    if theirs is not None and draft.follower is not None and theirs.type != type:
        draft = dataclasses.replace(
            draft, follower=_replace(draft.follower, name, (name, dataclasses.replace(theirs, type=type)))
        )
    return draft


def delete_landmark(draft: Draft, name: str) -> Draft:
    """Remove a landmark from both maps."""
    _require(draft, name)
    return _edit_both(draft, name, None)


# -- the Follower's variant ---------------------------------------------------------------------


def shift_on_follower(draft: Draft, name: str, rows: int, cols: int) -> Draft:
    """Move a landmark on the Follower's map by ``rows`` down and ``cols`` right."""
    lm = _require(draft, name, FOLLOWER)
    moved = [(r + int(rows), c + int(cols)) for r, c in lm.cells]
    if not all(draft.inside(c) for c in moved):
        raise EditError(f"moved by {rows} row(s) and {cols} column(s), '{name}' would leave the grid")
    return set_cells(draft, name, moved, FOLLOWER)


def reset_follower(draft: Draft) -> Draft:
    """The Follower's map becomes the Guide's again."""
    return dataclasses.replace(draft, follower=None)


# -- route, start, finish -----------------------------------------------------------------------


def extend_route(draft: Draft, cells: Iterable[Cell]) -> Draft:
    """Continue the route with ``cells`` (in order); a first cell equal to the route's end is not repeated."""
    cells = [(int(r), int(c)) for r, c in _cells_inside(draft, cells)]
    if not cells:
        raise EditError("the route stroke covers no cell")
    if draft.route and cells[0] == draft.route[-1]:
        cells = cells[1:]
    return dataclasses.replace(draft, route=(*draft.route, *cells))


def set_start(draft: Draft, cell: Cell) -> Draft:
    _cells_inside(draft, [cell])
    return dataclasses.replace(draft, start=(int(cell[0]), int(cell[1])))


def set_finish(draft: Draft, cell: Cell | None) -> Draft:
    if cell is not None:
        _cells_inside(draft, [cell])
        cell = (int(cell[0]), int(cell[1]))
    return dataclasses.replace(draft, finish=cell)


def with_image(draft: Draft, image: str | None) -> Draft:
    return dataclasses.replace(draft, image=image)


# -- to and from the dataset's map model --------------------------------------------------------


def _landmark_models(landmarks: Landmarks) -> dict[str, Landmark]:
    return {n: Landmark(cells=list(lm.cells), type=lm.type) for n, lm in landmarks}


def to_gridmap(draft: Draft) -> GridMap:
    """The draft as a validated :class:`GridMap` (raises pydantic's ValidationError if it is not one)."""
    return GridMap(
        id=draft.map_id,
        name=draft.name,
        grid_size=draft.grid_size,
        start_cell=draft.start,
        finish_cell=draft.finish,
        landmarks=_landmark_models(draft.landmarks),
        route=list(draft.route),
        follower_landmarks=None if draft.follower is None else _landmark_models(draft.follower),
    )


def _drafts_of(landmarks: dict[str, Landmark]) -> Landmarks:
    # The model's cell order is kept (not sorted), so a map read and written again is unchanged.
    return tuple(
        (n, LandmarkDraft(cells=tuple((int(r), int(c)) for r, c in lm.cells), type=lm.type))
        for n, lm in landmarks.items()
    )


def from_gridmap(gm: GridMap, image: str | None = None) -> Draft:
    """A draft holding everything a :class:`GridMap` holds (the inverse of :func:`to_gridmap`)."""
    return Draft(
        map_id=gm.id,
        name=gm.name,
        grid_size=(int(gm.grid_size[0]), int(gm.grid_size[1])),
        landmarks=_drafts_of(gm.landmarks),
        route=tuple((int(r), int(c)) for r, c in gm.route),
        start=(int(gm.start_cell[0]), int(gm.start_cell[1])),
        finish=None if gm.finish_cell is None else (int(gm.finish_cell[0]), int(gm.finish_cell[1])),
        follower=None if gm.follower_landmarks is None else _drafts_of(gm.follower_landmarks),
        image=image,
    )


def _fmt(cells: Iterable[Cell]) -> str:
    return ", ".join(f"[{r}, {c}]" for r, c in cells)
