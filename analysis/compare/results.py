"""Results objects of the comparison: one number with its n, interval, method and package, and
tables of them.

Every score the Compare page, the command line and the exports show is an :class:`Estimate`
(or a row of a :class:`ScoreTable` built from estimates). A value that does not exist on the data
is ``corpus.values.Undefined`` with the reason, in the estimate and in its interval.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Iterable

import pandas as pd

from corpus.values import Undefined, is_defined

CONFIDENCE = 0.95
Value = float | Undefined
Interval = tuple[float, float] | Undefined | None  # None: the statistic has no interval


def fmt(value: Any, digits: int = 2) -> str:
    """A number as tables show it; an undefined value as "undefined"."""
    if isinstance(value, Undefined) or value is None:
        return "undefined"
    if isinstance(value, float) and math.isnan(value):
        return "undefined"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def jsonable(x: Any) -> Any:
    """Plain JSON values: Undefined as ``{"undefined": reason}``, numpy numbers as Python numbers."""
    if isinstance(x, Undefined):
        return x.to_json()
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if hasattr(x, "item") and not isinstance(x, (str, bytes)):
        return x.item()
    return x


@dataclass(frozen=True)
class Estimate:
    """One statistic: estimate, n, interval, how it was computed and by which package."""

    statistic: str
    estimate: Value
    n: int
    interval: Interval = None
    method: str = ""
    package: str = ""
    warnings: tuple[str, ...] = ()
    confidence: float = CONFIDENCE

    @property
    def defined(self) -> bool:
        return is_defined(self.estimate)

    @property
    def low(self) -> Value | None:
        return self.interval[0] if isinstance(self.interval, tuple) else self.interval

    @property
    def high(self) -> Value | None:
        return self.interval[1] if isinstance(self.interval, tuple) else self.interval

    def summary(self) -> str:
        if not self.defined:
            return f"{self.statistic}: {self.estimate} (n={self.n})"
        ci = ""
        if isinstance(self.interval, tuple):
            ci = f" [{self.interval[0]:.3f}, {self.interval[1]:.3f}]"
        elif isinstance(self.interval, Undefined):
            ci = f" (interval {self.interval})"
        return f"{self.statistic}: {self.estimate:.3f}{ci} (n={self.n}; {self.method}; {self.package})"

    def to_json(self) -> dict[str, Any]:
        return jsonable({
            "statistic": self.statistic, "estimate": self.estimate, "n": self.n,
            "interval": list(self.interval) if isinstance(self.interval, tuple) else self.interval,
            "confidence": self.confidence, "method": self.method, "package": self.package,
            "warnings": list(self.warnings),
        })

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.row()])

    def row(self) -> dict[str, Any]:
        return {"statistic": self.statistic, "estimate": self.estimate, "low": self.low, "high": self.high, "n": self.n,
                "method": self.method, "package": self.package, "warnings": "; ".join(self.warnings)}


def undefined(statistic: str, reason: str, n: int = 0, method: str = "", package: str = "") -> Estimate:
    u = Undefined(reason)
    return Estimate(statistic, u, n, u, method, package)


@dataclass(frozen=True)
class ScoreTable:
    """Estimates with the keys that place them (run, task, metric, dimension, condition, role, ...)."""

    rows: tuple[dict[str, Any], ...]
    keys: tuple[str, ...]
    title: str = ""
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def build(cls, items: Iterable[tuple[dict[str, Any], Estimate]], keys: Iterable[str], title: str = "",
              notes: Iterable[str] = ()) -> "ScoreTable":
        rows = tuple({**k, **e.row(), "confidence": e.confidence} for k, e in items)
        return cls(rows=rows, keys=tuple(keys), title=title, notes=tuple(notes))

    def to_frame(self) -> pd.DataFrame:
        cols = [*self.keys, "statistic", "estimate", "low", "high", "n", "method", "package", "warnings", "confidence"]
        return pd.DataFrame(list(self.rows), columns=cols)

    def to_json(self) -> list[dict[str, Any]]:
        return [jsonable(r) for r in self.rows]

    def summary(self) -> str:
        lines = [self.title] if self.title else []
        for r in self.rows:
            where = ", ".join(f"{k}={r[k]}" for k in self.keys)
            est = fmt(r["estimate"], 3)
            ci = f" [{fmt(r['low'], 3)}, {fmt(r['high'], 3)}]" if is_defined(r["low"]) else ""
            lines.append(f"{where}: {r['statistic']} {est}{ci} (n={r['n']})")
        return "\n".join(lines + list(self.notes))

    def __len__(self) -> int:
        return len(self.rows)


def dumps(x: Any) -> str:
    return json.dumps(jsonable(x), indent=2)
