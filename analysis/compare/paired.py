"""Two runs on the same items: is the difference real?

Only items both runs predicted count (inner join on session and action). For every score the
table gives run A's value, run B's, the difference B - A with a 95 % percentile interval from a
paired bootstrap over items (seeded, B stated), and a test:

- accuracy: McNemar's exact test on the discordant items (statsmodels ``mcnemar(exact=True)``);
- macro recall, macro F1, Cohen's kappa: the bootstrap, resampling the items' joint
  (person, run A, run B) labels, two-sided p = twice the share of resamples on the far side of 0;
- ROUGE-L, similarity and the drawing score: the same bootstrap over the items both runs scored.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import mcnemar

from analysis.compare.items import ACTION_TYPE, CATEGORIES, Parts, RunItems
from analysis.compare.metrics import (
    BOOT_METHOD,
    CATEGORY_METRICS,
    N_BOOT,
    NAMES,
    SEED,
    bootstrap_sums,
    metric_arrays,
    percentile,
)
from analysis.compare.scores import ALL
from analysis.results import OURS, Estimate, EstimateTable
from corpus.predictions import DIMENSIONS
from corpus.values import Undefined

KEYS = ("metric", "dimension", "run_a", "run_b", "condition", "role", "value_a", "value_b", "p_value", "test")
_KEY = ["session_id", "action_index"]
SHARED, SCORED = "items both runs predicted", "items both runs scored"
CATEGORY, MEANS = "analysis.compare.paired (category scores)", "analysis.compare.paired (means)"


def _scope(df: pd.DataFrame, condition: str, role: str, cols: list[str] | None = None) -> pd.DataFrame:
    """The rows of ``condition`` and ``role`` (``cols`` of them only: an item table holds texts and
    cells, which cost the most to copy and which a score does not read). An empty table as it is
    (a run without a task has no columns)."""
    if df.empty:
        return df
    keep = np.ones(len(df), dtype=bool)
    if condition != ALL:
        keep &= (df["condition"] == condition).to_numpy(dtype=bool)
    if role != ALL:
        keep &= (df["role"] == role).to_numpy(dtype=bool)
    out = df if cols is None else df[cols]
    return out if keep.all() else out[keep]


def _text_column(metric: str, dim: str) -> str:
    """The item table's column of a text metric (``rouge_l`` or ``similarity``) on ``dim``."""
    return f"{'rouge' if metric == 'rouge_l' else 'sim'}_{dim}"


def _boot_p(reps: np.ndarray) -> float | Undefined:
    reps = reps[~np.isnan(reps)]
    if len(reps) < 2:
        return Undefined("undefined in almost every bootstrap resample")
    return float(min(1.0, 2 * min((reps <= 0).mean(), (reps >= 0).mean())))


def _value(x: float) -> float | Undefined:
    return Undefined("no defined value") if np.isnan(x) else float(x)


def _difference(
    metric: str, n: int, n_of: str, boot: str, computed_by: str, value: float | Undefined, interval=None
) -> Estimate:
    """Run B's score less run A's on the items both have, with its paired bootstrap interval."""
    fields: dict[str, Any] = dict(
        key=f"difference_{metric}",
        statistic=f"difference in {NAMES[metric]}",
        n=n,
        n_of=n_of,
        method="run B's score less run A's on the same items",
        computed_by=computed_by,
        package=OURS,
        interval_method=f"{boot} (paired)",
    )
    if isinstance(value, Undefined):
        return Estimate.undefined(value.reason, **fields)
    return Estimate(**fields, estimate=value, interval=interval)


def _no_test(key: dict, why: Undefined) -> dict:
    return {**key, "value_a": why, "value_b": why, "p_value": why}


def _category_rows(
    parts: Parts, a: str, b: str, key: dict, n_boot: int, seed: int, dims: tuple[str, ...], condition: str, role: str
):
    boot = BOOT_METHOD.format(b=n_boot, s=seed)
    # A run without a part (no prediction there): the table's columns, no rows.
    empty = (
        next(iter(parts.values())).iloc[:0] if parts else pd.DataFrame(columns=[*_KEY, "t_code", "p_code", "correct"])
    )
    for dim in dims:
        da = _scope(parts.get((a, dim), empty), condition, role, [*_KEY, "t_code", "p_code", "correct"])
        db = _scope(parts.get((b, dim), empty), condition, role, [*_KEY, "p_code", "correct"])
        j = da.merge(db, on=_KEY, suffixes=("_a", "_b"))
        k = len(CATEGORIES[dim])
        row = {**key, "dimension": dim}
        if j.empty:
            for m in CATEGORY_METRICS:
                why = Undefined("the two runs share no item here")
                yield _no_test({**row, "metric": m, "test": ""}, why), _difference(m, 0, SHARED, boot, CATEGORY, why)
            continue
        joint = np.bincount((j["t_code"] * k + j["p_code_a"]) * k + j["p_code_b"], minlength=k**3).reshape(k, k, k)
        conf_a, conf_b = joint.sum(axis=2), joint.sum(axis=1)
        pa, pb = metric_arrays(conf_a), metric_arrays(conf_b)
        rng = np.random.default_rng(seed)
        flat = joint.ravel() / joint.sum()
        res = rng.multinomial(int(joint.sum()), flat, size=n_boot).reshape(n_boot, k, k, k)
        ra, rb = metric_arrays(res.sum(axis=3)), metric_arrays(res.sum(axis=2))
        ca, cb = j["correct_a"].to_numpy(), j["correct_b"].to_numpy()
        for m in CATEGORY_METRICS:
            diff = float(pb[m] - pa[m])
            reps = rb[m] - ra[m]
            p: float | Undefined
            if m == "accuracy":
                table = [[int((ca & cb).sum()), int((ca & ~cb).sum())], [int((~ca & cb).sum()), int((~ca & ~cb).sum())]]
                p = float(mcnemar(table, exact=True).pvalue)
                test = f"McNemar exact (statsmodels): {table[0][1]} items only A right, {table[1][0]} only B right"
            else:
                p, test = _boot_p(reps), "paired bootstrap"
            est = _difference(m, len(j), SHARED, boot, CATEGORY, _value(diff), percentile(reps))
            yield (
                {
                    **row,
                    "metric": m,
                    "value_a": _value(float(pa[m])),
                    "value_b": _value(float(pb[m])),
                    "p_value": p,
                    "test": test,
                },
                est,
            )


def _paired_means(
    ia: pd.DataFrame, ib: pd.DataFrame, score: str, weight: str | None, key: dict, metric: str, n_boot: int, seed: int
):
    cols = [*_KEY, score] + ([weight] if weight else [])
    j = ia[cols].merge(ib[cols], on=_KEY, suffixes=("_a", "_b")).dropna()
    row = {**key, "metric": metric, "test": "paired bootstrap"}
    boot = BOOT_METHOD.format(b=n_boot, s=seed)
    if len(j) < 2:
        why = Undefined("fewer than two items scored by both runs")
        return _no_test(row, why), _difference(metric, len(j), SCORED, boot, MEANS, why)
    sa, sb = j[f"{score}_a"].to_numpy(dtype=float), j[f"{score}_b"].to_numpy(dtype=float)
    if weight:
        wa, wb = j[f"{weight}_a"].to_numpy(dtype=float), j[f"{weight}_b"].to_numpy(dtype=float)
        va, vb = (sa * wa).sum() / wa.sum(), (sb * wb).sum() / wb.sum()
        swb, twb, swa, twa = bootstrap_sums([sb * wb, wb, sa * wa, wa], n_boot, seed)
        reps = swb / twb - swa / twa
    else:  # (every weight 1: each resample's weights sum to the number of items, exactly)
        n = float(len(j))
        va, vb = sa.sum() / n, sb.sum() / n
        sum_b, sum_a = bootstrap_sums([sb, sa], n_boot, seed)
        reps = sum_b / n - sum_a / n
    est = _difference(metric, len(j), SCORED, boot, MEANS, float(vb - va), percentile(reps))
    return {**row, "value_a": float(va), "value_b": float(vb), "p_value": _boot_p(reps)}, est


def paired_table(
    parts: Parts,
    items: dict[str, RunItems],
    a: str,
    b: str,
    condition: str = ALL,
    role: str = ALL,
    n_boot: int = N_BOOT,
    seed: int = SEED,
    similarity: bool = True,
    dimension: str | None = None,
) -> EstimateTable:
    """Run B against run A on the items both predicted (see the module docstring); ``parts``: the
    category table by run and dimension (:func:`analysis.compare.items.by_run_and_dimension`); with
    ``dimension``, only that dimension's rows (what one leaderboard column asks)."""
    key = {"run_a": a, "run_b": b, "condition": condition, "role": role}

    def wanted(dim: str) -> bool:
        return dimension is None or dim == dimension

    def rows():
        dims = tuple(d for d in (*DIMENSIONS, ACTION_TYPE) if wanted(d))
        if dims:
            yield from _category_rows(parts, a, b, key, n_boot, seed, dims, condition, role)
        ia, ib = items[a], items[b]
        texts = [(frame, dim) for frame, dim in [("mm", "rationale"), ("na", "message")] if wanted(dim)]
        for frame, dim in texts:
            ta, tb = getattr(ia, frame), getattr(ib, frame)
            metrics = ["rouge_l"] + (["similarity"] if similarity and f"sim_{dim}" in ta and f"sim_{dim}" in tb else [])
            cols = [*_KEY, *(_text_column(m, dim) for m in metrics)]
            fa, fb = _scope(ta, condition, role, cols), _scope(tb, condition, role, cols)
            if fa.empty or fb.empty:
                continue
            for m in metrics:
                yield _paired_means(fa, fb, _text_column(m, dim), None, {**key, "dimension": dim}, m, n_boot, seed)
        cols = [*_KEY, "draw_score", "draw_cells"]
        fa, fb = _scope(ia.na, condition, role, cols), _scope(ib.na, condition, role, cols)
        if wanted("drawing") and not fa.empty and not fb.empty:
            yield _paired_means(
                fa, fb, "draw_score", "draw_cells", {**key, "dimension": "drawing"}, "drawing", n_boot, seed
            )

    return EstimateTable.build(rows(), KEYS, title=f"{b} against {a}")
