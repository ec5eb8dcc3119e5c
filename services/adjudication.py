"""The Adjudicate page's reads and writes: the state of a task (current labels, gold, items, the
queue least agreement first and the curation counts, read once per run), and the lead's gold
decisions. Every call goes to the label store the settings name, which checks who may do what."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import pandas as pd

from analysis.curation import Curation, adjudication_queue, curation
from corpus.store import Task, User
from services.store import get_store


@dataclass(frozen=True)
class TaskState:
    """What the Adjudicate page shows of a task: current labels, gold, items, the queue and the
    curation counts."""

    labels: pd.DataFrame
    gold: pd.DataFrame
    items: pd.DataFrame
    queue: pd.DataFrame
    curation: Curation


def task_state(lead: User, task: Task) -> TaskState:
    store = get_store()
    cur, gold, items = store.labels(lead, task.id), store.gold(lead, task.id), store.items(task.id)
    return TaskState(cur, gold, items, adjudication_queue(cur, gold, items), curation(cur, gold, task.n_items))


def set_phase(lead: User, task_id: int, phase: str) -> None:
    get_store().set_phase(lead, task_id, phase)


def accept_consensus(lead: User, task_id: int, threshold: str | Fraction) -> int:
    """Gold for the items whose majority reaches ``threshold`` of their coders; how many."""
    return get_store().accept_consensus(lead, task_id, threshold=threshold)


def set_gold(
    lead: User, task_id: int, item_id: str, code: str, *, note: str, error_type: str | None, flag_codebook: bool
) -> int:
    """The lead's adjudicated gold label of one item (a new decision; the history keeps the old)."""
    return get_store().set_gold(
        lead,
        task_id,
        item_id,
        code,
        provenance="adjudicated",
        note=note,
        error_type=error_type,
        flag_codebook=flag_codebook,
    )


def gold_history(lead: User, task_id: int, item_id: str | None = None) -> pd.DataFrame:
    """Every gold decision (of one item, or of the task), oldest first."""
    return get_store().gold_history(lead, task_id, item_id)
