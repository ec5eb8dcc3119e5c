"""How a value read from a source file is quoted in an error message: short, whatever it holds.

A field may hold 200,000 characters, a 4,000-digit number or a list nested 150 deep; the message
quotes its beginning (``'[[[[[[...]]]]]]'``, ``'abc...xyz'``) so a report stays readable.
"""

from __future__ import annotations

import reprlib
from typing import Any

_REPR = reprlib.Repr()
_REPR.maxstring = 60
_REPR.maxlong = 40
_REPR.maxother = 60
_REPR.maxlevel = 3


def shown(value: Any) -> str:
    """``repr(value)`` cut to a few dozen characters."""
    return _REPR.repr(value)


def clipped(text: str, limit: int = 60) -> str:
    """``text`` (an id, a line) cut to ``limit`` characters, marked with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."
