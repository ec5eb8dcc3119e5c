"""Fleiss' kappa (Fleiss 1971): its one formula, the per-category kappas, the bootstrap
interval, and kappa's drift as coding proceeds.

On n items each labelled by the same m coders, with x_ij the number of coders who put item i in
category j:

    P_i   = (sum_j x_ij^2 - m) / (m (m - 1))          agreement on item i
    p_j   = sum_i x_ij / (n m)                         share of category j
    kappa = (mean_i P_i - sum_j p_j^2) / (1 - sum_j p_j^2)

:func:`kappa_from_sums` is that formula on its sufficient sums, vectorized: the point estimate,
every bootstrap resample (weighted sums) and every prefix of the coding order (cumulative sums)
go through it. It equals ``statsmodels.stats.inter_rater.fleiss_kappa`` (tested). Items not
labelled by every coder are left out (counted in ``n_dropped``). The asymptotic standard error of
Fleiss (1971) and Fleiss, Nee & Landis (1979) holds under kappa = 0 only, so the interval is a
bootstrap over items (:mod:`analysis.agreement.bootstrap`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from analysis.agreement import bootstrap
from analysis.agreement.table import LabelTable
from analysis.results import OURS, Estimate, Value
from corpus.values import Undefined

ALL_SAME = "every label is the same category"
DEFAULT_BOOTSTRAP = 1000


def kappa_from_sums(p_sum, sq_totals, n, m: int) -> np.ndarray:
    """Fleiss' kappa from its sufficient sums; NaN where every label is one category.

    ``p_sum``: sum of P_i over the items; ``sq_totals``: sum over categories of the squared
    category totals (sum_j (sum_i x_ij)^2); ``n``: items; ``m``: coders per item. Arrays
    broadcast: one kappa per resample, or per prefix.
    """
    n = np.asarray(n, dtype=float)
    p_e = np.asarray(sq_totals, dtype=float) / (n * m) ** 2
    ok = p_e < 1 - 1e-12
    return np.where(ok, (np.asarray(p_sum) / n - p_e) / np.where(ok, 1 - p_e, 1.0), np.nan)


def _with_column(counts, column: np.ndarray):
    """The count table with one more column (dense or sparse, as the table is)."""
    if isinstance(counts, np.ndarray):
        return np.column_stack([counts, column])
    from scipy import sparse

    return sparse.hstack([counts, sparse.csr_array(column[:, None])], format="csr")


def _agreement_per_item(table: LabelTable) -> np.ndarray:
    """P_i of every item (meaningful on the complete ones)."""
    m = table.n_coders
    return (table.per_item(table.cell_count.astype(float) ** 2) - m) / (m * (m - 1))


@dataclass(frozen=True, kw_only=True)
class FleissResult(Estimate):
    n_dropped: int  # items left out: not labelled by every coder
    n_coders: int
    p_observed: Value
    p_expected: Value
    per_category: dict[str, Value] = field(default_factory=dict)

    def category_estimates(self) -> list[Estimate]:
        """The per-category kappas as estimates (kappa of each category against all others)."""
        return [
            Estimate(
                key=f"fleiss_kappa[{c}]",
                statistic=f"Fleiss' kappa of {c}",
                estimate=v,
                n=self.n,
                n_of=self.n_of,
                method="Fleiss (1971) kappa of one category against the rest",
                computed_by=self.computed_by,
                package=self.package,
                checked_against=self.checked_against,
            )
            for c, v in self.per_category.items()
        ]


def fleiss(
    table: LabelTable, *, n_boot: int = DEFAULT_BOOTSTRAP, seed: int | None = 0, confidence: float = 0.95
) -> FleissResult:
    """Fleiss' kappa on the items labelled by every coder, per-category kappas and a bootstrap
    interval (``n_boot=0``: none)."""
    settings = bootstrap.Replicates(n_boot, seed, confidence)
    full = table.complete
    n, m = int(full.sum()), table.n_coders
    if m < 2 or n == 0:
        return fleiss_point(n, m, table.n_items, np.zeros(0), 0.0, np.zeros(0), table.category_names(), settings)
    in_full = full[table.cell_item]
    count = table.cell_count.astype(float)
    totals = table.per_category(count, in_full)
    p_i = _agreement_per_item(table)[full]
    squares = table.per_category(count**2, in_full)
    point = fleiss_point(n, m, table.n_items, totals, float(p_i.sum()), squares, table.category_names(), settings)
    if not point.defined:
        return point
    sums = _with_column(table.count_table(full), p_i)  # category totals and P_i in one product

    def resampled(w: np.ndarray) -> np.ndarray:
        tot = np.asarray(w @ sums)
        return kappa_from_sums(tot[:, -1], (tot[:, :-1] ** 2).sum(axis=1), n, m)

    se, ci = bootstrap.replicate(resampled, n, settings, "kappa", width=table.n_categories)
    return replace(point, se=se, interval=ci)


def fleiss_point(
    n: int,
    m: int,
    n_items: int,
    totals: np.ndarray,
    p_sum: float,
    squares: np.ndarray,
    categories: list[str],
    settings: bootstrap.Replicates,
    computed_by: str = "analysis.agreement.fleiss (vectorized)",
) -> FleissResult:
    """Fleiss' kappa and the per-category kappas from their sums over the ``n`` items coded by all
    ``m`` coders (of ``n_items``): per category the labels (``totals``) and the sum of squared counts
    (``squares``), and the items' agreement ``p_sum`` (sum of P_i); no interval."""
    base: dict[str, Any] = dict(
        key="fleiss_kappa",
        statistic="Fleiss' kappa",
        n=n,
        n_of="items coded by every coder",
        n_dropped=n_items - n,
        n_coders=m,
        method="Fleiss (1971) kappa on the items labelled by every coder",
        computed_by=computed_by,
        package=OURS,
        checked_against="statsmodels.stats.inter_rater.fleiss_kappa",
        **settings.estimate_fields(),
    )
    reason = (
        "Fleiss' kappa needs two or more coders" if m < 2 else ("no item was coded by every coder" if n == 0 else None)
    )
    if reason:
        return FleissResult.undefined(
            reason,
            **base,
            p_observed=Undefined(reason),
            p_expected=Undefined(reason),
            per_category={c: Undefined(reason) for c in categories},
        )
    kappa = float(kappa_from_sums(p_sum, totals @ totals, n, m))
    p = totals / (n * m)
    # Fleiss (1971): kappa_j = 1 - sum_i x_ij (m - x_ij) / (n m (m - 1) p_j q_j)
    disagree = m * totals - squares
    per_cat: dict[str, Value] = {}
    for j, c in enumerate(categories):
        if p[j] <= 0:
            per_cat[c] = Undefined("the category was never used")
        elif p[j] >= 1:
            per_cat[c] = Undefined(ALL_SAME)
        else:
            per_cat[c] = float(1 - disagree[j] / (n * m * (m - 1) * p[j] * (1 - p[j])))
    observed, expected = p_sum / n, float(p @ p)
    if np.isnan(kappa):
        return FleissResult.undefined(ALL_SAME, **base, p_observed=observed, p_expected=expected, per_category=per_cat)
    return FleissResult(**base, estimate=kappa, p_observed=observed, p_expected=expected, per_category=per_cat)


def _prefix_squared_totals(table: LabelTable, pos: np.ndarray) -> np.ndarray:
    """For every s: the sum over categories of the squared category totals of the items at
    ``pos[:s]``."""
    counts = table.count_table()
    if isinstance(counts, np.ndarray):
        cum = np.cumsum(counts[pos], axis=0)
        return (cum * cum).sum(axis=1)
    # Without an items x categories table: each cell adds count * (2 * its category's total
    # before it + count).
    rank = np.full(table.n_items, -1)
    rank[pos] = np.arange(len(pos))
    cells = np.flatnonzero(rank[table.cell_item] >= 0)
    r, cat, cnt = rank[table.cell_item[cells]], table.cell_category[cells], table.cell_count[cells].astype(float)
    by = np.lexsort((r, cat))
    r, cat, cnt = r[by], cat[by], cnt[by]
    before = np.cumsum(cnt) - cnt
    first_of_cat = np.r_[True, cat[1:] != cat[:-1]]
    before -= np.maximum.accumulate(np.where(first_of_cat, before, 0))
    return np.cumsum(np.bincount(r, weights=cnt * (2 * before + cnt), minlength=len(pos)))


def kappa_drift(table: LabelTable, order: str | Sequence[Any] | None = None, step: int = 20) -> pd.DataFrame:
    """Fleiss' kappa over the first ``step``, 2 ``step``, ... items labelled by every coder.

    ``order`` puts the items in coding order: ``None`` keeps the order in which items first
    appear in the table; a column name of the table's frame (e.g. a timestamp) orders items by
    that column's largest value per item (when the item's last label came in); a sequence of item
    keys gives the order directly (items not in it are left out). The last row covers all items
    even when their number is not a multiple of ``step``.

    Columns: n_items, kappa (NaN where undefined), reason (why undefined, else None).
    """
    if step < 1:
        raise ValueError("step must be 1 or more")
    if order is None:
        pos = np.arange(table.n_items)
    else:
        if isinstance(order, str):
            pos = table.latest(order).sort_values(kind="stable").index.to_numpy()
        else:
            pos = table.items.get_indexer(pd.Index(list(order)))
            pos = pos[pos >= 0]
    pos = pos[table.complete[pos]]
    cols = ["n_items", "kappa", "reason"]
    m = table.n_coders
    if len(pos) == 0 or m < 2:
        return pd.DataFrame(columns=cols)
    sq = _prefix_squared_totals(table, pos)
    p_sum = np.cumsum(_agreement_per_item(table)[pos])
    sizes = list(range(step, len(pos) + 1, step))
    if not sizes or sizes[-1] != len(pos):
        sizes.append(len(pos))
    s = np.asarray(sizes)
    kappa = kappa_from_sums(p_sum[s - 1], sq[s - 1], s, m)
    return pd.DataFrame(
        {"n_items": s, "kappa": kappa, "reason": [ALL_SAME if np.isnan(k) else None for k in kappa]}, columns=cols
    )
