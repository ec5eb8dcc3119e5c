"""Bring a label database to this version of the schema, in place and in order.

A fresh database gets the current tables (:mod:`corpus.store.tables`) at once. An older one runs
each migration above its version, in order, in one transaction (SQLite and PostgreSQL both undo a
failed DDL transaction whole), and records the new version in ``schema_meta``. Openers racing on
a fresh or old database wait for each other: SQLite's write transaction holds the lock from its
start, PostgreSQL takes a transaction-level advisory lock. A database newer than this app is
refused rather than touched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.schema import CreateColumn

from corpus.store import tables as t
from corpus.store.agreement import recount_agreement
from corpus.store.base import StoreError, new_sign_in_key

_PG_LOCK = 7_413_325_019  # any constant: the advisory lock that serializes schema changes


@dataclass(frozen=True)
class Migration:
    version: int  # the schema version this step produces
    summary: str
    apply: Callable[[sa.Connection], None]


def _add_column(c: sa.Connection, column: sa.Column) -> None:
    """``ALTER TABLE ... ADD COLUMN`` with the column exactly as the current table defines it."""
    ddl = CreateColumn(column).compile(dialect=c.dialect)
    c.exec_driver_sql(f"ALTER TABLE {column.table.name} ADD COLUMN {ddl}")


def _create_index(c: sa.Connection, table: sa.Table, name: str) -> None:
    next(ix for ix in table.indexes if ix.name == name).create(c)


def _v2(c: sa.Connection) -> None:
    for column in (
        t.users.c.status,
        t.users.c.auth_epoch,
        t.tasks.c.dataset_hash,
        t.tasks.c.coder_view,
        t.tasks.c.share_min_items,
    ):
        _add_column(c, column)
    _create_index(c, t.tasks, "ix_tasks_dataset_hash")
    _create_index(c, t.labels, "ix_labels_task_id")
    for table in t.V2_TABLES:
        table.create(c)


def _v3(c: sa.Connection) -> None:
    t.revoked_tokens.create(c)


def _v4(c: sa.Connection) -> None:
    _add_column(c, t.users.c.sign_in_key)
    for (uid,) in c.execute(sa.select(t.users.c.id)).all():
        c.execute(t.users.update().where(t.users.c.id == uid).values(sign_in_key=new_sign_in_key()))
    # The backoff now counts per (account, client) pair: the old per-name and per-client rows go.
    c.execute(t.signin_throttle.delete())
    next(ix for ix in t.signin_throttle.indexes if ix.name == "ix_signin_throttle_last_failure").create(
        c, checkfirst=True
    )
    t.signin_failures.create(c)


def _v5(c: sa.Connection) -> None:
    _add_column(c, t.tasks.c.labels_count)
    _add_column(c, t.tasks.c.labels_newest)
    t.recount_labels(c)


def _v6(c: sa.Connection) -> None:
    _add_column(c, t.tasks.c.n_items)
    count = sa.select(sa.func.count()).where(t.task_items.c.task_id == t.tasks.c.id).scalar_subquery()
    c.execute(t.tasks.update().values(n_items=count))
    for table in t.AGREEMENT_TABLES:
        table.create(c)
    recount_agreement(c)


def _v7(c: sa.Connection) -> None:
    # A database that got the failures' table in this same upgrade (v4 makes it as it is now) has them.
    have = {col["name"] for col in sa.inspect(c).get_columns(t.signin_failures.name)}
    for column in (t.signin_failures.c.device, t.signin_failures.c.attempt):
        if column.name not in have:
            _add_column(c, column)
    # Waits are gone (a browser now proves work instead): the old rows' locks no longer mean anything.
    c.execute(t.signin_throttle.update().values(locked_until=None))


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        2,
        "tasks name their dataset by content hash; account status and sign-in epochs; what coders "
        "see after adjudication starts; sign-in backoff; shared agreement snapshots",
        _v2,
    ),
    Migration(3, "signing out revokes the browser's sign-in token", _v3),
    Migration(
        4,
        "sign-in tokens name a key never given to another account (sign-ins from before end); failed "
        "sign-ins are throttled per account and client, and kept for the lead to see",
        _v4,
    ),
    Migration(
        5,
        "each task keeps its labels version (count and newest id), written with every label: the live "
        "panel's change check reads one row instead of counting the task's labels",
        _v5,
    ),
    Migration(
        6,
        "each task keeps its agreement in sufficient statistics, written with every label: the live "
        "panel's numbers come from a few rows instead of every label; a task's row holds its number of items",
        _v6,
    ),
    Migration(
        7,
        "a browser that signed in to an account before is a known device whose right password always gets "
        "through; failures keep the device they came from and whether they were a sign-in or a password change",
        _v7,
    ),
)
assert [m.version for m in MIGRATIONS] == list(range(2, t.SCHEMA_VERSION + 1)), "one migration per version, in order"


def _version(c: sa.Connection) -> int | None:
    if not sa.inspect(c).has_table("schema_meta"):
        return None
    value = c.execute(sa.select(t.schema_meta.c.value).where(t.schema_meta.c.key == "schema_version")).scalar()
    return None if value is None else int(value)


def _set_version(c: sa.Connection, version: int) -> None:
    done = c.execute(t.schema_meta.update().where(t.schema_meta.c.key == "schema_version").values(value=str(version)))
    if done.rowcount == 0:
        c.execute(t.schema_meta.insert().values(key="schema_version", value=str(version)))


def _refuse_newer(version: int | None) -> None:
    if version is not None and version > t.SCHEMA_VERSION:
        raise StoreError(
            f"the label database has schema version {version}, newer than this app's "
            f"{t.SCHEMA_VERSION}; upgrade the app"
        )


def upgrade(engine: sa.Engine, reads: sa.Engine) -> list[int]:
    """Create or upgrade the schema; the versions migrated to (empty if it was current)."""
    with reads.connect() as c:
        version = _version(c)
    _refuse_newer(version)
    if version == t.SCHEMA_VERSION:
        return []
    with engine.begin() as c:
        if c.dialect.name == "postgresql":
            c.execute(sa.text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_LOCK})
        version = _version(c)  # again, under the lock: another opener may have done it
        _refuse_newer(version)
        if version is None:
            t.metadata.create_all(c)
            _set_version(c, t.SCHEMA_VERSION)
            return []
        done = []
        for step in MIGRATIONS:
            if step.version > version:
                step.apply(c)
                _set_version(c, step.version)
                done.append(step.version)
        return done
