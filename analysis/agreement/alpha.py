"""Krippendorff's alpha at the nominal, ordinal, interval and ratio levels, with a bootstrap
interval, and the coincidence matrix.

alpha = 1 - (N - 1) D_o / D_e (Krippendorff 2011), over the items with two or more labels
(the pairable ones; N labels in them), with a distance d(c, k) between categories:

- nominal: 1 if c != k; ordinal: (g_k - g_c)^2 with g_c = (labels in categories up to c) - n_c / 2,
  the category's mid-rank in the order given; interval: (v_c - v_k)^2 on numeric labels; ratio:
  ((v_c - v_k) / (v_c + v_k))^2 on numeric labels of zero or more.
- D_o = sum_u sum_(c,k) n_uc n_uk d(c, k) / (m_u - 1), D_e = sum_(c,k) n_c n_k d(c, k).

The number is computed by ``krippendorff.alpha`` when its arrays fit (it builds items x
categories x categories); beyond :data:`PACKAGE_MAX_CELLS` by this module from per-item sums,
which need no category x category array (tested equal to the package). The bootstrap uses the
same per-item sums. Only the ratio level's expected disagreement needs the category x category
distances: it is refused above :data:`RATIO_MAX_CATEGORIES` categories in use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from analysis.agreement import bootstrap
from analysis.agreement.fleiss import ALL_SAME, DEFAULT_BOOTSTRAP
from analysis.agreement.table import DENSE_CELLS, LabelTable, LabelTableError, MatrixTooLarge, check_matrix_size
from analysis.results import OURS, Estimate
from corpus.values import Undefined

LEVELS = ("nominal", "ordinal", "interval", "ratio")
NO_PAIRS = "no item has labels from two or more coders"
PACKAGE_MAX_CELLS = 4_000_000  # pairable items x categories^2 up to which krippendorff.alpha is called
RATIO_MAX_CATEGORIES = 2_000  # categories in use up to which the ratio level's distances are held


def _squared_differences(table: LabelTable, items: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Per pairable item: sum_(c,k) n_uc n_uk (g_c - g_k)^2 / (m_u - 1), for one set of
    category values ``g`` (length: categories) or several (resamples x categories: one column per
    resample)."""
    counts = table.count_table(items)
    m = np.asarray(counts.sum(axis=1)).ravel()
    s1, s2 = np.asarray(counts @ g.T), np.asarray(counts @ (g * g).T)
    mm = m if s1.ndim == 1 else m[:, None]
    return 2 * (mm * s2 - s1 * s1) / (mm - 1)


def _ratio_distances(v: np.ndarray) -> np.ndarray:
    total = v[:, None] + v[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total != 0, ((v[:, None] - v[None, :]) / total) ** 2, 0.0)


def _disagreement_per_item(table: LabelTable, items: np.ndarray, level: str, v: np.ndarray) -> np.ndarray:
    """D_o's per-item terms for the levels whose distances do not depend on the data."""
    if level == "interval":
        return _squared_differences(table, items, v)
    sel = items[table.cell_item]
    cnt, item = table.cell_count[sel].astype(float), table.cell_item[sel]
    m = np.bincount(item, weights=cnt, minlength=table.n_items)
    if level == "nominal":
        same = np.bincount(item, weights=cnt * cnt, minlength=table.n_items)
        return ((m * m - same) / np.where(m > 1, m - 1, 1))[items]
    left, right = cell_pairs(table, items)  # ratio
    d = _ratio_distances(v)[table.cell_category[left], table.cell_category[right]]
    num = np.bincount(
        table.cell_item[left], weights=table.cell_count[left] * table.cell_count[right] * d, minlength=table.n_items
    )
    return (num / np.where(m > 1, m - 1, 1))[items]


def _expected(n_c: np.ndarray, level: str, v: np.ndarray) -> np.ndarray:
    """D_e from the category totals (one row per resample, or one vector)."""
    total = n_c.sum(axis=-1)
    if level == "nominal":
        return total**2 - (n_c * n_c).sum(axis=-1)
    if level == "ratio":
        used = np.flatnonzero(n_c.reshape(-1, n_c.shape[-1]).sum(axis=0) > 0)
        d = _ratio_distances(v[used])
        x = n_c[..., used]
        return ((x @ d) * x).sum(axis=-1)
    g = mid_ranks(n_c) if level == "ordinal" else v
    return 2 * (total * (n_c * g * g).sum(axis=-1) - (n_c * g).sum(axis=-1) ** 2)


def mid_ranks(n_c: np.ndarray) -> np.ndarray:
    """The ordinal level's category values: labels in the categories up to c, less half of c's."""
    return np.cumsum(n_c, axis=-1) - n_c / 2


def _alpha(d_o: np.ndarray, d_e: np.ndarray, total: np.ndarray) -> np.ndarray:
    ok = (d_e > 1e-12) & (total >= 2)
    return np.where(ok, 1 - (total - 1) * d_o / np.where(ok, d_e, 1.0), np.nan)


@dataclass(frozen=True, kw_only=True)
class AlphaResult(Estimate):
    level: str
    n_pairable: int  # labels in the pairable items


def _check(level: str, table: LabelTable, n_c: np.ndarray) -> np.ndarray:
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    v = table.values(level)
    if level == "ratio":
        if (v < 0).any():
            raise LabelTableError(
                "ratio level needs labels of zero or more; these include "
                + ", ".join(map(str, table.categories[v < 0][:5])),
                table.label_col,
            )
        check_matrix_size(int((n_c > 0).sum()), RATIO_MAX_CATEGORIES, "the ratio level's distance matrix")
    return v


def _base(
    level: str, n_items: int, n_c: np.ndarray, settings: bootstrap.Replicates, computed_by: str, package: bool
) -> dict[str, Any]:
    return dict(
        key="krippendorff_alpha",
        statistic=f"Krippendorff's alpha ({level})",
        level=level,
        n=n_items,
        n_of="items with two or more labels",
        n_pairable=int(n_c.sum()),
        method=f"Krippendorff (2011) alpha, {level} distances, missing labels allowed",
        computed_by=computed_by,
        package="krippendorff" if package else OURS,
        checked_against="" if package else "krippendorff.alpha",
        **settings.estimate_fields(),
    )


def nominal_point(n_items: int, d_o: float, n_c: np.ndarray, computed_by: str) -> AlphaResult:
    """Nominal alpha from its sums over the ``n_items`` items with two or more labels: the observed
    disagreement ``d_o`` (sum over items of (m^2 - sum_c n_c^2) / (m - 1)) and the category totals
    ``n_c``; no interval."""
    base = _base("nominal", n_items, n_c, bootstrap.Replicates(0, None, 0.95), computed_by, False)
    reason = NO_PAIRS if n_items == 0 else ALL_SAME if (n_c > 0).sum() < 2 else None
    if reason:
        return AlphaResult.undefined(reason, **base)
    no = Undefined(bootstrap.NOT_RUN)
    return AlphaResult(
        **base, estimate=float(_alpha(np.asarray(d_o), _expected(n_c, "nominal", n_c), n_c.sum())), se=no, interval=no
    )


def krippendorff_alpha(
    table: LabelTable,
    *,
    level: str = "nominal",
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> AlphaResult:
    """Krippendorff's alpha at ``level`` with a bootstrap interval over the pairable items.

    Ordinal takes the categories in the table's order (give ``categories`` to the
    :class:`LabelTable` when the labels do not sort by themselves); interval and ratio need numeric
    labels (ratio: zero or more).
    """
    settings = bootstrap.Replicates(n_boot, seed, confidence)
    items = table.n_per_item >= 2
    n_c = table.per_category(table.cell_count.astype(float), items[table.cell_item])
    v = _check(level, table, n_c)
    n_items, used = int(items.sum()), n_c > 0
    use_package = n_items * int(used.sum()) ** 2 <= PACKAGE_MAX_CELLS
    base = _base(
        level,
        n_items,
        n_c,
        settings,
        "krippendorff.alpha" if use_package else "analysis.agreement.krippendorff_alpha (per-item sums)",
        use_package,
    )
    reason = (
        NO_PAIRS
        if n_items == 0
        else ALL_SAME
        if used.sum() < 2
        else (
            "every label has the same value" if level in ("interval", "ratio") and np.unique(v[used]).size < 2 else None
        )
    )
    if reason:
        return AlphaResult.undefined(reason, **base)
    counts = table.count_table(items)
    if use_package:
        import krippendorff

        used_counts = counts[:, used]
        used_counts = used_counts.toarray() if hasattr(used_counts, "toarray") else used_counts
        checked_level = cast(Literal["nominal", "ordinal", "interval", "ratio"], level)  # _check accepted it
        a = float(
            krippendorff.alpha(value_counts=used_counts, value_domain=v[used], level_of_measurement=checked_level)
        )
    else:
        a = float(_alpha_of(table, items, level, v, n_c))
    resampled = resampler(table, items, level, v, counts)
    se, ci = bootstrap.replicate(resampled, n_items, settings, "alpha", width=table.n_categories)
    return AlphaResult(**base, estimate=a, se=se, interval=ci)


def resampler(
    table: LabelTable, items: np.ndarray, level: str, v: np.ndarray, counts
) -> Callable[[np.ndarray], np.ndarray]:
    """Alpha of resamples: a function of item weights (resamples x pairable items, how often each
    item is drawn) giving one alpha per resample (NaN where undefined)."""
    fixed = None if level == "ordinal" else _disagreement_per_item(table, items, level, v)

    def resampled(w: np.ndarray) -> np.ndarray:
        n_cb = np.asarray(w @ counts)
        d_o = (
            w @ fixed if fixed is not None else (w * _squared_differences(table, items, mid_ranks(n_cb)).T).sum(axis=1)
        )
        return _alpha(d_o, _expected(n_cb, level, v), n_cb.sum(axis=1))

    return resampled


def _alpha_of(table: LabelTable, items: np.ndarray, level: str, v: np.ndarray, n_c: np.ndarray) -> float:
    """Alpha from per-item sums (no category x category array but the ratio level's distances)."""
    if level == "ordinal":
        d_o = _squared_differences(table, items, mid_ranks(n_c)).sum()
    else:
        d_o = _disagreement_per_item(table, items, level, v).sum()
    return float(_alpha(np.asarray(d_o), _expected(n_c, level, v), n_c.sum()))


# -- the coincidence matrix ---------------------------------------------------------------------


def cell_pairs(table: LabelTable, items: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every ordered pair of cells (same item, any two categories, a cell with itself included)
    of the selected items: two arrays of cell positions."""
    sel = np.flatnonzero(items[table.cell_item])
    item = table.cell_item[sel]
    per_item = np.bincount(item, minlength=table.n_items)
    start = np.cumsum(per_item) - per_item  # first position in ``sel`` of each item's cells
    reps = per_item[item]
    left = np.repeat(np.arange(len(sel)), reps)
    offset = np.arange(len(left)) - np.repeat(np.cumsum(reps) - reps, reps)
    right = start[item[left]] + offset
    return sel[left], sel[right]


def coincidences(table: LabelTable) -> pd.DataFrame:
    """Krippendorff's coincidence matrix without its zeros: one row per pair of categories
    (category_a, category_b, value), o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (n_u - 1)."""
    items = table.n_per_item >= 2
    left, right = cell_pairs(table, items)
    m = table.n_per_item[table.cell_item[left]].astype(float)
    a, b = table.cell_category[left], table.cell_category[right]
    cl, cr = table.cell_count[left].astype(float), table.cell_count[right].astype(float)
    value = (cl * cr - np.where(a == b, cl, 0.0)) / (m - 1)
    k = table.n_categories
    if k * k <= DENSE_CELLS:
        total = np.bincount(a * k + b, weights=value, minlength=k * k)
        keys = np.arange(k * k)
    else:
        keys, inverse = np.unique(a * k + b, return_inverse=True)
        total = np.bincount(inverse, weights=value)
    keep = total > 0
    names = np.asarray(table.category_names(), dtype=object)
    return pd.DataFrame(
        {"category_a": names[keys[keep] // k], "category_b": names[keys[keep] % k], "value": total[keep]}
    )


def coincidence_matrix(table: LabelTable) -> pd.DataFrame:
    """The coincidence matrix as a categories x categories table (refused above
    :data:`analysis.agreement.table.MAX_MATRIX_CATEGORIES` categories: use :func:`coincidences`)."""
    check_matrix_size(table.n_categories, what="the coincidence matrix")
    names = table.category_names()
    long = coincidences(table)
    out = pd.DataFrame(0.0, index=names, columns=names)
    for a, b, v in long.itertuples(index=False):
        out.at[a, b] = v
    return out


__all__ = [
    "LEVELS",
    "NO_PAIRS",
    "AlphaResult",
    "krippendorff_alpha",
    "coincidences",
    "coincidence_matrix",
    "cell_pairs",
    "mid_ranks",
    "MatrixTooLarge",
]
