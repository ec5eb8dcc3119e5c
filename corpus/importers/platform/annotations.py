"""Post-session annotations (the platform's q1-q4 answers) as mental models, and in-session
checkpoint rows.

The platform's annotation view saves, per action id, the text of the answer to each of q1-q3 as
the view shows it (``q1``) with its id (``q1LabelId``: t1-t4, p1-p5, r1-r6 or ``other``, with the
participant's own words in ``q1OtherText``), ``q4`` (yes or no) with ``q4Reasons``, the reason
TEXTS the view shows ("Communication was unclear or ambiguous", ..., "Other" with
``q4OtherText``), and ``momentExplanationTranscript``. Texts become codes through one wording
table per question (:data:`LABEL_WORDING`, :data:`REASON_WORDING`); case and whitespace do not
matter. The platform's export gives only the texts of q1-q3 (:func:`timeline_mental_model`).

Checkpoint rows are the platform's ``in_session_annotations`` rows (:class:`CheckpointRow`).

The readers tell an :class:`AnswerTally` which actions the source annotates (blank answers aside)
and which of those it annotates part-way: what the import's count of annotations starts from.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from corpus import schema
from corpus.importers.platform.rows import parse_time
from corpus.loading.reading import iter_jsonl, read_json
from corpus.loading.report import WARNING, clipped, describe, shown
from corpus.loading.validate import Report, read_text
from corpus.model import MentalModel
from corpus.predictions import PROMPT_WORDING

_YES = {"yes", "y", "true", "1", "aligned"}
_NO = {"no", "n", "false", "0", "not_aligned"}

# The platform's word for the "other" choice, of q1-q3 and of q4's reasons.
OTHER_TEXT = "Other"
# The questions of the platform's annotation view, by the mental-model dimension they answer.
QUESTIONS = {"team_goal": "q1", "partner_intent": "q2", "self_reasoning": "q3"}


@dataclass
class AnswerTally:
    """The action ids the source's annotations answer (a blank annotation is none), and those of
    them answered part-way (their mental models are left out)."""

    answered: set[str] = field(default_factory=set)
    partial: set[str] = field(default_factory=set)


def wording_key(text: str) -> str:
    """A text as the wording tables compare it: case and runs of whitespace do not matter."""
    return " ".join(text.split()).casefold()


# The answers as the platform's annotation view words them: Table 5's wording (corpus.schema),
# except p1-p4, r1 and r4, which the view words as the paper's prompts do (corpus.predictions).
LABEL_WORDING: dict[str, dict[str, str]] = {
    dim: {**codes, **PROMPT_WORDING.get(dim, {})} for dim, codes in schema.DIMENSIONS.items()
}
# The reasons of a "no" as the view words them: exactly Table 5's wording.
REASON_WORDING: dict[str, str] = schema.MISALIGNMENT_REASON

# text -> code, for the view's wording and Table 5's alike, and "Other".
_LABEL_CODES: dict[str, dict[str, str]] = {
    dim: {
        **{wording_key(text): code for code, text in schema.DIMENSIONS[dim].items()},
        **{wording_key(text): code for code, text in LABEL_WORDING[dim].items()},
        wording_key(OTHER_TEXT): schema.OTHER,
    }
    for dim in schema.DIMENSIONS
}
_REASON_CODES: dict[str, str] = {
    **{wording_key(text): code for code, text in REASON_WORDING.items()},
    wording_key(OTHER_TEXT): schema.OTHER,
    **{code: code for code in (*REASON_WORDING, schema.OTHER)},  # the older shape: codes n1-n5, other
}


def label_code(dimension: str, text: str) -> str | None:
    """The code of an answer given as its text (the view's wording or Table 5's, or "Other"); None
    when the text is none of them."""
    return _LABEL_CODES[dimension].get(wording_key(text))


def reason_code(text: str) -> str | None:
    """The code of a reason of a "no", given as its text, "Other", or a code (n1-n5, other)."""
    return _REASON_CODES.get(wording_key(text))


def _known_texts(texts: list[str]) -> str:
    return ", ".join(f"'{t}'" for t in texts)


def _known_labels(dimension: str) -> str:
    return _known_texts([*LABEL_WORDING[dimension].values(), OTHER_TEXT])


def _known_reasons() -> str:
    return _known_texts([*REASON_WORDING.values(), OTHER_TEXT])


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


def _aligned(value: Any, report: Report, rel: str, rec: str, fld: str) -> bool | None:
    """q4 as a boolean: yes or no (true or false); None, reported, for anything else."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _YES | _NO:
        return value.strip().lower() in _YES
    report.add(rel, rec, fld, f"expected yes or no, got {shown(value)}")
    return None


def _payload_label(ann: dict, dimension: str, report: Report, rel: str, rec: str) -> dict | None:
    """One of q1-q3 of a payload: its id (``q1LabelId``) or, when the payload gives none, its text
    (``q1``); ``other`` with the participant's words (``q1OtherText``). None, reported, when
    neither is usable."""
    q = QUESTIONS[dimension]
    code = ann.get(f"{q}LabelId")
    if isinstance(code, str) and code.strip():
        out = {"code": code.strip().lower()}
    else:
        text = ann.get(q)
        if not isinstance(text, str) or not text.strip():
            given = "" if _absent(code) else f"; {q}LabelId is {describe(code)}"
            report.add(rel, rec, f"{q}LabelId", f"required label is missing (neither a label id nor a {q} text{given})")
            return None
        found = label_code(dimension, text)
        if found is None:
            report.add(rel, rec, q, f"unknown answer {shown(text)} (expected one of {_known_labels(dimension)})")
            return None
        out = {"code": found}
    if out["code"] == schema.OTHER:
        out["other_text"] = str(ann.get(f"{q}OtherText") or "").strip()
    return out


def _reason_items(raw: Any) -> Any:
    """``q4Reasons`` as a list: a string is split at commas and semicolons, and a part made only of
    codes also at spaces ("n1 n2")."""
    if not isinstance(raw, str):
        return raw
    out: list[str] = []
    for part in (p for p in re.split(r"[,;]", raw) if p.strip()):
        words = part.split()
        out.extend(words if len(words) > 1 and all(w.lower() in _REASON_CODES for w in words) else [part])
    return out


def _payload_reasons(ann: dict, report: Report, rel: str, rec: str) -> list[dict] | None:
    """The reasons of a "no" (``q4Reasons``): the view's reason texts, "Other" (with ``q4OtherText``),
    or the codes n1-n5 and ``other``; each once, in the order given. None, reported, when one is
    unknown."""
    raw = _reason_items(ann.get("q4Reasons") or [])
    if not isinstance(raw, list):
        report.add(rel, rec, "q4Reasons", f"expected a list of reason texts, got {describe(raw)}")
        return None
    codes: list[str] = []
    ok = True
    for item in raw:
        code = reason_code(item) if isinstance(item, str) else None
        if code is None:
            report.add(
                rel,
                rec,
                "q4Reasons",
                f"unknown reason {shown(item)} (expected one of {_known_reasons()}, or a code n1-n5, other)",
            )
            ok = False
        elif code not in codes:
            codes.append(code)
    if not ok:
        return None
    other = str(ann.get("q4OtherText") or "").strip()
    return [{"code": c, **({"other_text": other} if c == schema.OTHER else {})} for c in codes]


def _mental_model(
    labels: dict[str, dict],
    aligned: bool,
    reasons: list[dict],
    rationale: Any,
    fields: dict[str, str],
    report: Report,
    rel: str,
    rec: str,
) -> MentalModel | None:
    """The model of one annotation; a problem it finds is reported at the source's field name."""
    try:
        return MentalModel(
            team_goal=labels["team_goal"],
            partner_intent=labels["partner_intent"],
            self_reasoning=labels["self_reasoning"],
            aligned=aligned,
            misalignment_reasons=[] if aligned else reasons,  # reasons are only asked for after a "no"
            rationale=str(rationale or "").strip(),
        )
    except ValidationError as err:
        for e in err.errors(include_url=False):
            loc = [str(x) for x in e["loc"]]
            fld = fields.get(loc[0], loc[0]) if loc else "(annotation)"
            report.add(rel, rec, fld, e["msg"].removeprefix("Value error, "))
        return None


_PAYLOAD_FIELDS = {
    "team_goal": "q1LabelId",
    "partner_intent": "q2LabelId",
    "self_reasoning": "q3LabelId",
    "misalignment_reasons": "q4Reasons",
    "aligned": "q4",
}


def unanswered(ann: dict) -> list[str]:
    """The questions a payload leaves without an answer (q1-q3: neither a label id nor a text; q4:
    no yes or no; a "no" without a reason, which the view asks before it moves on). The view saves
    each answer as it is given, so a participant who stopped part-way leaves such a moment."""
    out = [q for q in QUESTIONS.values() if _blank(ann.get(f"{q}LabelId")) and _blank(ann.get(q))]
    if _blank(ann.get("q4")):
        out.append("q4")
    elif str(ann.get("q4")).strip().lower() in _NO and _blank(ann.get("q4Reasons")):
        out.append("q4Reasons")
    return out


def left_incomplete(missing: list[str], report: Report, rel: str, rec: str) -> None:
    """Report a moment answered part-way: a warning naming what is missing; its model is left out."""
    report.add(
        rel,
        rec,
        missing[0],
        f"answered part-way ({', '.join(missing)} not answered): this action's mental model is left out",
        WARNING,
    )


def mental_model_of(ann: dict, report: Report, rel: str, rec: str) -> MentalModel | None:
    """The platform's q1-q4 annotation of one action (a payload's value) as a :class:`MentalModel`;
    None, with every problem reported, when it has errors."""
    labels = {dim: _payload_label(ann, dim, report, rel, rec) for dim in QUESTIONS}
    aligned = _aligned(ann.get("q4"), report, rel, rec, "q4")
    reasons = _payload_reasons(ann, report, rel, rec) if aligned is not True else []
    if aligned is None or reasons is None or any(v is None for v in labels.values()):
        return None
    return _mental_model(
        {k: v for k, v in labels.items() if v is not None},
        aligned,
        reasons,
        ann.get("momentExplanationTranscript"),
        _PAYLOAD_FIELDS,
        report,
        rel,
        rec,
    )


# The fields of an entry's ``annotation`` in the export's post-session timeline.
TIMELINE_FIELDS = {
    "team_goal": "task_model_q1",
    "partner_intent": "partner_model_q2",
    "self_reasoning": "self_model_q3",
}
_TIMELINE_MODEL_FIELDS = {
    **{dim: f"annotation.{key}" for dim, key in TIMELINE_FIELDS.items()},
    "aligned": "annotation.alignment_q4",
    "misalignment_reasons": "annotation.alignment_q4",
}


def is_blank(annotation: dict) -> bool:
    """Whether an annotation holds no answer at all: the platform saves ``{}`` for a moment the
    participant opened but did not answer, and the export's timeline lists every action of the
    participant, annotated or not, with blank answers."""
    return all(_blank(v) for v in annotation.values())


def _blank(value: Any) -> bool:
    """None, a string of nothing but whitespace, or a list of such values."""
    if isinstance(value, list):
        return all(_blank(v) for v in value)
    return value is None or (isinstance(value, str) and not value.strip())


def timeline_unanswered(annotation: dict) -> list[str]:
    """The fields of a timeline entry's annotation left without an answer (q1-q4)."""
    return [f"annotation.{key}" for key in (*TIMELINE_FIELDS.values(), "alignment_q4") if _blank(annotation.get(key))]


def timeline_mental_model(annotation: dict, report: Report, rel: str, rec: str) -> MentalModel | None:
    """The mental model of one entry of the export's post-session timeline.

    The export gives q1-q3 as texts: the view's wording of the answer, or, when the participant
    chose Other, their own words (so a text that is none of the answers is an ``other`` answer).
    q4 comes without its reasons: the export leaves ``q4Reasons`` out. None, with every problem
    reported, when the entry has errors."""
    missing = timeline_unanswered(annotation)
    if missing:
        left_incomplete(missing, report, rel, rec)
        return None
    labels: dict[str, dict] = {}
    for dim, key in TIMELINE_FIELDS.items():
        text = annotation.get(key)
        if not isinstance(text, str):
            report.add(rel, rec, f"annotation.{key}", f"expected the answer's text, got {describe(text)}")
            continue
        code = label_code(dim, text)
        if code is None:
            labels[dim] = {"code": schema.OTHER, "other_text": text.strip()}
        elif code == schema.OTHER:  # "Other" itself: the participant's words are missing
            labels[dim] = {"code": schema.OTHER, "other_text": ""}
        else:
            labels[dim] = {"code": code}
    aligned = _aligned(annotation.get("alignment_q4"), report, rel, rec, "annotation.alignment_q4")
    if aligned is None or len(labels) < len(TIMELINE_FIELDS):
        return None
    return _mental_model(
        labels,
        aligned,
        [],
        annotation.get("explanation_transcription"),
        _TIMELINE_MODEL_FIELDS,
        report,
        rel,
        rec,
    )


def read_annotations(
    paths: list[Path], root: Path, report: Report, tally: AnswerTally | None = None
) -> dict[str, tuple[MentalModel, str, str]]:
    """action_id -> (mental model, file, record) from the post-session payload files; ``tally``
    hears of every action they answer."""
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
                if is_blank(ann):
                    continue
                missing = unanswered(ann)
                if tally is not None:
                    tally.answered.add(str(action_id))
                    if missing:
                        tally.partial.add(str(action_id))
                if missing:
                    left_incomplete(missing, report, rel, rec)
                    continue
                mm = mental_model_of(ann, report, rel, rec)
                if mm is not None:
                    out[str(action_id)] = (mm, rel, rec)
    return out


@dataclass(frozen=True)
class CheckpointRow:
    """One in-session checkpoint answer as the platform stores it (an ``in_session_annotations``
    row), with the file and record it was read from.

    Its time is ``elapsed`` (``elapsed_seconds``, the platform's session clock), else ``created``
    (``created_at``), else ``share``: where the platform's schedule asks that checkpoint, as a
    share of the session, for answers the source gives no time for."""

    participant_id: str
    index: int
    transcription: str
    file: str
    record: str
    session_id: str | None = None
    elapsed: float | None = None
    created: datetime | None = None
    share: float | None = None


def _whole_number(value: Any) -> int | None:
    """A JSON integer, a float without fraction, or a string of digits (a CSV cell); else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*", value):
        return int(value)
    return None


def _seconds(value: Any) -> float | None:
    """A finite number of seconds >= 0 (or such a string); None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        seconds = float(value)
    except (ValueError, OverflowError):
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _absent(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _checkpoint_index(obj: dict, report: Report, rel: str, rec: str) -> int | None:
    """A checkpoint row's ``checkpoint_index``, an integer >= 0; None, reported, when it is missing or not one."""
    raw_index = obj.get("checkpoint_index")
    index = _whole_number(raw_index)
    if _absent(raw_index):
        report.add(rel, rec, "checkpoint_index", "required field is missing")
        return None
    if index is None or index < 0:
        report.add(rel, rec, "checkpoint_index", f"expected an integer >= 0, got {describe(raw_index)}")
        return None
    return index


def _checkpoint_time(obj: dict, report: Report, rel: str, rec: str) -> tuple[bool, float | None, datetime | None]:
    """Whether a checkpoint row's time reads (each problem reported), its ``elapsed_seconds`` and its ``created_at``."""
    ok = True
    raw_elapsed, raw_created = obj.get("elapsed_seconds"), obj.get("created_at")
    elapsed = None if _absent(raw_elapsed) else _seconds(raw_elapsed)
    if not _absent(raw_elapsed) and elapsed is None:
        report.add(rel, rec, "elapsed_seconds", f"expected seconds >= 0, got {describe(raw_elapsed)}")
        ok = False
    created = None if _absent(raw_created) else parse_time(raw_created)
    if not _absent(raw_created) and created is None:
        report.add(rel, rec, "created_at", f"not an ISO-8601 time: {shown(raw_created)}")
        ok = False
    if _absent(raw_elapsed) and _absent(raw_created):
        report.add(rel, rec, "elapsed_seconds", "required field is missing (and the row has no created_at either)")
        ok = False
    return ok, elapsed, created


def checkpoint_row(obj: Any, report: Report, rel: str, rec: str, session_id: str | None = None) -> CheckpointRow | None:
    """One checkpoint row: ``participant_id``, ``checkpoint_index`` (the platform counts from 0),
    ``transcription``, and its time, ``elapsed_seconds`` or ``created_at`` (the platform leaves
    ``elapsed_seconds`` null when the browser sent none); ``session_id`` when the row has one (the
    platform's rows have none: a participant belongs to one session) or the caller knows it. None,
    with every problem reported, when it has errors."""
    if not isinstance(obj, dict):
        report.add(rel, rec, "(record)", f"expected an object, got {describe(obj)}")
        return None
    ok = True
    pid = obj.get("participant_id")
    if _absent(pid):
        report.add(rel, rec, "participant_id", "required field is missing")
        ok = False
    index = _checkpoint_index(obj, report, rel, rec)
    timed, elapsed, created = _checkpoint_time(obj, report, rel, rec)
    text = obj.get("transcription")
    if not _absent(text) and not isinstance(text, str):
        report.add(rel, rec, "transcription", f"expected text, got {describe(text)}")
        ok = False
    sid = obj.get("session_id")
    if not ok or not timed or index is None:
        return None
    return CheckpointRow(
        participant_id=str(pid),
        index=index,
        transcription=(text or "").strip(),
        file=rel,
        record=rec,
        session_id=session_id if _absent(sid) else str(sid),
        elapsed=elapsed,
        created=created,
    )


def read_checkpoints(paths: list[Path], root: Path, report: Report) -> list[CheckpointRow]:
    """The checkpoint rows of the folder's checkpoint files: JSON lines, a JSON list, or CSV, each
    row as the platform's database returns it (``participant_id``, ``checkpoint_index``,
    ``transcription``, ``created_at``, ``elapsed_seconds``; optionally ``session_id``)."""
    rows: list[CheckpointRow] = []
    for path in paths:
        rel = str(path.relative_to(root))
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            items: list[tuple[Any, str]] = [(obj, f"line {n}") for n, obj in iter_jsonl(path, report, rel)]
        elif suffix == ".json":
            obj = read_json(path, report, rel)
            if obj is None:
                continue
            if not isinstance(obj, list):
                report.add(rel, "-", "(file)", f"expected a JSON list of checkpoint rows, got {describe(obj)}")
                continue
            items = [(o, f"[{k}]") for k, o in enumerate(obj)]
        else:
            text = read_text(path, report, rel)
            if text is None:
                continue
            items = [(dict(r), f"line {k}") for k, r in enumerate(csv.DictReader(io.StringIO(text)), start=2)]
        for obj, rec in items:
            row = checkpoint_row(obj, report, rel, rec)
            if row is not None:
                rows.append(row)
    return rows
