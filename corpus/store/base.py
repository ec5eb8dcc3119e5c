"""What every part of the store shares: its errors, the User and Task records, the connection to
the database and the clock."""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

import sqlalchemy as sa

from corpus.codebook import Codebook
from corpus.store.engine import BUSY_SECONDS, READ_ONLY, make_engine, sqlite_wait, transient
from corpus.store.tables import DEFAULT_CODER_VIEW, DEFAULT_SHARE_MIN_ITEMS, users


class AccessDenied(PermissionError):
    """The acting user may not do or see this."""


class StoreError(ValueError):
    """A request the store refuses (unknown code, missing note, bad import ...)."""


class StoreUnavailable(StoreError):
    """A write the database did not take in the time allowed (:class:`WritePolicy`): other writers
    held it locked all that time, or it did not answer. ``maybe_written``: a try failed as it
    committed, and no later try could look, so the write may have been done (trying it again
    under the same request id is safe: it writes nothing twice)."""

    def __init__(self, message: str, maybe_written: bool = False):
        super().__init__(message)
        self.maybe_written = maybe_written


@dataclass(frozen=True)
class WritePolicy:
    """How a write that meets contention or a lost connection is tried again (a label's save).

    ``seconds``: the time a write may take in all, its tries and the pauses between them (the last
    try's wait for SQLite's lock is cut to what is left of it); ``busy_seconds``: how long one
    statement waits for SQLite's lock before a try fails; the pause after a failed try starts at
    ``first_pause`` and doubles up to ``longest_pause`` (each drawn between half and all of that,
    so writers that failed together do not try again together). On PostgreSQL a statement waits
    for a row lock as long as the server's ``lock_timeout`` lets it (none by default: the writers of
    a task's labels hold its row for one short transaction each), so there ``seconds`` bounds the
    tries after a deadlock, a serialization failure, a lock not granted in time or a lost
    connection."""

    seconds: float = 60.0
    busy_seconds: float = BUSY_SECONDS
    first_pause: float = 0.05
    longest_pause: float = 1.0


DEFAULT_WRITES = WritePolicy()

T = TypeVar("T")


@dataclass(frozen=True)
class User:
    id: int
    username: str
    display_name: str
    role: str
    kind: str = "human"
    status: str = "active"

    @property
    def is_lead(self) -> bool:
        return self.role == "lead"


@dataclass(frozen=True)
class Task:
    id: int
    name: str
    dataset: str
    codebook: Codebook
    seed: int
    context_k: int
    show_canvas: bool
    phase: str
    share_agreement: bool
    n_items: int
    dataset_hash: str | None = None
    coder_view: str = DEFAULT_CODER_VIEW
    share_min_items: int = DEFAULT_SHARE_MIN_ITEMS


def new_sign_in_key() -> str:
    """An account's sign-in key: 128 random bits, made once per account (see :mod:`corpus.store.signin`)."""
    return secrets.token_hex(16)


def utc_now() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A time read back from the database as an aware UTC time (SQLite returns naive ones)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def inserted_key(result: sa.CursorResult) -> Any:
    """The primary key of the one row an INSERT added (typed optional by SQLAlchemy, which returns
    None only for an insert that added no row)."""
    return cast(sa.Row, result.inserted_primary_key)[0]


def user_from_row(r) -> User:  # noqa: ANN001 - a row of the users table
    return User(int(r.id), r.username, r.display_name, r.role, r.kind, r.status)


class StoreBase:
    """The engine and clock; the parts of :class:`corpus.store.Store` build on these helpers."""

    def __init__(self, url: str, clock: Callable[[], datetime] | None = None, writes: WritePolicy | None = None):
        self.url = url
        self.writes = writes or DEFAULT_WRITES
        self.engine = make_engine(url, self.writes.busy_seconds)
        # Reads go through this: on SQLite they begin without taking the write lock.
        self._reads = self.engine.execution_options(**{READ_ONLY: True})
        self._clock = clock or utc_now

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    def _now(self) -> datetime:
        return self._clock()

    if TYPE_CHECKING:  # Accounts defines it; imports and new tasks with a model coder add accounts too

        def _insert_user(
            self,
            c: sa.Connection,
            username: str,
            password: str | None,
            role: str,
            display_name: str | None = None,
            kind: str = "human",
        ) -> User: ...

    @contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        with self._reads.connect() as c:
            yield c

    @contextmanager
    def _snapshot_read(self) -> Iterator[sa.Connection]:
        """A read whose queries all see one snapshot (SQLite's read transactions always do)."""
        reads = self._reads
        if self.backend == "postgresql":
            reads = reads.execution_options(isolation_level="REPEATABLE READ")
        with reads.begin() as c:
            yield c

    @contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        """One short write transaction (on SQLite it holds the write lock from its start)."""
        with self.engine.begin() as c:
            yield c

    def _write_retrying(self, what: str, attempt: Callable[[sa.Connection], T]) -> T:
        """``attempt(c)`` in a write transaction, tried again after contention or a lost connection
        (:func:`corpus.store.engine.transient`) with a growing pause, until the write policy's
        ``seconds`` have passed; then :class:`StoreUnavailable`, saying why. Only for an ``attempt``
        that is idempotent (a label under its request id): a try whose commit failed may have
        written, and the next try must find that and write nothing. An error that trying again does
        not mend is raised at once (a database error of its operation, as a full disk, as
        :class:`StoreUnavailable`; any other as it is)."""
        policy = self.writes
        start = time.monotonic()
        deadline = start + policy.seconds
        pause, tries, maybe_written = policy.first_pause, 0, False
        while True:
            tries += 1
            committing = False
            try:
                with self.engine.connect() as c:
                    left = deadline - time.monotonic()
                    with sqlite_wait(c, left, policy.busy_seconds) if left < policy.busy_seconds else _nothing():
                        with c.begin():
                            result = attempt(c)
                            committing = True
                return result
            except sa.exc.DBAPIError as exc:
                why = transient(exc)
                maybe_written = maybe_written or committing
                if why is None:
                    if isinstance(exc, sa.exc.OperationalError):
                        raise StoreUnavailable(
                            f"{what} was not saved: the database refused it ({_first_line(exc)})"
                        ) from exc
                    raise
                left = deadline - time.monotonic()
                if left <= 0:
                    spent = f"{time.monotonic() - start:.1f} s, {tries} tries; the last: {_first_line(exc)}"
                    if maybe_written:
                        said = f"{what} may not have been saved: a try failed as it was committed, and"
                    else:
                        said = f"{what} was not saved:"
                    cause = (
                        "other writes held the database locked" if why == "locked" else "the database did not answer"
                    )
                    raise StoreUnavailable(f"{said} {cause} ({spent})", maybe_written) from exc
                time.sleep(min(left, pause * random.uniform(0.5, 1.0)))
                pause = min(pause * 2, policy.longest_pause)

    @contextmanager
    def _write_as(self, actor: User | None, roles: tuple[str, ...] = ("lead",)) -> Iterator[sa.Connection]:
        """A write transaction for ``actor``, who must be, as the database has it at this moment, an
        active account with one of ``roles`` (a disabled, deleted or demoted account changes nothing
        from a page it still has open). ``None`` is the server's operator at the command line."""
        with self._write() as c:
            if actor is not None:
                require_active(c, actor, roles)
            yield c

    def _require_active(self, actor: User | None, roles: tuple[str, ...] = ("lead",)) -> None:
        """:func:`require_active` before a step that writes on its own (a codebook saved for a task)."""
        if actor is not None:
            with self._read() as c:
                require_active(c, actor, roles)


@contextmanager
def _nothing() -> Iterator[None]:
    yield


def _first_line(exc: sa.exc.DBAPIError) -> str:
    """The database's own message, first line (without SQLAlchemy's statement and parameters)."""
    return (str(exc.orig).strip().splitlines() or [type(exc.orig).__name__])[0]


def require_active(c: sa.Connection, actor: User, roles: tuple[str, ...]) -> None:
    """Raise :class:`AccessDenied` unless ``actor`` is now an active account with one of ``roles``."""
    # By id and name: an id may be given again to an account created after this one was removed.
    r = c.execute(
        sa.select(users.c.status, users.c.role).where(users.c.id == actor.id, users.c.username == actor.username)
    ).first()
    if r is None or r.status != "active":
        raise AccessDenied(f"the account '{actor.username}' is {'deleted' if r is None else r.status}")
    if r.role not in roles:
        raise AccessDenied(f"{actor.username} is a {r.role}; only a {' or '.join(roles)} can do this")
