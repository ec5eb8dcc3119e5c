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

from dataclasses import replace
from typing import cast

import numpy as np
import pandas as pd

from analysis.agreement import bootstrap
from analysis.agreement.alpha import nominal_point
from analysis.agreement.fleiss import fleiss_point
from analysis.agreement.pairwise import (
    PairwiseCohen,
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


def _tables(sums: pd.DataFrame) -> tuple[list[str], dict[int, np.ndarray]]:
    """The categories in use and C_m per m."""
    cats = sorted(set(sums["code_a"]) | set(sums["code_b"]))
    at = {c: i for i, c in enumerate(cats)}
    out: dict[int, np.ndarray] = {}
    for m, rows in sums.groupby("m"):
        c = np.zeros((len(cats), len(cats)))
        np.add.at(c, (rows["code_a"].map(at).to_numpy(), rows["code_b"].map(at).to_numpy()), rows["value"].to_numpy())
        out[int(cast(int, m))] = c
    return cats, out


def pairwise(pairs: pd.DataFrame, coders: list[str]) -> PairwiseCohen:
    """Cohen's kappa of every pair of ``coders`` from their (code_a, code_b) counts."""
    found = {key: rows for key, rows in pairs.groupby(["coder_a", "coder_b"])} if len(pairs) else {}
    out = []
    for i, a in enumerate(coders):
        for b in coders[i + 1 :]:
            rows, flip = found.get((a, b)), False
            if rows is None and (rows := found.get((b, a))) is not None:
                flip = True
            kappa: float | Undefined
            if rows is None:
                kappa, n = Undefined("no item was coded by both coders"), 0
            else:
                ca, cb = ("code_b", "code_a") if flip else ("code_a", "code_b")
                w = rows["n"].to_numpy(dtype=float)
                n = int(w.sum())
                p_o = float(w[(rows[ca] == rows[cb]).to_numpy()].sum()) / n
                row, col = rows.groupby(ca)["n"].sum(), rows.groupby(cb)["n"].sum()
                p_e = float((row * col.reindex(row.index, fill_value=0)).sum()) / (n * n)
                kappa = (
                    Undefined("both coders gave one and the same category to every shared item")
                    if p_e >= 1 - 1e-12
                    else (p_o - p_e) / (1 - p_e)
                )
            out.append(
                (
                    a,
                    b,
                    cohen(
                        kappa,
                        n,
                        f"cohen_kappa[{a},{b}]",
                        f"Cohen's kappa {a} x {b}",
                        "Cohen (1960) kappa of two coders",
                    ),
                )
            )
    return pairwise_mean(out, len(coders))


def headline(sums: pd.DataFrame, pairs: pd.DataFrame, coders: pd.DataFrame, *, min_items: int = 0) -> Headline | None:
    """The headline numbers of :func:`analysis.agreement.panel` from the store's sums (columns as
    :meth:`corpus.store.Store.agreement_sums` gives them); None when there is no label."""
    people = coders[(coders["n"] > 0) & (coders["kind"] == "human")] if "kind" in coders else coders[coders["n"] > 0]
    names = [str(c) for c in people["coder"]]
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
        ac1=ac1_point(n_pair, len(cats), share_sum, pi, COMPUTED_BY),
    )
    general = None
    if n_complete < min_items:
        general = generalized_point(n_items, n_pair, k, share_sum, pi, cats, NO_BOOTSTRAP, COMPUTED_BY)
        general = replace(general, se=no, interval=no)
    return head.at_least(min_items, general, pairs_cohen if min_items else None)
