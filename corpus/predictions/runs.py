"""Run folders: ``model.json`` and the task files of each run, a dataset's ``predictions/`` folder
(its next-action and mental-model files read by worker processes when there are any), and the
problems of runs as a table."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import pandas as pd

from corpus.loading.jsonsafe import JsonError, loads
from corpus.loading.reading import bytes_at_once, json_issue, read_text
from corpus.loading.report import WARNING, Report, describe
from corpus.loading.validate import collector_paused
from corpus.predictions.at_once import _outlines, _read_task_bytes
from corpus.predictions.frames import PackedRows
from corpus.predictions.lines import Failed, read_task_text
from corpus.predictions.records import FILES, INFO_FIELDS, TASKS, Run, RunInfo


def _read_info(obj: Any, rel: str, default_name: str, report: Report) -> RunInfo:
    if obj is None:
        return RunInfo(name=default_name)
    if not isinstance(obj, dict):
        report.add(rel, "-", "(record)", f"expected a JSON object, got {describe(obj)}")
        return RunInfo(name=default_name)
    values: dict[str, Any] = {}
    for k, typ in INFO_FIELDS.items():
        v = obj.get(k)
        if v is not None and not isinstance(v, typ):
            report.add(rel, "-", k, f"expected {'true or false' if typ is bool else 'a string'}, got {describe(v)}")
        elif v is not None:
            values[k] = v
    meta = {k: v for k, v in obj.items() if k not in INFO_FIELDS}
    return RunInfo(name=values.pop("name", None) or default_name, metadata=meta, **values)


def _json_or_none(text: str | None, rel: str, report: Report) -> Any:
    """The value a JSON text holds; None when there is no text or it is refused (reported)."""
    if text is None:
        return None
    try:
        return loads(text)
    except JsonError as exc:
        json_issue(report, rel, exc)
        return None


def run_files(folder: Path) -> dict[str, Path]:
    """The files of a run folder that a run may hold, by name."""
    names = ["model.json", *(f"{t}.jsonl" for t in FILES)]
    return {n: folder / n for n in names if (folder / n).is_file()}


def read_run_dir(
    folder: str | Path,
    sessions: Mapping[str, Any],
    maps: Mapping[str, Any],
    run_id: str | None = None,
    prefix: str | None = None,
    source: str = "",
    failed: Failed | None = None,
    ready: Mapping[str, tuple[pd.DataFrame, str]] | None = None,
) -> Run:
    """One run folder, checked against the dataset's sessions and maps.

    ``prefix`` is put before file names in the problems (default ``<folder name>/``); ``ready``:
    the rows workers read of its files at once and the digest of each file's text, by path
    (:func:`read_task_file_at_once`): those files are not read here."""
    folder = Path(folder)
    run_id = run_id or folder.name
    prefix = f"{folder.name}/" if prefix is None else prefix
    files = run_files(folder)
    report = Report()
    texts, tables, digest = _read_files(files, prefix, report, ready or {})
    info_rel = prefix + "model.json"
    info = _read_info(_json_or_none(texts.get("model.json"), info_rel, report), info_rel, run_id, report)
    for task in FILES:
        if (text := texts.get(f"{task}.jsonl")) is not None:
            tables[task] = read_task_text(text, task, f"{prefix}{task}.jsonl", sessions, maps, report, failed)
    tables = {task: tables[task] for task in FILES if task in tables}
    if not any(f"{t}.jsonl" in files for t in FILES):
        report.add(
            prefix.rstrip("/: ") or run_id,
            "-",
            "(folder)",
            "no predictions: a run holds next_action.jsonl, mental_model.jsonl or judge_scores.jsonl",
        )
    run = Run(run_id=run_id, info=info, source=source or str(folder), report=report, tables=tables, digest=digest)
    if not report.ok:
        run.tables = {}  # all or nothing: a refused run keeps only its report
    return run


def _read_files(
    files: Mapping[str, Path], prefix: str, report: Report, ready: Mapping[str, tuple[pd.DataFrame, str]]
) -> tuple[dict[str, str | None], dict[str, pd.DataFrame], str]:
    """The texts of a run's files (None: unreadable, reported), but for those workers read
    (``ready``: their rows, by task), and the run's digest: of each file's name and the digest of its text."""
    digest = hashlib.sha256()
    texts: dict[str, str | None] = {}
    tables: dict[str, pd.DataFrame] = {}
    for name, path in files.items():
        done = ready.get(str(path))
        if done is not None:
            tables[name.removesuffix(".jsonl")], file_digest = done
        else:
            texts[name] = read_text(path, report, prefix + name)
            file_digest = text_digest(texts[name] or "")
        digest.update(f"{name}\0{file_digest}\0".encode())
    return texts, tables, digest.hexdigest()


def read_runs_dir(
    pred_dir: str | Path,
    sessions: Mapping[str, Any],
    maps: Mapping[str, Any],
    prefix: str = "predictions/",
    failed: Failed | None = None,
    pool: Executor | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> dict[str, Run]:
    """Every run folder of a ``predictions/`` folder, by run id (refused runs included). With a
    ``pool`` of worker processes, each next-action and mental-model file is first read at once by
    one of them (what a worker cannot read so is read here, line by line); ``meanwhile`` is called
    once the files are handed to them (at once without them)."""
    pred_dir = Path(pred_dir)
    dirs = (
        sorted(p for p in pred_dir.iterdir() if p.is_dir() and not p.name.startswith(".")) if pred_dir.is_dir() else []
    )
    ready = _ReadAtOnce(pool, dirs, sessions, maps) if pool is not None and failed is None else {}
    if meanwhile is not None:
        meanwhile()
    return {
        d.name: read_run_dir(d, sessions, maps, prefix=f"{prefix}{d.name}/", failed=failed, ready=ready) for d in dirs
    }


def text_digest(text: str) -> str:
    """The digest of a file's text, as a run's digest counts it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_task_file_at_once(
    path: str, task: str, sessions: Mapping[str, Any], maps: Mapping[str, Any]
) -> tuple[PackedRows, str] | None:
    """The rows of the next-action or mental-model file at ``path`` read at once
    (:func:`_read_task_at_once`), packed to be handed over, and the digest of its text; None when
    it has anything to report. A worker's task."""
    with collector_paused():
        data = bytes_at_once(path)
        rows = None if data is None else _read_task_bytes(data, task, sessions, maps)
        return None if rows is None or data is None else (rows, _bytes_digest(data))


def _bytes_digest(data: bytes) -> str:
    """:func:`text_digest` of the text of a file's bytes (that :func:`corpus.loading.reading.text_of` makes)."""
    return hashlib.sha256(data.removeprefix(b"\xef\xbb\xbf")).hexdigest()


class _ReadAtOnce(Mapping[str, tuple[pd.DataFrame, str]]):
    """The rows of every next-action and mental-model file of some run folders that a worker read at
    once, and the digest of its text, by path: each file is handed to a worker at the start, and its
    rows are waited for only when asked for (this process reads the run's other files meanwhile)."""

    def __init__(self, pool: Executor, dirs: Iterable[Path], sessions: Mapping[str, Any], maps: Mapping[str, Any]):
        files = [(str(d / f"{task}.jsonl"), task) for d in dirs for task in TASKS if (d / f"{task}.jsonl").is_file()]
        outlines = _outlines(sessions) if files else {}
        self._futures = {name: pool.submit(read_task_file_at_once, name, task, outlines, maps) for name, task in files}

    def __getitem__(self, name: str) -> tuple[pd.DataFrame, str]:
        future = self._futures[name]
        try:
            done = future.result()
        except Exception:  # noqa: BLE001 - (a file a worker fails on is read here)
            done = None
        if done is None:
            raise KeyError(name)
        return done[0].frame(), done[1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._futures)

    def __len__(self) -> int:
        return len(self._futures)


def read_dataset_runs(
    root: Path,
    sessions: Mapping[str, Any],
    maps: Mapping[str, Any],
    report: Report,
    failed: Failed | None = None,
    pool: Executor | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> dict[str, Run]:
    """A dataset's runs, for the dataset reader. A refused run does not stop the dataset from loading:
    its problems are listed in the dataset's report as warnings, and it is left out. A line naming a
    session with errors is passed to ``failed`` and skipped (the dataset does not load anyway).
    ``pool``: worker processes that read the runs' files, and ``meanwhile``, called once they have
    them (:func:`read_runs_dir`)."""
    runs = read_runs_dir(root / "predictions", sessions, maps, failed=failed, pool=pool, meanwhile=meanwhile)
    for run in runs.values():
        if not run.report.ok:
            n = len(run.report.errors)
            report.add(
                f"predictions/{run.run_id}/",
                "-",
                "(run)",
                f"run '{run.run_id}' has {n} error(s) and is left out of comparisons",
                WARNING,
            )
        for issue in run.report.issues:
            report.add(issue.file, issue.record, issue.field, issue.message, WARNING)
    return runs


def issues_frame(runs: Iterable[Run]) -> pd.DataFrame:
    """Every problem of the given runs: run, severity, file, record, field, message."""
    rows = [{"run": r.run_id, **i.as_dict()} for r in runs for i in r.report.issues]
    return pd.DataFrame(rows, columns=["run", "file", "record", "field", "message", "severity"])
