"""Coded labels (labels/<scheme>.csv) and their details (labels/gmmt_expressions.jsonl), and the
count of records that refer to a failed session or map.

Read after the sessions (:mod:`corpus.loading.validate`). A label or prediction that names a session with
errors is counted, not checked (the session's actions are not known), and the count is added once
to the session's first error: "... (and 312 records in labels/grounding_acts.csv refer to this
session)". A session that does not exist is reported on the first label naming it, with the
number of further labels in the file that name it too.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpus import schema
from corpus.loading.reading import parse_jsonl, read_text
from corpus.loading.report import ERROR, Report, counted, shown
from corpus.model import ReferenceExpression

if TYPE_CHECKING:
    from corpus.loading.validate import RawDataset, SessionOutline

_ACTION_INDEX = re.compile(r"[ \t]*([0-9]{1,9})[ \t]*")


class _SessionRefs:
    """Looks up the session a record of one file names, reporting each unknown session once."""

    def __init__(self, raw: RawDataset, report: Report, rel: str):
        self.raw, self.report, self.rel = raw, report, rel
        self.unknown: dict[str, list] = {}  # session id -> [position of its error, further records]

    def session(self, sid: str, record: str) -> SessionOutline | None:
        if sid in self.raw.failed_sessions:
            self.raw.refer("session", sid, self.rel)
            return None
        s = self.raw.sessions.get(sid)
        if s is not None:
            return s
        if sid in self.unknown:
            self.unknown[sid][1] += 1
        else:
            self.unknown[sid] = [self.report.add(self.rel, record, "session_id", f"unknown session {shown(sid)}"), 0]
        return None

    def close(self) -> None:
        for position, more in self.unknown.values():
            if more and position is not None:
                self.report.amend(position, f" (and {counted(more, 'more record')} in this file)")


def read_labels(root: Path, raw: RawDataset, report: Report) -> None:
    """Coded labels: labels/<scheme>.csv with session_id, action_index, coder, code[, partition, coder_kind]."""
    label_dir = root / "labels"
    if not label_dir.is_dir():
        return
    for path in sorted(label_dir.glob("*.csv")):
        scheme_id = path.stem
        rel = f"labels/{path.name}"
        codes = schema.CODING_SCHEMES.get(scheme_id)
        if codes is None:
            report.add(
                rel,
                "-",
                "(file)",
                f"unknown coding scheme {shown(scheme_id)} (expected one of {', '.join(schema.CODING_SCHEMES)})",
            )
            continue
        text = read_text(path, report, rel)
        if text is None:
            continue
        reader = csv.DictReader(io.StringIO(text))
        refs = _SessionRefs(raw, report, rel)
        try:
            _read_label_rows(reader, scheme_id, codes, refs, raw, report, rel)
        except csv.Error as exc:
            report.add(rel, f"line {reader.reader.line_num}", "(csv)", f"bad CSV: {exc}")
        refs.close()
    read_label_details(label_dir, raw, report)


def _read_label_rows(
    reader: csv.DictReader, scheme_id: str, codes: Any, refs: _SessionRefs, raw: RawDataset, report: Report, rel: str
) -> None:
    need = {"session_id", "action_index", "coder", "code"}
    missing = need - set(reader.fieldnames or [])
    if missing:
        report.add(rel, "line 1", "(header)", f"missing column(s): {', '.join(sorted(missing))}")
        return
    seen: dict[tuple[str, int, str], int] = {}
    kinds: dict[str, tuple[str, int]] = {}
    for lineno, row in enumerate(reader, start=2):
        rec = f"line {lineno}"
        sid = row["session_id"]
        digits = _ACTION_INDEX.fullmatch(row["action_index"]) if isinstance(row["action_index"], str) else None
        if digits is None:
            report.add(
                rel, rec, "action_index", f"expected an action index (0, 1, 2, ...), got {shown(row['action_index'])}"
            )
            continue
        idx = int(digits.group(1))
        s = refs.session(sid, rec)
        if s is None:
            continue
        if not 0 <= idx < len(s.actions):
            report.add(rel, rec, "action_index", f"session {shown(sid)} has no action {idx}")
            continue
        code = (row["code"] or "").strip().lower()
        if code not in codes:
            report.add(
                rel, rec, "code", f"unknown {scheme_id} code {shown(row['code'])} (expected one of {', '.join(codes)})"
            )
            continue
        partition = (row.get("partition") or "").strip()
        if partition and partition not in schema.GROUNDING_PARTITIONS:
            report.add(
                rel,
                rec,
                "partition",
                f"unknown partition {shown(partition)} (expected one of {', '.join(schema.GROUNDING_PARTITIONS)} or empty)",
            )
            continue
        coder = (row["coder"] or "").strip()
        if not coder:
            report.add(rel, rec, "coder", "empty coder name")
            continue
        kind = (row.get("coder_kind") or "").strip().lower() or schema.HUMAN
        if kind not in schema.CODER_KINDS:
            report.add(
                rel,
                rec,
                "coder_kind",
                f"unknown coder kind {shown(row['coder_kind'])} (expected one of {', '.join(schema.CODER_KINDS)}, or empty for {schema.HUMAN})",
            )
            continue
        first_kind = kinds.setdefault(coder, (kind, lineno))
        if first_kind[0] != kind:
            report.add(
                rel,
                rec,
                "coder_kind",
                f"coder {shown(coder)} is '{kind}' here but '{first_kind[0]}' on line {first_kind[1]}",
            )
            continue
        key = (sid, idx, coder)
        if key in seen:
            report.add(
                rel, rec, "coder", f"coder {shown(coder)} labels action {sid}:{idx} twice (also line {seen[key]})"
            )
            continue
        seen[key] = lineno
        raw.labels.append(
            {
                "scheme": scheme_id,
                "session_id": sid,
                "action_index": idx,
                "coder": coder,
                "coder_kind": kind,
                "code": code,
                "partition": partition,
            }
        )


# labels/<name>.jsonl: per-action details of a scheme's labels -> the scheme they detail.
LABEL_DETAILS = {"gmmt_expressions": schema.GMMT_SCHEME}


def read_label_details(label_dir: Path, raw: RawDataset, report: Report) -> None:
    """Details of a scheme's labels, one JSON object a line: ``labels/gmmt_expressions.jsonl``, the
    landmark reference expressions said in each action (:class:`corpus.model.ReferenceExpression`).
    Each names an existing action, said by that action's actor, and a reference once per coder."""
    for path in sorted(label_dir.glob("*.jsonl")):
        rel = f"labels/{path.name}"
        if path.stem not in LABEL_DETAILS:
            expected = ", ".join(f"{name}.jsonl" for name in LABEL_DETAILS)
            report.add(rel, "-", "(file)", f"unknown label details file {shown(path.name)} (expected {expected})")
            continue
        text = read_text(path, report, rel)
        if text is None:
            continue
        refs = _SessionRefs(raw, report, rel)
        seen: dict[tuple[str, str, str], int] = {}
        for lineno, rec in parse_jsonl(ReferenceExpression, text, report, rel):
            if rec is None:
                continue
            where = f"line {lineno}"
            s = refs.session(rec.session_id, where)
            if s is None:
                continue
            if rec.action_index >= len(s.actions):
                report.add(
                    rel, where, "action_index", f"session {shown(rec.session_id)} has no action {rec.action_index}"
                )
                continue
            actor = s.actions[rec.action_index].role
            if rec.speaker != actor:
                report.add(
                    rel,
                    where,
                    "speaker",
                    f"said by the {rec.speaker}, but action {rec.action_index} of session {shown(rec.session_id)} "
                    f"is the {actor}'s (expected {actor})",
                )
                continue
            key = (rec.session_id, rec.coder, rec.ref_id)
            if key in seen:
                report.add(
                    rel,
                    where,
                    "ref_id",
                    f"coder {shown(rec.coder)} gives reference {shown(rec.ref_id)} of session {shown(rec.session_id)} "
                    f"twice (also line {seen[key]})",
                )
                continue
            seen[key] = lineno
            raw.expressions.append(rec.model_dump())
        refs.close()


def note_references(raw: RawDataset, report: Report) -> None:
    """Add to each failed map's or session's first error how many records refer to it."""
    for (kind, key), files in sorted(raw.references.items()):
        position = raw.root_errors.get((kind, key))
        n = sum(files.values())
        verb = "refers" if n == 1 else "refer"
        if kind in ("map", "folder"):
            suffix = f" (and {counted(n, 'session')} {verb} to {'this map' if kind == 'map' else 'a map in it'})"
        else:
            parts = [f"{counted(k, 'record')} in {file}" for file, k in sorted(files.items())]
            suffix = f" (and {' and '.join(parts)} {verb} to this session)"
        if position is not None and report.issues[position].severity == ERROR:
            report.amend(position, suffix)
        else:
            where = {"map": f"maps/{key}.json", "folder": f"{key}/"}.get(kind, f"sessions/{key}/")
            report.add(where, f"{kind} {key}", "(references)", f"has errors{suffix}")
