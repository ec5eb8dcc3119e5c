"""The label database's tables (schema version 6) and the words its columns may hold.

A fresh database is created from these definitions; an older one is brought here, step by step,
by :mod:`corpus.store.migrations`. A change to a table needs a new schema version and a migration.
"""

from __future__ import annotations

from typing import cast

import sqlalchemy as sa

from corpus.store.notify import announce

SCHEMA_VERSION = 7

ROLES = ("lead", "coder", "viewer")
PHASES = ("coding", "adjudication", "revealed")
PROVENANCE = ("unanimous", "majority", "adjudicated")
ERROR_TYPES = ("ambiguous", "codebook_gap", "coder_error", "edge_case")
# An account is active, disabled (may be enabled again) or deleted (a tombstone that keeps the
# username on the labels it gave; it never signs in again).
STATUSES = ("active", "disabled", "deleted")
# What a coder may see of a task once adjudication starts (the lead's choice per task): nothing
# beyond their own labels, or, after the reveal, the items where gold differs from their label.
CODER_VIEWS = ("nothing", "own_disagreements")
DEFAULT_CODER_VIEW = "own_disagreements"
# Shared agreement numbers are shown to coders only once they rest on this many items.
DEFAULT_SHARE_MIN_ITEMS = 20

metadata = sa.MetaData()

schema_meta = sa.Table(
    "schema_meta",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("username", sa.String(64), nullable=False, unique=True),
    sa.Column("display_name", sa.String(128), nullable=False),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("password_hash", sa.Text, nullable=True),  # null: signs in through an identity provider, or never
    sa.Column("kind", sa.String(16), nullable=False, default="human"),  # human | model | external
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # v2
    sa.Column("status", sa.String(16), nullable=False, server_default="active"),
    # Raised by a password change, a reset, disabling or deleting: sign-in tokens carry it, so
    # every token issued before is void at once.
    sa.Column("auth_epoch", sa.Integer, nullable=False, server_default="0"),
    # v4: a random value made with the account and never given to another: sign-in tokens carry it,
    # so a token of a deleted account never signs in an account created later with the same id.
    sa.Column("sign_in_key", sa.String(32), nullable=True),
)
codebook_rows = sa.Table(
    "codebooks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("scheme", sa.String(64), nullable=False),
    sa.Column("version", sa.String(32), nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("scheme", "version", name="uq_codebook_version"),
)
tasks = sa.Table(
    "tasks",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("dataset", sa.String(200), nullable=False),  # the dataset's name, for display
    sa.Column("codebook_id", sa.Integer, sa.ForeignKey("codebooks.id"), nullable=False),
    sa.Column("seed", sa.Integer, nullable=False),
    sa.Column("context_k", sa.Integer, nullable=False, default=3),
    sa.Column("show_canvas", sa.Boolean, nullable=False, default=True),
    sa.Column("phase", sa.String(16), nullable=False, default="coding"),
    sa.Column("share_agreement", sa.Boolean, nullable=False, default=False),
    sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # v2: the dataset's identity (its content hash); null for tasks created before version 2.
    sa.Column("dataset_hash", sa.String(64), nullable=True),
    sa.Column("coder_view", sa.String(24), nullable=False, server_default=DEFAULT_CODER_VIEW),
    sa.Column("share_min_items", sa.Integer, nullable=False, server_default=str(DEFAULT_SHARE_MIN_ITEMS)),
    # v5: the labels version, kept with every write of a label in the same transaction: how many
    # label rows the task has and the newest one's id. A live panel's change check reads this row.
    sa.Column("labels_count", sa.Integer, nullable=False, server_default="0"),
    sa.Column("labels_newest", sa.Integer, nullable=False, server_default="0"),
    # v6: the task's number of items (fixed when the task is made), so reading a task counts nothing.
    sa.Column("n_items", sa.Integer, nullable=False, server_default="0"),
    sa.Index("ix_tasks_dataset_hash", "dataset_hash"),
)
task_items = sa.Table(
    "task_items",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("item_id", sa.String(200), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("session_id", sa.String(200), nullable=False),
    sa.Column("action_index", sa.Integer, nullable=False),
    sa.Column("partition", sa.String(32), nullable=False, default="validation"),
    sa.Column("stratum", sa.String(64), nullable=False, default=""),
)
task_coders = sa.Table(
    "task_coders",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
)
labels = sa.Table(
    "labels",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), nullable=False),
    sa.Column("item_id", sa.String(200), nullable=False),
    sa.Column("coder_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("code", sa.String(64), nullable=False),
    sa.Column("note", sa.Text, nullable=False, default=""),
    sa.Column("unsure", sa.Boolean, nullable=False, default=False),
    sa.Column("seconds", sa.Float, nullable=True),
    sa.Column("codebook_version", sa.String(32), nullable=False),
    sa.Column("source", sa.String(16), nullable=False, default="ui"),
    sa.Column("request_id", sa.String(64), nullable=True, unique=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_labels_task_item_coder", "task_id", "item_id", "coder_id"),
    # v2: "labels changed since" (count and newest id of a task) from the index alone.
    sa.Index("ix_labels_task_id", "task_id", "id"),
)
gold = sa.Table(
    "gold",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), nullable=False),
    sa.Column("item_id", sa.String(200), nullable=False),
    sa.Column("code", sa.String(64), nullable=False),
    sa.Column("provenance", sa.String(16), nullable=False),
    sa.Column("note", sa.Text, nullable=False, default=""),
    sa.Column("error_type", sa.String(32), nullable=True),
    sa.Column("flag_codebook", sa.Boolean, nullable=False, default=False),
    sa.Column("decided_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_gold_task_item", "task_id", "item_id"),
)
settings = sa.Table(
    "settings",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
# v2: failed sign-ins in a row, for the backoff; since v4 one row per (account name, client) pair.
signin_throttle = sa.Table(
    "signin_throttle",
    metadata,
    sa.Column("key", sa.String(200), primary_key=True),  # "pair:<client>\n<account name>"
    sa.Column("failures", sa.Integer, nullable=False),
    sa.Column("last_failure", sa.DateTime(timezone=True), nullable=False),
    sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_signin_throttle_last_failure", "last_failure"),  # v4
)
# v2: agreement numbers the lead chose to show the coders, as taken at one moment.
agreement_snapshots = sa.Table(
    "agreement_snapshots",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), nullable=False),
    sa.Column("numbers", sa.Text, nullable=False),  # JSON
    sa.Column("n_items", sa.Integer, nullable=False),  # items labelled by two or more coders then
    sa.Column("n_labels", sa.Integer, nullable=False),
    sa.Column("max_label_id", sa.Integer, nullable=False),
    sa.Column("taken_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_snapshots_task", "task_id", "id"),
)

# v3: sign-in tokens given up before they expire (their browser signed out), kept until they would
# have expired.
revoked_tokens = sa.Table(
    "revoked_tokens",
    metadata,
    sa.Column("signature", sa.String(64), primary_key=True),  # the token's signature part
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_revoked_tokens_expires_at", "expires_at"),
)

# v4: every failed sign-in (kept 30 days, at most MAX_FAILURES_KEPT rows): what the backoff counts per
# account and per client, and what a lead is shown.
signin_failures = sa.Table(
    "signin_failures",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("account", sa.String(200), nullable=False),  # the name typed (lower case), an account or not
    sa.Column("client", sa.String(200), nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    # v7: the known device it came from (its id; NULL: a browser that never signed in to the account),
    # and what was attempted (NULL: a sign-in; "password change": a wrong current password).
    sa.Column("device", sa.String(32), nullable=True),
    sa.Column("attempt", sa.String(20), nullable=True),
    sa.Index("ix_signin_failures_account", "account", "at"),
    sa.Index("ix_signin_failures_client", "client", "at"),
    sa.Index("ix_signin_failures_at", "at"),
)

# v6: a task's agreement in sufficient statistics, kept in the transaction of every label write
# (:mod:`corpus.store.agreement`): the human coders' current labels as the sums last counted them,
# and the sums the live panel's numbers come from without reading the labels.
agreement_labels = sa.Table(
    "agreement_labels",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("item_id", sa.String(200), primary_key=True),
    sa.Column("coder_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("code", sa.String(64), nullable=False),
)
# Over the items with m labels: sum of n_a * n_b, n_c the item's labels in category c (a = b included).
agreement_sums = sa.Table(
    "agreement_sums",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("m", sa.Integer, primary_key=True),
    sa.Column("code_a", sa.String(64), primary_key=True),
    sa.Column("code_b", sa.String(64), primary_key=True),
    sa.Column("value", sa.BigInteger, nullable=False),
)
# Per pair of coders (coder_a the lower id): items on which they gave code_a and code_b.
agreement_pairs = sa.Table(
    "agreement_pairs",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("coder_a", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("coder_b", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("code_a", sa.String(64), primary_key=True),
    sa.Column("code_b", sa.String(64), primary_key=True),
    sa.Column("n", sa.Integer, nullable=False),
)
# Per coder: their current labels.
agreement_coders = sa.Table(
    "agreement_coders",
    metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("coder_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
    sa.Column("n", sa.Integer, nullable=False),
)
AGREEMENT_TABLES = (agreement_labels, agreement_sums, agreement_pairs, agreement_coders)

# The tables version 2 added, created as they are by the migration.
V2_TABLES = (signin_throttle, agreement_snapshots)


def max_chars(column: sa.Column) -> int:
    """The most characters a text column above holds (its ``sa.String`` length)."""
    return cast(int, cast(sa.String, column.type).length)  # every String column here is given a length


def count_label(c: sa.Connection, task_id: int, label_id: int) -> None:
    """One label row was written for ``task_id``: its labels version moves on, and the panels
    listening are told at the commit (call it in the transaction that wrote the label)."""
    announce(c, task_id)
    c.execute(
        tasks.update()
        .where(tasks.c.id == task_id)
        .values(
            labels_count=tasks.c.labels_count + 1,
            labels_newest=sa.case((tasks.c.labels_newest < label_id, label_id), else_=tasks.c.labels_newest),
        )
    )


def recount_labels(c: sa.Connection, task_id: int | None = None) -> None:
    """The labels version of ``task_id`` (None: of every task) counted from the labels table, after
    many labels were written at once (an import) or when the columns were added."""
    count = sa.select(sa.func.count()).where(labels.c.task_id == tasks.c.id).scalar_subquery()
    newest = sa.select(sa.func.coalesce(sa.func.max(labels.c.id), 0)).where(labels.c.task_id == tasks.c.id)
    q = tasks.update().values(labels_count=count, labels_newest=newest.scalar_subquery())
    c.execute(q if task_id is None else q.where(tasks.c.id == task_id))
    if task_id is not None:
        announce(c, task_id)


def label_row(task_id: int, item_id: str, coder_id: int, code: str, version: str, source: str, now) -> dict:  # noqa: ANN001
    """A label given elsewhere (imported, or a rule's), as the labels table takes it: no note, not
    unsure, no time spent."""
    return {
        "task_id": task_id,
        "item_id": item_id,
        "coder_id": coder_id,
        "code": code,
        "note": "",
        "unsure": False,
        "seconds": None,
        "codebook_version": version,
        "source": source,
        "request_id": None,
        "created_at": now,
    }
