"""A task's agreement in sufficient statistics, kept by the store with every label.

The live panel's numbers (Fleiss' kappa, its generalization, Krippendorff's alpha, percent
agreement, Gwet's AC1, Cohen's kappa per pair of coders) are functions of two small tables over
the human coders' current labels (a coder's latest label of an item); a third counts them:

- ``agreement_sums``: per number of labels on an item m, and per pair of categories (a, b), the sum
  over the items with m labels of n_a * n_b (n_c: the item's labels in category c). Its rows give
  every per-item sum the statistics need (:mod:`analysis.agreement.sums`): the diagonal is
  sum n_c^2, a row's total over b is m times the category's labels, the table's total m^2 items.
- ``agreement_pairs``: per pair of coders, how often they gave (code_a, code_b) to the same item.
- ``agreement_coders``: each coder's number of current labels (every coder, models too: the panel's
  progress).

``agreement_labels`` holds the labels those sums counted. A label write calls
:func:`account_item` in its own transaction, holding the task's row (taken before its label was
inserted and held on PostgreSQL until the commit, so the writers of one task take turns here): it
reads the item's current labels, takes away the item's old terms and adds its new ones, a handful
of rows whatever the task's size; an import or a rule's labels call :func:`account_items` for
their items (read a chunk at a time). :func:`recount_agreement` counts a task again from its
labels, as the migration to schema 6 does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import sqlalchemy as sa

from corpus.store.engine import dialect_insert
from corpus.store.tables import (
    AGREEMENT_TABLES,
    agreement_coders,
    agreement_labels,
    agreement_pairs,
    agreement_sums,
    labels,
    tasks,
    users,
)

HUMAN = "human"


@dataclass
class Terms:
    """What one item adds to the three tables of sums (or, summed, many items)."""

    sums: Counter  # (m, code_a, code_b) -> sum of n_a n_b
    pairs: Counter  # (coder_a, coder_b, code_a, code_b) -> items, coder_a < coder_b
    coders: Counter  # (coder,) -> labels

    @classmethod
    def of_item(cls, codes: dict[int, str], humans: set[int]) -> Terms:
        """The terms of one item whose current labels are ``codes`` (coder id -> code); the sums
        and pairs count the ``humans`` among the coders."""
        people = {u: code for u, code in codes.items() if u in humans}
        n = Counter(people.values())
        m = len(people)
        sums = Counter({(m, a, b): n[a] * n[b] for a in n for b in n})
        ordered = sorted(people.items())
        pairs = Counter((u, v, cu, cv) for i, (u, cu) in enumerate(ordered) for v, cv in ordered[i + 1 :])
        return cls(sums, pairs, Counter({(u,): 1 for u in codes}))

    def shift(self, new: Terms, old: Terms) -> None:
        """Count ``new`` in and ``old`` out (an item's terms now and as last counted), in place."""
        for mine, plus, minus in (
            (self.sums, new.sums, old.sums),
            (self.pairs, new.pairs, old.pairs),
            (self.coders, new.coders, old.coders),
        ):
            mine.update(plus)
            mine.subtract(minus)


def _add(c: sa.Connection, table: sa.Table, keys: tuple[str, ...], column: str, task_id: int, deltas: Counter) -> None:
    """Add ``deltas`` (key tuple -> amount) to ``table``'s ``column``, creating rows as needed."""
    rows = [{"task_id": task_id, **dict(zip(keys, k)), column: int(v)} for k, v in deltas.items() if v]
    if not rows:
        return
    ins = dialect_insert(c, table)
    c.execute(
        ins.on_conflict_do_update(
            index_elements=["task_id", *keys], set_={column: table.c[column] + ins.excluded[column]}
        ),
        rows,
    )


def _apply(c: sa.Connection, task_id: int, change: Terms) -> None:
    _add(c, agreement_sums, ("m", "code_a", "code_b"), "value", task_id, change.sums)
    _add(c, agreement_pairs, ("coder_a", "coder_b", "code_a", "code_b"), "n", task_id, change.pairs)
    _add(c, agreement_coders, ("coder_id",), "n", task_id, change.coders)


CHUNK = 500  # items read per query when many are brought up to date at once


def _codes_of(c: sa.Connection, task_id: int, item_ids: list[str]) -> dict[str, dict[int, str]]:
    """Every coder's current label of each item: item -> coder id -> code (their latest label)."""
    # Sorted here, not by the query: an ORDER BY id would let SQLite walk the task's (task, id)
    # index over every label of the task instead of the items' few rows.
    rows = c.execute(
        sa.select(labels.c.id, labels.c.item_id, labels.c.coder_id, labels.c.code).where(
            labels.c.task_id == task_id, labels.c.item_id.in_(item_ids)
        )
    ).all()
    out: dict[str, dict[int, str]] = {i: {} for i in item_ids}
    for r in sorted(rows, key=lambda r: r.id):
        out[r.item_id][int(r.coder_id)] = r.code
    return out


def _counted(c: sa.Connection, task_id: int, item_ids: list[str]) -> dict[str, dict[int, str]]:
    """The labels the sums last counted for each item: item -> coder id -> code."""
    a = agreement_labels
    out: dict[str, dict[int, str]] = {i: {} for i in item_ids}
    for r in c.execute(
        sa.select(a.c.item_id, a.c.coder_id, a.c.code).where(a.c.task_id == task_id, a.c.item_id.in_(item_ids))
    ):
        out[r.item_id][int(r.coder_id)] = r.code
    return out


def _humans(c: sa.Connection, ids: Iterable[int]) -> set[int]:
    ids = list(ids)
    if not ids:
        return set()
    return {
        int(u) for u in c.execute(sa.select(users.c.id).where(users.c.id.in_(ids), users.c.kind == HUMAN)).scalars()
    }


def account_items(c: sa.Connection, task_id: int, item_ids: Iterable[str]) -> None:
    """Bring the task's sums up to date with these items' current labels (call it in the
    transaction that changed them, after the task's row was written): a label, or an import's
    items read a chunk at a time; the cost follows the items, not the task."""
    items = sorted(set(item_ids))
    change = Terms(Counter(), Counter(), Counter())
    for k in range(0, len(items), CHUNK):
        chunk = items[k : k + CHUNK]
        after, before = _codes_of(c, task_id, chunk), _counted(c, task_id, chunk)
        moved = [i for i in chunk if after[i] != before[i]]
        if not moved:
            continue
        humans = _humans(c, {u for i in moved for u in (*after[i], *before[i])})
        for i in moved:
            change.shift(Terms.of_item(after[i], humans), Terms.of_item(before[i], humans))
        c.execute(
            agreement_labels.delete().where(
                agreement_labels.c.task_id == task_id, agreement_labels.c.item_id.in_(moved)
            )
        )
        rows = [
            {"task_id": task_id, "item_id": i, "coder_id": u, "code": code}
            for i in moved
            for u, code in after[i].items()
        ]
        if rows:
            c.execute(agreement_labels.insert(), rows)
    _apply(c, task_id, change)


def account_item(c: sa.Connection, task_id: int, item_id: str) -> None:
    """:func:`account_items` for the one item a label was written to."""
    account_items(c, task_id, [item_id])


def recount_agreement(c: sa.Connection, task_id: int | None = None) -> None:
    """Count the sums of ``task_id`` (None: of every task) again from its labels: after many labels
    were written at once (an import, a rule's labels) or when the tables were added."""
    ids: Iterable[int] = (
        [task_id] if task_id is not None else [int(t) for t in c.execute(sa.select(tasks.c.id)).scalars()]
    )
    for tid in ids:
        for table in AGREEMENT_TABLES:
            c.execute(table.delete().where(table.c.task_id == tid))
        items = c.execute(sa.select(labels.c.item_id).where(labels.c.task_id == tid).distinct()).scalars().all()
        account_items(c, tid, items)


def _frame(c: sa.Connection, q: sa.Select) -> pd.DataFrame:
    """A small query's rows as a frame, column by column (quicker than pandas reading rows); texts
    kept as Python objects (made Arrow texts one by one, they would be read back one by one)."""
    result = c.execute(q)
    names, rows = list(result.keys()), result.all()
    if not rows:
        return pd.DataFrame({n: [] for n in names})
    return pd.DataFrame({name: _column(col) for name, col in zip(names, zip(*rows))})


def _column(values: tuple) -> pd.Series:
    found = np.asarray(values)
    return pd.Series(found, dtype=object) if found.dtype.kind in "USO" else pd.Series(found)


def read_sums(c: sa.Connection, task_id: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The task's sums, with coders by name: (m, code_a, code_b, value), (coder_a, coder_b, code_a,
    code_b, n) and (coder, kind, n); rows at zero left out."""
    s, p, k = agreement_sums, agreement_pairs, agreement_coders
    sums = _frame(c, sa.select(s.c.m, s.c.code_a, s.c.code_b, s.c.value).where(s.c.task_id == task_id, s.c.value != 0))
    a, b = users.alias("a"), users.alias("b")
    pairs = _frame(
        c,
        sa.select(a.c.username.label("coder_a"), b.c.username.label("coder_b"), p.c.code_a, p.c.code_b, p.c.n)
        .join(a, a.c.id == p.c.coder_a)
        .join(b, b.c.id == p.c.coder_b)
        .where(p.c.task_id == task_id, p.c.n != 0),
    )
    coders = _frame(
        c,
        sa.select(users.c.username.label("coder"), users.c.kind, k.c.n)
        .join(users, users.c.id == k.c.coder_id)
        .where(k.c.task_id == task_id, k.c.n != 0)
        .order_by(users.c.username),
    )
    return sums, pairs, coders
