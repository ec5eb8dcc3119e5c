"""The headline numbers from a task's sufficient statistics, without its labels.

The store keeps, with every label (:mod:`corpus.store.agreement`), three small tables over the
human coders' current labels:

- ``sums``: per number of labels on an item m and pair of categories (a, b), the sum over the items
  with m labels of n_a n_b (n_c: the item's labels in category c);
- ``pairs``: per pair of coders, how often they gave (code_a, code_b) to one item;
- ``coders``: each coder's number of labels, and their kind (the human ones are the coders here).

From C_m, the categories x categories table of sums at m: the items with m labels are
N_m = sum(C_m) / m^2, category c's labels among them T_m[c] = sum_b C_m[c, b] / m, and
sum over those items of sum_c n_c^2 is the trace of C_m. Every headline statistic is a function of
these (O(categories^2) per m, O(categories^2) per pair of coders):

- Fleiss' kappa: the items with m = the number of coders (coded by every coder);
- percent agreement, Gwet's AC1 and the generalized kappa: p_a = sum over m >= 2 of
  (trace C_m - m N_m) / (m (m - 1)), over the items with two or more labels; pi_c = sum over m of
  T_m[c] / m, over the items;
- nominal alpha: D_o = sum over m >= 2 of (m^2 N_m - trace C_m) / (m - 1), n_c = sum over m >= 2 of
  T_m[c];
- Cohen's kappa per pair of coders from their table of (code_a, code_b) counts.

:func:`headline` equals :func:`analysis.agreement.panel` on the same labels (tested after every
write of a random sequence of labels and relabels). Intervals need the items, so there are none
here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from analysis.agreement import bootstrap
from analysis.agreement.alpha import nominal_point
from analysis.agreement.fleiss import fleiss_point
from analysis.agreement.pairwise import (
    COHEN_METHOD,
    PairwiseCohen,
    ac1_categories,
    ac1_point,
    cohen,
    generalized_point,
    pairwise_mean,
    percent_point,
)
from analysis.agreement.report import Headline
from corpus.values import Undefined

COMPUTED_BY = "analysis.agreement.sums (the store's sufficient statistics)"
NO_BOOTSTRAP = bootstrap.Replicates(0, None, 0.95)


def _codes(*columns: pd.Series) -> tuple[list[str], list[np.ndarray]]:
    """The categories of ``columns`` (sorted) and each column as positions among them (the columns'
    values taken out as Python objects at once: a column of texts read value by value makes each one
    on its own, most of the panel's time)."""
    values = [col.to_numpy(dtype=object) for col in columns]
    cats = sorted(set().union(*(set(v) for v in values)))
    at = {c: i for i, c in enumerate(cats)}
    return cats, [np.fromiter(map(at.__getitem__, v), dtype=np.int64, count=len(v)) for v in values]


def _tables(sums: pd.DataFrame) -> tuple[list[str], dict[int, np.ndarray]]:
    """The categories in use and C_m per m."""
    cats, (ia, ib) = _codes(sums["code_a"], sums["code_b"])
    ms, at = np.unique(sums["m"].to_numpy(), return_inverse=True)
    c = np.zeros((len(ms), len(cats), len(cats)))
    np.add.at(c, (at, ia, ib), sums["value"].to_numpy(dtype=float))
    return cats, {int(m): c[i] for i, m in enumerate(ms)}


def pairwise(pairs: pd.DataFrame, coders: list[str]) -> PairwiseCohen:
    """Cohen's kappa of every pair of ``coders`` (in order) from their (code_a, code_b) counts."""
    tables: dict[tuple[str, str], tuple[int, float, float]] = {}  # (a, b) -> items, p_o, p_e
    if len(pairs):
        cats, (ia, ib) = _codes(pairs["code_a"], pairs["code_b"])
        a, b = pairs["coder_a"].to_numpy(dtype=object), pairs["coder_b"].to_numpy(dtype=object)
        swap = (a > b).astype(bool)  # each pair as (first, second) in the coders' order
        lo, hi = np.where(swap, b, a), np.where(swap, a, b)
        ca, cb = np.where(swap, ib, ia), np.where(swap, ia, ib)
        seen: dict[tuple[str, str], int] = {}
        at = np.fromiter((seen.setdefault(k, len(seen)) for k in zip(lo, hi)), dtype=np.int64, count=len(lo))
        keys = list(seen)
        n = pairs["n"].to_numpy(dtype=float)
        total = np.bincount(at, weights=n, minlength=len(keys))
        agree = np.bincount(at, weights=n * (ca == cb), minlength=len(keys))
        row, col = np.zeros((len(keys), len(cats))), np.zeros((len(keys), len(cats)))
        np.add.at(row, (at, ca), n)
        np.add.at(col, (at, cb), n)
        p_e = (row * col).sum(axis=1) / total**2
        for i, key in enumerate(keys):
            tables[(str(key[0]), str(key[1]))] = (int(total[i]), float(agree[i] / total[i]), float(p_e[i]))
    out = []
    for i, a in enumerate(coders):
        for b in coders[i + 1 :]:
            n_ab, p_o, p_e_ab = tables.get((a, b), (0, 0.0, 0.0))
            kappa: float | Undefined = (
                Undefined("no item was coded by both coders")
                if n_ab == 0
                else Undefined("both coders gave one and the same category to every shared item")
                if p_e_ab >= 1 - 1e-12
                else (p_o - p_e_ab) / (1 - p_e_ab)
            )
            out.append((a, b, cohen(kappa, n_ab, f"cohen_kappa[{a},{b}]", f"Cohen's kappa {a} x {b}", COHEN_METHOD)))
    return pairwise_mean(out, len(coders))


def headline(
    sums: pd.DataFrame,
    pairs: pd.DataFrame,
    coders: pd.DataFrame,
    *,
    min_items: int = 0,
    scale: Sequence[Any] | None = None,
) -> Headline | None:
    """The headline numbers of :func:`analysis.agreement.panel` from the store's sums (columns as
    :meth:`corpus.store.Store.agreement_sums` gives them), AC1's Q counting the codebook's codes
    ``scale`` when given; None when there is no label."""
    people = coders[(coders["n"] > 0) & (coders["kind"] == "human")] if "kind" in coders else coders[coders["n"] > 0]
    names = sorted(str(c) for c in people["coder"])  # the label table's order
    if sums.empty or not names:
        return None
    cats, c = _tables(sums)
    ms = sorted(c)
    n_m = {m: c[m].sum() / m**2 for m in ms}
    t_m = {m: c[m].sum(axis=1) / m for m in ms}
    trace = {m: float(np.trace(c[m])) for m in ms}
    k = len(names)
    n_items = int(round(sum(n_m.values())))
    pairable = [m for m in ms if m >= 2]
    n_pair = int(round(sum(n_m[m] for m in pairable)))
    share_sum = sum((trace[m] - m * n_m[m]) / (m * (m - 1)) for m in pairable)
    pi = sum((t_m[m] / m for m in ms), np.zeros(len(cats))) / n_items

    n_complete = int(round(n_m.get(k, 0.0)))
    full = c.get(k)
    no = Undefined(bootstrap.NOT_RUN)
    kappa = fleiss_point(
        n_complete,
        k,
        n_items,
        t_m[k] if full is not None else np.zeros(len(cats)),
        (trace[k] - k * n_complete) / (k * (k - 1)) if full is not None and k >= 2 else 0.0,
        np.diag(full) if full is not None else np.zeros(len(cats)),
        cats,
        NO_BOOTSTRAP,
        COMPUTED_BY,
    )
    kappa = replace(kappa, se=no, interval=no)
    d_o = sum((m * m * n_m[m] - trace[m]) / (m - 1) for m in pairable)
    n_c = sum((t_m[m] for m in pairable), np.zeros(len(cats)))
    pairs_cohen = pairwise(pairs, names)
    q, whose = ac1_categories(cats, scale)
    head = Headline(
        n_items=n_items,
        n_coders=k,
        n_labels=int(round(sum(m * n_m[m] for m in ms))),
        n_missing_labels=0,
        n_items_complete=n_complete,
        n_items_pairable=n_pair,
        fleiss=kappa,
        alpha=nominal_point(n_pair, d_o, n_c, COMPUTED_BY),
        percent_agreement=percent_point(n_pair, share_sum, COMPUTED_BY),
        mean_cohen=pairs_cohen.mean,
        ac1=ac1_point(n_pair, q, share_sum, pi, COMPUTED_BY, whose),
    )
    general = None
    if n_complete < min_items:
        general = generalized_point(n_items, n_pair, k, share_sum, pi, cats, NO_BOOTSTRAP, COMPUTED_BY)
        general = replace(general, se=no, interval=no)
    return head.at_least(min_items, general, pairs_cohen if min_items else None)
