"""Agreement between judges who scored the same outputs on a 0-5 scale (SynchToM's check of its
LLM judge against other models).

For every pair of judges, on the items both scored: exact match (difference 0), within-1
agreement (difference at most 1), quadratic-weighted Cohen's kappa (scikit-learn) and the
judge-by-judge confusion matrix (``analysis.agreement.confusion_matrix``, every score 0-5 shown);
over all judges, ordinal Krippendorff's alpha with its bootstrap interval
(``analysis.agreement.krippendorff_alpha``). Exact match and within-1 carry Wilson intervals.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.proportion import proportion_confint

from analysis import agreement as ag
from analysis.compare.results import CONFIDENCE, Estimate, ScoreTable, undefined
from corpus.predictions import JUDGE_SCALE

KEYS = ("run", "task", "criterion", "judge_a", "judge_b")


def _share(name: str, k: int, n: int, method: str) -> Estimate:
    if n == 0:
        return undefined(name, "the two judges scored no item in common")
    lo, hi = proportion_confint(k, n, alpha=1 - CONFIDENCE, method="wilson")
    return Estimate(name, k / n, n, (float(lo), float(hi)), f"{method}; Wilson interval", "statsmodels")


def pair_agreement(a: np.ndarray, b: np.ndarray) -> dict[str, Estimate]:
    """Exact match, within-1 and quadratic-weighted kappa of two judges' scores of the same items."""
    a, b = np.asarray(a, int), np.asarray(b, int)
    n = len(a)
    diff = np.abs(a - b)
    out = {
        "exact": _share("exact match", int((diff == 0).sum()), n, "share of items scored the same"),
        "within_1": _share("within-1 agreement", int((diff <= 1).sum()), n, "share of items scored at most 1 apart"),
    }
    if n == 0 or len(set(a.tolist()) | set(b.tolist())) < 2:
        out["weighted_kappa"] = undefined("quadratic-weighted kappa", "every score is the same", n)
    else:
        k = cohen_kappa_score(a, b, labels=list(JUDGE_SCALE), weights="quadratic")
        out["weighted_kappa"] = Estimate("quadratic-weighted kappa", float(k), n, None,
                                         "Cohen's kappa with quadratic weights over the 0-5 scale", "scikit-learn")
    return out


def _long(scores: pd.DataFrame) -> pd.DataFrame:
    return scores.assign(item=scores["session_id"].astype(str) + ":" + scores["action_index"].astype(str))


def judge_agreement(scores: pd.DataFrame, run: str = "") -> tuple[ScoreTable, dict[tuple, pd.DataFrame]]:
    """Pairwise and overall agreement of the judges in a judge-scores table (one row per item,
    task, criterion and judge), and the confusion matrix of every judge pair."""
    rows, matrices = [], {}
    if scores.empty:
        return ScoreTable.build([], KEYS, title="Judge agreement"), matrices
    df = _long(scores)
    for (task, crit), g in df.groupby(["task", "criterion"], sort=True):
        judges = sorted(g["judge"].unique())
        wide = g.pivot_table(index="item", columns="judge", values="score", aggfunc="first")
        for ja, jb in combinations(judges, 2):
            both = wide[[ja, jb]].dropna()
            key = {"run": run, "task": task, "criterion": crit, "judge_a": ja, "judge_b": jb}
            for metric, est in pair_agreement(both[ja].to_numpy(), both[jb].to_numpy()).items():
                rows.append(({**key, "metric": metric}, est))
            cm = ag.confusion_matrix(ag.LabelTable(g.assign(score=g["score"].astype(int)), item="item", coder="judge",
                                                   label="score"), ja, jb)
            cm.index, cm.columns = cm.index.astype(int), cm.columns.astype(int)
            full = cm.reindex(index=list(JUDGE_SCALE), columns=list(JUDGE_SCALE), fill_value=0)
            full.index.name, full.columns.name = ja, jb
            matrices[(task, crit, ja, jb)] = full
        key = {"run": run, "task": task, "criterion": crit, "judge_a": "all", "judge_b": "all"}
        if len(judges) < 2:
            rows.append(({**key, "metric": "alpha"}, undefined("Krippendorff's alpha (ordinal)", "only one judge")))
            continue
        res = ag.krippendorff_alpha(ag.LabelTable(g, item="item", coder="judge", label="score",
                                                  categories=list(JUDGE_SCALE)), level="ordinal", seed=0)
        rows.append(({**key, "metric": "alpha"}, Estimate(
            "Krippendorff's alpha (ordinal)", res.estimate, res.n, res.interval,
            f"ordinal; {res.interval_method}", res.package)))
    return ScoreTable.build(rows, (*KEYS, "metric"), title="Judge agreement"), matrices
