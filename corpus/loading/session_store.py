"""A loaded dataset's sessions, read again from their files when asked for, a bounded number kept.

A session with its actions takes about 3 KB per action as validated objects: a million actions
would take gigabytes. A loaded corpus keeps its tables (:mod:`corpus.loading.tables`) and every session's
``session.json`` (a :class:`corpus.model.SessionMeta`: condition, split, map, participants,
checkpoints), and builds a whole :class:`corpus.model.Session` only when one is asked for, from its
folder, validated as on load. The sessions built last are kept, up to ``budget`` actions in all
(the ones read on load first, as long as they fit), so a dataset of the sample's size is never
read twice.

The store reads the folder it was loaded from: a dataset read from a .zip (extracted to a folder
that is removed after) keeps every session instead (``budget=None``).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping

from corpus.model import Session, SessionMeta

# Actions of the whole sessions a loaded corpus keeps at most (the sessions asked for last).
SESSION_CACHE_ACTIONS = 20_000


class SessionStore(Mapping[str, Session]):
    """Session id -> :class:`Session`, in the dataset's order; ``meta(sid)`` and ``n_actions(sid)``
    without building the session."""

    def __init__(
        self,
        metas: Mapping[str, SessionMeta],
        n_actions: Mapping[str, int],
        read: Callable[[str], Session],
        budget: int | None = SESSION_CACHE_ACTIONS,
    ):
        self._metas = dict(metas)
        self._n = dict(n_actions)
        self._read = read
        self._budget = budget
        self._kept: OrderedDict[str, Session] = OrderedDict()
        self._kept_actions = 0
        self._lock = threading.Lock()

    @classmethod
    def holding(cls, sessions: Mapping[str, Session]) -> SessionStore:
        """A store of sessions already in memory, every one kept (there is no folder to read)."""

        def unknown(session_id: str) -> Session:
            raise KeyError(session_id)

        store = cls(sessions, {sid: len(s.actions) for sid, s in sessions.items()}, unknown, budget=None)
        for s in sessions.values():
            store.keep(s)
        return store

    # -- Mapping ------------------------------------------------------------------------------

    def __getitem__(self, session_id: str) -> Session:
        with self._lock:
            s = self._kept.get(session_id)
            if s is not None:
                self._kept.move_to_end(session_id)
                return s
        if session_id not in self._metas:
            raise KeyError(session_id)
        s = self._read(session_id)
        self.keep(s)
        return s

    def __iter__(self) -> Iterator[str]:
        return iter(self._metas)

    def __len__(self) -> int:
        return len(self._metas)

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._metas

    # -- without building sessions ------------------------------------------------------------

    def meta(self, session_id: str) -> SessionMeta:
        return self._metas[session_id]

    def n_actions(self, session_id: str) -> int:
        return self._n[session_id]

    def keep(self, s: Session) -> bool:
        """Keep ``s`` among the sessions built last, dropping the oldest beyond the budget; whether
        it is kept (a session larger than the whole budget is not)."""
        n = len(s.actions)
        with self._lock:
            if s.id in self._kept:
                return True
            if self._budget is not None and n > self._budget:
                return False
            self._kept[s.id] = s
            self._kept_actions += n
            while self._budget is not None and self._kept_actions > self._budget:
                _, old = self._kept.popitem(last=False)
                self._kept_actions -= len(old.actions)
            return True

    @property
    def kept(self) -> int:
        """How many whole sessions are held now."""
        return len(self._kept)
