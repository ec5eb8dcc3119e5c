"""Concurrent writers and a killed writer, on SQLite and PostgreSQL: no label lost, none written
twice, and a request id sent by several processes at once answered with one label."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
import types
from contextlib import contextmanager
from pathlib import Path

import pytest

from corpus import codebook as cbm
from corpus.store import Store
from store.writers import write_labels

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def _plain_main():
    """Children start without re-running this process's ``__main__``: under a test runner that is
    whatever script ran last in this process (an AppTest script, a test worker's bootstrap), which
    a child cannot run again."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _run_writers(url: str, task_id: int, jobs: list[tuple[str, list[str], list[str]]]) -> dict[str, tuple[list, list]]:
    """One process per (username, items, request ids), all started together; their results.

    The processes fork from a server that has imported the store once: ten fresh interpreters each
    importing pandas and SQLAlchemy would take longer than the writes under test."""
    ctx = mp.get_context("forkserver")
    ctx.set_forkserver_preload(["corpus.store", "store.writers"])
    out, start = ctx.Queue(), ctx.Event()
    procs = [
        ctx.Process(target=write_labels, args=(url, task_id, user, items, rids, start, out))
        for user, items, rids in jobs
    ]
    with _plain_main():
        for p in procs:
            p.start()
    start.set()
    results = {}
    for _ in procs:
        user, ids, errors = out.get(timeout=300)
        results.setdefault(user, []).append((ids, errors))
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    return results


# Per writer: their writes overlap from the first (all start at one signal). Ten writers of 60 labels
# each keep a write waiting on another's lock all through (a save that meets a lock waits it out under
# its request id: corpus.store.labels), which is what this proves; more writes only take longer.
WRITES_EACH = 60


def test_ten_concurrent_writers_lose_and_duplicate_nothing(url):
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    coders = [store.create_user(f"c{i}", None, "coder", kind="model") for i in range(10)]
    items = [f"S:{i}" for i in range(WRITES_EACH)]
    task = store.create_task(
        lead,
        "load",
        "x",
        cbm.default(),
        [{"session_id": "S", "action_index": i} for i in range(WRITES_EACH)],
        coders,
        dataset_hash="h",
    )
    results = _run_writers(url, task.id, [(c.username, items, [f"{c.username}-{i}" for i in items]) for c in coders])
    assert [e for runs in results.values() for _, e in runs if e] == []
    acked = [i for runs in results.values() for ids, _ in runs for i in ids]
    n = 10 * WRITES_EACH
    assert len(acked) == n and len(set(acked)) == n
    cur = store.labels(lead, task.id)
    assert len(cur) == n
    assert cur.groupby("coder").size().tolist() == [WRITES_EACH] * 10
    assert len(store.history(lead, task.id)) == n
    assert store.labels_version(task.id) == (n, max(acked))


RETRIED = 100  # request ids, each sent by three processes at once


def test_the_same_request_ids_from_three_processes_give_one_label_each(url):
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", "ann-password", "coder")
    task = store.create_task(
        lead,
        "retries",
        "x",
        cbm.default(),
        [{"session_id": "S", "action_index": i} for i in range(RETRIED)],
        [ann],
        dataset_hash="h",
    )
    items = [f"S:{i}" for i in range(RETRIED)]
    rids = [f"tab-retry-{i}" for i in range(RETRIED)]
    results = _run_writers(url, task.id, [("ann", items, rids)] * 3)
    runs = results["ann"]
    assert [errors for _, errors in runs] == [[], [], []]
    first, second, third = (ids for ids, _ in runs)
    assert first == second == third and len(set(first)) == RETRIED
    assert len(store.history(lead, task.id)) == RETRIED


_KILLED_WRITER = r"""
import sys
sys.path.insert(0, sys.argv[3])
from corpus.store import Store
store = Store(sys.argv[1])
user = store.user("ann")
for i in range(100000):
    lid = store.add_label(user, int(sys.argv[2]), f"S:{i % 200}", "repair")
    print(lid, flush=True)
"""


def test_a_killed_writer_loses_no_acknowledged_label(url):
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", "ann-password", "coder")
    task = store.create_task(
        lead,
        "kill",
        "x",
        cbm.default(),
        [{"session_id": "S", "action_index": i} for i in range(200)],
        [ann],
        dataset_hash="h",
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_WRITER, url, str(task.id), str(ROOT)], stdout=subprocess.PIPE, text=True
    )
    acked = []
    for line in proc.stdout:
        acked.append(int(line))
        if len(acked) >= 150:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    stored = set(Store(url).history(lead, task.id)["id"])
    assert set(acked) <= stored


_STARTING_REPLICA = """
import sys, time
sys.path.insert(0, sys.argv[2])
from corpus.store import Store
from services.store import announce_setup_token
store = Store(sys.argv[1])
while time.time() < float(sys.argv[3]):  # the replicas start together
    time.sleep(0.005)
announce_setup_token(store)
"""


def test_three_replicas_starting_together_print_one_setup_token_and_it_works(url):
    """Three app processes on one database start at the same moment: one issues the setup token,
    the others say one was issued and keep it (before, each replaced it and only the last worked)."""
    import time

    from corpus.store import SETUP_TOKEN_ISSUED

    Store(url)  # the schema exists before the replicas start, as after a deployment's first start
    start = time.time() + 3
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _STARTING_REPLICA, url, str(ROOT), str(start)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in outputs]
    printed = [out for out, _ in outputs]
    tokens = [line.split(": ", 1)[1] for out in printed for line in out.splitlines() if "setup token: " in line]
    assert len(tokens) == 1, printed
    assert sum(SETUP_TOKEN_ISSUED in out for out in printed) == 2
    lead = Store(url).claim_setup(tokens[0], "pi", "pi-password")
    assert lead.role == "lead"
