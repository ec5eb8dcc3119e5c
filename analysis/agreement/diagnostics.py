"""What to check before trusting an agreement number, and where the coders disagree.

- :func:`coder_bias`: each coder's category distribution and Pearson's chi-square test of coder x
  category independence (:func:`analysis.contingency.cross_table_test`: scipy). It treats labels
  as independent, although coders label the same items: read it as a screen for a coder who
  favours some categories, not as an exact test of marginal homogeneity.
- :func:`diagnostics`: prevalence skew and the kappa paradox, coder bias, sparse categories, too
  few items, duplicate and missing labels; each problem found is a sentence in ``warnings``.
- :func:`most_disagreed` and :func:`item_agreement`: the items, least agreement first.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, cast

import numpy as np
import pandas as pd

from analysis.agreement.pairwise import item_agreement_shares
from analysis.agreement.table import LabelTable
from analysis.contingency import cross_table_test
from analysis.format import fmt, fmt_share, frame_to_json, p_clause, to_json
from analysis.results import ChiSquare, Value
from corpus.values import Undefined, is_defined

PARADOX_AGREEMENT = 0.80  # percent agreement at or above this ...
PARADOX_KAPPA = 0.40  # ... with kappa below this: the kappa paradox (skewed prevalence)
SKEWED_PREVALENCE = 0.80  # share of the most common category that counts as skewed
SPARSE_USES = 5  # a category used fewer times than this is sparse
FEW_ITEMS = 30  # fewer complete items than this give a wide interval
LISTED = 10  # sparse categories named in the warning


@dataclass(frozen=True)
class CoderBias:
    counts: pd.DataFrame  # coders x categories: labels given
    shares: pd.DataFrame  # the same as shares of each coder's labels
    test: ChiSquare

    def to_json(self) -> dict[str, Any]:
        return {"counts": frame_to_json(self.counts), "shares": frame_to_json(self.shares), "test": self.test.to_json()}


def coder_bias(table: LabelTable) -> CoderBias:
    """Each coder's category distribution and a chi-square test of coder x category."""
    cats = table.category_names()
    k = table.n_categories
    coder = np.broadcast_to(np.arange(table.n_coders), table.codes.shape)
    coded = table.codes >= 0
    counts = np.bincount(coder[coded] * k + table.codes[coded], minlength=table.n_coders * k).reshape(table.n_coders, k)
    frame = pd.DataFrame(counts, index=[str(c) for c in table.coders], columns=cats)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = frame.div(frame.sum(axis=1).replace(0, np.nan), axis=0).fillna(0.0)
    sub = counts[counts.sum(axis=1) > 0][:, counts.sum(axis=0) > 0]
    reason = (
        "needs two or more coders with labels"
        if sub.shape[0] < 2
        else ("every label is the same category" if sub.shape[1] < 2 else None)
    )
    test, _ = cross_table_test(sub, "labels", "coder and category", "labels", reason)
    return CoderBias(frame, shares, replace(test, key="coder_bias_chi2", statistic="Coder x category chi-square"))


@dataclass(frozen=True)
class Diagnostics:
    prevalence_category: str | None
    prevalence_share: Value
    kappa_paradox: bool
    category_uses: dict[str, int]
    sparse_categories: dict[str, int]
    too_few_items: bool
    n_items_complete: int
    n_duplicates: int
    n_missing: int
    coder_bias: CoderBias
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "prevalence": {"category": self.prevalence_category, "share": to_json(self.prevalence_share)},
            "kappa_paradox": self.kappa_paradox,
            "category_uses": self.category_uses,
            "sparse_categories": self.sparse_categories,
            "too_few_items": self.too_few_items,
            "n_items_complete": self.n_items_complete,
            "n_duplicates": self.n_duplicates,
            "n_missing_labels": self.n_missing,
            "coder_bias": self.coder_bias.to_json(),
            "warnings": self.warnings,
        }


def diagnostics(table: LabelTable, kappa: Value, agreement: Value, generalized: bool = False) -> Diagnostics:
    """Prevalence skew and the kappa paradox, coder bias, sparse categories, too few items, given
    Fleiss' kappa and percent agreement on the same table. With ``generalized`` the kappa is Fleiss'
    kappa generalized to a varying number of coders per item, which rests on the items with two or
    more labels: those are the items counted."""
    uses = table.per_category(table.cell_count.astype(float)).astype(int)
    total = int(uses.sum())
    cats = table.category_names()
    warnings: list[str] = []
    share: Value
    if total:
        top = int(np.argmax(uses))
        category, share = cats[top], float(uses[top] / total)
        if share >= SKEWED_PREVALENCE:
            warnings.append(f"skewed prevalence: {fmt_share(share)} of labels are '{category}'")
    else:
        category, share = None, Undefined("there are no labels")
    paradox = bool(
        is_defined(kappa)
        and is_defined(agreement)
        and cast(float, agreement) >= PARADOX_AGREEMENT
        and cast(float, kappa) < PARADOX_KAPPA
    )
    if paradox:
        warnings.append(
            f"kappa paradox: percent agreement is {fmt_share(agreement)} but kappa only {fmt(kappa, 2)}; with one category "
            "this common, chance agreement is high (report AC1 and the category shares alongside kappa)"
        )
    sparse = {c: int(u) for c, u in zip(cats, uses) if u < SPARSE_USES}
    if sparse:
        named = ", ".join(f"{c} ({u})" for c, u in list(sparse.items())[:LISTED])
        more = f" and {len(sparse) - LISTED:,} more" if len(sparse) > LISTED else ""
        warnings.append(f"sparse categories (fewer than {SPARSE_USES} uses): {named}{more}")
    n_complete = table.n_complete
    counted = int((table.n_per_item >= 2).sum()) if generalized else n_complete
    too_few = counted < FEW_ITEMS
    if too_few:
        which = "with two or more labels" if generalized else "coded by every coder"
        warnings.append(f"too few items: {counted} {which} (fewer than {FEW_ITEMS}); intervals are wide")
    if table.n_duplicates:
        warnings.append(
            f"{table.n_duplicates} label(s) given twice by the same coder to the same item: the last one was kept"
        )
    if table.n_missing:
        warnings.append(f"{table.n_missing} row(s) have an empty label: counted as missing, not as a category")
    bias = coder_bias(table)
    if bias.test.defined and cast(float, bias.test.p_value) < 0.05:
        warnings.append(
            f"coder bias: coders use the categories in different proportions (chi-square {p_clause(bias.test.p_value)})"
        )
    if not is_defined(kappa):
        warnings.append(f"Fleiss' kappa{' (generalized)' if generalized else ''} is {kappa}")
    return Diagnostics(
        category,
        share,
        paradox,
        {c: int(u) for c, u in zip(cats, uses)},
        sparse,
        too_few,
        n_complete,
        table.n_duplicates,
        table.n_missing,
        bias,
        warnings,
    )


def _modal(table: LabelTable) -> tuple[np.ndarray, np.ndarray]:
    """Per item, its most given category (a tie: the first in category order) and how many
    coders gave it. The cells are sorted by item, then category."""
    n, item, count = table.n_items, table.cell_item, table.cell_count
    top = np.zeros(n, dtype=np.int64)
    np.maximum.at(top, item, count)
    at_top = np.flatnonzero(count == top[item])
    first = at_top[np.r_[True, item[at_top][1:] != item[at_top][:-1]]] if len(at_top) else at_top
    modal = np.full(n, -1, dtype=np.int64)
    modal[item[first]] = table.cell_category[first]
    return modal, top


def item_agreement(table: LabelTable) -> pd.DataFrame:
    """Per item: n_labels, agreement (the share of agreeing coder pairs; NaN with one label) and
    modal_code (the most given label; on a tie the first in category order)."""
    cols = ["item_id", "n_labels", "agreement", "modal_code"]
    if table.n_items == 0:
        return pd.DataFrame(columns=cols)
    modal, _ = _modal(table)
    return pd.DataFrame(
        {
            "item_id": table.items,
            "n_labels": table.n_per_item,
            "agreement": item_agreement_shares(table),
            "modal_code": table.categories[np.maximum(modal, 0)],
        },
        columns=cols,
    )


def most_disagreed(table: LabelTable, n: int | None = 20) -> pd.DataFrame:
    """Items on which coders disagree (two or more labels, not all the same), least agreement first.

    Columns: item, n_labels, n_distinct, agreement (share of agreeing coder pairs), modal_label,
    modal_share, labels ("coder=label; ..."). Ties are broken by more distinct labels, then more
    labels, then coding order.
    """
    cols = ["item", "n_labels", "n_distinct", "agreement", "modal_label", "modal_share", "labels"]
    distinct = np.bincount(table.cell_item, minlength=table.n_items)
    keep = np.flatnonzero((table.n_per_item >= 2) & (distinct >= 2))
    if len(keep) == 0:
        return pd.DataFrame(columns=cols)
    m, agreement, d = table.n_per_item[keep], item_agreement_shares(table)[keep], distinct[keep]
    order = np.lexsort((np.arange(len(keep)), -m, -d, agreement))
    if n is not None:
        order = order[:n]
    modal, top = _modal(table)
    cats = table.categories
    rows = []
    for r in order:
        i = keep[r]
        codes = table.codes[i]
        rows.append(
            {
                "item": table.items[i],
                "n_labels": int(m[r]),
                "n_distinct": int(d[r]),
                "agreement": float(agreement[r]),
                "modal_label": cats[modal[i]],
                "modal_share": float(top[i] / m[r]),
                "labels": "; ".join(f"{table.coders[c]}={cats[codes[c]]}" for c in np.flatnonzero(codes >= 0)),
            }
        )
    return pd.DataFrame(rows, columns=cols)
