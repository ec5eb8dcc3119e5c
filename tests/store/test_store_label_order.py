"""The labels version and the live panel's incremental read while a lead's CSV import and coders
write at once: the version equals a count of the labels table, and a reader that follows the task
from one refresh to the next (as the live panel does) ends with exactly the labels a full read
gives.

On PostgreSQL a label's id is drawn when it is inserted and the row is seen when its transaction
commits, so ids and commits need not come in the same order. The first test makes one bad order
happen every time (other connections hold the locks that stop each writer where the test wants
it, and let go in turn); the second runs the import and coders in several processes, on SQLite and
PostgreSQL."""

from __future__ import annotations

import multiprocessing as mp
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager

import pytest
import sqlalchemy as sa

from corpus import codebook as cbm
from corpus.store import Store
from store.test_store_concurrency import _plain_main
from store.writers import import_labels, write_labels

pytestmark = pytest.mark.long


def until(what: Callable[[], object], timeout: float = 60.0, why: str = "the condition") -> object:
    """Poll ``what`` until it returns something true (its value), or fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = what()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"{why} did not happen within {timeout:g} s")


def recount(store: Store, task_id: int) -> tuple[int, int]:
    """(label rows, newest id) of a task, counted from the labels table itself."""
    with store.engine.connect() as c:
        row = c.execute(
            sa.text("SELECT count(*), coalesce(max(id), 0) FROM labels WHERE task_id = :t"), {"t": task_id}
        ).one()
    return int(row[0]), int(row[1])


class Holder:
    """A connection of its own that takes a row lock and keeps it until :meth:`release`."""

    def __init__(self, engine: sa.Engine, sql: str, params: dict):
        self.conn = engine.connect()
        self.conn.begin()
        self.pid = int(self.conn.execute(sa.text("SELECT pg_backend_pid()")).scalar_one())
        assert self.conn.execute(sa.text(sql), params).first() is not None, sql

    def release(self) -> None:
        self.conn.commit()
        self.conn.close()


class Probe:
    """Which of this test's connections wait for a lock, and for whom (``pg_blocking_pids``)."""

    def __init__(self, engine: sa.Engine):
        self.conn = engine.connect().execution_options(isolation_level="AUTOCOMMIT")

    def waiting(self) -> dict[int, list[int]]:
        rows = self.conn.execute(
            sa.text(
                "SELECT pid, pg_blocking_pids(pid) FROM pg_stat_activity "
                "WHERE application_name = current_setting('application_name') "
                "AND cardinality(pg_blocking_pids(pid)) > 0"
            )
        ).all()
        return {int(pid): list(blockers) for pid, blockers in rows}


class Running:
    """``job()`` in a thread; :meth:`result` re-raises what it raised."""

    def __init__(self, job: Callable[[], object]):
        self.value: object = None
        self.error: BaseException | None = None

        def run() -> None:
            try:
                self.value = job()
            except BaseException as exc:  # noqa: BLE001 - handed to the test
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def result(self, timeout: float = 60.0) -> object:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the writer did not finish"
        if self.error is not None:
            raise self.error
        return self.value


@contextmanager
def _stores(url: str, n: int):
    stores = [Store(url) for _ in range(n)]
    try:
        yield stores
    finally:
        for s in stores:
            s.engine.dispose()


@pytest.mark.postgres
def test_an_import_and_a_coder_committing_out_of_id_order_leave_the_version_and_the_reader_exact(postgres_url):
    """The import draws its label's id first, the coder's relabel a higher one; the coder commits
    first and the reader reads in between; then the import commits. Before, the import counted the
    task's labels from a view that missed the coder's label (the version stayed one short) and the
    reader, already past the coder's higher id, never read the import's label."""
    url = postgres_url
    with _stores(url, 3) as (store, importing, coding):
        lead = store.create_user("lead", "lead-password", "lead")
        ann = store.create_user("ann", "ann-password", "coder")
        bob = store.create_user("bob", "bob-password", "coder")
        ext = store.create_user("ext", None, "coder", kind="model")
        items = [{"session_id": "S", "action_index": i} for i in range(6)]
        task = store.create_task(lead, "order", "x", cbm.default(), items, [ann, bob, ext], dataset_hash="h")
        x, y = "S:0", "S:1"
        store.add_label(ann, task.id, x, "initiate")
        store.add_label(bob, task.id, y, "continue")
        store.add_label(bob, task.id, "S:2", "repair")
        view = store.refresh_labels(lead, task.id)
        probe = Probe(store.engine)
        # B2 stops the import's label at its check of the coder account (after its id is drawn);
        # B3 stops the import where it brings the agreement sums of item y up to date; B1 stops the
        # coder's relabel of x at the same step for x.
        b2 = Holder(store.engine, "SELECT id FROM users WHERE id = :u FOR UPDATE", {"u": ext.id})
        b3 = Holder(
            store.engine,
            "SELECT code FROM agreement_labels WHERE task_id = :t AND item_id = :i AND coder_id = :u FOR UPDATE",
            {"t": task.id, "i": y, "u": bob.id},
        )
        b1 = Holder(
            store.engine,
            "SELECT code FROM agreement_labels WHERE task_id = :t AND item_id = :i AND coder_id = :u FOR UPDATE",
            {"t": task.id, "i": x, "u": ann.id},
        )
        held = [b1, b2, b3]
        try:
            imported = Running(
                lambda: importing.import_labels_csv(
                    lead, task.id, f"item,coder,label\n{y},ext,acknowledge\n".encode(), file="ext.csv"
                )
            )
            importer = until(lambda: next(iter(probe.waiting()), None), why="the import waiting")
            relabelled = Running(lambda: coding.add_label(ann, task.id, x, "repair", request_id="ann-x-2"))
            coder = until(
                lambda: next((p for p in probe.waiting() if p != importer), None), why="the coder's label waiting"
            )
            b2.release()
            until(
                lambda: (w := probe.waiting().get(importer)) and b2.pid not in w,
                why="the import waiting again, past its label",
            )
            b1.release()
            until(lambda: b3.pid in probe.waiting().get(importer, []), why="the import waiting on item y")
            view = store.refresh_labels(lead, task.id, view)  # between the coder's commit and the import's
            b3.release()
            assert imported.result().n_labels == 1
            relabelled.result()
        finally:
            for h in held:
                if not h.conn.closed:
                    h.release()
            probe.conn.close()
        assert coder != importer
        view = store.refresh_labels(lead, task.id, view)
        full = store.labels(lead, task.id)
        assert sorted(view["id"]) == sorted(full["id"])
        assert sorted(zip(view["item_id"], view["coder"], view["code"])) == [
            (x, "ann", "repair"),
            (y, "bob", "continue"),
            (y, "ext", "acknowledge"),
            ("S:2", "bob", "repair"),
        ]
        assert store.labels_version(task.id) == recount(store, task.id) == (5, int(full["id"].max()))
        assert tuple(view.attrs["labels_version"]) == store.labels_version(task.id)


CODERS = 3
LABELS_EACH = 120  # per coder
IMPORTS = 4  # the import process's CSV files, one after the other
IMPORT_ROWS = 150  # per file


def test_labels_imported_while_coders_write_reach_a_following_reader_exactly(url):
    """One process imports label files while three coders' processes write labels; the test reads
    the task incrementally all the while. In the end the reader has every label, the version equals
    a count of the labels table, and the count is every label written."""
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    coders = [store.create_user(f"c{i}", f"c{i}-password", "coder") for i in range(CODERS)]
    n_items = max(LABELS_EACH, IMPORT_ROWS * IMPORTS)
    task = store.create_task(
        lead,
        "import-while-coding",
        "x",
        cbm.default(),
        [{"session_id": "S", "action_index": i} for i in range(n_items)],
        coders,
        dataset_hash="h",
    )
    files = [
        "item,coder,label\n"
        + "".join(f"S:{i},model{f},continue\n" for i in range(IMPORT_ROWS * f, IMPORT_ROWS * (f + 1)))
        for f in range(IMPORTS)
    ]
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["corpus.store", "store.writers"])
    out, start = ctx.Queue(), ctx.Event()
    items = [f"S:{i}" for i in range(LABELS_EACH)]
    procs = [
        ctx.Process(
            target=write_labels,
            args=(url, task.id, c.username, items, [f"{c.username}-{i}" for i in items], start, out),
        )
        for c in coders
    ]
    procs.append(ctx.Process(target=import_labels, args=(url, task.id, "lead", files, start, out)))
    with _plain_main():
        for p in procs:
            p.start()
    view = store.refresh_labels(lead, task.id)
    start.set()
    refreshes, deadline = 0, time.monotonic() + 300
    while any(p.is_alive() for p in procs):  # the reader follows the task as long as the writers write
        assert time.monotonic() < deadline, "the writers did not finish within 300 s"
        view = store.refresh_labels(lead, task.id, view)
        refreshes += 1
    results = [out.get(timeout=60) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert [errors for _, _, errors in results] == [[]] * len(procs)
    view = store.refresh_labels(lead, task.id, view)
    full = store.labels(lead, task.id)
    total = CODERS * LABELS_EACH + IMPORTS * IMPORT_ROWS
    assert refreshes > 1
    assert len(full) == total
    assert sorted(view["id"]) == sorted(full["id"])
    assert store.labels_version(task.id) == recount(store, task.id) == (total, int(full["id"].max()))
    assert tuple(view.attrs["labels_version"]) == store.labels_version(task.id)
    store.engine.dispose()
