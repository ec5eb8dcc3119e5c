"""Comparing two coding schemes on the same actions, e.g. HCRC dialogue moves against grounding acts.

Each scheme is first reduced to one label per action (the majority of its coders; ties left out),
then the two are cross-tabulated on the actions both cover. Association is summarised with
Cramér's V (``scipy.stats.contingency.association``) and the chi-square test of independence
(``scipy.stats.chi2_contingency``), as results objects, and per row the share of the most
frequent column (how well a move predicts a grounding act).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.agreement.results import ChiSquare, Estimate, fmt_share, undefined_estimate
from corpus.consensus import majority

CHI2 = dict(key="chi2", statistic="Chi-square test of independence", n_of="actions in both schemes",
            method="Pearson chi-square test of independence of the two schemes' labels (no continuity correction)",
            computed_by="scipy.stats.chi2_contingency", package="scipy")
CRAMERS_V = dict(key="cramers_v", statistic="Cramér's V", n_of="actions in both schemes",
                 method="Cramér's V of the cross-table (no bias correction)",
                 computed_by="scipy.stats.contingency.association", package="scipy")


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


def _undefined(n: int, reason: str) -> tuple[Estimate, ChiSquare]:
    return (Estimate(**undefined_estimate({**CRAMERS_V, "n": n}, reason)),
            ChiSquare(**undefined_estimate({**CHI2, "n": n}, reason)))


def compare_schemes(labels: pd.DataFrame, scheme_a: str, scheme_b: str,
                    exclude_coders: tuple[str, ...] = ()) -> SchemeComparison:
    """Cross-tabulate the majority labels of two schemes on the actions both cover.

    ``labels``: long table with scheme, session_id, action_index, coder, code.
    """
    from scipy.stats import chi2_contingency
    from scipy.stats.contingency import association

    keys = ["session_id", "action_index"]
    a = majority(labels[labels["scheme"] == scheme_a], exclude_coders=exclude_coders)[keys + ["code"]]
    b = majority(labels[labels["scheme"] == scheme_b], exclude_coders=exclude_coders)[keys + ["code"]]
    both = a.merge(b, on=keys, suffixes=("_a", "_b"))
    table = pd.crosstab(both["code_a"], both["code_b"]).rename_axis(index=scheme_a, columns=scheme_b)
    n = len(both)
    only_a, only_b = len(a) - n, len(b) - n
    if n == 0:
        return SchemeComparison(table, 0, only_a, only_b, *_undefined(0, "no action has a label in both schemes"),
                                pd.DataFrame())
    best = pd.DataFrame({
        "code": table.index,
        "n": table.sum(axis=1).to_numpy(),
        "most_often": table.idxmax(axis=1).to_numpy(),
        "share": (table.max(axis=1) / table.sum(axis=1)).to_numpy(),
    })
    if table.shape[0] < 2 or table.shape[1] < 2:
        return SchemeComparison(table, n, only_a, only_b,
                                *_undefined(n, "one scheme uses a single code on the shared actions"), best)
    observed = table.to_numpy()
    res = chi2_contingency(observed, correction=False)
    expected = np.asarray(res.expected_freq)
    small = float((expected < 5).mean())
    warnings = (f"{fmt_share(small)} of the cells expect fewer than 5 actions: read the chi-square p-value with caution",) \
        if small > 0.2 else ()
    v = Estimate(**CRAMERS_V, n=n, estimate=float(association(observed, method="cramer", correction=False)),
                 warnings=warnings)
    chi2 = ChiSquare(**CHI2, n=n, estimate=float(res.statistic), dof=int(res.dof), p_value=float(res.pvalue),
                     min_expected=float(expected.min()), warnings=warnings)
    return SchemeComparison(table, n, only_a, only_b, v, chi2, best)
