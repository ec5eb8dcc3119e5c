"""The study's design as the corpus records it beside the dialogues: the split lists (each
dialogue's split, else its folder's), the route deviation scores, and the dataset's conditions."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from corpus import schema
from corpus.importers.hcrc.transcripts import _rel
from corpus.loading.report import WARNING, clipped, shown
from corpus.loading.validate import Report, read_text
from corpus.model import Session

DEFAULT_SPLIT = "train"

# The split lists as NathanDuran/Maptask-Corpus writes them (maptask_data/metadata/): one dialogue
# id a line.
_SPLIT_LIST = re.compile(r"^(?P<split>train|val|test)_split\.txt$", re.I)
SPLIT_LIST_NAMES = "train_split.txt, val_split.txt, test_split.txt"
# The folders that repository writes each split's dialogues to (maptask_data/val/q1ec6.txt).
SPLIT_FOLDERS = ("train", "val", "test")
_LISTED_ID = re.compile(r"^[\w.-]{1,100}$")
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
        for dlg, raw in _deviation_rows(text, rel, report):
            rec = f"dialogue {clipped(dlg)}"
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


def _deviation_rows(text: str, rel: str, report: Report) -> Iterator[tuple[str, str]]:
    """(dialogue, score as written) for each row of a route deviation table that gives a score;
    a header without the two columns, or a row without a dialogue id, is an error."""
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
        return
    at_id, at_score = low.index(DEVIATION_ID.lower()), low.index(DEVIATION_COLUMN)
    for lineno, row in enumerate(rows, start=2):
        if not any(c.strip() for c in row):
            continue
        dlg = row[at_id].strip() if at_id < len(row) else ""
        if not dlg:
            report.add(rel, f"line {lineno}", DEVIATION_ID, "no dialogue id")
            continue
        raw = row[at_score].strip() if at_score < len(row) else ""
        if raw:
            yield dlg, raw


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


def _design_of(sessions: list[Session]) -> list[str]:
    """The dataset's two conditions, reference first: the design the sessions' conditions belong
    to; the HCRC design (no eye contact, eye contact) when none is recorded."""
    recorded = {s.condition for s in sessions} - {schema.NOT_RECORDED}
    design = next((d for d in schema.DESIGNS if recorded and recorded <= set(d)), schema.EYE_CONTACT)
    return list(design)
