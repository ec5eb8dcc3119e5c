"""Labels: writing one (append-only, at once, once per request id) and reading them back under the
access rules.

A write is one short transaction: one query checks the task's phase and codebook, the coder's
assignment and account, the item, and a repeated request id; then
``INSERT ... ON CONFLICT (request_id) DO NOTHING RETURNING id`` adds the row, and the task's labels
version and agreement sums follow in the same transaction. Nothing counts the task's items or
labels on the way. Relabelling adds a row; a coder's current label of an item is their latest.

The writers of one task's labels take turns on the task's row, and each takes it before its labels
get their ids: the check query holds it (``FOR NO KEY UPDATE`` on PostgreSQL; on SQLite every write
transaction holds the database's write lock from its start), and so does an import
(:func:`hold_task`) before it inserts. So a task's labels commit in the order of their ids: a
reader that has read every label up to an id and asks for the ones above it (the live panel,
:meth:`Labels.refresh_labels`) misses none, and the task's labels version, counted on that row by
the writer holding it, is exact. (A label id comes from a sequence when the row is inserted; had
a writer drawn it before its turn, a label could commit after one with a higher id.)

A label save meets contention now and then (SQLite's write lock held past its busy timeout, a
deadlock or serialization failure on PostgreSQL) or a lost connection: it is tried again, with a
growing pause, for as long as the store's :class:`corpus.store.base.WritePolicy` allows, under the
same request id, so a try whose commit failed after the row was written returns that row and
writes nothing more. Past that time it fails with :class:`corpus.store.base.StoreUnavailable`:
nothing written (or, when a try failed as it committed and none could look since, perhaps written;
sent again under the same request id, the label is written once either way).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import pandas as pd
import sqlalchemy as sa

from corpus.limits import NOTE_CHARS, too_long
from corpus.store.access import may_see_all_labels, require_label_write, require_see_all_labels
from corpus.store.agreement import account_item, read_sums
from corpus.store.base import AccessDenied, StoreBase, StoreError, Task, User
from corpus.store.engine import insert_unless_present
from corpus.store.notify import listener
from corpus.store.tables import count_label, labels, max_chars, task_coders, task_items, tasks, users

if TYPE_CHECKING:
    from corpus.codebook import Codebook


def label_columns(with_kind: bool = True) -> list:
    """The columns every label read returns (the log's history leaves out the coder's id and kind)."""
    who = (
        [labels.c.coder_id, users.c.username.label("coder"), users.c.kind.label("coder_kind")]
        if with_kind
        else [users.c.username.label("coder")]
    )
    return [
        labels.c.id,
        labels.c.item_id,
        *who,
        labels.c.code,
        labels.c.note,
        labels.c.unsure,
        labels.c.seconds,
        labels.c.codebook_version,
        labels.c.source,
        labels.c.created_at,
    ]


# The checks of a label write in one query, built once (its parameters: task_id, item_id,
# coder_id, request_id): the task's name, phase and codebook, whether the coder is assigned and
# active, whether the item is the task's, and the label an earlier try of this request wrote. It
# takes the task's row for the writer's turn (see the module) before the label gets its id.
_CHECK = (
    sa.select(
        tasks.c.name,
        tasks.c.phase,
        tasks.c.codebook_id,
        sa.exists()
        .where(task_coders.c.task_id == tasks.c.id, task_coders.c.user_id == sa.bindparam("coder_id"))
        .label("assigned"),
        sa.exists()
        .where(task_items.c.task_id == tasks.c.id, task_items.c.item_id == sa.bindparam("item_id"))
        .label("has_item"),
        sa.select(users.c.status).where(users.c.id == sa.bindparam("coder_id")).scalar_subquery().label("status"),
        sa.select(users.c.role).where(users.c.id == sa.bindparam("coder_id")).scalar_subquery().label("role"),
        sa.select(labels.c.id)
        .where(
            labels.c.request_id == sa.bindparam("request_id"),
            labels.c.coder_id == sa.bindparam("coder_id"),
            labels.c.task_id == tasks.c.id,
        )
        .scalar_subquery()
        .label("prior"),
    )
    .where(tasks.c.id == sa.bindparam("task_id"))
    .with_for_update(of=tasks, key_share=True)
)

_HOLD = sa.select(tasks.c.id).where(tasks.c.id == sa.bindparam("task_id")).with_for_update(key_share=True)


def hold_task(c: sa.Connection, task_id: int) -> None:
    """Take the task's row for this transaction's turn at writing its labels, before any of them
    gets an id (see the module); on SQLite the write transaction holds the whole database already.
    A writer that adds labels in another way than :meth:`Labels.add_label` calls it first (but
    the transaction that creates a task, which no other writer sees until it commits)."""
    c.execute(_HOLD, {"task_id": task_id})


class Labels(StoreBase):
    if TYPE_CHECKING:  # the other parts of Store this one uses

        @property
        def _codebook(self) -> Callable[[int], Codebook]: ...
        def task(self, task_id: int) -> Task: ...
        def coders(self, task_id: int) -> list[User]: ...

    def add_label(
        self,
        user: User,
        task_id: int,
        item_id: str,
        code: str,
        note: str = "",
        unsure: bool = False,
        seconds: float | None = None,
        request_id: str | None = None,
        source: str = "ui",
    ) -> int:
        """Write one label now (append-only). Returns its id; a repeated ``request_id`` returns the
        label it wrote the first time and writes nothing. Contention and a lost connection are
        waited out (tried again under the request id, see the module); past the store's
        :class:`corpus.store.base.WritePolicy` time, :class:`corpus.store.base.StoreUnavailable`.
        A label given without a request id gets one of its own, so that no try writes it twice."""
        if user.role == "viewer":
            raise AccessDenied(f"{user.username} is a viewer; viewers cannot label")
        note = (note or "").strip()
        if (why := too_long("note", note, NOTE_CHARS)) is not None:
            raise StoreError(why)
        if request_id is not None and not 0 < len(request_id) <= max_chars(labels.c.request_id):
            raise StoreError(f"request id: must be 1 to {max_chars(labels.c.request_id)} characters")
        rid = request_id if request_id is not None else secrets.token_hex(16)
        return self._write_retrying(
            "the label",
            lambda c: self._add_label(c, user, task_id, item_id, code, note, unsure, seconds, rid, source),
        )

    def _add_label(
        self,
        c: sa.Connection,
        user: User,
        task_id: int,
        item_id: str,
        code: str,
        note: str,
        unsure: bool,
        seconds: float | None,
        request_id: str,
        source: str,
    ) -> int:
        """One try of :meth:`add_label`, in the write transaction ``c``."""
        row = c.execute(
            _CHECK, {"task_id": task_id, "item_id": item_id, "coder_id": user.id, "request_id": request_id}
        ).first()
        if row is None:
            raise StoreError(f"task #{task_id} does not exist")
        if row.prior is not None:
            return int(row.prior)
        # The account as it is now, not as the page that sends the label last read it.
        require_label_write(
            replace(user, status=row.status or "deleted", role=row.role or user.role), row.phase, row.name
        )
        cb = self._codebook(int(row.codebook_id))
        if code not in cb.code_ids:
            raise StoreError(
                f"code: '{code}' is not in codebook {cb.id} v{cb.version} (codes: {', '.join(cb.code_ids)})"
            )
        if cb.by_code(code).requires_note and not note:
            raise StoreError(f"note: the code '{code}' needs a note saying why")
        if not row.assigned:
            raise AccessDenied(f"{user.username} is not a coder of task '{row.name}'")
        if not row.has_item:
            raise StoreError(f"item: '{item_id}' is not an item of task '{row.name}'")
        values = dict(
            task_id=task_id,
            item_id=item_id,
            coder_id=user.id,
            code=code,
            note=note,
            unsure=bool(unsure),
            seconds=None if seconds is None else float(seconds),
            codebook_version=cb.version,
            source=source,
            request_id=request_id,
            created_at=self._now(),
        )
        new = c.execute(insert_unless_present(c.dialect.name, labels, ("request_id",)), values).scalar()
        if new is not None:
            count_label(c, task_id, int(new))  # the task's row, held since the check
            account_item(c, task_id, item_id)
            return int(new)
        # Another writer committed this request id between the check and the insert.
        same = c.execute(
            sa.select(labels.c.id, labels.c.coder_id, labels.c.task_id).where(labels.c.request_id == request_id)
        ).one()
        if (same.coder_id, same.task_id) != (user.id, task_id):
            raise StoreError(f"request id '{request_id}' belongs to another label")
        return int(same.id)

    @staticmethod
    def _version(c: sa.Connection, task_id: int) -> tuple[int, int]:
        row = c.execute(sa.select(tasks.c.labels_count, tasks.c.labels_newest).where(tasks.c.id == task_id)).first()
        return (0, 0) if row is None else (int(row.labels_count), int(row.labels_newest))

    def labels_version(self, task_id: int) -> tuple[int, int]:
        """(number of label rows, newest label id) of a task, read from the task's own row (written
        with every label, in the same transaction, by the writer whose turn it is: see the module):
        a live view compares it with the last one it saw and reads the labels again only when it
        changed, at the cost of one row whatever the task's size. It equals a count of the task's
        labels and their highest id at every commit."""
        with self._read() as c:
            return self._version(c, task_id)

    def label_changes(self, task_id: int) -> tuple[int, int] | None:
        """A mark that moves when a label of the task is written, read from memory: on PostgreSQL
        the notices this process's listener counted (:mod:`corpus.store.notify`); None on SQLite, or
        while the listener is not connected (ask :meth:`labels_version` then)."""
        found = listener(self.engine)
        return None if found is None else found.mark(task_id)

    def agreement_sums(self, user: User, task_id: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
        """The task's agreement in sufficient statistics (:mod:`corpus.store.agreement`), kept with
        every label: a few rows per category pair and coder pair, whatever the number of labels.
        The same access rule as :meth:`labels`; ``attrs["labels_version"]`` on the first frame."""
        require_see_all_labels(user, self.task(task_id))
        with self._snapshot_read() as c:
            sums, pairs, coders = read_sums(c, task_id)
            sums.attrs["labels_version"] = self._version(c, task_id)
        return sums, pairs, coders

    def _current_labels(self, c: sa.Connection, task_id: int, coder_id: int | None = None) -> pd.DataFrame:
        newest = sa.select(sa.func.max(labels.c.id).label("id")).where(labels.c.task_id == task_id)
        if coder_id is not None:
            newest = newest.where(labels.c.coder_id == coder_id)
        latest = newest.group_by(labels.c.item_id, labels.c.coder_id).subquery()
        q = (
            sa.select(*label_columns())
            .join(latest, latest.c.id == labels.c.id)
            .join(users, users.c.id == labels.c.coder_id)
            .order_by(labels.c.id)
        )
        return pd.read_sql(q, c)

    def _read_with_version(self, task_id: int, read) -> pd.DataFrame:  # noqa: ANN001 - a function of the connection
        """``read(c)`` and the labels version in one snapshot; the version goes in ``frame.attrs``."""
        with self._snapshot_read() as c:
            frame = read(c)
            frame.attrs["labels_version"] = self._version(c, task_id)
        return frame

    def my_labels(self, user: User, task_id: int) -> pd.DataFrame:
        """This coder's current labels (one row per item they coded)."""
        with self._read() as c:
            return self._current_labels(c, task_id, coder_id=user.id)

    def can_see_all(self, user: User, task_id: int) -> bool:
        return may_see_all_labels(user, self.task(task_id))

    def labels(self, user: User, task_id: int) -> pd.DataFrame:
        """Every coder's current labels: leads always, viewers once revealed, coders never.
        ``attrs["labels_version"]`` is the :meth:`labels_version` they were read at."""
        require_see_all_labels(user, self.task(task_id))
        return self._read_with_version(task_id, lambda c: self._current_labels(c, task_id))

    def labels_since(self, user: User, task_id: int, after_id: int) -> pd.DataFrame:
        """Label rows given after ``after_id`` (columns as :meth:`labels`), with the same access rule.
        A task's labels commit in the order of their ids (see the module), so after a read that saw
        every label up to ``after_id`` these are exactly the labels committed since."""
        require_see_all_labels(user, self.task(task_id))
        q = (
            sa.select(*label_columns())
            .join(users, users.c.id == labels.c.coder_id)
            .where(labels.c.task_id == task_id, labels.c.id > int(after_id))
            .order_by(labels.c.id)
        )
        return self._read_with_version(task_id, lambda c: pd.read_sql(q, c))

    def refresh_labels(self, user: User, task_id: int, previous: pd.DataFrame | None = None) -> pd.DataFrame:
        """The current labels, updated from ``previous`` (an earlier result of this method or of
        :meth:`labels`) by reading only the rows added since: a live view's cost per refresh does not
        grow with the task. A relabel replaces the coder's earlier label of the item. The rows read
        must make up the count's change; should they not (a label written around the store's turns,
        under a lower id than one already seen), everything is read again."""
        seen = None if previous is None else previous.attrs.get("labels_version")
        if seen is None:
            return self.labels(user, task_id)
        new = self.labels_since(user, task_id, seen[1])
        now = new.attrs["labels_version"]
        if now[0] != seen[0] + len(new):
            return self.labels(user, task_id)
        if new.empty:
            return previous
        both = pd.concat([previous, new], ignore_index=True)
        both = both.drop_duplicates(["item_id", "coder_id"], keep="last").reset_index(drop=True)
        both.attrs["labels_version"] = now
        return both

    def history(self, user: User, task_id: int, item_id: str | None = None) -> pd.DataFrame:
        """Every label ever given (append-only log). Coders get their own only."""
        q = (
            sa.select(*label_columns(with_kind=False))
            .join(users, users.c.id == labels.c.coder_id)
            .where(labels.c.task_id == task_id)
            .order_by(labels.c.id)
        )
        if item_id is not None:
            q = q.where(labels.c.item_id == item_id)
        if not self.can_see_all(user, task_id):
            q = q.where(labels.c.coder_id == user.id)
        with self._read() as c:
            return pd.read_sql(q, c)

    def progress(self, task_id: int) -> pd.DataFrame:
        """Per coder: items coded (counts only, safe for everyone to see)."""
        with self._read() as c:
            done = self._current_labels(c, task_id)
        n = self.task(task_id).n_items
        coders = self.coders(task_id)
        counts = done.groupby("coder").size() if not done.empty else pd.Series(dtype=int)
        return pd.DataFrame(
            {
                "coder": [u.username for u in coders],
                "coded": [int(counts.get(u.username, 0)) for u in coders],
                "items": n,
            }
        )
