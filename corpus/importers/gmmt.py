"""GMMT annotations of HCRC Map Task dialogues, placed on the imported moves.

GMMT (Grounded Misunderstandings in MapTask; Li, Gatt & Poesio, LREC 2026; CC BY 4.0) annotates
every landmark reference expression of the HCRC dialogues. Per dialogue:

- ``<dialogue>.annotated.json`` (required): for each expression (``ref_id_unif``) the landmark each
  participant had in mind (``interpretations.giver`` ``"<landmark>@g"``, ``interpretations.follower``
  ``"<landmark>@f"`` or ``""``), the understanding state ``extra.status`` (aligned, pending,
  misunderstood), ``extra.subtype``, the annotator's ``reason``, and ``info``: the expression's
  words, its speaker (giver or follower) and ``utt_id``;
- ``<dialogue>.reference_expressions.json`` (optional): the same expressions with their start and
  end times in the recording (``start_time``, ``end_time``).

The released annotations were made by a language model; the release's ``human_verified_subset``
folder holds three dialogues checked by people. Files in a folder of that name are coder
``gmmt_verified`` (coder kind ``human``), all others coder ``gmmt`` (coder kind ``model``).

**Where an expression was said.** ``utt_id`` is the HCRC utterance number of the timed-units files
(an utterance may hold several moves), which the imported moves do not carry. An expression is
placed by its words instead: the speaker's expressions are taken in the file's order (the order in
which they were said), each utterance's expressions together, and each utterance is found in the
speaker's moves after the one before it, as its words in order (case, punctuation and spacing
ignored; every expression inside one move): the stretch that ends first, and of those the
shortest. An utterance whose expressions are not found together is placed expression by
expression; an expression not found is left out with a warning.

**The label of a move** (scheme ``gmmt``): the most severe state of the expressions said in it,
misunderstood > pending > aligned (:data:`corpus.schema.GMMT_SEVERITY`). Every expression's
details go to ``labels/gmmt_expressions.jsonl`` (:class:`corpus.model.ReferenceExpression`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus import schema
from corpus.loading.reading import read_json
from corpus.loading.report import WARNING, Report, describe, shown
from corpus.model import Action

SCHEME = schema.GMMT_SCHEME
CODER = "gmmt"
VERIFIED_CODER = "gmmt_verified"
VERIFIED_FOLDER = "human_verified_subset"
SPEAKERS = {"giver": "guide", "follower": "follower"}

ANNOTATED = re.compile(r"^(?P<dlg>[^.]+)\.annotated\.json$", re.I)
TIMES = re.compile(r"^(?P<dlg>[^.]+)\.reference_expressions\.json$", re.I)


@dataclass(frozen=True)
class GmmtFiles:
    """One coder's annotation file of a dialogue, and the dialogue's times file if there is one."""

    dialogue: str
    annotated: Path
    times: Path | None
    coder: str
    coder_kind: str
    root: Path  # the folder the report names the files from


@dataclass
class Expression:
    ref_id: str
    role: str
    text: str
    words: list[str]
    utt_id: int | None
    giver: str
    follower: str
    status: str
    subtype: str
    reason: str
    start: float | None
    end: float | None
    record: str


def is_gmmt_file(path: Path) -> bool:
    return bool(ANNOTATED.match(path.name) or TIMES.match(path.name))


def gmmt_files(paths: list[Path], root: Path) -> dict[str, list[GmmtFiles]]:
    """The GMMT files among ``paths`` (named from ``root`` in the report), by dialogue: one entry
    per coder (the model's annotations, and the human-verified ones where present)."""
    times: dict[str, Path] = {}
    annotated: list[tuple[str, Path]] = []
    for p in sorted(paths):
        if m := TIMES.match(p.name):
            times.setdefault(m.group("dlg"), p)
        elif m := ANNOTATED.match(p.name):
            annotated.append((m.group("dlg"), p))
    out: dict[str, list[GmmtFiles]] = {}
    for dlg, p in annotated:
        verified = VERIFIED_FOLDER in p.parts
        coder, kind = (VERIFIED_CODER, schema.HUMAN) if verified else (CODER, schema.MODEL)
        if any(f.coder == coder for f in out.get(dlg, [])):
            continue  # the first file of a coder is used (sorted paths)
        out.setdefault(dlg, []).append(GmmtFiles(dlg, p, times.get(dlg), coder, kind, root))
    return out


def words_of(text: str) -> list[str]:
    """Lower-case words (apostrophes kept inside a word: "that's"), punctuation and spacing dropped."""
    return [w.strip("'") for w in re.findall(r"[\w']+", text.lower().replace("\u2019", "'")) if w.strip("'")]


# ---------------------------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------------------------


class _Fields:
    """Typed look-ups in one record of a GMMT file, each problem reported with file, record, field."""

    def __init__(self, report: Report, rel: str, record: str):
        self.report, self.rel, self.record = report, rel, record
        self.ok = True

    def bad(self, field: str, message: str) -> None:
        self.report.add(self.rel, self.record, field, message)
        self.ok = False

    def obj(self, item: Any, key: str, prefix: str = "") -> dict[str, Any]:
        value = item.get(key) if isinstance(item, dict) else None
        if not isinstance(value, dict):
            self.bad(prefix + key, f"expected an object, got {describe(value)}")
            return {}
        return value

    def text(self, item: dict[str, Any], key: str, prefix: str = "", required: bool = True) -> str:
        value = item.get(key)
        if value is None and not required:
            return ""
        if not isinstance(value, str) or (required and not value.strip()):
            self.bad(prefix + key, f"expected {'non-empty ' if required else ''}text, got {describe(value)}")
            return ""
        return value.strip()

    def seconds(self, item: dict[str, Any], key: str) -> float | None:
        value = item.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            self.bad(key, f"expected seconds (a finite number, at least 0), got {describe(value)}")
            return None
        return float(value)


def _items(path: Path, dialogue: str, report: Report, rel: str) -> list[Any]:
    obj = read_json(path, report, rel)
    if obj is None:
        return []
    if not isinstance(obj, dict) or not isinstance(obj.get("landmark_reference_expressions"), list):
        found = describe(obj.get("landmark_reference_expressions")) if isinstance(obj, dict) else describe(obj)
        report.add(rel, "-", "landmark_reference_expressions", f"expected a list of expressions, got {found}")
        return []
    named = obj.get("dialogue_id")
    if named is not None and named != dialogue:
        report.add(
            rel,
            "-",
            "dialogue_id",
            f"the file names dialogue {shown(named)}, but its name says {shown(dialogue)} (expected the same)",
        )
        return []
    return obj["landmark_reference_expressions"]


def _record(item: Any, k: int) -> str:
    ref = item.get("ref_id_unif") if isinstance(item, dict) else None
    return f"ref {ref}" if isinstance(ref, str) and ref else f"landmark_reference_expressions[{k}]"


def read_times(path: Path, dialogue: str, report: Report, rel: str) -> dict[str, tuple[float | None, float | None]]:
    """ref_id_unif -> (start, end) in seconds of the recording, from a reference_expressions file."""
    out: dict[str, tuple[float | None, float | None]] = {}
    for k, item in enumerate(_items(path, dialogue, report, rel)):
        f = _Fields(report, rel, _record(item, k))
        if not isinstance(item, dict):
            f.bad("(record)", f"expected an object, got {describe(item)}")
            continue
        ref = f.text(item, "ref_id_unif")
        start, end = f.seconds(item, "start_time"), f.seconds(item, "end_time")
        if f.ok:
            out[ref] = (start, end)
    return out


def read_annotated(files: GmmtFiles, report: Report) -> list[Expression]:
    """The expressions of one annotation file, in file order (with times when the dialogue's
    reference_expressions file gives them). Any problem is an error naming file, ref and field."""
    rel = _rel(files.annotated, files.root)
    times = read_times(files.times, files.dialogue, report, _rel(files.times, files.root)) if files.times else {}
    out: list[Expression] = []
    seen: set[str] = set()
    for k, item in enumerate(_items(files.annotated, files.dialogue, report, rel)):
        record = _record(item, k)
        expression = _expression(item, _Fields(report, rel, record), record, times, seen)
        if expression is not None:
            seen.add(expression.ref_id)
            out.append(expression)
    return out


def _expression(
    item: Any, f: _Fields, record: str, times: dict[str, tuple[float | None, float | None]], seen: set[str]
) -> Expression | None:
    """One record of an annotation file as an expression; None, with its problems in the report,
    when it is not one (a reference already in ``seen`` is one such problem)."""
    if not isinstance(item, dict):
        f.bad("(record)", f"expected an object, got {describe(item)}")
        return None
    ref = f.text(item, "ref_id_unif")
    info = f.obj(item, "info")
    interp = f.obj(item, "interpretations")
    extra = f.obj(item, "extra")
    text, role, utt = _said(f, info)
    giver = f.text(interp, "giver", "interpretations.", required=False) if interp else ""
    follower = f.text(interp, "follower", "interpretations.", required=False) if interp else ""
    status, subtype = _status(f, extra)
    reason = f.text(item, "reason", required=False)
    words = words_of(text)
    if text and not words:
        f.bad("info.expression", f"{shown(text)} has no words to find in the transcript")
    if ref and ref in seen:
        f.bad("ref_id_unif", f"reference {shown(ref)} appears twice in the file (expected once)")
    if not f.ok:
        return None
    start, end = times.get(ref, (None, None))
    return Expression(
        ref_id=ref,
        role=str(role),
        text=text,
        words=words,
        utt_id=utt,
        giver=giver,
        follower=follower,
        status=str(status),
        subtype=subtype,
        reason=reason,
        start=start,
        end=end,
        record=record,
    )


def _said(f: _Fields, info: dict[str, Any]) -> tuple[str, str | None, Any]:
    """What a record's ``info`` says was said: the expression, the speaker's role and the
    utterance number (each checked)."""
    text = f.text(info, "expression", "info.") if info else ""
    speaker = info.get("speaker") if info else None
    role = SPEAKERS.get(speaker) if isinstance(speaker, str) else None
    if info and role is None:
        f.bad("info.speaker", f"expected giver or follower, got {describe(speaker)}")
    utt = info.get("utt_id") if info else None
    if utt is not None and (isinstance(utt, bool) or not isinstance(utt, int)):
        f.bad("info.utt_id", f"expected an utterance number (an integer), got {describe(utt)}")
    return text, role, utt


def _status(f: _Fields, extra: dict[str, Any]) -> tuple[Any, str]:
    """A record's ``extra``: its status (checked against ``schema.GMMT_STATUS``) and subtype."""
    status = extra.get("status") if extra else None
    if extra and status not in schema.GMMT_STATUS:
        f.bad("extra.status", f"unknown status {shown(status)} (expected one of {', '.join(schema.GMMT_STATUS)})")
    subtype = f.text(extra, "subtype", "extra.", required=False) if extra else ""
    return status, subtype


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


# ---------------------------------------------------------------------------------------------
# Placing expressions on the moves
# ---------------------------------------------------------------------------------------------

Position = tuple[int, int]  # (k-th move of the speaker, word in it)


def _find(phrase: list[str], moves: list[list[str]], at: Position) -> Position | None:
    """The first place at or after ``at`` where ``phrase`` is said inside one move."""
    n = len(phrase)
    for i in range(at[0], len(moves)):
        words = moves[i]
        for j in range(at[1] if i == at[0] else 0, len(words) - n + 1):
            if words[j : j + n] == phrase:
                return (i, j)
    return None


def _in_order(group: list[Expression], moves: list[list[str]], first: Position) -> list[Position] | None:
    """The group's expressions found one after another from ``first`` (the first one's place)."""
    places = [first]
    at = (first[0], first[1] + len(group[0].words))
    for e in group[1:]:
        hit = _find(e.words, moves, at)
        if hit is None:
            return None
        places.append(hit)
        at = (hit[0], hit[1] + len(e.words))
    return places


def _utterance_at(group: list[Expression], moves: list[list[str]], at: Position) -> list[Position] | None:
    """Where one utterance's expressions were said: of the stretches at or after ``at`` that hold
    them in order, the one that ends first, and of those the shortest."""
    best: list[Position] | None = None
    best_end: Position | None = None
    start = at
    while (first := _find(group[0].words, moves, start)) is not None:
        if best_end is not None and first > best_end:
            break
        places = _in_order(group, moves, first)
        if places is None:
            break  # a later start cannot find what this one did not
        end = (places[-1][0], places[-1][1] + len(group[-1].words))
        if best_end is not None and end > best_end:
            break  # later starts end no earlier
        best, best_end = places, end
        start = (first[0], first[1] + 1)
    return best


def _utterances(expressions: list[Expression]) -> list[list[Expression]]:
    """Runs of consecutive expressions with the same utterance number (none: each on its own)."""
    groups: list[list[Expression]] = []
    for e in expressions:
        if groups and e.utt_id is not None and groups[-1][-1].utt_id == e.utt_id:
            groups[-1].append(e)
        else:
            groups.append([e])
    return groups


def place_expressions(expressions: list[Expression], actions: list[Action]) -> dict[str, int]:
    """ref_id -> the index of the action (move) the expression was said in; an expression whose
    words are not found in its speaker's moves is absent."""
    placed: dict[str, int] = {}
    for role in SPEAKERS.values():
        mine = [a for a in actions if a.role == role]
        moves = [words_of(a.text) for a in mine]
        at: Position = (0, 0)
        for group in _utterances([e for e in expressions if e.role == role]):
            places = _utterance_at(group, moves, at)
            if places is not None:
                for e, p in zip(group, places):
                    placed[e.ref_id] = mine[p[0]].index
                at = (places[-1][0], places[-1][1] + len(group[-1].words))
                continue
            for e in group:
                hit = _find(e.words, moves, at)
                if hit is not None:
                    placed[e.ref_id] = mine[hit[0]].index
                    at = (hit[0], hit[1] + len(e.words))
    return placed


def most_severe(statuses: list[str]) -> str:
    """The most severe of the states: misunderstood > pending > aligned."""
    return min(statuses, key=schema.GMMT_SEVERITY.index)


def annotate_session(
    session_id: str,
    dialogue: str,
    actions: list[Action],
    files: list[GmmtFiles],
    report: Report,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The ``gmmt`` labels (one per move holding expressions, per coder) and the expressions'
    details for one imported dialogue. Expressions not found in the moves are warnings."""
    labels: list[dict[str, Any]] = []
    details: list[dict[str, Any]] = []
    for f in files:
        expressions = read_annotated(f, report)
        placed = place_expressions(expressions, actions)
        rel = _rel(f.annotated, f.root)
        by_action: dict[int, list[str]] = {}
        for e in expressions:
            index = placed.get(e.ref_id)
            if index is None:
                title = "giver" if e.role == "guide" else "follower"
                report.add(
                    rel,
                    e.record,
                    "info.expression",
                    f"{shown(e.text)} (utterance {e.utt_id if e.utt_id is not None else 'not given'}) was not found in "
                    f"the {title}'s moves of dialogue {dialogue} after the expressions before it (expected its words "
                    "in one move): it is left out",
                    WARNING,
                )
                continue
            by_action.setdefault(index, []).append(e.status)
            details.append(
                {
                    "session_id": session_id,
                    "action_index": index,
                    "coder": f.coder,
                    "ref_id": e.ref_id,
                    "expression": e.text,
                    "speaker": e.role,
                    "giver_landmark": e.giver,
                    "follower_landmark": e.follower,
                    "status": e.status,
                    "subtype": e.subtype,
                    "reason": e.reason,
                    "utt_id": e.utt_id,
                    "start_s": e.start,
                    "end_s": e.end,
                }
            )
        for index in sorted(by_action):
            labels.append(
                {
                    "scheme": SCHEME,
                    "session_id": session_id,
                    "action_index": index,
                    "coder": f.coder,
                    "coder_kind": f.coder_kind,
                    "code": most_severe(by_action[index]),
                    "partition": "",
                }
            )
    details.sort(key=lambda d: (d["coder"], d["action_index"]))  # stable: file order within a move
    return labels, details
