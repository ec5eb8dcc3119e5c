"""Reconstruct the Follower's canvas x_t after every action.

Rules (Sec. 3.3.1 of the paper; the platform's tools):
- ``draw`` fills its cells, ``erase`` clears its cells;
- ``reset`` clears the canvas;
- ``undo`` reverts the latest route edit (draw, erase or reset) not yet undone; with nothing
  to undo it changes nothing;
- messages change nothing.

The history is stored as per-step differences (the cells each action actually turned on and
off) plus a keyframe every ``KEYFRAME_EVERY`` steps, so building it costs O(total changed cells)
and any x_t is one keyframe plus at most ``KEYFRAME_EVERY`` differences away.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np

KEYFRAME_EVERY = 32

_EMPTY = np.zeros(0, dtype=np.int64)


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

    def cells(self, t: int) -> np.ndarray:
        """Filled cells after action t as an (n, 2) array of [row, col], row-major order."""
        flat = np.flatnonzero(self.mask(t))
        return np.column_stack(np.divmod(flat, self.shape[1])) if flat.size else np.zeros((0, 2), dtype=np.int64)

    def changed(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """(added, removed) cells of action t as (n, 2) arrays."""
        cols = self.shape[1]

        def to_rc(a: np.ndarray) -> np.ndarray:
            return np.column_stack(np.divmod(a, cols)) if a.size else np.zeros((0, 2), dtype=np.int64)

        return to_rc(self.added[t]), to_rc(self.removed[t])

    @property
    def final(self) -> np.ndarray:
        return self.mask(len(self.added) - 1)


def reconstruct(
    shape: tuple[int, int],
    steps: Iterable[tuple[str, Sequence[Sequence[int]] | None]],
) -> CanvasHistory:
    """Build the canvas history from (action type, cells) pairs in action order.

    Cells outside the grid are ignored here; validation reports them before data gets this far.
    """
    rows, cols = shape
    current: set[int] = set()
    # Each route edit pushes the exact change it made so undo can revert it.
    edits: list[tuple[set[int], set[int]]] = []
    added: list[np.ndarray] = []
    removed: list[np.ndarray] = []
    keyframes: list[np.ndarray] = []
    counts: list[int] = []

    def flat_cells(cells: Sequence[Sequence[int]] | None) -> set[int]:
        out: set[int] = set()
        for cell in cells or ():
            r, c = int(cell[0]), int(cell[1])
            if 0 <= r < rows and 0 <= c < cols:
                out.add(r * cols + c)
        return out

    for t, (kind, cells) in enumerate(steps):
        on: set[int] = set()
        off: set[int] = set()
        if kind == "draw":
            on = flat_cells(cells) - current
            edits.append((on, off))
        elif kind == "erase":
            off = flat_cells(cells) & current
            edits.append((on, off))
        elif kind == "reset":
            off = set(current)
            edits.append((on, off))
        elif kind == "undo" and edits:
            prev_on, prev_off = edits.pop()
            # Revert: remove what it added, restore what it removed.
            on, off = set(prev_off) - current, set(prev_on) & current
        current -= off
        current |= on
        added.append(np.fromiter(sorted(on), dtype=np.int64, count=len(on)) if on else _EMPTY)
        removed.append(np.fromiter(sorted(off), dtype=np.int64, count=len(off)) if off else _EMPTY)
        counts.append(len(current))
        if t % KEYFRAME_EVERY == 0:
            keyframes.append(np.fromiter(sorted(current), dtype=np.int64, count=len(current)))
    return CanvasHistory(
        shape=(rows, cols),
        added=added,
        removed=removed,
        _keyframes=keyframes,
        counts=np.asarray(counts, dtype=np.int64),
    )


def session_history(session, grid_size: tuple[int, int]) -> CanvasHistory:
    """Canvas history of a :class:`corpus.model.Session` on a grid of ``grid_size``."""
    return reconstruct(
        tuple(grid_size),
        ((a.type, a.content if isinstance(a.content, list) else None) for a in session.actions),
    )
