"""What a coder sees after the reveal: how many of their labels gold agrees with, counted over the
items that have gold, and the items where gold differs, with the lead's note."""

from __future__ import annotations

import streamlit as st

from corpus.escape import md_line
from corpus.store import AccessDenied, FeedbackCounts, Task, User
from services.coding import feedback, feedback_counts


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def agreement_sentence(counts: FeedbackCounts) -> str:
    """E.g. "Gold agrees with your label on 2 of 3 items that have gold; 2 items you coded have no
    gold label." (items without gold are not counted as agreeing)."""
    if counts.with_gold == 0:
        text = "None of the items you coded has a gold label yet"
    else:
        text = (
            f"Gold agrees with your label on {counts.agree} of {_plural(counts.with_gold, 'item')} "
            f"that {'has' if counts.with_gold == 1 else 'have'} gold"
        )
    if counts.without_gold and counts.with_gold:
        text += (
            f"; {_plural(counts.without_gold, 'item')} you coded "
            f"{'has' if counts.without_gold == 1 else 'have'} no gold label"
        )
    return text + "."


def feedback_view(user: User, task: Task) -> None:
    """After the reveal: the count against gold and the items where gold differs from this coder's label."""
    if task.phase != "revealed":
        return
    st.subheader("Feedback")
    try:
        counts = feedback_counts(user, task.id)
        fb = feedback(user, task.id)
    except AccessDenied as exc:
        st.info(md_line(exc))  # it names the task
        return
    if counts.coded == 0:
        st.info("You gave no labels in this task.")
        return
    st.write(agreement_sentence(counts))
    if fb.empty:
        if counts.with_gold:
            st.success("Gold agrees with every label you gave on an item that has gold.")
        return
    names = {c.code: c.name for c in task.codebook.codes}
    view = fb.assign(
        my_code=fb["my_code"].map(lambda c: names.get(c, c)), gold_code=fb["gold_code"].map(lambda c: names.get(c, c))
    )
    st.dataframe(
        view[["item_id", "my_code", "gold_code", "lead_note", "error_type", "my_note"]],
        hide_index=True,
        width="stretch",
        column_config={"my_code": "My label", "gold_code": "Gold", "lead_note": "Lead's note", "my_note": "My note"},
    )
