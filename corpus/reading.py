"""Reading one input file: text, JSON, JSON lines, and strict validation of a record by a model.

Every problem goes to a :class:`corpus.report.Report` with file, record and field; nothing here
raises on bad input. JSON is parsed by :func:`corpus.jsonsafe.loads` (deep nesting, huge
integers, NaN and Infinity refused with their line), then validated by pydantic in strict mode
from the JSON text itself, so nothing is coerced: ``"3"`` is not an integer, ``"yes"`` not a
boolean, ``[true, false]`` not a cell. Messages say what was expected and what was found.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from corpus.jsonsafe import JsonError, loads
from corpus.report import Report, counted, describe, shown

MAX_FILE_BYTES = 64 * 1024 * 1024


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


def jsonl_records(text: str, report: Report, rel: str) -> Iterator[tuple[int, dict, str]]:
    """(line number, parsed object, line) for each non-blank line of a JSON-lines text that holds
    an object; other lines are reported."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = loads(line)
        except JsonError as exc:
            json_issue(report, rel, exc, lineno)
            continue
        if not isinstance(obj, dict):
            report.add(rel, f"line {lineno}", "(json)", f"expected a JSON object, got {describe(obj)}")
            continue
        yield lineno, obj, line


def iter_jsonl(path: Path, report: Report, rel: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for each non-blank line; bad lines are reported."""
    text = read_text(path, report, rel)
    if text is None:
        return
    for lineno, obj, _ in jsonl_records(text, report, rel):
        yield lineno, obj


def parse(
    model: type[BaseModel], obj: Any, report: Report, rel: str, record: Any, prefix: str = "", text: str | None = None
):
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


@functools.cache
def _list_of(model: type[BaseModel]) -> TypeAdapter:
    return TypeAdapter(list[model])


def parse_jsonl(model: type[BaseModel], text: str, report: Report, rel: str) -> list[tuple[int, Any]]:
    """(line number, ``model`` or None) for each non-blank line of a JSON-lines text.

    The whole text is validated in one pass by pydantic's JSON parser (strict, as :func:`parse`);
    only when that fails is it parsed again line by line, so every bad record gets its own message
    with its line number. The one pass is safe for models whose every field is typed: what
    :func:`corpus.jsonsafe.loads` refuses (NaN, Infinity, deep nesting, huge integers) fails
    their validation too.
    """
    numbered = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
    try:
        records = _list_of(model).validate_json("[" + ",".join(line for _, line in numbered) + "]", strict=True)
        return [(i, r) for (i, _), r in zip(numbered, records)]
    except ValueError:  # pydantic's ValidationError included
        pass
    parsed = {lineno: (obj, line) for lineno, obj, line in jsonl_records(text, report, rel)}
    out: list[tuple[int, Any]] = []
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


def _message(e: dict) -> str:
    kind, msg = e["type"], e["msg"]
    if kind == "missing" and e["loc"] and isinstance(e["loc"][-1], int):
        return f"too few items: item {e['loc'][-1]} is missing"
    if kind == "missing":
        return "required field is missing"
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


def pydantic_issues(report: Report, file: str, record: Any, err: ValidationError, prefix: str = "") -> None:
    """Report pydantic's errors; the same error on several items of one list is reported once,
    on the first item, with the number of others."""
    same: dict[tuple, list] = {}  # (list location, message) -> [position of the first, others]
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
        position = report.add(file, record, "(json)" if e["type"] == "json_invalid" else fld or "(record)", msg)
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
