"""The label table: one label per (item, coder), built once from a long DataFrame.

Every statistic of :mod:`analysis.agreement` takes a :class:`LabelTable`. It is built from a
DataFrame with one row per label and the names of its item, coder and label columns; the item may
be several columns (``["session_id", "action_index"]`` or ``"session_id,action_index"``), joined
into one key ``SESSION:INDEX``.

Two views of the same labels are kept:

- ``codes``: items x coders, the category code each coder gave (-1: not coded). Coders are few,
  so this is small; pairwise statistics read it.
- the *cells*: one entry per (item, category) that received a label, with how many coders gave
  it (``cell_item``, ``cell_category``, ``cell_count``, sorted by item). This is the items x
  categories count table without its zeros: with thousands of categories it stays the size of
  the labels, where a dense table would not fit in memory.

An empty label cell is a missing label (counted in ``n_missing``); any other text, including
"None", "NA" or "null", is a label. :func:`read_labels_csv` reads a label file that way.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd


class LabelTableError(ValueError):
    """The label table cannot be used: names the column at fault."""

    def __init__(self, message: str, column: str | None = None):
        super().__init__(message)
        self.column = column


class MatrixTooLarge(LabelTableError):
    """A category x category table was asked for with more categories than it may hold."""


MAX_MATRIX_CATEGORIES = 200  # categories up to which a category x category table is built


def check_matrix_size(n_categories: int, limit: int = MAX_MATRIX_CATEGORIES, what: str = "the matrix") -> None:
    """Refuse a dense category x category array above ``limit`` categories, saying so."""
    if n_categories > limit:
        raise MatrixTooLarge(
            f"{what} would have {n_categories:,} x {n_categories:,} cells; it is built for at most {limit:,} categories"
        )


def item_columns(item: str | Sequence[str]) -> list[str]:
    """``"a,b"`` or ``["a", "b"]`` -> ``["a", "b"]``."""
    if isinstance(item, str):
        return [c.strip() for c in item.split(",") if c.strip()]
    return list(item)


def item_keys(df: pd.DataFrame, item: str | Sequence[str] = "item") -> pd.Series:
    """One key per row; several item columns are joined with ``:`` (``SESSION:INDEX``)."""
    cols = item_columns(item)
    if len(cols) == 1:
        return df[cols[0]]
    key = df[cols[0]].astype(str)
    for c in cols[1:]:
        key = key + ":" + df[c].astype(str)
    return key


def read_labels_csv(source: str | Path | IO[str]) -> pd.DataFrame:
    """A label CSV with no implicit missing values: only an empty cell is missing.

    pandas would read the labels ``None``, ``NA``, ``NaN``, ``nan``, ``null`` and ``N/A`` as
    missing by default; here they stay labels. Header names are stripped of blanks.
    """
    df = pd.read_csv(source, skipinitialspace=True, keep_default_na=False, na_values=[""])
    df.columns = [str(c).strip() for c in df.columns]
    return df


def _factorize_items(df: pd.DataFrame, cols: list[str]) -> tuple[np.ndarray, pd.Index]:
    """Item positions per row (in order of first appearance; -1 where an item column is empty)
    and the item keys; several columns are factorized each, and only the distinct items' keys are
    joined into ``SESSION:INDEX`` text."""
    if len(cols) == 1:
        idx, items = pd.factorize(df[cols[0]], sort=False)
        return idx, pd.Index(items)
    parts = [pd.factorize(df[c], sort=False) for c in cols]
    empty = np.zeros(len(df), dtype=bool)
    for codes, _ in parts:
        empty |= codes < 0
    if np.prod([float(max(len(u), 1)) for _, u in parts]) >= 2**62:  # the codes would not fit one integer
        idx, items = pd.factorize(item_keys(df, cols), sort=False)
    else:
        combined = np.zeros(len(df), dtype=np.int64)
        for codes, uniques in parts:
            combined = combined * max(len(uniques), 1) + codes
        idx, _ = pd.factorize(combined, sort=False)
        items = item_keys(df.iloc[np.unique(idx, return_index=True)[1]], cols).to_numpy()
    return np.where(empty, -1, idx), pd.Index(items)


def _sorted_index(values: pd.Index) -> tuple[np.ndarray, pd.Index]:
    """The positions that sort ``values`` (by their text when they do not compare)."""
    try:
        order = np.argsort(values.to_numpy(), kind="stable")
    except TypeError:
        order = np.argsort(values.astype(str).to_numpy(), kind="stable")
    return order, values[order]


def _factorize_sorted(values: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """Codes (-1 for an empty value) into the sorted distinct values."""
    codes, uniques = pd.factorize(values, sort=False)
    order, sorted_values = _sorted_index(pd.Index(uniques))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return np.where(codes >= 0, rank[np.maximum(codes, 0)], -1), sorted_values


def _blank(values: pd.Index) -> np.ndarray:
    return np.array([isinstance(v, str) and not v.strip() for v in values], dtype=bool)


def is_missing(labels: pd.Series) -> np.ndarray:
    """Which labels are missing: empty cells (NaN, None, or blank text)."""
    codes, uniques = pd.factorize(labels, sort=False)
    return (codes < 0) | _blank(pd.Index(uniques))[np.maximum(codes, 0)]


def _label_codes(labels: pd.Series, categories: Sequence[Any] | None, column: str) -> tuple[np.ndarray, pd.Index]:
    """Category codes of the labels (-1: missing) and the categories: the given ones in their
    order (a label outside them is an error), else the labels used, sorted."""
    codes, uniques = pd.factorize(labels, sort=False)
    uniques = pd.Index(uniques)
    blank = _blank(uniques)
    if categories is None:
        order, cats = _sorted_index(uniques[~blank])
        pos = np.full(len(uniques), -1, dtype=np.int64)
        pos[np.flatnonzero(~blank)[order]] = np.arange(len(order))
    else:
        cats = pd.Index(list(categories))
        if cats.has_duplicates:
            raise LabelTableError("the category list names a category twice", column)
        pos = np.where(blank, -1, cats.get_indexer(uniques))
        unknown = (pos < 0) & ~blank
        if unknown.any():
            raise LabelTableError(
                f"label {uniques[np.flatnonzero(unknown)[0]]!r} in column {column!r} is not one of the "
                f"categories ({', '.join(map(str, cats))})",
                column,
            )
    return np.where(codes >= 0, pos[np.maximum(codes, 0)], -1), cats


def _compress(idx: np.ndarray, sort: bool) -> tuple[np.ndarray, np.ndarray]:
    """Renumber codes 0.. over the values that occur (in order of first appearance, or sorted)."""
    new, used = pd.factorize(idx, sort=sort)
    return new, used


DENSE_CELLS = 4_000_000  # items x categories cells up to which the count table is held dense
_KEPT_BY_SUBSET = ("item_cols", "coder_col", "label_col", "frame", "categories_given", "n_missing", "n_duplicates")
# (a subset does not keep ``row_item``: its item positions differ from the frame's table)


class LabelTable:
    """Items x coders labels, built once from a long table (see the module docstring).

    ``items`` are in the order they first appear in the frame (the coding order); ``coders`` and
    ``categories`` are sorted unless ``categories`` is given (it fixes the category set and its
    order, which ordinal data needs; a label outside it is an error). A coder labelling the same
    item twice keeps the last label (counted in ``n_duplicates``).
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        item: str | Sequence[str] = "item",
        coder: str = "coder",
        label: str = "label",
        categories: Sequence[Any] | None = None,
    ):
        self.item_cols = item_columns(item)
        self.coder_col, self.label_col = coder, label
        self.frame, self.categories_given = frame, categories is not None
        for col in (*self.item_cols, coder, label):
            if col not in frame.columns:
                raise LabelTableError(f"missing column {col!r} (columns: {', '.join(map(str, frame.columns))})", col)
        item_idx, items = _factorize_items(frame, self.item_cols)
        coder_idx, coders = _factorize_sorted(frame[coder])
        for cols, idx in ((self.item_cols, item_idx), ([coder], coder_idx)):
            if (idx < 0).any():
                row = int(np.flatnonzero(idx < 0)[0])
                col = next(col for col in cols if pd.isna(frame[col].iloc[row]))
                raise LabelTableError(f"empty value in column {col!r} (row {row + 1})", col)
        cat_idx, cats = _label_codes(frame[label], categories, label)
        kept = cat_idx >= 0
        self.n_missing = int((~kept).sum())
        row_item = np.full(len(frame), -1, dtype=np.int64)
        if self.n_missing:  # items and coders with only empty labels are not in the table
            item_idx, coder_idx, cat_idx = item_idx[kept], coder_idx[kept], cat_idx[kept]
            item_idx, used_items = _compress(item_idx, sort=False)
            coder_idx, used_coders = _compress(coder_idx, sort=True)
            items, coders = items[used_items], coders[used_coders]
        row_item[kept] = item_idx
        self.row_item = row_item  # the table's item position of each row of the frame (-1: empty label)
        n, c = len(items), len(coders)
        flat = item_idx.astype(np.int64) * c + coder_idx
        self.n_duplicates = 0
        if len(flat) and np.bincount(flat, minlength=n * c).max() > 1:
            _, first_from_end = np.unique(flat[::-1], return_index=True)
            last = len(flat) - 1 - first_from_end
            self.n_duplicates = int(len(flat) - len(last))
            item_idx, coder_idx, cat_idx = item_idx[last], coder_idx[last], cat_idx[last]
        codes = np.full((n, c), -1, dtype=np.int64)
        codes[item_idx, coder_idx] = cat_idx
        self.items, self.coders, self.categories, self.codes = items, coders, cats, codes

    # -- sizes ---------------------------------------------------------------------------------

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_coders(self) -> int:
        return len(self.coders)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @cached_property
    def n_per_item(self) -> np.ndarray:
        """How many coders labelled each item."""
        return (self.codes >= 0).sum(axis=1)

    @property
    def n_labels(self) -> int:
        return int(self.n_per_item.sum())

    @cached_property
    def complete(self) -> np.ndarray:
        """Items labelled by every coder."""
        return self.n_per_item == self.n_coders

    @property
    def n_complete(self) -> int:
        return int(self.complete.sum())

    # -- the cells: the items x categories count table without its zeros -----------------------

    @cached_property
    def _cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        k = max(self.n_categories, 1)
        flat = self.codes.ravel()
        coded = flat >= 0
        rows = np.repeat(np.arange(self.n_items, dtype=np.int64), self.n_coders)[coded]
        if self.n_items * k <= DENSE_CELLS:  # count every (item, category) cell, keep the non-zero
            all_counts = np.bincount(rows * k + flat[coded], minlength=self.n_items * k)
            keys = np.flatnonzero(all_counts)
            counts = all_counts[keys]
        else:
            keys, counts = np.unique(rows * k + flat[coded], return_counts=True)
        return keys // k, keys % k, counts.astype(np.int64)

    @property
    def cell_item(self) -> np.ndarray:
        return self._cells[0]

    @property
    def cell_category(self) -> np.ndarray:
        return self._cells[1]

    @property
    def cell_count(self) -> np.ndarray:
        return self._cells[2]

    def per_item(self, values: np.ndarray) -> np.ndarray:
        """Sum a value given per cell over each item's cells (length ``n_items``)."""
        return np.bincount(self.cell_item, weights=values, minlength=self.n_items)

    def per_category(self, values: np.ndarray, cells: np.ndarray | None = None) -> np.ndarray:
        """Sum a value given per cell over each category's cells (length ``n_categories``),
        optionally over a boolean selection of the cells."""
        cat = self.cell_category if cells is None else self.cell_category[cells]
        vals = values if cells is None else values[cells]
        return np.bincount(cat, weights=vals, minlength=self.n_categories)

    def count_table(self, items: np.ndarray | None = None):
        """The items x categories count table of some items (a boolean mask; default all).

        A dense array when it has at most :data:`DENSE_CELLS` cells (fast matrix products), else a
        ``scipy.sparse`` array; either way ``weights @ table`` and ``table @ matrix`` work.
        """
        rows, cats, cnt = self.cell_item, self.cell_category, self.cell_count.astype(float)
        n = self.n_items
        if items is not None:
            keep = items[rows]
            rows, cats, cnt, n = (np.cumsum(items) - 1)[rows[keep]], cats[keep], cnt[keep], int(items.sum())
        if n * self.n_categories <= DENSE_CELLS:
            out = np.zeros((n, self.n_categories))
            out[rows, cats] = cnt
            return out
        from scipy import sparse

        return sparse.csr_array((cnt, (rows, cats)), shape=(n, self.n_categories))

    # -- restrictions --------------------------------------------------------------------------

    def subset(self, items: np.ndarray | None = None, coders: Sequence[str] | None = None) -> LabelTable:
        """The same table restricted to some items (boolean mask or positions) and/or coders.

        A subset keeps the frame it was built from only for :meth:`where`; it does not filter it.
        """
        codes, item_index, coder_index = self.codes, self.items, self.coders
        if items is not None:
            codes, item_index = codes[items], item_index[items]
        if coders is not None:
            pos = self.coders.get_indexer(list(coders))
            if (pos < 0).any():
                missing = [c for c, p in zip(coders, pos) if p < 0]
                raise KeyError(f"no coder {missing[0]!r} in the labels")
            codes, coder_index = codes[:, pos], self.coders[pos]
        out = object.__new__(LabelTable)  # the same columns and frame; derived arrays recomputed
        out.__dict__.update({k: getattr(self, k) for k in _KEPT_BY_SUBSET})
        out.items, out.coders, out.categories, out.codes = item_index, coder_index, self.categories, codes
        return out

    def where(self, rows: np.ndarray | pd.Series) -> LabelTable:
        """The table rebuilt from the rows of its frame selected by a boolean mask, with the same
        categories (e.g. one partition, or one codebook version)."""
        return LabelTable(
            self.frame[np.asarray(rows, dtype=bool)], self.item_cols, self.coder_col, self.label_col, self.categories
        )

    def column(self, name: str) -> pd.Series:
        """A column of the frame, with a clear error when it is not there."""
        if name not in self.frame.columns:
            raise LabelTableError(f"missing column {name!r}", name)
        return self.frame[name]

    def latest(self, column: str) -> pd.Series:
        """The largest value of a frame column per item (e.g. when its last label came in),
        indexed by item position."""
        values = self.column(column)
        row_item = getattr(self, "row_item", None)
        if row_item is None:  # a subset: group by the item keys
            per_key = values.groupby(self.keys().to_numpy()).max()
            pos = self.items.get_indexer(per_key.index)
            return pd.Series(per_key.to_numpy()[pos >= 0], index=pos[pos >= 0])
        kept = row_item >= 0
        return pd.Series(values.to_numpy()[kept]).groupby(row_item[kept]).max()

    def keys(self) -> pd.Series:
        """The item key of each row of the frame."""
        return item_keys(self.frame, self.item_cols)

    def values(self, level: str) -> np.ndarray:
        """The value of each category for Krippendorff's alpha at ``level``: numbers for interval
        and ratio, the category's place in the order otherwise."""
        if level not in ("interval", "ratio"):
            return np.arange(self.n_categories, dtype=float)
        try:
            return pd.to_numeric(pd.Series(self.categories)).to_numpy(dtype=float)
        except (ValueError, TypeError):
            raise LabelTableError(
                f"{level} level needs numeric labels; these are not: " + ", ".join(map(str, self.categories[:5])),
                self.label_col,
            ) from None

    def category_names(self) -> list[str]:
        return [str(c) for c in self.categories]
