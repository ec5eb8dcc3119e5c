"""Session outcomes by condition: final accuracy, route coverage, distance-weighted score, actions
and duration per session, and the route deviation where the source records one (HCRC), each
compared between the conditions (visible - not visible, or the two conditions of the dataset's
design).

Two tests, the user's choice, both from scipy and both two-sided:

- ``welch``: Welch's t-test (``scipy.stats.ttest_ind(equal_var=False)``); the difference of means
  with Welch's 95% interval; effect size Hedges' g (Cohen's d on the pooled SD times the
  small-sample factor J = 1 - 3 / (4 (n1 + n2) - 9)).
- ``mannwhitney``: the Mann-Whitney U test (``scipy.stats.mannwhitneyu``); the difference of
  medians; effect size the rank-biserial correlation r = 2 U / (n1 n2) - 1 (U of the visible
  sessions; +1: every visible session above every not-visible one; equal to Cliff's delta).

The effect sizes' 95% intervals are percentile bootstraps over sessions within each condition
(``scipy.stats.bootstrap``, seeded; from 1,000 sessions on, Hedges' g's interval is made from the
same resamples counted once for all the outcomes, :func:`_bootstrap_interval`). Sessions with an undefined outcome (accuracy of an empty
drawing) are left out and counted in the warnings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from analysis import draws
from analysis.results import OURS, Estimate, Test, few_per_group
from corpus.values import Undefined

OUTCOMES = {
    "final_accuracy": ("final accuracy", "share of drawn cells on the route"),
    "route_coverage": ("route coverage", "share of route cells drawn"),
    "distance_weighted": ("distance-weighted score", "0 to 1"),
    "n_actions": ("actions per session", "actions"),
    "duration_min": ("duration", "minutes"),
}
# Outcomes a source records rather than ones computed from the drawing (the session table's column
# of :attr:`corpus.model.SessionMeta.route_deviation`): compared only where a session has one.
RECORDED = {
    "route_deviation": ("route deviation", "HCRC deviation score: area between the routes"),
}
ALL_OUTCOMES = {**OUTCOMES, **RECORDED}
TESTS = {"welch": "Welch's t-test", "mannwhitney": "Mann-Whitney U test"}
GROUPS = ("visible", "not_visible")  # the canvas design: difference = first - second (treatment - reference)


def outcomes_of(sessions: pd.DataFrame) -> list[str]:
    """The outcomes of ``sessions``: every one of :data:`OUTCOMES`, and each recorded outcome
    (:data:`RECORDED`) that some session has."""
    return list(OUTCOMES) + [o for o in RECORDED if o in sessions and sessions[o].notna().any()]


def groups_of(design: tuple[str, str]) -> tuple[str, str]:
    """(treatment, reference) of a design (reference, treatment): the difference is first - second."""
    return design[1], design[0]


N_BOOT = 2000


@dataclass(frozen=True)
class OutcomeComparison:
    outcome: str
    label: str
    unit: str
    groups: pd.DataFrame  # condition, n, mean, sd, median
    test: Test  # statistic, df, p
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


COUNTED_FROM = 1000  # sessions from which Hedges' g's resamples are counted (below: scipy resamples them itself)
CONFIDENCE = 0.95


def _bootstrap_interval(statistic, x: np.ndarray, y: np.ndarray, seed: int) -> tuple[float, float]:
    """The percentile bootstrap interval of ``statistic`` (x, y): ``scipy.stats.bootstrap`` with
    :data:`N_BOOT` resamples of each condition's sessions, seeded. For Hedges' g over at least
    :data:`COUNTED_FROM` sessions, the same resamples are counted (how often each takes each
    session, :data:`analysis.draws.RESAMPLE_COUNTS`: drawn once for the outcomes of a page, which
    share their sessions) and each resample's g made from the counts (:func:`_resampled_g`); the
    interval is scipy's quantiles of that distribution. A test holds it to scipy's interval."""
    sizes = (len(x), len(y))
    if statistic is hedges_g and sum(sizes) >= COUNTED_FROM and draws.RESAMPLE_COUNTS.fits(sum(sizes), N_BOOT):
        theta = _resampled_g(x, y, draws.RESAMPLE_COUNTS.get_samples(sizes, N_BOOT, seed))
        alpha = np.asarray((1 - CONFIDENCE) / 2)
        lo, hi = stats.quantile(theta, np.stack([alpha, 1 - alpha]))
        return float(lo), float(hi)
    boot = stats.bootstrap(
        (x, y),
        statistic,
        n_resamples=N_BOOT,
        confidence_level=CONFIDENCE,
        method="percentile",
        vectorized=True,
        rng=np.random.default_rng(seed),
    )
    lo, hi = boot.confidence_interval
    return float(lo), float(hi)


RESAMPLES_AT_ONCE = 256
ONE_VALUE_SHARE = 0.01  # values this common are checked for a resample that took nothing else


def _resampled_g(x: np.ndarray, y: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """:func:`hedges_g` of each resample, the resamples given as how often each takes each value
    (``counts``: resamples x (len(x) + len(y)), x's values then y's): each sample's mean and sum of
    squared deviations from sums weighted by the counts (about the sample's own mean, so that they
    keep their digits). Where a resample took one value only, its mean is that value and its sum of
    squares exactly 0, as the resampled values' own are: the draws of each value held by at least
    :data:`ONE_VALUE_SHARE` of the sample are counted (a rarer one filling a resample of
    :data:`COUNTED_FROM` / 2 or more sessions on its own has a chance below 1e-300)."""
    nx, total = len(x), counts.shape[1]
    out = np.empty(len(counts))
    parts = []
    for values in (x, y):
        centre = float(values.mean())
        dev = values - centre
        distinct, share = np.unique(values, return_counts=True)
        common = distinct[share >= ONE_VALUE_SHARE * len(values)]
        table = np.column_stack([dev, dev * dev, *(values == v for v in common)]).astype(float)
        parts.append((len(values), centre, table, common))
    j = 1 - 3 / (4 * total - 9)
    for start in range(0, len(counts), RESAMPLES_AT_ONCE):
        block = counts[start : start + RESAMPLES_AT_ONCE].astype(float)
        means, squares = [], []
        for (n, centre, table, common), c in zip(parts, (block[:, :nx], block[:, nx:])):
            sums = c @ table
            ss = np.maximum(sums[:, 1] - sums[:, 0] * sums[:, 0] / n, 0.0)
            mean = centre + sums[:, 0] / n
            filled = sums[:, 2:] == n  # (a resample that took this value n times: nothing else)
            one_value = filled.any(axis=1)
            if one_value.any():
                ss[one_value] = 0.0
                mean[one_value] = common[filled[one_value].argmax(axis=1)]
            means.append(mean)
            squares.append(ss)
        pooled = np.sqrt((squares[0] + squares[1]) / (total - 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            out[start : start + len(block)] = (means[0] - means[1]) / pooled * j
    return out


def _groups(values: pd.Series, condition: pd.Series, groups: tuple[str, str] = GROUPS) -> pd.DataFrame:
    g = values.groupby(condition.astype(str)).agg(n="count", mean="mean", sd="std", median="median")
    return g.reindex([c for c in groups if c in g.index]).reset_index(names="condition")


def compare_outcome(
    sessions: pd.DataFrame, outcome: str, test: str = "welch", seed: int = 0, groups: tuple[str, str] = GROUPS
) -> OutcomeComparison | Undefined:
    """Compare ``outcome`` (a column of the per-session table) between the two conditions of
    ``groups`` (treatment, reference; by default visible and not visible)."""
    if outcome not in ALL_OUTCOMES or test not in TESTS:
        raise ValueError(f"unknown outcome {outcome!r} or test {test!r}")
    label, unit = ALL_OUTCOMES[outcome]
    values = pd.to_numeric(sessions[outcome], errors="coerce")
    warn = []
    missing = int(values.isna().sum())
    if missing:
        why = "the source records none" if outcome in RECORDED else "e.g. nothing drawn"
        warn.append(f"{missing} session(s) without a value ({why}) left out")
    cond = sessions["condition"].astype(str)
    x = values[(cond == groups[0]) & values.notna()].to_numpy(dtype=float)
    y = values[(cond == groups[1]) & values.notna()].to_numpy(dtype=float)
    words = [g.replace("_", " ") for g in groups]
    if len(x) < 2 or len(y) < 2:
        return Undefined(
            f"each condition needs at least 2 sessions with a value ({words[0]} {len(x)}, {words[1]} {len(y)})"
        )
    if np.ptp(np.concatenate([x, y])) == 0:
        return Undefined("every session has the same value")
    few = few_per_group({groups[0]: len(x), groups[1]: len(y)})
    if few:
        warn.append(few)
    n = len(x) + len(y)
    common: dict[str, Any] = dict(n=n, n_of="sessions with a value", package="scipy")
    if test == "welch":
        res = stats.ttest_ind(x, y, equal_var=False)
        ci = res.confidence_interval(0.95)
        welch = "scipy.stats.ttest_ind(equal_var=False)"
        test_est = Test(
            **common,
            key="welch_t",
            statistic="Welch's t-test",
            estimate=float(res.statistic),
            method="two-sided test of equal means without assuming equal variances",
            computed_by=welch,
            distribution="t",
            dof=float(res.df),
            p_value=float(res.pvalue),
        )
        diff = Estimate(
            **common,
            key="difference",
            statistic=f"difference of means ({words[0]} - {words[1]})",
            estimate=float(x.mean() - y.mean()),
            method="difference of the sample means",
            computed_by=welch,
            interval=(float(ci.low), float(ci.high)),
            interval_method="Welch's 95% interval",
        )
        statistic, key, name, how = hedges_g, "hedges_g", "Hedges' g", "pooled SD, ddof=1, small-sample factor J"
    else:
        res = stats.mannwhitneyu(x, y, alternative="two-sided")
        test_est = Test(
            **common,
            key="mann_whitney_u",
            statistic="Mann-Whitney U test",
            estimate=float(res.statistic),
            method=f"two-sided, U of the {words[0]} sessions",
            computed_by="scipy.stats.mannwhitneyu",
            distribution="U",
            p_value=float(res.pvalue),
        )
        diff = Estimate(
            **{**common, "package": "numpy"},
            key="difference",
            statistic=f"difference of medians ({words[0]} - {words[1]})",
            estimate=float(np.median(x) - np.median(y)),
            method="difference of the sample medians",
            computed_by="numpy.median",
            interval=Undefined("no interval is computed for a difference of medians"),
        )
        statistic, key, name, how = rank_biserial, "rank_biserial", "rank-biserial correlation", "2U/(n1 n2) - 1"
    value = float(statistic(x, y))
    lo, hi = _bootstrap_interval(statistic, x, y, seed)
    effect = Estimate(
        **{**common, "package": OURS},
        key=key,
        statistic=name,
        estimate=value,
        method=how,
        computed_by=f"analysis.outcomes.{statistic.__name__}",
        checked_against="scipy.stats.mannwhitneyu (U)" if statistic is rank_biserial else "",
        interval=(float(lo), float(hi)),
        interval_method=f"percentile bootstrap over sessions within condition, {N_BOOT} resamples, "
        f"seed {seed} (scipy.stats.bootstrap)",
    )
    return OutcomeComparison(
        outcome=outcome,
        label=label,
        unit=unit,
        groups=_groups(values, cond, groups),
        test=test_est,
        difference=diff,
        effect=effect,
        warnings=tuple(warn),
    )


def compare_outcomes(
    sessions: pd.DataFrame, test: str = "welch", seed: int = 0, groups: tuple[str, str] = GROUPS
) -> dict[str, OutcomeComparison | Undefined]:
    return {o: compare_outcome(sessions, o, test, seed, groups) for o in outcomes_of(sessions)}


def outcome_numbers(results: dict[str, OutcomeComparison | Undefined]) -> pd.DataFrame:
    """The comparisons as numbers, one row per outcome (a CSV's columns, none of them formatted
    text): per condition its n, mean, SD and median; the difference with its interval; the test's
    statistic, degrees of freedom and p; the effect size with its interval. An outcome that could not
    be compared has empty numbers and its reason in ``note``."""
    rows: list[dict[str, Any]] = []
    for outcome, r in results.items():
        if isinstance(r, Undefined):
            rows.append({"outcome": outcome, "note": str(r)})
            continue
        row: dict[str, Any] = {"outcome": outcome, "label": r.label, "unit": r.unit}
        for g in r.groups.itertuples():
            for col in ("n", "mean", "sd", "median"):
                row[f"{g.condition}_{col}"] = getattr(g, col)
        row |= {
            "difference": r.difference.estimate,
            "difference_ci_low": r.difference.low,
            "difference_ci_high": r.difference.high,
            "test": r.test.statistic,
            "test_statistic": r.test.test_statistic,
            "dof": r.test.dof,
            "p_value": r.test.p_value,
            "effect": r.effect.statistic,
            "effect_estimate": r.effect.estimate,
            "effect_ci_low": r.effect.low,
            "effect_ci_high": r.effect.high,
            "note": "; ".join(r.warnings),
        }
        rows.append(row)
    out = pd.DataFrame(rows)
    return out.map(lambda v: None if isinstance(v, Undefined) else v)
