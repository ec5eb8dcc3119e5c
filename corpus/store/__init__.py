"""The label store: accounts, codebooks, coding tasks, labels, gold and shared agreement numbers, in
a real database. Nothing else in the app writes to the database.

* SQLite file by default, PostgreSQL when a URL is configured (:mod:`.engine`). The schema carries
  a version; an older database is upgraded in place when opened (:mod:`.migrations`).
* Labels are append-only: relabelling adds a row; the current label of a coder for an item is the
  latest (:mod:`.labels`). Gold decisions are append-only too, with provenance and history
  (:mod:`.gold`).
* Access is enforced here, not in the pages: every read and write takes the acting ``User``
  (:mod:`.access`). A coder sees only their own labels; a viewer writes nothing.
* Sign-in knows the browsers that signed in before, throttles the others with a proof of work, and
  gives signed, expiring tokens (:mod:`.signin`); passwords are Argon2id
  hashes (:mod:`.passwords`); accounts can be disabled, enabled and deleted (:mod:`.accounts`).

One module per job: tables, migrations, engine (where the database is), passwords, signin,
access, accounts, tasks, labels, sharing, gold, csv_import, exports. :class:`Store` puts them
together.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import sqlalchemy as sa

from corpus.csvsafe import safe_csv_text, spreadsheet_safe, to_csv
from corpus.store.accounts import SETUP_TOKEN_ISSUED, Accounts, setup_notice
from corpus.store.base import AccessDenied, StoreError, StoreUnavailable, Task, User, WritePolicy
from corpus.store.csv_import import CsvImport, LabelImport
from corpus.store.engine import default_url
from corpus.store.exports import Exports
from corpus.store.gold import FeedbackCounts, Gold
from corpus.store.labels import Labels
from corpus.store.migrations import upgrade
from corpus.store.sharing import Sharing, Snapshot
from corpus.store.signin import ProofNeeded, SignIn, SignInPolicy, SignInRefused, proof_holds, solve_proof
from corpus.store.tables import (
    CODER_VIEWS,
    ERROR_TYPES,
    PHASES,
    PROVENANCE,
    ROLES,
    SCHEMA_VERSION,
    STATUSES,
    metadata,
    schema_meta,
)
from corpus.store.tasks import Tasks

__all__ = [
    "AccessDenied",
    "CODER_VIEWS",
    "ERROR_TYPES",
    "FeedbackCounts",
    "LabelImport",
    "PHASES",
    "PROVENANCE",
    "ProofNeeded",
    "ROLES",
    "SCHEMA_VERSION",
    "STATUSES",
    "SignInPolicy",
    "SignInRefused",
    "Snapshot",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "Task",
    "User",
    "WritePolicy",
    "default_url",
    "metadata",
    "proof_holds",
    "safe_csv_text",
    "setup_notice",
    "solve_proof",
    "SETUP_TOKEN_ISSUED",
    "spreadsheet_safe",
    "to_csv",
]


class Store(Accounts, SignIn, Tasks, Labels, Sharing, Gold, CsvImport, Exports):
    """The label database. ``clock`` (a function returning an aware UTC time) stamps every row and
    times the sign-in backoff and tokens; ``policy`` sets the backoff and the token lifetime;
    ``writes``, how long a label's save waits out contention (:class:`WritePolicy`)."""

    def __init__(
        self,
        url: str,
        *,
        clock: Callable[[], datetime] | None = None,
        policy: SignInPolicy | None = None,
        writes: WritePolicy | None = None,
    ):
        super().__init__(url, clock, writes)
        self.policy = policy or SignInPolicy()
        self.migrated = upgrade(self.engine, self._reads)

    @classmethod
    def open(cls, directory: str | Path, url: str | None = None, **options) -> Store:
        """The store at ``url``, else the SQLite file in ``directory`` (the settings decide which:
        :meth:`corpus.settings.Settings.open_store`)."""
        return cls(url or default_url(directory), **options)

    def schema_version(self) -> int:
        with self._read() as c:
            return int(
                c.execute(sa.select(schema_meta.c.value).where(schema_meta.c.key == "schema_version")).scalar_one()
            )
