"""Download buttons for tables: every CSV a page offers is written by :func:`corpus.csvsafe.to_csv`
(a spreadsheet opens it as data, never as formulas)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import streamlit as st

from corpus.csvsafe import to_csv

Table = pd.DataFrame | Callable[[], pd.DataFrame]
Csv = Table | bytes  # bytes: a CSV already written by :func:`csv_bytes`


def csv_bytes(table: Table, header: str = "") -> bytes:
    """The table (or what the function returns) as spreadsheet-safe CSV, after a ``# header`` line
    when one is given (what the rows were filtered by; ``read_csv(..., comment="#")`` skips it)."""
    text = to_csv(table() if callable(table) else table)
    if header:
        text = f"# {' '.join(header.split())}\n{text}"
    return text.encode("utf-8")


def csv_button(
    label: str, table: Csv, file_name: str, key: str | None = None, where: Any = st, header: str = "", **options
) -> None:
    """A download button for ``table`` as CSV; a function is called only when the button is clicked,
    and bytes (:func:`csv_bytes`'s, written earlier) are offered as they are."""
    if isinstance(table, bytes):
        data: bytes | Callable[[], bytes] = table
    else:
        data = (lambda: csv_bytes(table, header)) if callable(table) else csv_bytes(table, header)
    options.setdefault("icon", ":material/table:")
    where.download_button(label, data=data, file_name=file_name, mime="text/csv", key=key, on_click="ignore", **options)
