"""The history of a task's gold labels (:func:`services.adjudication.gold_history`): every decision, who made it, when,
from what (its provenance: unanimous, majority, adjudicated) and what it replaced, for one item and
for the whole task. Text from the store goes into tables, never into Markdown."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from corpus.escape import md_line
from corpus.store import Task, User
from services.adjudication import gold_history

ERROR_LABELS = {
    None: "none",
    "ambiguous": "ambiguous",
    "codebook_gap": "codebook gap",
    "coder_error": "coder error",
    "edge_case": "edge case",
}
FIRST = "(first decision)"


def history_table(history: pd.DataFrame, names: dict[str, str], with_item: bool = True) -> pd.DataFrame:
    """``Store.gold_history`` as shown, newest first: when, item, gold, from, set by, replaced, note, ..."""

    def code(c: str) -> str:
        return f"{names.get(c, c)} ({c})" if c else ""

    rows = history.iloc[::-1]
    out = pd.DataFrame(
        {
            "when (UTC)": pd.to_datetime(rows["created_at"]).dt.strftime("%Y-%m-%d %H:%M:%S").tolist(),
            "item": rows["item_id"].tolist(),
            "gold": [code(c) for c in rows["code"]],
            "from": rows["provenance"].tolist(),
            "set by": rows["decided_by"].tolist(),
            "note": rows["note"].tolist(),
            "replaced": [
                f"{code(c)}, {p}" if c else FIRST for c, p in zip(rows["replaced_code"], rows["replaced_provenance"])
            ],
            "error type": [ERROR_LABELS.get(e if isinstance(e, str) else None, e) for e in rows["error_type"]],
            "codebook flag": rows["flag_codebook"].astype(bool).tolist(),
        }
    )
    return out if with_item else out.drop(columns=["item"])


def _names(task: Task) -> dict[str, str]:
    return {c.code: c.name for c in task.codebook.codes}


def item_history(lead: User, task: Task, item_id: str) -> None:
    """Every gold decision on one item, newest first (nothing when it has none)."""
    history = gold_history(lead, task.id, item_id)
    if history.empty:
        st.caption(f"No gold for {md_line(item_id)} yet.")
        return
    st.markdown(f"**Gold history of this item** ({len(history)} decision{'s' if len(history) != 1 else ''})")
    st.dataframe(
        history_table(history, _names(task), with_item=False),
        hide_index=True,
        width="stretch",
        key=f"adj_item_history_{task.id}",
    )


def task_history(lead: User, task: Task) -> None:
    """Every gold decision of the task, newest first, in an expander."""
    history = gold_history(lead, task.id)
    changed = int((history["replaced_code"] != "").sum()) if len(history) else 0
    with st.expander(f"Gold history ({len(history)} decisions, {changed} replacing an earlier one)"):
        if history.empty:
            st.caption("No gold decision yet.")
            return
        st.dataframe(
            history_table(history, _names(task)), hide_index=True, width="stretch", key=f"adj_task_history_{task.id}"
        )
