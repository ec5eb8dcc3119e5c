"""Heavy work a visitor starts, through the server's one queue (:mod:`corpus.server.workqueue`): imports and
validations of uploads, run in a worker process (:func:`submit`), and report builds and Compare's
first scoring of a run set, run on the page's own thread once it is their turn (:func:`turn`).

- **One queue for the server**: every process serving the same data directory (a lab's replicas)
  shares it; :func:`at_once` tickets run at once (``GROUNDWORK_HEAVY_AT_ONCE``), at most
  :data:`WAITING` wait, a further one is refused with a message (:class:`Busy`).
- **A share per person**: :func:`owner` is the account, or for a visitor who is not signed in the
  client address (several tabs of one person are one person); each holds at most
  :data:`PER_PERSON` tickets, and a freed slot goes to the person running fewest. A waiting visitor
  is shown their place (:meth:`Job.place`, :func:`turn`'s ``waiting``).
- **Nothing left behind**: a thread of each process beats the tickets the process holds; a ticket of
  a process that died, or of a page closed while it waited, is dropped within :data:`STALE` seconds.
  The worker process is started at the first job (a fresh interpreter: the server's threads are not
  copied into it) and replaced after :data:`JOBS_PER_WORKER` jobs, which returns the memory a large
  job took. A job's result is kept until its owner has read it or for :data:`KEEP_SECONDS`.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from corpus.server.processes import WorkerContext
from corpus.server.workqueue import Place, QueueFull, WorkQueue
from corpus.store import User
from services.client import client_key
from services.settings import settings

log = logging.getLogger("groundwork.jobs")

WAITING = 16  # tickets waiting at most, server-wide
PER_PERSON = 2  # tickets one person holds at most, running or waiting
STALE = 30.0  # seconds without a beat before a ticket is dropped
BEAT_SECONDS = 5.0
POLL_SECONDS = 0.25
JOBS_PER_WORKER = 20
KEEP_SECONDS = 600


class Busy(Exception):
    """The work was not queued: its owner holds their share, or the server's queue is full."""


def at_once() -> int:
    """Heavy tasks running at once on this server (all its processes together)."""
    return settings().heavy_at_once


def queue() -> WorkQueue:
    """The server's queue, in the data directory every process serving it shares."""
    return WorkQueue(
        settings().data_dir / "queue", running=at_once(), waiting=WAITING, per_person=PER_PERSON, stale=STALE
    )


def owner(user: User | None) -> str:
    """Whose share a task counts against: the account, else the client address (a visitor who is not
    signed in: every tab of theirs is the same person)."""
    return f"user:{user.id}" if user is not None else f"client:{client_key()}"


def place_text(place: Place | None) -> str:
    """Where a waiting task stands, in words."""
    if place is None or place.started:
        return "Running now."
    ahead = place.place - 1
    before = "next in line" if ahead == 0 else f"{ahead} task{'s' * (ahead != 1)} before it"
    return (
        f"Waiting for a turn: {before} ({place.running} heavy task{'s' * (place.running != 1)} running on the server)."
    )


# -- the tickets this process holds, beaten while held ---------------------------------------------

_held: set[str] = set()
_held_lock = threading.Lock()
_beater: threading.Thread | None = None


def _hold(ticket_id: str) -> None:
    global _beater
    with _held_lock:
        _held.add(ticket_id)
        if _beater is None or not _beater.is_alive():
            _beater = threading.Thread(target=_beat_forever, name="groundwork-queue-beat", daemon=True)
            _beater.start()


def _release(ticket_id: str, q: WorkQueue) -> None:
    with _held_lock:
        _held.discard(ticket_id)
    try:
        q.leave(ticket_id)
    except OSError:
        log.exception("the queue could not be told that %s is done (it is dropped when it goes stale)", ticket_id)


def _beat_forever() -> None:
    while True:
        time.sleep(BEAT_SECONDS)
        with _held_lock:
            ids = list(_held)
        if ids:
            try:
                queue().beat(ids)
            except Exception:  # noqa: BLE001 - never let the beat die: tickets would go stale
                log.exception("beating the queue's tickets")


def _join(who: str, what: str) -> tuple[WorkQueue, str]:
    q = queue()
    try:
        ticket = q.join(who, what)
    except QueueFull as exc:
        raise Busy(str(exc)) from None
    _hold(ticket.id)
    log.info("queued %s for %s (ticket %s, %s)", what, who, ticket.id, "running" if ticket.running else "waiting")
    return q, ticket.id


# -- work on the page's own thread -----------------------------------------------------------------


@contextmanager
def turn(who: str, what: str, waiting: Callable[[Place], None] | None = None) -> Iterator[None]:
    """Wait for a turn in the server's queue, then run the block; ``waiting(place)`` is called while
    it waits (the page shows the place). Raises :class:`Busy` if it cannot be queued. A page left
    while it waits (Streamlit stops its script at its next call) gives up its place."""
    q, ticket_id = _join(who, what)
    try:
        while True:
            place = q.place(ticket_id)
            if place is None:
                raise Busy("the server dropped this task from its queue; try again")
            if place.started:
                break
            if waiting is not None:
                waiting(place)
            time.sleep(POLL_SECONDS)
        yield
    finally:
        _release(ticket_id, q)


# -- work in a worker process ----------------------------------------------------------------------


@dataclass
class Job:
    id: str
    owner: str
    what: str  # what it does, for the page ("Validating runs.zip")
    future: Future = field(default_factory=Future)  # its result, once it ran
    ticket: str = ""
    started: float = field(default_factory=time.monotonic)

    @property
    def done(self) -> bool:
        return self.future.done()

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def place(self) -> Place | None:
        """Where it stands in the server's queue (None once done)."""
        return None if self.done else queue().place(self.ticket)


_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_jobs: dict[str, Job] = {}


def _executor() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(
            max_workers=settings().heavy_at_once, mp_context=WorkerContext(), max_tasks_per_child=JOBS_PER_WORKER
        )
    return _pool


def _forget_old() -> None:
    now = time.monotonic()
    for jid in [j.id for j in _jobs.values() if j.done and now - j.started > KEEP_SECONDS]:
        del _jobs[jid]


def _start_in_worker(fn: Callable[..., Any], args: tuple) -> Future:
    global _pool
    with _lock:
        try:
            return _executor().submit(fn, *args)
        except RuntimeError:  # a broken pool (its worker was killed): start a new one
            _pool = None
            return _executor().submit(fn, *args)


def _dispatch(job: Job, q: WorkQueue, fn: Callable[..., Any], args: tuple) -> None:
    """Wait for the job's turn, run it in the worker, leave the queue and hand its outcome over (in
    that order: whoever takes the outcome finds the job's place in the queue free)."""
    result: Any = None
    error: BaseException | None = None
    try:
        while True:
            place = q.place(job.ticket)
            if place is None:
                raise Busy("the server dropped this task from its queue; try again")
            if place.started:
                break
            time.sleep(POLL_SECONDS)
        job.started = time.monotonic()
        result = _start_in_worker(fn, args).result()
    except BaseException as exc:  # noqa: BLE001 - handed to whoever takes the job
        error = exc
    finally:
        try:
            _release(job.ticket, q)
        finally:
            if error is not None:
                job.future.set_exception(error)
            else:
                job.future.set_result(result)


def submit(who: str, what: str, fn: Callable[..., Any], *args: Any) -> Job:
    """Queue ``fn(*args)`` for ``who`` (see :func:`owner`) to run in a worker process once it is its
    turn; raises :class:`Busy` if it cannot be queued. ``fn`` and its arguments must be importable
    and picklable (a module-level function)."""
    q, ticket_id = _join(who, what)
    job = Job(uuid.uuid4().hex, who, what, ticket=ticket_id)
    with _lock:
        _forget_old()
        _jobs[job.id] = job
    threading.Thread(
        target=_dispatch, args=(job, q, fn, args), name=f"groundwork-job-{job.id[:8]}", daemon=True
    ).start()
    return job


def get(job_id: str | None) -> Job | None:
    with _lock:
        return _jobs.get(job_id or "")


def take(job_id: str) -> Any:
    """A finished job's result (or its exception, raised), and the job forgotten."""
    with _lock:
        job = _jobs.pop(job_id)
    return job.future.result()
