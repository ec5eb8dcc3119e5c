"""The Follower's canvas: edited one action at a time, and its history over a whole session.

Rules (Sec. 3.3.1 of the paper; the platform's tools):
- ``draw`` fills its cells, ``erase`` clears its cells;
- ``reset`` clears the canvas;
- ``undo`` reverts the latest route edit (draw, erase or reset) not yet undone; with nothing
  to undo it changes nothing;
- messages change nothing, and so does an action with no cell change (a draw, erase or undo whose
  ``no_cell_change`` says why it has no cells: :data:`corpus.model.NO_CELL_CHANGE`): it is no
  edit, and undo passes it by. Its step is :data:`UNCHANGED` (:func:`step_kind`).

:class:`Canvas` applies those rules incrementally and is the only place they are written: the
history below, the sample generator's simulated Follower and the platform importer all edit one.
:class:`CanvasHistory` stores a session's canvases as per-step differences (the cells each
action actually turned on and off) plus a keyframe every ``KEYFRAME_EVERY`` steps, so building it
costs O(total changed cells) and any x_t is one keyframe plus at most ``KEYFRAME_EVERY``
differences away.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import NamedTuple, cast

import numpy as np

KEYFRAME_EVERY = 32

_EMPTY = np.zeros(0, dtype=np.int64)

Cells = Iterable[Sequence[int]]


class Change(NamedTuple):
    """What one action did to the canvas: flat cell indices (row * cols + col) turned on / off
    (sets never changed once made: the undo stack keeps them)."""

    on: AbstractSet[int]
    off: AbstractSet[int]


_NONE: frozenset[int] = frozenset()
_NO_CHANGE = Change(_NONE, _NONE)

# The step of an action with no cell change: like a message, it changes nothing.
UNCHANGED = "unchanged"


def step_kind(action_type: str, no_cell_change: str | None) -> str:
    """What an action is to the canvas: its type, or :data:`UNCHANGED` when it has no cell change."""
    return action_type if no_cell_change is None else UNCHANGED


class Canvas:
    """The Follower's canvas on a ``rows x cols`` grid, with the undo stack of its route edits.

    Cells are ``(row, col)`` pairs; cells outside the grid are ignored (validation reports them
    before data gets this far). Every edit returns the :class:`Change` it made.
    """

    def __init__(self, shape: tuple[int, int]) -> None:
        self.shape = (int(shape[0]), int(shape[1]))
        self._filled: set[int] = set()
        self._edits: list[Change] = []  # each kept edit's exact change, so undo can revert it

    def _flat(self, cells: Cells | None) -> set[int]:
        rows, cols = self.shape
        try:  # (the usual cells, [row, col] pairs of ints, at once)
            out = {r * cols + c if 0 <= r < rows and 0 <= c < cols else -1 for r, c in cells or ()}
            if all(type(i) is int for i in out):
                out.discard(-1)
                return out
        except (TypeError, ValueError):
            pass
        out = set()
        for cell in cells or ():
            r, c = int(cell[0]), int(cell[1])
            if 0 <= r < rows and 0 <= c < cols:
                out.add(r * cols + c)
        return out

    def _apply(self, change: Change, push: bool = True) -> Change:
        self._filled -= change.off
        self._filled |= change.on
        if push:
            self._edits.append(change)
        return change

    def draw(self, cells: Cells) -> Change:
        return self.apply_flat("draw", self._flat(cells))

    def erase(self, cells: Cells) -> Change:
        return self.apply_flat("erase", self._flat(cells))

    def reset(self) -> Change:
        change = Change(_NONE, self._filled)  # (the filled set itself, handed over: the canvas starts a new one)
        self._filled = set()
        self._edits.append(change)
        return change

    def undo(self) -> Change:
        """Revert the latest edit not yet undone: remove what it added, restore what it removed."""
        if not self._edits:
            return _NO_CHANGE
        prev = self._edits.pop()
        return self._apply(Change(prev.off - self._filled, prev.on & self._filled), push=False)

    def apply(self, kind: str, cells: Cells | None = None) -> Change:
        """One action of type ``kind`` (draw, erase, reset, undo; anything else changes nothing)."""
        return self.apply_flat(kind, self._flat(cells) if kind == "draw" or kind == "erase" else _NONE)

    def apply_flat(self, kind: str, cells: AbstractSet[int]) -> Change:
        """:meth:`apply` of an action whose cells are given as flat indices inside the grid (a draw's
        or an erase's; any other action's are not read)."""
        if kind == "draw":
            return self._apply(Change(cells - self._filled, _NONE))
        if kind == "erase":
            return self._apply(Change(_NONE, cells & self._filled))
        if kind == "reset":
            return self.reset()
        if kind == "undo":
            return self.undo()
        return _NO_CHANGE

    def __len__(self) -> int:
        return len(self._filled)

    def __contains__(self, cell: Sequence[int]) -> bool:
        r, c = int(cell[0]), int(cell[1])
        return 0 <= r < self.shape[0] and 0 <= c < self.shape[1] and r * self.shape[1] + c in self._filled

    def cells(self) -> set[tuple[int, int]]:
        """The filled cells as ``(row, col)`` pairs."""
        cols = self.shape[1]
        return {divmod(i, cols) for i in self._filled}

    def flat(self) -> np.ndarray:
        """The filled cells as sorted flat indices."""
        return _sorted_array(self._filled)


def _sorted_array(cells: Iterable[int]) -> np.ndarray:
    cells = sorted(cells)
    return np.fromiter(cells, dtype=np.int64, count=len(cells)) if cells else _EMPTY


@dataclass(frozen=True)
class CanvasHistory:
    """The Follower's canvas after every action of a session.

    ``added[t]`` / ``removed[t]``: flat cell indices (row * cols + col) that action t turned on
    / off. Step t means "after action t"; step -1 is the empty canvas before the first action.
    """

    shape: tuple[int, int]
    added: list[np.ndarray]
    removed: list[np.ndarray]
    _keyframes: list[np.ndarray] = field(repr=False)
    counts: np.ndarray = field(repr=False)  # number of filled cells after each action

    def __len__(self) -> int:
        return len(self.added)

    def mask(self, t: int) -> np.ndarray:
        """Boolean H x W canvas after action t (t = -1: before any action)."""
        flat = np.zeros(self.shape[0] * self.shape[1], dtype=bool)
        if t < 0 or not self.added:
            return flat.reshape(self.shape)
        t = min(t, len(self.added) - 1)
        k = t // KEYFRAME_EVERY
        flat[self._keyframes[k]] = True
        for s in range(k * KEYFRAME_EVERY + 1, t + 1):
            flat[self.removed[s]] = False
            flat[self.added[s]] = True
        return flat.reshape(self.shape)

    def _rc(self, flat: np.ndarray) -> np.ndarray:
        return np.column_stack(np.divmod(flat, self.shape[1])) if flat.size else np.zeros((0, 2), dtype=np.int64)

    def cells(self, t: int) -> np.ndarray:
        """Filled cells after action t as an (n, 2) array of [row, col], row-major order."""
        return self._rc(np.flatnonzero(self.mask(t)))

    def changed(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(added, removed) cells of action t as (n, 2) arrays."""
        return self._rc(self.added[t]), self._rc(self.removed[t])

    @property
    def final(self) -> np.ndarray:
        return self.mask(len(self.added) - 1)


def reconstruct(
    shape: tuple[int, int],
    steps: Iterable[tuple[str, Sequence[Sequence[int]] | None]],
) -> CanvasHistory:
    """Build the canvas history from (action type, cells) pairs in action order."""
    canvas = Canvas(shape)
    added: list[np.ndarray] = []
    removed: list[np.ndarray] = []
    keyframes: list[np.ndarray] = []
    counts: list[int] = []
    for t, (kind, cells) in enumerate(steps):
        change = canvas.apply(kind, cells)
        added.append(_sorted_array(change.on))
        removed.append(_sorted_array(change.off))
        counts.append(len(canvas))
        if t % KEYFRAME_EVERY == 0:
            keyframes.append(canvas.flat())
    return CanvasHistory(
        shape=canvas.shape,
        added=added,
        removed=removed,
        _keyframes=keyframes,
        counts=np.asarray(counts, dtype=np.int64),
    )


def session_history(session, grid_size: tuple[int, int]) -> CanvasHistory:
    """Canvas history of a :class:`corpus.model.Session` on a grid of ``grid_size``."""
    return reconstruct(
        cast(tuple[int, int], tuple(grid_size)),
        (
            (step_kind(a.type, a.no_cell_change), a.content if isinstance(a.content, list) else None)
            for a in session.actions
        ),
    )


class Replay(NamedTuple):
    """A session's canvas replayed without keeping its history: the final canvas and, for a route,
    the net number of route cells each action turned on (its cumulative sum is the route coverage
    after every action, :func:`corpus.metrics.coverage_curve` of the history)."""

    final: np.ndarray  # filled cells at the end, sorted flat indices
    route_delta: np.ndarray | None  # per action; None without a route


def replay(
    shape: tuple[int, int],
    steps: Iterable[tuple[str, Sequence[Sequence[int]] | None]],
    route: frozenset[int] | None = None,
    in_grid: bool = False,
) -> Replay:
    """The final canvas of (action type, cells) pairs in action order, and the route cells (flat
    indices in ``route``) each action turned on less those it turned off: what the sessions table
    and the progress measures need, at a fraction of the cost of :func:`reconstruct`. ``in_grid``:
    every draw's and erase's cells are known to be (row, col) pairs of integers inside the grid (a
    read that checked them), taken as they are."""
    canvas = Canvas(shape)
    cols = canvas.shape[1]
    flat = (lambda cells: {r * cols + c for r, c in cells}) if in_grid else canvas._flat
    delta: list[int] = []
    for kind, cells in steps:
        if kind != "draw" and kind != "erase" and kind != "reset" and kind != "undo":
            delta.append(0)  # (a message, an action with no cell change, or anything else: no change)
            continue
        change = canvas.apply_flat(kind, flat(cells) if kind == "draw" or kind == "erase" else _NONE)
        if route is not None:
            delta.append(len(change.on & route) - len(change.off & route) if change is not _NO_CHANGE else 0)
    return Replay(canvas.flat(), None if route is None else np.asarray(delta, dtype=np.int64))
