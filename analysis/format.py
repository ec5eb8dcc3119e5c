"""How every value prints, and how results become plain JSON: the one formatter of the tool.

The command lines, the exports and every page print values through these functions (a test reads
components/ and pages/ so that no number is formatted there another way):

- :func:`fmt`: a number to a fixed number of places (or significant digits, or signed); an
  undefined value says why ("undefined, because no item was coded by both coders");
  :func:`fmt_short` says only "undefined" (for a tile or a table cell with the reason beside it).
- :func:`fmt_p` and :func:`p_clause`: a p-value, "< 0.001" below 0.001.
- :func:`fmt_interval` ("[0.61, 0.75]"), :func:`fmt_range` ("0.61 to 0.75") and :func:`fmt_ci`
  ("95% CI 0.61 to 0.75") for an interval; :func:`fmt_share` for a share ("27%"),
  :func:`fmt_share_range` ("40% to 60%") and :func:`fmt_share_ci` ("95% CI 31% to 54%") for shares;
  :func:`fmt_mean_sd` for a mean and its SD ("12.3 (4.5)"); :func:`fmt_count` for a count
  ("12,345"); :func:`fmt_time` for a moment ("2026-11-26 10:23").
- :func:`fmt_test`: a test's statistic with its distribution and degrees of freedom ("t(29) = 2.10",
  "F(2, 29) = 3.10", "chi2(2) = 5.30", "z = 1.96", "U = 40.00").
- :func:`to_json`: results, frames and numpy values as plain JSON (an undefined value as
  ``{"undefined": reason}``); :func:`csv_cells`: a table ready for CSV (undefined cells empty).
"""

from __future__ import annotations

import math
import sys
from functools import cache
from importlib import metadata
from typing import Any

import numpy as np
import pandas as pd

from corpus.values import Undefined, is_defined


def _number(value: Any) -> bool:
    return isinstance(value, (float, np.floating)) and not math.isnan(value)


def fmt(value: Any, digits: int = 3, *, signed: bool = False, significant: bool = False) -> str:
    """A value as text: a number to ``digits`` places (``significant``: digits), with its sign when
    ``signed``; an undefined value with its reason; NaN as "undefined"; an integer as it is."""
    if isinstance(value, Undefined):
        return str(value)
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)) and not signed:
        return str(int(value))
    if isinstance(value, (int, np.integer, float, np.floating)):
        if math.isnan(value):
            return "undefined"
        return f"{float(value):{'+' if signed else ''}.{digits}{'g' if significant else 'f'}}"
    return str(value)


def fmt_short(value: Any, digits: int = 3, **kw: bool) -> str:
    """As :func:`fmt`, but an undefined value is only "undefined" (say why beside it)."""
    return "undefined" if isinstance(value, Undefined) else fmt(value, digits, **kw)


def fmt_p(p: Any) -> str:
    """A p-value: "< 0.001" below 0.001 (0 included), else three decimals."""
    if isinstance(p, (int, np.integer)) and not isinstance(p, (bool, np.bool_)):
        p = float(p)
    if _number(p) and p < 0.001:
        return "< 0.001"
    return fmt(p, 3)


def p_clause(p: Any) -> str:
    """ "p < 0.001" or "p = 0.012"."""
    text = fmt_p(p)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def _bounds(ci: Any) -> tuple[Any, Any] | None:
    if isinstance(ci, (tuple, list)) and len(ci) == 2 and all(is_defined(v) for v in ci):
        return ci[0], ci[1]
    return None


def fmt_interval(ci: Any, digits: int = 3, sep: str = ", ") -> str:
    """``[lo, hi]``, or why there is no interval."""
    bounds = _bounds(ci)
    if bounds is None:
        return fmt(ci[0] if isinstance(ci, (tuple, list)) and ci else ci, digits)
    return f"[{fmt(bounds[0], digits)}{sep}{fmt(bounds[1], digits)}]"


def fmt_range(ci: Any, digits: int = 2, missing: str | None = None, **kw: bool) -> str:
    """``lo to hi``; without an interval ``missing`` when given, else why there is none."""
    bounds = _bounds(ci)
    if bounds is None:
        return missing if missing is not None else fmt_interval(ci, digits)
    return f"{fmt(bounds[0], digits, **kw)} to {fmt(bounds[1], digits, **kw)}"


def fmt_ci(est: Any, digits: int = 2) -> str:
    """ "95% CI 0.73 to 0.84" of an estimate, or "" when it has no interval."""
    if not (est.defined and _bounds(est.interval)):
        return ""
    return f"{est.confidence:.0%} CI {fmt_range(est.interval, digits)}"


def fmt_mean_sd(mean: Any, sd: Any, digits: int = 1, missing: str = "undefined", **kw: bool) -> str:
    """ "12.3 (4.5)": a mean and its SD; the mean alone without an SD; ``missing`` without a mean."""
    if not _present(mean):
        return missing
    return fmt(mean, digits, **kw) + (f" ({fmt(sd, digits, **kw)})" if _present(sd) else "")


def _present(x: Any) -> bool:
    return is_defined(x) and not (isinstance(x, (float, np.floating)) and math.isnan(x))


def fmt_share(x: Any, digits: int = 0) -> str:
    """A share as a percentage ("27%", or "27.4%" with ``digits``); undefined says so."""
    if isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
        x = float(x)
    return f"{x:.{digits}%}" if _number(x) else fmt_short(x)


def fmt_share_range(lo: Any, hi: Any) -> str:
    """Two shares as a range of percentages ("40% to 60%")."""
    return f"{fmt_share(lo)} to {fmt_share(hi)}"


def fmt_share_ci(lo: Any, hi: Any, confidence: float = 0.95) -> str:
    """A share's interval: "95% CI 31% to 54%", or "" without bounds."""
    if not (_present(lo) and _present(hi)):
        return ""
    return f"{fmt_share(confidence)} CI {fmt_share_range(lo, hi)}"


def fmt_count(n: Any) -> str:
    """A count with thousands separated ("12,345")."""
    return f"{int(n):,}" if isinstance(n, (int, np.integer, float, np.floating)) and _present(n) else fmt_short(n)


def fmt_time(moment: Any) -> str:
    """A moment to the minute, as the app shows times ("2026-11-26 10:23"), in the time zone it has."""
    return moment.strftime("%Y-%m-%d %H:%M")


def fmt_clock(moment: Any) -> str:
    """A moment to the second, for what was computed a moment ago ("10:23:05")."""
    return moment.strftime("%H:%M:%S")


def _dof(d: Any) -> str:
    return f"{d:.0f}" if float(d).is_integer() else f"{d:.1f}"


def fmt_test(test: Any, digits: int = 2) -> str:
    """A test's statistic with its distribution and degrees of freedom: "t(29) = 2.10",
    "F(2, 29) = 3.10", "chi2(2) = 5.30", "z = 1.96", "U = 40.00"; why, when it has none."""
    stat = test.test_statistic
    if not is_defined(stat):
        return fmt(stat)
    dof = test.dof
    if isinstance(dof, tuple):
        where = f"({', '.join(_dof(d) for d in dof)})"
    else:
        where = f"({_dof(dof)})" if is_defined(dof) else ""
    return f"{test.distribution}{where} = {fmt(stat, digits)}"


def to_json(x: Any) -> Any:
    """Plain JSON values: Undefined -> {"undefined": reason}, NaN -> None, results and frames ->
    nested dicts and lists, numpy values -> Python values."""
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
    if isinstance(x, np.generic):
        return to_json(x.item())
    return x


def frame_to_json(df: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """A table as {row name: {column name: value}} (fast for wide tables)."""
    cols = [str(c) for c in df.columns]
    return {str(i): dict(zip(cols, to_json(row))) for i, row in zip(df.index, df.to_numpy().tolist())}


def csv_cells(df: pd.DataFrame) -> pd.DataFrame:
    """The table with every undefined cell empty (a CSV reader gets numbers or nothing; the reason
    is in the row's note)."""
    out = df.copy()
    for c in out.columns:
        if out[c].dtype == object:
            out[c] = [None if isinstance(v, Undefined) else v for v in out[c]]
    return out


@cache
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


__all__ = [
    "fmt",
    "fmt_short",
    "fmt_p",
    "p_clause",
    "fmt_interval",
    "fmt_range",
    "fmt_ci",
    "fmt_share",
    "fmt_mean_sd",
    "fmt_test",
    "to_json",
    "frame_to_json",
    "csv_cells",
    "package_version",
]
