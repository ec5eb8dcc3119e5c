"""What every model of the data shares: its configuration and the grid cell.

A field the format does not name is an error (``extra="forbid"``), and no number may be NaN or
infinite. Files are validated in strict mode by :func:`corpus.loading.reading.parse`.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

Cell = tuple[int, int]  # [row, col]: rows count down from 0 at the top, columns right from 0


class StrictModel(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, allow_inf_nan=False)
