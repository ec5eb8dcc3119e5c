"""Agreement between judges who scored the same outputs on a 0-5 scale (SynchToM's check of its
LLM judge against other models).

For every pair of judges, on the items both scored: exact match (difference 0), within-1
agreement (difference at most 1), quadratic- and linear-weighted Cohen's kappa (scikit-learn) and
the judge-by-judge confusion matrix (``analysis.agreement.confusion_matrix``, every score of the
scale shown: 0-5, or 0 to the highest score given where a rubric has more criteria);
over all judges, ordinal Krippendorff's alpha with its bootstrap interval
(``analysis.agreement.krippendorff_alpha``). Exact match and within-1 carry Wilson intervals.

SynchToM's runs read back against its items (:func:`dimension_scores`, :func:`paper_table`): each
dimension's score as the paper's Table 3 reports it, per benchmark file and setting.
"""

from __future__ import annotations

import re
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from analysis import agreement as ag
from analysis.draws import indices
from analysis.format import fmt
from analysis.results import CONFIDENCE, Estimate, EstimateTable, wilson
from corpus.benchmark.dataset import Benchmark
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


# -- SynchToM's runs read back against its items: the per-dimension scores of the paper's Table 3 --

PAPER_DIMENSIONS = {
    "latent_belief_explanation": "Belief",
    "user_profile_modeling": "Profile",
    "correct_resolution": "Solution",
}
AVG = "AVG"
N_BOOT = 1000
SEED = 0
INTERVAL_METHOD = "percentile bootstrap over items (B={b}, seed {s}; a resampled item brings its three dimensions)"
SCORE_COLUMNS = [
    "run",
    "model",
    "setting",
    "config",
    "judge",
    "benchmark",
    "dimension",
    "n",
    "items",
    "estimate",
    "ci_low",
    "ci_high",
    "interval_method",
]


def config_label(setting: str) -> str:
    """A setting as the paper's Table 3 heads it: ``step0`` is "vanilla" (no trajectory), ``step5``
    "5-Turn"; a negative step count ("all turns", as inference.py reads it) and no setting say so."""
    m = re.fullmatch(r"step(-?\d+)", setting)
    if not m:
        return setting or "setting not recorded"
    n = int(m[1])
    return "vanilla" if n == 0 else f"{n}-Turn" if n > 0 else "all turns"


def _cells(ratios: np.ndarray, n_boot: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, low, high, n) of the three dimensions and their average, from items x 3 ratios
    (NaN where the judge gave no score), in percent. A resample draws items with replacement
    (``analysis.draws.indices``) and takes each dimension's mean over the drawn items it has."""
    valid = ~np.isnan(ratios)
    values = np.where(valid, ratios, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):  # a dimension no item has: NaN, said by n = 0
        means = values.sum(axis=0) / valid.sum(axis=0)
        est = np.append(means, means.mean()) * 100
        n = np.append(valid.sum(axis=0), valid.all(axis=1).sum())
        lo, hi = np.full(4, np.nan), np.full(4, np.nan)
        k = len(ratios)
        if k >= 2:
            rows = indices(np.random.default_rng(seed), k, (n_boot, k))
            drawn = np.bincount((rows + k * np.arange(n_boot)[:, None]).ravel(), minlength=n_boot * k)
            w = drawn.reshape(n_boot, k).astype(float)  # how often each resample draws each item
            draws = (w @ values) / (w @ valid)  # n_boot x 3
            reps = np.column_stack([draws, draws.mean(axis=1)]) * 100
            a = (1 - CONFIDENCE) / 2
            for j in range(4):
                r = reps[:, j][~np.isnan(reps[:, j])]
                if len(r) >= 2:
                    lo[j], hi[j] = np.quantile(r, [a, 1 - a])
    return est, lo, hi, n


def dimension_scores(bench: Benchmark, n_boot: int = N_BOOT, seed: int = SEED) -> pd.DataFrame:
    """The judged runs' scores as the SynchToM paper reports them (Table 3): per run and benchmark
    file (Preference, Culture, SWE, Education), each dimension's mean over the items of the criteria
    met as a share of the item's rubric's criteria, in percent (Belief, Profile, Solution), and
    their average (AVG), with the items scored (``n``), the benchmark's items (``items``) and a
    bootstrap interval over items. One row per run, benchmark and dimension (:data:`SCORE_COLUMNS`)."""
    from corpus.importers.tom.synchtom_items import benchmark_order

    if not bench.judged:
        return pd.DataFrame(columns=SCORE_COLUMNS)
    of = bench.items.set_index("item_id")["benchmark"]
    sizes = of.value_counts()
    order = benchmark_order(of.unique())
    dims = list(PAPER_DIMENSIONS)
    rows = []
    for run in bench.judged:
        s = run.scores
        scored = pd.Index(pd.unique(s["item_id"].to_numpy(object)))
        wide = np.full((len(scored), len(dims)), np.nan)
        wide[scored.get_indexer(s["item_id"]), pd.Index(dims).get_indexer(s["dimension"])] = s["score"].to_numpy(
            float
        ) / s["criteria"].to_numpy(float)
        where = of.reindex(scored).to_numpy()
        for b in order:
            ratios = wide[where == b]
            if not len(ratios):
                continue
            est, lo, hi, n = _cells(ratios, n_boot, seed)
            for j, dim in enumerate([*PAPER_DIMENSIONS.values(), AVG]):
                rows.append(
                    {
                        "run": run.run_id,
                        "model": run.model,
                        "setting": run.setting,
                        "config": config_label(run.setting),
                        "judge": run.judge,
                        "benchmark": b,
                        "dimension": dim,
                        "n": int(n[j]),
                        "items": int(sizes[b]),
                        "estimate": float(est[j]),
                        "ci_low": float(lo[j]),
                        "ci_high": float(hi[j]),
                        "interval_method": INTERVAL_METHOD.format(b=n_boot, s=seed),
                    }
                )
    return pd.DataFrame(rows, columns=SCORE_COLUMNS)


def paper_table(scores: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """:func:`dimension_scores` laid out as the paper's Table 3: a row per judge, model and dimension
    (Belief, Profile, Solution, AVG), a column per benchmark and setting (vanilla, 5-Turn, 10-Turn, in
    step order), each cell the score in percent to ``digits`` decimals."""
    if scores.empty:
        return pd.DataFrame()
    steps = scores.drop_duplicates("config").assign(
        _k=lambda d: d["setting"].str.extract(r"(-?\d+)$", expand=False).astype(float).fillna(np.inf)
    )
    configs = steps.sort_values(["_k", "config"])["config"].tolist()
    benches = list(dict.fromkeys(scores["benchmark"]))
    dims = [*PAPER_DIMENSIONS.values(), AVG]
    cells = scores.assign(text=[fmt(float(v), digits) for v in scores["estimate"]])
    table = cells.pivot_table(
        index=["judge", "model", "dimension"], columns=["benchmark", "config"], values="text", aggfunc="first"
    )
    table = table.reindex(columns=pd.MultiIndex.from_product([benches, configs], names=["benchmark", "config"])).dropna(
        axis=1, how="all"
    )
    index = sorted(table.index, key=lambda k: (k[0], k[1], dims.index(k[2])))
    return table.reindex(index=pd.MultiIndex.from_tuples(index, names=table.index.names)).fillna("")
