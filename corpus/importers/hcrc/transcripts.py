"""HCRC transcripts: the move labels and speakers, a ``.txt``'s kind (``speaker|text|move`` lines
or an NXT query transcript) and its moves or rows, a transcript of several dialogues, and how the
source's files are named (a file's dialogue, its path in the report)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from corpus import schema
from corpus.loading.report import shown
from corpus.loading.validate import Report, read_text

# HCRC dialogue ids: quad, eye contact (ec) or not (nc), then the dialogue's number (q1ec1, q3nc1).
_DIALOGUE_ID = re.compile(r"^q\d+(?P<eyes>ec|nc)\d+$", re.I)
EYE_CONTACT_CODES = {"ec": "eye_contact", "nc": "no_eye_contact"}

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


# ---------------------------------------------------------------------------------------------
# Files: a file's dialogue, its name in the report, where a transcript is looked for
# ---------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# Transcripts of several dialogues
# ---------------------------------------------------------------------------------------------

# NathanDuran/Maptask-Corpus's sets of dialogues in one speaker|text|move file
# (maptask_data/{full,train,val,test}_set.txt): one dialogue's lines follow the last line of the one
# before, with nothing between them.
_CONCATENATED_SET = re.compile(r"^(?:full|train|val|test)_set\.txt$", re.I)
# The longest dialogue of the HCRC release (q1nc1) has 686 moves; a file of more holds several.
LONGEST_DIALOGUE = ("q1nc1", 686)
MAX_DIALOGUE_MOVES = 1000


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
