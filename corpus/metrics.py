"""Task metrics of a drawing against the target route.

- final accuracy (the paper, Sec. 3.3.2 and 4.2): share of drawn cells that lie on the route;
- route coverage: share of route cells that were drawn (after every action of a session:
  :func:`coverage_curve`);
- distance-weighted drawing score (Sec. 4.2): each drawn cell scores by its Chebyshev distance to
  the route: 1 on the route, 2/3 at distance 1, 1/3 at distance 2, else 0; averaged over drawn
  cells.

Each takes boolean H x W masks. With nothing drawn, accuracy and the drawing score have no
defined value and are returned as ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from corpus.canvas import CanvasHistory


def route_mask(route, shape: tuple[int, int]) -> np.ndarray:
    mask = np.zeros(shape, dtype=bool)
    if len(route):
        r = np.asarray(route, dtype=np.int64)
        mask[r[:, 0], r[:, 1]] = True
    return mask


def chebyshev_distance(route: np.ndarray, max_distance: int = 3) -> np.ndarray:
    """Chebyshev distance of every cell to the nearest route cell, capped at ``max_distance``.

    The route grown one ring of neighbours (a 3 x 3 square) at a time up to the cap: a few array
    operations for the small caps the scores use (a test holds it equal to scipy's chessboard
    distance transform). With no route cell at all every cell is at the cap.
    """
    route = np.asarray(route, dtype=bool)
    dist = np.full(route.shape, max_distance, dtype=np.int64)
    if not route.any():
        return dist
    reach = route.copy()
    dist[reach] = 0
    for d in range(1, max_distance):
        reach = _grown(reach)
        dist[reach & (dist == max_distance)] = d
    return dist


def _grown(mask: np.ndarray) -> np.ndarray:
    """``mask`` with every cell next to one of its cells (diagonals included) set."""
    tall = mask.copy()
    tall[1:] |= mask[:-1]
    tall[:-1] |= mask[1:]
    out = tall.copy()
    out[:, 1:] |= tall[:, :-1]
    out[:, :-1] |= tall[:, 1:]
    return out


def accuracy(drawn: np.ndarray, route: np.ndarray) -> float | None:
    n = int(drawn.sum())
    return float((drawn & route).sum() / n) if n else None


def coverage(drawn: np.ndarray, route: np.ndarray) -> float:
    n = int(route.sum())
    return float((drawn & route).sum() / n) if n else 0.0


DISTANCE_WEIGHTS = np.array([1.0, 2.0 / 3.0, 1.0 / 3.0, 0.0])


def distance_weighted_score(drawn: np.ndarray, route: np.ndarray, distance: np.ndarray | None = None) -> float | None:
    """``distance``: the route's :func:`chebyshev_distance` (capped at 3), when already at hand."""
    n = int(drawn.sum())
    if not n:
        return None
    dist = chebyshev_distance(route, max_distance=3) if distance is None else distance
    return float(DISTANCE_WEIGHTS[dist[drawn]].mean())


@dataclass(frozen=True)
class DrawingScores:
    accuracy: float | None
    coverage: float | None
    distance_weighted: float | None
    n_drawn: int

    def as_dict(self) -> dict:
        return {
            "accuracy": self.accuracy,
            "coverage": self.coverage,
            "distance_weighted": self.distance_weighted,
            "n_drawn": self.n_drawn,
        }


def coverage_curve(history: CanvasHistory, route: np.ndarray) -> np.ndarray:
    """Route coverage after every action of a canvas history (from its per-step differences)."""
    flat = route.ravel().astype(np.int64)
    n = len(history)
    delta = _route_cells_per_step(history.added, flat, n) - _route_cells_per_step(history.removed, flat, n)
    return np.cumsum(delta) / max(int(flat.sum()), 1)


def _route_cells_per_step(cells: list[np.ndarray], route: np.ndarray, n: int) -> np.ndarray:
    """How many of each step's cells (flat indices) are route cells (``route``: 0/1 per cell)."""
    sizes = np.fromiter((len(c) for c in cells), dtype=np.int64, count=n)
    if not sizes.any():
        return np.zeros(n, dtype=np.int64)
    hits = route[np.concatenate([c for c in cells if len(c)]).astype(np.int64)]
    step = np.repeat(np.arange(n), sizes)
    return np.bincount(step, weights=hits, minlength=n).astype(np.int64)


def score(drawn: np.ndarray, route: np.ndarray, distance: np.ndarray | None = None) -> DrawingScores:
    if not route.any():  # no route known (a placeholder map): nothing to score against
        return DrawingScores(accuracy=None, coverage=None, distance_weighted=None, n_drawn=int(drawn.sum()))
    return DrawingScores(
        accuracy=accuracy(drawn, route),
        coverage=coverage(drawn, route),
        distance_weighted=distance_weighted_score(drawn, route, distance),
        n_drawn=int(drawn.sum()),
    )


def score_cells(cells: np.ndarray, route: np.ndarray, distance: np.ndarray | None = None) -> DrawingScores:
    """:func:`score` of a drawing given as its cells' flat indices (row * cols + col, sorted and
    distinct), as a replay of the canvas leaves it: the same values, without making its mask."""
    flat = route.ravel()
    n = len(cells)
    if not flat.any():
        return DrawingScores(accuracy=None, coverage=None, distance_weighted=None, n_drawn=n)
    hits = int(np.count_nonzero(flat[cells]))
    dist = (chebyshev_distance(route, max_distance=3) if distance is None else distance).ravel()
    return DrawingScores(
        accuracy=hits / n if n else None,
        coverage=hits / int(np.count_nonzero(flat)),
        distance_weighted=float(DISTANCE_WEIGHTS[dist[cells]].mean()) if n else None,
        n_drawn=n,
    )
