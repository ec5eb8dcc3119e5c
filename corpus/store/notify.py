"""Label writes announced on PostgreSQL (LISTEN/NOTIFY), so that live panels need not ask the
database whether a label came in.

Every transaction that writes labels sends ``NOTIFY groundwork_labels, '<task id>'``
(:func:`announce`); PostgreSQL delivers it when the transaction commits, and not at all when it
rolls back. In each app process one :class:`Listener` per database holds a connection of its own
(one more per replica in the connection budget), listens on the channel in a thread, and counts the
notices per task. A live panel compares :meth:`Listener.mark` (a dictionary read) with the mark it
drew from, and reads the database only when it moved: with 50 coders and a dozen panels open, the
panels ask nothing of the database between labels. A lost connection is opened again; until it
is, and on SQLite (which has no such channel), :meth:`Store.label_changes` gives None and the panel
asks for the labels version (one row) as before. Each new connection starts a new epoch, so a mark
taken before a notice could have been missed never equals one taken after.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict

import sqlalchemy as sa

CHANNEL = "groundwork_labels"
RETRY_SECONDS = 1.0
POLL_SECONDS = 5.0  # how long one wait for notices lasts before the thread looks again


def announce(c: sa.Connection, task_id: int) -> None:
    """Tell the listeners that ``task_id``'s labels changed, when this transaction commits
    (PostgreSQL; nothing elsewhere)."""
    if c.dialect.name == "postgresql":
        c.execute(sa.text("SELECT pg_notify(:channel, :task)"), {"channel": CHANNEL, "task": str(int(task_id))})


class Listener:
    """Counts the notices of label writes per task, from a thread with its own connection."""

    def __init__(self, url: sa.URL):
        self._dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self._lock = threading.Lock()
        self._counts: dict[int, int] = defaultdict(int)
        self._epoch = 0
        self._listening = False
        threading.Thread(target=self._run, name="groundwork-label-notices", daemon=True).start()

    def mark(self, task_id: int) -> tuple[int, int] | None:
        """(connection epoch, notices for ``task_id`` so far), or None while not listening."""
        with self._lock:
            return (self._epoch, self._counts[task_id]) if self._listening else None

    def _run(self) -> None:
        import psycopg

        while True:
            try:
                with psycopg.connect(self._dsn, autocommit=True) as conn:
                    conn.execute(f"LISTEN {CHANNEL}")
                    with self._lock:
                        self._epoch += 1
                        self._listening = True
                    while True:
                        for note in conn.notifies(timeout=POLL_SECONDS):
                            if note.payload.isdigit():
                                with self._lock:
                                    self._counts[int(note.payload)] += 1
            except Exception:  # noqa: BLE001 - a lost connection: listen again on a new one
                with self._lock:
                    self._listening = False
                time.sleep(RETRY_SECONDS)


_listeners: dict[str, Listener] = {}
_listeners_lock = threading.Lock()


def listener(engine: sa.Engine) -> Listener | None:
    """This process's listener for ``engine``'s database (started on first use); None on SQLite."""
    if engine.dialect.name != "postgresql":
        return None
    key = engine.url.render_as_string(hide_password=False)
    with _listeners_lock:
        if key not in _listeners:
            _listeners[key] = Listener(engine.url)
        return _listeners[key]
