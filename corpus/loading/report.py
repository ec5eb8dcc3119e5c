"""Problems found in input files: each names its file, record and field, for the person who fixes it.

:class:`Report` collects every problem instead of stopping at the first; :class:`DatasetError`
carries a report whose problems include at least one error. :func:`describe` and :func:`shown`
put a value from a file into a message: its JSON type and a short, truncated rendering, so a
message says what was found ("expected an integer, got the string '3'") without echoing a
megabyte of it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

MAX_ISSUES = 2000  # stop collecting past this many (a wholly wrong file would report thousands)
MAX_SHOWN = 60  # characters of a value quoted in a message

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Issue:
    file: str
    record: str
    field: str
    message: str
    severity: str = ERROR

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class Report:
    issues: list[Issue] = field(default_factory=list)
    dropped_errors: int = 0  # errors past MAX_ISSUES: counted, not kept

    def add(self, file: str, record: Any, fld: str, message: str, severity: str = ERROR) -> int | None:
        """Record a problem; its position in ``issues``, or None once MAX_ISSUES are kept."""
        if len(self.issues) < MAX_ISSUES:
            self.issues.append(Issue(str(file), str(record), fld, message, severity))
            return len(self.issues) - 1
        if severity == ERROR:
            self.dropped_errors += 1
        return None

    def amend(self, position: int, suffix: str) -> None:
        """Append ``suffix`` to the message of the issue at ``position``."""
        issue = self.issues[position]
        self.issues[position] = replace(issue, message=issue.message + suffix)

    @property
    def error_count(self) -> int:
        """Errors found so far, including any not kept."""
        return len(self.errors) + self.dropped_errors

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == ERROR]

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors and not self.dropped_errors

    def table(self) -> list[dict[str, str]]:
        return [i.as_dict() for i in self.issues]

    def format(self) -> str:
        """A plain-text table for the command line (a problem repeated on many records once, with
        its records and count: :func:`grouped`)."""
        if not self.issues:
            return "no problems found"
        rows = [("severity", "file", "record", "field", "message")] + [
            (g["severity"], g["file"], g["record"], g["field"], g["message"]) for g in grouped(self.issues)
        ]
        widths = [min(max(len(r[k]) for r in rows), 48) for k in range(4)]
        lines = []
        for r in rows:
            lines.append("  ".join(r[k].ljust(widths[k]) for k in range(4)) + "  " + r[4])
        if self.dropped_errors:
            lines.append(f"... and {self.dropped_errors} more error(s) not listed")
        return "\n".join(lines)


GROUP_RECORDS_SHOWN = 5  # records named in a grouped row before "and N more"


def grouped(issues: Iterable[Issue]) -> list[dict[str, str]]:
    """The issues as rows, one per distinct (severity, file, field, message): a problem repeated on
    many records (a predictions file naming an unknown session on every line) is one row naming its
    first records and how many there are ("line 3, line 5, ... and 69 more (71 records)"), in the
    order the problems were found."""
    groups: dict[tuple[str, str, str, str], list[str]] = {}
    for i in issues:
        groups.setdefault((i.severity, i.file, i.field, i.message), []).append(i.record)
    rows = []
    for (severity, file, fld, message), records in groups.items():
        shown_records = ", ".join(records[:GROUP_RECORDS_SHOWN])
        if len(records) > GROUP_RECORDS_SHOWN:
            shown_records += f" and {len(records) - GROUP_RECORDS_SHOWN} more ({len(records)} records)"
        rows.append(
            {
                "severity": severity,
                "file": file,
                "record": shown_records,
                "field": fld,
                "message": message,
                "count": str(len(records)),
            }
        )
    return rows


class DatasetError(Exception):
    """A dataset with at least one error; ``report`` lists them all."""

    def __init__(self, report: Report, source: str = ""):
        self.report = report
        n = report.error_count
        first = report.errors[0] if report.errors else None
        detail = f": {first.file} {first.record} {first.field}: {first.message}" if first else ""
        super().__init__(f"{source or 'dataset'} has {n} error(s){detail}")


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless n is 1: "1 record", "312 records"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def shown(value: Any) -> str:
    """``value`` quoted for a message, cut to MAX_SHOWN characters."""
    text = clipped(value if isinstance(value, str) else repr(value))
    return f"'{text}'" if isinstance(value, str) else text


def clipped(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` (an id, a line) cut to ``limit`` characters, marked with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(value: Any) -> str:
    """The JSON type and a short rendering of a value read from a file: "the string '3'".

    Every message that says what it found ("expected ..., got ...") words the value this way, so
    no Python type name ("NoneType", "dict") reaches a user."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        digits = len(str(abs(value))) if abs(value) < 10**40 else None
        return f"the integer {value}" if digits else "an integer of more than 40 digits"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "a number beyond the range of floating point (infinite)"
        return f"the number {value:g}"
    if isinstance(value, str):
        return f"the string {shown(value)}"
    if isinstance(value, (list, tuple)):
        return f"a list of {counted(len(value), 'item')}"
    if isinstance(value, dict):
        return "an object"
    return f"the value {clipped(str(value))}"  # not a JSON type (e.g. a date read from YAML)
