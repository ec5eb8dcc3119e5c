"""A benchmark as data: items with a gold answer, and runs of answers to them.

An **item** has an id, a gold answer, the options where there are any (with the kind of each
option: which mistake a distractor tests), the question, metadata to slice by, a group (the trial
or story it belongs to, which is also the cluster of the intervals) and a link to its context (the
story scenario, or a session moment). A **run** is one model's answers in one setting, item id ->
answer. The Map Task's next-action and mental-model tasks are scored the same way by
:mod:`analysis.compare`; theory-of-mind benchmarks arrive through :mod:`corpus.importers.tom`.

A benchmark dataset on disk (``"domain": "benchmark"`` in dataset.json) holds

- ``items.csv``: one row per item (``item_id, group, question_id, question, options, option_kinds,
  gold`` and the slice columns; ``options`` and ``option_kinds`` are JSON arrays);
- ``answers.csv``: ``run, item_id, answer``, one row per answered item;
- ``runs.json``: each run's id, model, setting and where it came from, in leaderboard order;
- ``contexts.json``: group -> its context (for a story: the scenarios, each a list of lines);
- ``dataset.json``: name, description, ``synthetic``, and ``benchmark``: the format read, the
  slice columns in order and the cluster column;
- for a benchmark whose outputs are judged on rubrics rather than answered (SynchToM), when any run
  was judged: ``judged.csv`` (``run, item_id, dimension, score, criteria``: the criteria the judge
  found met, of the item's rubric's criteria on that dimension) and ``judged_runs.json`` (each judged
  run's id, model, setting, judge, where it came from and the items it has no score for).

Written all or nothing (:func:`write_benchmark_dataset`), read back exactly (:func:`load_benchmark`),
every record checked by its model (:mod:`corpus.benchmark.records`).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from corpus.benchmark.records import (
    AnswersTable,
    ArrayFile,
    BenchmarkInfo,
    BenchmarkMeta,
    ContextsFile,
    ItemsTable,
    JudgedRunEntry,
    JudgedRunsFile,
    JudgedTable,
    M,
    RunEntry,
    RunsFile,
    checked,
    read_table,
)
from corpus.loading.reading import load_json, parse
from corpus.loading.report import DatasetError, Report
from corpus.model import DatasetInfo

DOMAIN = "benchmark"
ITEM_COLUMNS = ("item_id", "group", "question_id", "question", "options", "option_kinds", "gold")
NO_ANSWER = ""  # an item a run's file leaves out: scored wrong, as the benchmarks' own evaluations do
JUDGED_COLUMNS = ("item_id", "dimension", "score", "criteria")


@dataclass(frozen=True)
class AnswerRun:
    """One model's answers in one setting: ``answers`` has columns item_id, answer (every item of
    the run's groups; :data:`NO_ANSWER` where its file has none)."""

    run_id: str
    model: str
    setting: str
    answers: pd.DataFrame
    source: str = ""
    report: Report = field(default_factory=Report)
    unmatched: int = 0  # answers to ids the benchmark does not have
    no_answer: int = 0  # items of the run's groups its files leave out
    groups: int = 0  # groups (trials) the run has a file for

    @property
    def ok(self) -> bool:
        return self.report.ok

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run_id,
            "model": self.model,
            "setting": self.setting,
            "source": self.source,
            "groups": self.groups,
            "answered": int((self.answers["answer"] != NO_ANSWER).sum()),
            "no_answer": self.no_answer,
            "unmatched": self.unmatched,
        }


@dataclass(frozen=True)
class JudgedRun:
    """One model's outputs in one setting, scored by one judge on each item's rubric: ``scores`` has
    columns item_id, dimension, score (the criteria met), criteria (the rubric's criteria on that
    dimension), one row per item and dimension the judge scored."""

    run_id: str
    model: str
    setting: str
    judge: str
    scores: pd.DataFrame
    source: str = ""
    missing: tuple[str, ...] = ()  # items of the run's benchmark files it has no score for

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run_id,
            "model": self.model,
            "setting": self.setting,
            "judge": self.judge,
            "source": self.source,
            "scored": int(self.scores["item_id"].nunique()),
            "missing": list(self.missing),
        }


@dataclass(frozen=True)
class Benchmark:
    """Items and runs of one benchmark (``kind`` names the format it was read from)."""

    name: str
    kind: str
    items: pd.DataFrame
    slices: tuple[str, ...]
    cluster: str
    contexts: dict[str, Any]
    runs: tuple[AnswerRun, ...]
    synthetic: bool = False
    description: str = ""
    content_hash: str = ""
    root: Path | None = None
    judged: tuple[JudgedRun, ...] = ()

    @property
    def ok_runs(self) -> list[AnswerRun]:
        return [r for r in self.runs if r.ok]

    @property
    def refused(self) -> list[AnswerRun]:
        return [r for r in self.runs if not r.ok]

    # -- what every dataset offers (corpus.domain.Dataset) -------------------------------------

    @property
    def domain(self) -> str:
        return DOMAIN

    @property
    def unit_noun(self) -> str:
        return "trial"

    @property
    def dataset_id(self) -> str:
        from corpus.loading.catalog import key_of

        return key_of(self.root) if self.root is not None else self.content_hash[:12]

    @property
    def provenance(self) -> dict[str, str]:
        from corpus.domain import provenance

        return provenance(self.description, format=self.kind)

    @property
    def units(self) -> pd.DataFrame:
        """One row per trial (a group of items: a story, an interaction): unit_id (the group),
        condition and split (not recorded) and its number of items."""
        from corpus.domain import UNIT_ID
        from corpus.schema import NOT_RECORDED

        counts = self.items.groupby("group", sort=False).size()
        return pd.DataFrame(
            {
                UNIT_ID: counts.index.astype(str),
                "condition": NOT_RECORDED,
                "split": NOT_RECORDED,
                "items": counts.to_numpy(),
            },
            columns=[UNIT_ID, "condition", "split", "items"],
        )


def _info(bench: Benchmark) -> dict[str, Any]:
    info = DatasetInfo(name=bench.name, description=bench.description, synthetic=bench.synthetic, domain=DOMAIN)
    return {
        **info.model_dump(mode="json"),
        "benchmark": {"format": bench.kind, "slices": list(bench.slices), "cluster": bench.cluster},
    }


def _csv(frame: pd.DataFrame) -> str:
    return frame.to_csv(index=False, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)


def write_benchmark_dataset(dest: str | Path, bench: Benchmark, overwrite: bool = False) -> Path:
    """Write the benchmark's valid runs as a dataset next to ``dest`` and move it into place once
    complete (nothing is left behind on an error)."""
    from corpus.loading.write import folder_in_place

    items = bench.items.copy()
    for col in ("options", "option_kinds"):
        items[col] = [json.dumps(list(v), ensure_ascii=False) for v in items[col]]
    runs = bench.ok_runs
    answers = pd.concat(
        [r.answers[r.answers["answer"] != NO_ANSWER].assign(run=r.run_id) for r in runs]
        or [pd.DataFrame(columns=["item_id", "answer", "run"])],
        ignore_index=True,
    )[["run", "item_id", "answer"]]
    meta = [r.as_dict() for r in runs]
    with folder_in_place(Path(dest), overwrite) as tmp:
        (tmp / "dataset.json").write_text(json.dumps(_info(bench), ensure_ascii=False, indent=2), encoding="utf-8")
        (tmp / "items.csv").write_text(_csv(items), encoding="utf-8")
        (tmp / "answers.csv").write_text(_csv(answers), encoding="utf-8")
        (tmp / "runs.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")
        (tmp / "contexts.json").write_text(
            json.dumps(bench.contexts, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
        )
        if bench.judged:
            _write_judged(tmp, bench.judged)
    return Path(dest)


def _write_judged(folder: Path, runs: tuple[JudgedRun, ...]) -> None:
    scores = pd.concat([r.scores.assign(run=r.run_id) for r in runs], ignore_index=True)[["run", *JUDGED_COLUMNS]]
    (folder / "judged.csv").write_text(_csv(scores), encoding="utf-8")
    meta = [r.as_dict() for r in runs]
    (folder / "judged_runs.json").write_text(json.dumps(meta, ensure_ascii=False, indent=1), encoding="utf-8")


def _load_judged(root: Path, item_ids: pd.Index, report: Report) -> tuple[JudgedRun, ...]:
    """The judged runs of a benchmark dataset (none when it has no judged_runs.json)."""
    if not (root / "judged_runs.json").is_file():
        return ()
    entries = _entries(JudgedRunEntry, JudgedRunsFile, root, "judged_runs.json", report)
    read = read_table(JudgedTable, root / "judged.csv", "judged.csv", report, context={"items": item_ids})
    if entries is None or read is None:
        return ()
    table, scores = read
    for col in ("score", "criteria"):
        scores[col] = np.asarray(getattr(table, col), dtype=np.int64)
    run_of = scores["run"].to_numpy(object)
    return tuple(
        JudgedRun(
            run_id=e.run,
            model=e.run if e.model is None else e.model,
            setting=e.setting,
            judge=e.judge,
            scores=scores[run_of == e.run][list(JUDGED_COLUMNS)].reset_index(drop=True),
            source=e.source,
            missing=tuple(e.missing),
        )
        for e in entries
    )


def _entries(model: type[M], array: type[ArrayFile], root: Path, rel: str, report: Report) -> list[M] | None:
    """The valid entries of a JSON file that holds an array of them (None when it cannot be read or
    is no array; each entry's problems go to ``report``, named by its place, ``[0]`` the first)."""
    loaded = load_json(root / rel, report, rel)
    found = None if loaded is None else checked(array, loaded[0], report, rel, "-", whole="(file)")
    if found is None:
        return None
    entries = [checked(model, e, report, rel, f"[{k}]") for k, e in enumerate(found.root)]
    return [e for e in entries if e is not None]


def is_benchmark(root: str | Path) -> bool:
    """Whether ``root`` holds a benchmark dataset (its dataset.json says so)."""
    try:
        info = json.loads((Path(root) / "dataset.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(info, dict) and info.get("domain") == DOMAIN


def load_benchmark(root: str | Path) -> Benchmark:
    """Read a benchmark dataset; :class:`DatasetError` with every problem if it has any (each file's
    records validated by their models, :mod:`corpus.benchmark.records`)."""
    from corpus.loading.dataset import content_hash

    root = Path(root)
    report = Report()
    info, meta = _dataset_json(root, report)
    items_read = read_table(ItemsTable, root / "items.csv", "items.csv", report, required=tuple(meta.slices))
    known = None if items_read is None else pd.Index(items_read[0].item_id, dtype=object)
    answers_read = read_table(AnswersTable, root / "answers.csv", "answers.csv", report, context={"items": known})
    runs_meta = _entries(RunEntry, RunsFile, root, "runs.json", report)
    loaded = load_json(root / "contexts.json", report, "contexts.json")
    contexts = (
        None if loaded is None else checked(ContextsFile, loaded[0], report, "contexts.json", "-", whole="(file)")
    )
    judged = () if known is None else _load_judged(root, known, report)
    if not report.ok or info is None or items_read is None or answers_read is None or runs_meta is None:
        raise DatasetError(report, str(root))
    (table, items), (answers, answer_rows) = items_read, answers_read
    items["options"], items["option_kinds"] = table.options, table.option_kinds
    item_ids = items["item_id"].to_numpy(object)
    group_codes = pd.factorize(items["group"].to_numpy(object))[0]
    run_codes, run_names = pd.factorize(answer_rows["run"].to_numpy(object))
    code_of = {name: c for c, name in enumerate(run_names)}
    values = answer_rows["answer"].to_numpy(object)
    runs = []
    for r in runs_meta:
        sel = run_codes == code_of.get(r.run, -2)
        rows = answers.at[sel]
        scope = np.flatnonzero(np.isin(group_codes, np.unique(group_codes[rows])))
        full = np.full(len(item_ids), NO_ANSWER, dtype=object)
        full[rows] = values[sel]
        runs.append(
            AnswerRun(
                run_id=r.run,
                model=r.run if r.model is None else r.model,
                setting=r.setting,
                answers=pd.DataFrame({"item_id": item_ids[scope], "answer": full[scope]}),
                source=r.source,
                unmatched=r.unmatched,
                no_answer=r.no_answer,
                groups=r.groups,
            )
        )
    return Benchmark(
        name=info.name,
        kind=meta.format,
        items=items.reset_index(drop=True),
        slices=tuple(meta.slices),
        cluster=meta.cluster,
        contexts={} if contexts is None else contexts.root,
        runs=tuple(runs),
        synthetic=info.synthetic,
        description=info.description,
        content_hash=content_hash(root),
        root=root,
        judged=judged,
    )


def _dataset_json(root: Path, report: Report) -> tuple[DatasetInfo | None, BenchmarkMeta]:
    """What a benchmark's dataset.json says: what every dataset.json holds, and its ``benchmark``."""
    loaded = load_json(root / "dataset.json", report, "dataset.json")
    found = None if loaded is None else checked(BenchmarkInfo, loaded[0], report, "dataset.json", "-", whole="(file)")
    if loaded is None or not isinstance(loaded[0], dict):
        return None, BenchmarkMeta()
    info = parse(DatasetInfo, {k: v for k, v in loaded[0].items() if k != "benchmark"}, report, "dataset.json", "-")
    if info is not None and info.domain != DOMAIN:
        report.add("dataset.json", "-", "domain", f"expected '{DOMAIN}', got '{info.domain}'")
    return info, BenchmarkMeta() if found is None else found.benchmark
