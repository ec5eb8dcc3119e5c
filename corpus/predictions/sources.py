"""Runs from outside a dataset: an uploaded ``.zip`` or ``.jsonl``, or paths on the command line.

A ``.jsonl`` file holds one task of one run; the task comes from its name
(``<run>.mental_model.jsonl``) or, failing that, from its first line's fields, and the run is
named after the file. A ``.zip`` holds run folders, a dataset's ``predictions/`` folder, or one
run's files at its top level (the run is then named after the archive). Every run is validated by
:func:`corpus.predictions.read_run_dir`, all or nothing per run.
"""

from __future__ import annotations

import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from corpus.limits import PREDICTION_UPLOAD_BYTES
from corpus.loading.jsonsafe import JsonError, loads
from corpus.loading.reading import jsonl_lines
from corpus.loading.validate import Report
from corpus.predictions import DIMENSIONS, FILES, JUDGE_TASK, Run, RunInfo, read_run_dir, read_runs_dir, run_files


def _refused(name: str, record: str, fld: str, message: str, report: Report | None = None) -> list[Run]:
    """A run that could not even be read: only its report."""
    report = report or Report()
    if not report.issues:
        report.add(name, record, fld, message)
    run_id = _run_id_of(name)
    return [Run(run_id=run_id, info=RunInfo(name=run_id), source=name, report=report)]


def _task_of_jsonl(name: str, text: str) -> str | None:
    """The task a lone .jsonl upload holds: from its name, else from the first line's fields."""
    stem = Path(name).stem
    for t in FILES:
        if stem == t or stem.endswith(f".{t}") or stem.endswith(f"_{t}"):
            return t
    first = next((ln for ln in jsonl_lines(text) if ln.strip()), "")
    try:
        obj = loads(first)
    except JsonError:
        return None
    if isinstance(obj, dict):
        if "action_type" in obj:
            return "next_action"
        if any(d in obj for d in DIMENSIONS):
            return "mental_model"
        if "judge" in obj and "score" in obj:
            return JUDGE_TASK
    return None


def _run_id_of(name: str) -> str:
    stem = Path(name).stem
    for t in FILES:
        stem = stem.removesuffix(f".{t}").removesuffix(f"_{t}")
    return stem if stem not in FILES else Path(name).stem


def read_upload(name: str, data: bytes, sessions: Mapping[str, Any], maps: Mapping[str, Any]) -> list[Run]:
    """Runs from an uploaded ``.jsonl`` (one task of one run, named after the file) or ``.zip`` (run
    folders, a dataset's ``predictions/`` folder, or one run's files at its top level), each at most
    :data:`corpus.limits.PREDICTION_UPLOAD_BYTES` (a .zip: what it holds, too)."""
    limit = f"an upload of predictions is at most {PREDICTION_UPLOAD_BYTES // 2**20} MiB"
    if len(data) > PREDICTION_UPLOAD_BYTES:
        return _refused(name, "-", "(file)", f"{len(data) / 2**20:.1f} MiB; {limit}")
    if name.lower().endswith(".jsonl"):
        task = _task_of_jsonl(name, data.decode("utf-8", errors="replace"))
        if task is None:
            return _refused(
                name,
                "line 1",
                "(file)",
                "cannot tell the task: name the file <run>.next_action.jsonl, "
                "<run>.mental_model.jsonl or <run>.judge_scores.jsonl",
            )
        run_id = _run_id_of(name)
        with tempfile.TemporaryDirectory(prefix="groundwork-run-") as tmp:
            folder = Path(tmp) / run_id
            folder.mkdir()
            (folder / f"{task}.jsonl").write_bytes(data)
            return [read_run_dir(folder, sessions, maps, prefix=f"{name}: ", source=name)]
    if not name.lower().endswith(".zip"):
        return _refused(name, "-", "(file)", "expected a .zip of run folders or a .jsonl file of one task")
    from corpus.server.archive import ArchiveError, extracted

    with tempfile.TemporaryDirectory(prefix="groundwork-runs-") as tmp:
        archive = Path(tmp) / "upload.zip"
        archive.write_bytes(data)
        try:
            with zipfile.ZipFile(archive) as zf:  # what it says it holds (the extraction checks it holds no more)
                held = sum(i.file_size for i in zf.infolist())
            if held > PREDICTION_UPLOAD_BYTES:
                return _refused(name, "-", "(archive)", f"holds {held / 2**20:.1f} MiB; {limit}")
            with extracted(archive) as root:
                return _runs_in_folder(root, name, sessions, maps)
        except (ArchiveError, zipfile.BadZipFile) as exc:
            return _refused(name, "-", "(archive)", str(exc), getattr(exc, "report", None))


def _runs_in_folder(root: Path, name: str, sessions, maps) -> list[Run]:
    if (root / "predictions").is_dir():
        return list(read_runs_dir(root / "predictions", sessions, maps, prefix=f"{name}: predictions/").values())
    if run_files(root):
        return [read_run_dir(root, sessions, maps, run_id=Path(name).stem, prefix=f"{name}: ")]
    runs = [
        read_run_dir(d, sessions, maps, prefix=f"{name}: {d.name}/")
        for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("__MACOSX", ".")))
        if run_files(d)
    ]
    if runs:
        return runs
    return _refused(
        name,
        "-",
        "(archive)",
        "no run found: expected run folders holding mental_model.jsonl, next_action.jsonl or judge_scores.jsonl",
    )


_LOADED: dict[str, Any] = {}  # in a worker process: the dataset last read, by content hash


def read_uploads_for(root: str, digest: str, files: list[tuple[str, bytes]]) -> list[Run]:
    """:func:`read_upload` of each (name, bytes) against the dataset at ``root`` whose content hash is
    ``digest`` (read once per process and dataset): what a worker process runs for the Compare page."""
    corpus = _LOADED.get(digest)
    if corpus is None:
        from corpus.loading.dataset import load

        corpus = load(root)
        if corpus.content_hash != digest:
            return [
                run
                for name, _ in files
                for run in _refused(
                    name, "-", "(dataset)", "the dataset changed while the upload waited; upload it again"
                )
            ]
        _LOADED.clear()
        _LOADED[digest] = corpus
    return [run for name, data in files for run in read_upload(name, data, corpus.outlines, corpus.maps)]


def read_paths(paths: Iterable[str | Path], sessions, maps) -> list[Run]:
    """Runs from the command line: run folders, ``.zip`` or ``.jsonl`` files."""
    out: list[Run] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(
                _runs_in_folder(p, p.name, sessions, maps)
                if not run_files(p)
                else [read_run_dir(p, sessions, maps, prefix=f"{p.name}/")]
            )
        else:
            out.extend(read_upload(p.name, p.read_bytes(), sessions, maps))
    return out
