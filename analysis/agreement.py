"""Inter-coder agreement on coded labels.

Every function takes a long table with one row per (item, coder) label -- columns ``item``,
``coder`` and ``label`` by default, renamed with ``item_col`` / ``coder_col`` / ``label_col`` --
or a :class:`Labels` built once from it with :func:`labels_from_frame` (cheaper when several
statistics are wanted). ``item_col`` may name several columns (a list, or ``"a,b"``): the item key
is then the values joined by ``:``, e.g. ``SESSION:INDEX`` for ``session_id,action_index``.

The first step is always the same: items x coders matrix of category codes, and from it the
items x categories count table (``Labels.counts``, built with ``np.bincount``). The statistics:

- :func:`fleiss`: Fleiss' kappa (Fleiss 1971) on the items coded by every coder, the per-category
  kappas kappa_j of Fleiss (1971), and a standard error and 95 % interval from a bootstrap over
  items (percentile interval, seeded). The asymptotic standard error of Fleiss (1971) and of
  Fleiss, Nee & Landis (1979) holds under the null hypothesis kappa = 0 only, so it is not used
  for an interval. The value equals ``statsmodels.stats.inter_rater.fleiss_kappa``.
- :func:`krippendorff_alpha`: Krippendorff's alpha from the ``krippendorff`` package (nominal by
  default; ordinal and interval; missing labels allowed), with a bootstrap interval over the items
  that carry two or more labels. The bootstrap recomputes alpha from the resampled coincidence
  matrix (:func:`alpha_from_coincidences`, equal to the package on the same data).
- :func:`percent_agreement`: per item, the share of agreeing coder pairs; averaged over items with
  two or more labels.
- :func:`pairwise_cohen`: Cohen's kappa for every pair of coders on the items both coded (same
  value as ``sklearn.metrics.cohen_kappa_score``) and their mean.
- :func:`gwet_ac1`: Gwet's AC1 for any number of raters and missing labels (Gwet 2008, 2014):
  pa over items with two or more labels, category prevalences pi_k averaged over items with at
  least one label, pe = sum_k pi_k (1 - pi_k) / (Q - 1) with Q the number of categories.
- :func:`diagnostics`: prevalence skew and the kappa paradox, coder bias (each coder's category
  distribution, chi-square test of coder x category), sparse categories, too few items.
- :func:`coincidence_matrix`, :func:`confusion_matrix`, :func:`most_disagreed`,
  :func:`kappa_drift`, :func:`coder_vs_gold`, :func:`panel` (the numbers of the live panel) and
  :func:`report` (everything, JSON-serialisable).

A statistic that has no value on the data (every label the same category, no item coded by two
coders, ...) is returned as :class:`Undefined` with the reason, never as 0 or NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Mapping, Sequence

import krippendorff
import numpy as np
import pandas as pd

from corpus.consensus import majority
from corpus.values import Undefined, is_defined  # noqa: F401 - re-exported

LEVELS = ("nominal", "ordinal", "interval")

# Diagnostic thresholds.
PARADOX_AGREEMENT = 0.80  # percent agreement at or above this ...
PARADOX_KAPPA = 0.40  # ... with kappa below this: the kappa paradox (skewed prevalence)
SKEWED_PREVALENCE = 0.80  # share of the most common category that counts as skewed
SPARSE_USES = 5  # a category used fewer times than this is sparse
FEW_ITEMS = 30  # fewer items than this give a wide interval

DEFAULT_BOOTSTRAP = 1000


class LabelTableError(ValueError):
    """The label table cannot be used: names the column at fault."""

    def __init__(self, message: str, column: str | None = None):
        super().__init__(message)
        self.column = column


Value = float | Undefined

ALL_SAME = "every label is the same category"
NO_PAIRS = "no item has labels from two or more coders"


# -- the label table -------------------------------------------------------------------------


def item_columns(item_col: str | Sequence[str]) -> list[str]:
    """``"a,b"`` or ``["a", "b"]`` -> ``["a", "b"]``."""
    if isinstance(item_col, str):
        return [c.strip() for c in item_col.split(",") if c.strip()]
    return list(item_col)


def item_keys(df: pd.DataFrame, item_col: str | Sequence[str] = "item") -> pd.Series:
    """One key per row; several item columns are joined with ``:`` (``SESSION:INDEX``)."""
    cols = item_columns(item_col)
    if len(cols) == 1:
        return df[cols[0]]
    key = df[cols[0]].astype(str)
    for c in cols[1:]:
        key = key + ":" + df[c].astype(str)
    return key


def _factorize_sorted(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    try:
        codes, uniques = pd.factorize(values, sort=True)
    except TypeError:  # mixed types: order by their text
        codes, uniques = pd.factorize(values.astype(str), sort=True)
    return codes, pd.Index(uniques)


@dataclass(frozen=True, eq=False)
class Labels:
    """Items x coders matrix of category codes (-1 = not coded by that coder).

    ``items`` are in order of first appearance in the table (the coding order), ``coders`` and
    ``categories`` sorted unless categories were given.
    """

    items: pd.Index
    coders: pd.Index
    categories: pd.Index
    codes: np.ndarray
    n_duplicates: int = 0  # (item, coder) pairs labelled more than once: the last label was kept

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_coders(self) -> int:
        return len(self.coders)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @cached_property
    def coded(self) -> np.ndarray:
        return self.codes >= 0

    @cached_property
    def counts(self) -> np.ndarray:
        """Items x categories: how many coders gave each category to each item."""
        n, k = self.codes.shape[0], self.n_categories
        flat = self.codes.ravel()
        mask = flat >= 0
        rows = np.repeat(np.arange(n, dtype=np.int64), self.codes.shape[1])[mask]
        return np.bincount(rows * k + flat[mask], minlength=n * k).reshape(n, k)

    @cached_property
    def n_per_item(self) -> np.ndarray:
        return self.coded.sum(axis=1)

    @cached_property
    def complete(self) -> np.ndarray:
        """Items labelled by every coder."""
        return self.n_per_item == self.n_coders

    def subset(self, items: np.ndarray | None = None, coders: Sequence[str] | None = None) -> Labels:
        """The same table restricted to some items (boolean mask or positions) and/or coders."""
        codes = self.codes
        item_index, coder_index = self.items, self.coders
        if items is not None:
            codes = codes[items]
            item_index = item_index[items]
        if coders is not None:
            pos = self.coders.get_indexer(list(coders))
            if (pos < 0).any():
                missing = [c for c, p in zip(coders, pos) if p < 0]
                raise KeyError(f"no coder {missing[0]!r} in the labels")
            codes = codes[:, pos]
            coder_index = self.coders[pos]
        return Labels(item_index, coder_index, self.categories, codes, self.n_duplicates)

    def category_values(self, level: str = "nominal") -> np.ndarray:
        """The value domain for Krippendorff's alpha at ``level`` (numbers for interval)."""
        if level == "interval":
            try:
                return pd.to_numeric(pd.Series(self.categories)).to_numpy(dtype=float)
            except (ValueError, TypeError):
                raise LabelTableError("interval level needs numeric labels; these are not: "
                                      + ", ".join(map(str, self.categories[:5]))) from None
        return np.arange(self.n_categories)


def labels_from_frame(
    df: pd.DataFrame,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
    categories: Sequence[Any] | None = None,
) -> Labels:
    """Build the items x coders code matrix from a long table.

    Rows with an empty label are ignored. A coder labelling the same item twice keeps the last
    label (counted in ``n_duplicates``). ``categories`` fixes the category set and its order
    (needed for ordinal data whose labels do not sort by themselves); a label outside it is an
    error.
    """
    cols = item_columns(item_col)
    for c in (*cols, coder_col, label_col):
        if c not in df.columns:
            raise LabelTableError(f"missing column {c!r} (columns: {', '.join(map(str, df.columns))})", c)
    for c in (*cols, coder_col):
        if len(df) and df[c].isna().any():
            row = int(np.flatnonzero(df[c].isna().to_numpy())[0])
            raise LabelTableError(f"empty value in column {c!r} (row {row + 1})", c)

    lab = df[label_col]
    keep = np.array(lab.notna(), dtype=bool)
    if lab.dtype == object or pd.api.types.is_string_dtype(lab.dtype):
        keep &= (lab.astype(str).str.strip() != "").to_numpy()
    if not keep.all():
        df = df[keep]
        lab = df[label_col]

    item_idx, items = pd.factorize(item_keys(df, cols), sort=False)
    coder_idx, coders = _factorize_sorted(df[coder_col])
    if categories is None:
        cat_idx, cats = _factorize_sorted(lab)
    else:
        cats = pd.Index(list(categories))
        if cats.has_duplicates:
            raise LabelTableError("the category list names a category twice", label_col)
        cat_idx = cats.get_indexer(lab)
        if (cat_idx < 0).any():
            bad = lab[cat_idx < 0].iloc[0]
            raise LabelTableError(f"label {bad!r} in column {label_col!r} is not one of the categories "
                                  f"({', '.join(map(str, cats))})", label_col)
    n, c = len(items), len(coders)
    flat = item_idx.astype(np.int64) * c + coder_idx
    n_dup = 0
    if len(flat) and np.bincount(flat, minlength=n * c).max() > 1:
        _, first_from_end = np.unique(flat[::-1], return_index=True)
        last = len(flat) - 1 - first_from_end
        n_dup = len(flat) - len(last)
        item_idx, coder_idx, cat_idx = item_idx[last], coder_idx[last], cat_idx[last]
    codes = np.full((n, c), -1, dtype=np.int64)
    codes[item_idx, coder_idx] = cat_idx
    return Labels(pd.Index(items), pd.Index(coders), cats, codes, n_dup)


def _as_labels(data: pd.DataFrame | Labels, item_col, coder_col, label_col, categories=None) -> Labels:
    if isinstance(data, Labels):
        return data
    return labels_from_frame(data, item_col, coder_col, label_col, categories)


def _bootstrap_weights(rng: np.random.Generator, n: int, n_boot: int, max_cells: int = 2_000_000) -> Iterable[np.ndarray]:
    """How often each of ``n`` items is drawn in each of ``n_boot`` resamples.

    Yields (resamples x items) blocks of at most ``max_cells`` cells; the rows over all blocks are
    the ``n_boot`` resamples in order.
    """
    per_block = max(1, max_cells // max(n, 1))
    done = 0
    while done < n_boot:
        b = min(per_block, n_boot - done)
        idx = rng.integers(0, n, (b, n)) + (np.arange(b, dtype=np.int64) * n)[:, None]
        yield np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(float)
        done += b


def _percentile_ci(reps: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(reps, [tail, 100 - tail])
    return float(lo), float(hi)


# -- Fleiss' kappa -------------------------------------------------------------------------------


def fleiss_kappa_table(table: np.ndarray) -> Value:
    """Fleiss' kappa of an items x categories count table with the same number of ratings per item."""
    t = np.asarray(table, dtype=float)
    if t.ndim != 2 or t.shape[0] == 0:
        return Undefined("no item was coded by every coder")
    m = t.sum(axis=1)
    if not np.allclose(m, m[0]):
        raise ValueError("every item needs the same number of ratings for Fleiss' kappa")
    m = m[0]
    if m < 2:
        return Undefined("Fleiss' kappa needs two or more coders per item")
    n = t.shape[0]
    p = t.sum(axis=0) / (n * m)
    p_e = float(p @ p)
    if p_e >= 1 - 1e-12:
        return Undefined(ALL_SAME)
    p_bar = float(((t * t).sum(axis=1) - m).sum() / (n * m * (m - 1)))
    return (p_bar - p_e) / (1 - p_e)


@dataclass(frozen=True)
class FleissResult:
    kappa: Value
    n_items: int  # items used: coded by every coder
    n_dropped: int  # items left out: not coded by every coder
    n_coders: int
    p_observed: Value
    p_expected: Value
    se: Value
    ci: tuple[float, float] | Undefined
    per_category: dict[str, Value]
    n_boot: int
    seed: int | None
    confidence: float
    se_method: str = "bootstrap over items (percentile interval)"


def fleiss(
    data: pd.DataFrame | Labels,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> FleissResult:
    """Fleiss' kappa on the items coded by every coder, per-category kappas and a bootstrap CI.

    The standard error is the standard deviation of kappa over ``n_boot`` resamples of the items
    (with replacement), the interval their percentile interval; resamples in which kappa is
    undefined (every label one category) are left out. ``n_boot=0`` skips the bootstrap.
    """
    lab = _as_labels(data, item_col, coder_col, label_col)
    full = lab.complete
    t = lab.counts[full].astype(float)
    n, k = t.shape
    m = lab.n_coders
    base = dict(n_items=int(n), n_dropped=int(lab.n_items - n), n_coders=int(m), n_boot=int(n_boot), seed=seed,
                confidence=confidence)
    reason = None
    if m < 2:
        reason = "Fleiss' kappa needs two or more coders"
    elif n == 0:
        reason = "no item was coded by every coder"
    if reason:
        u = Undefined(reason)
        return FleissResult(kappa=u, p_observed=u, p_expected=u, se=u, ci=u,
                            per_category={str(c): u for c in lab.categories}, **base)

    p_i = ((t * t).sum(axis=1) - m) / (m * (m - 1))
    col = t.sum(axis=0)
    p = col / (n * m)
    p_e = float(p @ p)
    p_bar = float(p_i.mean())
    kappa: Value = Undefined(ALL_SAME) if p_e >= 1 - 1e-12 else (p_bar - p_e) / (1 - p_e)

    # Fleiss (1971): kappa_j = 1 - sum_i x_ij (m - x_ij) / (N m (m - 1) p_j q_j)
    per_cat: dict[str, Value] = {}
    disagree = (t * (m - t)).sum(axis=0)
    for j, c in enumerate(lab.categories):
        if p[j] <= 0:
            per_cat[str(c)] = Undefined("the category was never used")
        elif p[j] >= 1:
            per_cat[str(c)] = Undefined(ALL_SAME)
        else:
            per_cat[str(c)] = float(1 - disagree[j] / (n * m * (m - 1) * p[j] * (1 - p[j])))

    se: Value
    ci: tuple[float, float] | Undefined
    if not is_defined(kappa):
        se = ci = kappa
    elif n_boot <= 0:
        se = ci = Undefined("no bootstrap was run")
    elif n < 2:
        se = ci = Undefined("a bootstrap needs two or more items")
    else:
        rng = np.random.default_rng(seed)
        blocks = []
        for w in _bootstrap_weights(rng, n, n_boot):
            pb = (w @ t) / (n * m)
            pe_b = (pb * pb).sum(axis=1)
            ok = pe_b < 1 - 1e-12
            blocks.append(np.where(ok, ((w @ p_i) / n - pe_b) / np.where(ok, 1 - pe_b, 1.0), np.nan))
        reps = np.concatenate(blocks)
        reps = reps[~np.isnan(reps)]
        if len(reps) < 2:
            se = ci = Undefined("kappa is undefined in almost every bootstrap resample")
        else:
            se = float(reps.std(ddof=1))
            ci = _percentile_ci(reps, confidence)
    return FleissResult(kappa=kappa, p_observed=p_bar, p_expected=p_e, se=se, ci=ci, per_category=per_cat, **base)


# -- Krippendorff's alpha --------------------------------------------------------------------------


def _coincidences(counts: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Krippendorff's coincidence matrix from an items x categories table (items with >= 2 labels)."""
    t = np.asarray(counts, dtype=float)
    m = t.sum(axis=1)
    w = 1.0 / (m - 1)
    if weights is not None:
        w = w * weights
    tw = t * w[:, None]
    return tw.T @ t - np.diag(tw.sum(axis=0))


def _delta2(level: str, values: np.ndarray, n_c: np.ndarray) -> np.ndarray:
    if level == "nominal":
        return 1.0 - np.eye(len(n_c))
    if level == "interval":
        v = np.asarray(values, dtype=float)
        return (v[:, None] - v[None, :]) ** 2
    if level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        i = np.arange(len(n_c))
        lo, hi = np.minimum(i[:, None], i[None, :]), np.maximum(i[:, None], i[None, :])
        between = cum[hi + 1] - cum[lo]
        return (between - (n_c[:, None] + n_c[None, :]) / 2) ** 2
    raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")


def alpha_from_coincidences(o: np.ndarray, level: str = "nominal", values: np.ndarray | None = None) -> Value:
    """alpha = 1 - (n - 1) sum o_ck d_ck / sum n_c n_k d_ck (Krippendorff 2011)."""
    o = np.asarray(o, dtype=float)
    n_c = o.sum(axis=0)
    n = n_c.sum()
    if n < 2 - 1e-9:
        return Undefined(NO_PAIRS)
    if (n_c > 1e-9).sum() < 2:
        return Undefined(ALL_SAME)
    d = _delta2(level, np.arange(len(n_c)) if values is None else values, n_c)
    d_e = (np.outer(n_c, n_c) * d).sum()
    if d_e <= 0:
        return Undefined(ALL_SAME)
    return float(1 - (n - 1) * (o * d).sum() / d_e)


@dataclass(frozen=True)
class AlphaResult:
    alpha: Value
    level: str
    n_items: int  # items with two or more labels (the pairable ones)
    n_pairable: int  # labels in those items
    ci: tuple[float, float] | Undefined
    se: Value
    n_boot: int
    seed: int | None
    confidence: float


def krippendorff_alpha(
    data: pd.DataFrame | Labels,
    *,
    level: str = "nominal",
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
    categories: Sequence[Any] | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> AlphaResult:
    """Krippendorff's alpha (``krippendorff.alpha``) with a bootstrap interval over items.

    For ``ordinal``, categories are in the order of ``categories`` (or sorted); ``interval`` needs
    numeric labels. The bootstrap resamples the items carrying two or more labels.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    lab = _as_labels(data, item_col, coder_col, label_col, categories)
    t = lab.counts[lab.n_per_item >= 2]
    base = dict(level=level, n_items=int(t.shape[0]), n_pairable=int(t.sum()), n_boot=int(n_boot), seed=seed,
                confidence=confidence)
    values = lab.category_values(level)
    col = t.sum(axis=0)
    reason = None
    if t.shape[0] == 0:
        reason = NO_PAIRS
    elif (col > 0).sum() < 2:
        reason = ALL_SAME
    elif level == "interval" and np.unique(values[col > 0]).size < 2:
        reason = "every label has the same value"
    if reason:
        u = Undefined(reason)
        return AlphaResult(alpha=u, ci=u, se=u, **base)
    a = float(krippendorff.alpha(value_counts=t, value_domain=values, level_of_measurement=level))
    se: Value
    ci: tuple[float, float] | Undefined
    if n_boot <= 0:
        se = ci = Undefined("no bootstrap was run")
    elif t.shape[0] < 2:
        se = ci = Undefined("a bootstrap needs two or more items")
    else:
        rng = np.random.default_rng(seed)
        tf = t.astype(float)
        k = tf.shape[1]
        # Each item's own contribution to the coincidence matrix, flattened: a resample's matrix is
        # then one weighted sum (falls back to one resample at a time when that would be large).
        per_item = None
        if tf.shape[0] * k * k <= 20_000_000:
            mu = tf.sum(axis=1)
            per_item = (tf[:, :, None] * tf[:, None, :] - tf[:, :, None] * np.eye(k)[None]) / (mu - 1)[:, None, None]
            per_item = per_item.reshape(tf.shape[0], k * k)
        reps = []
        for w in _bootstrap_weights(rng, t.shape[0], n_boot):
            if per_item is not None:
                mats = (w @ per_item).reshape(-1, k, k)
            else:
                mats = [_coincidences(tf, row) for row in w]
            for o in mats:
                r = alpha_from_coincidences(o, level, values)
                reps.append(r if is_defined(r) else np.nan)
        reps = np.asarray(reps)
        reps = reps[~np.isnan(reps)]
        if len(reps) < 2:
            se = ci = Undefined("alpha is undefined in almost every bootstrap resample")
        else:
            se = float(reps.std(ddof=1))
            ci = _percentile_ci(reps, confidence)
    return AlphaResult(alpha=a, ci=ci, se=se, **base)


# -- percent agreement, Cohen's kappa, Gwet's AC1 -------------------------------------------------


def _item_agreement(counts: np.ndarray) -> np.ndarray:
    """Per item with >= 2 labels: the share of coder pairs that agree."""
    t = counts.astype(float)
    m = t.sum(axis=1)
    return (t * (t - 1)).sum(axis=1) / (m * (m - 1))


def percent_agreement(
    data: pd.DataFrame | Labels,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> Value:
    """Mean over items (with two or more labels) of the share of coder pairs that agree."""
    lab = _as_labels(data, item_col, coder_col, label_col)
    t = lab.counts[lab.n_per_item >= 2]
    if t.shape[0] == 0:
        return Undefined(NO_PAIRS)
    return float(_item_agreement(t).mean())


def cohen_kappa_codes(a: np.ndarray, b: np.ndarray, n_categories: int) -> tuple[Value, int]:
    """Cohen's kappa of two code vectors (-1 = missing) on the items both coded, and that count."""
    both = (a >= 0) & (b >= 0)
    n = int(both.sum())
    if n == 0:
        return Undefined("no item was coded by both coders"), 0
    k = n_categories
    cm = np.bincount(a[both] * k + b[both], minlength=k * k).reshape(k, k).astype(float)
    p_o = np.trace(cm) / n
    p_e = float(cm.sum(axis=1) @ cm.sum(axis=0)) / (n * n)
    if p_e >= 1 - 1e-12:
        return Undefined("both coders gave one and the same category to every shared item"), n
    return float((p_o - p_e) / (1 - p_e)), n


@dataclass(frozen=True)
class PairwiseCohen:
    matrix: pd.DataFrame  # coders x coders, NaN where undefined, 1 on the diagonal
    pairs: list[dict[str, Any]]  # coder_a, coder_b, kappa (float | Undefined), n_items
    mean: Value


def pairwise_cohen(
    data: pd.DataFrame | Labels,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> PairwiseCohen:
    """Cohen's kappa of every pair of coders on the items both coded, and the mean of the defined ones."""
    lab = _as_labels(data, item_col, coder_col, label_col)
    c = lab.n_coders
    mat = np.full((c, c), np.nan)
    np.fill_diagonal(mat, 1.0)
    pairs = []
    for i in range(c):
        for j in range(i + 1, c):
            kappa, n = cohen_kappa_codes(lab.codes[:, i], lab.codes[:, j], lab.n_categories)
            pairs.append({"coder_a": lab.coders[i], "coder_b": lab.coders[j], "kappa": kappa, "n_items": n})
            if is_defined(kappa):
                mat[i, j] = mat[j, i] = kappa
    defined = [p["kappa"] for p in pairs if is_defined(p["kappa"])]
    if c < 2:
        mean: Value = Undefined("Cohen's kappa needs two or more coders")
    elif not defined:
        mean = Undefined("Cohen's kappa is undefined for every pair of coders")
    else:
        mean = float(np.mean(defined))
    return PairwiseCohen(pd.DataFrame(mat, index=lab.coders, columns=lab.coders), pairs, mean)


def gwet_ac1(
    data: pd.DataFrame | Labels,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
    categories: Sequence[Any] | None = None,
) -> Value:
    """Gwet's AC1 for several raters with missing labels (Gwet 2008, eq. for multiple raters).

    pa = mean over items with r_i >= 2 labels of sum_k r_ik (r_ik - 1) / (r_i (r_i - 1));
    pi_k = mean over items with r_i >= 1 of r_ik / r_i; pe = sum_k pi_k (1 - pi_k) / (Q - 1),
    Q the number of categories (the given ``categories``, else those used).
    """
    lab = _as_labels(data, item_col, coder_col, label_col, categories)
    t = lab.counts.astype(float)
    m = t.sum(axis=1)
    q = lab.n_categories
    pair = m >= 2
    if not pair.any():
        return Undefined(NO_PAIRS)
    if q < 2:
        return Undefined(ALL_SAME)
    p_a = float(_item_agreement(t[pair]).mean())
    rated = m >= 1
    pi = (t[rated] / m[rated, None]).mean(axis=0)
    p_e = float((pi * (1 - pi)).sum() / (q - 1))
    return (p_a - p_e) / (1 - p_e)


# -- matrices and items --------------------------------------------------------------------------


def coincidence_matrix(
    data: pd.DataFrame | Labels,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> pd.DataFrame:
    """Krippendorff's coincidence matrix: o_ck = sum_u (n_uc n_uk - [c = k] n_uc) / (n_u - 1)."""
    lab = _as_labels(data, item_col, coder_col, label_col)
    t = lab.counts[lab.n_per_item >= 2]
    cats = [str(c) for c in lab.categories]
    return pd.DataFrame(_coincidences(t), index=cats, columns=cats)


def confusion_matrix(
    data: pd.DataFrame | Labels,
    coder_a: str,
    coder_b: str,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> pd.DataFrame:
    """Counts of (coder_a's label, coder_b's label) on the items both coded (rows: coder_a)."""
    lab = _as_labels(data, item_col, coder_col, label_col).subset(coders=[coder_a, coder_b])
    a, b = lab.codes[:, 0], lab.codes[:, 1]
    both = (a >= 0) & (b >= 0)
    k = lab.n_categories
    cm = np.bincount(a[both] * k + b[both], minlength=k * k).reshape(k, k)
    cats = [str(c) for c in lab.categories]
    return pd.DataFrame(cm, index=pd.Index(cats, name=str(coder_a)), columns=pd.Index(cats, name=str(coder_b)))


def item_agreement(
    data: pd.DataFrame,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> pd.DataFrame:
    """Per item: n_labels, agreement (the share of agreeing coder pairs; NaN with one label) and
    modal_code (the most given label; on a tie the first in sorted order)."""
    cols = ["item_id", "n_labels", "agreement", "modal_code"]
    if data.empty:
        return pd.DataFrame(columns=cols)
    lab = _as_labels(data, item_col, coder_col, label_col)
    t, n = lab.counts, lab.n_per_item
    with np.errstate(invalid="ignore", divide="ignore"):
        agree = np.where(n >= 2, _item_agreement(t), np.nan)
    return pd.DataFrame({"item_id": lab.items, "n_labels": n, "agreement": agree,
                         "modal_code": lab.categories[t.argmax(axis=1)]}, columns=cols)


def most_disagreed(
    data: pd.DataFrame | Labels,
    n: int | None = 20,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> pd.DataFrame:
    """Items on which coders disagree (two or more labels, not all the same), least agreement first.

    Columns: item, n_labels, n_distinct, agreement (share of agreeing coder pairs), modal_label,
    modal_share, labels ("coder=label; ..."). Ties are broken by more distinct labels, then more
    labels, then coding order.
    """
    lab = _as_labels(data, item_col, coder_col, label_col)
    keep = np.flatnonzero((lab.n_per_item >= 2) & ((lab.counts > 0).sum(axis=1) >= 2))
    t = lab.counts[keep]
    cols = ["item", "n_labels", "n_distinct", "agreement", "modal_label", "modal_share", "labels"]
    if len(keep) == 0:
        return pd.DataFrame(columns=cols)
    m = t.sum(axis=1)
    agreement = _item_agreement(t)
    distinct = (t > 0).sum(axis=1)
    order = np.lexsort((np.arange(len(keep)), -m, -distinct, agreement))
    if n is not None:
        order = order[:n]
    rows = []
    cats = lab.categories
    for r in order:
        i = keep[r]
        codes = lab.codes[i]
        rows.append({
            "item": lab.items[i],
            "n_labels": int(m[r]),
            "n_distinct": int(distinct[r]),
            "agreement": float(agreement[r]),
            "modal_label": cats[int(np.argmax(t[r]))],
            "modal_share": float(t[r].max() / m[r]),
            "labels": "; ".join(f"{lab.coders[c]}={cats[codes[c]]}" for c in np.flatnonzero(codes >= 0)),
        })
    return pd.DataFrame(rows, columns=cols)


# -- diagnostics -------------------------------------------------------------------------------


def coder_bias(
    data: pd.DataFrame | Labels,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> dict[str, Any]:
    """Marginal asymmetry: each coder's category distribution and a chi-square test of coder x category.

    The test is Pearson's chi-square of independence on the coder x category count table (equal to
    ``scipy.stats.chi2_contingency(table, correction=False)``; written out here so the command line
    does not pay for importing ``scipy.stats``). It treats labels as independent, although coders
    label the same items: read it as a screen for a coder who favours some categories, not as an
    exact test of marginal homogeneity.
    """
    from scipy.special import chdtrc

    lab = _as_labels(data, item_col, coder_col, label_col)
    k = lab.n_categories
    flat = lab.codes
    table = np.stack([np.bincount(flat[:, c][flat[:, c] >= 0], minlength=k) for c in range(lab.n_coders)]) \
        if lab.n_coders else np.zeros((0, k), dtype=int)
    cats = [str(c) for c in lab.categories]
    counts = pd.DataFrame(table, index=[str(c) for c in lab.coders], columns=cats)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = counts.div(counts.sum(axis=1).replace(0, np.nan), axis=0).fillna(0.0)
    sub = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    test: dict[str, Any]
    if sub.shape[0] < 2:
        test = {"chi2": Undefined("needs two or more coders with labels"), "dof": None, "p_value": None}
    elif sub.shape[1] < 2:
        test = {"chi2": Undefined(ALL_SAME), "dof": None, "p_value": None}
    else:
        obs = sub.astype(float)
        expected = np.outer(obs.sum(axis=1), obs.sum(axis=0)) / obs.sum()
        chi2 = float(((obs - expected) ** 2 / expected).sum())
        dof = (obs.shape[0] - 1) * (obs.shape[1] - 1)
        test = {
            "chi2": chi2,
            "dof": int(dof),
            "p_value": float(chdtrc(dof, chi2)),
            "min_expected": float(expected.min()),
        }
    return {"counts": counts, "shares": shares, "test": test}


def diagnostics(
    data: pd.DataFrame | Labels,
    *,
    kappa: Value | None = None,
    agreement: Value | None = None,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> dict[str, Any]:
    """Prevalence skew and the kappa paradox, coder bias, sparse categories, too few items.

    ``warnings`` lists every problem found as a sentence.
    """
    lab = _as_labels(data, item_col, coder_col, label_col)
    if kappa is None:
        kappa = fleiss(lab, n_boot=0).kappa
    if agreement is None:
        agreement = percent_agreement(lab)
    uses = lab.counts.sum(axis=0)
    total = int(uses.sum())
    warnings: list[str] = []
    cats = [str(c) for c in lab.categories]

    if total:
        top = int(np.argmax(uses))
        prevalence = {"category": cats[top], "share": float(uses[top] / total)}
        if prevalence["share"] >= SKEWED_PREVALENCE:
            warnings.append(f"skewed prevalence: {prevalence['share']:.0%} of labels are '{cats[top]}'")
    else:
        prevalence = {"category": None, "share": Undefined("there are no labels")}
    paradox = (is_defined(kappa) and is_defined(agreement) and agreement >= PARADOX_AGREEMENT
               and kappa < PARADOX_KAPPA)
    if paradox:
        warnings.append(
            f"kappa paradox: percent agreement is {agreement:.0%} but kappa only {kappa:.2f}; with one category "
            "this common, chance agreement is high (report AC1 and the category shares alongside kappa)")

    sparse = {c: int(u) for c, u in zip(cats, uses) if u < SPARSE_USES}
    if sparse:
        warnings.append(f"sparse categories (fewer than {SPARSE_USES} uses): "
                        + ", ".join(f"{c} ({u})" for c, u in sparse.items()))

    n_complete = int(lab.complete.sum())
    too_few = n_complete < FEW_ITEMS
    if too_few:
        warnings.append(f"too few items: {n_complete} coded by every coder (fewer than {FEW_ITEMS}); "
                        "intervals are wide")
    if lab.n_duplicates:
        warnings.append(f"{lab.n_duplicates} label(s) given twice by the same coder to the same item: "
                        "the last one was kept")

    bias = coder_bias(lab)
    p = bias["test"].get("p_value")
    if p is not None and p < 0.05:
        warnings.append(f"coder bias: coders use the categories in different proportions "
                        f"(chi-square p = {p:.3g})")
    if not is_defined(kappa):
        warnings.append(f"Fleiss' kappa is {kappa}")

    return {
        "prevalence": prevalence,
        "kappa_paradox": bool(paradox),
        "category_uses": {c: int(u) for c, u in zip(cats, uses)},
        "sparse_categories": sparse,
        "too_few_items": bool(too_few),
        "n_items_complete": n_complete,
        "n_duplicates": int(lab.n_duplicates),
        "coder_bias": bias,
        "warnings": warnings,
    }


# -- over time and against gold -----------------------------------------------------------------


def kappa_drift(
    data: pd.DataFrame | Labels,
    order: str | Sequence[Any] | None = None,
    step: int = 20,
    *,
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> pd.DataFrame:
    """Fleiss' kappa over the first ``step``, 2 ``step``, ... items coded by every coder.

    ``order`` puts the items in coding order: ``None`` keeps the order in which items first
    appear in the table; a column name (e.g. a timestamp; only with a DataFrame) orders items by
    that column's largest value per item (when the item's last label came in); a sequence of item
    keys gives the order directly (items not in it are left out). The last row covers all items
    even when their number is not a multiple of ``step``.

    Columns: n_items, kappa (NaN where undefined), reason (why undefined, else None).
    """
    if step < 1:
        raise ValueError("step must be 1 or more")
    lab = _as_labels(data, item_col, coder_col, label_col)
    if order is None:
        pos = np.arange(lab.n_items)
    elif isinstance(order, str):
        if isinstance(data, Labels):
            raise ValueError("ordering by a column needs the label DataFrame, not a Labels table")
        if order not in data.columns:
            raise LabelTableError(f"missing column {order!r}", order)
        when = data.groupby(item_keys(data, item_col))[order].max()
        pos = lab.items.get_indexer(when.sort_values(kind="stable").index)
        pos = pos[pos >= 0]
    else:
        pos = lab.items.get_indexer(pd.Index(list(order)))
        pos = pos[pos >= 0]
    pos = pos[lab.complete[pos]]
    cols = ["n_items", "kappa", "reason"]
    m = lab.n_coders
    if len(pos) == 0 or m < 2:
        return pd.DataFrame(columns=cols)
    t = lab.counts[pos].astype(float)
    p_i = ((t * t).sum(axis=1) - m) / (m * (m - 1))
    cum_p = np.cumsum(p_i)
    cum_t = np.cumsum(t, axis=0)
    sizes = list(range(step, len(pos) + 1, step))
    if not sizes or sizes[-1] != len(pos):
        sizes.append(len(pos))
    rows = []
    for s in sizes:
        p = cum_t[s - 1] / (s * m)
        p_e = float(p @ p)
        if p_e >= 1 - 1e-12:
            rows.append({"n_items": s, "kappa": np.nan, "reason": ALL_SAME})
        else:
            rows.append({"n_items": s, "kappa": (cum_p[s - 1] / s - p_e) / (1 - p_e), "reason": None})
    return pd.DataFrame(rows, columns=cols)


def coder_vs_gold(
    df: pd.DataFrame,
    coder: str,
    gold: str | Mapping[Any, Any] | pd.Series = "majority",
    partition: str | None = None,
    *,
    partition_col: str = "partition",
    exclude_coders: Sequence[str] = (),
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
) -> dict[str, Any]:
    """Cohen's kappa of one coder (e.g. an LLM) against gold labels, on one partition.

    ``gold`` is another coder's name, a mapping item key -> label, or ``"majority"``: per item the
    label most of the other coders (not ``coder`` and not ``exclude_coders``) gave, items with a
    tie left out. ``partition`` keeps only rows whose ``partition_col`` equals it.
    """
    cols = item_columns(item_col)
    for c in (*cols, coder_col, label_col):
        if c not in df.columns:
            raise LabelTableError(f"missing column {c!r}", c)
    if partition is not None:
        if partition_col not in df.columns:
            raise LabelTableError(f"missing column {partition_col!r}", partition_col)
        df = df[df[partition_col] == partition]
    df = df[df[label_col].notna()]
    keys = item_keys(df, cols)
    mine = df[coder_col] == coder
    if not mine.any():
        raise KeyError(f"coder {coder!r} has no labels" + (f" in partition {partition!r}" if partition else ""))
    pred = pd.Series(df.loc[mine, label_col].to_numpy(), index=keys[mine].to_numpy())
    pred = pred[~pred.index.duplicated(keep="last")]

    if isinstance(gold, str) and gold == "majority":
        others = ~df[coder_col].isin([coder, *exclude_coders])
        g = pd.DataFrame({"item": keys[others].to_numpy(), "coder": df.loc[others, coder_col].to_numpy(),
                          "label": df.loc[others, label_col].to_numpy()})
        best = majority(g, keys=["item"], label="label")
        truth = pd.Series(best["label"].to_numpy(), index=best["item"].to_numpy())
        gold_name = "majority of " + (", ".join(map(str, sorted(df.loc[others, coder_col].unique()))) or "no coder")
    elif isinstance(gold, str):
        theirs = df[coder_col] == gold
        if not theirs.any():
            raise KeyError(f"gold coder {gold!r} has no labels" + (f" in partition {partition!r}" if partition else ""))
        truth = pd.Series(df.loc[theirs, label_col].to_numpy(), index=keys[theirs].to_numpy())
        truth = truth[~truth.index.duplicated(keep="last")]
        gold_name = gold
    else:
        truth = pd.Series(gold)
        gold_name = "given labels"

    common = pred.index.intersection(truth.index)
    a, b = pred.loc[common], truth.loc[common]
    _, cat_index = _factorize_sorted(pd.concat([a, b], ignore_index=True))
    ia, ib = cat_index.get_indexer(a), cat_index.get_indexer(b)
    kappa, n = cohen_kappa_codes(ia, ib, len(cat_index))
    k = len(cat_index)
    cm = np.bincount(ia * k + ib, minlength=k * k).reshape(k, k) if n else np.zeros((k, k), dtype=int)
    names = [str(c) for c in cat_index]
    return {
        "coder": coder,
        "gold": gold_name,
        "partition": partition,
        "n_items": n,
        "n_unmatched": int(len(pred) - n),
        "cohen_kappa": kappa,
        "percent_agreement": float((ia == ib).mean()) if n else Undefined("no item has both a label and a gold label"),
        "confusion": pd.DataFrame(cm, index=pd.Index(names, name=str(coder)), columns=pd.Index(names, name="gold")),
    }


# -- panel and report --------------------------------------------------------------------------


def panel(
    data: pd.DataFrame | Labels,
    *,
    level: str = "nominal",
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
    categories: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """The numbers of the live agreement panel, without any bootstrap."""
    lab = _as_labels(data, item_col, coder_col, label_col, categories)
    f = fleiss(lab, n_boot=0)
    return {
        "n_items": lab.n_items,
        "n_coders": lab.n_coders,
        "n_labels": int(lab.coded.sum()),
        "fleiss_kappa": f.kappa,
        "fleiss_items_used": f.n_items,
        "krippendorff_alpha": krippendorff_alpha(lab, level=level, n_boot=0).alpha,
        "percent_agreement": percent_agreement(lab),
        "mean_pairwise_cohen_kappa": pairwise_cohen(lab).mean,
        "gwet_ac1": gwet_ac1(lab),
    }


def to_json(x: Any) -> Any:
    """Plain JSON values: Undefined -> {"undefined": reason}, NaN -> None, frames -> nested dicts."""
    if isinstance(x, Undefined):
        return x.to_json()
    if isinstance(x, dict):
        return {str(k): to_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_json(v) for v in x]
    if isinstance(x, pd.DataFrame):
        return {str(i): {str(c): to_json(v) for c, v in row.items()} for i, row in x.iterrows()}
    if isinstance(x, pd.Series):
        return {str(k): to_json(v) for k, v in x.items()}
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return None if math.isnan(x) else float(x)
    if isinstance(x, np.bool_):
        return bool(x)
    if isinstance(x, np.ndarray):
        return to_json(x.tolist())
    return x


def report(
    data: pd.DataFrame | Labels,
    *,
    level: str = "nominal",
    item_col: str | Sequence[str] = "item",
    coder_col: str = "coder",
    label_col: str = "label",
    categories: Sequence[Any] | None = None,
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = 0,
    exclude_coders: Sequence[str] = (),
    top_disagreements: int = 10,
) -> dict[str, Any]:
    """Every agreement statistic and diagnostic as one JSON-serialisable dict."""
    lab = _as_labels(data, item_col, coder_col, label_col, categories)
    if exclude_coders:
        lab = lab.subset(coders=[c for c in lab.coders if c not in set(exclude_coders)])
        lab = lab.subset(items=lab.n_per_item > 0)
    f = fleiss(lab, n_boot=n_boot, seed=seed)
    a = krippendorff_alpha(lab, level=level, n_boot=n_boot, seed=seed)
    pa = percent_agreement(lab)
    pc = pairwise_cohen(lab)
    diag = diagnostics(lab, kappa=f.kappa, agreement=pa)
    if level == "ordinal" and categories is None and not pd.api.types.is_numeric_dtype(lab.categories.dtype):
        diag["warnings"].append("ordinal alpha took the categories in alphabetical order; "
                                "give the category order to change it")
    out = {
        "n_items": lab.n_items,
        "n_coders": lab.n_coders,
        "n_labels": int(lab.coded.sum()),
        "coders": [str(c) for c in lab.coders],
        "categories": [str(c) for c in lab.categories],
        "fleiss_kappa": f.kappa,
        "fleiss_se": f.se,
        "fleiss_ci": f.ci,
        "fleiss_items_used": f.n_items,
        "fleiss_items_dropped": f.n_dropped,
        "fleiss_se_method": f"{f.se_method}, {n_boot} resamples, seed {seed}" if n_boot > 0 else "none",
        "per_category": f.per_category,
        "krippendorff_alpha": a.alpha,
        "krippendorff_alpha_ci": a.ci,
        "krippendorff_alpha_se": a.se,
        "krippendorff_level": level,
        "krippendorff_items": a.n_items,
        "percent_agreement": pa,
        "mean_pairwise_cohen_kappa": pc.mean,
        "pairwise_cohen_kappa": pc.pairs,
        "gwet_ac1": gwet_ac1(lab),
        "confidence": f.confidence,
        "n_boot": n_boot,
        "seed": seed,
        "diagnostics": diag,
        "coincidence_matrix": coincidence_matrix(lab),
        "most_disagreed": most_disagreed(lab, top_disagreements).to_dict("records"),
    }
    return to_json(out)
