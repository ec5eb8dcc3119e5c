"""What the coding screens need from the label store, read once and kept where it may be kept.

- :func:`order_and_items`: a coder's item order and the task's items, fixed once the task exists,
  so read once per browser session rather than on every label.
- :func:`live_labels`, :func:`live_agreement`: the live panel's labels, read incrementally (only
  rows added since the last refresh), and their agreement, recomputed only when a label was given
  since (the session keeps the last result with the labels' count and newest id).
- :func:`task_report`: the agreement report behind a task's exports, once per label state and
  number of resamples, shared by every session.
- :func:`model_coders`: the model coders of a task against gold or the human majority.
- :func:`give_label`: a coder's label, written at once (the coding keypad's event).
- :func:`feedback_counts`: after the reveal, how many of a coder's labels gold agrees with.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis import coding as ac
from analysis.live_panel import LiveAgreement, ModelCoders, lead_refresh
from analysis.live_panel import model_coders as _model_coders
from corpus.store import FeedbackCounts, Store, User


def order_and_items(store: Store, user: User, task_id: int) -> tuple[list[str], pd.DataFrame]:
    """This coder's item order and the task's items (indexed by item id)."""
    key = f"code_order_{task_id}_{user.id}"
    if key not in st.session_state:
        st.session_state[key] = (store.coder_order(task_id, user), store.items(task_id).set_index("item_id"))
    return st.session_state[key]


def _token(task_id: int, cur: pd.DataFrame) -> tuple[int, int, int]:
    """What identifies a state of a task's labels: (task, count, newest id); labels are append-only."""
    return task_id, len(cur), int(cur["id"].max()) if len(cur) else 0


def live_labels(store: Store, user: User, task_id: int) -> pd.DataFrame:
    """The task's current labels for this session, read incrementally, so a refresh costs the same
    at 50 labels and at 50,000."""
    key = f"live_labels_{task_id}"
    cur = store.refresh_labels(user, task_id, st.session_state.get(key))
    st.session_state[key] = cur
    return cur


def live_agreement(store: Store, user: User, task_id: int) -> tuple[pd.DataFrame, LiveAgreement]:
    """(current labels, their agreement), recomputed only when a label was given since the last refresh."""
    cur = live_labels(store, user, task_id)
    token = _token(task_id, cur)
    held = st.session_state.get(f"live_agreement_{task_id}")
    if held is None or held[0] != token:
        held = (token, lead_refresh(cur, store.task(task_id).n_items))
        st.session_state[f"live_agreement_{task_id}"] = held
    return cur, held[1]


@st.cache_data(show_spinner="Computing the agreement report...", max_entries=8)
def _report(store_url: str, token: tuple, n_boot: int, _labels: pd.DataFrame) -> ac.TaskAgreement:
    return ac.agreement_report(_labels, n_boot=n_boot, seed=0)


def task_report(store: Store, task_id: int, labels: pd.DataFrame, n_boot: int) -> ac.TaskAgreement:
    """The agreement report of a task's current ``labels`` (the exports' numbers)."""
    return _report(store.url, _token(task_id, labels), int(n_boot), labels)


def model_coders(store: Store, user: User, task_id: int, cur: pd.DataFrame) -> ModelCoders | None:
    """The task's model coders against gold, else the human majority (None: no model coder)."""
    if not (cur["coder_kind"] != "human").any():
        return None
    return _model_coders(cur, store.items(task_id), store.gold(user, task_id))


def give_label(store: Store, user: User, task_id: int, item_id: str, code: str, *, note: str, unsure: bool,
               seconds: float | None, request_id: str) -> int:
    """Write one label now, under the browser's request id (a repeated request writes nothing)."""
    return store.add_label(user, task_id, item_id, code, note=note, unsure=unsure, seconds=seconds,
                           request_id=request_id)


def feedback_counts(store: Store, user: User, task_id: int) -> FeedbackCounts:
    """This coder's labels, how many of their items have gold, and how many of those gold agrees with."""
    return store.feedback_counts(user, task_id)
