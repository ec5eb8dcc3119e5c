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


def _scipy_interval(x, y, seed=0):
    from analysis.outcomes import N_BOOT

    boot = stats.bootstrap(
        (x, y), hedges_g, n_resamples=N_BOOT, method="percentile", vectorized=True, rng=np.random.default_rng(seed)
    )
    return boot


@pytest.mark.parametrize(
    "shape", ["normal", "whole numbers", "mostly zeros", "two values", "many sessions", "one value each"]
)
def test_hedges_g_s_interval_from_counted_resamples_is_scipy_s_bootstrap(shape):
    """From 1,000 sessions on, Hedges' g's resamples are counted (drawn once for a page's outcomes)
    instead of gathered by scipy: the very resamples scipy draws, each one's g equal to scipy's to
    rounding, the same NaN (no spread in either resample) and infinities (none in both), and the
    interval scipy's."""
    from analysis import draws
    from analysis.outcomes import COUNTED_FROM, N_BOOT, _bootstrap_interval, _resampled_g

    rng = np.random.default_rng(len(shape))
    x, y = {
        "normal": lambda: (rng.normal(0.5, 0.2, 600), rng.normal(0.45, 0.25, 700)),
        "whole numbers": lambda: (rng.integers(30, 60, 900).astype(float), rng.integers(32, 61, 800).astype(float)),
        "mostly zeros": lambda: ((rng.random(700) < 0.004).astype(float), (rng.random(650) < 0.003).astype(float)),
        "two values": lambda: (rng.choice([0.25, 0.5], 520, p=[0.995, 0.005]), rng.choice([0.25, 0.75], 500)),
        "many sessions": lambda: (rng.gamma(2.0, 3.0, 5_000), rng.gamma(2.2, 3.0, 5_100)),
        "one value each": lambda: (np.full(600, 2.0), np.r_[np.full(599, 3.0), 4.0]),
    }[shape]()
    assert len(x) + len(y) >= COUNTED_FROM
    ref = _scipy_interval(x, y)
    counts = draws.RESAMPLE_COUNTS.get_samples((len(x), len(y)), N_BOOT, 0)
    got = _resampled_g(x, y, counts)
    want = ref.bootstrap_distribution
    assert np.array_equal(np.isnan(got), np.isnan(want)) and np.array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-9, atol=1e-12)
    lo, hi = _bootstrap_interval(hedges_g, x, y, 0)
    np.testing.assert_allclose([lo, hi], ref.confidence_interval, rtol=1e-9, atol=1e-12, equal_nan=True)


def test_a_page_s_outcomes_share_their_resample_counts_and_keep_scipy_s_intervals():
    """Sessions with every outcome: the five outcomes' intervals come from one drawing of the
    counts, each equal to scipy's own bootstrap of that outcome."""
    from analysis import draws
    from analysis.outcomes import OUTCOMES

    rng = np.random.default_rng(11)
    n = 1_200
    sessions = pd.DataFrame(
        {
            "session_id": [f"s{i}" for i in range(n)],
            "condition": np.where(np.arange(n) % 2 == 0, "visible", "not_visible"),
            "final_accuracy": rng.random(n),
            "route_coverage": rng.random(n),
            "distance_weighted": rng.random(n),
            "n_actions": rng.integers(40, 160, n).astype(float),
            "duration_min": rng.gamma(4.0, 2.5, n),
        }
    )
    made = []
    kept = draws.ResampleCounts(draws.RESAMPLE_COUNTS_BYTES)
    real = kept._kept
    kept._kept = lambda key, make: real(key, lambda: made.append(key) or make())
    old, draws.RESAMPLE_COUNTS = draws.RESAMPLE_COUNTS, kept
    try:
        got = compare_outcomes(sessions)
    finally:
        draws.RESAMPLE_COUNTS = old
    assert len(made) == 1
    cond = sessions["condition"]
    for outcome in OUTCOMES:
        x = sessions.loc[cond == "visible", outcome].to_numpy(dtype=float)
        y = sessions.loc[cond == "not_visible", outcome].to_numpy(dtype=float)
        ref = _scipy_interval(x, y)
        e = got[outcome].effect
        np.testing.assert_allclose([e.low, e.high], ref.confidence_interval, rtol=1e-9)
        assert e.estimate == pytest.approx(float(hedges_g(x, y)), rel=1e-12)


def _moments(n_visible: int, n_not: int, seed: int = 3) -> pd.DataFrame:
    """Dyadic moments (session, condition, agree) of n_visible + n_not sessions of 12 moments each."""
    rng = np.random.default_rng(seed)
    rows = []
    for cond, n in (("visible", n_visible), ("not_visible", n_not)):
        for s in range(n):
            p = 0.7 if cond == "visible" else 0.5
            rows += [(f"{cond}{s}", cond, int(rng.random() < p)) for _ in range(12)]
    return pd.DataFrame(rows, columns=["session_id", "condition", "agree"])


def test_one_low_power_rule_for_outcomes_and_dyads():
    """Under 10 sessions in a group, Outcomes' test and the dyadic test warn alike; at 10 and 10 neither
    does. The dyadic test itself is scipy's Welch test on the sessions' shares."""
    from analysis.dyads import dyad_condition_test
    from analysis.results import MIN_PER_GROUP, few_per_group

    assert MIN_PER_GROUP == 10
    few = dyad_condition_test(_moments(4, 4))
    expected = (
        "few sessions (visible 4, not visible 4): tests have little power and intervals are wide (under 10 per group)"
    )
    assert few.warnings == (expected,) == (few_per_group({"visible": 4, "not_visible": 4}),)
    shares = _moments(4, 4).groupby(["condition", "session_id"])["agree"].mean()
    welch = stats.ttest_ind(shares["visible"], shares["not_visible"], equal_var=False)
    assert few.test_statistic == pytest.approx(welch.statistic) and few.p_value == pytest.approx(welch.pvalue)
    assert dyad_condition_test(_moments(10, 10)).warnings == ()
    s = sessions()
    small = s.groupby("condition").head(4)
    result = compare_outcome(small, "final_accuracy", "welch")
    assert few_per_group({"visible": 4, "not_visible": 4}) in result.warnings
