"""Beside the player: the landmark reference expressions said in the current action and their GMMT
annotation (``labels/gmmt_expressions.jsonl``): the expression, the landmark each participant had
in mind, the understanding state with its subtype, and the annotator's reason. Text only; every
value from the data goes through :func:`corpus.escape.md_text`.

The player reports its position when playback stops (:mod:`components.replay.player`), so the
panel shows the action the player stopped at. Sessions without expressions show nothing.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from corpus import schema
from corpus.escape import md_text
from corpus.loading.dataset import Corpus

ROLE_NAMES = {"guide": "Guide (giver)", "follower": "Follower"}


def session_expressions(corpus: Corpus, session_id: str) -> pd.DataFrame:
    """The expressions said in one session, in action order (empty for most datasets)."""
    ex = corpus.expressions
    return ex[ex["session_id"] == session_id].reset_index(drop=True)


def _landmark(name: str) -> str:
    return md_text(name) if name else "none (not grounded)"


def _expression_line(row: pd.Series) -> str:
    subtype = f" ({md_text(row['subtype'])})" if row["subtype"] and row["subtype"] != row["status"] else ""
    reason = f"  \n  Reason: {md_text(row['reason'])}" if row["reason"] else ""
    return (
        f"- \u201c{md_text(row['expression'])}\u201d: **{md_text(row['status'])}**{subtype} · "
        f"Giver's landmark {_landmark(row['giver_landmark'])} · Follower's landmark {_landmark(row['follower_landmark'])}"
        f"{reason}"
    )


def expression_text(expressions: pd.DataFrame, step: int) -> str | None:
    """The panel's Markdown for the action at ``step`` (None when the session has no expressions)."""
    if expressions.empty:
        return None
    here = expressions[expressions["action_index"] == step]
    if here.empty:
        later = expressions.loc[expressions["action_index"] > step, "action_index"]
        earlier = expressions.loc[expressions["action_index"] < step, "action_index"]
        near = []
        if len(later):
            near.append(f"the next in action {int(later.min())}")
        if len(earlier):
            near.append(f"the last before in action {int(earlier.max())}")
        where = "; ".join(near)
        return f"**Landmark reference expressions (GMMT)**: none in action {step}" + (f" ({where})." if where else ".")
    parts = []
    for coder, rows in here.groupby("coder", sort=True):
        worst = min(rows["status"], key=schema.GMMT_SEVERITY.index)
        speaker = ROLE_NAMES.get(str(rows["speaker"].iloc[0]), md_text(rows["speaker"].iloc[0]))
        n = len(rows)
        head = (
            f"**Landmark reference expressions in action {step}** (GMMT, coder {md_text(coder)}; said by the "
            f"{speaker}): {n} expression{'s' if n != 1 else ''}, the action's state **{md_text(worst)}**"
            + (" (the most severe)" if n > 1 else "")
        )
        parts.append(head + "\n\n" + "\n".join(_expression_line(r) for _, r in rows.iterrows()))
    return "\n\n".join(parts)


def expression_panel(expressions: pd.DataFrame, step: int) -> None:
    """The expressions of the action at ``step``, in a bordered box (nothing when the session has
    none)."""
    text = expression_text(expressions, step)
    if text is None:
        return
    with st.container(border=True, key="replay_expressions"):
        st.markdown(text)
