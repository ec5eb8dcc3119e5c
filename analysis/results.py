"""Results objects: every number the analysis computes, with how it was obtained.

After statsmodels' results classes, a statistic is an :class:`Estimate`: the value, the n it rests
on and what n counts, the interval and standard error with the procedure that gave them, what is
computed, the function and package that computed the number (and the library function a test
proves it equal to, where the number is our own code's), the confidence level and warnings.
``summary()`` is text, ``row()`` / ``to_frame()`` a table row, ``to_json()`` plain JSON (and
:meth:`Estimate.from_json` reads it back).

- :class:`Test`: an estimate with a hypothesis test (its statistic, distribution, degrees of
  freedom and p-value); where the estimate *is* the test statistic (chi-square, Welch's t, U, a
  Wald test) the statistic need not be given twice. :class:`ChiSquare` adds the smallest expected
  count.
- :class:`EstimateTable`: many estimates, each placed by keys (run, metric, condition, ...).
- :func:`wilson` and :func:`wilson_columns`: a proportion with its Wilson score interval
  (statsmodels), for one proportion and for columns of them.

A value that does not exist on the data is :class:`corpus.values.Undefined` with the reason, in the
estimate and in its standard error and interval (:meth:`Estimate.undefined`). Values print through
:mod:`analysis.format`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Any, Self

import numpy as np
import pandas as pd
from statsmodels.stats.proportion import proportion_confint

from analysis.format import fmt, fmt_interval, fmt_test, p_clause, package_version, to_json
from corpus.values import Undefined, from_json, is_defined

Value = float | Undefined
Interval = tuple[float, float] | Undefined
Dof = float | tuple[float, float] | Undefined

CONFIDENCE = 0.95
NO_INTERVAL = Undefined("no interval is computed for this statistic")
NO_SE = Undefined("no standard error is computed for this statistic")
NO_TEST = Undefined("no test was made")
NO_DOF = Undefined("the test's distribution has no degrees of freedom")
OURS = "groundwork"  # the package name of this project, for numbers our own code computes

ROW_COLUMNS = [
    "statistic",
    "name",
    "estimate",
    "n",
    "n_of",
    "ci_low",
    "ci_high",
    "se",
    "confidence",
    "interval_method",
    "method",
    "computed_by",
    "note",
]


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
    confidence: float = CONFIDENCE
    warnings: tuple[str, ...] = ()

    @classmethod
    def undefined(cls, reason: str, **fields: Any):
        """An estimate that has no value: estimate, standard error and interval all say why."""
        u = Undefined(reason)
        return cls(**fields, estimate=u, se=u, interval=u)

    @property
    def defined(self) -> bool:
        return is_defined(self.estimate)

    @property
    def low(self) -> Value:
        return self.interval[0] if isinstance(self.interval, tuple) else self.interval

    @property
    def high(self) -> Value:
        return self.interval[1] if isinstance(self.interval, tuple) else self.interval

    def at_least(self, n_items: int, minimum: int, what: str = "complete") -> Self:
        """This estimate, or an undefined one when it rests on fewer than ``minimum`` items."""
        if n_items >= minimum or not self.defined:
            return self
        why = Undefined(f"too few items ({n_items} {what})")
        return replace(self, estimate=why, se=why, interval=why)

    def details(self) -> list[str]:
        """More numbers of the result, as text (a test's statistic and p-value)."""
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
        lines = [
            f"{self.statistic}: {fmt(self.estimate)}"
            + (f"  ({conf} {fmt_interval(self.interval)})" if is_defined(self.interval) else "")
            + f"  n = {self.n} {self.n_of}"
        ]
        if self.interval_method:
            lines.append(f"  SE {fmt(self.se)}; interval: {self.interval_method}")
        lines += [f"  {d}" for d in self.details()]
        lines.append(f"  method: {self.method}")
        lines.append(f"  computed by: {self.provenance()}")
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)

    def row(self) -> dict[str, Any]:
        """One row of a statistics table (:data:`ROW_COLUMNS`; an undefined value stays
        :class:`Undefined`, see :func:`analysis.format.csv_cells` for CSV)."""
        return {
            "statistic": self.key,
            "name": self.statistic,
            "estimate": self.estimate,
            "n": self.n,
            "n_of": self.n_of,
            "ci_low": self.low,
            "ci_high": self.high,
            "se": self.se,
            "confidence": self.confidence,
            "interval_method": self.interval_method,
            "method": self.method,
            "computed_by": self.provenance(),
            "note": self.note(),
        }

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([self.row()])

    def to_json(self) -> dict[str, Any]:
        return {f.name: to_json(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Estimate:
        """An estimate read back from :meth:`to_json` (the fields of this class; a subclass's extra
        fields, such as per-category kappas, are not restored)."""
        names = {f.name for f in fields(cls)}
        kw = {k: from_json(v) for k, v in data.items() if k in names}
        for k in ("interval", "dof"):
            if isinstance(kw.get(k), list):
                kw[k] = tuple(kw[k])
        kw["warnings"] = tuple(kw.get("warnings") or ())
        return cls(**kw)


@dataclass(frozen=True, kw_only=True)
class Test(Estimate):
    """An estimate with a hypothesis test: the test statistic, its distribution ("t", "z", "F",
    "chi2", "U"), degrees of freedom and p-value. ``test_statistic`` left out: the estimate is
    the test statistic."""

    distribution: str
    test_statistic: Value | None = None
    dof: Dof = NO_DOF
    p_value: Value = NO_TEST

    def __post_init__(self) -> None:
        if self.test_statistic is None:
            object.__setattr__(self, "test_statistic", self.estimate)

    @classmethod
    def undefined(cls, reason: str, **fields: Any):
        """A test that could not be made: its statistic, degrees of freedom and p-value say why."""
        u = Undefined(reason)
        return super().undefined(reason, **{"dof": u, "p_value": u, **fields})

    def details(self) -> list[str]:
        return [f"{fmt_test(self)}, {p_clause(self.p_value)}"] if is_defined(self.p_value) else []

    def row(self) -> dict[str, Any]:
        return {**super().row(), "test_statistic": self.test_statistic, "dof": self.dof, "p_value": self.p_value}


@dataclass(frozen=True, kw_only=True)
class ChiSquare(Test):
    """Pearson's chi-square test: the statistic is the estimate; with the smallest expected count."""

    distribution: str = "chi2"
    min_expected: Value = NO_TEST


# -- a proportion -------------------------------------------------------------------------------

WILSON = "Wilson score interval"


def wilson_columns(k, n, confidence: float = CONFIDENCE) -> tuple[np.ndarray, np.ndarray]:
    """Wilson bounds for arrays of successes and trials (statsmodels' ``proportion_confint``)."""
    lo, hi = proportion_confint(
        np.asarray(k, dtype=float), np.asarray(n, dtype=float), alpha=1 - confidence, method="wilson"
    )
    return np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)


def wilson(
    k: int,
    n: int,
    *,
    key: str = "share",
    statistic: str = "share",
    n_of: str = "observations",
    method: str = "share of the observations",
    confidence: float = CONFIDENCE,
    empty: str = "no observations",
) -> Estimate:
    """The proportion ``k / n`` with its Wilson score interval (undefined, saying ``empty``, when
    n is 0)."""
    base: dict[str, Any] = dict(
        key=key,
        statistic=statistic,
        n=int(n),
        n_of=n_of,
        method=method,
        interval_method=WILSON,
        computed_by="statsmodels.stats.proportion.proportion_confint",
        package="statsmodels",
        confidence=confidence,
    )
    if n <= 0:
        return Estimate.undefined(empty, **base)
    lo, hi = wilson_columns(k, n, confidence)
    return Estimate(**base, estimate=k / n, interval=(float(lo), float(hi)))


# -- a table of estimates -----------------------------------------------------------------------


@dataclass(frozen=True)
class EstimateTable:
    """Estimates with the keys that place them (run, task, metric, dimension, condition, role, ...):
    one row each, the keys then :meth:`Estimate.row`."""

    rows: tuple[dict[str, Any], ...]
    keys: tuple[str, ...]
    title: str = ""
    notes: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        items: Iterable[tuple[dict[str, Any], Estimate]],
        keys: Iterable[str],
        title: str = "",
        notes: Iterable[str] = (),
    ) -> EstimateTable:
        rows = tuple({**k, **e.row()} for k, e in items)
        return cls(rows=rows, keys=tuple(keys), title=title, notes=tuple(notes))

    def columns(self) -> list[str]:
        extra = dict.fromkeys(c for r in self.rows for c in r if c not in self.keys and c not in ROW_COLUMNS)
        return [*self.keys, *ROW_COLUMNS, *extra]

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.rows), columns=self.columns())

    def to_json(self) -> list[dict[str, Any]]:
        return [to_json(r) for r in self.rows]

    def summary(self) -> str:
        lines = [self.title] if self.title else []
        for r in self.rows:
            where = ", ".join(f"{k}={r[k]}" for k in self.keys)
            ci = f" {fmt_interval((r['ci_low'], r['ci_high']))}" if is_defined(r["ci_low"]) else ""
            lines.append(f"{where}: {r['name']} {fmt(r['estimate'])}{ci} (n={r['n']})")
        return "\n".join(lines + list(self.notes))

    def __len__(self) -> int:
        return len(self.rows)


__all__ = [
    "Estimate",
    "Test",
    "ChiSquare",
    "EstimateTable",
    "Value",
    "Interval",
    "Dof",
    "CONFIDENCE",
    "NO_INTERVAL",
    "NO_SE",
    "NO_TEST",
    "NO_DOF",
    "OURS",
    "ROW_COLUMNS",
    "WILSON",
    "wilson",
    "wilson_columns",
]


# -- low power -----------------------------------------------------------------------------------

MIN_PER_GROUP = 10  # sessions (or runs) per group below which a comparison of groups has little power


def few_per_group(counts: dict[str, int], unit: str = "sessions") -> str | None:
    """The one low-power rule of every comparison of groups of sessions (Outcomes, dyadic alignment,
    kitchen pairings): a warning when a group has fewer than :data:`MIN_PER_GROUP` ``unit``, else None."""
    if all(n >= MIN_PER_GROUP for n in counts.values()):
        return None
    each = ", ".join(f"{name.replace('_', ' ')} {n}" for name, n in counts.items())
    return f"few {unit} ({each}): tests have little power and intervals are wide (under {MIN_PER_GROUP} per group)"


# -- a share on few units ------------------------------------------------------------------------

MIN_N_RANKED = 5  # a share on fewer units is drawn hollow and never called the highest or lowest


def ranked(n: pd.Series) -> pd.Series:
    """Which shares may be ranked (called highest, lowest, compared in a sentence): those on at least
    :data:`MIN_N_RANKED` units. A chart draws the others hollow."""
    return n.fillna(0) >= MIN_N_RANKED


def highest(frame: pd.DataFrame, value: str, n: str = "n") -> Any:
    """The index of ``frame``'s row with the highest ``value`` among the rows that may be ranked
    (:func:`ranked`); None when no row may."""
    eligible = frame[ranked(frame[n])]
    return None if eligible.empty else eligible[value].idxmax()
