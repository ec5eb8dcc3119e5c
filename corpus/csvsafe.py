"""CSV that a spreadsheet opens as data: the one writer of every CSV the app, its downloads and its
command lines give out.

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` (and, in some, a tab or a
carriage return) as a formula: a note or coder name such as ``=HYPERLINK(...)`` would become a
live link. Every text cell and column name of an exported CSV that starts with one of these is
written with a leading apostrophe (``'=HYPERLINK(...)``), as OWASP advises against CSV
injection; a cell that is just a number (``-0.25``, ``+3``, ``1e-5``) is left as it is.

A dataset's own files (``labels.csv`` in the dataset format) are data that Groundwork reads back,
and are written as they are (:mod:`corpus.loading.write`); everything offered for download or printed by a
command line as CSV goes through :func:`to_csv` (or :func:`safe_csv_text` for CSV text made
elsewhere). ``tests/test_csv_exports.py`` checks that nothing else calls ``to_csv``.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pandas as pd

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


def to_csv(frame: pd.DataFrame, index: bool = False) -> str:
    """The frame as spreadsheet-safe CSV text (no index unless asked for)."""
    out = spreadsheet_safe(frame.reset_index() if index else frame)
    return out.to_csv(index=False)


def safe_csv_text(text: str) -> str:
    """CSV text written elsewhere, with every cell made safe (see :func:`safe_cell`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in csv.reader(io.StringIO(text, newline="")):
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()
