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
a warning (``evaluate.py`` lets both through).

SynchToM's rubrics have 2-7 criteria per dimension (``correct_resolution`` has 6 or 7 in 63 of the
391 instances of the four released benchmark files): the agreement's scale is 0-5, or 0 to the
highest score given (:func:`analysis.compare.judges.scale_of`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from corpus.reading import load_json
from corpus.report import WARNING, Report, describe, shown

DIMENSIONS = ("latent_belief_explanation", "user_profile_modeling", "correct_resolution")
SUMMARY_FILE = "evaluation_summary.json"
SCORE_FILE = re.compile(r"^evaluation_.+\.json$")
_STAMP = re.compile(r"^evaluation_(?P<name>.+?)(?:_\d{8}_\d{6})?\.json$")
COLUMNS = ["inference", "instance_id", "judge", "dimension", "score", "criteria"]
TASK = "synchtom"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


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
        if loaded is None:
            continue
        entries = loaded[0]
        if not isinstance(entries, list):
            report.add(name, "-", "(file)", f"expected a JSON array of run summaries, got {describe(entries)}", WARNING)
            continue
        for n, entry in enumerate(entries, start=1):
            out = entry.get("output_file") if isinstance(entry, dict) else None
            judge = entry.get("judge_model") if isinstance(entry, dict) else None
            if isinstance(out, str) and isinstance(judge, str) and judge:
                judges[re.split(r"[\\/]", out)[-1]].add(judge)
            else:
                report.add(
                    name, f"entry {n}", "output_file, judge_model", "entry skipped: expected both as strings", WARNING
                )
    return judges


def _dimension(value: Any, rel: str, record: str, dim: str, report: Report, instance: str) -> dict[str, Any] | None:
    """The row of one dimension of one record, or None with its problems reported."""
    where = f"evaluation.{dim}"
    if not isinstance(value, dict):
        report.add(rel, record, where, f"expected an object, got {describe(value)}")
        return None
    ok = True
    met: int | None = None
    crit = value.get("criterion_scores")
    if crit is not None:
        if not isinstance(crit, dict):
            report.add(rel, record, f"{where}.criterion_scores", f"expected an object, got {describe(crit)}")
            ok = False
        else:
            for key, v in crit.items():
                if not (_is_int(v) and v in (0, 1)):
                    report.add(rel, record, f"{where}.criterion_scores.{key}", f"expected 0 or 1, got {describe(v)}")
                    ok = False
            met = sum(crit.values()) if ok else None
    total = value.get("total_score")
    if total is None and met is None and ok:
        report.add(rel, record, f"{where}.total_score", "required field is missing (and there are no criterion_scores)")
        return None
    if total is not None and not _is_int(total):
        report.add(rel, record, f"{where}.total_score", f"expected an integer, got {describe(total)}")
        return None
    if not ok:
        return None
    if met is not None and total is not None and total != met:
        report.add(
            rel,
            record,
            f"{where}.total_score",
            f"is {total} but {met} criteria are met (evaluate.py writes their sum)",
        )
        return None
    score = met if met is not None else total
    assert score is not None
    max_score = value.get("max_score")
    max_score = max_score if _is_int(max_score) else None
    top = max_score if max_score is not None else (len(crit) if isinstance(crit, dict) else None)
    if score < 0 or (top is not None and score > top):
        report.add(rel, record, f"{where}.total_score", f"score {score} is outside 0-{top} (the rubric's criteria)")
        return None
    if isinstance(crit, dict) and max_score is not None and len(crit) != max_score:
        report.add(
            rel,
            record,
            f"{where}.criterion_scores",
            f"the judge scored {len(crit)} criteria; the rubric has {max_score} (max_score)",
            WARNING,
        )
    return {"instance_id": instance, "dimension": dim, "score": score, "criteria": score}


def _read_file(path: Path, rel: str, report: Report) -> list[dict[str, Any]] | None:
    """The rows of one score file, or None when it has any error (all or nothing per file)."""
    errors_before = report.error_count
    loaded = load_json(path, report, rel)
    if loaded is None:
        return None
    records = loaded[0]
    if not isinstance(records, list):
        report.add(rel, "-", "(file)", f"expected a JSON array of scored instances, got {describe(records)}")
        return None
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for n, rec in enumerate(records, start=1):
        if not isinstance(rec, dict):
            report.add(rel, f"record {n}", "(record)", f"expected a JSON object, got {describe(rec)}")
            continue
        iid = rec.get("instance_id")
        if not isinstance(iid, str) or not iid.strip():
            got = "required field is missing" if iid is None else f"expected a non-empty string, got {describe(iid)}"
            report.add(rel, f"record {n}", "instance_id", got)
            continue
        record = f"instance {shown(iid)}"
        if iid in seen:
            report.add(rel, record, "instance_id", f"listed twice: records {seen[iid]} and {n}")
            continue
        seen[iid] = n
        ev = rec.get("evaluation")
        if not isinstance(ev, dict):
            got = "required field is missing" if ev is None else f"expected an object, got {describe(ev)}"
            report.add(rel, record, "evaluation", got)
            continue
        for dim in DIMENSIONS:
            if dim not in ev:
                report.add(rel, record, f"evaluation.{dim}", "missing: the judge gave no score for it", WARNING)
                continue
            row = _dimension(ev[dim], rel, record, dim, report, iid)
            if row is not None:
                rows.append(row)
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
    source = Path(source)
    report = Report()
    judges = dict(judges or {})
    if source.is_dir():
        root: Path | None = source
        files = list(_score_files(source))
        if not files:
            report.add(source.name, "-", "(source)", "no evaluation_*.json score file in this folder")
    elif source.is_file():
        root, files = None, [source]
    else:
        report.add(source.name, "-", "(source)", f"not found: {source}")
        return pd.DataFrame(columns=COLUMNS), report
    named = _summaries(_summary_paths(root, files), root, report)
    read: list[tuple[str, str, list[dict[str, Any]]]] = []  # (file, judge, rows)
    for path in files:
        rel = _rel(path, root) if root is not None else path.name
        judge = _judge(path.name, rel, judges, named, report)
        rows = _read_file(path, rel, report)
        if judge is not None and rows is not None:
            read.append((rel, judge, rows))
    # Two files of one judge scoring the same instance of one inference file: both refused (which
    # one is meant is unknown).
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
    frames = [
        pd.DataFrame(rows, columns=["instance_id", "dimension", "score", "criteria"]).assign(
            judge=judge, inference=inference_of(rel)
        )
        for k, (rel, judge, rows) in enumerate(read)
        if k not in refused and rows
    ]
    if not frames:
        return pd.DataFrame(columns=COLUMNS), report
    df = pd.concat(frames, ignore_index=True)[COLUMNS]
    df = df.astype(
        {"inference": str, "instance_id": str, "judge": str, "dimension": str, "score": int, "criteria": int}
    )
    order = ["judge", "inference", "instance_id", "dimension"]
    return df.sort_values(order, kind="stable").reset_index(drop=True), report


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


__all__ = ["COLUMNS", "DIMENSIONS", "inference_of", "read_synchtom", "to_judge_scores"]
