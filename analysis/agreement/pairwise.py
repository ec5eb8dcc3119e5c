"""Agreement counted over pairs of labels: percent agreement, Cohen's kappa for every pair of
coders, Gwet's AC1, and one pair's confusion matrix.

- :func:`percent_agreement`: per item, the share of agreeing coder pairs; averaged over the items
  with two or more labels.
- :func:`cohen_kappa_codes` / :func:`pairwise_cohen`: Cohen's kappa of two coders on the items
  both coded, kappa = (p_o - p_e) / (1 - p_e) with p_e = sum_c p_a(c) p_b(c); computed from the
  two coders' category counts, so no category x category table is built. Equal to
  ``sklearn.metrics.cohen_kappa_score`` (tested).
- :func:`gwet_ac1`: Gwet's AC1 for any number of coders and missing labels (Gwet 2008, 2014):
  p_a over the items with r_i >= 2 labels, pi_k the category shares averaged over the items with
  a label, p_e = sum_k pi_k (1 - pi_k) / (Q - 1), Q the number of categories of the scale: a
  codebook's codes where the caller gives them (as Gwet defines it, and irrCAC's ``categ.labels``),
  else the table's given categories, else those used, and the method says which. No library in this project's dependencies computes it; the tests check it against
  values worked out by hand and Gwet's (2014) worked example.
- :func:`fleiss_generalized`: Fleiss' kappa generalized to a varying number of coders per item
  (Fleiss, Levin & Paik 2003; Gwet 2014, as irrCAC's ``fleiss.kappa.raw`` computes it): the same
  p_a and pi_k as AC1, p_e = sum_k pi_k^2. On items all labelled by the same coders it is Fleiss'
  (1971) kappa (tested equal to statsmodels); it needs no item to be labelled by every coder, so
  it is the kappa of a design where each item is coded by a few of many coders.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from analysis.agreement import bootstrap
from analysis.agreement.alpha import NO_PAIRS
from analysis.agreement.fleiss import ALL_SAME, FleissResult
from analysis.agreement.table import LabelTable, check_matrix_size
from analysis.results import OURS, Estimate, Value
from corpus.values import Undefined, is_defined

PAIRABLE = "items with two or more labels"
COHEN_METHOD = "Cohen (1960) kappa of two coders"


def item_agreement_shares(table: LabelTable) -> np.ndarray:
    """Per item: the share of its coder pairs that agree (NaN with fewer than two labels)."""
    cnt = table.cell_count.astype(float)
    m = table.n_per_item.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m >= 2, table.per_item(cnt * (cnt - 1)) / (m * (m - 1)), np.nan)


def percent_agreement(table: LabelTable) -> Estimate:
    """Mean over items (with two or more labels) of the share of coder pairs that agree."""
    shares = item_agreement_shares(table)
    pairable = ~np.isnan(shares)
    return percent_point(int(pairable.sum()), float(shares[pairable].sum()))


def percent_point(n_pair: int, share_sum: float, computed_by: str = "analysis.agreement.percent_agreement") -> Estimate:
    """Percent agreement from the sum of the agreeing shares over the ``n_pair`` items with two or
    more labels."""
    base: dict[str, Any] = dict(
        key="percent_agreement",
        statistic="Percent agreement",
        n=n_pair,
        n_of=PAIRABLE,
        method="mean over items of the share of agreeing coder pairs",
        computed_by=computed_by,
        package=OURS,
    )
    if not n_pair:
        return Estimate.undefined(NO_PAIRS, **base)
    return Estimate(**base, estimate=share_sum / n_pair)


def cohen_kappa_codes(a: np.ndarray, b: np.ndarray, n_categories: int) -> tuple[float | Undefined, int]:
    """Cohen's kappa of two code vectors (-1 = missing) on the items both coded, and that count."""
    both = (a >= 0) & (b >= 0)
    n = int(both.sum())
    if n == 0:
        return Undefined("no item was coded by both coders"), 0
    a, b = a[both], b[both]
    p_o = float((a == b).mean())
    p_e = float(np.bincount(a, minlength=n_categories) @ np.bincount(b, minlength=n_categories)) / (n * n)
    if p_e >= 1 - 1e-12:
        return Undefined("both coders gave one and the same category to every shared item"), n
    return (p_o - p_e) / (1 - p_e), n


def cohen(kappa: float | Undefined, n: int, key: str, statistic: str, method: str) -> Estimate:
    return Estimate(
        key=key,
        statistic=statistic,
        estimate=kappa,
        n=n,
        n_of="items coded by both",
        method=method,
        computed_by="analysis.agreement.cohen_kappa_codes",
        package=OURS,
        checked_against="sklearn.metrics.cohen_kappa_score",
    )


@dataclass(frozen=True)
class PairwiseCohen:
    """Cohen's kappa for every pair of coders, and the mean of the defined ones."""

    pairs: list[tuple[str, str, Estimate]]
    mean: Estimate

    def matrix(self, coders: list[str]) -> pd.DataFrame:
        """Coders x coders (NaN where undefined, 1 on the diagonal), for a heatmap."""
        out = pd.DataFrame(np.nan, index=coders, columns=coders)
        for c in coders:
            out.at[c, c] = 1.0
        for a, b, est in self.pairs:
            if est.defined:
                out.at[a, b] = out.at[b, a] = est.estimate
        return out

    def mean_over(self, minimum: int) -> Estimate:
        """The mean over the coder pairs that share at least ``minimum`` items (the live panel's
        rule): with many coders and a few per item most pairs share one or two items, and a kappa on
        those is noise, not agreement."""
        kept = [cast(float, e.estimate) for _, _, e in self.pairs if e.defined and e.n >= minimum]
        base: dict[str, Any] = dict(
            key="mean_pairwise_cohen_kappa",
            statistic="Mean pairwise Cohen's kappa",
            n=len(kept),
            n_of=f"coder pairs sharing {minimum} items or more",
            method=f"mean of Cohen's kappa over the pairs of coders that share at least {minimum} items",
            computed_by="analysis.agreement.pairwise_cohen",
            package=OURS,
            checked_against="sklearn.metrics.cohen_kappa_score (each pair)",
        )
        if not kept:
            why = (
                f"no pair of coders shares {minimum} items" if self.pairs else "Cohen's kappa needs two or more coders"
            )
            return Estimate.undefined(why, **base)
        return Estimate(**base, estimate=float(np.mean(kept)))

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            [{"coder_a": a, "coder_b": b, "kappa": e.estimate, "n_items": e.n} for a, b, e in self.pairs],
            columns=["coder_a", "coder_b", "kappa", "n_items"],
        )

    def to_json(self) -> list[dict]:
        return [
            {"coder_a": a, "coder_b": b, "kappa": e.to_json()["estimate"], "n_items": e.n} for a, b, e in self.pairs
        ]


def pairwise_cohen(table: LabelTable) -> PairwiseCohen:
    """Cohen's kappa of every pair of coders on the items both coded, and their mean."""
    coders = [str(c) for c in table.coders]
    pairs = []
    for i in range(len(coders)):
        for j in range(i + 1, len(coders)):
            kappa, n = cohen_kappa_codes(table.codes[:, i], table.codes[:, j], table.n_categories)
            pairs.append(
                (
                    coders[i],
                    coders[j],
                    cohen(
                        kappa,
                        n,
                        f"cohen_kappa[{coders[i]},{coders[j]}]",
                        f"Cohen's kappa {coders[i]} x {coders[j]}",
                        COHEN_METHOD,
                    ),
                )
            )
    return pairwise_mean(pairs, len(coders))


def pairwise_mean(pairs: list[tuple[str, str, Estimate]], n_coders: int) -> PairwiseCohen:
    """The pairs' kappas with the mean of the defined ones."""
    defined = [cast(float, e.estimate) for _, _, e in pairs if e.defined]
    base: dict[str, Any] = dict(
        key="mean_pairwise_cohen_kappa",
        statistic="Mean pairwise Cohen's kappa",
        n=len(defined),
        n_of="coder pairs with a kappa",
        method="mean of Cohen's kappa over the pairs of coders",
        computed_by="analysis.agreement.pairwise_cohen",
        package=OURS,
        checked_against="sklearn.metrics.cohen_kappa_score (each pair)",
    )
    if n_coders < 2:
        mean = Estimate.undefined("Cohen's kappa needs two or more coders", **base)
    elif not defined:
        mean = Estimate.undefined("Cohen's kappa is undefined for every pair of coders", **base)
    else:
        mean = Estimate(**base, estimate=float(np.mean(defined)))
    return PairwiseCohen(pairs, mean)


def _category_shares(table: LabelTable) -> np.ndarray:
    """pi_k: each category's share of an item's labels, averaged over the items with a label."""
    m = table.n_per_item.astype(float)
    rated = m >= 1
    cnt = table.cell_count.astype(float)
    return table.per_category(cnt / m[table.cell_item]) / rated.sum()


def fleiss_generalized(
    table: LabelTable, *, n_boot: int = 0, seed: int | None = 0, confidence: float = 0.95
) -> FleissResult:
    """Fleiss' kappa generalized to a varying number of coders per item, on the items with two or
    more labels, with a percentile bootstrap over items (``n_boot=0``: none); see the module
    docstring."""
    settings = bootstrap.Replicates(n_boot, seed, confidence)
    m = table.n_per_item.astype(float)
    pair = m >= 2
    shares = item_agreement_shares(table)
    pi = _category_shares(table) if pair.any() else np.zeros(0)
    point = generalized_point(
        table.n_items,
        int(pair.sum()),
        table.n_coders,
        float(shares[pair].sum()),
        pi,
        table.category_names(),
        settings,
    )
    if not point.defined:
        return point
    # Per item, the sums the statistic is made of: its share of each category, its agreement (0
    # below two labels), and whether it counts in p_a and in pi.
    q = table.n_categories
    parts = np.zeros((table.n_items, q + 3))
    parts[table.cell_item, table.cell_category] = table.cell_count / m[table.cell_item]
    parts[:, q] = np.where(pair, shares, 0.0)
    parts[:, q + 1] = pair
    parts[:, q + 2] = m >= 1

    def resampled(w: np.ndarray) -> np.ndarray:
        tot = w @ parts
        with np.errstate(invalid="ignore", divide="ignore"):
            p_a = tot[:, q] / tot[:, q + 1]
            pi_b = tot[:, :q] / tot[:, q + 2 : q + 3]
            p_e_b = (pi_b**2).sum(axis=1)
            return np.where(p_e_b < 1 - 1e-12, (p_a - p_e_b) / (1 - p_e_b), np.nan)

    se, ci = bootstrap.replicate(resampled, table.n_items, settings, "the generalized kappa", width=q + 3)
    return replace(point, se=se, interval=ci)


def generalized_point(
    n_items: int,
    n_pair: int,
    n_coders: int,
    share_sum: float,
    pi: np.ndarray,
    categories: list[str],
    settings: bootstrap.Replicates,
    computed_by: str = "analysis.agreement.fleiss_generalized (vectorized)",
) -> FleissResult:
    """The generalized kappa from the sum of the agreeing shares over the ``n_pair`` items with two
    or more labels and the category shares ``pi``; no interval."""
    base: dict[str, Any] = dict(
        key="fleiss_kappa_generalized",
        statistic="Fleiss' kappa, generalized (coders vary by item)",
        n=n_pair,
        n_of=PAIRABLE,
        method="Fleiss' kappa for a varying number of coders per item (Fleiss, Levin & Paik 2003; Gwet 2014)",
        computed_by=computed_by,
        package=OURS,
        checked_against="Gwet (2014) worked example; statsmodels.stats.inter_rater.fleiss_kappa where every "
        "item has the same coders",
        **settings.estimate_fields(),
    )
    base.update(n_dropped=n_items - n_pair, n_coders=n_coders)
    # Per-category kappas (Fleiss 1971) are defined for the same coders on every item only.
    per_category: dict[str, Value] = {
        c: Undefined("a per-category kappa needs every item coded by every coder") for c in categories
    }
    if n_coders < 2 or not n_pair:
        u = Undefined(NO_PAIRS)
        return FleissResult.undefined(NO_PAIRS, **base, p_observed=u, p_expected=u, per_category=per_category)
    p_a, p_e = share_sum / n_pair, float(pi @ pi)
    if p_e >= 1 - 1e-12:
        return FleissResult.undefined(ALL_SAME, **base, p_observed=p_a, p_expected=p_e, per_category=per_category)
    return FleissResult(
        **base, estimate=(p_a - p_e) / (1 - p_e), p_observed=p_a, p_expected=p_e, per_category=per_category
    )


# Whose categories AC1's Q counts (its method says which).
SCALE = "the codebook's"
GIVEN = "those given"
OBSERVED = "those observed"


def ac1_categories(observed: Sequence[Any], scale: Sequence[Any] | None = None, given: bool = False) -> tuple[int, str]:
    """Q of Gwet's AC1, the number of categories of the scale (Gwet 2014, as irrCAC's ``categ.labels``),
    and whose they are: the codebook's ``scale`` (with any label outside it), else the categories the
    table was given, else those its labels use (the observed count, named as such)."""
    if scale is not None and len(scale):
        return len({str(c) for c in scale} | {str(c) for c in observed}), SCALE
    return len(observed), GIVEN if given else OBSERVED


def gwet_ac1(table: LabelTable, scale: Sequence[Any] | None = None) -> Estimate:
    """Gwet's AC1 for several coders with missing labels (see the module docstring); Q counts the
    categories of ``scale`` (a codebook's codes) when given (:func:`ac1_categories`)."""
    pair = table.n_per_item >= 2
    shares = item_agreement_shares(table)
    pi = _category_shares(table) if pair.any() else np.zeros(table.n_categories)
    q, whose = ac1_categories(table.category_names(), scale, table.categories_given)
    return ac1_point(int(pair.sum()), q, float(shares[pair].sum()), pi, whose=whose)


def ac1_point(
    n_pair: int,
    q: int,
    share_sum: float,
    pi: np.ndarray,
    computed_by: str = "analysis.agreement.gwet_ac1",
    whose: str = OBSERVED,
) -> Estimate:
    """AC1 from the sum of the agreeing shares over the ``n_pair`` items with two or more labels,
    the ``q`` categories (``whose``: :func:`ac1_categories`) and the shares ``pi`` of those used (a
    category of the scale no one used has share 0)."""
    base: dict[str, Any] = dict(
        key="gwet_ac1",
        statistic="Gwet's AC1",
        n=n_pair,
        n_of=PAIRABLE,
        method=f"Gwet (2008) AC1 for several coders, Q = {q} categories ({whose})",
        computed_by=computed_by,
        package=OURS,
    )
    if not n_pair:
        return Estimate.undefined(NO_PAIRS, **base)
    if q < 2:
        return Estimate.undefined(ALL_SAME, **base)
    p_a = share_sum / n_pair
    p_e = float((pi * (1 - pi)).sum() / (q - 1))
    return Estimate(**base, estimate=(p_a - p_e) / (1 - p_e))


def confusion_matrix(table: LabelTable, coder_a: str, coder_b: str) -> pd.DataFrame:
    """Counts of (coder_a's label, coder_b's label) on the items both coded (rows: coder_a)."""
    check_matrix_size(table.n_categories, what="the confusion matrix")
    two = table.subset(coders=[coder_a, coder_b])
    a, b = two.codes[:, 0], two.codes[:, 1]
    both = (a >= 0) & (b >= 0)
    k = table.n_categories
    cm = np.bincount(a[both] * k + b[both], minlength=k * k).reshape(k, k)
    cats = table.category_names()
    return pd.DataFrame(cm, index=pd.Index(cats, name=str(coder_a)), columns=pd.Index(cats, name=str(coder_b)))


__all__ = [
    "percent_agreement",
    "cohen_kappa_codes",
    "pairwise_cohen",
    "PairwiseCohen",
    "gwet_ac1",
    "ac1_categories",
    "confusion_matrix",
    "item_agreement_shares",
    "is_defined",
]
