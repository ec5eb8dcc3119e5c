"""Agreement numbers shown to coders: only snapshots the lead takes.

Numbers recomputed whenever a coder asks would let a coder learn another coder's label: relabel
an item with every code in turn and read the shared percent agreement after each; the code that
raises it most is the other coder's. So coders never get numbers computed on demand. The lead
takes a snapshot (the caller computes the numbers, a plain dict; the store records with it how
many items two or more human coders had labelled, and the label version it rests on). A coder
reads only the task's latest snapshot, only while the lead shares agreement for the task, and
only when that snapshot rests on at least the task's minimum number of items. A coder's own
later labels never change what they read.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import pandas as pd
import sqlalchemy as sa

from corpus.store.access import require_lead
from corpus.store.base import AccessDenied, StoreBase, StoreError, Task, User, as_utc
from corpus.store.tables import agreement_snapshots, labels, tasks, users
from corpus.values import Undefined, from_json


@dataclass(frozen=True)
class Snapshot:
    id: int
    task_id: int
    numbers: dict[str, Any]
    n_items: int  # items labelled by two or more human coders when it was taken
    n_labels: int
    taken_at: datetime
    taken_by: str


def _plain(value: Any, where: str = "numbers") -> Any:
    """``value`` as JSON-ready data (Undefined as ``{"undefined": reason}``, NaN as Undefined)."""
    if isinstance(value, Undefined):
        return value.to_json()
    if isinstance(value, dict):
        return {str(k): _plain(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # a numpy scalar
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return Undefined("not a finite number").to_json()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise StoreError(f"{where}: {type(value).__name__} is not a number, text or list of them")


def _restored(value: Any) -> Any:
    if isinstance(value, dict):
        value = from_json(value)
        return {k: _restored(v) for k, v in value.items()} if isinstance(value, dict) else value
    if isinstance(value, list):
        return [_restored(v) for v in value]
    return value


class Sharing(StoreBase):
    if TYPE_CHECKING:  # the other parts of Store this one uses

        def task(self, task_id: int) -> Task: ...
        def labels(self, user: User, task_id: int) -> pd.DataFrame: ...
        def _set(self, actor: User, task_id: int, **values: Any) -> None: ...

    def set_share_agreement(self, actor: User, task_id: int, share: bool, min_items: int | None = None) -> None:
        """Whether coders see the latest snapshot, and on how many items it must rest at least."""
        require_lead(actor)
        values: dict[str, Any] = {"share_agreement": bool(share)}
        if min_items is not None:
            if int(min_items) < 1:
                raise StoreError("min_items: must be at least 1")
            values["share_min_items"] = int(min_items)
        self._set(actor, task_id, **values)

    def share_snapshot(self, actor: User, task_id: int, numbers: dict[str, Any]) -> Snapshot:
        """Record agreement numbers (computed by the caller) for the task's coders to read."""
        require_lead(actor)
        text = json.dumps(_plain(dict(numbers)), allow_nan=False)
        human = sa.select(users.c.id).where(users.c.kind == "human")
        covered = (
            sa.select(labels.c.item_id)
            .where(labels.c.task_id == task_id, labels.c.coder_id.in_(human))
            .group_by(labels.c.item_id)
            .having(sa.func.count(sa.distinct(labels.c.coder_id)) >= 2)
            .subquery()
        )
        with self._write_as(actor) as c:
            if c.execute(sa.select(tasks.c.id).where(tasks.c.id == task_id)).first() is None:
                raise StoreError(f"task #{task_id} does not exist")
            n_items = c.execute(sa.select(sa.func.count()).select_from(covered)).scalar_one()
            n_labels, newest = c.execute(
                sa.select(sa.func.count(), sa.func.coalesce(sa.func.max(labels.c.id), 0)).where(
                    labels.c.task_id == task_id
                )
            ).one()
            sid = c.execute(
                agreement_snapshots.insert()
                .values(
                    task_id=task_id,
                    numbers=text,
                    n_items=int(n_items),
                    n_labels=int(n_labels),
                    max_label_id=int(newest),
                    taken_by=actor.id,
                    created_at=self._now(),
                )
                .returning(agreement_snapshots.c.id)
            ).scalar_one()
        return self.snapshots(actor, task_id, snapshot_id=int(sid))[0]

    def snapshots(self, actor: User, task_id: int, snapshot_id: int | None = None) -> list[Snapshot]:
        """The task's snapshots, newest first (leads only)."""
        require_lead(actor)
        return self._snapshots(task_id, snapshot_id)

    def _snapshots(self, task_id: int, snapshot_id: int | None = None, limit: int | None = None) -> list[Snapshot]:
        s = agreement_snapshots
        q = (
            sa.select(s, users.c.username)
            .join(users, users.c.id == s.c.taken_by)
            .where(s.c.task_id == task_id)
            .order_by(s.c.id.desc())
            .limit(limit)
        )
        if snapshot_id is not None:
            q = q.where(s.c.id == snapshot_id)
        with self._read() as c:
            rows = c.execute(q).all()
        return [
            Snapshot(
                int(r.id),
                int(r.task_id),
                _restored(json.loads(r.numbers)),
                int(r.n_items),
                int(r.n_labels),
                as_utc(r.created_at),
                r.username,
            )
            for r in rows
        ]

    def shared_snapshot(self, user: User, task_id: int) -> Snapshot:
        """The latest snapshot, if this user may read it; otherwise :class:`AccessDenied` saying why."""
        task = self.task(task_id)
        if user.role != "lead" and not task.share_agreement:
            raise AccessDenied("the lead has not shared the agreement numbers for this task")
        latest = self._snapshots(task_id, limit=1)
        if not latest:
            raise AccessDenied("the lead has not taken a snapshot of the agreement numbers yet")
        if user.role != "lead" and latest[0].n_items < task.share_min_items:
            raise AccessDenied(
                f"the shared numbers rest on {latest[0].n_items} items; they are shown once a "
                f"snapshot rests on at least {task.share_min_items}"
            )
        return latest[0]

    def aggregate(self, actor: User, task_id: int, fn: Callable[[pd.DataFrame], Any]) -> Any:
        """``fn`` of all current labels (leads only: coders read snapshots, :meth:`shared_snapshot`)."""
        require_lead(actor)
        return fn(self.labels(actor, task_id))
