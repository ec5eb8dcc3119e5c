"""Importers: turn another format into a Groundwork dataset directory, all or nothing.

- ``platform``: session folders exported by the open-source collaboration research platform the
  ALMANAC corpus was collected on (:mod:`corpus.importers.platform`);
- ``hcrc``: HCRC Map Task dialogues, ``speaker|text|move`` transcripts or NXT move files
  (:mod:`corpus.importers.hcrc`);
- ``overcooked``: runs of two agents cooking, Collab-Overcooked run logs or Overcooked-AI
  trajectories (:mod:`corpus.importers.overcooked`), written as a kitchen dataset
  (:mod:`corpus.kitchen.dataset`).

:func:`run_import` reads the source, reports every problem with file, record and field, writes
the dataset with :func:`corpus.loading.write.write_dataset` into a staging folder, validates what was
written exactly as the app will read it, and only then moves it to ``dest``. On any error it
raises :class:`corpus.loading.validate.DatasetError` and leaves nothing behind. docs/importers.md
describes the formats, the options and their defaults.

The Map Task importers (platform, hcrc) take a design table (option ``design``): each session's
condition and split, set in :func:`import_source` for both alike (:mod:`corpus.design`). Kitchen
runs and benchmarks refuse it.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.design import DesignFile, apply_design, conditions_after, read_design
from corpus.loading.validate import WARNING, DatasetError, Report, read_dataset
from corpus.model import DatasetInfo, GridMap, Session

log = logging.getLogger(__name__)

FORMATS = {
    "platform": "collaboration platform session export (JSONL logs, ink PNGs, ASCII map)",
    "hcrc": "HCRC Map Task dialogues (speaker|text|move transcripts or NXT move files)",
    "overcooked": "kitchen runs (Collab-Overcooked run logs, Overcooked-AI trajectories): a file, folder or zip",
    "dyntom": "DynToM trials (question_new.json and the answer files of each trial): a trial folder, a folder or zip",
    "maptask-vlm": "Map Task VLM predictions (vlm_predictions_<model>.jsonl) with their gold, linked to HCRC sessions",
    "synchtom": "SynchToM's released items (*-benchmark.json, trajectories/; evaluate.py's score files as judged runs)",
}
# The importers of Map Task sessions: the ones a design table (each session's condition and split) applies to.
MAP_TASK_FORMATS = ("platform", "hcrc")


@dataclass
class ImportResult:
    """What an importer read: maps, sessions, coded labels, and every problem found."""

    maps: list[GridMap] = field(default_factory=list)
    sessions: list[Session] = field(default_factory=list)
    labels: list[dict[str, Any]] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    description: str = ""
    # The details behind labels: landmark reference expressions (labels/gmmt_expressions.jsonl).
    expressions: list[dict[str, Any]] = field(default_factory=list)
    # The dataset's two conditions, reference first, when the importer knows the study's design
    # (HCRC: no_eye_contact, eye_contact); otherwise the sessions' conditions, sorted.
    conditions: list[str] | None = None
    # session id -> the names the source gives the session (the platform's session_name and
    # session_id, HCRC's dialogue id): what a design table's rows may name it by.
    source_names: dict[str, list[str]] = field(default_factory=dict)


def import_source(
    fmt: str,
    src: str | Path,
    report: Report | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    design: str | Path | DesignFile | None = None,
    **options: Any,
) -> ImportResult:
    """Read ``src`` in format ``fmt`` without writing anything.

    Platform options: ``condition``, ``split``, ``ink_share``, ``grid`` (rows, cols), ``map_path``,
    ``landmark_names``, ``roles`` ({participant_id: role}). HCRC options: ``condition``, ``split``,
    ``map_id``, ``gmmt`` (GMMT annotations). See docs/importers.md.

    ``design``: a design table (a path, or an uploaded :class:`corpus.design.DesignFile`) that
    sets each session's condition and split, for both formats alike (:mod:`corpus.design`). Its
    own problems (a missing column, an unknown condition or split) are told before the source is
    read; its rows are matched with the sessions once the source is read without an error.

    ``progress(done, total)`` hears how far a platform import is with its ink images: (0, total)
    before the first is read, then after each ink stroke is rasterized (other formats take the
    option and do not call it).
    """
    report = report if report is not None else Report()
    if design is None:
        return _read_source(fmt, src, report, progress=progress, **options)
    if fmt in FORMATS and fmt not in MAP_TASK_FORMATS:
        report.add("(options)", "-", "design", _no_design(fmt))
        return ImportResult(report=report)
    table = read_design(design, report)
    if table is None or not report.ok:
        return ImportResult(report=report)
    result = _read_source(fmt, src, report, progress=progress, **options)
    if report.ok and result.sessions:
        result.sessions = apply_design(table, result.sessions, result.source_names, report)
        result.conditions = conditions_after(result.conditions, result.sessions)
    return result


def _no_design(fmt: str) -> str:
    """Why format ``fmt`` takes no design table."""
    return (
        f"the {fmt} import takes no design table: conditions and splits are those of Map Task sessions, "
        f"set by a design table on the {' and '.join(MAP_TASK_FORMATS)} imports only"
    )


def _read_source(
    fmt: str,
    src: str | Path,
    report: Report,
    *,
    progress: Callable[[int, int], None] | None = None,
    **options: Any,
) -> ImportResult:
    """:func:`import_source` without the design table."""
    src = Path(src)
    if fmt not in FORMATS:
        report.add("(options)", "-", "format", f"unknown import format {fmt!r} (expected one of {', '.join(FORMATS)})")
        return ImportResult(report=report)
    if src.suffix.lower() == ".zip" and src.is_file():
        from corpus.server.archive import ArchiveError, extracted

        try:
            with extracted(src) as root:
                result = _read_source(fmt, root, report, progress=progress, **options)
        except ArchiveError as exc:
            report.issues.extend(exc.report.issues)
            return ImportResult(report=report)
        return result
    if fmt == "platform":
        from corpus.importers.platform import PlatformOptions, import_folder
        from corpus.importers.platform.session import reporting_progress

        known = set(PlatformOptions.__dataclass_fields__)
        bad = sorted(set(options) - known)
        if bad:
            report.add(
                "(options)", "-", ", ".join(bad), f"not a platform import option (known: {', '.join(sorted(known))})"
            )
            return ImportResult(report=report)
        opts = PlatformOptions(**options)
        with reporting_progress(progress):
            result = import_folder(src, opts, report)
        result.description = (
            "Sessions recorded on the collaboration platform (real sessions; participant names are not imported)."
        )
        return result
    from corpus.importers.hcrc import import_hcrc

    return import_hcrc(src, report, **options)


def run_import(
    fmt: str,
    src: Path,
    dest: Path,
    overwrite: bool = False,
    *,
    name: str | None = None,
    source_name: str | None = None,
    report: Report | None = None,
    **options: Any,
) -> Path:
    """Import ``src`` (format ``fmt``: platform or hcrc) into the dataset directory ``dest``.

    The dataset's description names where it came from: ``source_name`` (an uploaded file's name)
    or else ``src``'s own name.

    Raises :class:`DatasetError` with every problem, writing nothing, if the source has an error,
    if ``dest`` exists and ``overwrite`` is false, or if the written dataset would not load.
    Warnings (a stroke left out, a guide's reset) are added to ``report`` when one is given and
    logged either way.
    """
    src, dest = Path(src), Path(dest)
    report = report if report is not None else Report()
    if dest.exists() and not overwrite:
        report.add(str(dest), "-", "(path)", "exists: choose another destination or overwrite it")
        raise DatasetError(report, str(src))
    if fmt in FORMATS and fmt not in MAP_TASK_FORMATS and options.get("design") is not None:
        report.add("(options)", "-", "design", _no_design(fmt))
        raise DatasetError(report, str(src))
    if fmt == "overcooked":
        return _import_kitchen(src, dest, name=name, source_name=source_name, report=report, **options)
    if fmt in ("dyntom", "maptask-vlm", "synchtom"):
        return _import_benchmark(src, dest, fmt, name=name, source_name=source_name, report=report, **options)
    result = import_source(fmt, src, report, **options)
    if report.ok and not result.sessions:
        report.add(str(src), "-", "(source)", "nothing to import: no sessions found")
    if not report.ok:
        raise DatasetError(report, str(src))

    info = _imported_info(result, name or f"{dest.name} (imported)", source_name or src.name)
    return _written_in_place(dest, lambda staging: _write_checked(staging, info, result, src, report), report)


def _imported_info(result: ImportResult, name: str, source: str) -> DatasetInfo:
    """The dataset.json of an import: its name, where it came from, and its conditions."""
    return DatasetInfo(
        name=name,
        description=" ".join(filter(None, (f"Imported from '{source}'.", result.description))),
        synthetic=False,
        conditions=result.conditions or sorted({s.condition for s in result.sessions}),
    )


def _write_checked(staging: Path, info: DatasetInfo, result: ImportResult, src: Path, report: Report) -> Path:
    """The imported maps and sessions written into ``staging`` and read back; raises
    :class:`DatasetError` if the written dataset would not load (its warnings join ``report``)."""
    from corpus.loading.write import write_dataset

    staged = write_dataset(
        staging, info, result.maps, result.sessions, labels=result.labels, expressions=result.expressions
    )
    _, written = read_dataset(staged)
    for issue in written.issues:
        if issue.severity == WARNING:
            report.issues.append(issue)
        else:
            report.add(issue.file, issue.record, issue.field, f"the written dataset would not load: {issue.message}")
    if not report.ok:
        raise DatasetError(report, str(src))
    return staged


def _written_in_place(dest: Path, write: Callable[[Path], Path], report: Report) -> Path:
    """``write`` the dataset into a staging folder beside ``dest`` (raising if what it wrote would
    not load), then move it into place; nothing is left behind on an error. The report's warnings
    are logged."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging_parent = Path(tempfile.mkdtemp(prefix=f".{dest.name}-import-", dir=dest.parent))
    try:
        staged = write(staging_parent / "dataset")
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(staged, dest)
    finally:
        shutil.rmtree(staging_parent, ignore_errors=True)
    for issue in report.warnings:
        log.warning("%s %s %s: %s", issue.file, issue.record, issue.field, issue.message)
    return dest


def _import_kitchen(
    src: Path, dest: Path, *, name: str | None, source_name: str | None, report: Report, **options: Any
) -> Path:
    """Kitchen runs into a kitchen dataset at ``dest``: every run read, written next to ``dest``,
    read back as the app will read it, and only then moved into place."""
    from corpus.importers.overcooked import read_runs
    from corpus.kitchen.dataset import load_kitchen, write_kitchen_dataset

    options.pop("progress", None)
    if options:
        report.add(
            "(options)", "-", ", ".join(sorted(options)), "not an option of the kitchen run import (it takes none)"
        )
        raise DatasetError(report, str(src))
    runs, found = read_runs(src)
    report.issues.extend(found.issues)
    report.dropped_errors += found.dropped_errors
    if report.ok and not runs:
        report.add(str(src), "-", "(source)", "nothing to import: no runs found")
    if not report.ok:
        raise DatasetError(report, str(src))
    formats = sorted({r.format for r in runs})
    info = DatasetInfo(
        name=name or f"{dest.name} (imported)",
        description=f"Imported from '{source_name or src.name}': {len(runs)} kitchen run(s) ({', '.join(formats)}).",
        synthetic=False,
        conditions=[],
        domain="kitchen",
    )

    def write(staging: Path) -> Path:
        staged = write_kitchen_dataset(staging, info, runs)
        load_kitchen(staged)  # raises DatasetError if what was written would not load
        return staged

    return _written_in_place(dest, write, report)


def _import_benchmark(
    src: Path, dest: Path, fmt: str, *, name: str | None, source_name: str | None, report: Report, **options: Any
) -> Path:
    """A benchmark into a benchmark dataset at ``dest``: DynToM trials, or Map Task VLM predictions
    (options ``gold``: files with the gold answers; ``sessions``: the HCRC dataset the cases' moments
    are checked against and linked to). All or nothing: a run with an error refuses the import,
    naming its file, record and field; written next to ``dest``, read back as the app will read it,
    and only then moved into place."""
    from dataclasses import replace

    from corpus.benchmark.dataset import load_benchmark, write_benchmark_dataset

    options.pop("progress", None)
    allowed = {"gold", "sessions"} if fmt == "maptask-vlm" else set()
    if set(options) - allowed:
        report.add("(options)", "-", ", ".join(sorted(set(options) - allowed)), f"not an option of the {fmt} import")
        raise DatasetError(report, str(src))
    if fmt == "maptask-vlm":
        from corpus.importers.maptask_vlm import read_maptask_vlm
        from corpus.loading.catalog import key_of
        from corpus.loading.dataset import load

        sessions_root = options.get("sessions")
        sessions = load(sessions_root).sessions if sessions_root else None
        bench, found = read_maptask_vlm(src, sessions, options.get("gold"))
        if sessions_root:  # a moment opens Replay on that dataset
            for ctx in bench.contexts.values():
                ctx["dataset"] = key_of(Path(sessions_root))
        what = f"{len(bench.items)} Map Task VLM case(s), {len(bench.runs)} run(s)"
    elif fmt == "synchtom":
        from corpus.importers.tom.synchtom import read_release

        bench, found, what = read_release(src)
    else:
        from corpus.importers.tom import read_dyntom

        bench, found = read_dyntom(src)
        what = ""  # said once the questions are known to be read (an unreadable question file leaves none)
    report.issues.extend(found.issues)
    for run in bench.refused:
        report.issues.extend(run.report.issues)
    if not report.ok:
        raise DatasetError(report, str(src))
    if fmt == "dyntom":
        n_trials = bench.items["group"].nunique()
        what = f"{n_trials} DynToM trial(s), {len(bench.items)} questions, {len(bench.runs)} run(s)"
    bench = replace(
        bench,
        name=name or f"{dest.name} (imported)",
        description=f"Imported from '{source_name or src.name}': {what}.",
    )

    def write(staging: Path) -> Path:
        staged = write_benchmark_dataset(staging, bench)
        load_benchmark(staged)  # raises DatasetError if what was written would not load
        return staged

    return _written_in_place(dest, write, report)
