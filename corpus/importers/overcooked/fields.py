"""Typed reads of the values of one file, each problem reported with file, record and field.

Plain checks, no model per record: a run log holds tens of thousands of values and these reads are
the importer's inner loop. A read that fails reports "expected <kind>, got <what was found>"
(:func:`corpus.loading.report.describe`: JSON's words, never Python's) and returns None. Numbers are
accepted as integers or floats alike (the logs write ``0`` and ``0.0`` in the same field); where a
whole number is expected, a float with no fraction (``3.0``) is read as the integer.
"""

from __future__ import annotations

from typing import Any

from corpus.loading.report import Report, describe

OBJECT, LIST, STRING, INTEGER, NUMBER = "an object", "a list", "a string", "a whole number", "a number"
MAX_PROBLEMS_PER_FILE = 50


class TooMany(Exception):
    """Raised by :class:`Fields` once a file has :data:`MAX_PROBLEMS_PER_FILE` errors."""


class Fields:
    """The reads of one file (``rel`` as the report names it)."""

    def __init__(self, report: Report, rel: str):
        self.report = report
        self.rel = rel
        self.start = report.error_count

    @property
    def errors(self) -> int:
        """Errors this file has had so far."""
        return self.report.error_count - self.start

    def problem(self, record: str, fld: str, message: str) -> None:
        self.report.add(self.rel, record, fld, message)
        if self.errors >= MAX_PROBLEMS_PER_FILE:
            self.report.add(
                self.rel,
                record,
                "(file)",
                f"reading stopped after {MAX_PROBLEMS_PER_FILE} problems; the rest of the file was not checked",
            )
            raise TooMany

    def warn(self, record: str, fld: str, message: str) -> None:
        self.report.add(self.rel, record, fld, message, severity="warning")

    def value(self, v: Any, kind: str, record: str, fld: str) -> Any:
        """``v`` if it is of ``kind`` (an int for INTEGER, a float for NUMBER), else None reported."""
        t = type(v)
        if kind == STRING:
            if t is str:
                return v
        elif kind == INTEGER:
            if t is int:
                return v
            if t is float and v.is_integer():
                return int(v)
        elif kind == NUMBER:
            if t is int or t is float:
                return float(v)
        elif kind == LIST:
            if t is list:
                return v
        elif kind == OBJECT:
            if t is dict:
                return v
        self.problem(record, fld, f"expected {kind}, got {describe(v)}")
        return None

    def field(self, obj: dict[str, Any], key: str, kind: str, record: str, prefix: str = "") -> Any:
        """``obj[key]`` read as ``kind``; a missing key is reported too. The field is named
        ``prefix + key``."""
        if key not in obj:
            self.problem(record, prefix + key, f"missing (expected {kind})")
            return None
        return self.value(obj[key], kind, record, prefix + key)

    def optional(
        self, obj: dict[str, Any], key: str, kind: str, record: str, prefix: str = "", default: Any = None
    ) -> Any:
        """``obj[key]`` read as ``kind``, ``default`` when the key is absent or null."""
        v = obj.get(key)
        if v is None:
            return default
        return self.value(v, kind, record, prefix + key)

    def text(self, obj: dict[str, Any], key: str, record: str, prefix: str = "") -> str | None:
        """A string field that may be absent or null ("" then); None when it is something else."""
        v = obj.get(key)
        if v is None:
            return ""
        return self.value(v, STRING, record, prefix + key)

    def pair(self, v: Any, record: str, fld: str, what: str) -> list[Any] | None:
        """A list of two (one per agent, Chef first), else None reported."""
        if type(v) is not list or len(v) != 2:
            self.problem(record, fld, f"expected a list of 2 ({what}, Chef first), got {describe(v)}")
            return None
        return v

    def numbers(self, v: Any, kind: str, record: str, fld: str) -> list[Any] | None:
        """A list of numbers (``kind`` INTEGER or NUMBER), else None reported at the first bad one."""
        if type(v) is not list:
            self.problem(record, fld, f"expected a list of numbers, got {describe(v)}")
            return None
        out = []
        for k, item in enumerate(v):
            got = self.value(item, kind, record, f"{fld}[{k}]")
            if got is None:
                return None
            out.append(got)
        return out
