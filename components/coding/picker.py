"""Choosing a coding task: the tasks this user works on (coders: theirs; leads and viewers: all)."""

from __future__ import annotations

import streamlit as st

from corpus.store import Task, User
from services.tasks import tasks_for


def task_picker(user: User, key: str = "code_task") -> Task | None:
    """A select box of the tasks this user works on; None (with the reason shown) if there is none."""
    tasks = tasks_for(user)
    if not tasks:
        if user.role == "coder":
            st.info("No coding task is assigned to you yet. A lead assigns coders on the Tasks page.")
        elif user.role == "lead":
            st.info("There are no coding tasks yet. Create one under 'New coding task' on the Tasks page.")
        else:
            st.info("There are no coding tasks yet. A lead creates them on the Tasks page.")
        return None
    by_id = {t.id: t for t in tasks}
    ids = list(by_id)
    if st.session_state.get(key) not in by_id:
        st.session_state[key] = ids[-1]
    chosen = st.selectbox(
        "Task",
        ids,
        key=key,
        format_func=lambda i: (
            f"{by_id[i].name} ({by_id[i].n_items} items, {by_id[i].codebook.name} v{by_id[i].codebook.version})"
        ),
    )
    return by_id.get(chosen)
