"""A task's rows as a frame packed to be pickled (:class:`PackedRows`), and the text columns the
rows' frames hold."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np
import pandas as pd

from corpus.loading.tables import TEXT_DTYPE


@dataclass
class PackedRows:
    """A task's rows packed to be pickled: the frame without its ``cells`` column, and the cells of
    every row as one array of (row, column) pairs (``counts``: how many each row has, -1 for none).
    A column of lists of small lists takes seconds to unpickle at a million cells; this, an instant."""

    rest: pd.DataFrame
    pairs: np.ndarray | None = None
    counts: np.ndarray | None = None
    at: int = -1  # the position of the cells column

    @classmethod
    def of(cls, df: pd.DataFrame) -> PackedRows:
        if "cells" not in df.columns:
            return cls(df)
        cells = df["cells"].tolist()
        counts = np.fromiter((len(c) if isinstance(c, list) else -1 for c in cells), dtype=np.int64, count=len(cells))
        pairs = _pairs_of([c for c in cells if isinstance(c, list)], int(np.maximum(counts, 0).sum()))
        return cls(df.drop(columns="cells"), pairs, counts, df.columns.get_loc("cells"))

    def frame(self) -> pd.DataFrame:
        """The rows as they were (each row's cells a list of [row, column] lists, or None)."""
        if self.pairs is None or self.counts is None:
            return self.rest
        pairs, ends = self.pairs.tolist(), np.cumsum(np.maximum(self.counts, 0)).tolist()
        cells = [pairs[end - n : end] if n >= 0 else None for n, end in zip(self.counts.tolist(), ends)]
        df = self.rest.copy(deep=False)
        df.insert(self.at, "cells", pd.Series(cells, index=df.index, dtype=object))
        return df


def _pairs_of(drawn: list[list[Any]], n: int) -> np.ndarray:
    """The ``n`` cells of lists of [row, col] cells as one (n, 2) array, in order."""
    return np.fromiter(chain.from_iterable(chain.from_iterable(drawn)), dtype=np.int64, count=2 * n).reshape(n, 2)


def _texts(values: Iterable[str]) -> Any:
    """Texts as pandas holds a column of them (its array)."""
    return pd.array(list(values), dtype=TEXT_DTYPE)


def _few_texts(values: list[str]) -> Any:
    """:func:`_texts` of a column drawn from a few texts (a type, a label): each made once."""
    distinct = {v: k for k, v in enumerate(dict.fromkeys(values))}
    return _texts(distinct).take(np.fromiter(map(distinct.__getitem__, values), dtype=np.intp, count=len(values)))
