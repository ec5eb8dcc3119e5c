"""Work a visitor starts that takes seconds (validating uploaded predictions), done away from the
pages: in a separate worker process, so the server's own processor time stays with the pages.

Limits: one job at a time per visitor (a browser session, or an account), :data:`JOBS_AT_ONCE` jobs
waiting or running in all (a further one is refused with a message, never queued without end),
:data:`WORKERS` worker process. A job's result is kept until its owner has read it or for
:data:`KEEP_SECONDS`. The worker is started at the first job (a fresh interpreter: the server's
threads are not copied into it) and replaced after :data:`JOBS_PER_WORKER` jobs, which returns the
memory a large job took.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from corpus.processes import WorkerContext

JOBS_AT_ONCE = 4
WORKERS = 1
JOBS_PER_WORKER = 20
KEEP_SECONDS = 600


class Busy(Exception):
    """The job was not started: its owner has one running, or the server has as many as it takes."""


@dataclass
class Job:
    id: str
    owner: str
    what: str  # what it does, for the page ("Validating runs.zip")
    future: Future
    started: float = field(default_factory=time.monotonic)

    @property
    def done(self) -> bool:
        return self.future.done()

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started


_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_jobs: dict[str, Job] = {}


def _executor() -> ProcessPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ProcessPoolExecutor(
            max_workers=WORKERS, mp_context=WorkerContext(), max_tasks_per_child=JOBS_PER_WORKER
        )
    return _pool


def _forget_old() -> None:
    now = time.monotonic()
    for jid in [j.id for j in _jobs.values() if j.done and now - j.started > KEEP_SECONDS]:
        del _jobs[jid]


def submit(owner: str, what: str, fn: Callable[..., Any], *args: Any) -> Job:
    """Start ``fn(*args)`` in the worker for ``owner``; raises :class:`Busy` past the limits.
    ``fn`` and its arguments must be importable and picklable (a module-level function)."""
    global _pool
    with _lock:
        _forget_old()
        mine = [j for j in _jobs.values() if j.owner == owner and not j.done]
        if mine:
            raise Busy(f"{mine[0].what} is still running; wait for it before starting another")
        if sum(not j.done for j in _jobs.values()) >= JOBS_AT_ONCE:
            raise Busy(f"the server is working through {JOBS_AT_ONCE} uploads of other people; try again in a minute")
        try:
            future = _executor().submit(fn, *args)
        except RuntimeError:  # a broken pool (its worker was killed): start a new one
            _pool = None
            future = _executor().submit(fn, *args)
        job = Job(uuid.uuid4().hex, owner, what, future)
        _jobs[job.id] = job
        return job


def get(job_id: str | None) -> Job | None:
    with _lock:
        return _jobs.get(job_id or "")


def take(job_id: str) -> Any:
    """A finished job's result (or its exception, raised), and the job forgotten."""
    with _lock:
        job = _jobs.pop(job_id)
    return job.future.result()
