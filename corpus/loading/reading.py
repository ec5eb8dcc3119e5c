"""Reading one input file: text, JSON, JSON lines, and strict validation of a record by a model.

Every problem goes to a :class:`corpus.loading.report.Report` with file, record and field; nothing here
raises on bad input. JSON is parsed by :func:`corpus.loading.jsonsafe.loads` (deep nesting, huge
integers, NaN and Infinity refused with their line), then validated by pydantic in strict mode
from the JSON text itself, so nothing is coerced: ``"3"`` is not an integer, ``"yes"`` not a
boolean, ``[true, false]`` not a cell. Messages say what was expected and what was found.

:func:`jsonl_records` is the one reader of JSON lines (every reader of a ``.jsonl`` file goes
through it, so a bad line is worded the same everywhere). :func:`validated` checks a record
already read (a log line, a YAML mapping) by a model whose validators word its problems, and
reports them like :func:`parse` does.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar, cast

import msgspec
from pydantic import BaseModel, TypeAdapter, ValidationError

from corpus.loading.jsonsafe import JsonError, loads
from corpus.loading.report import ERROR, Report, counted, describe, shown

MAX_FILE_BYTES = 64 * 1024 * 1024

M = TypeVar("M", bound=BaseModel)


def read_text(path: Path, report: Report, rel: str) -> str | None:
    """Read a file as UTF-8, refusing oversized files and naming the line of a bad byte."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            report.add(
                rel,
                "-",
                "(file)",
                f"file is {size / 2**20:.1f} MiB; files over {MAX_FILE_BYTES / 2**20:.0f} MiB are refused",
            )
            return None
        data = path.read_bytes()
    except OSError as exc:
        report.add(rel, "-", "(file)", f"cannot read: {exc.strerror or exc}")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        report.add(rel, f"line {line}", "(encoding)", f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}")
        return None
    return text.removeprefix("\ufeff")


def text_at_once(path: str | Path) -> str | None:
    """The text :func:`read_text` gives when it has nothing to report; None otherwise (read it with
    :func:`read_text`, which words what there is). The file is opened, its size asked of what was
    opened, and read whole: no status asked of its path first."""
    data = bytes_at_once(path)
    return None if data is None else text_of(data)


def bytes_at_once(path: str | Path) -> bytes | None:
    """The bytes of a file :func:`text_at_once` reads (None where it gives None for a reason other
    than its encoding: the file cannot be read or is too large)."""
    try:
        with open(path, "rb", buffering=0) as f:
            if os.fstat(f.fileno()).st_size > MAX_FILE_BYTES:
                return None
            data = f.readall()
    except OSError:
        return None
    return None if len(data) > MAX_FILE_BYTES else data


def records_at_once(data: bytes, decoder: msgspec.json.Decoder[Any], max_lines: int | None = None) -> list[Any] | None:
    """The lines of a JSON-lines file's bytes (:func:`jsonl_lines`) decoded by ``decoder`` (a
    ``msgspec.json.Decoder`` of typed records) at once, when the file is in its plainest shape:
    every line an object from its first byte to its last, no blank line, no carriage return ending a
    line, no byte-order mark, at most ``max_lines`` lines, and one record a line. None otherwise, or
    when a line is no such record or malformed UTF-8 (read the file's text then, a line at a time,
    which gives the same records where this gives any)."""
    end = len(data) - data.endswith(b"\n")  # (the bytes up to the last line's newline, if any: not copied)
    n = data.count(b"\n", 0, end) + 1
    if not (data.startswith(b"{") and data.endswith(b"}", 0, end)) or (max_lines is not None and n > max_lines):
        return None
    if data.count(b"}\n{", 0, end) != n - 1:  # (every newline between a record's end and the next one's start)
        return None
    try:
        records: list[Any] = decoder.decode_lines(data)
    except (msgspec.DecodeError, UnicodeDecodeError):  # (a ValidationError is a DecodeError)
        return None
    # A newline between a record's end and the next one's start can only stand between two whole
    # JSON values: each line holds one or more of them, and one each when there are as many as lines.
    return records if len(records) == n else None


def text_of(data: bytes) -> str | None:
    """The text :func:`read_text` makes of a file's bytes (None where it would report their encoding)."""
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None


def json_issue(report: Report, rel: str, exc: JsonError, line: int | None = None) -> None:
    """Report refused JSON; ``line`` is the record's line in a JSON-lines file."""
    if line is None:
        report.add(rel, f"line {exc.line}" if exc.line else "-", "(json)", str(exc))
    else:
        report.add(rel, f"line {line}", "(json)", str(exc).replace(" at line 1 column ", " at column "))


def load_json(path: Path, report: Report, rel: str) -> tuple[Any, str] | None:
    """(parsed value, text) of a JSON file, or None when it cannot be read or parsed."""
    text = read_text(path, report, rel)
    if text is None:
        return None
    try:
        return loads(text), text
    except JsonError as exc:
        json_issue(report, rel, exc)
        return None


def read_json(path: Path, report: Report, rel: str) -> Any:
    loaded = load_json(path, report, rel)
    return None if loaded is None else loaded[0]


def jsonl_records(
    text: str,
    report: Report,
    rel: str,
    *,
    max_lines: int | None = None,
    max_problems: int | None = None,
    what: str = "a JSON-lines file",
) -> Iterator[tuple[int, dict[str, Any], str]]:
    """(line number, parsed object, line) for each non-blank line of a JSON-lines text that holds
    an object; other lines are reported.

    With ``max_lines``, a text of more lines is refused unread ("N lines; ``what`` has at most
    M"). With ``max_problems``, reading stops at the line where that many errors have been
    reported since it began, the caller's checks of the records already yielded included."""
    if max_lines is not None and (n_lines := line_count(text)) > max_lines:
        report.add(rel, "-", "(file)", f"{n_lines:,} lines; {what} has at most {max_lines:,}")
        return
    errors_before = report.error_count
    for lineno, line in enumerate(jsonl_lines(text), start=1):
        if max_problems is not None and report.error_count - errors_before >= max_problems:
            report.add(
                rel,
                f"line {lineno}",
                "(file)",
                f"reading stopped after {max_problems} problems; the lines from here on were not checked",
            )
            return
        if line.strip() and (obj := _json_object(line, lineno, report, rel)) is not None:
            yield lineno, obj, line


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSON-lines text, as JSON Lines has them: split at each newline (a carriage
    return before it belongs to the line break); a final newline ends the last line. Nothing else
    breaks a line: a JSON string may hold U+2028, U+2029 or U+0085 as it is (``json.dumps`` with
    ``ensure_ascii=False`` writes them so), and a line numbered here is the line an editor shows
    and :func:`line_count` counts."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    if "\r" in text:
        lines = [line.removesuffix("\r") for line in lines]
    return lines


def line_count(text: str) -> int:
    """Lines of a text, the last one counted whether or not it ends with a newline."""
    return text.count("\n") + (not text.endswith("\n"))


def _json_object(line: str, lineno: int, report: Report, rel: str) -> dict[str, Any] | None:
    """The object one JSON line holds, or None with the problem reported."""
    try:
        obj = loads(line)
    except JsonError as exc:
        json_issue(report, rel, exc, lineno)
        return None
    if not isinstance(obj, dict):
        report.add(rel, f"line {lineno}", "(json)", f"expected a JSON object, got {describe(obj)}")
        return None
    return obj


def iter_jsonl(path: Path, report: Report, rel: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, parsed object) for each non-blank line; bad lines are reported."""
    text = read_text(path, report, rel)
    if text is None:
        return
    for lineno, obj, _ in jsonl_records(text, report, rel):
        yield lineno, obj


def parse(
    model: type[M], obj: Any, report: Report, rel: str, record: Any, prefix: str = "", text: str | None = None
) -> M | None:
    """``model`` validated strictly from a parsed JSON object (and its ``text`` when at hand), or
    None with every problem reported."""
    if not isinstance(obj, dict):
        report.add(rel, record, prefix or "(record)", f"expected a JSON object, got {describe(obj)}")
        return None
    try:
        return model.model_validate_json(text if text is not None else json.dumps(obj), strict=True)
    except ValidationError as err:
        pydantic_issues(report, rel, record, err, prefix)
        return None


def validated(
    model: type[M],
    obj: Any,
    report: Report,
    rel: str,
    record: Any,
    *,
    context: dict[str, Any] | None = None,
    whole: str = "(record)",
    severity: str = ERROR,
) -> M | None:
    """``model`` validated from a value already read (a JSON-lines record, a YAML mapping) by the
    model's own validators, which decide what is accepted and word every problem; None with every
    problem reported at ``severity``. ``context`` reaches the validators (``ValidationInfo.context``);
    ``whole`` is the field named by a problem of the record as a whole."""
    try:
        return model.model_validate(obj, context=context)
    except ValidationError as err:
        pydantic_issues(report, rel, record, err, whole=whole, severity=severity)
        return None


@functools.cache
def _list_of(model: type[BaseModel]) -> TypeAdapter[list[Any]]:
    return TypeAdapter(cast(Any, list)[model])  # list[model], for a model given at run time


def parse_jsonl(model: type[M], text: str, report: Report, rel: str) -> list[tuple[int, M | None]]:
    """(line number, ``model`` or None) for each non-blank line of a JSON-lines text.

    The whole text is validated in one pass by pydantic's JSON parser (strict, as :func:`parse`);
    only when that fails is it parsed again line by line, so every bad record gets its own message
    with its line number. The one pass is safe for models whose every field is typed: what
    :func:`corpus.loading.jsonsafe.loads` refuses (NaN, Infinity, deep nesting, huge integers) fails
    their validation too.
    """
    numbered = [(i, line) for i, line in enumerate(jsonl_lines(text), start=1) if line.strip()]
    try:
        records = _list_of(model).validate_json("[" + ",".join(line for _, line in numbered) + "]", strict=True)
        return [(i, r) for (i, _), r in zip(numbered, records)]
    except ValueError:  # pydantic's ValidationError included
        pass
    parsed = {lineno: (obj, line) for lineno, obj, line in jsonl_records(text, report, rel)}
    out: list[tuple[int, M | None]] = []
    for lineno, _ in numbered:
        obj, line = parsed.get(lineno, (None, None))
        out.append((lineno, None if line is None else parse(model, obj, report, rel, f"line {lineno}", text=line)))
    return out


# ---------------------------------------------------------------------------------------------
# pydantic's errors as messages
# ---------------------------------------------------------------------------------------------

_FIELD_PREFIX = re.compile(r"^([A-Za-z_][\w.\[\]]*): (.*)$", re.S)

# What a strict type check expected, by pydantic error type.
_EXPECTED = {
    "int_type": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "none_required": "null",
    "finite_number": "a finite number",
}
_BOUNDS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")
_LENGTH = re.compile(r"^\w+ should have (at (?:most|least) \d+ items?) after validation, not (\d+)$")


def _message(e: Mapping[str, Any]) -> str:
    kind, msg = e["type"], e["msg"]
    if kind == "missing":
        last = e["loc"][-1] if e["loc"] else None
        return f"too few items: item {last} is missing" if isinstance(last, int) else "required field is missing"
    if kind in ("too_long", "too_short") and (m := _LENGTH.match(msg)):
        return f"expected {m.group(1)}, got {m.group(2)}"
    if kind == "extra_forbidden":
        return "unknown field"
    if kind == "json_invalid":
        return "bad JSON: " + msg.removeprefix("Invalid JSON: ")
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {describe(e.get('input'))}"
    if kind == "literal_error":
        return f"{msg.replace('Input should be ', 'expected ')}, got {describe(e.get('input'))}"
    if kind in _BOUNDS:
        return f"{msg.replace('Input should be ', 'must be ')} (got {shown(e.get('input'))})"
    if kind.endswith("_discriminator"):  # a union chosen by the input's JSON type
        return f"{msg}, got {describe(e.get('input'))}"
    for lead in ("Value error, ", "Assertion failed, "):
        msg = msg.removeprefix(lead)
    return msg


def pydantic_issues(
    report: Report,
    file: str,
    record: Any,
    err: ValidationError,
    prefix: str = "",
    *,
    whole: str = "(record)",
    severity: str = ERROR,
) -> None:
    """Report pydantic's errors at ``severity``; the same error on several items of one list is
    reported once, on the first item, with the number of others. A problem of the record as a
    whole names the field ``whole``."""
    same: dict[tuple[tuple[str, ...], str], list[Any]] = {}  # (list location, message) -> [first, others]
    for e in err.errors(include_url=False):
        loc = [str(x) for x in e["loc"]]
        msg = _message(e)
        m = _FIELD_PREFIX.match(msg) if e["type"] == "value_error" else None
        if m and " " not in m.group(1):
            loc.append(m.group(1))
            msg = m.group(2)
        loc = _compact(loc)
        key = (tuple(loc[:-1]), msg) if e["loc"] and isinstance(e["loc"][-1], int) and e["type"] != "missing" else None
        if key in same:
            same[key][1] += 1
            continue
        fld = ".".join(x for x in [prefix, *loc] if x)
        position = report.add(file, record, "(json)" if e["type"] == "json_invalid" else fld or whole, msg, severity)
        if key is not None:
            same[key] = [position, 0]
    for position, others in same.values():
        if others and position is not None:
            report.amend(position, f" (and {counted(others, 'more item')} of this list)")


def _compact(loc: list[str]) -> list[str]:
    """Drop pydantic's union-branch names (e.g. 'list[tuple[int, int]]', '<cells>') from a location."""
    return [
        x
        for x in loc
        if not (("[" in x and "]" in x and not x.startswith("route")) or (x[:1] == "<" and x[-1:] == ">"))
    ]
