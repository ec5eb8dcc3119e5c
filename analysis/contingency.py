"""Do grounding acts depend on the condition? The test behind the paper's Fig. 3.

On the condition x act table of coded actions:

- Pearson's chi-square test of independence (``scipy.stats.chi2_contingency``, no continuity
  correction); it treats every coded action as independent. :func:`cross_table_test` is that test
  and Cramér's V on any cross-table (the comparison of two coding schemes uses it too).
- Cramér's V (``scipy.stats.contingency.association``) with a 95 % interval from a session
  bootstrap: sessions are resampled with replacement within each condition (the actions of a
  session stay together), V is recomputed on each resampled table, and the 2.5th and 97.5th
  percentiles are the interval (seeded, 2,000 resamples by default).
- A permutation test that respects sessions: the condition labels are shuffled across sessions
  (group sizes kept) and the chi-square statistic recomputed; p is the share of shuffles at least
  as extreme as the data (with the observed table counted once).
- Adjusted standardized residuals (Haberman 1973) per cell (statsmodels' ``Table`` of the observed
  counts, an empty cell left empty rather than shifted to 0.5): beyond
  +-1.96 a cell has clearly more (+) or fewer (-) actions than independence predicts.

The bootstrap and the permutations recompute chi-square on thousands of tables at once with
:func:`chi2_many` (numpy), which the tests prove equal to scipy's on every table.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency
from scipy.stats.contingency import association
from statsmodels.stats.contingency_tables import Table

from analysis.draws import indices
from analysis.results import ChiSquare, Estimate
from corpus.values import Undefined

N_BOOT = 2000
N_PERM = 2000


@dataclass(frozen=True)
class IndependenceTest:
    table: pd.DataFrame  # rows: conditions, columns: codes, observed counts
    expected: pd.DataFrame
    residuals: pd.DataFrame  # adjusted standardized residuals
    chi2: ChiSquare  # statistic with df and p
    cramers_v: Estimate  # with the session-bootstrap interval
    cramers_v_corrected: Estimate  # Bergsma's bias-corrected V, with the same resamples' interval
    permutation_p: float | Undefined
    n_permutations: int
    n_sessions: int
    warnings: tuple[str, ...] = ()


def cross_table_test(
    observed, n_of: str, what: str, unit: str, reason: str | None = None
) -> tuple[ChiSquare, Estimate]:
    """Pearson's chi-square test of independence (no continuity correction) and Cramér's V (no
    bias correction) of a cross-table of ``what``, counting ``unit``; the test warns when more than
    a fifth of the cells expect fewer than 5. With ``reason`` (why there is no test) both are
    undefined."""
    observed = np.asarray(observed)
    n = int(observed.sum())
    chi2_fields: dict[str, Any] = dict(
        key="chi2",
        statistic="Chi-square test of independence",
        n=n,
        n_of=n_of,
        method=f"Pearson chi-square test of independence of {what} (no continuity correction)",
        computed_by="scipy.stats.chi2_contingency",
        package="scipy",
    )
    v_fields: dict[str, Any] = dict(
        key="cramers_v",
        statistic="Cramér's V",
        n=n,
        n_of=n_of,
        method=f"Cramér's V of {what} (no bias correction)",
        computed_by="scipy.stats.contingency.association",
        package="scipy",
    )
    if reason is not None:
        return ChiSquare.undefined(reason, **chi2_fields), Estimate.undefined(reason, **v_fields)
    res = chi2_contingency(observed, correction=False)
    small = np.asarray(res.expected_freq) < 5
    warnings = (
        (f"{int(small.sum())} of {small.size} cells expect fewer than 5 {unit}: the chi-square approximation is rough",)
        if small.mean() > 0.2
        else ()
    )
    chi2 = ChiSquare(
        **chi2_fields,
        estimate=float(res.statistic),
        dof=int(res.dof),
        p_value=float(res.pvalue),
        min_expected=float(np.min(res.expected_freq)),
        warnings=warnings,
    )
    v = Estimate(**v_fields, estimate=float(association(observed, method="cramer", correction=False)))
    return chi2, v


def chi2_many(tables: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson's chi-square and Cramér's V of many r x c tables at once (shape B x r x c).

    Rows or columns with a zero total are left out of each table (as if the category were not
    there), so ``min(r, c) - 1`` counts only the categories present. V is NaN for a table with
    fewer than two non-empty rows or columns.
    """
    t = np.asarray(tables, dtype=float)
    n = t.sum(axis=(1, 2))
    rows, cols = t.sum(axis=2), t.sum(axis=1)
    expected = rows[:, :, None] * cols[:, None, :] / np.where(n > 0, n, 1)[:, None, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        cell = np.where(expected > 0, (t - expected) ** 2 / expected, 0.0)
    chi2 = cell.sum(axis=(1, 2))
    k = np.minimum((rows > 0).sum(axis=1), (cols > 0).sum(axis=1)) - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where((k > 0) & (n > 0), np.sqrt(chi2 / (n * np.maximum(k, 1))), np.nan)
    return chi2, v


def corrected_v(tables: np.ndarray) -> np.ndarray:
    """Bias-corrected Cramér's V (Bergsma 2013) of many r x c tables at once (shape B x r x c):
    sqrt(max(0, phi2 - (r - 1)(c - 1) / (n - 1)) / min(r~ - 1, c~ - 1)) with r~ = r - (r - 1)^2 / (n - 1)
    and c~ likewise, r and c counting the non-empty rows and columns. Plain V is biased upwards,
    the more so the more cells and the fewer observations; NaN where a table has fewer than two
    non-empty rows or columns."""
    t = np.asarray(tables, dtype=float)
    n = t.sum(axis=(1, 2))
    chi2, _ = chi2_many(t)
    r = (t.sum(axis=2) > 0).sum(axis=1).astype(float)
    c = (t.sum(axis=1) > 0).sum(axis=1).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        phi2 = np.maximum(0.0, chi2 / n - (r - 1) * (c - 1) / (n - 1))
        r_t, c_t = r - (r - 1) ** 2 / (n - 1), c - (c - 1) ** 2 / (n - 1)
        denom = np.minimum(r_t - 1, c_t - 1)
        return np.where((r > 1) & (c > 1) & (n > 1) & (denom > 0), np.sqrt(phi2 / denom), np.nan)


def _session_counts(coded: pd.DataFrame, codes: list[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per session: its condition and its count of each code."""
    by = pd.crosstab(coded["session_id"], coded["code"]).reindex(columns=codes, fill_value=0)
    cond = coded.drop_duplicates("session_id").set_index("session_id")["condition"].astype(str).reindex(by.index)
    conditions = sorted(cond.unique())
    return by.to_numpy(dtype=float), cond.to_numpy(), conditions


def _tables(counts: np.ndarray, cond_index: np.ndarray, n_rows: int) -> np.ndarray:
    """Sum per-session counts into condition x code tables; ``cond_index`` is B x sessions."""
    onehot = np.eye(n_rows)[cond_index]  # B x sessions x rows
    return np.einsum("bsr,sc->brc", onehot, counts)


def independence_test(
    coded: pd.DataFrame, seed: int = 0, n_boot: int = N_BOOT, n_perm: int = N_PERM
) -> IndependenceTest | Undefined:
    """The tests above on coded actions (columns session_id, condition, code)."""
    if coded.empty:
        return Undefined("no coded actions")
    table = pd.crosstab(coded["condition"].astype(str), coded["code"])
    if table.shape[0] < 2:
        return Undefined("only one condition has coded actions")
    if table.shape[1] < 2:
        return Undefined("every coded action has the same act")
    obs = table.to_numpy()
    chi2, v = cross_table_test(obs, "coded actions", "condition and grounding act", "actions")
    warn = [
        "every coded action counts as independent in the chi-square p-value; the permutation test over sessions does not assume it",
        *chi2.warnings,
    ]
    codes = list(table.columns)
    counts, cond, conditions = _session_counts(coded, codes)
    cond_idx = np.searchsorted(conditions, cond)
    rng = np.random.default_rng(seed)
    # Session bootstrap within each condition.
    boot_tables = np.zeros((n_boot, len(conditions), len(codes)))
    for r in range(len(conditions)):
        members = np.flatnonzero(cond_idx == r)
        draw = indices(rng, len(members), (n_boot, len(members)))
        boot_tables[:, r, :] = counts[members][draw].sum(axis=1)
    _, boot_v = chi2_many(boot_tables)
    boot_v = boot_v[np.isfinite(boot_v)]
    interval = (
        (float(np.percentile(boot_v, 2.5)), float(np.percentile(boot_v, 97.5)))
        if len(boot_v)
        else Undefined("no bootstrap table had two categories")
    )
    boot_vc = corrected_v(boot_tables)
    boot_vc = boot_vc[np.isfinite(boot_vc)]
    interval_c = (
        (float(np.percentile(boot_vc, 2.5)), float(np.percentile(boot_vc, 97.5)))
        if len(boot_vc)
        else Undefined("no bootstrap table had two categories")
    )
    # Permutation of condition labels across sessions.
    perm_idx = np.array([rng.permutation(cond_idx) for _ in range(n_perm)])
    perm_chi2, _ = chi2_many(_tables(counts, perm_idx, len(conditions)))
    perm_p = float((1 + np.sum(perm_chi2 >= cast(float, chi2.estimate) - 1e-9)) / (1 + n_perm))
    n_sessions = len(cond)
    if min(np.bincount(cond_idx)) < 5:
        warn.append("fewer than 5 sessions in a condition: the session bootstrap interval is rough")
    v = replace(
        v,
        interval=interval,
        interval_method=f"percentile session bootstrap within condition, {n_boot} resamples, seed {seed}",
    )
    vc = Estimate(
        key="cramers_v_corrected",
        statistic="Cramér's V, bias-corrected",
        estimate=float(corrected_v(obs[None].astype(float))[0]),
        n=v.n,
        n_of=v.n_of,
        method="Cramér's V of condition and grounding act with Bergsma's (2013) bias correction",
        computed_by="analysis.contingency.corrected_v (numpy), tested against a hand computation",
        package="numpy",
        interval=interval_c,
        interval_method=v.interval_method,
    )
    # The observed table as it is: statsmodels' Table would otherwise replace every empty cell by 0.5
    # (shift_zeros), which moves every residual of a table with an empty cell.
    observed_table = Table(obs, shift_zeros=False)
    resid = observed_table.standardized_resids
    return IndependenceTest(
        table=table,
        expected=pd.DataFrame(observed_table.fittedvalues, index=table.index, columns=table.columns),
        residuals=pd.DataFrame(np.asarray(resid), index=table.index, columns=table.columns),
        chi2=replace(chi2, warnings=tuple(warn)),
        cramers_v=v,
        cramers_v_corrected=vc,
        permutation_p=perm_p,
        n_permutations=n_perm,
        n_sessions=n_sessions,
        warnings=tuple(warn),
    )
