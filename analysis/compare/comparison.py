"""One comparison: a dataset's human labels and a set of runs, scored once.

:func:`compare` joins every valid run to the people's side and keeps what the views cut from it.
The scores (the long table of :mod:`analysis.compare.scores`, one task at a time) and the views'
tables (leaderboards, paired tests, slices, disagreements, confusions) are computed on first
request and remembered in the object, so a page that keeps the object (per dataset content hash
and run set) recomputes nothing when it switches views.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analysis.compare import items as it
from analysis.compare.judges import judge_agreement
from analysis.compare.leaderboard import MEASURES, Leaderboard, leaderboard, run_order, separated_best
from analysis.compare.paired import accuracy_p, by_mcnemar, paired_table
from analysis.compare.scores import ALL, KEYS, TASK_DIMENSIONS, TITLE, score_table
from analysis.compare.slices import slice_fields, slice_table
from analysis.format import to_json
from analysis.memo import Memo
from analysis.results import EstimateTable, wilson_columns
from corpus.benchmark.dataset import AnswerRun, Benchmark
from corpus.loading.dataset import Corpus
from corpus.predictions import DIMENSIONS, JUDGE_TASK, Run, RunInfo
from corpus.server.processes import on_threads
from corpus.values import Undefined

KINDS = {
    "people": "a run disagrees with the person",
    "each_other": "runs disagree with each other",
    "all": "every predicted item",
}


@dataclass
class Comparison:
    dataset: str
    content_hash: str
    synthetic: bool
    runs: dict[str, Run]  # every run given, refused ones included
    infos: dict[str, RunInfo]  # the runs scored, in leaderboard order
    items: dict[str, it.RunItems]
    parts: it.Parts  # the category table by run and dimension (it.category_parts)
    similarity_missing: str | None
    truth: pd.DataFrame
    _memo: Memo = field(default_factory=Memo, repr=False)

    @property
    def run_ids(self) -> list[str]:
        return list(self.infos)

    @property
    def refused(self) -> list[Run]:
        return [r for r in self.runs.values() if not r.ok]

    @property
    def cat(self) -> pd.DataFrame:
        """The category table, one row per (run, item, dimension) (:func:`it.long_table`)."""
        return self._memo.once(("cat",), lambda: it.long_table(self.parts))

    def task_scores(self, task: str, margins: bool = True) -> EstimateTable:
        """Every score of one task (:func:`analysis.compare.scores.score_table`), made when first
        asked for: a page that shows one task's table does not wait for the other's; without the
        ``margins`` (the scores over all conditions or roles), what the leaderboard shows."""
        return self._memo.once(
            ("scores", task, margins),
            lambda: score_table(
                [self.items[r] for r in self.infos],
                self.parts,
                self.similarity_missing,
                tasks=(task,),
                margins=margins,
            ),
        )

    @property
    def scores(self) -> EstimateTable:
        """Every score of both tasks: the long table the command line and the exports give."""

        def make() -> EstimateTable:
            rows = tuple(r for task in TASK_DIMENSIONS for r in self.task_scores(task).rows)
            return EstimateTable(rows=rows, keys=KEYS, title=TITLE)

        return self._memo.once(("scores",), make)

    @property
    def score_frame(self) -> pd.DataFrame:
        return self._memo.once(("score_frame",), self.scores.to_frame)

    def task_score_frame(self, task: str, margins: bool = True) -> pd.DataFrame:
        return self._memo.once(("score_frame", task, margins), self.task_scores(task, margins).to_frame)

    def leaderboard(self, task: str, measure: str = "accuracy") -> Leaderboard:
        """The paper's table, the best run of a column marked only where the paired test separates it."""

        def make() -> Leaderboard:
            lb = leaderboard(self.task_score_frame(task, margins=False), self.infos, task, measure)
            asked: list[tuple] = []  # (which tests the marking asks for does not hang on their answers)

            def ask(a: str, b: str, condition: str, role: str, metric: str, dimension: str) -> Undefined:
                if not by_mcnemar(metric, dimension):  # (McNemar's p needs no paired table)
                    asked.append((a, b, condition, role, dimension))
                return Undefined("not tested yet")

            separated_best(lb.cells, ask)
            self._paired_at_once(asked)
            lb.cells["best"] = separated_best(lb.cells, self.paired_p)
            return lb

        return self._memo.once(("lb", task, measure), make)

    def paired_p(self, a: str, b: str, condition: str, role: str, metric: str, dimension: str) -> Any:
        """The paired test's p-value of runs ``a`` and ``b`` on one score (undefined where there is none):
        only that score's dimension is tested (a leaderboard asks this for many pairs of runs), and an
        accuracy's test (McNemar's exact test, the paired table's) without the table's bootstraps."""
        if by_mcnemar(metric, dimension):
            key = ("accuracy_p", a, b, condition, role, dimension)
            return self._memo.once(key, lambda: accuracy_p(self.parts, a, b, condition, role, dimension))
        table = self.paired(a, b, condition, role, dimension)
        for r in table.rows:
            if r["metric"] == metric and r["dimension"] == dimension:
                return r.get("p_value", Undefined("no test"))
        return Undefined("no paired test of this score")

    def paired(
        self, a: str, b: str, condition: str = ALL, role: str = ALL, dimension: str | None = None
    ) -> EstimateTable:
        """Run ``b`` against run ``a`` (:func:`analysis.compare.paired.paired_table`), every score or
        one dimension's."""
        return self._memo.once(
            ("paired", a, b, condition, role, dimension), lambda: self._paired(a, b, condition, role, dimension)
        )

    def _paired(self, a: str, b: str, condition: str, role: str, dimension: str | None) -> EstimateTable:
        return paired_table(
            self.parts,
            self.items,
            a,
            b,
            condition,
            role,
            similarity=self.similarity_missing is None,
            dimension=dimension,
        )

    def _paired_at_once(self, keys: list[tuple]) -> None:
        """The paired tables of ``keys`` (run a, run b, condition, role, dimension) not made yet,
        made on a few threads at once (their bootstraps are array work, done outside Python's lock)
        and kept as :meth:`paired` keeps them."""
        with self._memo.lock:
            todo = list(dict.fromkeys(k for k in keys if ("paired", *k) not in self._memo.values))
        if len(todo) < 2:
            return
        for key, table in zip(todo, on_threads(lambda k: self._paired(*k), todo)):
            self._memo.put(("paired", *key), table)

    def slice_fields(self) -> list[str]:
        return self._memo.once(("fields",), lambda: slice_fields(self.cat))

    def slices(self, field_name: str, dimension: str) -> pd.DataFrame:
        return self._memo.once(("slice", field_name, dimension), lambda: slice_table(self.cat, field_name, dimension))

    def judges(self) -> tuple[EstimateTable, dict]:
        def make():
            tables, matrices = [], {}
            for run_id in self.run_ids:
                t, m = judge_agreement(self.runs[run_id].table(JUDGE_TASK), run_id)
                tables.extend(t.rows)
                matrices.update({(run_id, *k): v for k, v in m.items()})
            keys = ("run", "task", "criterion", "judge_a", "judge_b", "metric")
            return EstimateTable(rows=tuple(tables), keys=keys, title="Judge agreement"), matrices

        return self._memo.once(("judges",), make)

    def coverage(self) -> pd.DataFrame:
        """Per run and task: predictions, scored items, unmatched predictions, missing instances."""
        return self._memo.once(("coverage",), self._coverage)

    def _coverage(self) -> pd.DataFrame:
        rows = []
        for run_id, ri in self.items.items():
            for task, frame in (("mental_model", ri.mm), ("next_action", ri.na)):
                n_pred = len(self.runs[run_id].table(task))
                if not n_pred:
                    continue
                rows.append(
                    {
                        "run": run_id,
                        "task": task,
                        "predictions": n_pred,
                        "scored": len(frame),
                        "unmatched": int((ri.unmatched["task"] == task).sum()),
                        "missing": int((ri.missing["task"] == task).sum()),
                    }
                )
        return pd.DataFrame(rows, columns=["run", "task", "predictions", "scored", "unmatched", "missing"])

    def unmatched(self) -> pd.DataFrame:
        return self._memo.once(("unmatched",), lambda: self._every_run("unmatched"))

    def missing(self) -> pd.DataFrame:
        return self._memo.once(("missing",), lambda: self._every_run("missing"))

    def _every_run(self, name: str) -> pd.DataFrame:
        return pd.concat([getattr(ri, name).assign(run=r) for r, ri in self.items.items()], ignore_index=True)

    def confusion(self, run: str, dimension: str) -> pd.DataFrame:
        """Counts of (person's label, model's label) over the labels either side used."""

        def make():
            d = self.parts.get((run, dimension), self.cat.iloc[:0])
            used = [c for c in it.CATEGORIES[dimension] if c in set(d["truth"]) | set(d["pred"])]
            cm = pd.crosstab(d["truth"], d["pred"]).reindex(index=used, columns=used, fill_value=0)
            cm.index.name, cm.columns.name = "person", "model"
            return cm

        return self._memo.once(("confusion", run, dimension), make)

    def per_label(self, dimension: str) -> pd.DataFrame:
        """Recall of each label the people gave, per run, with Wilson intervals."""

        def make():
            d = self.cat[self.cat["dimension"] == dimension]
            g = d.groupby(["run", "truth"], sort=False)["correct"].agg(["sum", "size"]).reset_index()
            lo, hi = wilson_columns(g["sum"], g["size"])
            out = pd.DataFrame(
                {
                    "run": g["run"],
                    "label": g["truth"],
                    "recall": g["sum"] / g["size"],
                    "ci_low": lo,
                    "ci_high": hi,
                    "n": g["size"],
                }
            )
            order = {c: i for i, c in enumerate(it.CATEGORIES[dimension])}
            return out.sort_values(["run", "label"], key=lambda s: s.map(order) if s.name == "label" else s)

        return self._memo.once(("per_label", dimension), make)

    def disagreements(self, dimension: str, kind: str = "people") -> pd.DataFrame:
        """Items of a dimension with the person's label and every run's, filtered by ``kind``."""

        def make():
            d = self.cat[self.cat["dimension"] == dimension]
            if d.empty:
                return pd.DataFrame()
            key = ["session_id", "action_index", "role", "condition", "progress", "truth"]
            wide = d.pivot_table(index=key, columns="run", values="pred", aggfunc="first", observed=True)
            wide = wide.reindex(columns=[r for r in self.run_ids if r in wide.columns]).reset_index()
            preds = wide[[r for r in self.run_ids if r in wide.columns]]
            wrong = preds.ne(wide["truth"], axis=0) & preds.notna()
            wide["runs_wrong"] = wrong.sum(axis=1)
            wide["runs_differ"] = preds.nunique(axis=1, dropna=True) > 1
            keep = {
                "people": wide["runs_wrong"] > 0,
                "each_other": wide["runs_differ"],
                "all": pd.Series(True, index=wide.index),
            }[kind]
            out = wide[keep].merge(
                self.truth[["session_id", "action_index", "h_action_type", "h_text", "h_rationale"]],
                on=["session_id", "action_index"],
                how="left",
            )
            return out.sort_values(["session_id", "action_index"]).reset_index(drop=True)

        return self._memo.once(("disagree", dimension, kind), make)

    def overlay(self, session_id: str) -> pd.DataFrame:
        """One row per run, dimension and predicted action of a session, with both sides' rationales and
        the predicted content (``p_content``: None where a prediction has none, as a mental model's)."""
        return self._memo.once(("overlay", session_id), lambda: self._overlay(session_id))

    def _overlay(self, session_id: str) -> pd.DataFrame:
        d = self.cat[self.cat["session_id"] == session_id]
        parts = []
        for run, ri in self.items.items():
            for frame, dims in ((ri.mm, it.DIMENSIONS), (ri.na, (it.ACTION_TYPE,))):
                if frame.empty:
                    continue
                f = frame[frame["session_id"] == session_id]
                extra = f[["action_index", "p_rationale"]].assign(
                    p_content=f["p_content"] if "p_content" in f else None
                )
                sub = d[(d["run"] == run) & d["dimension"].isin(dims)].merge(extra, on="action_index", how="left")
                parts.append(sub)
        if not parts:
            return pd.DataFrame()
        out = pd.concat(parts, ignore_index=True)
        return out.merge(
            self.truth[["session_id", "action_index", "h_action_type", "h_text", "h_rationale"]],
            on=["session_id", "action_index"],
            how="left",
        )

    def as_benchmark(self, task: str) -> Benchmark:
        """One of the two ALMANAC tasks as a benchmark of the general kind (:mod:`corpus.benchmark.dataset`):
        an item per (action, dimension) with the person's label as gold and the dimension's labels
        as options, each run's labels as its answers, grouped (and clustered) by session, sliced by
        dimension, role, condition, progress and split. Its accuracies are this comparison's."""
        dims = list(DIMENSIONS) if task == "mental_model" else [it.ACTION_TYPE]
        d = self.cat[self.cat["dimension"].isin(dims)]
        key = d["session_id"].astype(str) + ":" + d["action_index"].astype(str) + ":" + d["dimension"].astype(str)
        d = d.assign(item_id=key.to_numpy())
        first = d.drop_duplicates("item_id")
        items = pd.DataFrame(
            {
                "item_id": first["item_id"].to_numpy(),
                "group": first["session_id"].astype(str).to_numpy(),
                "question_id": (first["action_index"].astype(str) + ":" + first["dimension"].astype(str)).to_numpy(),
                "question": [f"{dim} of action {i}" for dim, i in zip(first["dimension"], first["action_index"])],
                "options": [list(it.CATEGORIES[dim]) for dim in first["dimension"]],
                "option_kinds": [[""] * len(it.CATEGORIES[dim]) for dim in first["dimension"]],
                "gold": first["truth"].astype(str).to_numpy(),
                **{c: first[c].astype(str).to_numpy() for c in ("dimension", "role", "condition", "progress", "split")},
            }
        )
        runs = tuple(
            AnswerRun(
                run_id=r,
                model=self.infos[r].model_id,
                setting=self.infos[r].setting,
                answers=pd.DataFrame({"item_id": g["item_id"].to_numpy(), "answer": g["pred"].astype(str).to_numpy()}),
            )
            for r, g in d.groupby("run", sort=False)
            if r in self.infos
        )
        return Benchmark(
            name=f"{self.dataset}: {task.replace('_', '-')} prediction",
            kind="almanac",
            items=items,
            slices=("dimension", "role", "condition", "progress", "split"),
            cluster="group",
            contexts={},
            runs=tuple(sorted(runs, key=lambda r: self.run_ids.index(r.run_id))),
            synthetic=self.synthetic,
            content_hash=self.content_hash,
        )

    def sessions(self) -> list[str]:
        return self._memo.once(("sessions",), lambda: sorted(self.cat["session_id"].unique().tolist()))

    def to_json(self) -> dict[str, Any]:
        """Everything the command line prints with --json."""
        lb = {
            "next_action": self.leaderboard("next_action").to_json(),
            **{
                f"mental_model_{m}" if m != "accuracy" else "mental_model": self.leaderboard(
                    "mental_model", m
                ).to_json()
                for m in MEASURES
            },
        }
        cov = self.coverage()
        return to_json(
            {
                "dataset": self.dataset,
                "content_hash": self.content_hash,
                "synthetic": self.synthetic,
                "similarity": self.similarity_missing or "computed",
                "runs": [
                    {
                        "run": r,
                        **self.infos[r].as_dict(),
                        "coverage": cov[cov["run"] == r].drop(columns="run").to_dict("records"),
                    }
                    for r in self.run_ids
                ],
                "refused": [{"run": r.run_id, "source": r.source, "problems": r.report.table()} for r in self.refused],
                "leaderboard": lb,
                "scores": self.scores.to_json(),
            }
        )


def compare(corpus: Corpus, runs: Iterable[Run], similarity: bool = True) -> Comparison:
    """Score every valid run against the dataset's people (refused runs are kept, unscored)."""
    by_id = {r.run_id: r for r in runs}
    ok = {rid: r for rid, r in by_id.items() if r.ok}
    truth = it.truth_frame(corpus)
    at = it.TruthRows.of(truth)
    items = dict(zip(ok, on_threads(lambda r: it.run_items(corpus, r, truth, at), ok.values())))  # (see score_table)
    missing = it.add_similarity(list(items.values())) if similarity else "similarity was not requested"
    parts = it.category_parts(list(items.values()))
    infos = {rid: ok[rid].info for rid in run_order({rid: r.info for rid, r in ok.items()})}
    return Comparison(
        dataset=corpus.info.name,
        content_hash=corpus.content_hash,
        synthetic=corpus.synthetic,
        runs=by_id,
        infos=infos,
        items=items,
        parts=parts,
        similarity_missing=missing,
        truth=truth,
    )
