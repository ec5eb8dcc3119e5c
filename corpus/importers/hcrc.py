"""Import HCRC Map Task dialogues as message-only sessions with the HCRC move annotation.

Two source shapes (docs/importers.md):

- ``speaker|text|move`` transcripts, one dialogue per file (``q1ec1.txt``): ``g`` is the
  instruction giver (our guide), ``f`` the follower;
- NXT move files ``<dialogue>.g.moves.xml`` and ``<dialogue>.f.moves.xml`` with either the NXT
  word files ``<dialogue>.<g|f>.timed-units.xml`` (words and times) or an NXT query transcript
  (``who<TAB>text`` rows in dialogue order) for the words.

Each move becomes one message; its label goes to ``labels/hcrc_moves.csv`` as coder ``hcrc``
(partition ``validation``), the code normalised to the keys of ``corpus.schema.HCRC_MOVES``.
The HCRC maps are images, not grids: the session points to a placeholder grid map.
"""

from __future__ import annotations

import csv
import io
import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus import schema
from corpus.importers.asciimap import grid_for_image, placeholder_map, safe_id
from corpus.model import Action, GridMap, Participant, Session
from corpus.report import clipped, shown
from corpus.validate import Report, read_text

CODER = "hcrc"
PARTITION = "validation"
SCHEME = "hcrc_moves"
DEFAULT_CONDITION = "not_visible"  # the giver never sees the follower's map in the Map Task
DEFAULT_SPLIT = "train"
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


# ---------------------------------------------------------------------------------------------
# speaker|text|move transcripts
# ---------------------------------------------------------------------------------------------


def is_pipe_transcript(path: Path) -> bool:
    try:
        head = path.read_bytes()[:4096].decode("utf-8", errors="replace")
    except OSError:
        return False
    first = next((line for line in head.splitlines() if line.strip()), "")
    return first.count("|") >= 2


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


def _parse_xml(path: Path, report: Report, rel: str) -> ET.Element | None:
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
    root = _parse_xml(path, report, rel)
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


def read_timed_units(path: Path, report: Report, rel: str) -> tuple[list[str], dict[str, tuple[str, float | None]]]:
    """Word ids in file order and id -> (word, start time)."""
    root = _parse_xml(path, report, rel)
    order: list[str] = []
    words: dict[str, tuple[str, float | None]] = {}
    if root is None:
        return order, words
    for el in root.iter():
        if _local(el.tag) != "tu":
            continue
        wid = el.get("id") or el.get("{http://nite.sourceforge.net/}id")
        if not wid:
            continue
        try:
            start = _seconds(el.get("start"))
        except ValueError:
            report.add(
                rel,
                f"word {clipped(wid)}",
                "start",
                f"not a time: {shown(el.get('start'))} (expected seconds, a finite number)",
            )
            start = None
        order.append(wid)
        words[wid] = ((el.text or "").strip(), start)
    return order, words


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
        report.add(rel, "-", "(file)", "no 'who<TAB>...' header row: not an NXT query transcript")
    return rows


def read_nxt(dialogue: str, files: dict[str, Path], root: Path, report: Report) -> list[Move]:
    """Moves of one dialogue from its NXT files (``g``/``f`` moves, words or a transcript)."""
    moves: list[Move] = []
    per_role: dict[str, list[tuple[str, tuple[str, str] | None, str]]] = {}
    rels: dict[str, str] = {}
    for spk, role in (("g", "guide"), ("f", "follower")):
        path = files.get(f"{spk}.moves")
        if path is None:
            report.add(
                f"{dialogue}.{spk}.moves.xml", "-", "(file)", f"missing: the {role}'s moves of dialogue {dialogue}"
            )
            continue
        rels[role] = str(path.relative_to(root))
        per_role[role] = read_moves_xml(path, role, report, rels[role])
    if not report.ok or len(per_role) < 2:
        return []
    if files.get("g.timed-units") and files.get("f.timed-units"):
        for spk, role in (("g", "guide"), ("f", "follower")):
            tu_path = files[f"{spk}.timed-units"]
            order, words = read_timed_units(tu_path, report, str(tu_path.relative_to(root)))
            pos = {w: k for k, w in enumerate(order)}
            for code, span, rec in per_role[role]:
                if span is None or span[0] not in pos or span[1] not in pos:
                    report.add(rels[role], rec, "nite:child", f"words {span} not found in {tu_path.name}")
                    continue
                ids = order[pos[span[0]] : pos[span[1]] + 1]
                text = " ".join(words[w][0] for w in ids if words[w][0])
                starts = [s for s in (words[w][1] for w in ids) if s is not None]
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
                    )
                )
        moves.sort(key=lambda m: m.start if m.start is not None else float("inf"))
        return moves
    transcript = files.get("transcript")
    if transcript is None:
        report.add(
            f"{dialogue}.*",
            "-",
            "(file)",
            f"the NXT moves of {dialogue} need their words: the timed-units files or an NXT query transcript",
        )
        return []
    t_rel = str(transcript.relative_to(root))
    rows = read_query_transcript(transcript, report, t_rel)
    for role in ("guide", "follower"):
        n_rows = sum(1 for r in rows if r[0] == role)
        if n_rows != len(per_role[role]):
            report.add(
                t_rel,
                "-",
                "who",
                f"{n_rows} {role} row(s) but {len(per_role[role])} {role} move(s) in {Path(rels[role]).name}: cannot align",
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


def discover(src: Path) -> tuple[dict[str, Path], dict[str, dict[str, Path]], list[Path]]:
    """Pipe transcripts by dialogue, NXT files by dialogue, and dialogue-to-map tables."""
    if src.is_file():
        folder, candidates = src.parent, [src]
        if _NXT_NAME.match(src.name):
            candidates = sorted(
                p for p in folder.iterdir() if p.is_file() and p.name.startswith(_dialogue_of(src) + ".")
            )
    else:
        folder, candidates = src, sorted(p for p in src.rglob("*") if p.is_file())
    pipes: dict[str, Path] = {}
    nxt: dict[str, dict[str, Path]] = {}
    tables: list[Path] = []
    for p in candidates:
        if any(part.startswith(".") for part in p.parts[len(folder.parts) :]):
            continue
        m = _NXT_NAME.match(p.name)
        if m:
            nxt.setdefault(m.group("dlg"), {})[f"{m.group('spk').lower()}.{m.group('kind').lower()}"] = p
            continue
        if p.suffix.lower() == ".csv":
            head = p.read_bytes()[:200].decode("utf-8", errors="replace").lower()
            if "dialogue_id" in head and "map_id" in head:
                tables.append(p)
            continue
        if p.suffix.lower() == ".txt":
            if is_pipe_transcript(p):
                pipes[_dialogue_of(p)] = p
            elif "transcript" in p.name.lower():
                nxt.setdefault(_dialogue_of(p), {})["transcript"] = p
    return pipes, nxt, tables


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


def import_hcrc(
    src: str | Path,
    report: Report,
    condition: str | None = None,
    split: str = DEFAULT_SPLIT,
    map_id: str | None = None,
    **unknown: Any,
):
    from corpus.importers import ImportResult

    src = Path(src)
    if unknown:
        report.add(
            "(options)", "-", ", ".join(sorted(unknown)), "not an HCRC import option (known: condition, split, map_id)"
        )
        return ImportResult(report=report)
    if condition is not None and condition not in schema.CONDITIONS:
        report.add(
            "(options)",
            "-",
            "condition",
            f"unknown condition {condition!r} (expected one of {', '.join(schema.CONDITIONS)})",
        )
    if split not in schema.SPLITS:
        report.add("(options)", "-", "split", f"unknown split {split!r} (expected one of {', '.join(schema.SPLITS)})")
    if not src.exists():
        report.add(str(src), "-", "(path)", "not found: give a transcript, an NXT moves file or a folder of them")
        return ImportResult(report=report)
    root = src if src.is_dir() else src.parent
    pipes, nxt, tables = discover(src)
    dialogues = sorted(set(pipes) | {d for d, f in nxt.items() if any(k.endswith("moves") for k in f)})
    if not dialogues:
        report.add(
            str(src),
            "-",
            "(source)",
            "no HCRC dialogues found (speaker|text|move transcripts or <dialogue>.g.moves.xml)",
        )
        return ImportResult(report=report)
    map_table = _read_map_table(tables, report)

    maps: dict[str, GridMap] = {}
    sessions: list[Session] = []
    labels: list[dict[str, Any]] = []
    grid = grid_for_image(*HCRC_MAP_PIXELS)
    for dlg in dialogues:
        n_before = len(report.errors)
        if dlg in pipes:
            moves = read_pipe_transcript(pipes[dlg], report, str(pipes[dlg].relative_to(root)))
            source = pipes[dlg].name
        else:
            moves = read_nxt(dlg, nxt[dlg], root, report)
            source = "NXT move files"
        if len(report.errors) > n_before:
            continue
        if not moves:
            report.add(source, f"dialogue {dlg}", "(dialogue)", "no moves")
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
        for k, m in enumerate(moves):
            t = round(max(starts[k] - t0, 0.0), 3) if timed else float(k)
            if actions and t < actions[-1].timestamp:
                t = actions[-1].timestamp
            actions.append(Action(index=k, timestamp=t, role=m.role, type="message", content=m.text))
            labels.append(
                {
                    "scheme": SCHEME,
                    "session_id": safe_id(dlg),
                    "action_index": k,
                    "coder": CODER,
                    "code": m.code,
                    "partition": PARTITION,
                }
            )
        timing = "move start times from the NXT words" if timed else "no timing in the source: one second per move"
        sessions.append(
            Session(
                id=safe_id(dlg),
                condition=condition or DEFAULT_CONDITION,
                split=split,
                map_id=mid,
                duration_s=actions[-1].timestamp,
                participants=[
                    Participant(role="guide", id=f"{dlg}-giver"),
                    Participant(role="follower", id=f"{dlg}-follower"),
                ],
                actions=actions,
                notes=f"HCRC Map Task dialogue {dlg} from {source}; giver = guide, follower = follower; {timing}; "
                f"moves in labels/hcrc_moves.csv (coder '{CODER}')",
            )
        )
    return ImportResult(
        maps=list(maps.values()),
        sessions=sessions,
        labels=labels,
        report=report,
        description="HCRC Map Task dialogues (HCRC Map Task Corpus, University of Edinburgh and Glasgow) as "
        "message-only sessions, with the HCRC dialogue-move annotation as coder 'hcrc'.",
    )
