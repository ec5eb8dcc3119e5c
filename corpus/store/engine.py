"""Where the label database is and how to talk to it.

* SQLite file by default (``<data dir>/groundwork.sqlite``), PostgreSQL when the settings give a
  URL (:mod:`corpus.settings`: ``GROUNDWORK_DB_URL`` or the secrets file).
* SQLite runs in WAL mode with ``synchronous=FULL`` (an acknowledged label survives a killed
  server). A write transaction starts with ``BEGIN IMMEDIATE``, so it holds the write lock from
  its first statement and two writers never deadlock; a read starts with a plain ``BEGIN`` and
  never blocks a writer. Connections are pooled: opening one per statement (and checkpointing
  the WAL each time the last one closes) was most of a write's cost.
* A write that meets contention or a lost connection can be told from one that failed for good
  (:func:`transient`), and tried again by the store (:meth:`corpus.store.base.StoreBase._write_retrying`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite

READ_ONLY = "groundwork_read_only"
BUSY_SECONDS = 30.0  # SQLite: how long a statement waits for a lock another connection holds


def default_url(directory: str | Path) -> str:
    """The SQLite file ``groundwork.sqlite`` in ``directory`` (created if missing)."""
    path = Path(directory).resolve() / "groundwork.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def make_engine(url: str, busy_seconds: float = BUSY_SECONDS) -> sa.Engine:
    """The engine for ``url``; on SQLite a statement waits up to ``busy_seconds`` for a lock."""
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    if not url.startswith("sqlite"):
        return sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)
    eng = sa.create_engine(
        url, connect_args={"timeout": busy_seconds, "check_same_thread": False}, pool_size=5, max_overflow=20
    )

    @event.listens_for(eng, "connect")
    def _pragmas(dbapi_conn, _record):  # noqa: ANN001
        # Let SQLAlchemy's BEGIN be the only transaction control (pysqlite quirk).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute(f"PRAGMA busy_timeout={_ms(busy_seconds)}")
        _wal(cur)
        cur.execute("PRAGMA synchronous=FULL")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.close()

    @event.listens_for(eng, "begin")
    def _begin(conn):  # noqa: ANN001
        conn.exec_driver_sql("BEGIN" if conn.get_execution_options().get(READ_ONLY, False) else "BEGIN IMMEDIATE")

    return eng


def _wal(cur, wait_s: float = 30.0) -> None:  # noqa: ANN001 - a DB-API cursor
    """Put the database in WAL mode. A database still in rollback mode (one made before, or by
    another tool) needs an exclusive lock to switch, and SQLite answers "database is locked" at once,
    without its busy handler, while another connection holds a lock (several servers opening an old
    database together): try again until ``wait_s`` has passed."""
    import sqlite3
    import time

    deadline = time.monotonic() + wait_s
    while True:
        try:
            cur.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


@contextmanager
def sqlite_wait(conn: sa.Connection, seconds: float, usual: float) -> Iterator[None]:
    """On SQLite, the statements of ``conn`` (a connection not in a transaction yet) wait at most
    ``seconds`` for a lock instead of ``usual`` (the engine's busy timeout) until the block ends;
    elsewhere nothing changes. The setting belongs to the connection, so it is set back before the
    connection returns to the pool."""
    if conn.dialect.name != "sqlite":
        yield
        return
    raw = conn.connection.driver_connection  # the sqlite3 connection: a PRAGMA here starts no transaction
    assert raw is not None  # a connection checked out of the pool has its driver's connection
    raw.execute(f"PRAGMA busy_timeout={_ms(seconds)}")
    try:
        yield
    finally:
        raw.execute(f"PRAGMA busy_timeout={_ms(usual)}")


# PostgreSQL's answers that another transaction was in the way: a serialization failure, a
# deadlock, a lock not granted in time.
_PG_CONTENTION = {"40001", "40P01", "55P03"}
# The server going away under a connection (class 08 is the connection's own errors): shutting down,
# crashed, or not accepting connections yet.
_PG_GONE = {"57P01", "57P02", "57P03"}


def transient(exc: BaseException) -> str | None:
    """Why ``exc`` (an error from the database) may pass if the same transaction is tried again:
    "locked" (another writer held what it needed: SQLite's "database is locked", PostgreSQL's
    deadlock or serialization failure), "unreachable" (the connection was lost or could not be
    made); None for an error that trying again will not mend."""
    if not isinstance(exc, sa.exc.DBAPIError):
        return None
    orig = exc.orig
    name = getattr(orig, "sqlite_errorname", None)  # SQLite: SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT, ...
    if name is not None or type(orig).__module__.startswith("sqlite3"):
        text = str(orig).lower()
        if (name or "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text or "busy" in text:
            return "locked"
        return "unreachable" if exc.connection_invalidated else None
    state = getattr(orig, "sqlstate", None)
    if state in _PG_CONTENTION:
        return "locked"
    if exc.connection_invalidated or state in _PG_GONE or (state or "").startswith("08"):
        return "unreachable"
    if state is None and isinstance(exc, sa.exc.OperationalError):
        return "unreachable"  # no answer from a server at all (refused, timed out, closed)
    return None


def dialect_insert(conn: sa.Connection, table: sa.Table):
    """An INSERT of ``table`` that knows ``ON CONFLICT`` on this connection's database."""
    return (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(table)


@functools.cache
def insert_unless_present(dialect: str, table: sa.Table, unique: tuple[str, ...]):
    """``INSERT ... ON CONFLICT (unique) DO NOTHING RETURNING id`` for ``dialect``, built once.

    Executed with a row's values, it returns the new id, or nothing if a row with the same
    ``unique`` values exists: two writers racing with the same key cannot both insert, and the
    loser waits for the winner's commit instead of failing. (NULLs never conflict.)"""
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return insert(table).on_conflict_do_nothing(index_elements=list(unique)).returning(table.c.id)
