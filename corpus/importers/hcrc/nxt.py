"""NXT move files: each speaker's moves, with their words from the NXT timed units (words, silences,
noises and their times) or from an NXT query transcript."""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from corpus import schema
from corpus.importers.hcrc.transcripts import Move, _expected_transcript, _rel, normalise_move, read_query_transcript
from corpus.loading.report import clipped, shown
from corpus.loading.validate import Report, read_text

_HREF = re.compile(r"#id\(([^)]+)\)(?:\.\.id\(([^)]+)\))?")


def parse_xml(path: Path, report: Report, rel: str) -> ET.Element | None:
    """An XML file's root element, or None with the problem (file, line) in ``report``."""
    text = read_text(path, report, rel)
    if text is None:
        return None
    try:
        return ET.fromstring(text.encode("utf-8"))
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else "-"
        report.add(rel, f"line {line}", "(xml)", f"bad XML: {exc}")
        return None


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def read_moves_xml(path: Path, role: str, report: Report, rel: str) -> list[tuple[str, tuple[str, str] | None, str]]:
    """(code, (first word id, last word id) or None, record) for each ``<move>`` in file order."""
    root = parse_xml(path, report, rel)
    if root is None:
        return []
    out = []
    for el in root.iter():
        if _local(el.tag) != "move":
            continue
        rec = f"move {clipped(el.get('id', '?'))}"
        label = el.get("label")
        code = normalise_move(label) if label else None
        if code is None:
            report.add(
                rel, rec, "label", f"unknown HCRC move {shown(label)} (expected one of {', '.join(schema.HCRC_MOVES)})"
            )
            continue
        span = None
        for child in el:
            if _local(child.tag) == "child":
                m = _HREF.search(child.get("href", ""))
                if m:
                    span = (m.group(1), m.group(2) or m.group(1))
                break
        out.append((code, span, rec))
    return out


def _seconds(text: str | None) -> float | None:
    """A word's time in seconds (None when it has none); ValueError unless a finite number."""
    if text is None:
        return None
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("not a finite number")
    return value


@dataclass(frozen=True)
class Unit:
    """One element of a timed-units file (``kind``: its name): a word (``<tu>``, ``text`` its word)
    or anything else (``<sil>``, ``<noi>``, ...; ``text`` its mark, :func:`mark_of`). ``last`` is
    the place of its last descendant with an id in the file's order (its own place when it has
    none), so that a reference to an element takes in what it holds."""

    id: str
    kind: str
    text: str
    start: float | None
    last: int

    @property
    def word(self) -> bool:
        return self.kind == WORD_TAG


WORD_TAG = "tu"
_MARK_NAME = re.compile(r"^[A-Za-z][\w-]{0,39}$")


def mark_of(el: ET.Element) -> str:
    """How a non-word element of the timed units shows in a move's text: its noise type in
    parentheses for ``<noi type="breath">`` ("(breath)"), else its element name ("(sil)", "(noi)");
    a type that is not a short plain name gives the element name."""
    kind = (el.get("type") or "").strip()
    return f"({kind if _MARK_NAME.match(kind) else _local(el.tag)})"


# A mark in a move's text: a parenthesised name (HCRC's words hold no parentheses).
_MARK = re.compile(r"\([A-Za-z][\w-]{0,39}\)")


def without_marks(text: str) -> str:
    """A move's text without the marks of silences and noises: its words."""
    return " ".join(_MARK.sub(" ", text).split())


def _unit_id(el: ET.Element) -> str | None:
    return el.get("id") or el.get("{http://nite.sourceforge.net/}id")


def read_timed_units(path: Path, report: Report, rel: str) -> list[Unit]:
    """Every element of a timed-units file with an id but the root, in document order: words
    (``<tu>``) and the rest (``<sil>``, ``<noi>`` and any other), each with its start time."""
    root = parse_xml(path, report, rel)
    units: list[Unit] = []
    if root is None:
        return units
    # Depth first with a stack of its own (a file may nest deeper than Python's recursion goes):
    # an element's place is taken as it opens, its text and last descendant as it closes.
    stack: list[tuple[Iterator[ET.Element], ET.Element, int | None]] = [(iter(root), root, None)]
    while stack:
        children, el, place = stack[-1]
        child = next(children, None)
        if child is None:
            stack.pop()
            if place is not None:
                unit = units[place]
                holds = len(units) - 1 > place  # (elements with ids inside it give its text)
                text = (el.text or "").strip() if unit.word else ("" if holds else mark_of(el))
                units[place] = Unit(unit.id, unit.kind, text, unit.start, len(units) - 1)
            continue
        uid = _unit_id(child)
        at = None
        if uid:
            kind = _local(child.tag)
            try:
                start = _seconds(child.get("start"))
            except ValueError:
                report.add(
                    rel,
                    f"{'word' if kind == WORD_TAG else clipped(kind)} {clipped(uid)}",
                    "start",
                    f"not a time: {shown(child.get('start'))} (expected seconds, a finite number)",
                )
                start = None
            at = len(units)
            units.append(Unit(uid, kind, "", start, at))
        stack.append((iter(child), child, at))
    return units


def _held(units: list[Unit]) -> str:
    """What a timed-units file holds, for a message: "282 words, 131 other elements (sil 86, noi 45)"."""
    others: dict[str, int] = {}
    for u in units:
        if not u.word:
            others[u.kind] = others.get(u.kind, 0) + 1
    words, n_others = len(units) - sum(others.values()), sum(others.values())
    kinds = ", ".join(f"{clipped(k)} {n}" for k, n in list(others.items())[:5])
    said = f"{words} word{'' if words == 1 else 's'}"
    return said + (f", {n_others} other element{'' if n_others == 1 else 's'} ({kinds})" if others else "")


SPEAKER_FILES = (("g", "guide"), ("f", "follower"))
# A moves file's moves: (code, (first word id, last word id) or None, record), in file order.
MoveRefs = list[tuple[str, tuple[str, str] | None, str]]


def read_nxt(dialogue: str, files: dict[str, Path], root: Path, report: Report) -> list[Move]:
    """Moves of one dialogue from its NXT files (``g``/``f`` moves, words or a transcript)."""
    per_role, rels = _moves_files(dialogue, files, root, report)
    if not report.ok or len(per_role) < 2:
        return []
    if files.get("g.timed-units") and files.get("f.timed-units"):
        moves: list[Move] = []
        for spk, role in SPEAKER_FILES:
            moves += _timed_moves(role, per_role[role], rels[role], files[f"{spk}.timed-units"], root, report)
        moves.sort(key=lambda m: m.start if m.start is not None else float("inf"))
        return moves
    transcript = files.get("transcript")
    if transcript is None:
        _no_words(dialogue, files, rels, root, report)
        return []
    return _transcript_moves(transcript, per_role, rels, root, report)


def _moves_files(
    dialogue: str, files: dict[str, Path], root: Path, report: Report
) -> tuple[dict[str, MoveRefs], dict[str, str]]:
    """Each speaker's moves and the file they are from (as the report names it), by role; a
    missing moves file is an error naming where it was expected."""
    per_role: dict[str, MoveRefs] = {}
    rels: dict[str, str] = {}
    for spk, role in SPEAKER_FILES:
        path = files.get(f"{spk}.moves")
        if path is None:
            _missing_moves(dialogue, spk, role, files, root, report)
            continue
        rels[role] = _rel(path, root)
        per_role[role] = read_moves_xml(path, role, report, rels[role])
    return per_role, rels


def _missing_moves(dialogue: str, spk: str, role: str, files: dict[str, Path], root: Path, report: Report) -> None:
    """The error for a speaker's missing moves file, naming where it was expected (beside the
    other speaker's, when there is one)."""
    other = files.get(f"{'f' if spk == 'g' else 'g'}.moves")
    found = f"found {_rel(other, root)}" if other is not None else "found no moves file of it"
    expected = _rel(other.with_name(f"{dialogue}.{spk}.moves.xml"), root) if other else f"{dialogue}.{spk}.moves.xml"
    report.add(
        expected,
        f"dialogue {dialogue}",
        "(file)",
        f"missing: the {role}'s moves of dialogue {dialogue} ({found}; expected {expected} beside it)",
    )


def _timed_moves(role: str, refs: MoveRefs, rel: str, tu_path: Path, root: Path, report: Report) -> list[Move]:
    """One speaker's moves with their words and start times from the speaker's timed units."""
    units = read_timed_units(tu_path, report, _rel(tu_path, root))
    pos = {u.id: k for k, u in enumerate(units)}
    moves: list[Move] = []
    for code, span, rec in refs:
        held = _span_units(span, units, pos, tu_path.name, rel, rec, report)
        if held is None:
            continue
        move = _timed_move(role, code, held, rel, rec, report)
        if move is not None:
            moves.append(move)
    return moves


def _span_units(
    span: tuple[str, str] | None,
    units: list[Unit],
    pos: dict[str, int],
    tu_name: str,
    rel: str,
    rec: str,
    report: Report,
) -> list[Unit] | None:
    """The units a move's word reference takes in; None, with an error, when it names ids the
    timed units do not have or runs backwards."""
    if span is None or span[0] not in pos or span[1] not in pos:
        want = "no word reference" if span is None else f"elements {span[0]} to {span[1]}"
        report.add(rel, rec, "nite:child", f"{want}: expected ids of {tu_name} ({_held(units)} there)")
        return None
    first, last = pos[span[0]], units[pos[span[1]]].last
    if first > last:
        report.add(
            rel,
            rec,
            "nite:child",
            f"elements {span[0]} to {span[1]} run backwards: {span[1]} comes before {span[0]} in {tu_name}",
        )
        return None
    return units[first : last + 1]


def _timed_move(role: str, code: str, held: list[Unit], rel: str, rec: str, report: Report) -> Move | None:
    """A move of the units it takes in: its text, its words and its start (the earliest); None,
    with an error, when it has no words."""
    text = " ".join(u.text for u in held if u.text)
    starts = [u.start for u in held if u.start is not None]
    if not text:
        report.add(rel, rec, "nite:child", "the move has no words")
        return None
    return Move(
        role=role,
        text=text,
        code=code,
        start=min(starts) if starts else None,
        file=rel,
        record=rec,
        words=" ".join(u.text for u in held if u.word and u.text),
    )


def _no_words(dialogue: str, files: dict[str, Path], rels: dict[str, str], root: Path, report: Report) -> None:
    """The error for a dialogue with moves but neither a query transcript nor both speakers'
    timed units."""
    one_tu = [_rel(files[k], root) for k in ("g.timed-units", "f.timed-units") if files.get(k)]
    also = f"; found {one_tu[0]} but not the other speaker's" if one_tu else ""
    report.add(
        rels["guide"],
        f"dialogue {dialogue}",
        "(words)",
        f"moves of {dialogue} found ({rels['guide']}, {rels['follower']}) but no words{also}: expected "
        f"{_expected_transcript(files['g.moves'], dialogue, root)} (an NXT query transcript) or "
        f"{dialogue}.g.timed-units.xml and {dialogue}.f.timed-units.xml",
    )


def _transcript_moves(
    transcript: Path, per_role: dict[str, MoveRefs], rels: dict[str, str], root: Path, report: Report
) -> list[Move]:
    """The moves with their words from an NXT query transcript, its rows aligned with each
    speaker's moves in order (an error when the counts differ)."""
    t_rel = _rel(transcript, root)
    n_errors = report.error_count
    rows = read_query_transcript(transcript, report, t_rel)
    readable = report.error_count == n_errors
    for role in ("guide", "follower"):
        n_rows = sum(1 for r in rows if r[0] == role)
        if readable and n_rows != len(per_role[role]):
            report.add(
                t_rel,
                "-",
                "who",
                f"{n_rows} {role} row(s) but {len(per_role[role])} {role} move(s) in {Path(rels[role]).name}: "
                "cannot align them (expected one row per move)",
            )
    if not report.ok:
        return []
    moves: list[Move] = []
    counters = {"guide": 0, "follower": 0}
    for role, text, rec in rows:
        code, _span, move_rec = per_role[role][counters[role]]
        counters[role] += 1
        if not text:
            report.add(t_rel, rec, "text", "empty text: a move needs its words")
            continue
        moves.append(Move(role=role, text=text, code=code, start=None, file=rels[role], record=move_rec))
    return moves
