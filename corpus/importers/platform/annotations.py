"""Post-session annotations (the platform's q1-q4 payloads) as mental models, and in-session
checkpoint rows."""

from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from corpus import schema
from corpus.model import MentalModel
from corpus.reading import iter_jsonl, read_json
from corpus.report import clipped, describe, shown
from corpus.validate import Report, read_text

_YES = {"yes", "y", "true", "1", "aligned"}
_NO = {"no", "n", "false", "0", "not_aligned"}


def _payloads(obj: Any) -> list[tuple[str, dict]]:
    """(record label, {action_id: annotation}) pairs from the shapes a payload file may take."""
    if isinstance(obj, list):
        out = []
        for k, item in enumerate(obj):
            if isinstance(item, dict) and isinstance(item.get("payload"), dict):
                out.append((f"row {k + 1}, ", item["payload"]))
        return out
    if isinstance(obj, dict):
        if isinstance(obj.get("payload"), dict):
            return [("", obj["payload"])]
        return [("", obj)]
    return []


def mental_model_of(ann: dict, report: Report, rel: str, rec: str) -> MentalModel | None:
    """The platform's q1-q4 annotation of one action as a :class:`MentalModel`."""
    errors = False

    def label(key: str, other_key: str) -> dict | None:
        nonlocal errors
        code = ann.get(key)
        if not isinstance(code, str) or not code.strip():
            report.add(rel, rec, key, f"required label is missing (got {shown(code)})")
            errors = True
            return None
        out = {"code": code.strip().lower()}
        if out["code"] == schema.OTHER:
            out["other_text"] = str(ann.get(other_key) or "")
        return out

    q1 = label("q1LabelId", "q1OtherText")
    q2 = label("q2LabelId", "q2OtherText")
    q3 = label("q3LabelId", "q3OtherText")
    q4 = ann.get("q4")
    aligned = None
    if isinstance(q4, bool):
        aligned = q4
    elif isinstance(q4, str) and q4.strip().lower() in _YES | _NO:
        aligned = q4.strip().lower() in _YES
    else:
        report.add(rel, rec, "q4", f"expected yes or no, got {shown(q4)}")
        errors = True
    reasons_raw = ann.get("q4Reasons") or []
    if isinstance(reasons_raw, str):
        reasons_raw = [x for x in re.split(r"[,;\s]+", reasons_raw) if x]
    if not isinstance(reasons_raw, list):
        report.add(rel, rec, "q4Reasons", f"expected a list of reason codes, got {shown(reasons_raw)}")
        errors = True
        reasons_raw = []
    reasons = []
    for code in reasons_raw:
        code = str(code).strip().lower()
        item = {"code": code}
        if code == schema.OTHER:
            item["other_text"] = str(ann.get("q4OtherText") or "")
        reasons.append(item)
    if errors:
        return None
    if aligned:
        reasons = []  # reasons are only asked for when not aligned
    try:
        return MentalModel(
            team_goal=q1,
            partner_intent=q2,
            self_reasoning=q3,
            aligned=aligned,
            misalignment_reasons=reasons,
            rationale=str(ann.get("momentExplanationTranscript") or "").strip(),
        )
    except ValidationError as err:
        names = {
            "team_goal": "q1LabelId",
            "partner_intent": "q2LabelId",
            "self_reasoning": "q3LabelId",
            "misalignment_reasons": "q4Reasons",
            "aligned": "q4",
        }
        for e in err.errors(include_url=False):
            loc = [str(x) for x in e["loc"]]
            fld = names.get(loc[0], loc[0]) if loc else "(annotation)"
            msg = e["msg"].removeprefix("Value error, ")
            report.add(rel, rec, fld, msg)
        return None


def read_annotations(paths: list[Path], root: Path, report: Report) -> dict[str, tuple[MentalModel, str, str]]:
    """action_id -> (mental model, file, record) from the post-session payload files."""
    out: dict[str, tuple[MentalModel, str, str]] = {}
    for path in paths:
        rel = str(path.relative_to(root))
        obj = read_json(path, report, rel)
        if obj is None:
            continue
        payloads = _payloads(obj)
        if not payloads:
            report.add(rel, "-", "(file)", "expected {action_id: {q1LabelId, ...}} or rows with a 'payload' object")
            continue
        for prefix, payload in payloads:
            for action_id, ann in payload.items():
                rec = f"{prefix}action {clipped(str(action_id))}"
                if not isinstance(ann, dict):
                    report.add(
                        rel, rec, "(annotation)", f"expected an object with q1LabelId .. q4, got {describe(ann)}"
                    )
                    continue
                mm = mental_model_of(ann, report, rel, rec)
                if mm is not None:
                    out[str(action_id)] = (mm, rel, rec)
    return out


def read_checkpoints(paths: list[Path], root: Path, report: Report) -> list[tuple[dict, str, str]]:
    """Checkpoint rows (session_id, participant_id, checkpoint_index, transcription, elapsed_seconds)."""
    rows: list[tuple[dict, str, str]] = []
    for path in paths:
        rel = str(path.relative_to(root))
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            items = [(obj, f"line {n}") for n, obj in iter_jsonl(path, report, rel)]
        elif suffix == ".json":
            obj = read_json(path, report, rel)
            if obj is None:
                continue
            if not isinstance(obj, list):
                report.add(rel, "-", "(file)", "expected a JSON list of checkpoint rows")
                continue
            items = [(o, f"[{k}]") for k, o in enumerate(obj)]
        else:
            text = read_text(path, report, rel)
            if text is None:
                continue
            items = [(dict(r), f"line {k}") for k, r in enumerate(csv.DictReader(io.StringIO(text)), start=2)]
        for obj, rec in items:
            if not isinstance(obj, dict):
                report.add(rel, rec, "(record)", "expected an object")
                continue
            ok = True
            for key in ("participant_id", "checkpoint_index", "elapsed_seconds"):
                if obj.get(key) in (None, ""):
                    report.add(rel, rec, key, "required field is missing")
                    ok = False
            try:
                idx = int(obj.get("checkpoint_index", ""))  # missing: a ValueError, as for an empty value
                if idx < 1:
                    raise ValueError
            except (TypeError, ValueError):
                if ok:
                    report.add(
                        rel,
                        rec,
                        "checkpoint_index",
                        f"expected an integer >= 1, got {shown(obj.get('checkpoint_index'))}",
                    )
                ok = False
            try:
                el = float(obj.get("elapsed_seconds", ""))  # missing: a ValueError, as for an empty value
                if el < 0 or not math.isfinite(el):
                    raise ValueError
            except (TypeError, ValueError):
                if ok:
                    report.add(
                        rel, rec, "elapsed_seconds", f"expected seconds >= 0, got {shown(obj.get('elapsed_seconds'))}"
                    )
                ok = False
            if ok:
                rows.append(({**obj, "checkpoint_index": idx, "elapsed_seconds": el}, rel, rec))
    return rows
