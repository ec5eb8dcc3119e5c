"""Integer codes for text columns, and counts by pairs of codes, for counting a million rows with
``np.bincount`` instead of grouping their texts row by row; the order is the texts' sorted order,
as pandas' ``groupby`` on the texts gives it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd


def sorted_codes(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values' texts in sorted order (an object array), and each row's position among
    them (-1 for a missing value). Each distinct value is turned into text once."""
    codes, values = pd.factorize(column)
    names = np.asarray(pd.Index(values).astype(str), dtype=object)
    order = np.argsort(names, kind="stable")
    rank = np.empty(len(names) + 1, dtype=np.int64)
    rank[order] = np.arange(len(names))
    rank[-1] = -1  # where a missing value's code -1 points
    return names[order], rank[codes]


def in_session_order(actions: pd.DataFrame) -> pd.DataFrame:
    """``actions.sort_values(["session_id", "index"], kind="stable")``: the same rows in the same
    order, found on the two keys alone, and without copying a column when the rows are in that
    order already (as the dataset's action table is: sorting it would copy every text in it)."""
    _, session = sorted_codes(actions["session_id"])
    if (session < 0).any():  # (a row without a session: pandas' own sort puts it last)
        return actions.sort_values(["session_id", "index"], kind="stable")
    order = np.lexsort((actions["index"].to_numpy(), session))  # (stable, as the stable sort)
    if (order == np.arange(len(order))).all():
        return actions.copy(deep=False)
    return actions.iloc[order]


def as_text(column: pd.Series) -> pd.Series:
    """``column.astype(str)``, the same values and dtype; a categorical's texts are taken by code
    from its categories made text once (``astype(str)`` makes a Python string for every row: a
    tenth of a second per column of a million rows)."""
    if not isinstance(column.dtype, pd.CategoricalDtype) or (column.cat.codes.to_numpy() < 0).any():
        return column.astype(str)
    names = pd.Series(column.cat.categories).astype(str).array
    return pd.Series(names.take(column.cat.codes.to_numpy()), index=column.index, name=column.name)


def category_codes(column: pd.Series, categories: Sequence[str]) -> np.ndarray:
    """Each row's position among ``categories`` by its value's text (-1: missing, or none of them):
    ``pd.Categorical(column.astype(str).where(column.notna()), categories).codes``, looked up once
    per distinct value instead of once per row."""
    codes, values = pd.factorize(column)
    where = {c: i for i, c in enumerate(categories)}
    table = np.array([where.get(str(v), -1) for v in values] + [-1], dtype=np.int64)
    return table[codes]  # a missing value's code -1 reads the last entry, -1


def tally(
    outer: np.ndarray, n_outer: int, inner: np.ndarray, n_inner: int, y: np.ndarray, keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """k (the sum of ``y``) and n (the count) over the rows where ``keep``, per pair of codes: two
    ``n_outer x n_inner`` arrays. ``y`` holds whole numbers where ``keep`` (0/1 floats or integers):
    its sums are exact in any order, and k is of integers when ``y`` is."""
    cell = outer[keep] * n_inner + inner[keep]
    size = n_outer * n_inner
    y = np.asarray(y)
    n = np.bincount(cell, minlength=size).reshape(n_outer, n_inner)
    k = np.bincount(cell, weights=y[keep].astype(float), minlength=size).reshape(n_outer, n_inner)
    return (k.astype(np.int64) if np.issubdtype(y.dtype, np.integer) else k), n
