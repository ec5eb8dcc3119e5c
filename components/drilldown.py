"""The actions behind a clicked bar or point: a table whose first column opens each moment in Replay.

The table is an ``st.dataframe``: every cell is shown as text, whatever the dataset holds. The
Replay links (``replay?session=...&step=...``) open in a new tab, so the analysis stays where it
was; a fresh Replay tab starts at the linked step.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.drilldown import MAX_ROWS
from corpus.escape import md_line


def show_actions(rows: pd.DataFrame, title: str, key: str) -> None:
    """``rows`` from :func:`analysis.drilldown.actions_behind` under a heading saying what was clicked."""
    with st.container(border=True, key=f"{key}_box"):
        st.markdown(f"**Actions behind: {md_line(title)}** ({len(rows)}{'+' if len(rows) >= MAX_ROWS else ''} actions)")
        if rows.empty:
            st.caption("No action is behind this point.")
            return
        st.dataframe(
            rows,
            hide_index=True,
            width="stretch",
            key=f"{key}_table",
            height=min(36 * (len(rows) + 1) + 4, 360),
            column_config={
                "replay": st.column_config.LinkColumn(
                    "Replay", display_text="open", width="small", help="Open this moment in Replay (new tab)"
                ),
                "session_id": st.column_config.TextColumn("session"),
                "action": st.column_config.TextColumn("action", width="large"),
            },
        )
        if len(rows) >= MAX_ROWS:
            st.caption(f"The first {MAX_ROWS} actions in session order are listed.")
        st.caption("Click a bar or point again, or elsewhere on the chart, to clear the selection.")


def first_point(points: list[dict]) -> list | None:
    """The ``customdata`` of the first clicked point, or None."""
    return list(points[0]["customdata"]) if points else None
