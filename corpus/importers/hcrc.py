"""Import HCRC Map Task dialogues as message-only sessions with the HCRC move annotation.

Two source shapes (docs/importers.md):

- ``speaker|text|move`` transcripts, one dialogue per file (``q1ec1.txt``): ``g`` is the
  instruction giver (our guide), ``f`` the follower;
- NXT move files ``<dialogue>.g.moves.xml`` and ``<dialogue>.f.moves.xml`` with either the NXT
  timed units ``<dialogue>.<g|f>.timed-units.xml`` (words and times) or an NXT query transcript
  (``who<TAB>text`` rows in dialogue order) for the words. The archive as distributed keeps the
  moves in ``moves/`` and the query transcripts in ``transcripts/<dialogue>.txt``.

A move of the timed units spans elements of any kind, in document order: words (``<tu>``),
silences (``<sil>``), noises (``<noi type="breath">``) and any other element with an id; a move
may start or end on any of them. Its text is its words with every other element kept as a mark
in parentheses where it is, the noise's type or else the element's name ("(lipsmack) right okay",
"we are (sil) above"); GMMT's expressions are looked for among the words alone.

The corpus's split lists (``train_split.txt``, ``val_split.txt``, ``test_split.txt``: one dialogue
id a line), in the source folder or given as ``split_lists``, give each dialogue its split; without
them the folder a dialogue's file is in (``train/``, ``val/``, ``test/``) does. A transcript of
several dialogues with nothing between them (a set such as Maptask-Corpus's ``test_set.txt``: more
moves than any HCRC dialogue, or named as such a set) is not imported. HCRC's route deviation per
dialogue (``moves_and_deviation.csv``, column ``path dev``), in the source folder or given as
``route_deviation``, becomes the session's ``route_deviation``.

A ``.txt`` file is told by its content: ``speaker|text|move`` lines, or an NXT query transcript
(lines such as ``Found 2 args.`` then a ``who<TAB>...`` header); its dialogue is its name up to
the first dot. Each move becomes one message; its label goes to ``labels/hcrc_moves.csv`` as coder
``hcrc`` (partition ``validation``), the code normalised to the keys of
``corpus.schema.HCRC_MOVES``. The session's condition comes from the dialogue id (``q1ec1``: eye
contact, ``q3nc1``: no eye contact). GMMT annotations of the dialogues, in the source folder or
given as ``gmmt``, become the ``gmmt`` scheme (:mod:`corpus.importers.gmmt`). The HCRC maps are
images, not grids: the session points to a placeholder grid map.
"""

from __future__ import annotations

import csv
import io
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus import schema
from corpus.importers.asciimap import grid_for_image, placeholder_map, safe_id
from corpus.importers.gmmt import ANNOTATED, annotate_session, gmmt_files, is_gmmt_file
from corpus.model import Action, GridMap, Participant, Session
from corpus.report import ERROR, WARNING, clipped, shown
from corpus.validate import Report, read_text

CODER = "hcrc"
PARTITION = "validation"
SCHEME = schema.HCRC_MOVES_SCHEME
DEFAULT_SPLIT = "train"
# HCRC dialogue ids: quad, eye contact (ec) or not (nc), then the dialogue's number (q1ec1, q3nc1).
_DIALOGUE_ID = re.compile(r"^q\d+(?P<eyes>ec|nc)\d+$", re.I)
EYE_CONTACT_CODES = {"ec": "eye_contact", "nc": "no_eye_contact"}
# The HCRC map scans are 791 x 1024 px; placeholder grids keep that shape.
HCRC_MAP_PIXELS = (791, 1024)

SPEAKERS = {"g": "guide", "giver": "guide", "f": "follower", "follower": "follower"}

# Long names used by some releases (e.g. the label map of NathanDuran/Maptask-Corpus).
LONG_NAMES = {
    "yes_reply": "reply_y",
    "no_reply": "reply_n",
    "non_yes_no_reply": "reply_w",
    "yes_no_question": "query_yn",
    "non_yes_no_question": "query_w",
    "check_attention": "align",
}


def normalise_move(label: str) -> str | None:
    """An HCRC move label as a key of ``schema.HCRC_MOVES`` (None if it is not a move)."""
    key = re.sub(r"[\s\-]+", "_", label.strip().lower())
    key = LONG_NAMES.get(key, key)
    return key if key in schema.HCRC_MOVES else None


@dataclass
class Move:
    role: str
    text: str
    code: str
    start: float | None
    file: str
    record: str
    # Its words alone, when ``text`` also holds the marks of the timed units' other elements.
    words: str | None = None


# ---------------------------------------------------------------------------------------------
# speaker|text|move transcripts
# ---------------------------------------------------------------------------------------------


def condition_of(dialogue: str) -> str:
    """The condition an HCRC dialogue id records: ``eye_contact`` (q1ec1), ``no_eye_contact``
    (q3nc1), or ``not_recorded`` for an id of another shape."""
    m = _DIALOGUE_ID.match(dialogue)
    return EYE_CONTACT_CODES[m.group("eyes").lower()] if m else schema.NOT_RECORDED


PIPE, NXT_QUERY = "speaker|text|move", "NXT query"


def _head_lines(path: Path) -> list[str]:
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8", errors="replace")
    except OSError:
        return []
    return [line for line in head.splitlines() if line.strip()]


def transcript_kind(path: Path) -> str | None:
    """What a ``.txt`` holds, from its first lines: ``speaker|text|move`` lines (PIPE), an NXT query
    transcript (NXT_QUERY: a ``who<TAB>...`` header, after lines such as ``Found 2 args.``), or
    neither (None)."""
    lines = _head_lines(path)
    if not lines:
        return None
    if lines[0].count("|") >= 2:
        return PIPE
    if any(_is_who_header(line) for line in lines[:10]):
        return NXT_QUERY
    return None


def _is_who_header(line: str) -> bool:
    return "\t" in line and line.split("\t", 1)[0].strip().lower() == "who"


def read_pipe_transcript(path: Path, report: Report, rel: str) -> list[Move]:
    text = read_text(path, report, rel)
    if text is None:
        return []
    moves: list[Move] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        rec = f"line {lineno}"
        parts = line.split("|")
        if len(parts) < 3:
            report.add(rel, rec, "(line)", f"expected speaker|text|move, got {shown(line.strip())}")
            continue
        speaker, move, words = parts[0].strip(), parts[-1].strip(), "|".join(parts[1:-1]).strip()
        role = SPEAKERS.get(speaker.lower())
        bad = False
        if role is None:
            report.add(rel, rec, "speaker", f"unknown speaker {shown(speaker)} (expected g or f)")
            bad = True
        code = normalise_move(move) if move else None
        if code is None:
            report.add(
                rel, rec, "move", f"unknown HCRC move {shown(move)} (expected one of {', '.join(schema.HCRC_MOVES)})"
            )
            bad = True
        if not words:
            report.add(rel, rec, "text", "empty text: a move needs its words")
            bad = True
        if not bad and role is not None and code is not None:
            moves.append(Move(role=role, text=words, code=code, start=None, file=rel, record=rec))
    return moves


# ---------------------------------------------------------------------------------------------
# NXT move files
# ---------------------------------------------------------------------------------------------

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


def read_query_transcript(path: Path, report: Report, rel: str) -> list[tuple[str, str, str]]:
    """(role, text, record) rows of an NXT query transcript (``who<TAB>text``)."""
    text = read_text(path, report, rel)
    if text is None:
        return []
    rows: list[tuple[str, str, str]] = []
    started = False
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not started:
            started = line.split("\t", 1)[0].strip().lower() == "who"
            continue
        if not line.strip():
            continue
        parts = line.split("\t")
        role = SPEAKERS.get(parts[0].strip().lower())
        if role is None or len(parts) < 2:
            report.add(rel, f"line {lineno}", "who", f"expected g or f and the text, got {shown(line.strip())}")
            continue
        rows.append((role, parts[1].strip(), f"line {lineno}"))
    if not started:
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        report.add(
            rel,
            "-",
            "(file)",
            f"not an NXT query transcript: found {shown(first) if first else 'an empty file'} first, but no "
            "'who<TAB>...' header row (expected lines such as 'Found 2 args.', then 'who<TAB>$m', then "
            "one 'g<TAB>words' or 'f<TAB>words' row per move)",
        )
    return rows


def read_nxt(dialogue: str, files: dict[str, Path], root: Path, report: Report) -> list[Move]:
    """Moves of one dialogue from its NXT files (``g``/``f`` moves, words or a transcript)."""
    moves: list[Move] = []
    per_role: dict[str, list[tuple[str, tuple[str, str] | None, str]]] = {}
    rels: dict[str, str] = {}
    for spk, role in (("g", "guide"), ("f", "follower")):
        path = files.get(f"{spk}.moves")
        if path is None:
            other = files.get(f"{'f' if spk == 'g' else 'g'}.moves")
            found = f"found {_rel(other, root)}" if other is not None else "found no moves file of it"
            expected = (
                _rel(other.with_name(f"{dialogue}.{spk}.moves.xml"), root) if other else f"{dialogue}.{spk}.moves.xml"
            )
            report.add(
                expected,
                f"dialogue {dialogue}",
                "(file)",
                f"missing: the {role}'s moves of dialogue {dialogue} ({found}; expected {expected} beside it)",
            )
            continue
        rels[role] = _rel(path, root)
        per_role[role] = read_moves_xml(path, role, report, rels[role])
    if not report.ok or len(per_role) < 2:
        return []
    if files.get("g.timed-units") and files.get("f.timed-units"):
        for spk, role in (("g", "guide"), ("f", "follower")):
            tu_path = files[f"{spk}.timed-units"]
            units = read_timed_units(tu_path, report, _rel(tu_path, root))
            pos = {u.id: k for k, u in enumerate(units)}
            for code, span, rec in per_role[role]:
                if span is None or span[0] not in pos or span[1] not in pos:
                    want = "no word reference" if span is None else f"elements {span[0]} to {span[1]}"
                    report.add(
                        rels[role],
                        rec,
                        "nite:child",
                        f"{want}: expected ids of {tu_path.name} ({_held(units)} there)",
                    )
                    continue
                first, last = pos[span[0]], units[pos[span[1]]].last
                if first > last:
                    report.add(
                        rels[role],
                        rec,
                        "nite:child",
                        f"elements {span[0]} to {span[1]} run backwards: {span[1]} comes before {span[0]} in "
                        f"{tu_path.name}",
                    )
                    continue
                held = units[first : last + 1]
                text = " ".join(u.text for u in held if u.text)
                starts = [u.start for u in held if u.start is not None]
                if not text:
                    report.add(rels[role], rec, "nite:child", "the move has no words")
                    continue
                moves.append(
                    Move(
                        role=role,
                        text=text,
                        code=code,
                        start=min(starts) if starts else None,
                        file=rels[role],
                        record=rec,
                        words=" ".join(u.text for u in held if u.word and u.text),
                    )
                )
        moves.sort(key=lambda m: m.start if m.start is not None else float("inf"))
        return moves
    transcript = files.get("transcript")
    if transcript is None:
        g_moves = files["g.moves"]
        one_tu = [_rel(files[k], root) for k in ("g.timed-units", "f.timed-units") if files.get(k)]
        also = f"; found {one_tu[0]} but not the other speaker's" if one_tu else ""
        report.add(
            rels["guide"],
            f"dialogue {dialogue}",
            "(words)",
            f"moves of {dialogue} found ({rels['guide']}, {rels['follower']}) but no words{also}: expected "
            f"{_expected_transcript(g_moves, dialogue, root)} (an NXT query transcript) or "
            f"{dialogue}.g.timed-units.xml and {dialogue}.f.timed-units.xml",
        )
        return []
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
    counters = {"guide": 0, "follower": 0}
    for role, text, rec in rows:
        code, _span, move_rec = per_role[role][counters[role]]
        counters[role] += 1
        if not text:
            report.add(t_rel, rec, "text", "empty text: a move needs its words")
            continue
        moves.append(Move(role=role, text=text, code=code, start=None, file=rels[role], record=move_rec))
    return moves


# ---------------------------------------------------------------------------------------------
# Dialogues -> sessions
# ---------------------------------------------------------------------------------------------

_NXT_NAME = re.compile(r"^(?P<dlg>[^.]+)\.(?P<spk>[gf])\.(?P<kind>moves|timed-units)\.xml$", re.I)


def _dialogue_of(path: Path) -> str:
    return path.name.split(".", 1)[0]


def _rel(path: Path, root: Path) -> str:
    """``path`` as the report names it: relative to the source folder, with forward slashes."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


# The archive as distributed keeps the moves and the query transcripts in sibling folders.
MOVES_FOLDER, TRANSCRIPTS_FOLDER = "moves", "transcripts"


def _expected_transcript(moves_file: Path, dialogue: str, root: Path) -> str:
    """Where the NXT query transcript of a dialogue is looked for, as the report names it."""
    if moves_file.parent.name.lower() == MOVES_FOLDER:
        return _rel(moves_file.parent.parent / TRANSCRIPTS_FOLDER / f"{dialogue}.txt", root)
    beside = _rel(moves_file.parent / f"{dialogue}.nxt_query_transcript.txt", root)
    return f"{_rel(moves_file.parent / TRANSCRIPTS_FOLDER / f'{dialogue}.txt', root)} or {beside}"


@dataclass
class Found:
    """What a source holds: the folder the report names files from (``root``), the pipe
    transcripts by dialogue, the NXT files by dialogue (``g.moves``, ``f.moves``, ``g.timed-units``,
    ``f.timed-units``, ``transcript``), the dialogue-to-map tables, the GMMT files, the split
    lists, the route deviation tables, and how many files were looked at."""

    root: Path
    pipes: dict[str, Path]
    nxt: dict[str, dict[str, Path]]
    tables: list[Path]
    gmmt: list[Path]
    n_files: int
    split_lists: list[Path] = field(default_factory=list)
    deviation: list[Path] = field(default_factory=list)


def _candidates(src: Path) -> tuple[Path, list[Path]]:
    """The folder paths are named from and the files to look at. For a single file: the files of
    its dialogue (named ``<dialogue>.*``) beside it and, in the archive's layout, in the sibling
    ``moves/`` or ``transcripts/`` folder."""
    if src.is_dir():
        return src, sorted(p for p in src.rglob("*") if p.is_file())
    folder, dlg = src.parent, _dialogue_of(src)
    folders = [folder]
    if folder.name.lower() in (MOVES_FOLDER, TRANSCRIPTS_FOLDER):
        other = folder.parent / (TRANSCRIPTS_FOLDER if folder.name.lower() == MOVES_FOLDER else MOVES_FOLDER)
        if other.is_dir():
            folders.append(other)
            folder = folder.parent
    files = {src} | {p for d in folders for p in d.iterdir() if p.is_file() and p.name.startswith(dlg + ".")}
    return folder, sorted(files)


def discover(src: Path, report: Report) -> Found:
    """Every HCRC and GMMT file of ``src`` (a folder, or one file of a dialogue), by dialogue.

    A ``.txt`` is told by its content: ``speaker|text|move`` lines, or an NXT query transcript;
    one that is neither but is named as a transcript (in a ``transcripts/`` folder, or with
    ``transcript`` in its name) is kept as its dialogue's transcript, so that reading it says what
    is wrong. Its dialogue is its name up to the first dot (``transcripts/q3nc1.txt``: q3nc1).
    """
    root, candidates = _candidates(src)
    found = Found(root=root, pipes={}, nxt={}, tables=[], gmmt=[], n_files=0)
    for p in candidates:
        if any(part.startswith(".") for part in p.parts[len(root.parts) :]):
            continue
        found.n_files += 1
        m = _NXT_NAME.match(p.name)
        if m:
            found.nxt.setdefault(m.group("dlg"), {})[f"{m.group('spk').lower()}.{m.group('kind').lower()}"] = p
            continue
        if is_gmmt_file(p):
            found.gmmt.append(p)
            continue
        if p.suffix.lower() == ".csv":
            if _is_map_table(p):
                found.tables.append(p)
            elif is_deviation_table(p):
                found.deviation.append(p)
            continue
        if p.suffix.lower() != ".txt":
            continue
        if is_split_list(p):
            found.split_lists.append(p)
            continue
        kind, dlg = transcript_kind(p), _dialogue_of(p)
        named = p.parent.name.lower() == TRANSCRIPTS_FOLDER or "transcript" in p.name.lower()
        if kind == PIPE:
            _keep(found.pipes, dlg, p, root, report, "speaker|text|move transcripts")
        elif kind == NXT_QUERY or named:
            files = found.nxt.setdefault(dlg, {})
            held = files.get("transcript")
            if held is None or (kind == NXT_QUERY and transcript_kind(held) != NXT_QUERY):
                files["transcript"] = p
            elif kind == NXT_QUERY:
                report.add(
                    _rel(p, root),
                    f"dialogue {dlg}",
                    "(file)",
                    f"a second NXT query transcript of {dlg}: {_rel(held, root)} is used, this one is not",
                    WARNING,
                )
    return found


def _is_map_table(path: Path) -> bool:
    """A CSV whose header names ``dialogue_id`` and ``map_id`` (e.g. GMMT's dialogue_map_images.csv)."""
    with open(path, "rb") as f:
        head = f.read(200).decode("utf-8", errors="replace").lower()
    return "dialogue_id" in head and "map_id" in head


def _keep(by_dialogue: dict[str, Path], dlg: str, p: Path, root: Path, report: Report, what: str) -> None:
    held = by_dialogue.setdefault(dlg, p)
    if held is not p:
        report.add(
            _rel(p, root),
            f"dialogue {dlg}",
            "(file)",
            f"two {what} of {dlg}: {_rel(held, root)} is used, this one is not",
            WARNING,
        )


def _read_map_table(paths: list[Path], report: Report) -> dict[str, str]:
    out: dict[str, str] = {}
    for path in paths:
        text = read_text(path, report, path.name)
        if text is None:
            continue
        for row in csv.DictReader(io.StringIO(text)):
            d, m = (row.get("dialogue_id") or "").strip(), (row.get("map_id") or "").strip()
            if d and m:
                out[d] = m
    return out


# ---------------------------------------------------------------------------------------------
# The corpus's split lists, its route deviation scores, and concatenated transcripts
# ---------------------------------------------------------------------------------------------

# The split lists as NathanDuran/Maptask-Corpus writes them (maptask_data/metadata/): one dialogue
# id a line.
_SPLIT_LIST = re.compile(r"^(?P<split>train|val|test)_split\.txt$", re.I)
SPLIT_LIST_NAMES = "train_split.txt, val_split.txt, test_split.txt"
# The folders that repository writes each split's dialogues to (maptask_data/val/q1ec6.txt).
SPLIT_FOLDERS = ("train", "val", "test")
_LISTED_ID = re.compile(r"^[\w.-]{1,100}$")
# Its sets of dialogues in one speaker|text|move file (maptask_data/{full,train,val,test}_set.txt):
# one dialogue's lines follow the last line of the one before, with nothing between them.
_CONCATENATED_SET = re.compile(r"^(?:full|train|val|test)_set\.txt$", re.I)
# The longest dialogue of the HCRC release (q1nc1) has 686 moves; a file of more holds several.
LONGEST_DIALOGUE = ("q1nc1", 686)
MAX_DIALOGUE_MOVES = 1000
# HCRC's route deviation per dialogue as innerfirexy/hcrc-map-task tabulates it
# (moves_and_deviation.csv): the dialogue in column Observation, the score in column "path dev".
DEVIATION_ID, DEVIATION_COLUMN = "Observation", "path dev"


def is_split_list(path: Path) -> bool:
    return bool(_SPLIT_LIST.match(path.name))


@dataclass
class SplitLists:
    """The dialogues the split lists name: each one's split and the list that names it
    (``source``, as the report names the file), and the lists read."""

    split: dict[str, str]
    source: dict[str, str]
    lists: list[str]


def read_split_lists(paths: list[Path], root: Path, report: Report) -> SplitLists:
    """The split lists ``paths`` (``<split>_split.txt``, one dialogue id a line). A dialogue in two
    lists, or a line that is not a dialogue id, is an error naming file and line; so is a list of a
    split that :data:`corpus.schema.SPLITS` does not have. A second list of one split is a warning
    (the first, by path, is used)."""
    out = SplitLists(split={}, source={}, lists=[])
    by_split: dict[str, str] = {}
    for path in sorted(paths):
        rel = _rel(path, root)
        m = _SPLIT_LIST.match(path.name)
        if m is None:
            continue
        split = m.group("split").lower()
        if split in by_split:
            report.add(
                rel,
                "-",
                "(file)",
                f"a second list of the {split} split: {by_split[split]} is used, this one is not",
                WARNING,
            )
            continue
        if split not in schema.SPLITS:
            report.add(
                rel,
                "-",
                "(file)",
                f"a list of the {split} split, which is not a split here (expected one of {', '.join(schema.SPLITS)})",
            )
            continue
        text = read_text(path, report, rel)
        if text is None:
            continue
        by_split[split] = rel
        out.lists.append(rel)
        for lineno, line in enumerate(text.splitlines(), start=1):
            dlg = line.strip()
            if not dlg:
                continue
            if not _LISTED_ID.match(dlg):
                report.add(
                    rel,
                    f"line {lineno}",
                    "dialogue",
                    f"expected one dialogue id a line (such as q1ec1), got {shown(dlg)}",
                )
                continue
            held = out.split.get(dlg)
            if held is not None and held != split:
                report.add(
                    rel,
                    f"line {lineno}",
                    "dialogue",
                    f"{dlg} is in two split lists: {out.source[dlg]} ({held}) and this one ({split})",
                )
                continue
            out.split[dlg], out.source[dlg] = split, rel
    return out


def _split_lists_option(given: str | Path, report: Report) -> tuple[Path, list[Path]] | None:
    """The folder and the split lists the ``split_lists`` option names (a folder holding them, or
    one list); None, with an error, when it names none."""
    path = Path(given)
    if not path.exists():
        report.add(
            str(path), "-", "split_lists", f"not found: expected a folder holding {SPLIT_LIST_NAMES}, or one of them"
        )
        return None
    if path.is_file():
        if not is_split_list(path):
            report.add(
                str(path),
                "-",
                "split_lists",
                "not a split list: expected a file named train_split.txt, val_split.txt or test_split.txt (one "
                "dialogue id a line), or a folder holding them",
            )
            return None
        return path.parent, [path]
    lists = sorted(
        p
        for p in path.rglob("*")
        if p.is_file() and is_split_list(p) and not any(x.startswith(".") for x in p.relative_to(path).parts)
    )
    if not lists:
        report.add(str(path), "-", "split_lists", f"no split lists there (expected {SPLIT_LIST_NAMES})")
        return None
    return path, lists


def _folder_split(path: Path) -> str | None:
    """The split a dialogue's folder names (``val/q1ec6.txt``: val), if a split here."""
    name = path.parent.name.lower()
    return name if name in SPLIT_FOLDERS and name in schema.SPLITS else None


def _split_of(dlg: str, path: Path, given: str | None, lists: SplitLists, rel: str, report: Report) -> tuple[str, str]:
    """A dialogue's split and where it comes from: the ``split`` option; else the split lists when
    there are any (a dialogue in none of them is ``not_recorded``, with a warning); else the folder
    its file is in (``train/``, ``val/``, ``test/``); else ``train``."""
    if given is not None:
        return given, "as given"
    folder = _folder_split(path)
    if lists.lists:
        split = lists.split.get(dlg)
        if split is None:
            report.add(
                rel,
                f"dialogue {dlg}",
                "split",
                f"{dlg} is in none of the split lists ({', '.join(lists.lists)}): its split is {schema.NOT_RECORDED}",
                WARNING,
            )
            return schema.NOT_RECORDED, "in none of the split lists"
        if folder is not None and folder != split:
            report.add(
                rel,
                f"dialogue {dlg}",
                "split",
                f"{dlg} is in a {folder}/ folder but {lists.source[dlg]} lists it: its split is {split} (the lists "
                "are used)",
                WARNING,
            )
        return split, f"from {lists.source[dlg]}"
    if folder is not None:
        return folder, f"from its folder {folder}/"
    return DEFAULT_SPLIT, "by default"


def is_deviation_table(path: Path) -> bool:
    """A CSV whose header names the columns Observation and "path dev" (moves_and_deviation.csv)."""
    try:
        with open(path, "rb") as f:
            head = f.read(2000).decode("utf-8", errors="replace")
    except OSError:
        return False
    header = [c.strip().lower() for c in head.lstrip("\ufeff").splitlines()[0].split(",")] if head.strip() else []
    return DEVIATION_ID.lower() in header and DEVIATION_COLUMN in header


def read_deviation(paths: list[Path], root: Path, report: Report) -> dict[str, tuple[float, str]]:
    """Dialogue -> (its route deviation score, the file it is from), from tables in the shape of
    moves_and_deviation.csv (a header row, then one row a dialogue: its id in column Observation,
    the score in column "path dev", the other columns not read). An empty score is no score; one
    that is not a finite number of 0 or more, or a dialogue given two scores, is an error naming
    file, dialogue and column."""
    out: dict[str, tuple[float, str]] = {}
    for path in paths:
        rel = _rel(path, root)
        text = read_text(path, report, rel)
        if text is None:
            continue
        rows = csv.reader(io.StringIO(text))
        header = [c.strip() for c in next(rows, [])]
        low = [c.lower() for c in header]
        if DEVIATION_ID.lower() not in low or DEVIATION_COLUMN not in low:
            report.add(
                rel,
                "line 1",
                "(header)",
                f"expected the columns {DEVIATION_ID} and {DEVIATION_COLUMN!r} (as in moves_and_deviation.csv), got "
                f"{shown(','.join(header))}",
            )
            continue
        at_id, at_score = low.index(DEVIATION_ID.lower()), low.index(DEVIATION_COLUMN)
        for lineno, row in enumerate(rows, start=2):
            if not any(c.strip() for c in row):
                continue
            dlg = row[at_id].strip() if at_id < len(row) else ""
            if not dlg:
                report.add(rel, f"line {lineno}", DEVIATION_ID, "no dialogue id")
                continue
            rec = f"dialogue {clipped(dlg)}"
            raw = row[at_score].strip() if at_score < len(row) else ""
            if not raw:
                continue
            try:
                value = float(raw)
            except ValueError:
                value = math.nan
            if not math.isfinite(value) or value < 0:
                report.add(
                    rel,
                    rec,
                    DEVIATION_COLUMN,
                    f"not a route deviation score: {shown(raw)} (expected a number of 0 or more)",
                )
                continue
            held = out.get(dlg)
            if held is not None and held[0] != value:
                report.add(
                    rel,
                    rec,
                    DEVIATION_COLUMN,
                    f"a second route deviation of {dlg}: {value:g} here, {held[0]:g} in {held[1]}",
                )
                continue
            out[dlg] = (value, rel)
    return out


def _deviation_option(given: str | Path, report: Report) -> Path | None:
    path = Path(given)
    if not path.is_file():
        report.add(
            str(path),
            "-",
            "route_deviation",
            f"not found: expected a CSV with the columns {DEVIATION_ID} and {DEVIATION_COLUMN!r} "
            "(moves_and_deviation.csv)",
        )
        return None
    return path


def concatenation(path: Path) -> str | None:
    """Why a ``speaker|text|move`` file holds several dialogues with no boundary between them
    (None when it does not look so): it has more moves than any HCRC dialogue, or it is named as
    NathanDuran/Maptask-Corpus names its sets of dialogues in one file (``test_set.txt``). A file
    that cannot be read counts no moves here (reading it as a dialogue says why)."""
    named = bool(_CONCATENATED_SET.match(path.name))
    text = read_text(path, Report(), path.name)
    n = sum(1 for line in (text or "").splitlines() if line.strip())
    reasons = []
    if n > MAX_DIALOGUE_MOVES:
        name, most = LONGEST_DIALOGUE
        reasons.append(f"{n:,} moves, where the longest HCRC dialogue, {name}, has {most}")
    if named:
        reasons.append(f"named {path.name}, as Maptask-Corpus names its sets of dialogues in one file")
    if not reasons:
        return None
    return (
        f"several dialogues concatenated with nothing between one and the next ({'; '.join(reasons)}): they "
        "cannot be told apart, so the file is not imported; import each dialogue's own file instead (such as "
        "maptask_data/test/<dialogue>.txt)"
    )


def _gmmt_option(gmmt: str | Path, report: Report) -> tuple[Path, list[Path], list[Path]] | None:
    """The folder, GMMT files and dialogue-to-map tables the ``gmmt`` option names (a GMMT folder
    or one ``<dialogue>.annotated.json``); None, with an error, when it names nothing usable."""
    path = Path(gmmt)
    if not path.exists():
        report.add(
            str(path),
            "-",
            "gmmt",
            "not found: expected a folder of GMMT files (<dialogue>.annotated.json, "
            "<dialogue>.reference_expressions.json) or one <dialogue>.annotated.json",
        )
        return None
    if path.is_file():
        root = path.parent
        files = [p for p in root.iterdir() if p.is_file() and p.name.startswith(_dialogue_of(path) + ".")]
    else:
        root = path
        files = [
            p for p in path.rglob("*") if p.is_file() and not any(x.startswith(".") for x in p.relative_to(path).parts)
        ]
    gmmt_paths = sorted(p for p in files if is_gmmt_file(p))
    tables = sorted(p for p in files if p.suffix.lower() == ".csv" and _is_map_table(p))
    if not any(ANNOTATED.match(p.name) for p in gmmt_paths):
        report.add(
            str(path),
            "-",
            "gmmt",
            f"no GMMT annotations there (found {len(files)} file(s), none named <dialogue>.annotated.json)",
        )
        return None
    return root, gmmt_paths, tables


def _design_of(sessions: list[Session]) -> list[str]:
    """The dataset's two conditions, reference first: the design the sessions' conditions belong
    to; the HCRC design (no eye contact, eye contact) when none is recorded."""
    recorded = {s.condition for s in sessions} - {schema.NOT_RECORDED}
    design = next((d for d in schema.DESIGNS if recorded and recorded <= set(d)), schema.EYE_CONTACT)
    return list(design)


def _no_dialogue_message(found: Found) -> str:
    kinds = {}
    for label, n in (
        ("speaker|text|move transcript", len(found.pipes)),
        ("NXT query transcript", sum(1 for f in found.nxt.values() if "transcript" in f)),
        ("timed-units file", sum(1 for f in found.nxt.values() for k in f if k.endswith("timed-units"))),
        ("GMMT file", len(found.gmmt)),
    ):
        if n:
            kinds[label] = n
    what = ", ".join(f"{n} {label}(s)" for label, n in kinds.items())
    return (
        f"no HCRC dialogues found: looked at {found.n_files} file(s){f' ({what})' if what else ''}; expected "
        "speaker|text|move transcripts (<dialogue>.txt), or NXT moves <dialogue>.g.moves.xml with "
        "<dialogue>.f.moves.xml"
    )


def import_hcrc(
    src: str | Path,
    report: Report,
    condition: str | None = None,
    split: str | None = None,
    map_id: str | None = None,
    gmmt: str | Path | None = None,
    split_lists: str | Path | None = None,
    route_deviation: str | Path | None = None,
    **unknown: Any,
):
    """Read HCRC dialogues from ``src`` (module docstring; docs/importers.md). ``split``: every
    dialogue's split (None: from the split lists, else the folder, else ``train``); ``split_lists``:
    a folder of the corpus's split lists or one of them (else those in ``src``);
    ``route_deviation``: a table of route deviation scores (else one in ``src``)."""
    from corpus.importers import ImportResult

    src = Path(src)
    if unknown:
        report.add(
            "(options)",
            "-",
            ", ".join(sorted(unknown)),
            "not an HCRC import option (known: condition, split, map_id, gmmt, split_lists, route_deviation)",
        )
        return ImportResult(report=report)
    if condition is not None and condition not in schema.CONDITIONS:
        report.add(
            "(options)",
            "-",
            "condition",
            f"unknown condition {condition!r} (expected one of {', '.join(schema.CONDITIONS)})",
        )
    if split is not None and split not in schema.SPLITS:
        report.add("(options)", "-", "split", f"unknown split {split!r} (expected one of {', '.join(schema.SPLITS)})")
    if not src.exists():
        report.add(str(src), "-", "(path)", "not found: give a transcript, an NXT moves file or a folder of them")
        return ImportResult(report=report)
    found = discover(src, report)
    root = found.root
    annotations = gmmt_files(found.gmmt, root)
    tables = list(found.tables)
    if gmmt is not None:
        given = _gmmt_option(gmmt, report)
        if given is None:
            return ImportResult(report=report)
        g_root, g_paths, g_tables = given
        tables += g_tables
        for dlg, files in gmmt_files(g_paths, g_root).items():
            held = annotations.setdefault(dlg, [])
            held += [f for f in files if all(h.coder != f.coder for h in held)]
    lists_found = found.split_lists
    if split_lists is not None:
        given_lists = _split_lists_option(split_lists, report)
        if given_lists is None:
            return ImportResult(report=report)
        lists_root, lists_found = given_lists
    else:
        lists_root = root
    lists = read_split_lists(lists_found, lists_root, report)
    if split is not None and lists.lists:
        report.add(
            lists.lists[0],
            "-",
            "split",
            f"the split lists ({', '.join(lists.lists)}) are not used: split {split!r} is given for every dialogue",
            WARNING,
        )
    deviation_files = found.deviation
    if route_deviation is not None:
        given_table = _deviation_option(route_deviation, report)
        if given_table is None:
            return ImportResult(report=report)
        deviation_files, deviation_root = [given_table], given_table.parent
    else:
        deviation_root = root
    deviations = read_deviation(deviation_files, deviation_root, report)
    concatenated: dict[str, str] = {}  # file -> why it holds several dialogues
    for d, path in sorted(found.pipes.items()):
        why = concatenation(path)
        if why is not None:
            concatenated[_rel(path, root)] = why
            del found.pipes[d]
    dialogues = sorted(set(found.pipes) | {d for d, f in found.nxt.items() if any(k.endswith("moves") for k in f)})
    for rel, why in concatenated.items():  # (an error when nothing else is there to import)
        report.add(
            rel,
            "-",
            "(file)",
            why + ("; the source's other dialogues are imported" if dialogues else ""),
            WARNING if dialogues else ERROR,
        )
    for d, f in sorted(found.nxt.items()):
        if d not in dialogues and "transcript" in f and not any(k.endswith("timed-units") for k in f):
            report.add(
                _rel(f["transcript"], root),
                f"dialogue {d}",
                "(file)",
                f"a transcript of {d} but no moves of it: expected {d}.g.moves.xml and {d}.f.moves.xml "
                f"(in the archive: {MOVES_FOLDER}/{d}.g.moves.xml); the transcript is not imported",
                WARNING,
            )
    if not dialogues:
        if not concatenated:
            report.add(str(src), "-", "(source)", _no_dialogue_message(found))
        return ImportResult(report=report)
    map_table = _read_map_table(tables, report)

    maps: dict[str, GridMap] = {}
    sessions: list[Session] = []
    labels: list[dict[str, Any]] = []
    expressions: list[dict[str, Any]] = []
    annotated: set[str] = set()  # dialogues imported with GMMT annotations
    grid = grid_for_image(*HCRC_MAP_PIXELS)
    for dlg in dialogues:
        n_before = len(report.errors)
        if dlg in found.pipes:
            moves = read_pipe_transcript(found.pipes[dlg], report, _rel(found.pipes[dlg], root))
            source = _rel(found.pipes[dlg], root)
            path = found.pipes[dlg]
        else:
            moves = read_nxt(dlg, found.nxt[dlg], root, report)
            source = "NXT move files"
            path = found.nxt[dlg].get("g.moves") or found.nxt[dlg].get("f.moves") or root / dlg
        if len(report.errors) > n_before:
            continue
        if not moves:
            report.add(
                source,
                f"dialogue {dlg}",
                "(dialogue)",
                "no moves: expected at least one move with its words",
            )
            continue
        hcrc_map = map_id or map_table.get(dlg)
        mid = safe_id(f"hcrc-{hcrc_map}") if hcrc_map else "hcrc-unknown-map"
        if mid not in maps:
            what = f"HCRC map {hcrc_map}" if hcrc_map else "HCRC map (unknown)"
            maps[mid] = placeholder_map(
                mid, f"{what} (placeholder: {grid[0]}x{grid[1]} grid, no landmarks or route)", grid
            )
        starts = [m.start for m in moves if m.start is not None]
        timed = len(starts) == len(moves)
        t0 = starts[0] if timed else 0.0
        actions: list[Action] = []
        sid = safe_id(dlg)
        for k, m in enumerate(moves):
            t = round(max(starts[k] - t0, 0.0), 3) if timed else float(k)
            if actions and t < actions[-1].timestamp:
                t = actions[-1].timestamp
            actions.append(Action(index=k, timestamp=t, role=m.role, type="message", content=m.text))
            labels.append(
                {
                    "scheme": SCHEME,
                    "session_id": sid,
                    "action_index": k,
                    "coder": CODER,
                    "code": m.code,
                    "partition": PARTITION,
                }
            )
        timing = (
            "move start times from the NXT timed units" if timed else "no timing in the source: one second per move"
        )
        gmmt_note = ""
        if dlg in annotations:
            annotated.add(dlg)
            # (expressions are found among the words: the marks of silences and noises are left out)
            spoken = [
                a if m.words is None else a.model_copy(update={"content": m.words}) for a, m in zip(actions, moves)
            ]
            gmmt_labels, details = annotate_session(sid, dlg, spoken, annotations[dlg], report)
            labels += gmmt_labels
            expressions += details
            coders = ", ".join(f"'{f.coder}'" for f in annotations[dlg])
            gmmt_note = (
                f"; GMMT landmark reference expressions: {len(details)} in labels/gmmt_expressions.jsonl, "
                f"the state of each move holding some in labels/gmmt.csv (coder {coders})"
            )
        cond = condition or condition_of(dlg)
        sess_split, split_how = _split_of(dlg, path, split, lists, _rel(path, root), report)
        deviation = deviations.get(dlg)
        if deviation_files and deviation is None:
            report.add(
                _rel(deviation_files[0], deviation_root),
                f"dialogue {dlg}",
                DEVIATION_COLUMN,
                f"no route deviation score of {dlg} there: the session has none",
                WARNING,
            )
        deviation_note = f"; route deviation {deviation[0]:g} from {deviation[1]}" if deviation else ""
        sessions.append(
            Session(
                id=sid,
                condition=cond,
                split=sess_split,
                map_id=mid,
                duration_s=actions[-1].timestamp,
                participants=[
                    Participant(role="guide", id=f"{dlg}-giver"),
                    Participant(role="follower", id=f"{dlg}-follower"),
                ],
                actions=actions,
                route_deviation=deviation[0] if deviation else None,
                notes=f"HCRC Map Task dialogue {dlg} from {source}; giver = guide, follower = follower; {timing}; "
                f"condition {cond} ({'as given' if condition else 'from the dialogue id'}); "
                f"split {sess_split} ({split_how}){deviation_note}; "
                f"moves in labels/hcrc_moves.csv (coder '{CODER}'){gmmt_note}",
            )
        )
    unused = sorted(set(annotations) - set(dialogues))
    if unused:
        report.add(
            _rel(annotations[unused[0]][0].annotated, annotations[unused[0]][0].root),
            "-",
            "(file)",
            f"GMMT annotations of {len(unused)} dialogue(s) not in the source are not used "
            f"({', '.join(unused[:5])}{', ...' if len(unused) > 5 else ''})",
            WARNING,
        )
    if gmmt is not None and sessions and not annotated:
        report.add(
            str(gmmt),
            "-",
            "gmmt",
            f"no GMMT annotations of the imported dialogue(s) ({', '.join(dialogues[:5])}"
            f"{', ...' if len(dialogues) > 5 else ''}): expected <dialogue>.annotated.json for one of them",
        )
    with_gmmt = bool(expressions)
    return ImportResult(
        maps=list(maps.values()),
        sessions=sessions,
        labels=labels,
        report=report,
        description="HCRC Map Task dialogues (HCRC Map Task Corpus, University of Edinburgh and Glasgow) as "
        "message-only sessions, with the HCRC dialogue-move annotation as coder 'hcrc'"
        + (
            ", and GMMT's landmark reference expressions (Grounded Misunderstandings in MapTask, Li, Gatt and "
            "Poesio, LREC 2026, CC BY 4.0) as the 'gmmt' scheme."
            if with_gmmt
            else "."
        ),
        expressions=expressions,
        conditions=_design_of(sessions),
        source_names={safe_id(d): [d] for d in dialogues},  # what a design table's rows name a session by
    )
