"""A coder's label save under contention: SQLite's write lock held by another connection past the
busy timeout, a deadlock on PostgreSQL, a commit that reports an error after it wrote. The save is
tried again under its request id and writes its label once; a lock that is never given up fails
the save with a clear error once the time allowed has passed, nothing written."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable

import pytest
import sqlalchemy as sa

from corpus import codebook as cbm
from corpus.store import Store


def until(what: Callable[[], object], timeout: float = 30.0, why: str = "the condition") -> object:
    """Poll ``what`` until it returns something true (its value), or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = what()
        if got:
            return got
        time.sleep(0.01)
    raise AssertionError(f"{why} did not happen within {timeout:g} s")


def _pilot(store: Store):
    """A lead, a coder and a 6-item task."""
    lead = store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", "ann-password", "coder")
    items = [{"session_id": "S01", "action_index": i} for i in range(6)]
    task = store.create_task(lead, "pilot", "sample", cbm.default(), items, [ann], seed=5, dataset_hash="h")
    return lead, ann, task


def _rows(store: Store, task_id: int) -> list[tuple[int, str | None]]:
    """(id, request id) of every label row of the task, read from the table itself."""
    with store.engine.connect() as c:
        return [
            (int(r[0]), r[1])
            for r in c.execute(
                sa.text("SELECT id, request_id FROM labels WHERE task_id = :t ORDER BY id"), {"t": task_id}
            )
        ]


def _errors(store: Store, sqlstate_or_text: str) -> list[str]:
    """The database errors the store meets from now on whose message or SQLSTATE is the one given."""
    met: list[str] = []

    def seen(context) -> None:  # noqa: ANN001 - SQLAlchemy's ExceptionContext
        orig = context.original_exception
        if getattr(orig, "sqlstate", None) == sqlstate_or_text or sqlstate_or_text in str(orig):
            met.append(str(orig))

    sa.event.listen(store.engine, "handle_error", seen)
    return met


def _sqlite_store(tmp_path, **policy) -> tuple[Store, str]:
    from corpus.store import WritePolicy

    path = tmp_path / "labels.sqlite"
    return Store(f"sqlite:///{path}", writes=WritePolicy(**policy)), str(path)


def _hold_write_lock(path: str) -> sqlite3.Connection:
    """Another connection that takes SQLite's write lock (BEGIN IMMEDIATE) and keeps it."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def test_a_save_waits_out_a_write_lock_held_past_the_busy_timeout(tmp_path):
    """The lock is held until the save has met "database is locked" twice (each try waited its
    0.1 s busy timeout): the save goes on trying and writes its label once."""
    store, path = _sqlite_store(tmp_path, seconds=30.0, busy_seconds=0.1)
    lead, ann, task = _pilot(store)
    locked = _errors(store, "database is locked")
    holder = _hold_write_lock(path)

    def release() -> None:
        until(lambda: len(locked) >= 2, why="two tries meeting the lock")
        holder.execute("COMMIT")

    releaser = threading.Thread(target=release, daemon=True)
    releaser.start()
    try:
        label = store.add_label(ann, task.id, "S01:1", "initiate", request_id="tab-1")
    finally:
        releaser.join(timeout=30)
        holder.close()
    assert len(locked) >= 2
    assert _rows(store, task.id) == [(label, "tab-1")]
    assert store.labels_version(task.id) == (1, label)
    assert store.add_label(ann, task.id, "S01:1", "initiate", request_id="tab-1") == label  # sent again: the same
    assert _rows(store, task.id) == [(label, "tab-1")]
    store.engine.dispose()


def test_a_lock_never_given_up_fails_the_save_clearly_once_the_time_allowed_has_passed(tmp_path):
    from corpus.store import StoreError, StoreUnavailable

    store, path = _sqlite_store(tmp_path, seconds=1.0, busy_seconds=0.1)
    lead, ann, task = _pilot(store)
    holder = _hold_write_lock(path)
    started = time.monotonic()
    try:
        with pytest.raises(StoreUnavailable) as refused:
            store.add_label(ann, task.id, "S01:1", "initiate", request_id="tab-2")
        took = time.monotonic() - started
    finally:
        holder.close()  # gives the lock up (its transaction rolls back)
    assert isinstance(refused.value, StoreError) and not refused.value.maybe_written
    said = str(refused.value)
    assert said.startswith("the label was not saved: other writes held the database locked ("), said
    assert "tries; the last: database is locked)" in said
    assert 1.0 <= took < 2.5  # the time allowed, the last try's wait cut to what was left of it
    assert _rows(store, task.id) == [] and store.labels_version(task.id) == (0, 0)
    label = store.add_label(ann, task.id, "S01:1", "initiate", request_id="tab-2")  # the lock is free now
    assert _rows(store, task.id) == [(label, "tab-2")]
    store.engine.dispose()


@pytest.mark.parametrize("request_id", ["tab-3", None])
def test_a_save_whose_commit_reports_an_error_after_writing_is_written_once(url, request_id):
    """The database commits the label and the driver then raises (a connection lost as the commit's
    answer came back; SQLite's "database is locked" at the commit): the outcome is unknown to the
    store, which tries again under the same request id (one of its own when none was given), finds
    the label written, and returns it."""
    store = Store(url)
    lead, ann, task = _pilot(store)
    dialect = store.engine.dialect
    commit = dialect.do_commit
    failed: list[int] = []

    def commit_then_fail(dbapi_connection) -> None:  # noqa: ANN001 - the driver's connection
        commit(dbapi_connection)
        if not failed:
            failed.append(1)
            if store.backend == "sqlite":
                raise sqlite3.OperationalError("database is locked")
            import psycopg

            raise psycopg.OperationalError("server closed the connection unexpectedly")

    dialect.do_commit = commit_then_fail  # type: ignore[method-assign]
    try:
        label = store.add_label(ann, task.id, "S01:2", "repair", request_id=request_id)
    finally:
        del dialect.do_commit  # the dialect's own method again
    assert failed == [1]
    rows = _rows(store, task.id)
    assert [i for i, _ in rows] == [label] and rows[0][1] is not None
    if request_id is not None:
        assert rows[0][1] == request_id
    assert store.labels_version(task.id) == (1, label)
    assert store.labels(lead, task.id)["code"].tolist() == ["repair"]
    store.engine.dispose()


@pytest.mark.postgres
def test_a_save_chosen_as_a_deadlock_victim_on_postgresql_is_tried_again(postgres_url):
    """Another transaction holds a row the save needs, then asks for the task's row, which the save
    holds: PostgreSQL ends the save's transaction as a deadlock. The save tries again, once the other
    transaction is done, and writes its label once."""
    store = Store(postgres_url)
    lead, ann, task = _pilot(store)
    first = store.add_label(ann, task.id, "S01:3", "initiate")
    deadlocks = _errors(store, "40P01")
    other = store.engine.connect()
    other.begin()
    other_pid = other.execute(sa.text("SELECT pg_backend_pid()")).scalar_one()
    # The agreement sums' row of ann's label of the item: the save's relabel changes it.
    other.execute(
        sa.text(
            "SELECT code FROM agreement_labels WHERE task_id = :t AND item_id = 'S01:3' AND coder_id = :u FOR UPDATE"
        ),
        {"t": task.id, "u": ann.id},
    ).one()
    result: dict = {}

    def save() -> None:
        try:
            result["label"] = store.add_label(ann, task.id, "S01:3", "repair", request_id="tab-4")
        except Exception as exc:  # noqa: BLE001 - handed to the test
            result["error"] = exc

    saving = threading.Thread(target=save, daemon=True)
    # Each look in a transaction of its own: within one, pg_stat_activity keeps its first answer.
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as probe:

        def save_waits() -> bool:
            return bool(
                probe.execute(
                    sa.text(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                        "current_setting('application_name') AND :p = ANY(pg_blocking_pids(pid))"
                    ),
                    {"p": other_pid},
                ).scalar_one()
            )

        saving.start()
        until(save_waits, why="the save waiting for the other transaction")
        # Now the task's row, which the save holds: a deadlock, and the save is its victim.
        other.execute(sa.text("SELECT id FROM tasks WHERE id = :t FOR UPDATE"), {"t": task.id}).one()
        other.commit()
        other.close()
    saving.join(timeout=60)
    assert "error" not in result, result.get("error")
    assert deadlocks, "the save met no deadlock"
    label = result["label"]
    assert [i for i, _ in _rows(store, task.id)] == [first, label]
    assert store.labels_version(task.id) == (2, label)
    assert store.labels(lead, task.id)["code"].tolist() == ["repair"]
    store.engine.dispose()
