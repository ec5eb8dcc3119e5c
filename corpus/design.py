"""A study's design from a table: the condition and split of each imported Map Task session.

A design table is a CSV file (UTF-8, a header row) with the columns ``session``, ``condition`` and
``split``, in any order; other columns are left alone (a lab's own notes). Each row names one
session as the source gives it: for the collaboration platform the export's ``session_name`` or
``session_id``, for HCRC the dialogue id (``q1ec1``); the session's id in the written dataset
matches too, so a table written from an imported dataset works on the next import of its source.
A name shared by several sessions (two platform sessions both called ``test1``) matches none of
them: such a session is named by its id.

Every imported session needs exactly one row, and every row must match one imported session: a
row that matches none, a session that no row matches, two rows for one session, and a condition
or split outside :data:`corpus.schema.CONDITIONS` / :data:`corpus.schema.SPLITS` are errors
naming the table, the row and the field, and nothing is written. Values are read without regard
to case, spaces or hyphens (``Not visible`` is ``not_visible``). An empty cell keeps what the
import gives that session without a table: the ``--condition`` / ``--split`` given, else what the
source records (HCRC: the condition in the dialogue id), else ``not_recorded``.

:func:`read_design` reads a table (a file the command line names, or an uploaded one as
:class:`DesignFile`); :func:`apply_design` sets the sessions' condition and split from it. Both
importers' sessions go through :func:`corpus.importers.import_source`, which calls them.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from corpus import schema
from corpus.limits import DESIGN_TABLE_BYTES
from corpus.loading.report import Report, clipped, shown
from corpus.model import Session

COLUMNS = ("session", "condition", "split")
KNOWN = {"condition": schema.CONDITIONS, "split": schema.SPLITS}
NAMES_SHOWN = 8  # the sessions' names listed in a message before "..."


@dataclass(frozen=True)
class DesignFile:
    """A design table sent rather than named (an upload's): its file name and its bytes."""

    name: str
    data: bytes


@dataclass(frozen=True)
class DesignRow:
    record: str  # "row 3": the row's line in the file (the header is row 1)
    session: str
    condition: str | None  # None: the cell is empty
    split: str | None


@dataclass(frozen=True)
class DesignTable:
    file: str  # the name problems give: the path as given, or an uploaded file's name
    rows: tuple[DesignRow, ...]


def _too_large(name: str, size: int, report: Report) -> None:
    report.add(
        name,
        "-",
        "(file)",
        f"the design table is {size / 2**20:.1f} MiB; at most {DESIGN_TABLE_BYTES // 2**20} MiB (one row per session)",
    )


def _text(source: Path | DesignFile, report: Report) -> tuple[str, str | None]:
    """The table's name for messages and its text (None when it cannot be read)."""
    if isinstance(source, DesignFile):
        name, data = source.name or "design.csv", source.data
    else:
        name = str(source)
        try:
            size = source.stat().st_size
            if size > DESIGN_TABLE_BYTES:
                _too_large(name, size, report)
                return name, None
            data = source.read_bytes()
        except OSError as exc:
            report.add(name, "-", "(file)", f"cannot read the design table: {exc.strerror or exc}")
            return name, None
    if len(data) > DESIGN_TABLE_BYTES:
        _too_large(name, len(data), report)
        return name, None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        report.add(name, f"row {line}", "(encoding)", f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}")
        return name, None
    return name, text.removeprefix("\ufeff")


def _key(text: str) -> str:
    """A header or value as compared: lower case, spaces and hyphens as underscores."""
    return re.sub(r"[\s\-]+", "_", text.strip().lower())


def read_design(source: str | Path | DesignFile, report: Report) -> DesignTable | None:
    """The design table at ``source``; None, with every problem in ``report``, when it cannot be
    used as a whole (no such file, not UTF-8, no header with the three columns). A row with a bad
    value is reported and left out, so that every problem of the table is told at once."""
    source = source if isinstance(source, DesignFile) else Path(source)
    name, text = _text(source, report)
    if text is None:
        return None
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
        while header is not None and not any(cell.strip() for cell in header):
            header = next(reader, None)
        if header is None:
            report.add(name, "-", "(file)", "the design table is empty: expected a header row session,condition,split")
            return None
        columns = [_key(c) for c in header]
        where = {c: columns.index(c) for c in COLUMNS if c in columns}
        missing = [c for c in COLUMNS if c not in where]
        twice = sorted({c for c in COLUMNS if columns.count(c) > 1})
        if missing or twice:
            found = ", ".join(shown(c) for c in header) or "nothing"
            for c in missing:
                report.add(
                    name,
                    f"row {reader.line_num}",
                    c,
                    f"missing column {c!r}: a design table has the columns session, condition and split "
                    f"(found {found})",
                )
            for c in twice:
                report.add(name, f"row {reader.line_num}", c, f"the column {c!r} twice in the header")
            return None
        rows = []
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue
            record = f"row {reader.line_num}"
            value = {c: (cells[k].strip() if k < len(cells) else "") for c, k in where.items()}
            ok = True
            if not value["session"]:
                report.add(name, record, "session", "empty: name the session (its name or id as the source gives it)")
                ok = False
            chosen: dict[str, str | None] = {}
            for fld, known in KNOWN.items():
                raw = value[fld]
                chosen[fld] = _key(raw) if raw else None
                if chosen[fld] is not None and chosen[fld] not in known:
                    report.add(
                        name,
                        record,
                        fld,
                        f"unknown {fld} {shown(raw)} (expected one of {', '.join(known)}; an empty cell keeps "
                        "what the import gives the session)",
                    )
                    ok = False
            if ok:
                rows.append(DesignRow(record, value["session"], chosen["condition"], chosen["split"]))
    except csv.Error as exc:
        report.add(name, f"row {reader.line_num}", "(csv)", f"not a readable CSV table: {exc}")
        return None
    return DesignTable(name, tuple(rows))


def _names(session: Session, names: Mapping[str, Sequence[str]]) -> list[str]:
    """The names a row may give ``session``: the source's (in order), then its id."""
    out = [n for n in names.get(session.id, ()) if n]
    return out + ([session.id] if session.id not in out else [])


def _listed(values: Sequence[str]) -> str:
    shown_ = ", ".join(shown(v) for v in values[:NAMES_SHOWN])
    return shown_ + (f" and {len(values) - NAMES_SHOWN} more" if len(values) > NAMES_SHOWN else "")


def apply_design(
    table: DesignTable, sessions: list[Session], names: Mapping[str, Sequence[str]], report: Report
) -> list[Session]:
    """``sessions`` with the condition and split their rows of ``table`` give (an empty cell keeps
    the session's own); ``names`` holds the names the source gives each session (by session id).
    Every problem (a row that matches no session or several, a session with no row or two) goes
    to ``report``; the sessions are returned unchanged then."""
    index: dict[str, list[int]] = {}
    for i, s in enumerate(sessions):
        for n in _names(s, names):
            index.setdefault(n, []).append(i)
    matched: dict[int, DesignRow] = {}
    for row in table.rows:
        hits = index.get(row.session, [])
        if not hits:
            every = list(dict.fromkeys(n for s in sessions for n in _names(s, names)))
            report.add(
                table.file,
                row.record,
                "session",
                f"{shown(row.session)} matches no imported session (the sessions' names and ids: {_listed(every)})",
            )
        elif len(hits) > 1:
            report.add(
                table.file,
                row.record,
                "session",
                f"{shown(row.session)} is the name of {len(hits)} sessions ({_listed([sessions[i].id for i in hits])}): "
                "name each by its id",
            )
        elif hits[0] in matched:
            first = matched[hits[0]]
            report.add(
                table.file,
                row.record,
                "session",
                f"a second row for session {shown(sessions[hits[0]].id)} (the first is {first.record}, "
                f"{shown(first.session)}): one row per session",
            )
        else:
            matched[hits[0]] = row
    for i, s in enumerate(sessions):
        if i not in matched:
            own = [n for n in _names(s, names) if len(index[n]) == 1]  # (a name shared names none)
            report.add(
                table.file,
                f"session {clipped(s.id)}",
                "session",
                f"no row names this session: add a row with {'one of ' if len(own) > 1 else ''}{_listed(own)}",
            )
    if not report.ok:
        return sessions
    out = []
    for i, s in enumerate(sessions):
        row = matched[i]
        update = {k: v for k, v in (("condition", row.condition), ("split", row.split)) if v is not None}
        if not update:
            out.append(s)
            continue
        said = " and ".join(f"{k} {v}" for k, v in update.items())
        note = f"{said} from the design table '{Path(table.file).name}' ({row.record})"
        out.append(s.model_copy(update={**update, "notes": "; ".join(filter(None, (s.notes, note)))}))
    return out


def conditions_after(conditions: list[str] | None, sessions: list[Session]) -> list[str] | None:
    """The dataset's conditions once a table has set the sessions': the design (reference first)
    their conditions belong to; else the importer's own when they cover them; else None (the
    sessions' conditions, sorted, as for any import)."""
    present = sorted({s.condition for s in sessions})
    design = schema.design_of(present)
    if design is not None:
        return list(design)
    if conditions is not None and set(present) - {schema.NOT_RECORDED} <= set(conditions):
        return conditions
    return None
