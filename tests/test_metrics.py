"""Task metrics on hand-made drawings."""

import numpy as np
import pytest
from scipy import ndimage

from corpus.metrics import chebyshev_distance, distance_weighted_score, route_mask, score, score_cells


def mask(shape, cells):
    return route_mask(cells, shape)


ROUTE = [(2, 0), (2, 1), (2, 2), (2, 3), (2, 4)]


def test_accuracy_and_coverage():
    route = mask((5, 5), ROUTE)
    drawn = mask((5, 5), [(2, 0), (2, 1), (3, 1), (4, 4)])
    s = score(drawn, route)
    assert s.accuracy == pytest.approx(2 / 4)
    assert s.coverage == pytest.approx(2 / 5)
    assert s.n_drawn == 4


def test_distance_weighted_score_by_hand():
    route = mask((6, 5), ROUTE)
    # on route (1), distance 1 (2/3), distance 2 (1/3), distance 3 (0)
    drawn = mask((6, 5), [(2, 2), (3, 3), (0, 0), (5, 4)])
    assert distance_weighted_score(drawn, route) == pytest.approx((1 + 2 / 3 + 1 / 3 + 0) / 4)


def test_chebyshev_distance_is_diagonal_aware():
    route = mask((5, 5), [(0, 0)])
    d = chebyshev_distance(route, max_distance=3)
    assert d[1, 1] == 1 and d[2, 1] == 2 and d[2, 2] == 2 and d[4, 4] == 3


def test_nothing_drawn_has_no_accuracy():
    route = mask((5, 5), ROUTE)
    s = score(np.zeros((5, 5), bool), route)
    assert s.accuracy is None and s.distance_weighted is None and s.coverage == 0.0


def test_perfect_drawing():
    route = mask((5, 5), ROUTE)
    s = score(route.copy(), route)
    assert (s.accuracy, s.coverage, s.distance_weighted) == (1.0, 1.0, 1.0)


def chebyshev_by_dilation(route, max_distance=3):
    """Grow the route by one 8-neighbourhood ring per step, by scipy's binary dilation."""
    dist = np.full(route.shape, max_distance, dtype=np.int64)
    reach = route.copy()
    dist[reach] = 0
    for d in range(1, max_distance):
        reach = ndimage.binary_dilation(reach, structure=np.ones((3, 3), dtype=bool))
        dist[reach & (dist == max_distance)] = d
    return dist


@pytest.mark.parametrize("seed", range(12))
def test_distance_transform_equals_repeated_dilation_on_random_masks(seed):
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(1, 30)), int(rng.integers(1, 40)))
    density = [0.0, 0.005, 0.02, 0.1, 0.5, 1.0][seed % 6]
    route = rng.random(shape) < density
    drawn = rng.random(shape) < 0.3
    for cap in (0, 1, 2, 3, 5):
        assert np.array_equal(chebyshev_distance(route, cap), chebyshev_by_dilation(route, cap)), cap
        # (and scipy's chessboard distance transform, capped: the distance to the nearest route cell)
        transform = ndimage.distance_transform_cdt(~route, metric="chessboard") if route.any() else None
        expected = np.full(shape, cap) if transform is None else np.minimum(transform, cap)
        assert np.array_equal(chebyshev_distance(route, cap), expected), cap
    old = chebyshev_by_dilation(route, 3)
    expected = float(np.array([1.0, 2 / 3, 1 / 3, 0.0])[old[drawn]].mean()) if drawn.any() else None
    assert distance_weighted_score(drawn, route) == expected


def test_coverage_curve_is_the_coverage_of_every_step():
    from corpus.canvas import reconstruct
    from corpus.metrics import coverage, coverage_curve

    route = mask((5, 5), ROUTE)
    steps = [
        ("draw", [(2, 0), (2, 1), (3, 3)]),
        ("message", None),
        ("erase", [(2, 1)]),
        ("undo", None),
        ("reset", None),
        ("undo", None),
        ("draw", [(2, 2), (2, 3), (2, 4)]),
    ]
    h = reconstruct((5, 5), steps)
    curve = coverage_curve(h, route)
    assert curve.tolist() == pytest.approx([2 / 5, 2 / 5, 1 / 5, 2 / 5, 0.0, 2 / 5, 1.0])
    assert curve.tolist() == [coverage(h.mask(t), route) for t in range(len(steps))]


@pytest.mark.parametrize("seed", range(6))
def test_scores_of_a_drawing_given_by_its_cells_are_the_scores_of_its_mask(seed):
    """The tables score each session's final drawing from its cells' flat indices (score_cells):
    exactly the values of its mask (score), on random routes and drawings, an empty drawing and a
    map without a route included."""
    rng = np.random.default_rng(seed)
    shape = (int(rng.integers(3, 30)), int(rng.integers(3, 40)))
    route = rng.random(shape) < (0.0 if seed == 0 else 0.2)
    for density in (0.0, 0.05, 0.3, 1.0):
        drawn = rng.random(shape) < density
        cells = np.flatnonzero(drawn)
        for distance in (None, chebyshev_distance(route)):
            assert score_cells(cells, route, distance) == score(drawn, route, distance)
