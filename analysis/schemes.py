"""Comparing two coding schemes on the same actions, e.g. HCRC dialogue moves against grounding acts.

Each scheme is first reduced to one label per action (the majority of its coders; ties left out),
then the two are cross-tabulated on the actions both cover. Association is summarised with
Cramér's V and the chi-square test of independence (:func:`analysis.contingency.cross_table_test`:
scipy), as results objects, and per row the share of the most frequent column (how well a move
predicts a grounding act).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.contingency import cross_table_test
from analysis.results import ChiSquare, Estimate
from corpus.consensus import majority


@dataclass(frozen=True)
class SchemeComparison:
    table: pd.DataFrame  # rows: scheme A codes, columns: scheme B codes, counts
    n_items: int  # actions with a label in both schemes
    n_only_a: int
    n_only_b: int
    cramers_v: Estimate
    chi2: ChiSquare
    best_match: pd.DataFrame  # per row code: most frequent column code and its share

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.cramers_v.row(), self.chi2.row()])


def compare_schemes(
    labels: pd.DataFrame, scheme_a: str, scheme_b: str, exclude_coders: tuple[str, ...] = ()
) -> SchemeComparison:
    """Cross-tabulate the majority labels of two schemes on the actions both cover.

    ``labels``: long table with scheme, session_id, action_index, coder, code.
    """
    keys = ["session_id", "action_index"]
    a = majority(labels[labels["scheme"] == scheme_a], exclude_coders=exclude_coders)[keys + ["code"]]
    b = majority(labels[labels["scheme"] == scheme_b], exclude_coders=exclude_coders)[keys + ["code"]]
    both = a.merge(b, on=keys, suffixes=("_a", "_b"))
    table = pd.crosstab(both["code_a"], both["code_b"]).rename_axis(index=scheme_a, columns=scheme_b)
    n = len(both)
    best = (
        pd.DataFrame(
            {
                "code": table.index,
                "n": table.sum(axis=1).to_numpy(),
                "most_often": table.idxmax(axis=1).to_numpy(),
                "share": (table.max(axis=1) / table.sum(axis=1)).to_numpy(),
            }
        )
        if n
        else pd.DataFrame()
    )
    reason = (
        "no action has a label in both schemes"
        if n == 0
        else ("one scheme uses a single code on the shared actions" if min(table.shape) < 2 else None)
    )
    chi2, v = cross_table_test(
        table.to_numpy(), "actions in both schemes", "the two schemes' labels", "actions", reason
    )
    return SchemeComparison(table, n, len(a) - n, len(b) - n, v, chi2, best)
