"""JSON and JSON-lines files of a source being imported, parsed with :func:`corpus.jsonsafe.loads`.

A file or line the tool refuses (malformed, nested deeper than the limit, an integer too long to
convert, NaN or Infinity) is reported with its file, line and the reason, and skipped; no
``RecursionError`` or ``ValueError`` escapes to the user.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from corpus.jsonsafe import JsonError, loads
from corpus.validate import Report, read_text

_REFUSED = object()  # what _parse returns for text it reported (JSON null is a real value)


def _parse(text: str, report: Report, rel: str, line: int | None) -> Any:
    """The value of ``text``; on a refusal the issue is reported and ``_REFUSED`` returned."""
    try:
        return loads(text)
    except JsonError as exc:
        message = str(exc)
        if line is not None and exc.line is not None:  # one JSON-lines record: its line 1 is the file's line
            message = message.replace(f"at line {exc.line} column", "at column")
        where = line if line is not None else exc.line
        report.add(rel, f"line {where}" if where is not None else "-", "(json)", message)
        return _REFUSED


def read_json(path: Path, report: Report, rel: str) -> Any:
    """The value of a JSON file, or None when it cannot be read or parsed (reported)."""
    text = read_text(path, report, rel)
    value = _REFUSED if text is None else _parse(text, report, rel, None)
    return None if value is _REFUSED else value


def iter_jsonl(path: Path, report: Report, rel: str) -> Iterator[tuple[int, dict]]:
    """(line number, object) for each non-blank line of a JSON-lines file; a line that is not a
    JSON object is reported with its number and skipped."""
    text = read_text(path, report, rel) or ""
    for lineno, line in enumerate(text.splitlines(), start=1):
        obj = _parse(line, report, rel, lineno) if line.strip() else _REFUSED
        if isinstance(obj, dict):
            yield lineno, obj
        elif obj is not _REFUSED:
            report.add(rel, f"line {lineno}", "(json)", f"expected a JSON object, got {type(obj).__name__}")
