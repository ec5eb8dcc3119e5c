"""The server's queue of heavy work (corpus/server/workqueue.py): its bounds, a share per person, fair turns,
the place a waiting ticket is shown, tickets nobody beats dropped, and one queue for several
processes on one data directory (the lab's replicas)."""

from __future__ import annotations

import time

import pytest

from corpus.server.processes import WorkerContext
from corpus.server.workqueue import QueueFull, WorkQueue


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def queue(tmp_path, clock) -> WorkQueue:
    return WorkQueue(tmp_path, running=2, waiting=3, per_person=2, stale=30, clock=clock)


def _join(queue: WorkQueue, clock: Clock, owner: str, what: str = "work"):
    clock.now += 1
    return queue.join(owner, what)


def test_two_run_at_once_the_rest_wait_in_their_place(queue, clock):
    a = _join(queue, clock, "user:1", "report")
    b = _join(queue, clock, "user:2", "import")
    c = _join(queue, clock, "client:203.0.113.9", "validation")
    d = _join(queue, clock, "user:3", "scoring")
    assert [a.running, b.running, c.running, d.running] == [True, True, False, False]
    assert [queue.place(t.id).place for t in (a, b, c, d)] == [0, 0, 1, 2]
    assert queue.place(d.id).waiting == 2 and queue.place(d.id).running == 2
    queue.leave(a.id)
    assert [queue.place(t.id).place for t in (c, d)] == [0, 1]
    assert queue.place(a.id) is None


def test_one_person_holds_their_share_however_many_tabs_they_open(queue, clock):
    _join(queue, clock, "client:203.0.113.9", "Validating runs.zip")
    _join(queue, clock, "client:203.0.113.9", "Validating more.zip")
    with pytest.raises(QueueFull, match=r"you have 2 heavy tasks running or waiting already"):
        _join(queue, clock, "client:203.0.113.9", "Validating a third.zip")
    assert _join(queue, clock, "user:7").running is False  # someone else still gets a place


def test_the_queue_is_bounded(queue, clock):
    for owner in ("user:1", "user:2", "user:3", "user:4", "user:5"):
        _join(queue, clock, owner)
    with pytest.raises(QueueFull, match=r"the server has 3 heavy tasks of other people waiting"):
        _join(queue, clock, "user:6")
    assert len(queue.tickets()) == 5


def test_a_freed_slot_goes_to_the_person_with_fewest_running_then_the_oldest(queue, clock):
    first = _join(queue, clock, "user:1")
    second = _join(queue, clock, "user:1")  # the same person's second: waits behind nobody yet ...
    other = _join(queue, clock, "user:2")
    assert [first.running, second.running, other.running] == [True, True, False]
    late = _join(queue, clock, "user:3")
    queue.leave(first.id)  # user:1 still runs one; user:2 and user:3 run none: the older of them goes
    assert [queue.place(t.id).place for t in (other, late)] == [0, 1]


def test_a_ticket_nobody_beats_is_dropped_and_its_slot_given_on(queue, clock):
    gone = _join(queue, clock, "user:1")
    kept = _join(queue, clock, "user:2")
    waiting = _join(queue, clock, "user:3")
    clock.now += 20
    queue.beat([kept.id, waiting.id])
    clock.now += 15  # gone's process stopped beating 35 s ago
    assert queue.place(gone.id) is None
    assert queue.place(waiting.id).place == 0


def test_an_unreadable_queue_file_starts_afresh(tmp_path, clock):
    (tmp_path / "queue.json").write_text("{not json", encoding="utf-8")
    queue = WorkQueue(tmp_path, clock=clock)
    assert queue.join("user:1", "work").running


def _hold_a_slot(folder: str, owner: str, seconds: float, out) -> None:  # noqa: ANN001
    """In another process: queue, wait for a turn, hold it for ``seconds``, report when it ran."""
    queue = WorkQueue(folder, running=2, waiting=16, per_person=1)
    ticket = queue.join(owner, "work")
    while not queue.place(ticket.id).started:
        time.sleep(0.02)
    began = time.time()
    time.sleep(seconds)
    queue.leave(ticket.id)
    out.put((owner, began, time.time()))


def test_several_processes_share_one_queue_and_its_bound(tmp_path):
    """Six processes (three replicas' worth of visitors) on one folder: never more than two at work."""
    ctx = WorkerContext()  # fresh interpreters that are not told of the test runner's own main module
    out = ctx.Queue()
    procs = [ctx.Process(target=_hold_a_slot, args=(str(tmp_path), f"user:{i}", 0.4, out)) for i in range(6)]
    for p in procs:
        p.start()
    spans = [out.get(timeout=180) for _ in procs]
    for p in procs:
        p.join(timeout=30)
    assert sorted(o for o, _, _ in spans) == [f"user:{i}" for i in range(6)]
    moments = sorted({t for _, b, e in spans for t in (b, e)})
    most = max(sum(b <= m < e for _, b, e in spans) for m in moments)
    assert most == 2
    assert WorkQueue(tmp_path).tickets() == []
