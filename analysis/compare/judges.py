"""Agreement between judges who scored the same outputs on a 0-5 scale (SynchToM's check of its
LLM judge against other models).

For every pair of judges, on the items both scored: exact match (difference 0), within-1
agreement (difference at most 1), quadratic- and linear-weighted Cohen's kappa (scikit-learn) and
the judge-by-judge confusion matrix (``analysis.agreement.confusion_matrix``, every score of the
scale shown: 0-5, or 0 to the highest score given where a rubric has more criteria);
over all judges, ordinal Krippendorff's alpha with its bootstrap interval
(``analysis.agreement.krippendorff_alpha``). Exact match and within-1 carry Wilson intervals.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from analysis import agreement as ag
from analysis.results import Estimate, EstimateTable, wilson
from corpus.predictions import JUDGE_SCALE

KEYS = ("run", "task", "criterion", "judge_a", "judge_b")
SCORED = "items both judges scored"


def scale_of(scores: Any) -> list[int]:
    """The score scale: 0-5 (SynchToM's judges), or 0 to the highest score given where a rubric has
    more criteria (SynchToM's dimensions have 2-7)."""
    top = int(np.max(np.asarray(scores, dtype=int))) if len(scores) else 0
    return list(range(max(JUDGE_SCALE[-1], top) + 1))


def pair_agreement(a: np.ndarray, b: np.ndarray, scale: list[int] | None = None) -> dict[str, Estimate]:
    """Exact match, within-1, quadratic- and linear-weighted kappa of two judges' scores of the same items."""
    a, b = np.asarray(a, int), np.asarray(b, int)
    scale = scale or scale_of(np.concatenate([a, b]))
    n = len(a)
    diff = np.abs(a - b)
    none = "the two judges scored no item in common"
    out = {
        "exact": wilson(
            int((diff == 0).sum()),
            n,
            key="exact",
            statistic="exact match",
            n_of=SCORED,
            method="share of items scored the same",
            empty=none,
        ),
        "within_1": wilson(
            int((diff <= 1).sum()),
            n,
            key="within_1",
            statistic="within-1 agreement",
            n_of=SCORED,
            method="share of items scored at most 1 apart",
            empty=none,
        ),
    }
    from sklearn.metrics import cohen_kappa_score  # (scikit-learn takes a second to import: only judges need it)

    for key, weights in (("weighted_kappa", "quadratic"), ("linear_weighted_kappa", "linear")):
        kappa: dict[str, Any] = dict(
            key=key,
            statistic=f"{weights}-weighted kappa",
            n=n,
            n_of=SCORED,
            method=f"Cohen's kappa with {weights} weights over the {scale[0]}-{scale[-1]} scale",
            computed_by="sklearn.metrics.cohen_kappa_score",
            package="scikit-learn",
        )
        if n == 0 or len(set(a.tolist()) | set(b.tolist())) < 2:
            out[key] = Estimate.undefined("every score is the same", **kappa)
        else:
            k = cohen_kappa_score(a, b, labels=scale, weights=weights)
            out[key] = Estimate(**kappa, estimate=float(k))
    return out


def _long(scores: pd.DataFrame) -> pd.DataFrame:
    return scores.assign(item=scores["session_id"].astype(str) + ":" + scores["action_index"].astype(str))


def judge_agreement(scores: pd.DataFrame, run: str = "") -> tuple[EstimateTable, dict[tuple, pd.DataFrame]]:
    """Pairwise and overall agreement of the judges in a judge-scores table (one row per item,
    task, criterion and judge), and the confusion matrix of every judge pair."""
    rows: list[tuple[dict[str, Any], Estimate]] = []
    matrices: dict[tuple, pd.DataFrame] = {}
    if scores.empty:
        return EstimateTable.build([], (*KEYS, "metric"), title="Judge agreement"), matrices
    df = _long(scores)
    for (task, crit), g in df.groupby(["task", "criterion"], sort=True):
        judges = sorted(g["judge"].unique())
        scale = scale_of(g["score"].to_numpy())
        wide = g.pivot_table(index="item", columns="judge", values="score", aggfunc="first")
        for ja, jb in combinations(judges, 2):
            both = wide[[ja, jb]].dropna()
            key = {"run": run, "task": task, "criterion": crit, "judge_a": ja, "judge_b": jb}
            for metric, est in pair_agreement(both[ja].to_numpy(), both[jb].to_numpy(), scale).items():
                rows.append(({**key, "metric": metric}, est))
            cm = ag.confusion_matrix(
                ag.LabelTable(g.assign(score=g["score"].astype(int)), item="item", coder="judge", label="score"), ja, jb
            )
            cm.index, cm.columns = cm.index.astype(int), cm.columns.astype(int)
            full = cm.reindex(index=scale, columns=scale, fill_value=0)
            full.index.name, full.columns.name = ja, jb
            matrices[(task, crit, ja, jb)] = full
        key = {"run": run, "task": task, "criterion": crit, "judge_a": "all", "judge_b": "all"}
        table = ag.LabelTable(g, item="item", coder="judge", label="score", categories=scale)
        res = ag.krippendorff_alpha(table, level="ordinal", seed=0)
        rows.append(({**key, "metric": "alpha"}, res))  # undefined, saying why, with one judge
    return EstimateTable.build(rows, (*KEYS, "metric"), title="Judge agreement"), matrices
