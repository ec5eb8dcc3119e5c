"""What the coding screens need from the label store, read once and kept where it may be kept.
Every call goes to the label store the settings name, which checks who may see and do what.

- :func:`order_and_items`: a coder's item order and the task's items, fixed once the task exists,
  so read once per browser session rather than on every label.
- :func:`my_labels`, :func:`my_history`, :func:`is_coder_of`: what the coding screen reads of the
  coder's own work (never another coder's labels).
- :func:`panel_numbers`: the live panel's headline numbers, from the agreement sums the store keeps
  with every label (a few rows whatever the task's size), and each coder's progress.
- :func:`live_panel`: the live panel's details: the labels (read incrementally: only rows added
  since the last refresh), their agreement with intervals and diagnostics, and the model coders,
  recomputed only when the task's labels version changed (one cheap query per check; the session
  keeps the last refresh, with the time it was computed).
- :func:`task_report`: the agreement report behind a task's exports, once per label state and
  number of resamples, shared by every session.
- :func:`give_label`: a coder's label, written at once (the coding keypad's event), and what became
  of it (:class:`LabelSave`): saved, refused, or not taken by the database in the time allowed
  (the store waits out contention first), which the same label sent again may mend.
- :func:`feedback_counts`, :func:`feedback`: after the reveal, how many of a coder's labels gold
  agrees with, and where it differs.
- :func:`labels_version`: the cheap "did a label come in?" check of the live views, and
  :func:`label_changes`, the same from memory on PostgreSQL (its notices), asking the database nothing.
"""

from __future__ import annotations

import time
from collections.abc import MutableMapping, Sequence
from dataclasses import dataclass, field

import pandas as pd
import streamlit as st

from analysis import agreement as ag
from analysis import coding as ac
from analysis.agreement.sums import headline
from analysis.live_panel import LiveAgreement, ModelCoders, lead_refresh
from analysis.live_panel import model_coders as _model_coders
from corpus.store import AccessDenied, FeedbackCounts, Store, StoreError, StoreUnavailable, User
from services.store import get_store


def order_and_items(user: User, task_id: int) -> tuple[list[str], pd.DataFrame]:
    """This coder's item order and the task's items (indexed by item id)."""
    key = f"code_order_{task_id}_{user.id}"
    if key not in st.session_state:
        store = get_store()
        st.session_state[key] = (store.coder_order(task_id, user), store.items(task_id).set_index("item_id"))
    return st.session_state[key]


def my_labels(user: User, task_id: int) -> pd.DataFrame:
    """This coder's current labels of the task."""
    return get_store().my_labels(user, task_id)


def my_history(user: User, task_id: int, item_id: str) -> pd.DataFrame:
    """Every label this user gave the item, oldest first (in every phase)."""
    hist = get_store().history(user, task_id, item_id)
    return hist[hist["coder"] == user.username]


def is_coder_of(user: User, task_id: int) -> bool:
    return any(c.id == user.id for c in get_store().coders(task_id))


def labels_version(task_id: int) -> tuple[int, int]:
    """(labels, newest label id) of the task: one cheap query."""
    return get_store().labels_version(task_id)


def label_changes(task_id: int) -> tuple[int, int] | None:
    """A mark that moves when a label of the task is written, from memory (PostgreSQL's notices);
    None where there is none: ask :func:`labels_version`."""
    return get_store().label_changes(task_id)


def _token(task_id: int, cur: pd.DataFrame) -> tuple[int, int, int]:
    """What identifies a state of a task's labels: (task, count, newest id); labels are append-only."""
    return task_id, len(cur), int(cur["id"].max()) if len(cur) else 0


@dataclass(frozen=True)
class PanelNumbers:
    """The live panel's headline numbers at one labels version, and each coder's current labels."""

    version: tuple[int, int]
    headline: ag.Headline | None  # None: no human label yet
    progress: dict[str, int]


def panel_numbers(
    user: User, task_id: int, *, scale: Sequence[str] | None = None, store: Store | None = None
) -> PanelNumbers:
    """The headline numbers from the task's agreement sums: O(categories^2) per coder pair, not
    O(labels), so they follow every label at any size (intervals come with :func:`live_panel`).
    ``scale``: the task's codebook codes (AC1's Q), as the caller holds the task; read from the
    store when not given."""
    store = store or get_store()
    sums, pairs, coders = store.agreement_sums(user, task_id)
    if scale is None:
        scale = store.task(task_id).codebook.code_ids
    head = headline(sums, pairs, coders, min_items=ag.PANEL_MIN_ITEMS, scale=scale)
    return PanelNumbers(tuple(sums.attrs["labels_version"]), head, dict(zip(coders["coder"], coders["n"])))


@dataclass(frozen=True)
class LivePanel:
    """One refresh of the lead's live panel: the labels, their agreement and the model coders, all
    read at one labels version (``Store.labels_version``), so every number the panel shows rests on
    the same labels."""

    version: tuple[int, int]
    labels: pd.DataFrame
    agreement: LiveAgreement
    models: ModelCoders | None
    at: float = field(default_factory=time.time)  # when it was computed (seconds since the epoch)


def live_panel(
    user: User,
    task_id: int,
    n_items: int,
    *,
    fresh: bool = False,
    state: MutableMapping | None = None,
    store: Store | None = None,
) -> LivePanel:
    """The live panel's numbers. Each call costs one cheap query (``Store.labels_version``); only
    when a label came in since the last call (or ``fresh``: the page itself ran, and gold may have
    changed) are the new labels read (incrementally) and everything recomputed. ``state`` keeps the
    last refresh (the browser session's state unless given); ``store``: the settings' unless given."""
    store = store or get_store()
    state = st.session_state if state is None else state
    key = f"live_panel_{task_id}"
    held: LivePanel | None = state.get(key)
    if held is not None and not fresh and store.labels_version(task_id) == held.version:
        return held
    cur = store.refresh_labels(user, task_id, None if held is None else held.labels)
    models = None
    if (cur["coder_kind"] != "human").any():
        models = _model_coders(cur, store.items(task_id), store.gold(user, task_id))
    scale = store.task(task_id).codebook.code_ids  # AC1's Q: the codebook's codes
    held = LivePanel(tuple(cur.attrs["labels_version"]), cur, lead_refresh(cur, n_items, scale), models)
    state[key] = held
    return held


@st.cache_data(show_spinner="Computing the agreement report...", max_entries=8)
def _report(
    store_url: str, token: tuple, n_boot: int, scale: tuple[str, ...], _labels: pd.DataFrame
) -> ac.TaskAgreement:
    return ac.agreement_report(_labels, n_boot=n_boot, seed=0, scale=scale)


def task_report(lead: User, task_id: int, n_boot: int) -> ac.TaskAgreement:
    """The agreement report of a task's current labels (the exports' numbers)."""
    store = get_store()
    labels = store.labels(lead, task_id)
    scale = tuple(store.task(task_id).codebook.code_ids)  # AC1's Q: the codebook's codes
    return _report(store.url, _token(task_id, labels), int(n_boot), scale, labels)


@dataclass(frozen=True)
class LabelSave:
    """What became of a label sent from the keypad: its id once saved; else why not (a sentence
    that begins lower case) and whether sending the same label again may save it (the database
    did not take it in time), rather than be refused again."""

    label_id: int | None
    problem: str = ""
    retry: bool = False

    @property
    def saved(self) -> bool:
        return self.label_id is not None


def give_label(
    user: User,
    task_id: int,
    item_id: str,
    code: str,
    *,
    note: str,
    unsure: bool,
    seconds: float | None,
    request_id: str,
) -> LabelSave:
    """Write one label now, under the browser's request id (a repeated request writes nothing),
    and say what became of it. The store waits out contention and a lost connection for a while;
    a label the database still did not take is not saved (``retry``: sent again under the same
    request id, it is saved once whatever became of the earlier tries)."""
    try:
        label_id = get_store().add_label(
            user, task_id, item_id, code, note=note, unsure=unsure, seconds=seconds, request_id=request_id
        )
    except StoreUnavailable as exc:
        return LabelSave(None, str(exc), retry=True)
    except (StoreError, AccessDenied) as exc:
        return LabelSave(None, str(exc))
    return LabelSave(label_id)


def feedback_counts(user: User, task_id: int) -> FeedbackCounts:
    """This coder's labels, how many of their items have gold, and how many of those gold agrees with."""
    return get_store().feedback_counts(user, task_id)


def feedback(user: User, task_id: int) -> pd.DataFrame:
    """After the reveal, if the lead shows it: the items where gold differs from this coder's label."""
    return get_store().feedback(user, task_id)
