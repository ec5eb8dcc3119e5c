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

Written all or nothing (:func:`write_benchmark_dataset`), read back exactly (:func:`load_benchmark`).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from corpus.model import DatasetInfo
from corpus.reading import load_json, parse
from corpus.report import DatasetError, Report, describe

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
    from corpus.write import folder_in_place

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
    meta = load_json(root / "judged_runs.json", report, "judged_runs.json")
    scores = _read_csv(root / "judged.csv", "judged.csv", ["run", *JUDGED_COLUMNS], report)
    if meta is None or scores is None:
        return ()
    for col in ("score", "criteria"):
        values = pd.to_numeric(scores[col], errors="coerce")
        bad = values.isna() | (values != values.round()) | (values < 0)
        if bad.any():
            k = int(bad.to_numpy().argmax())
            report.add("judged.csv", f"row {k + 2}", col, f"expected a whole number, got {describe(scores.at[k, col])}")
            return ()
        scores[col] = values.astype(int)
    unknown = item_ids.get_indexer(scores["item_id"]) < 0
    if unknown.any():
        k = int(unknown.argmax())
        report.add(
            "judged.csv", f"row {k + 2}", "item_id", f"no such item in items.csv: {describe(scores.at[k, 'item_id'])}"
        )
        return ()
    runs = []
    for k, r in enumerate(meta[0] if isinstance(meta[0], list) else []):
        if not isinstance(r, dict) or not isinstance(r.get("run"), str):
            report.add("judged_runs.json", f"[{k}]", "run", f"expected a judged run's id, got {describe(r)}")
            continue
        own = scores[scores["run"] == r["run"]][list(JUDGED_COLUMNS)].reset_index(drop=True)
        runs.append(
            JudgedRun(
                run_id=r["run"],
                model=str(r.get("model", r["run"])),
                setting=str(r.get("setting", "")),
                judge=str(r.get("judge", "")),
                scores=own,
                source=str(r.get("source", "")),
                missing=tuple(str(i) for i in r.get("missing", []) or []),
            )
        )
    return tuple(runs)


def is_benchmark(root: str | Path) -> bool:
    """Whether ``root`` holds a benchmark dataset (its dataset.json says so)."""
    try:
        info = json.loads((Path(root) / "dataset.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(info, dict) and info.get("domain") == DOMAIN


def _read_csv(path: Path, rel: str, columns: Iterable[str], report: Report) -> pd.DataFrame | None:
    if not path.is_file():
        report.add(rel, "-", "(file)", "missing: a benchmark dataset needs it")
        return None
    try:
        frame = pd.read_csv(path, dtype=object, keep_default_na=False, na_filter=False)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        report.add(rel, "-", "(file)", f"cannot be read as CSV: {exc}")
        return None
    lacking = [c for c in columns if c not in frame.columns]
    if lacking:
        report.add(rel, "header", lacking[0], f"missing column (the header has {', '.join(frame.columns)})")
        return None
    return frame


def _json_list(frame: pd.DataFrame, col: str, rel: str, report: Report) -> list[list[str]]:
    texts = frame[col].tolist()
    try:  # one parse of the whole column; row by row only to name a bad row
        values = json.loads("[" + ",".join(texts) + "]")
        if len(values) == len(texts) and all(
            isinstance(v, list) and all(isinstance(x, str) for x in v) for v in values
        ):
            return values
    except ValueError:
        pass
    out: list[list[str]] = []
    for k, text in enumerate(texts):
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            report.add(rel, f"row {k + 2}", col, f"expected a JSON array of strings, got {describe(text)}")
            value = []
        out.append(value)
    return out


def load_benchmark(root: str | Path) -> Benchmark:
    """Read a benchmark dataset; :class:`DatasetError` with every problem if it has any."""
    from corpus.dataset import content_hash

    root = Path(root)
    report = Report()
    loaded = load_json(root / "dataset.json", report, "dataset.json")
    meta: dict[str, Any] = {}
    info = None
    if loaded is not None:
        raw = loaded[0]
        if isinstance(raw, dict):
            meta = raw.pop("benchmark", None) or {}
            info = parse(DatasetInfo, raw, report, "dataset.json", "-")
            if info is not None and info.domain != DOMAIN:
                report.add("dataset.json", "-", "domain", f"expected '{DOMAIN}', got '{info.domain}'")
        else:
            report.add("dataset.json", "-", "(file)", f"expected a JSON object, got {describe(raw)}")
    slices = meta.get("slices", []) if isinstance(meta, dict) else []
    items = _read_csv(root / "items.csv", "items.csv", [*ITEM_COLUMNS, *slices], report)
    answers = _read_csv(root / "answers.csv", "answers.csv", ["run", "item_id", "answer"], report)
    runs_meta = load_json(root / "runs.json", report, "runs.json")
    contexts = load_json(root / "contexts.json", report, "contexts.json")
    if items is not None:
        for col in ("options", "option_kinds"):
            items[col] = _json_list(items, col, "items.csv", report)
        dup = items["item_id"].duplicated()
        if dup.any():
            report.add("items.csv", f"row {int(dup.idxmax()) + 2}", "item_id", "the same item id twice")
    if not report.ok or info is None or items is None or answers is None or runs_meta is None:
        raise DatasetError(report, str(root))
    item_ids = items["item_id"].to_numpy(object)
    group_codes = pd.factorize(items["group"].to_numpy(object))[0]
    at = pd.Index(item_ids).get_indexer(answers["item_id"].to_numpy(object))
    if (at < 0).any():
        k = int(np.flatnonzero(at < 0)[0])
        report.add(
            "answers.csv", f"row {k + 2}", "item_id", f"no such item in items.csv: {describe(answers.at[k, 'item_id'])}"
        )
        raise DatasetError(report, str(root))
    run_codes, run_names = pd.factorize(answers["run"].to_numpy(object))
    code_of = {name: c for c, name in enumerate(run_names)}
    values = answers["answer"].to_numpy(object)
    runs = []
    for k, r in enumerate(runs_meta[0] if isinstance(runs_meta[0], list) else []):
        if not isinstance(r, dict) or not isinstance(r.get("run"), str):
            report.add("runs.json", f"[{k}]", "run", f"expected a run's id, got {describe(r)}")
            continue
        sel = run_codes == code_of.get(r["run"], -2)
        rows = at[sel]
        scope = np.flatnonzero(np.isin(group_codes, np.unique(group_codes[rows])))
        full = np.full(len(item_ids), NO_ANSWER, dtype=object)
        full[rows] = values[sel]
        runs.append(
            AnswerRun(
                run_id=r["run"],
                model=str(r.get("model", r["run"])),
                setting=str(r.get("setting", "")),
                answers=pd.DataFrame({"item_id": item_ids[scope], "answer": full[scope]}),
                source=str(r.get("source", "")),
                unmatched=int(r.get("unmatched", 0) or 0),
                no_answer=int(r.get("no_answer", 0) or 0),
                groups=int(r.get("groups", 0) or 0),
            )
        )
    judged = _load_judged(root, pd.Index(item_ids), report)
    if not report.ok:
        raise DatasetError(report, str(root))
    return Benchmark(
        name=info.name,
        kind=str(meta.get("format", "")),
        items=items.reset_index(drop=True),
        slices=tuple(slices),
        cluster=str(meta.get("cluster", "group")),
        contexts=contexts[0] if contexts is not None and isinstance(contexts[0], dict) else {},
        runs=tuple(runs),
        synthetic=info.synthetic,
        description=info.description,
        content_hash=content_hash(root),
        root=root,
        judged=judged,
    )
