"""Finding a source's files: the transcripts and NXT files of each dialogue, the GMMT files and
dialogue-to-map tables (also those the ``gmmt`` option names), the split lists and the route
deviation tables."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

from corpus.importers.gmmt import ANNOTATED, is_gmmt_file
from corpus.importers.hcrc.design import is_deviation_table, is_split_list
from corpus.importers.hcrc.transcripts import (
    MOVES_FOLDER,
    NXT_QUERY,
    PIPE,
    TRANSCRIPTS_FOLDER,
    _dialogue_of,
    _rel,
    transcript_kind,
)
from corpus.loading.report import WARNING
from corpus.loading.validate import Report, read_text

_NXT_NAME = re.compile(r"^(?P<dlg>[^.]+)\.(?P<spk>[gf])\.(?P<kind>moves|timed-units)\.xml$", re.I)


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
        _sort_file(found, p, report)
    return found


def _sort_file(found: Found, p: Path, report: Report) -> None:
    """Puts one file where it belongs in ``found``: by its name (NXT files, GMMT files), else by
    its content (a CSV's header, a ``.txt``'s first lines); other files are left out."""
    m = _NXT_NAME.match(p.name)
    if m:
        found.nxt.setdefault(m.group("dlg"), {})[f"{m.group('spk').lower()}.{m.group('kind').lower()}"] = p
    elif is_gmmt_file(p):
        found.gmmt.append(p)
    elif p.suffix.lower() == ".csv":
        if _is_map_table(p):
            found.tables.append(p)
        elif is_deviation_table(p):
            found.deviation.append(p)
    elif p.suffix.lower() == ".txt":
        _sort_text(found, p, report)


def _sort_text(found: Found, p: Path, report: Report) -> None:
    """Puts a ``.txt`` where it belongs in ``found``: a split list, a ``speaker|text|move``
    transcript, or its dialogue's NXT query transcript (a second one is a warning)."""
    root = found.root
    if is_split_list(p):
        found.split_lists.append(p)
        return
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
    root, files = _gmmt_candidates(path)
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


def _gmmt_candidates(path: Path) -> tuple[Path, list[Path]]:
    """The folder the ``gmmt`` option's files are named from and the files to look at: for one
    file, the files of its dialogue beside it; for a folder, every file in it but hidden ones."""
    if path.is_file():
        root = path.parent
        return root, [p for p in root.iterdir() if p.is_file() and p.name.startswith(_dialogue_of(path) + ".")]
    return path, [
        p for p in path.rglob("*") if p.is_file() and not any(x.startswith(".") for x in p.relative_to(path).parts)
    ]


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
