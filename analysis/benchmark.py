"""Runs of answers to a benchmark's items, scored as the benchmark's authors report them.

Accuracy is the share of a run's items answered with the gold answer, pooled over items (an item
the run's file leaves out counts as wrong), overall and per value of every slice (question type,
mental state, time span, ...). Its interval is a percentile bootstrap over the benchmark's clusters
(the trials: every item of a resampled trial comes along) when there are at least
:data:`MIN_CLUSTERS`, else the Wilson interval over items (statsmodels), saying so. Two runs are compared on the items both answered: McNemar's
exact test (statsmodels) on the discordant items and a paired bootstrap of the difference, over
clusters as above. Every view is computed once per :class:`BenchmarkComparison` and remembered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.contingency_tables import mcnemar

from analysis.best import marked_best
from analysis.draws import indices
from analysis.format import to_json
from analysis.memo import Memo
from analysis.results import CONFIDENCE, wilson_columns
from corpus.benchmark.dataset import NO_ANSWER, Benchmark

N_BOOT = 1000
SEED = 0
ALL = "all"
MIN_CLUSTERS = 10  # fewer trials than this: the Wilson interval over items (a bootstrap over 3 trials is an artefact)
CLUSTER_METHOD = "percentile bootstrap over {what} (B={b}, seed {s}; a resampled {one} brings all its items)"
WILSON_METHOD = "Wilson score interval over items (statsmodels proportion_confint)"
CELL_COLUMNS = ["run", "field", "value", "correct", "n", "estimate", "ci_low", "ci_high", "interval_method"]


def scored_items(bench: Benchmark) -> pd.DataFrame:
    """One row per (valid run, item of the run's groups): run, row (the item's position in
    ``bench.items``), answer, correct, and the item's id, group and slice columns (categorical)."""
    items = bench.items
    pos = pd.Index(items["item_id"].to_numpy(object))
    gold = items["gold"].to_numpy(object)
    parts = []
    for run in bench.ok_runs:
        a = run.answers
        idx = pos.get_indexer(a["item_id"].to_numpy(object))
        keep = idx >= 0
        idx = idx[keep]
        answers = a["answer"].to_numpy(object)[keep]
        parts.append(
            pd.DataFrame(
                {
                    "run": run.run_id,
                    "row": idx,
                    "answer": answers,
                    "correct": (answers == gold[idx]) & (answers != NO_ANSWER),
                }
            )
        )
    cols = ["item_id", "group", *bench.slices]
    if not parts:
        return pd.DataFrame(columns=["run", "row", "answer", "correct", *cols])
    long = pd.concat(parts, ignore_index=True)
    long["run"] = pd.Categorical(long["run"], categories=[r.run_id for r in bench.ok_runs])
    rows = long["row"].to_numpy()
    for col in cols:
        cat = pd.Categorical(items[col].to_numpy(object))
        long[col] = pd.Categorical.from_codes(cat.codes[rows], cat.categories)
    return long


def correct_matrix(long: pd.DataFrame, n_items: int) -> np.ndarray:
    """items x runs: 1.0 right, 0.0 wrong, NaN where the run has no such item (run order of the
    ``run`` categories)."""
    runs = long["run"].cat.codes.to_numpy()
    m = np.full((n_items, len(long["run"].cat.categories)), np.nan)
    m[long["row"].to_numpy(), runs] = long["correct"].to_numpy(float)
    return m


def _weights(n_groups: int, n_boot: int, seed: int) -> np.ndarray:
    """n_boot x n_groups resampling counts: row b says how often each cluster is drawn in resample b."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_groups, np.full(n_groups, 1.0 / n_groups), size=n_boot).astype(np.float64)


def _intervals(
    correct: np.ndarray, group: np.ndarray, key: np.ndarray, n_keys: int, n_boot: int, seed: int, what: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]:
    """(correct, n, low, high, method) per key code, with the cluster bootstrap or Wilson."""
    k = np.bincount(key, weights=correct.astype(float), minlength=n_keys)
    n = np.bincount(key, minlength=n_keys).astype(float)
    g_codes, g_index = np.unique(group, return_inverse=True)
    n_groups = len(g_codes)
    if n_groups < MIN_CLUSTERS:
        lo, hi = wilson_columns(k, np.maximum(n, 1))
        method = WILSON_METHOD + (
            f" (only {n_groups} {what}s: too few to resample {what}s, and items of one {what} are not independent)"
            if n_groups > 1
            else ""
        )
        return k, n, np.where(n > 0, lo, np.nan), np.where(n > 0, hi, np.nan), method
    cell = g_index * n_keys + key
    size = n_groups * n_keys
    ck = np.bincount(cell, weights=correct.astype(float), minlength=size).reshape(n_groups, n_keys)
    cn = np.bincount(cell, minlength=size).astype(float).reshape(n_groups, n_keys)
    w = _weights(n_groups, n_boot, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        reps = (w @ ck) / (w @ cn)
    a = (1 - CONFIDENCE) / 2
    lo, hi = np.full(n_keys, np.nan), np.full(n_keys, np.nan)
    for j in range(n_keys):
        r = reps[:, j]
        r = r[~np.isnan(r)]
        if len(r) >= 2:
            lo[j], hi[j] = np.quantile(r, [a, 1 - a])
    method = CLUSTER_METHOD.format(what=f"{n_groups} {what}s", b=n_boot, s=seed, one=what)
    return k, n, lo, hi, method


def accuracy_table(
    long: pd.DataFrame, field_name: str | None, cluster: str = "group", n_boot: int = N_BOOT, seed: int = SEED
) -> pd.DataFrame:
    """Accuracy per run and value of ``field_name`` (None: overall, value "all"), with its interval;
    items with no value in the field (e.g. a question no time span applies to) are left out."""
    runs = list(long["run"].cat.categories)
    if field_name is None:
        values, v_codes = [ALL], np.zeros(len(long), dtype=np.int64)
    else:
        cat = long[field_name].cat
        values, v_codes = [str(c) for c in cat.categories], cat.codes.to_numpy().astype(np.int64)
    keep = np.array([v != "" for v in values])[v_codes]
    if not keep.any():
        return pd.DataFrame(columns=CELL_COLUMNS)
    n_values = len(values)
    key = long["run"].cat.codes.to_numpy().astype(np.int64)[keep] * n_values + v_codes[keep]
    group = (
        long[cluster].cat.codes.to_numpy()[keep] if hasattr(long[cluster], "cat") else long[cluster].to_numpy()[keep]
    )
    what = "trial" if cluster == "group" else cluster
    k, n, lo, hi, method = _intervals(
        long["correct"].to_numpy()[keep], group, key, len(runs) * n_values, n_boot, seed, what
    )
    out = pd.DataFrame(
        {
            "run": np.repeat(runs, n_values),
            "field": field_name or ALL,
            "value": values * len(runs),
            "correct": k.astype(int),
            "n": n.astype(int),
            "estimate": np.divide(k, n, out=np.full(len(n), np.nan), where=n > 0),
            "ci_low": lo,
            "ci_high": hi,
            "interval_method": method,
        }
    )
    out = out[out["n"] > 0]
    order = {v: i for i, v in enumerate(value_order(out["value"]))}
    out = out.assign(_r=out["run"].map({r: i for i, r in enumerate(runs)}), _v=out["value"].map(order))
    return out.sort_values(["_r", "_v"]).drop(columns=["_r", "_v"]).reset_index(drop=True)


CROSS = " × "  # joins two slice values in a crossed cell


def crossed_table(
    long: pd.DataFrame, a: str, b: str, cluster: str = "group", n_boot: int = N_BOOT, seed: int = SEED
) -> pd.DataFrame:
    """Accuracy per run and cell of two slice columns crossed (e.g. DynToM's mental state x time span),
    with its count and interval as :func:`accuracy_table` gives them (items with no value in either
    column are left out); the cell's two values in columns ``a`` and ``b``."""
    va, vb = long[a].astype(str).to_numpy(object), long[b].astype(str).to_numpy(object)
    both = (va != "") & (vb != "")
    cells = np.where(both, va + CROSS + vb, "")
    name = f"{a}{CROSS}{b}"
    out = accuracy_table(long.assign(**{name: pd.Categorical(cells)}), name, cluster, n_boot, seed)
    parts = out["value"].str.split(CROSS, n=1, expand=True) if len(out) else pd.DataFrame(columns=[0, 1])
    return out.assign(**{a: parts[0], b: parts[1]})


def per_trial(long: pd.DataFrame, cluster: str = "group") -> pd.DataFrame:
    """Accuracy of each run on each trial (the authors' per-trial ``q_a`` files): run, trial, correct,
    n, estimate and its Wilson interval over the trial's questions."""
    g = long.groupby(["run", cluster], observed=True)["correct"].agg(correct="sum", n="count").reset_index()
    g = g.rename(columns={cluster: "trial"})
    g["correct"] = g["correct"].astype(int)
    g["estimate"] = g["correct"] / g["n"]
    g["ci_low"], g["ci_high"] = wilson_columns(g["correct"], g["n"])
    return g


def trial_spread(trials: pd.DataFrame, overall: pd.DataFrame) -> pd.DataFrame:
    """Per run, how its per-trial accuracy spreads (trials, mean, SD, min, quartiles, max), beside its
    accuracy over all items with the interval over trials (:func:`accuracy_table`, overall)."""
    s = trials.groupby("run", observed=True)["estimate"]
    out = pd.DataFrame(
        {
            "trials": s.size(),
            "mean": s.mean(),
            "sd": s.std(ddof=1),
            "min": s.min(),
            "q1": s.quantile(0.25),
            "median": s.median(),
            "q3": s.quantile(0.75),
            "max": s.max(),
        }
    ).reset_index()
    whole = overall.set_index("run")[["estimate", "ci_low", "ci_high", "interval_method"]]
    return out.join(whole.rename(columns={"estimate": "accuracy"}), on="run")


def value_order(values) -> list[str]:
    """Slice values in reading order: numbers as numbers ("2" before "10"), spans by their start."""
    import re

    def key(v: str) -> list:
        return [(0, int(t)) if t.isdigit() else (1, t) for t in re.split(r"(\d+)", str(v))]

    return sorted(dict.fromkeys(str(v) for v in values), key=key)


def paired_test(
    long: pd.DataFrame, a: str, b: str, cluster: str = "group", n_boot: int = N_BOOT, seed: int = SEED
) -> dict[str, Any]:
    """Runs ``a`` and ``b`` on the items both have: accuracies, their difference with a paired
    bootstrap interval (over clusters when there are at least :data:`MIN_CLUSTERS`), and McNemar's exact p-value."""
    x = long[long["run"] == a].set_index("item_id")
    y = long[long["run"] == b].set_index("item_id")
    common = x.index.intersection(y.index)
    out: dict[str, Any] = {"run_a": a, "run_b": b, "n": len(common)}
    if not len(common):
        return {**out, "p_value": math.nan, "note": "the two runs share no item"}
    ca = x.loc[common, "correct"].to_numpy(bool)
    cb = y.loc[common, "correct"].to_numpy(bool)
    b01, b10 = int((~ca & cb).sum()), int((ca & ~cb).sum())
    table = [[int((ca & cb).sum()), b10], [b01, int((~ca & ~cb).sum())]]
    p = float(mcnemar(table, exact=True).pvalue) if b01 + b10 else 1.0
    groups = x.loc[common, cluster].to_numpy()
    diff = ca.astype(float) - cb.astype(float)
    g_codes, g_index = np.unique(groups, return_inverse=True)
    if len(g_codes) >= MIN_CLUSTERS:
        sums = np.bincount(g_index, weights=diff)
        counts = np.bincount(g_index).astype(float)
        w = _weights(len(g_codes), n_boot, seed)
        reps = (w @ sums) / (w @ counts)
        method = "paired bootstrap over trials"
    else:
        idx = indices(np.random.default_rng(seed), len(diff), (n_boot, len(diff)))
        reps = diff[idx].mean(axis=1)
        method = "paired bootstrap over items"
    lo, hi = np.quantile(reps, [(1 - CONFIDENCE) / 2, 1 - (1 - CONFIDENCE) / 2])
    return {
        **out,
        "accuracy_a": float(ca.mean()),
        "accuracy_b": float(cb.mean()),
        "difference": float(diff.mean()),
        "ci_low": float(lo),
        "ci_high": float(hi),
        "only_a_right": b10,
        "only_b_right": b01,
        "p_value": p,
        "test": "McNemar's exact test (statsmodels), " + method + f" (B={n_boot}, seed {seed})",
    }


@dataclass
class BenchmarkComparison:
    """The runs of one benchmark, scored once; views computed on first request and kept."""

    bench: Benchmark
    long: pd.DataFrame
    _memo: Memo = field(default_factory=Memo, repr=False)

    @property
    def run_ids(self) -> list[str]:
        return [r.run_id for r in self.bench.ok_runs]

    @property
    def slice_fields(self) -> list[str]:
        return [s for s in self.bench.slices if (self.bench.items[s].astype(str) != "").any()]

    def accuracy(self, field_name: str | None = None) -> pd.DataFrame:
        return self._memo.once(("acc", field_name), lambda: accuracy_table(self.long, field_name, self.bench.cluster))

    def crossed(self, a: str, b: str) -> pd.DataFrame:
        """Accuracy per run and cell of two slice columns crossed (:func:`crossed_table`)."""
        return self._memo.once(("crossed", a, b), lambda: crossed_table(self.long, a, b, self.bench.cluster))

    def per_trial(self) -> pd.DataFrame:
        """Accuracy per run and trial (:func:`per_trial`)."""
        return self._memo.once(("per_trial",), lambda: per_trial(self.long, self.bench.cluster))

    def trial_spread(self) -> pd.DataFrame:
        """Per run, the spread of its per-trial accuracy (:func:`trial_spread`)."""
        return self._memo.once(("spread",), lambda: trial_spread(self.per_trial(), self.accuracy()))

    def paired(self, a: str, b: str) -> dict[str, Any]:
        key = tuple(sorted((a, b)))
        res = self._memo.once(("paired", *key), lambda: paired_test(self.long, key[0], key[1], self.bench.cluster))
        return res if (a, b) == key else _swap(res)

    def leaderboard(self, field_name: str = "question_type") -> pd.DataFrame:
        """Runs x (overall, then each value of ``field_name``): the long cells with ``best`` marked where
        McNemar's test (on the column's items) separates the top run from the others."""

        def make() -> pd.DataFrame:
            cells = pd.concat([self.accuracy(None), self.accuracy(field_name)], ignore_index=True)
            cells["best"] = False
            m = self.correct_matrix()
            values = None if field_name is None else self.bench.items[field_name].astype(str).to_numpy()
            for (_f, value), g in cells.groupby(["field", "value"], sort=False):
                rows = m if value == ALL or values is None else m[values == value]
                cells.loc[_separated(g, rows, self.run_ids), "best"] = True
            return cells

        return self._memo.once(("lb", field_name), make)

    def correct_matrix(self) -> np.ndarray:
        return self._memo.once(("matrix",), lambda: correct_matrix(self.long, len(self.bench.items)))

    def _kinds(self) -> pd.Series:
        """The kind of every option of every item, indexed by (item row, letter)."""

        def make() -> pd.Series:
            rows, letters, kinds = [], [], []
            for r, (opts, ks) in enumerate(zip(self.bench.items["options"], self.bench.items["option_kinds"])):
                for o, k in zip(opts, ks):
                    rows.append(r)
                    letters.append(o.split(".", 1)[0])
                    kinds.append(k or "unnamed distractor")
            return pd.Series(kinds, index=pd.MultiIndex.from_arrays([rows, letters]), dtype=object)

        return self._memo.once(("kinds",), make)

    def coverage(self) -> pd.DataFrame:
        n_groups = self.bench.items["group"].nunique()
        rows = []
        for r in self.bench.runs:
            rows.append(
                {
                    "run": r.run_id,
                    "status": "scored" if r.ok else f"refused ({r.report.error_count} error(s))",
                    "trials": r.groups,
                    "trials_without_file": n_groups - r.groups,
                    "items": len(r.answers),
                    "no_answer": r.no_answer,
                    "unmatched": r.unmatched,
                }
            )
        return pd.DataFrame(rows)

    def confusion(self, run: str) -> pd.DataFrame:
        """What the run chose, per question type: counts of the chosen option's kind (``true_answer``,
        or the mistake the distractor tests; "no answer" and "not an option" where neither applies)."""

        def make() -> pd.DataFrame:
            d = self.long[self.long["run"] == run]
            table = self._kinds()
            answers = d["answer"].to_numpy(object)
            at = table.index.get_indexer(pd.MultiIndex.from_arrays([d["row"].to_numpy(), answers]))
            kinds = np.where(at >= 0, table.to_numpy()[np.maximum(at, 0)], "not an option").astype(object)
            kinds[answers == NO_ANSWER] = "no answer"
            t = pd.crosstab(pd.Series(kinds, name="chosen"), d["question_type"].to_numpy())
            t.columns.name = "question type"
            return t

        return self._memo.once(("confusion", run), make)

    def ablation(self) -> pd.DataFrame:
        """Per model with two or more settings: each later setting against the first, on shared items."""

        def make() -> pd.DataFrame:
            by_model: dict[str, list] = {}
            for r in self.bench.ok_runs:
                by_model.setdefault(r.model, []).append(r)
            rows = []
            for model, runs in by_model.items():
                for other in runs[1:]:
                    t = self.paired(other.run_id, runs[0].run_id)
                    rows.append(
                        {
                            "model": model,
                            "setting": other.setting,
                            "against": runs[0].setting,
                            **{k: t.get(k) for k in ("n", "accuracy_a", "accuracy_b", "difference", "ci_low")},
                            "ci_high": t.get("ci_high"),
                            "p_value": t.get("p_value"),
                        }
                    )
            return pd.DataFrame(rows)

        return self._memo.once(("ablation",), make)

    def instances(self) -> pd.DataFrame:
        """One row per item any run answered: id, question, gold, each run's answer, runs wrong."""

        def make() -> pd.DataFrame:
            m = self.correct_matrix()
            answered = ~np.isnan(m).all(axis=1)
            rows = np.flatnonzero(answered)
            out = self.bench.items.iloc[rows][["item_id", "group", "question_id", *self.slice_fields, "gold"]].copy()
            runs = self.long["run"].cat.codes.to_numpy()
            given = np.full(m.shape, "", dtype=object)
            given[self.long["row"].to_numpy(), runs] = self.long["answer"].to_numpy(object)
            for j, r in enumerate(self.run_ids):
                out[r] = given[rows, j]
            out["runs_wrong"] = (m[rows] == 0).sum(axis=1)
            return out.reset_index(drop=True)

        return self._memo.once(("instances",), make)

    def item(self, item_id: str) -> dict[str, Any]:
        """An item with its options, gold, every run's answer and its group's context."""
        items = self.bench.items
        row = items.index[items["item_id"] == item_id]
        if not len(row):
            raise KeyError(item_id)
        rec = items.loc[row[0]].to_dict()
        d = self.long[self.long["item_id"] == item_id]
        rec["answers"] = dict(zip(d["run"].astype(str), d["answer"]))
        rec["context"] = self.bench.contexts.get(rec["group"], {})
        return rec

    def to_json(self) -> dict[str, Any]:
        return to_json(
            {
                "benchmark": self.bench.name,
                "format": self.bench.kind,
                "synthetic": self.bench.synthetic,
                "items": len(self.bench.items),
                "trials": int(self.bench.items["group"].nunique()) if len(self.bench.items) else 0,
                "runs": self.coverage().to_dict("records"),
                "refused": [
                    {"run": r.run_id, "source": r.source, "problems": r.report.table()} for r in self.bench.refused
                ],
                "accuracy": {f or ALL: self.accuracy(f).to_dict("records") for f in [None, *self.slice_fields]},
                "per_trial": self.per_trial().to_dict("records"),
                "trial_spread": self.trial_spread().to_dict("records"),
                "crossed": {
                    f"{a}{CROSS}{b}": self.crossed(a, b).to_dict("records")
                    for i, a in enumerate(self.slice_fields)
                    for b in self.slice_fields[i + 1 :]
                },
            }
        )


def _swap(res: dict[str, Any]) -> dict[str, Any]:
    out = dict(res)
    out["run_a"], out["run_b"] = res["run_b"], res["run_a"]
    for x, y in (("accuracy_a", "accuracy_b"), ("only_a_right", "only_b_right")):
        if x in res:
            out[x], out[y] = res[y], res[x]
    if "difference" in res:
        out["difference"] = -res["difference"]
        out["ci_low"], out["ci_high"] = -res["ci_high"], -res["ci_low"]
    return out


def _mcnemar_p(m: np.ndarray, a: int, b: int) -> float:
    """McNemar's exact p-value of runs ``a`` and ``b`` (columns of the items x runs matrix ``m``) on
    the items both have."""
    both = ~np.isnan(m[:, a]) & ~np.isnan(m[:, b])
    ca, cb = m[both, a] == 1, m[both, b] == 1
    b01, b10 = int((~ca & cb).sum()), int((ca & ~cb).sum())
    if not b01 + b10:
        return 1.0
    return float(mcnemar([[int((ca & cb).sum()), b10], [b01, int((~ca & ~cb).sum())]], exact=True).pvalue)


def _separated(cells: pd.DataFrame, m: np.ndarray, run_ids: list[str]) -> list:
    """The indices of ``cells`` (one column's runs) to mark best: the top run and every run McNemar's
    test, Holm-adjusted over the column, does not separate from it (:func:`analysis.best.marked_best`)."""
    vals = {i: v for i, v in cells["estimate"].items() if not math.isnan(v)}
    col = {r: j for j, r in enumerate(run_ids)}
    return marked_best(vals, lambda top, i: _mcnemar_p(m, col[cells.at[top, "run"]], col[cells.at[i, "run"]]))


def compare_benchmark(bench: Benchmark) -> BenchmarkComparison:
    """Score every valid run of ``bench`` (refused runs are kept in the benchmark, unscored)."""
    return BenchmarkComparison(bench, scored_items(bench))
