"""Parse JSON from files a user gives us, refusing what would crash or mislead the tool.

:func:`loads` is ``json.loads`` with four refusals, each a :class:`JsonError` whose message says
what was wrong and where:

- malformed JSON (line and column);
- nesting deeper than :data:`MAX_DEPTH` (the standard parser would exhaust the stack on
  100,000 nested brackets and raise ``RecursionError``);
- an integer of more than :data:`MAX_INT_DIGITS` digits (Python refuses to convert such text and
  raises a bare ``ValueError``);
- the non-standard constants ``NaN``, ``Infinity`` and ``-Infinity``, which the standard parser
  accepts although JSON has no such values.

Every reader of user-supplied JSON (datasets, importers) goes through here.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 200
MAX_INT_DIGITS = 4300  # Python's own limit for int <-> str conversion (sys.get_int_max_str_digits)


class JsonError(ValueError):
    """JSON the tool refuses; ``line`` and ``column`` are 1-based where known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.line = line
        self.column = column


def _refuse_constant(name: str) -> Any:
    raise JsonError(f"{name} is not a JSON number (give a finite number)")


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise JsonError(f"an integer of {digits} digits is too long (at most {MAX_INT_DIGITS})")
    return int(text)


def _depth_exceeds(text: str, limit: int) -> bool:
    """Whether brackets outside strings nest deeper than ``limit`` (a cheap scan, no recursion)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    in_string = escaped = False
    for ch in text:
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
                return True
        elif ch in "]}":
            depth -= 1
    return False


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` that refuses deep nesting, huge integers, NaN and Infinity (:class:`JsonError`)."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_int=_parse_int)
    except JsonError:
        raise
    except json.JSONDecodeError as exc:
        if _depth_exceeds(text, max_depth):
            raise JsonError(f"nested deeper than {max_depth} levels") from None
        raise JsonError(f"bad JSON: {exc.msg} at line {exc.lineno} column {exc.colno}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise JsonError(f"nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # e.g. a float literal Python cannot convert
        raise JsonError(f"bad JSON: {exc}") from None
