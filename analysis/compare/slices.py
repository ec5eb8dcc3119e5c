"""Accuracy per value of a slice field, with Wilson intervals.

Slice fields are the item's role, condition, task-progress bin and split, and any extra field the
prediction lines carry (``question_type``, ``time_span``, ``difficulty``, ...). With
``question_type`` and ``time_span`` on the lines, :func:`slice_table` gives the SocialMindChange
paper's layout: accuracy by question type, and by time span.
"""

from __future__ import annotations

import re

import pandas as pd

from analysis.compare.items import BASE_SLICES
from analysis.format import fmt
from analysis.results import wilson_columns

MAX_VALUES = 50  # a field with more distinct values than this is not offered as a slice
MISSING = "(none)"


def slice_fields(cat: pd.DataFrame) -> list[str]:
    """The fields accuracy can be sliced by: the base ones, then the prediction lines' extra fields
    that take between 1 and :data:`MAX_VALUES` distinct values."""
    extra = [
        c
        for c in cat.columns
        if c
        not in {
            "run",
            "dimension",
            "session_id",
            "action_index",
            "truth",
            "pred",
            "t_code",
            "p_code",
            "correct",
            *BASE_SLICES,
        }
    ]
    ok = [c for c in extra if 1 <= cat[c].nunique(dropna=True) <= MAX_VALUES]
    return [*BASE_SLICES, *ok]


def _natural(value: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", value)]


def value_order(values) -> list[str]:
    """Slice values in a readable order: numbers numerically, "span 2-3" before "span 10-11"."""
    return sorted({str(v) for v in values}, key=_natural)


def slice_table(cat: pd.DataFrame, field: str, dimension: str) -> pd.DataFrame:
    """run x value of ``field``: accuracy on ``dimension`` with its Wilson interval and n."""
    df = cat[cat["dimension"] == dimension]
    cols = ["run", "field", "value", "accuracy", "ci_low", "ci_high", "n", "correct"]
    if df.empty or field not in df:
        return pd.DataFrame(columns=cols)
    values = df[field].astype(object).where(df[field].notna(), MISSING).astype(str)
    g = df.assign(value=values).groupby(["run", "value"], observed=True, sort=False)["correct"].agg(["sum", "size"])
    g = g.reset_index().rename(columns={"sum": "correct", "size": "n"})
    lo, hi = wilson_columns(g["correct"].to_numpy(), g["n"].to_numpy())
    g = g.assign(field=field, accuracy=g["correct"] / g["n"], ci_low=lo, ci_high=hi)
    order = {v: i for i, v in enumerate(value_order(g["value"]))}
    g = g.sort_values(["run", "value"], key=lambda s: s.map(order) if s.name == "value" else s, kind="stable")
    return g[cols].reset_index(drop=True)


def slice_wide(table: pd.DataFrame) -> pd.DataFrame:
    """The slice table as the papers print it: one row per run, one column per value ("0.62 (143)")."""
    if table.empty:
        return pd.DataFrame()
    cells = table.assign(cell=[f"{fmt(a, 2)} ({n})" for a, n in zip(table["accuracy"], table["n"])])
    wide = cells.pivot(index="run", columns="value", values="cell")
    return wide[value_order(wide.columns)].fillna("undefined (0)")
