"""The results objects the analysis pages read: an estimate with its interval, and a test.

Every number a figure or table shows comes with how many observations it rests on, how it was
computed, which package computed it and anything the reader should be warned about. A value that
cannot be computed is :class:`corpus.values.Undefined` with the reason, never NaN or 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import metadata

from statsmodels.stats.proportion import proportion_confint

from corpus.values import Undefined, is_defined

Number = float | Undefined


def package(name: str) -> str:
    """``name`` and its installed version, e.g. ``statsmodels 0.15.0``."""
    try:
        return f"{name} {metadata.version(name)}"
    except metadata.PackageNotFoundError:  # pragma: no cover - every package named here is a dependency
        return name


@dataclass(frozen=True)
class Estimate:
    """One estimate with its 95 % interval (``low``/``high``), its n and its provenance."""

    name: str
    value: Number
    low: Number
    high: Number
    n: int
    method: str
    package: str
    p: Number | None = None  # of the test that the estimate is 0 (or 1 for a ratio), where one is made
    statistic: Number | None = None
    df: float | tuple[float, float] | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def defined(self) -> bool:
        return is_defined(self.value)

    def interval_text(self, fmt: str = "{:.2f}") -> str:
        if not (is_defined(self.low) and is_defined(self.high)):
            return "-"
        return f"{fmt.format(self.low)} to {fmt.format(self.high)}"

    def as_row(self) -> dict:
        """A flat dict for tables and CSV downloads (undefined values as their reason)."""
        def v(x):
            return str(x) if isinstance(x, Undefined) else x

        return {
            "quantity": self.name, "estimate": v(self.value), "ci_low": v(self.low), "ci_high": v(self.high),
            "p": v(self.p), "statistic": v(self.statistic), "df": None if self.df is None else str(self.df),
            "n": self.n, "method": self.method, "package": self.package, "warnings": "; ".join(self.warnings),
        }


def wilson(k: int, n: int, name: str = "share") -> Estimate:
    """A proportion ``k / n`` with its Wilson score 95 % interval (statsmodels' ``proportion_confint``)."""
    if n <= 0:
        undefined = Undefined("no observations")
        return Estimate(name, undefined, undefined, undefined, 0, "Wilson score interval", package("statsmodels"))
    lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
    return Estimate(name, k / n, float(lo), float(hi), int(n), "Wilson score interval", package("statsmodels"))


def finite_or_undefined(x: float, reason: str) -> Number:
    """``x`` if it is a finite number, else Undefined(reason)."""
    return float(x) if x is not None and math.isfinite(float(x)) else Undefined(reason)
