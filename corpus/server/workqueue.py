"""The server's queue of heavy work: report builds, imports, validations of uploaded runs, Compare's
first scoring of a run set. One queue for every process that serves the same data directory (the
replicas of a lab's set-up share it), kept in one small JSON file under an exclusive lock
(``fcntl.flock``), so its bounds are the machine's, not a process's.

- **Bounded**: at most ``running`` tickets run at once, at most ``waiting`` wait; a further one is
  refused with a message (:class:`QueueFull`), never queued without end.
- **A share per person**: one person (an account, or a client address for visitors who are not
  signed in: several tabs are one person) holds at most ``per_person`` tickets, running or waiting;
  when a slot frees, the waiting ticket of the person with the fewest running goes first, then the
  oldest. A waiting ticket knows its place (:meth:`WorkQueue.place`), which the page shows.
- **Nothing stays stuck**: a ticket's holder beats it while it waits or runs (:meth:`WorkQueue.beat`;
  :mod:`services.jobs` does it for every ticket of its process); a ticket not beaten for ``stale``
  seconds (its process died, its page was closed) is dropped, and its slot goes to the next.

The queue only admits: the work itself runs where its caller runs it (a worker process, or the
page's own thread), and the caller leaves the queue when it is done (:meth:`WorkQueue.leave`).
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

QUEUE_FILE = "queue.json"
LOCK_FILE = "queue.lock"


class QueueFull(Exception):
    """The work was not queued: its owner holds their share, or the queue is full. The message says
    which, in words for the page."""


@dataclass
class Ticket:
    id: str
    owner: str
    what: str  # what it does, for the page ("Building the report of sample_data")
    enqueued: float
    beat: float
    started: float | None = None

    @property
    def running(self) -> bool:
        return self.started is not None


@dataclass(frozen=True)
class Place:
    """Where a ticket stands: running (place 0), or waiting with ``place - 1`` tickets before it."""

    place: int
    waiting: int  # tickets waiting in all
    running: int  # tickets running in all

    @property
    def started(self) -> bool:
        return self.place == 0


class WorkQueue:
    def __init__(
        self,
        folder: str | Path,
        running: int = 2,
        waiting: int = 16,
        per_person: int = 2,
        stale: float = 30.0,
        clock: Callable[[], float] = time.time,
    ):
        self.folder = Path(folder)
        self.running, self.waiting, self.per_person, self.stale = running, waiting, per_person, stale
        self._clock = clock

    # -- the file, under its lock ------------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[list[Ticket]]:
        """The tickets, for reading and changing while this process holds the lock; written back
        (whole, by rename) when the block ends without an error, after the queue moved on."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / LOCK_FILE, "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                tickets = self._read()
                before = [asdict(t) for t in tickets]
                yield tickets
                self._move_on(tickets)
                if [asdict(t) for t in tickets] != before:
                    self._write(tickets)
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)

    def _read(self) -> list[Ticket]:
        try:
            rows = json.loads((self.folder / QUEUE_FILE).read_text(encoding="utf-8"))
            return [Ticket(**row) for row in rows]
        except (FileNotFoundError, ValueError, TypeError):  # none yet, or unreadable: start afresh
            return []

    def _write(self, tickets: list[Ticket]) -> None:
        tmp = self.folder / f".{QUEUE_FILE}.{os.getpid()}"
        tmp.write_text(json.dumps([asdict(t) for t in tickets]), encoding="utf-8")
        os.replace(tmp, self.folder / QUEUE_FILE)

    def _move_on(self, tickets: list[Ticket]) -> None:
        """Drop what nobody beats any more, and start waiting tickets while slots are free (fairly)."""
        now = self._clock()
        tickets[:] = [t for t in tickets if now - t.beat <= self.stale]
        running = Counter(t.owner for t in tickets if t.running)
        for ticket in self._in_turn(tickets)[: max(self.running - sum(running.values()), 0)]:
            ticket.started = now

    @staticmethod
    def _in_turn(tickets: list[Ticket]) -> list[Ticket]:
        """The waiting tickets in the order they start: the person with the fewest running first
        (counting those started before them in this order), then the oldest."""
        running = Counter(t.owner for t in tickets if t.running)
        waiting = sorted((t for t in tickets if not t.running), key=lambda t: (t.enqueued, t.id))
        order: list[Ticket] = []
        while waiting:
            chosen = min(waiting, key=lambda t: running[t.owner])  # min keeps the oldest among equals
            order.append(chosen)
            running[chosen.owner] += 1
            waiting.remove(chosen)
        return order

    # -- what callers do ---------------------------------------------------------------------------

    def join(self, owner: str, what: str) -> Ticket:
        """Queue ``what`` for ``owner``: the ticket (started already if a slot was free), or
        :class:`QueueFull`."""
        now = self._clock()
        with self._locked() as tickets:
            self._move_on(tickets)
            mine = [t for t in tickets if t.owner == owner]
            if len(mine) >= self.per_person:
                raise QueueFull(
                    f"you have {len(mine)} heavy task{'s' * (len(mine) != 1)} running or waiting already "
                    f"({'; '.join(t.what for t in mine)}): wait for {'one of them' if len(mine) > 1 else 'it'}"
                )
            if sum(not t.running for t in tickets) >= self.waiting:
                raise QueueFull(
                    f"the server has {self.waiting} heavy tasks of other people waiting, the most it keeps; "
                    "try again in a few minutes"
                )
            ticket = Ticket(secrets.token_hex(8), owner, what, now, now)
            tickets.append(ticket)
        return ticket

    def ticket(self, ticket_id: str) -> Ticket | None:
        """The ticket as the queue has it now (None once it left or was dropped)."""
        with self._locked() as tickets:
            return next((t for t in tickets if t.id == ticket_id), None)

    def place(self, ticket_id: str) -> Place | None:
        """Where the ticket stands now (it is beaten too); None once it left or was dropped."""
        now = self._clock()
        with self._locked() as tickets:
            self._move_on(tickets)  # a ticket nobody beat in time is gone before its holder asks
            mine = next((t for t in tickets if t.id == ticket_id), None)
            if mine is None:
                return None
            mine.beat = now
            order = self._in_turn(tickets)
            running = sum(t.running for t in tickets)
            return Place(0 if mine.running else order.index(mine) + 1, len(order), running)

    def beat(self, ticket_ids: list[str]) -> None:
        """Tell the queue these tickets' holders are still there."""
        if not ticket_ids:
            return
        now, ids = self._clock(), set(ticket_ids)
        with self._locked() as tickets:
            self._move_on(tickets)
            for t in tickets:
                if t.id in ids:
                    t.beat = now

    def leave(self, ticket_id: str) -> None:
        """The work is done (or given up): its slot goes to the next."""
        with self._locked() as tickets:
            tickets[:] = [t for t in tickets if t.id != ticket_id]

    def tickets(self) -> list[Ticket]:
        """Every ticket, running first, then in the order they start."""
        with self._locked() as tickets:
            return [t for t in tickets if t.running] + self._in_turn(tickets)
