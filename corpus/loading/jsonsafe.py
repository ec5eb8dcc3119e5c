"""Parse JSON from files a user gives us, refusing what would crash or mislead the tool.

:func:`loads` is ``json.loads`` with four refusals, each a :class:`JsonError` whose message says
what was wrong and where:

- malformed JSON (line and column);
- nesting deeper than :data:`MAX_DEPTH` (the standard parser would exhaust the stack on
  100,000 nested brackets and raise ``RecursionError``);
- an integer of more than :data:`MAX_INT_DIGITS` digits (Python refuses to convert such text and
  raises a bare ``ValueError``);
- the non-standard constants ``NaN``, ``Infinity`` and ``-Infinity``, which the standard parser
  accepts although JSON has no such values;
- a lone surrogate escape such as ``"\\ud83d"`` (half of an emoji), which the standard parser
  turns into a string that cannot be written as UTF-8.

Each refusal carries the line and column where the problem starts.

Every reader of user-supplied JSON (datasets, importers) goes through here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic_core import from_json

MAX_DEPTH = 200
MAX_INT_DIGITS = 4300  # Python's own limit for int <-> str conversion (sys.get_int_max_str_digits)


class JsonError(ValueError):
    """JSON the tool refuses; ``line`` and ``column`` are 1-based where known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.line = line
        self.column = column


class _Refused(Exception):
    """Raised inside the parser's hooks: the message and the offending token, located afterwards."""

    def __init__(self, message: str, token: str):
        super().__init__(message)
        self.token = token


def _refuse_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a JSON number (give a finite number)", name)


# Digits enough for an integer :func:`_parse_int` refuses. Only a text that has such a run is parsed
# with that hook: a hook called for every integer makes parsing about twice as slow.
_LONG_DIGITS = re.compile(rf"\d{{{MAX_INT_DIGITS + 1}}}")


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {digits} digits is too long (at most {MAX_INT_DIGITS})", text)
    return int(text)


# A string literal, or a run of characters that is neither a string, a bracket, a separator nor
# blank: the numbers and constants of a JSON text.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s"\[\]{}:,]+')


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _located(text: str, refused: _Refused) -> JsonError:
    """A :class:`JsonError` at the first occurrence of the refused token outside strings."""
    for m in _TOKEN.finditer(text):
        if m.group() == refused.token:
            line, column = _line_column(text, m.start())
            return JsonError(f"{refused} at line {line} column {column}", line, column)
    return JsonError(str(refused))


def _depth_exceeds(text: str, limit: int) -> int | None:
    """The offset where brackets outside strings first nest deeper than ``limit``, if they do
    (a cheap scan, no recursion)."""
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    in_string = escaped = False
    for offset, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return offset
        elif ch in "]}":
            depth -= 1
    return None


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate(text: str) -> JsonError | None:
    """A :class:`JsonError` at the first ``\\uD800``-``\\uDFFF`` escape that is not half of a pair."""
    if "\\u" not in text:
        return None
    low_expected_at = -1
    for m in _SURROGATE.finditer(text):
        start = k = m.start()
        while k > 0 and text[k - 1] == "\\":
            k -= 1
        if (start - k) % 2:  # an escaped backslash followed by "u": text, not an escape
            continue
        high = m.group()[3].lower() in "89ab"
        if high and _SURROGATE.match(text, m.end()) and text[m.end() + 3].lower() in "cdef":
            low_expected_at = m.end()
            continue
        if not high and start == low_expected_at:
            continue
        line, column = _line_column(text, start)
        return JsonError(
            f"{m.group()} is half of a character (a lone surrogate) at line {line} column {column}", line, column
        )
    return None


def _too_deep(text: str, max_depth: int) -> JsonError | None:
    offset = _depth_exceeds(text, max_depth)
    if offset is None:
        return None
    line, column = _line_column(text, offset)
    return JsonError(f"nested deeper than {max_depth} levels at line {line} column {column}", line, column)


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that refuses deep nesting, huge integers, NaN and Infinity (:class:`JsonError`)."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    try:
        hook = _parse_int if _LONG_DIGITS.search(text) else None
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=hook)
    except _Refused as exc:
        raise _located(text, exc) from None
    except json.JSONDecodeError as exc:
        deep = _too_deep(text, max_depth)
        if deep is not None:
            raise deep from None
        what = exc.msg.removesuffix(" at")  # e.g. "Unterminated string starting at"
        raise JsonError(f"bad JSON: {what} at line {exc.lineno} column {exc.colno}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise (_too_deep(text, max_depth) or JsonError(f"nested deeper than {max_depth} levels")) from None
    except ValueError as exc:  # e.g. a float literal Python cannot convert
        raise JsonError(f"bad JSON: {exc}") from None
    lone = _lone_surrogate(text)
    if lone is not None:
        raise lone
    return value


def typed_parse_takes_as_loads(text: str) -> bool:
    """Whether a text may be validated by a model's own JSON parser (pydantic_core) without
    :func:`loads` first, for a model whose every value is typed and finite (``allow_inf_nan`` off,
    no field of any JSON value): whatever :func:`loads` refuses then fails that validation too, but
    for a byte-order mark, a run of digits too long and a lone surrogate, looked for here (False
    when there is one). Malformed JSON, NaN, Infinity and deep nesting fail the model's parse or
    its types."""
    if text.startswith("\ufeff") or _LONG_DIGITS.search(text):
        return False
    return "\\u" not in text or _lone_surrogate(text) is None


REFUSED = object()  # what :func:`loads_each` gives for a text :func:`loads` would refuse


def loads_each(texts: Iterable[str]) -> Iterator[Any]:
    """The values of many small JSON texts (the lines of a JSON-lines file), one at a time, each as
    :func:`loads` gives it, or :data:`REFUSED` where :func:`loads` would refuse it (the caller then
    reads the lines with :func:`loads`, which words the refusal with its line). Several times
    faster than :func:`loads` on each: pydantic_core's parser (the same values as ``json.loads``
    for every text both take, and no text ``json.loads`` refuses; a test holds them equal), and the
    checks only where a text could need them. A text only ``json.loads`` takes (nesting deeper than
    pydantic_core allows) is given as refused."""
    for text in texts:
        if not typed_parse_takes_as_loads(text):  # (what pydantic_core alone would not refuse)
            yield REFUSED
            continue
        try:
            yield from_json(text, allow_inf_nan=False)
        except ValueError:
            yield REFUSED
