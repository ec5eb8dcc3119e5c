"""The coding screen of one task: progress, moving between items, the item and the keypad.

A coder works through the task's items in their own order (``Store.coder_order``: shuffled per
coder, the same on every visit) and starts at the first item they have not coded. The screen reads
only this coder's own labels (:func:`services.coding.my_labels` and their own history): other
coders' labels are never fetched here, so they cannot leak into the page. Session-state keys start with ``code_``.
"""

from __future__ import annotations

import time

import streamlit as st

from components.coding.item import item_view
from components.coding.keypad import k, keypad, keypad_data
from corpus.escape import md_text
from corpus.kitchen.dataset import KitchenCorpus
from corpus.loading.dataset import Corpus
from corpus.store import Task, User
from services import datasets
from services.coding import is_coder_of, my_history, my_labels, order_and_items
from services.tasks import task as read_task

PHASE_TEXT = {
    "coding": "Coding: labels are blind.",
    "adjudication": "Adjudication: the lead is deciding the gold labels.",
    "revealed": "Revealed: the task is closed; see where the gold label differs from yours.",
}


def on_task_dataset(task: Task, corpus: Corpus | KitchenCorpus) -> bool:
    """Whether the task's own dataset is the one shown. A task is coded and adjudicated on its own
    dataset: when the sidebar shows another one, the task's is opened (no one labels an item they
    were not shown); when this server does not offer it, the page says so (False)."""
    if task.dataset_hash in (None, corpus.content_hash):
        return True
    own = datasets.offered_with_hash(task.dataset_hash)
    if own is not None:
        datasets.open_dataset(own.path)
        st.rerun()
    st.error(
        f"This task was made on the dataset '{md_text(task.dataset)}', which this server does not offer "
        f"(the sidebar shows '{md_text(corpus.info.name)}', other data). Its items cannot be shown, so "
        "nothing can be labelled here; a lead can upload that dataset.",
        icon=":material/block:",
    )
    return False


def coding_screen(user: User, task: Task, corpus: Corpus | KitchenCorpus) -> None:
    """The whole coding screen for one task, on the task's own dataset (reruns on its own when a
    code is given)."""
    if on_task_dataset(task, corpus):
        _screen(user, task.id, corpus)


def _move(task: Task, pos: int) -> None:
    s = st.session_state
    s[k(task.id, "pos")] = pos
    # The message goes, but not the answer to the keypad's last label: a move can come before that
    # answer reached the keypad, which holds its keys for the next item until it does.
    status = s.pop(k(task.id, "status"), None)
    if status and status.get("ack"):
        s[k(task.id, "status")] = {"kind": "", "text": "", "ack": status["ack"], "saved": status["saved"]}


def next_uncoded(order: list[str], done: set[str], pos: int) -> int | None:
    """The position of the next item after ``pos`` (wrapping round) not coded yet, or None."""
    n = len(order)
    for step in range(1, n + 1):
        j = (pos + step) % n
        if order[j] not in done:
            return j
    return None


def why_not(user: User, task: Task, assigned: bool) -> str:
    """Why this user cannot label in this task ("" if they can)."""
    if user.role == "viewer":
        return "You are signed in as a viewer: you can look at the coding screen, but nothing you do is saved."
    if task.phase == "revealed":
        return "This task is closed: the gold labels have been revealed."
    if task.phase == "adjudication":
        return "This task is being adjudicated: labels are frozen."
    if not assigned:
        return "You are not a coder of this task: the codes are disabled."
    return ""


def _navigation(task: Task, order: list[str], done: set[str], pos: int) -> None:
    n_done = len(done)
    st.progress(
        n_done / max(len(order), 1),
        text=f"{n_done} of {len(order)} items coded · {PHASE_TEXT.get(task.phase, md_text(task.phase))}",
    )
    # One row, each button as wide as its label: nothing of a label is cut at 1280 or 1440 wide.
    nav = st.container(horizontal=True, vertical_alignment="center", key=f"code_nav_{task.id}")
    nav.button(
        "Back",
        key=k(task.id, "back"),
        on_click=_move,
        args=(task, pos - 1),
        disabled=pos == 0,
        icon=":material/arrow_back:",
        shortcut="Left",
    )
    nav.button(
        "Next",
        key=k(task.id, "next"),
        on_click=_move,
        args=(task, pos + 1),
        disabled=pos >= len(order) - 1,
        icon=":material/arrow_forward:",
        shortcut="Right",
    )
    nxt = next_uncoded(order, done, pos)
    nav.button(
        "Next uncoded",
        key=k(task.id, "uncoded"),
        on_click=_move,
        args=(task, nxt if nxt is not None else pos),
        disabled=nxt is None,
        icon=":material/skip_next:",
    )
    nav.toggle("Auto-advance", value=True, key="code_autoadvance", help="After a label, go on to the next item")
    nav.markdown(f"Item **{pos + 1}** of {len(order)} · {md_text(order[pos])}")


@st.fragment
def _screen(user: User, task_id: int, corpus: Corpus | KitchenCorpus) -> None:
    task = read_task(task_id)
    order, items = order_and_items(user, task_id)
    mine = my_labels(user, task.id)
    done = set(mine["item_id"])
    current = mine.set_index("item_id") if not mine.empty else mine
    assigned = is_coder_of(user, task.id)
    reason = why_not(user, task, assigned)

    s = st.session_state
    pos_key = k(task.id, "pos")
    if pos_key not in s:  # resume at the first item this coder has not coded
        first = next((i for i, it in enumerate(order) if it not in done), None)
        s[pos_key] = first if first is not None else 0
    pos = max(0, min(int(s[pos_key]), len(order) - 1))
    item = order[pos]
    if s.get(k(task.id, "shown"), (None,))[0] != item:
        s[k(task.id, "shown")] = (item, time.time())

    notice = st.container()  # always there, so the keypad keeps its place (and its state) in the page
    if reason:
        notice.info(reason, icon=":material/lock:" if user.role != "viewer" else ":material/visibility:")
    _navigation(task, order, done, pos)

    left, right = st.columns([3, 2], gap="large")
    with left:
        row = items.loc[item]
        item_view(
            corpus, task, str(row["session_id"]), int(row["action_index"]), key=k(task.id, "item"), adjustable=True
        )
    with right:
        data = keypad_data(
            task,
            item,
            current.loc[item] if item in done else None,
            enabled=not reason,
            disabled_reason=reason,
            status=s.get(k(task.id, "status")),
            focus=s.get(k(task.id, "focus")),
        )
        keypad(user, task, order, data)
        if item in done:
            hist = my_history(user, task.id, item)
            with st.expander(f"My history for this item ({len(hist)} label{'s' if len(hist) != 1 else ''})"):
                st.dataframe(
                    hist[["created_at", "code", "note", "unsure", "seconds", "codebook_version"]],
                    hide_index=True,
                    width="stretch",
                )
