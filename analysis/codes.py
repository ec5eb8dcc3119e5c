"""Integer codes for text columns, for counting a million rows with ``np.bincount`` instead of
grouping their texts row by row; the order is the texts' sorted order, as pandas' ``groupby`` on
the texts gives it."""

from __future__ import annotations

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
