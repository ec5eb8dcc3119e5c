"""Session outcomes by condition: final accuracy, route coverage, distance-weighted score, actions
and duration per session, each compared between the conditions (visible - not visible).

Two tests, the user's choice, both from scipy and both two-sided:

- ``welch``: Welch's t-test (``scipy.stats.ttest_ind(equal_var=False)``); the difference of means
  with Welch's 95 % interval; effect size Hedges' g (Cohen's d on the pooled SD times the
  small-sample factor J = 1 - 3 / (4 (n1 + n2) - 9)).
- ``mannwhitney``: the Mann-Whitney U test (``scipy.stats.mannwhitneyu``); the difference of
  medians; effect size the rank-biserial correlation r = 2 U / (n1 n2) - 1 (U of the visible
  sessions; +1: every visible session above every not-visible one; equal to Cliff's delta).

The effect sizes' 95 % intervals are percentile bootstraps over sessions within each condition
(``scipy.stats.bootstrap``, seeded). Sessions with an undefined outcome (accuracy of an empty
drawing) are left out and counted in the warnings.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from analysis.estimate import Estimate, package
from corpus.values import Undefined

OUTCOMES = {
    "final_accuracy": ("final accuracy", "share of drawn cells on the route"),
    "route_coverage": ("route coverage", "share of route cells drawn"),
    "distance_weighted": ("distance-weighted score", "0 to 1"),
    "n_actions": ("actions per session", "actions"),
    "duration_min": ("duration", "minutes"),
}
TESTS = {"welch": "Welch's t-test", "mannwhitney": "Mann-Whitney U test"}
GROUPS = ("visible", "not_visible")  # difference = first - second
N_BOOT = 2000


@dataclass(frozen=True)
class OutcomeComparison:
    outcome: str
    label: str
    unit: str
    groups: pd.DataFrame  # condition, n, mean, sd, median
    test: Estimate  # statistic, df, p
    difference: Estimate  # visible - not visible (means for Welch, medians for Mann-Whitney)
    effect: Estimate  # Hedges' g or the rank-biserial correlation, with a bootstrap interval
    warnings: tuple[str, ...] = ()


def hedges_g(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Hedges' g of x - y along ``axis`` (pooled SD, ddof=1, times J)."""
    nx, ny = x.shape[axis], y.shape[axis]
    pooled = np.sqrt(((nx - 1) * x.var(axis=axis, ddof=1) + (ny - 1) * y.var(axis=axis, ddof=1)) / (nx + ny - 2))
    j = 1 - 3 / (4 * (nx + ny) - 9)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (x.mean(axis=axis) - y.mean(axis=axis)) / pooled * j


def rank_biserial(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """2 U / (nx ny) - 1 along ``axis``, with U the Mann-Whitney U of x from the ranks of the
    pooled sample (mid-ranks for ties); equal to Cliff's delta."""
    x, y = np.moveaxis(np.asarray(x, dtype=float), axis, -1), np.moveaxis(np.asarray(y, dtype=float), axis, -1)
    nx, ny = x.shape[-1], y.shape[-1]
    ranks = stats.rankdata(np.concatenate([x, y], axis=-1), axis=-1)
    u = ranks[..., :nx].sum(axis=-1) - nx * (nx + 1) / 2
    return 2 * u / (nx * ny) - 1


def _groups(values: pd.Series, condition: pd.Series) -> pd.DataFrame:
    g = values.groupby(condition.astype(str)).agg(n="count", mean="mean", sd="std", median="median")
    return g.reindex([c for c in GROUPS if c in g.index]).reset_index(names="condition")


def compare_outcome(sessions: pd.DataFrame, outcome: str, test: str = "welch", seed: int = 0) -> OutcomeComparison | Undefined:
    """Compare ``outcome`` (a column of the per-session table) between visible and not visible."""
    if outcome not in OUTCOMES or test not in TESTS:
        raise ValueError(f"unknown outcome {outcome!r} or test {test!r}")
    label, unit = OUTCOMES[outcome]
    values = pd.to_numeric(sessions[outcome], errors="coerce")
    warn = []
    missing = int(values.isna().sum())
    if missing:
        warn.append(f"{missing} session(s) without a value (e.g. nothing drawn) left out")
    cond = sessions["condition"].astype(str)
    x = values[(cond == GROUPS[0]) & values.notna()].to_numpy(dtype=float)
    y = values[(cond == GROUPS[1]) & values.notna()].to_numpy(dtype=float)
    if len(x) < 2 or len(y) < 2:
        return Undefined(f"each condition needs at least 2 sessions with a value (visible {len(x)}, not visible {len(y)})")
    if np.ptp(np.concatenate([x, y])) == 0:
        return Undefined("every session has the same value")
    if len(x) < 10 or len(y) < 10:
        warn.append(f"few sessions (visible {len(x)}, not visible {len(y)}): tests have little power and intervals are wide")
    n = len(x) + len(y)
    scipy_pkg = package("scipy")
    rng = np.random.default_rng(seed)
    if test == "welch":
        res = stats.ttest_ind(x, y, equal_var=False)
        ci = res.confidence_interval(0.95)
        test_est = Estimate("Welch's t-test", float(res.statistic), Undefined("a test has no interval"), Undefined("a test has no interval"),
                            n, "scipy.stats.ttest_ind(equal_var=False), two-sided", scipy_pkg, p=float(res.pvalue),
                            statistic=float(res.statistic), df=float(res.df))
        diff = Estimate("difference of means (visible - not visible)", float(x.mean() - y.mean()), float(ci.low), float(ci.high), n,
                        "Welch's 95 % interval", scipy_pkg)
        statistic, name, how = hedges_g, "Hedges' g", "pooled SD, ddof=1, small-sample factor J"
    else:
        res = stats.mannwhitneyu(x, y, alternative="two-sided")
        test_est = Estimate("Mann-Whitney U test", float(res.statistic), Undefined("a test has no interval"), Undefined("a test has no interval"),
                            n, "scipy.stats.mannwhitneyu, two-sided, U of the visible sessions", scipy_pkg, p=float(res.pvalue),
                            statistic=float(res.statistic))
        diff = Estimate("difference of medians (visible - not visible)", float(np.median(x) - np.median(y)),
                        Undefined("no interval is computed for a difference of medians"), Undefined("no interval is computed for a difference of medians"),
                        n, "sample medians", "numpy")
        statistic, name, how = rank_biserial, "rank-biserial correlation", "2U/(n1 n2) - 1"
    value = float(statistic(x, y))
    boot = stats.bootstrap((x, y), statistic, n_resamples=N_BOOT, method="percentile", vectorized=True, rng=rng)
    lo, hi = boot.confidence_interval
    effect = Estimate(name, value, float(lo), float(hi), n,
                      f"{how}; 95 % interval: percentile bootstrap over sessions within condition, {N_BOOT} resamples, seed {seed} "
                      "(scipy.stats.bootstrap)", scipy_pkg)
    return OutcomeComparison(outcome=outcome, label=label, unit=unit, groups=_groups(values, cond), test=test_est,
                             difference=diff, effect=effect, warnings=tuple(warn))


def compare_outcomes(sessions: pd.DataFrame, test: str = "welch", seed: int = 0) -> dict[str, OutcomeComparison | Undefined]:
    return {o: compare_outcome(sessions, o, test, seed) for o in OUTCOMES}
