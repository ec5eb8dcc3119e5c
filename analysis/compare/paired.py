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

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import mcnemar

from analysis.compare.items import ACTION_TYPE, CATEGORIES, TEXTS, Parts, RunItems
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
SHARED, SCORED = "items both runs predicted", "items both runs scored"
CATEGORY, MEANS = "analysis.compare.paired (category scores)", "analysis.compare.paired (means)"


def _in_scope(df: pd.DataFrame, condition: str, role: str) -> np.ndarray:
    """Which rows of a non-empty item table are of ``condition`` and ``role``."""
    keep = np.ones(len(df), dtype=bool)
    if condition != ALL:
        keep &= (df["condition"] == condition).to_numpy(dtype=bool)
    if role != ALL:
        keep &= (df["role"] == role).to_numpy(dtype=bool)
    return keep


def _scope(df: pd.DataFrame, condition: str, role: str, cols: list[str] | None = None) -> pd.DataFrame:
    """The rows of ``condition`` and ``role`` (``cols`` of them only: an item table holds texts and
    cells, which cost the most to copy and which a score does not read). An empty table as it is
    (a run without a task has no columns)."""
    if df.empty:
        return df
    keep = _in_scope(df, condition, role)
    out = df if cols is None else df[cols]
    return out if keep.all() else out[keep]


def _kept_scope(
    it: RunItems, table: Callable[[], pd.DataFrame], condition: str, role: str, cols: list[str]
) -> pd.DataFrame:
    """:func:`_scope` of one of the run's item tables (``table()``: the run's next-action items, or
    a task's items with their text scores), kept with the run's items by scope and columns."""
    return it.memo.once(("scope", condition, role, tuple(cols)), lambda: _scope(table(), condition, role, cols))


_CODED = ("h_row", "t_code", "p_code", "correct")


def _coded(part: pd.DataFrame | None, condition: str, role: str) -> dict[str, np.ndarray]:
    """A run's labels of one dimension in the scope, as arrays: each item's row of the people's side
    (``h_row``), the person's and the run's label codes, and whether they are one."""
    if part is None or part.empty:
        return {c: np.zeros(0, dtype=bool if c == "correct" else np.int64) for c in _CODED}
    keep = _in_scope(part, condition, role)
    return {c: part[c].to_numpy()[keep] for c in _CODED}


def _shared(rows_a: np.ndarray, rows_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the items both runs labelled sit in each run's arrays (an item is one row of the
    people's side, at most once per run): the inner join on the item, made by looking up rows."""
    at_b = np.full(int(max(rows_a.max(initial=-1), rows_b.max(initial=-1))) + 1, -1, dtype=np.int64)
    at_b[rows_b] = np.arange(len(rows_b))
    in_b = at_b[rows_a]
    both = np.flatnonzero(in_b >= 0)
    return both, in_b[both]


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


def _labels_of_both(
    parts: Parts, a: str, b: str, dim: str, condition: str, role: str, items: dict[str, RunItems] | None = None
):
    """Runs ``a`` and ``b``'s labels of one dimension in the scope, and where the items both
    labelled sit in each (:func:`_shared`); with the runs' ``items``, each run's labels in a scope
    are kept with them (a leaderboard tests its best run against every other)."""

    def coded(run: str) -> dict[str, np.ndarray]:
        make = partial(_coded, parts.get((run, dim)), condition, role)
        return items[run].memo.once(("coded", dim, condition, role), make) if items and run in items else make()

    da, db = coded(a), coded(b)
    return da, db, *_shared(da["h_row"], db["h_row"])


NO_SHARED_ITEM = "the two runs share no item here"


def _mcnemar(ca: np.ndarray, cb: np.ndarray) -> tuple[float, str]:
    """McNemar's exact test of two runs' accuracy on the same items (whether each was right)."""
    table = [[int((ca & cb).sum()), int((ca & ~cb).sum())], [int((~ca & cb).sum()), int((~ca & ~cb).sum())]]
    p = float(mcnemar(table, exact=True).pvalue)
    return p, f"McNemar exact (statsmodels): {table[0][1]} items only A right, {table[1][0]} only B right"


def by_mcnemar(metric: str, dimension: str) -> bool:
    """Whether the paired test of ``metric`` on ``dimension`` is McNemar's (:func:`accuracy_p`)."""
    return metric == "accuracy" and dimension in CATEGORIES


def accuracy_p(parts: Parts, a: str, b: str, condition: str, role: str, dimension: str) -> float | Undefined:
    """The p-value of the paired table's accuracy test on ``dimension`` (McNemar's exact test),
    without the table's bootstraps: what a leaderboard of accuracies asks of many pairs of runs."""
    da, db, in_a, in_b = _labels_of_both(parts, a, b, dimension, condition, role)
    if not len(in_a):
        return Undefined(NO_SHARED_ITEM)
    return _mcnemar(da["correct"][in_a], db["correct"][in_b])[0]


def _category_rows(
    parts: Parts,
    a: str,
    b: str,
    key: dict,
    n_boot: int,
    seed: int,
    dims: tuple[str, ...],
    condition: str,
    role: str,
    items: dict[str, RunItems] | None = None,
):
    boot = BOOT_METHOD.format(b=n_boot, s=seed)
    for dim in dims:
        da, db, in_a, in_b = _labels_of_both(parts, a, b, dim, condition, role, items)
        k = len(CATEGORIES[dim])
        row = {**key, "dimension": dim}
        if not len(in_a):
            for m in CATEGORY_METRICS:
                why = Undefined(NO_SHARED_ITEM)
                yield _no_test({**row, "metric": m, "test": ""}, why), _difference(m, 0, SHARED, boot, CATEGORY, why)
            continue
        t, p_a, p_b = da["t_code"][in_a], da["p_code"][in_a], db["p_code"][in_b]
        joint = np.bincount((t * k + p_a) * k + p_b, minlength=k**3).reshape(k, k, k)
        conf_a, conf_b = joint.sum(axis=2), joint.sum(axis=1)
        pa, pb = metric_arrays(conf_a), metric_arrays(conf_b)
        rng = np.random.default_rng(seed)
        flat = joint.ravel() / joint.sum()
        res = rng.multinomial(int(joint.sum()), flat, size=n_boot).reshape(n_boot, k, k, k)
        ra, rb = metric_arrays(res.sum(axis=3)), metric_arrays(res.sum(axis=2))
        ca, cb = da["correct"][in_a], db["correct"][in_b]
        for m in CATEGORY_METRICS:
            diff = float(pb[m] - pa[m])
            reps = rb[m] - ra[m]
            p: float | Undefined
            if m == "accuracy":
                p, test = _mcnemar(ca, cb)
            else:
                p, test = _boot_p(reps), "paired bootstrap"
            est = _difference(m, len(in_a), SHARED, boot, CATEGORY, _value(diff), percentile(reps))
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
    # The items both runs scored, in run A's order (the inner join on the item).
    in_a, in_b = _shared(ia["h_row"].to_numpy(), ib["h_row"].to_numpy())
    sa, sb = ia[score].to_numpy(dtype=float)[in_a], ib[score].to_numpy(dtype=float)[in_b]
    wa = ia[weight].to_numpy(dtype=float)[in_a] if weight else np.ones(len(in_a))
    wb = ib[weight].to_numpy(dtype=float)[in_b] if weight else np.ones(len(in_b))
    scored = ~(np.isnan(sa) | np.isnan(sb) | np.isnan(wa) | np.isnan(wb))
    sa, sb, wa, wb = sa[scored], sb[scored], wa[scored], wb[scored]
    n_items = len(sa)
    row = {**key, "metric": metric, "test": "paired bootstrap"}
    boot = BOOT_METHOD.format(b=n_boot, s=seed)
    if n_items < 2:
        why = Undefined("fewer than two items scored by both runs")
        return _no_test(row, why), _difference(metric, n_items, SCORED, boot, MEANS, why)
    if weight:
        va, vb = (sa * wa).sum() / wa.sum(), (sb * wb).sum() / wb.sum()
        swb, twb, swa, twa = bootstrap_sums([sb * wb, wb, sa * wa, wa], n_boot, seed)
        reps = swb / twb - swa / twa
    else:  # (every weight 1: each resample's weights sum to the number of items, exactly)
        n = float(n_items)
        va, vb = sa.sum() / n, sb.sum() / n
        sum_b, sum_a = bootstrap_sums([sb, sa], n_boot, seed)
        reps = sum_b / n - sum_a / n
    est = _difference(metric, n_items, SCORED, boot, MEANS, float(vb - va), percentile(reps))
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
    category table by run and dimension (:func:`analysis.compare.items.category_parts`); with
    ``dimension``, only that dimension's rows (what one leaderboard column asks)."""
    key = {"run_a": a, "run_b": b, "condition": condition, "role": role}

    def wanted(dim: str) -> bool:
        return dimension is None or dim == dimension

    def rows():
        dims = tuple(d for d in (*DIMENSIONS, ACTION_TYPE) if wanted(d))
        if dims:
            yield from _category_rows(parts, a, b, key, n_boot, seed, dims, condition, role, items)
        ia, ib = items[a], items[b]
        for task, dim in ((task, names[3]) for task, names in TEXTS.items() if wanted(names[3])):
            both_sim = f"sim_{dim}" in ia.frame(task) and f"sim_{dim}" in ib.frame(task)
            metrics = ["rouge_l"] + (["similarity"] if similarity and both_sim else [])
            cols = ["h_row", *(_text_column(m, dim) for m in metrics)]
            fa, fb = (_kept_scope(it, partial(it.text_scores, task), condition, role, cols) for it in (ia, ib))
            if fa.empty or fb.empty:
                continue
            for m in metrics:
                yield _paired_means(fa, fb, _text_column(m, dim), None, {**key, "dimension": dim}, m, n_boot, seed)
        cols = ["h_row", "draw_score", "draw_cells"]
        fa, fb = (_kept_scope(it, lambda it=it: it.na, condition, role, cols) for it in (ia, ib))
        if wanted("drawing") and not fa.empty and not fb.empty:
            yield _paired_means(
                fa, fb, "draw_score", "draw_cells", {**key, "dimension": "drawing"}, "drawing", n_boot, seed
            )

    return EstimateTable.build(rows(), KEYS, title=f"{b} against {a}")
