"""Coding tasks, as the Tasks page offers them to a lead (and the task pickers to everyone): every
call goes to the label store the settings name, which checks who may do what.

- Which tasks: :func:`tasks_for`, :func:`task`, :func:`coders`.
- A new task: :func:`create_task` (its items sampled by :mod:`analysis.coding`).
- One task: :func:`assign`, :func:`set_sharing`, :func:`set_coder_view`, :func:`share_snapshot`,
  :func:`latest_snapshot`, :func:`revise_codebook`, :func:`import_labels`.
- Exports: :func:`labels_long`, :func:`labels_wide`, :func:`gold`, read when a download asks.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import streamlit as st

from analysis import coding as ac
from analysis.live_panel import human_panel
from corpus.codebook import Codebook
from corpus.kitchen.dataset import KitchenCorpus
from corpus.loading.dataset import Corpus
from corpus.schema import GROUNDING_ACTS_SCHEME
from corpus.store import LabelImport, Snapshot, Store, Task, User
from services.store import get_store


def tasks_for(user: User) -> list[Task]:
    """The tasks this user works on (coders: theirs; leads and viewers: all)."""
    return get_store().tasks_for(user)


def task(task_id: int) -> Task:
    return get_store().task(task_id)


def coders(task_id: int) -> list[User]:
    return get_store().coders(task_id)


def create_task(
    lead: User,
    name: str,
    corpus: Corpus | KitchenCorpus,
    codebook: Codebook,
    items: list[dict[str, Any]],
    few_shot: int,
    coder_names: Iterable[str],
    *,
    seed: int,
    context_k: int,
    show_canvas: bool,
    model_labels: dict[str, dict[str, str]] | None = None,
) -> Task:
    """A task on ``corpus`` (Map Task actions or kitchen request units; named by its content hash),
    its items split into few-shot and validation; ``model_labels``: an automatic coder's codes,
    written with the task (:meth:`corpus.store.Store.create_task`)."""
    store = get_store()
    chosen = set(coder_names)
    return store.create_task(
        lead,
        name,
        corpus.info.name,
        codebook,
        ac.assign_partitions(items, int(few_shot), int(seed)),
        [u for u in store.users() if u.username in chosen],
        seed=int(seed),
        context_k=int(context_k),
        show_canvas=bool(show_canvas),
        dataset_hash=corpus.content_hash,
        model_labels=model_labels,
    )


def assign(lead: User, task_id: int, usernames: Iterable[str]) -> None:
    store = get_store()
    chosen = set(usernames)
    store.assign(lead, task_id, [u for u in store.users() if u.username in chosen])


def set_sharing(lead: User, task_id: int, share: bool, min_items: int | None = None) -> None:
    get_store().set_share_agreement(lead, task_id, share, min_items=min_items)


def set_coder_view(lead: User, task_id: int, view: str) -> None:
    get_store().set_coder_view(lead, task_id, view)


def set_reference(lead: User, task_id: int, on: bool) -> None:
    """Mark (or unmark) the task's gold as its dataset's reference grounding acts."""
    get_store().set_reference(lead, task_id, on)


def reference_task(dataset_hash: str) -> int | None:
    return get_store().reference_task(dataset_hash)


def latest_snapshot(user: User, task_id: int) -> Snapshot:
    """The agreement numbers shared with the task's coders (raises AccessDenied when there is none
    to show this user)."""
    return get_store().shared_snapshot(user, task_id)


def share_snapshot(lead: User, task_id: int) -> Snapshot | None:
    """Take the current human agreement numbers as the snapshot coders see (None: no label yet)."""
    store = get_store()
    head = human_panel(store.labels(lead, task_id), store.task(task_id).codebook.code_ids)
    if head is None:
        return None
    return store.share_snapshot(lead, task_id, head.to_json())


def revise_codebook(lead: User, task_id: int, codebook: Codebook) -> Task:
    return get_store().revise_codebook(lead, task_id, codebook)


def import_labels(lead: User, task_id: int, data: bytes, file: str, create_coders: bool) -> LabelImport:
    """Labels coded elsewhere as more (model) coders of the task; all or nothing."""
    return get_store().import_labels_csv(
        lead, task_id, data, file=file, create_coders=create_coders, coder_kind="model"
    )


def labels(user: User, task_id: int) -> pd.DataFrame:
    """The task's current labels, under the store's access rules."""
    return get_store().labels(user, task_id)


def labels_long(lead: User, task_id: int) -> pd.DataFrame:
    store = get_store()
    return Store.long_table(store.labels(lead, task_id), store.items(task_id))


def labels_wide(lead: User, task_id: int) -> pd.DataFrame:
    store = get_store()
    return Store.wide_table(store.labels(lead, task_id), store.items(task_id))


def gold(user: User, task_id: int) -> pd.DataFrame:
    return get_store().gold(user, task_id)


GOLD_SCHEME = GROUNDING_ACTS_SCHEME


@st.cache_data(max_entries=16, show_spinner=False)
def _revealed_gold(url: str, content_hash: str, name: str, version: tuple[int, int, int]) -> pd.DataFrame:
    return get_store().revealed_gold(content_hash, GOLD_SCHEME, dataset_name=name)


def revealed_gold(corpus: Corpus) -> pd.DataFrame:
    """Gold of the closed tasks on this dataset: what the analysis pages read. Read again only when
    a task on it is revealed or its gold changes (one cheap query per run tells), so a task the lead
    has just revealed shows at once."""
    store = get_store()
    version = store.gold_version(corpus.content_hash, dataset_name=corpus.info.name)
    return _revealed_gold(store.url, corpus.content_hash, corpus.info.name, version)
