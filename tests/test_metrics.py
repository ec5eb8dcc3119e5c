"""Task metrics on hand-made drawings."""

import numpy as np
import pytest

from corpus.metrics import chebyshev_distance, distance_weighted_score, route_mask, score


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
