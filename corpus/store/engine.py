"""Where the label database is and how to talk to it.

* SQLite file by default (``<data dir>/groundwork.sqlite``), PostgreSQL when the settings give a
  URL (:mod:`corpus.settings`: ``GROUNDWORK_DB_URL`` or the secrets file).
* SQLite runs in WAL mode with ``synchronous=FULL`` (an acknowledged label survives a killed
  server). A write transaction starts with ``BEGIN IMMEDIATE``, so it holds the write lock from
  its first statement and two writers never deadlock; a read starts with a plain ``BEGIN`` and
  never blocks a writer. Connections are pooled: opening one per statement (and checkpointing
  the WAL each time the last one closes) was most of a write's cost.
"""

from __future__ import annotations

import functools
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.dialects import postgresql, sqlite

READ_ONLY = "groundwork_read_only"


def default_url(directory: str | Path) -> str:
    """The SQLite file ``groundwork.sqlite`` in ``directory`` (created if missing)."""
    path = Path(directory).resolve() / "groundwork.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def make_engine(url: str) -> sa.Engine:
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    if not url.startswith("sqlite"):
        return sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)
    eng = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, pool_size=5, max_overflow=20)

    @event.listens_for(eng, "connect")
    def _pragmas(dbapi_conn, _record):  # noqa: ANN001
        # Let SQLAlchemy's BEGIN be the only transaction control (pysqlite quirk).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout=30000")
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
