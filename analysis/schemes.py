"""Comparing two coding schemes on the same actions, e.g. HCRC dialogue moves against grounding acts.

Each scheme is first reduced to one label per action (the majority of its coders; ties left out),
then the two are cross-tabulated on the actions both cover. Association is summarised with
Cramér's V (from scipy's chi-square test of independence) and, per row, the share of the most
frequent column (how well a move predicts a grounding act).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import chi2_contingency
from scipy.stats.contingency import association

from corpus.consensus import majority


@dataclass(frozen=True)
class SchemeComparison:
    table: pd.DataFrame  # rows: scheme A codes, columns: scheme B codes, counts
    n_items: int  # actions with a label in both schemes
    n_only_a: int
    n_only_b: int
    cramers_v: float | None
    chi2: float | None
    p_value: float | None
    dof: int | None
    best_match: pd.DataFrame  # per row code: most frequent column code and its share
    note: str = ""


def compare_schemes(labels: pd.DataFrame, scheme_a: str, scheme_b: str,
                    exclude_coders: tuple[str, ...] = ()) -> SchemeComparison:
    """Cross-tabulate the majority labels of two schemes on the actions both cover.

    ``labels``: long table with scheme, session_id, action_index, coder, code.
    """
    keys = ["session_id", "action_index"]
    a = majority(labels[labels["scheme"] == scheme_a], exclude_coders=exclude_coders)[keys + ["code"]]
    b = majority(labels[labels["scheme"] == scheme_b], exclude_coders=exclude_coders)[keys + ["code"]]
    both = a.merge(b, on=keys, suffixes=("_a", "_b"))
    table = pd.crosstab(both["code_a"], both["code_b"]).rename_axis(index=scheme_a, columns=scheme_b)
    n = len(both)
    only_a, only_b = len(a) - n, len(b) - n
    if n == 0:
        return SchemeComparison(table, 0, only_a, only_b, None, None, None, None, pd.DataFrame(),
                                note="undefined, because no action has a label in both schemes")
    best = pd.DataFrame({
        "code": table.index,
        "n": table.sum(axis=1).to_numpy(),
        "most_often": table.idxmax(axis=1).to_numpy(),
        "share": (table.max(axis=1) / table.sum(axis=1)).to_numpy(),
    })
    if table.shape[0] < 2 or table.shape[1] < 2:
        return SchemeComparison(table, n, only_a, only_b, None, None, None, None, best,
                                note="undefined, because one scheme uses a single code on the shared actions")
    observed = table.to_numpy()
    res = chi2_contingency(observed, correction=False)
    v = float(association(observed, method="cramer", correction=False))
    note = ""
    expected = np.asarray(res.expected_freq)
    if (expected < 5).mean() > 0.2:
        note = (f"{(expected < 5).mean():.0%} of the cells expect fewer than 5 actions: "
                "read the chi-square p-value with caution")
    return SchemeComparison(table, n, only_a, only_b, v, float(res.statistic), float(res.pvalue), int(res.dof), best, note)
