"""Session outcomes by condition, checked against scipy and hand-computed effect sizes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from analysis.outcomes import compare_outcome, compare_outcomes, hedges_g, rank_biserial
from corpus.values import Undefined

VIS = [0.70, 0.80, 0.75, 0.90, 0.85]
NOT = [0.60, 0.65, 0.70, 0.55, None]


def sessions() -> pd.DataFrame:
    rows = [
        {"session_id": f"v{i}", "condition": "visible", "final_accuracy": x, "n_actions": 100 + i}
        for i, x in enumerate(VIS)
    ]
    rows += [
        {"session_id": f"n{i}", "condition": "not_visible", "final_accuracy": x, "n_actions": 100 + 2 * i}
        for i, x in enumerate(NOT)
    ]
    return pd.DataFrame(rows)


def test_welch_t_test_mean_difference_and_hedges_g():
    r = compare_outcome(sessions(), "final_accuracy", "welch")
    x, y = np.array(VIS), np.array([v for v in NOT if v is not None])
    ref = stats.ttest_ind(x, y, equal_var=False)
    assert (
        r.test.test_statistic == pytest.approx(ref.statistic)
        and r.test.p_value == pytest.approx(ref.pvalue)
        and r.test.dof == pytest.approx(ref.df)
    )
    assert r.difference.estimate == pytest.approx(0.8 - 0.625)
    assert (r.difference.low, r.difference.high) == (
        pytest.approx(ref.confidence_interval().low),
        pytest.approx(ref.confidence_interval().high),
    )
    pooled = np.sqrt((4 * x.var(ddof=1) + 3 * y.var(ddof=1)) / 7)
    g = (x.mean() - y.mean()) / pooled * (1 - 3 / (4 * 9 - 9))
    assert r.effect.estimate == pytest.approx(g) and r.effect.statistic == "Hedges' g"
    assert r.effect.low < r.effect.estimate < r.effect.high
    assert r.warnings[0] == "1 session(s) without a value (e.g. nothing drawn) left out"
    assert r.groups.set_index("condition").loc["not_visible", "n"] == 4


def test_mann_whitney_and_the_rank_biserial_correlation():
    r = compare_outcome(sessions(), "final_accuracy", "mannwhitney")
    x, y = np.array(VIS), np.array([0.60, 0.65, 0.70, 0.55])
    ref = stats.mannwhitneyu(x, y, alternative="two-sided")
    assert r.test.test_statistic == ref.statistic and r.test.p_value == pytest.approx(ref.pvalue)
    # Pairs (visible > not visible) - pairs (<), over all 20 pairs: 19 wins, one tie (0.70 = 0.70).
    assert r.effect.estimate == pytest.approx((19 - 0) / 20) == pytest.approx(2 * ref.statistic / 20 - 1)
    assert r.difference.estimate == pytest.approx(np.median(x) - np.median(y))


def test_the_vectorised_effect_sizes_along_an_axis():
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(50, 7)), rng.normal(size=(50, 9))
    rb = rank_biserial(x, y, axis=-1)
    for i in range(50):
        u = stats.mannwhitneyu(x[i], y[i]).statistic
        assert rb[i] == pytest.approx(2 * u / 63 - 1)
    assert hedges_g(x, y, axis=-1)[3] == pytest.approx(hedges_g(x[3], y[3]))


def test_outcomes_that_cannot_be_compared_say_why():
    one = sessions().head(6)  # five visible, one not visible
    assert compare_outcome(one, "final_accuracy") == Undefined(
        "each condition needs at least 2 sessions with a value (visible 5, not visible 1)"
    )
    flat = sessions().assign(final_accuracy=0.5)
    assert compare_outcome(flat, "final_accuracy") == Undefined("every session has the same value")
    assert set(compare_outcomes(sessions().assign(route_coverage=0.5, distance_weighted=0.5, duration_min=3.0))) == {
        "final_accuracy",
        "route_coverage",
        "distance_weighted",
        "n_actions",
        "duration_min",
    }
