"""Results objects, and the one formatter that prints their values.

Every statistic returns an :class:`Estimate` (after statsmodels' results classes): the value, the
n it rests on and what n counts, the interval and standard error with the procedure that gave
them, what the statistic is, the function and package that actually computed the number (and the
library it is tested equal to, where the number is ours), and warnings. ``summary()`` is text,
``to_frame()`` a one-row table, ``to_json()`` plain JSON.

Values print through :func:`fmt` and its siblings everywhere (command line, exports, pages):
an undefined value says why, a p-value below 0.001 prints as "< 0.001".
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from importlib import metadata
from typing import Any

import numpy as np
import pandas as pd

from corpus.values import Undefined, from_json, is_defined

Value = float | Undefined
Interval = tuple[float, float] | Undefined

NO_INTERVAL = Undefined("no interval is computed for this statistic")
NO_SE = Undefined("no standard error is computed for this statistic")
OURS = "groundwork"  # the package name of this project, for numbers our own code computes


# -- the formatter ----------------------------------------------------------------------------


def fmt(value: Any, digits: int = 3) -> str:
    """A value as text: a number to ``digits`` places, an undefined one with its reason."""
    if isinstance(value, Undefined):
        return str(value)
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return "undefined" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def fmt_short(value: Any, digits: int = 3) -> str:
    """As :func:`fmt`, but an undefined value is only "undefined" (for a tile; say why beside it)."""
    return "undefined" if isinstance(value, Undefined) else fmt(value, digits)


def fmt_p(p: Any) -> str:
    """A p-value: "< 0.001" below 0.001, else three decimals."""
    if isinstance(p, (float, np.floating)) and not math.isnan(p) and p < 0.001:
        return "< 0.001"
    return fmt(p, 3)


def p_clause(p: Any) -> str:
    """"p < 0.001" or "p = 0.012"."""
    text = fmt_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def fmt_interval(ci: Any, digits: int = 3, sep: str = ", ") -> str:
    """``[lo, hi]``, or why there is no interval."""
    if isinstance(ci, (tuple, list)) and len(ci) == 2:
        return f"[{fmt(ci[0], digits)}{sep}{fmt(ci[1], digits)}]"
    return fmt(ci, digits)


def fmt_share(x: Any) -> str:
    """A share as a percentage ("27%")."""
    return f"{x:.0%}" if isinstance(x, (float, np.floating)) else fmt(x)


def to_json(x: Any) -> Any:
    """Plain JSON values: Undefined -> {"undefined": reason}, NaN -> None, results and frames ->
    nested dicts and lists."""
    if isinstance(x, Undefined):
        return x.to_json()
    if hasattr(x, "to_json") and not isinstance(x, (pd.DataFrame, pd.Series)):
        return x.to_json()
    if isinstance(x, dict):
        return {str(k): to_json(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_json(v) for v in x]
    if isinstance(x, pd.DataFrame):
        return [to_json(dict(zip(x.columns, row))) for row in x.itertuples(index=False, name=None)]
    if isinstance(x, pd.Series):
        return {str(k): to_json(v) for k, v in x.items()}
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return None if math.isnan(x) else float(x)
    if isinstance(x, np.ndarray):
        return to_json(x.tolist())
    return x


@lru_cache(maxsize=None)
def package_version(name: str) -> str:
    """The installed version of a package (its module's ``__version__`` when it has one: reading
    the installed distributions' metadata costs tens of milliseconds)."""
    module = sys.modules.get(name)
    version = getattr(module, "__version__", None)
    if isinstance(version, str):
        return version
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "not installed"


def frame_to_json(df: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """A table as {row name: {column name: value}} (fast for wide tables)."""
    cols = [str(c) for c in df.columns]
    return {str(i): dict(zip(cols, to_json(row))) for i, row in zip(df.index, df.to_numpy().tolist())}


# -- one statistic ----------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Estimate:
    """One statistic on the data, and how it was obtained."""

    key: str  # the name in JSON and CSV, e.g. "fleiss_kappa"
    statistic: str  # the name people read, e.g. "Fleiss' kappa"
    estimate: Value
    n: int
    n_of: str  # what n counts, e.g. "items coded by every coder"
    method: str  # what is computed
    computed_by: str  # the function that computed the number
    package: str  # the installed package that function belongs to
    checked_against: str = ""  # for our own code: the library function a test proves it equal to
    se: Value = NO_SE
    interval: Interval = NO_INTERVAL
    interval_method: str = ""  # the procedure (or formula) of the standard error and interval
    confidence: float = 0.95
    warnings: tuple[str, ...] = ()

    @property
    def defined(self) -> bool:
        return is_defined(self.estimate)

    def at_least(self, n_items: int, minimum: int, what: str = "complete") -> Estimate:
        """This estimate, or an undefined one when it rests on fewer than ``minimum`` items."""
        if n_items >= minimum or not self.defined:
            return self
        why = Undefined(f"too few items ({n_items} {what})")
        return replace(self, estimate=why, se=why, interval=why)

    def details(self) -> list[str]:
        """More numbers of the result, as text (a test's degrees of freedom and p-value)."""
        return []

    def note(self) -> str:
        """Why the value is undefined, else its details and warnings."""
        if not self.defined:
            return str(self.estimate)
        return "; ".join([*self.details(), *self.warnings])

    def provenance(self) -> str:
        out = f"{self.computed_by} ({self.package} {package_version(self.package)})"
        return out + (f", tested equal to {self.checked_against}" if self.checked_against else "")

    def summary(self) -> str:
        conf = f"{self.confidence:.0%} CI"
        lines = [f"{self.statistic}: {fmt(self.estimate)}"
                 + (f"  ({conf} {fmt_interval(self.interval)})" if is_defined(self.interval) else "")
                 + f"  n = {self.n} {self.n_of}"]
        if self.interval_method:
            lines.append(f"  SE {fmt(self.se)}; interval: {self.interval_method}")
        lines += [f"  {d}" for d in self.details()]
        lines.append(f"  method: {self.method}")
        lines.append(f"  computed by: {self.provenance()}")
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)

    def row(self) -> dict[str, Any]:
        """One row of a statistics table (the CSV export and :meth:`to_frame`)."""
        lo, hi = self.interval if is_defined(self.interval) else (None, None)
        return {
            "statistic": self.key, "estimate": self.estimate if self.defined else None, "n": self.n,
            "n_of": self.n_of, "ci_low": lo, "ci_high": hi, "se": self.se if is_defined(self.se) else None,
            "confidence": self.confidence, "interval_method": self.interval_method, "method": self.method,
            "computed_by": self.provenance(), "note": self.note(),
        }

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.row()])

    def to_json(self) -> dict[str, Any]:
        return {f.name: to_json(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Estimate:
        """An estimate read back from :meth:`to_json` (the fields of this class; a subclass's extra
        fields, such as per-category kappas, are not restored)."""
        names = {f.name for f in fields(Estimate)}
        kw = {k: from_json(v) for k, v in data.items() if k in names}
        if isinstance(kw.get("interval"), list):
            kw["interval"] = tuple(kw["interval"])
        kw["warnings"] = tuple(kw.get("warnings") or ())
        return Estimate(**kw)


@dataclass(frozen=True, kw_only=True)
class ChiSquare(Estimate):
    """A chi-square test: the statistic is the estimate; with its degrees of freedom and p-value."""

    dof: int | Undefined = Undefined("no test was run")
    p_value: Value = Undefined("no test was run")
    min_expected: Value = Undefined("no test was run")

    def details(self) -> list[str]:
        return [f"df {fmt(self.dof)}, {p_clause(self.p_value)}"] if self.defined else []


def undefined_estimate(base: dict[str, Any], reason: str) -> dict[str, Any]:
    """The fields of an estimate that has no value: estimate, SE and interval all say why."""
    u = Undefined(reason)
    return {**base, "estimate": u, "se": u, "interval": u}


@dataclass(frozen=True)
class Replicates:
    """Bootstrap settings, and the procedure text every interval of that bootstrap carries."""

    n_boot: int
    seed: int | None
    confidence: float = 0.95

    @property
    def method(self) -> str:
        if self.n_boot <= 0:
            return ""
        return (f"percentile bootstrap over items ({self.n_boot} resamples, seed {self.seed}); "
                "SE = standard deviation of the resampled values")

    def estimate_fields(self) -> dict[str, Any]:
        return {"interval_method": self.method, "confidence": self.confidence}


__all__ = ["Estimate", "ChiSquare", "Replicates", "Value", "Interval", "NO_INTERVAL", "NO_SE", "OURS", "fmt",
           "package_version", "fmt_short", "fmt_p", "p_clause", "fmt_interval", "fmt_share", "to_json",
           "frame_to_json", "undefined_estimate"]
