"""Export layouts of a task's labels, and CSV that a spreadsheet opens as data.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab or a
carriage return) as a formula: a note or coder name such as ``=HYPERLINK(...)`` would become a
live link. Every text cell and column name of an exported CSV that starts with one of these is
written with a leading apostrophe (``'=HYPERLINK(...)``), as OWASP advises against CSV
injection; a cell that is just a number (``-0.25``, ``+3``, ``1e-5``) is left as it is.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pandas as pd

from corpus.store.base import StoreBase, User

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """A text that a spreadsheet would run as a formula, prefixed with ``'``; anything else as it is."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with every text cell and column name made safe (see :func:`safe_cell`)."""
    out = frame.rename(columns=lambda c: safe_cell(str(c)) if isinstance(c, str) else c)
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(safe_cell)
    return out


def to_csv(frame: pd.DataFrame) -> str:
    """The frame as spreadsheet-safe CSV text (no index)."""
    return spreadsheet_safe(frame).to_csv(index=False)


def safe_csv_text(text: str) -> str:
    """CSV text written elsewhere, with every cell made safe (see :func:`safe_cell`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in csv.reader(io.StringIO(text, newline="")):
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()


def long_table(current: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """One row per current label, with the item's session, action and partition."""
    out = current.merge(items[["item_id", "session_id", "action_index", "partition"]], on="item_id", how="left")
    return out[["item_id", "session_id", "action_index", "partition", "coder", "code", "note", "unsure",
                "seconds", "codebook_version", "source", "created_at"]]


def wide_table(current: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Items x coders, one code per cell (blank where not coded): the layout R's irr expects."""
    wide = current.pivot(index="item_id", columns="coder", values="code")
    return wide.reindex(items["item_id"]).reset_index()


class Exports(StoreBase):
    long_table = staticmethod(long_table)
    wide_table = staticmethod(wide_table)

    def export_long(self, actor: User, task_id: int) -> pd.DataFrame:
        return long_table(self.labels(actor, task_id), self.items(task_id))

    def export_wide(self, actor: User, task_id: int) -> pd.DataFrame:
        return wide_table(self.labels(actor, task_id), self.items(task_id))
