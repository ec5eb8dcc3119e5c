"""Fixtures in the shapes of the HCRC Map Task files as they are distributed, for the tests of
tests/test_hcrc_release.py. The HCRC corpus is CC BY-NC-SA: no file of it is copied here. The real
q1ec1 moves and transcript are read from ../shared/real_data at test time (tests/real_data.py);
everything else is written here, with made-up words where the local data has none."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import escape

from real_data import HCRC

NS = "http://nite.sourceforge.net/"
_HREF = re.compile(r"#id\(([^)]+)\)(?:\.\.id\(([^)]+)\))?")

# The moves of q1ec1 that start or end on an element other than a word in the NXT release's timed
# units (innerfirexy/hcrc-map-task, data/timed-units/q1ec1.{g,f}.timed-units.xml): which end, and
# the noise type there. 15 of the dialogue's 77 moves.
Q1EC1_NON_WORD_ENDS = {
    "q1ec1.g.move.39": ("start", "phongesture"),
    "q1ec1.g.move.73": ("start", "lipsmack"),
    "q1ec1.f.move.11": ("end", "lowamp"),
    "q1ec1.f.move.23": ("end", "lowamp"),
    "q1ec1.f.move.31": ("end", "lowamp"),
    "q1ec1.f.move.41": ("start", "lipsmack"),
    "q1ec1.f.move.48": ("start", "lipsmack"),
    "q1ec1.f.move.50": ("end", "lowamp"),
    "q1ec1.f.move.52": ("start", "lipsmack"),
    "q1ec1.f.move.56": ("end", "lowamp"),
    "q1ec1.f.move.61": ("end", "lowamp"),
    "q1ec1.f.move.63": ("end", "lowamp"),
    "q1ec1.f.move.66": ("end", "lowamp"),
    "q1ec1.f.move.71": ("end", "lowamp"),
    "q1ec1.f.move.76": ("end", "lowamp"),
}
# Noises of the release between moves (the <ims> stretches of the moves files), taken in turn.
BETWEEN = ("inbreath", "lipsmack", "outbreath", "nonvocal", "breath", "laugh", "cough")


def q1ec1_rows() -> list[tuple[str, str]]:
    """(speaker g or f, words) of each move of the real q1ec1, in dialogue order, from its NXT query
    transcript."""
    rows, started = [], False
    for line in (HCRC / "q1ec1.nxt_query_transcript.txt").read_text(encoding="utf-8").splitlines():
        if not started:
            started = line.split("\t", 1)[0].strip() == "who"
            continue
        if line.strip():
            who, words = line.split("\t")[:2]
            rows.append((who.strip(), " ".join(words.split())))
    return rows


def q1ec1_spans(speaker: str) -> list[tuple[str, str, str]]:
    """(move id, first element's number, last element's number) of each ``<move>`` of the real
    q1ec1 moves file of ``speaker``, in file order (``#id(q1ec1g.259)..id(q1ec1g.280.1)``: "259",
    "280.1"; the release numbers an element put in later after the one before it, 280.1)."""
    root = ET.parse(HCRC / f"q1ec1.{speaker}.moves.xml").getroot()
    out = []
    for move in root:
        if move.tag != "move":
            continue
        child = next(iter(move))
        a, b = _HREF.search(child.get("href", "")).groups()
        number = f"q1ec1{speaker}."
        out.append((move.get("id"), a.removeprefix(number), (b or a).removeprefix(number)))
    return out


def _numbers(first: str, last: str) -> list[str]:
    """The element numbers from ``first`` to ``last`` in file order: the whole numbers between them,
    and either end where it is a later one (280.1)."""
    a, b = int(first.split(".")[0]), int(last.split(".")[0])
    out = [first] if "." in first else []
    out += [str(n) for n in range(a + 1 if "." in first else a, b + 1)]
    return out + ([last] if "." in last else [])


def write_q1ec1_timed_units(folder: Path) -> dict[str, str]:
    """Write ``q1ec1.g.timed-units.xml`` and ``q1ec1.f.timed-units.xml`` into ``folder`` in the shape
    of the NXT release's (innerfirexy/hcrc-map-task, ``data/timed-units/q1ec1.g.timed-units.xml``):
    an XML declaration, a ``<nite:root>`` with the id ``tu.q1ec1.g``, then one element a line, in
    time order, each with an ``id`` (``q1ec1g.<n>``), ``start`` and ``end`` in seconds to four
    places: ``<tu ... utt="n">word</tu>`` for a word, ``<sil .../>`` for a silence,
    ``<noi ... type="lipsmack"/>`` for a noise.

    Every element the real q1ec1 moves point to is there. A move's words are its words in the real
    transcript, on the first and last elements of its span (so a move starts and ends on a word;
    a single word on the first), with silences on the elements between; the 15 moves of :data:`Q1EC1_NON_WORD_ENDS` start or
    end on a noise instead, as in the release; the elements between moves are noises of
    :data:`BETWEEN` and silences in turn. Times run on in dialogue order. One word carries a
    ``realisation`` (as 120 words of the release do). Returns move id -> the move's words."""
    spans = {s: q1ec1_spans(s) for s in ("g", "f")}
    taken = {"g": 0, "f": 0}
    next_id = {"g": 1, "f": 1}
    lines: dict[str, list[str]] = {"g": [], "f": []}
    words_of: dict[str, str] = {}
    clock = 0.0

    def element(spk: str, n: str, kind: str, text: str = "", utt: int = 0) -> None:
        nonlocal clock
        eid = f'id="q1ec1{spk}.{n}" start="{clock:.4f}" end="{clock + 0.25:.4f}"'
        clock += 0.25
        if kind == "tu":
            extra = ' realisation="okey"' if text == "okay" and utt == 1 else ""
            lines[spk].append(f'<tu {eid} utt="{utt}"{extra}>{escape(text)}</tu>')
        elif kind == "sil":
            lines[spk].append(f"<sil {eid}/>")
        else:
            lines[spk].append(f'<noi {eid} type="{kind}"/>')

    for utt, (spk, words) in enumerate(q1ec1_rows(), start=1):
        move_id, first, last = spans[spk][taken[spk]]
        taken[spk] += 1
        for k, n in enumerate(range(next_id[spk], int(first.split(".")[0]))):
            element(spk, str(n), BETWEEN[k % len(BETWEEN)] if k % 2 == 0 else "sil")
        ids = _numbers(first, last)
        end, noise = Q1EC1_NON_WORD_ENDS.get(move_id, ("", ""))
        head = [ids.pop(0)] if end == "start" else []
        tail = [ids.pop()] if end == "end" else []
        said = words.split()
        if len(said) > len(ids):  # (the release keeps a few words together: "going to")
            said = said[: len(ids) - 1] + [" ".join(said[len(ids) - 1 :])]
        slots: list[str | None] = [*said[:-1], *[None] * (len(ids) - len(said)), said[-1]]
        if len(said) == 1:  # (one word: on the first element, before the noise the move ends on)
            slots = [said[0], *[None] * (len(ids) - 1)]
        for n in head:
            element(spk, n, noise)
        for n, word in zip(ids, slots):
            element(spk, n, "tu", word, utt) if word is not None else element(spk, n, "sil")
        for n in tail:
            element(spk, n, noise)
        next_id[spk] = int(last.split(".")[0]) + 1
        words_of[move_id] = " ".join(said)
    for spk in ("g", "f"):
        body = "\n".join(lines[spk])
        (folder / f"q1ec1.{spk}.timed-units.xml").write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<nite:root xmlns:nite="{NS}" id="tu.q1ec1.{spk}">\n'
            f"{body}\n</nite:root>\n",
            encoding="utf-8",
        )
    return words_of


# ---------------------------------------------------------------------------------------------
# The files of NathanDuran/Maptask-Corpus (maptask_data/) and innerfirexy/hcrc-map-task
# ---------------------------------------------------------------------------------------------

# Made-up moves, in the speaker|text|move shape of maptask_data/<split>/<dialogue>.txt.
_MADE_UP = (
    ("g", "right start at the red gate", "instruct"),
    ("f", "okay", "acknowledge"),
    ("g", "go down past the tall willow", "instruct"),
    ("f", "past the willow on my left", "check"),
    ("g", "yes", "reply_y"),
    ("g", "then curve round the pond", "instruct"),
    ("f", "do i go above the pond", "query_yn"),
    ("g", "no below it", "reply_n"),
    ("f", "right", "acknowledge"),
    ("g", "okay", "ready"),
)


def made_up_lines(n: int, shift: int = 0) -> list[str]:
    """``n`` speaker|text|move lines of made-up words (``shift``: where in the made-up moves to start)."""
    return ["|".join(_MADE_UP[(k + shift) % len(_MADE_UP)]) for k in range(n)]


def write_pipe(folder: Path, name: str, lines: list[str]) -> Path:
    """A speaker|text|move file as Maptask-Corpus writes it: one move a line, ``\\n`` after each."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def write_split_list(folder: Path, split: str, dialogues: list[str]) -> Path:
    """``<split>_split.txt`` as maptask_data/metadata/ holds it: one dialogue id a line, no newline
    after the last."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{split}_split.txt"
    path.write_text("\n".join(dialogues), encoding="utf-8")
    return path


DEVIATION_HEADER = (
    "Observation,acknowledge,align,check,clarify,explain,instruct,query_w,query_yn,ready,reply_n,reply_w,"
    "reply_y,TotalMoves,path dev,struc.rep,struc.rep.norm,align,align.norm"
)


def write_deviation(folder: Path, scores: dict[str, str], name: str = "moves_and_deviation.csv") -> Path:
    """A table in the shape of innerfirexy/hcrc-map-task's ``moves_and_deviation.csv``: its header
    (the move counts, ``TotalMoves``, ``path dev``, and a second ``align`` column), one row a
    dialogue with made-up numbers, ``\\r\\n`` line ends and none after the last row. ``scores``:
    dialogue -> the ``path dev`` cell as written."""
    rows = [DEVIATION_HEADER]
    for k, (dlg, score) in enumerate(scores.items()):
        counts = [str((k * 7 + j * 3) % 40) for j in range(12)]
        rows.append(f"{dlg},{','.join(counts)},{100 + k},{score},0.8{k},-0.01{k},0.00{k + 1},1.2E-0{k % 9 + 1}")
    path = folder / name
    folder.mkdir(parents=True, exist_ok=True)
    path.write_bytes("\r\n".join(rows).encode("utf-8"))
    return path
