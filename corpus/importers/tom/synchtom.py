"""SynchToM's per-instance LLM-judge scores (THUNLP-MT/SynchToM), as its ``evaluate.py`` writes them.

**Format** (``evaluate.py`` at commit ca35c11, the repository's only version of it). One run of
``python evaluate.py --input inference_<name>.json [--judge-model M]`` writes:

- ``evaluation_results/evaluation_<name>_<YYYYmmdd_HHMMSS>.json`` (``<name>``: the inference file's
  stem without its leading ``inference_``, e.g. ``culture-benchmark_claude_step0``): a JSON array
  (not JSON lines), one object per instance the judge scored, in the order they finished (an
  instance whose judging failed is absent). Each object has ``instance_id`` (the benchmark's
  ``id``, e.g. ``swe_0001``), ``domain``, ``evaluated_at``, ``ground_truth``, ``inference``,
  ``rubrics`` (dimension -> list of ``{"criterion": text}``) and ``evaluation``: the judge's JSON
  reply, with one object per dimension (``latent_belief_explanation``, ``user_profile_modeling``,
  ``correct_resolution``) holding ``criterion_scores`` (``{"criterion_1": 0 or 1, ...}``),
  ``total_score``, ``max_score`` and ``feedback``, plus ``overall_summary`` and ``raw_response``.
- ``evaluation_summary.json`` in the working folder, i.e. next to ``evaluation_results/`` (only
  when at least one instance was scored): a JSON array to which each run appends an entry with
  ``judge_model``, ``input_file``, ``output_file`` (``evaluation_results/evaluation_....json``),
  ``timestamp`` and averaged ``scores``.

The judge model (``--judge-model``, else the ``JUDGE_MODEL`` environment variable, else
``Qwen/Qwen3-32B``) is written **only** in the summary: neither the score file's name nor its
records carry it. The repository releases no score file; the paper's judge comparison (Table 2:
Qwen3-32B against GPT-5.2 and Gemini-3-Pro) would be one score file per judge of the same
inference file, each named in a summary entry.

**Rule.** ``evaluate.py`` asks the judge for a 0/1 score per rubric criterion and, on the judge's
reply, overwrites each dimension's ``total_score`` with the sum of its ``criterion_scores`` and its
``max_score`` with the number of rubric criteria of that dimension (the paper then divides the
two). So a dimension's score is the number of its criteria met, 0 to the number of criteria.

**Mapping.** One row per instance and dimension: ``instance_id`` <- ``instance_id``; ``judge`` <-
the ``judge_model`` of the summary entry whose ``output_file`` has the score file's name (or the
``judges`` argument, file name -> judge, which wins); ``dimension`` <- the key under
``evaluation``; ``criteria`` <- the number of ``criterion_scores`` equal to 1 (or ``total_score``
when the judge gave no ``criterion_scores``); ``score`` <- ``total_score``.
:func:`to_judge_scores` gives the table :func:`analysis.compare.judges.judge_agreement` scores.

**Checks.** A record without a string ``instance_id`` or an object ``evaluation``, a dimension
that is not an object, a criterion score that is not the integer 0 or 1, a ``total_score`` that
is not an integer, or differs from the sum of the criterion scores (``evaluate.py`` never writes
that), a score outside 0 to the number of the rubric's criteria, an instance listed twice: each an
error naming the file, the record (``instance <id>``, or ``record <n>``, its 1-based position in
the array, when it has no id) and the field. A file with an error, or whose judge is unknown, is
refused whole; the other files are read. An item of the agreement is an instance of one inference
file (``inference``: ``<name>`` of the score file's name, its timestamp cut off), so a folder of
evaluations of many models' inference files is read at once; two files of one judge that score the
same instance of the same inference file (a re-run) are both refused. A dimension missing from a
record, or a judge scoring a different number of criteria than the rubric has (``max_score``), is
a warning (``evaluate.py`` lets both through). A record's checks are its model's
(:class:`corpus.importers.tom.records.ScoredInstance`).

SynchToM's rubrics have 2-7 criteria per dimension (``correct_resolution`` has 6 or 7 in 63 of the
391 instances of the four released benchmark files): the agreement's scale is 0-5, or 0 to the
highest score given (:func:`analysis.compare.judges.scale_of`).

**Read back against the items** (:func:`read_judged_runs`, with the items of
:mod:`corpus.importers.tom.synchtom_items`). A *run* is one model's inference files in one setting,
judged by one judge: the model and setting come from the inference file's name as ``inference.py``
makes it (``<benchmark file stem>_<model>_step<N>_<stamp>``; setting ``step<N>``), one score file
per benchmark file. Each score is joined to its item and kept with the number of the item's
rubric's criteria on its dimension (what evaluate.py divides by). A score file that scores an
instance the items do not have, or a dimension on a rubric of another size than the item's, is
refused whole, naming the file, the instance and the field; two files of one run that score the same
item are both refused. The items of a run's benchmark files it has no score for are named in a
warning (evaluate.py leaves out an instance whose judging failed) and kept with the run.
:func:`read_release` reads a release's folder as evaluate.py leaves it: the items, and the score
files under it as judged runs.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd

from corpus.benchmark.dataset import Benchmark, JudgedRun
from corpus.benchmark.records import checked, given_id
from corpus.importers.tom.records import DIMENSIONS, ScoredInstance, ScoreFile, SummaryEntry, SummaryFile
from corpus.importers.tom.synchtom_items import (
    KIND,
    benchmark_order,
    empty_benchmark,
    read_synchtom_items,
    rubric_sizes,
)
from corpus.importers.tom.synchtom_runs import fits_items, judged_run, without_clashes
from corpus.loading.reading import load_json
from corpus.loading.report import WARNING, DatasetError, Report, shown
from corpus.server.archive import extract_to

SUMMARY_FILE = "evaluation_summary.json"
SCORE_FILE = re.compile(r"^evaluation_.+\.json$")
_STAMP = re.compile(r"^evaluation_(?P<name>.+?)(?:_\d{8}_\d{6})?\.json$")
COLUMNS = ["inference", "instance_id", "judge", "dimension", "score", "criteria"]
TASK = KIND


def _rel(path: Path, root: Path | None) -> str:
    """A file's name in messages: its path under the source folder, else its folder and name."""
    if root is not None and path.is_relative_to(root):
        return path.relative_to(root).as_posix()
    return f"{path.parent.name}/{path.name}"


def _score_files(root: Path) -> Iterator[Path]:
    """The score files in a folder, at any depth: ``evaluation_*.json`` but the summary."""
    for path in sorted(root.rglob("*.json")):
        if path.is_file() and SCORE_FILE.match(path.name) and path.name != SUMMARY_FILE:
            yield path


def _summary_paths(root: Path | None, files: Iterable[Path]) -> list[Path]:
    """Every summary in the source folder (any depth), and one in each score file's folder or its
    parent: ``evaluate.py`` writes the summary next to ``evaluation_results/``."""
    found: dict[Path, None] = {}
    if root is not None:
        found.update(dict.fromkeys(p for p in sorted(root.rglob(SUMMARY_FILE)) if p.is_file()))
    for f in files:
        for folder in (f.parent, f.parent.parent):
            if (folder / SUMMARY_FILE).is_file():
                found[folder / SUMMARY_FILE] = None
    return list(found)


def _summaries(paths: list[Path], root: Path | None, report: Report) -> dict[str, set[str]]:
    """Score-file name -> judge models the summaries name for it. A summary's problems are
    warnings: it is not a score file, and a score file it fails to name is refused on its own."""
    judges: dict[str, set[str]] = defaultdict(set)
    for path in paths:
        name = _rel(path, root)
        own = Report()
        loaded = load_json(path, own, name)
        for issue in own.issues:
            report.add(issue.file, issue.record, issue.field, issue.message, WARNING)
        found = (
            None
            if loaded is None
            else checked(SummaryFile, loaded[0], report, name, "-", whole="(file)", severity=WARNING)
        )
        for n, raw in enumerate([] if found is None else found.root, start=1):
            entry = checked(SummaryEntry, raw, Report(), name, f"entry {n}")  # (its problems worded once, below)
            if entry is not None:
                judges[re.split(r"[\\/]", entry.output_file)[-1]].add(entry.judge_model)
            else:
                report.add(
                    name, f"entry {n}", "output_file, judge_model", "entry skipped: expected both as strings", WARNING
                )
    return judges


def _read_file(path: Path, rel: str, report: Report) -> list[dict[str, Any]] | None:
    """The rows of one score file, or None when it has any error (all or nothing per file): each
    record a :class:`.records.ScoredInstance`, named ``instance '<id>'``, or ``record <n>`` (its place
    in the array, from 1) when it has no id."""
    errors_before = report.error_count
    loaded = load_json(path, report, rel)
    found = None if loaded is None else checked(ScoreFile, loaded[0], report, rel, "-", whole="(file)")
    if found is None:
        return None
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for n, rec in enumerate(found.root, start=1):
        iid = given_id(rec, "instance_id")
        record = f"record {n}" if iid is None else f"instance {shown(iid)}"
        if iid is not None and iid in seen:
            report.add(rel, record, "instance_id", f"listed twice: records {seen[iid]} and {n}")
            continue
        if iid is not None:
            seen[iid] = n
        scored = checked(ScoredInstance, rec, report, rel, record)
        if scored is None:
            continue
        for dim in DIMENSIONS:
            value = getattr(scored.evaluation, dim)
            if value is None:
                report.add(rel, record, f"evaluation.{dim}", "missing: the judge gave no score for it", WARNING)
                continue
            for fld, message in value.warnings():
                report.add(rel, record, f"evaluation.{dim}.{fld}", message, WARNING)
            rows.append(
                {
                    "instance_id": scored.instance_id,
                    "dimension": dim,
                    "score": value.score,
                    "criteria": value.score,
                    "max_score": value.top,
                    "rubric": scored.rubrics.get(dim),
                }
            )
    return None if report.error_count > errors_before else rows


def _judge(name: str, rel: str, judges: Mapping[str, str], named: Mapping[str, set[str]], report: Report) -> str | None:
    found = named.get(name, set())
    if name in judges:
        if found and found != {judges[name]}:
            report.add(
                rel,
                "-",
                "judge",
                f"judge {shown(judges[name])} given; the summary names {', '.join(sorted(found))}",
                WARNING,
            )
        return judges[name]
    if len(found) == 1:
        return next(iter(found))
    if found:
        report.add(rel, "-", "judge_model", f"summaries name several judges for this file: {', '.join(sorted(found))}")
    else:
        report.add(
            rel,
            "-",
            "judge_model",
            f"no judge: no {SUMMARY_FILE} entry has this file as output_file (evaluate.py writes the judge "
            "model only there); give it in judges",
        )
    return None


def read_synchtom(source: str | Path, judges: Mapping[str, str] | None = None) -> tuple[pd.DataFrame, Report]:
    """Every judge's scores in ``source`` (one score file, or a folder of them at any depth), one
    row per instance and dimension (:data:`COLUMNS`), and the problems found. ``judges`` maps a
    score file's name to its judge model, for files no ``evaluation_summary.json`` names."""
    df, report = _read_scores(source, judges)
    return df[COLUMNS], report


FULL_COLUMNS = [*COLUMNS, "file", "max_score", "rubric"]


def _score_sources(source: Path, report: Report) -> tuple[Path | None, list[Path]] | None:
    """(the folder files are named from, or None for a file given alone; the score files), or None
    when ``source`` does not exist."""
    if source.is_dir():
        files = list(_score_files(source))
        if not files:
            report.add(source.name, "-", "(source)", "no evaluation_*.json score file in this folder")
        return source, files
    if source.is_file():
        return None, [source]
    report.add(source.name, "-", "(source)", f"not found: {source}")
    return None


def _overlapping(read: list[tuple[str, str, list[dict[str, Any]]]], report: Report) -> set[int]:
    """The places in ``read`` of the files refused because another file of the same judge scores
    some of the same instances of the same inference file (which one is meant is unknown)."""
    by_judge: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, (rel, judge, _) in enumerate(read):
        by_judge[(judge, inference_of(rel))].append(k)
    refused: set[int] = set()
    for (judge, _), ks in by_judge.items():
        ids = {k: {r["instance_id"] for r in read[k][2]} for k in ks}
        for i, a in enumerate(ks):
            for b in ks[i + 1 :]:
                common = sorted(ids[a] & ids[b])
                if not common:
                    continue
                for x, y in ((a, b), (b, a)):
                    report.add(
                        read[x][0],
                        f"instance {shown(common[0])}",
                        "instance_id",
                        f"judge {shown(judge)} also scores {len(common)} of these instances in {read[y][0]}: "
                        "a re-run of the same evaluation? keep one of the two files",
                    )
                refused |= {a, b}
    return refused


def _scores_frame(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """The score files' rows in one table of :data:`FULL_COLUMNS`, typed and sorted."""
    if not frames:
        return pd.DataFrame(columns=FULL_COLUMNS)
    df = pd.concat(frames, ignore_index=True)[FULL_COLUMNS]
    df[["max_score", "rubric"]] = df[["max_score", "rubric"]].fillna(-1)
    df = df.astype(
        {
            "inference": str,
            "instance_id": str,
            "judge": str,
            "dimension": str,
            "score": int,
            "criteria": int,
            "file": str,
            "max_score": int,
            "rubric": int,
        }
    )
    order = ["judge", "inference", "instance_id", "dimension"]
    return df.sort_values(order, kind="stable").reset_index(drop=True)


def _read_scores(source: str | Path, judges: Mapping[str, str] | None = None) -> tuple[pd.DataFrame, Report]:
    """:func:`read_synchtom`'s rows with, beside :data:`COLUMNS`, the score file (``file``, as named
    in messages), the judge's ``max_score`` (the number of criteria it scored where it wrote none)
    and the number of the record's rubric's criteria on the dimension (``rubric``; -1 where the
    record has no rubric)."""
    source = Path(source)
    report = Report()
    judges = dict(judges or {})
    found = _score_sources(source, report)
    if found is None:
        return pd.DataFrame(columns=FULL_COLUMNS), report
    root, files = found
    named = _summaries(_summary_paths(root, files), root, report)
    read: list[tuple[str, str, list[dict[str, Any]]]] = []  # (file, judge, rows)
    for path in files:
        rel = _rel(path, root) if root is not None else path.name
        judge = _judge(path.name, rel, judges, named, report)
        rows = _read_file(path, rel, report)
        if judge is not None and rows is not None:
            read.append((rel, judge, rows))
    refused = _overlapping(read, report)
    frames = [
        pd.DataFrame(rows, columns=["instance_id", "dimension", "score", "criteria", "max_score", "rubric"]).assign(
            judge=judge, inference=inference_of(rel), file=rel
        )
        for k, (rel, judge, rows) in enumerate(read)
        if k not in refused and rows
    ]
    return _scores_frame(frames), report


def inference_of(name: str) -> str:
    """The inference file a score file evaluates: ``<name>`` of ``evaluation_<name>_<stamp>.json``."""
    base = re.split(r"[\\/]", name)[-1]
    m = _STAMP.match(base)
    return m["name"] if m else base


def to_judge_scores(df: pd.DataFrame) -> pd.DataFrame:
    """The scores as :func:`analysis.compare.judges.judge_agreement` takes them: an item is an
    instance of one inference file (``session_id`` ``<inference>/<instance>``; ``action_index`` 0),
    the task ``synchtom``, the criterion the dimension."""
    return pd.DataFrame(
        {
            "session_id": df["inference"].astype(str) + "/" + df["instance_id"].astype(str),
            "action_index": 0,
            "task": TASK,
            "criterion": df["dimension"].astype(str),
            "judge": df["judge"].astype(str),
            "score": df["score"].astype(int),
        },
        index=df.index,
    )


_RUN_NAME = re.compile(r"^(?P<model>.+)_step(?P<steps>-?\d+)(?:_\d{8}_\d{6})?$")


def run_of(inference: str, stems: Iterable[str] = ()) -> tuple[str, str]:
    """(model, setting) of an inference file's name as ``inference.py`` makes it,
    ``<benchmark file stem>_<model>_step<N>_<YYYYmmdd_HHMMSS>`` (the stamp may be cut off): the
    setting is ``step<N>``. The benchmark file's stem is one of ``stems`` (the items' files), or
    else the name's first part up to ``_``. A name of another shape is the model, with no setting."""
    rest = inference
    for stem in sorted(stems, key=len, reverse=True):
        if inference.startswith(stem + "_"):
            rest = inference[len(stem) + 1 :]
            break
    else:
        head, sep, tail = inference.partition("_")
        rest = tail if sep and _RUN_NAME.match(tail) else inference
    m = _RUN_NAME.match(rest)
    return (m["model"], f"step{int(m['steps'])}") if m else (inference, "")


def read_judged_runs(
    source: str | Path, bench: Benchmark, judges: Mapping[str, str] | None = None
) -> tuple[tuple[JudgedRun, ...], Report]:
    """The judge score files in ``source`` read back against ``bench``'s items (SynchToM's, read by
    :mod:`corpus.importers.tom.synchtom_items`): one :class:`corpus.benchmark.dataset.JudgedRun` per model,
    setting and judge (the score files of one inference run per benchmark file), and the problems.

    A score file is refused whole when it scores an instance the items do not have, or scores a
    dimension on a rubric of another size than the item's (it was judged against other items); two
    files of one run scoring the same item are both refused. The items of a run's benchmark files it
    has no score for (``evaluate.py`` leaves out an instance whose judging failed; ``inference.py`` one
    whose trajectory file is missing) are named in a warning and kept with the run; its scores are
    averaged over the items it has."""
    df, report = _read_scores(source, judges)
    if df.empty:
        return (), report
    items = bench.items.set_index("item_id")
    files = {str(c["file"]) for c in bench.contexts.values() if isinstance(c, dict) and "file" in c}
    stems = {re.split(r"[\\/]", f)[-1].removesuffix(".json") for f in files}
    sizes = rubric_sizes(bench)
    kept = [g for rel, g in df.groupby("file", sort=True) if fits_items(str(rel), g, items, files, sizes, report)]
    if not kept:
        return (), report
    df = pd.concat(kept, ignore_index=True)
    runs_of = {name: run_of(name, stems) for name in df["inference"].unique()}
    df["model"] = df["inference"].map(lambda n: runs_of[n][0])
    df["setting"] = df["inference"].map(lambda n: runs_of[n][1])
    df["benchmark"] = items["benchmark"].reindex(df["instance_id"]).to_numpy()
    out = []
    for (model, setting, judge), g in df.groupby(["model", "setting", "judge"], sort=True):
        g = without_clashes(g, model, setting, judge, report)
        if not g.empty:
            out.append(judged_run(model, setting, judge, g, items, sizes, report))
    return tuple(out), report


def read_release(source: str | Path) -> tuple[Benchmark, Report, str]:
    """SynchToM's released items in ``source`` (the release's folder, a folder holding benchmark
    files, one benchmark file, or a .zip of the release) with, when the folder holds score files
    (``evaluation_*.json`` at any depth: evaluate.py writes them into ``evaluation_results/`` of the
    folder it runs in), the judged runs read back against the items; the problems of both; and what
    was read, in a few words."""
    source = Path(source)
    if source.is_file() and source.suffix.lower() == ".zip":
        tmp = Path(tempfile.mkdtemp(prefix="groundwork-synchtom-"))
        try:
            return _read_release(extract_to(source, tmp / "release"), source.name)
        except DatasetError as exc:  # corpus.server.archive.ArchiveError: the archive refused
            return empty_benchmark(source.name), exc.report, ""
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return _read_release(source, source.name)


def _read_release(source: Path, label: str) -> tuple[Benchmark, Report, str]:
    bench, report = read_synchtom_items(source)
    bench = replace(bench, name=label)
    if not report.ok or not source.is_dir() or next(_score_files(source), None) is None:
        return bench, report, _said(bench)
    judged, found = read_judged_runs(source, bench)
    report.issues.extend(found.issues)
    report.dropped_errors += found.dropped_errors
    bench = replace(bench, judged=judged)
    return bench, report, _said(bench)


def _said(bench: Benchmark) -> str:
    counts = bench.items["benchmark"].value_counts()
    per = ", ".join(f"{b} {counts[b]}" for b in benchmark_order(counts.index))
    said = f"{len(bench.items)} SynchToM items ({per})" if len(bench.items) else "no SynchToM item"
    return said + (f", {len(bench.judged)} judged run(s)" if bench.judged else "")


def load_items(source: str | Path) -> Benchmark:
    """SynchToM's items: a benchmark dataset imported from them (:func:`corpus.benchmark.dataset.load_benchmark`,
    with its judged runs), or the release itself (its items only: :func:`read_synchtom_items`);
    :class:`DatasetError` with every problem when they have an error, or when the dataset is a
    benchmark of another format."""
    from corpus.benchmark.dataset import is_benchmark, load_benchmark

    if is_benchmark(source):
        bench = load_benchmark(source)
        if bench.kind != KIND:
            report = Report()
            report.add(
                "dataset.json",
                "-",
                "benchmark.format",
                f"expected '{KIND}' (SynchToM's items), got {shown(bench.kind)}",
            )
            raise DatasetError(report, str(source))
        return bench
    bench, report = read_synchtom_items(source)
    if not report.ok:
        raise DatasetError(report, str(source))
    return bench


def judged_frame(runs: Iterable[JudgedRun]) -> pd.DataFrame:
    """The judged runs' scores in :data:`COLUMNS` (the inference is ``<model>_<setting>``), for
    :func:`to_judge_scores`: an agreement item is an item of one model's run in one setting."""
    frames = [
        r.scores.assign(inference=f"{r.model}_{r.setting}" if r.setting else r.model, judge=r.judge).rename(
            columns={"item_id": "instance_id"}
        )
        for r in runs
    ]
    if not frames:
        return pd.DataFrame(columns=COLUMNS)
    out = pd.concat(frames, ignore_index=True)
    out["criteria"] = out["score"]
    return out[COLUMNS]


__all__ = [
    "COLUMNS",
    "DIMENSIONS",
    "inference_of",
    "judged_frame",
    "load_items",
    "read_judged_runs",
    "read_release",
    "read_synchtom",
    "run_of",
    "to_judge_scores",
]
