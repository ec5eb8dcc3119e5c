"""The label store: coders, codebooks, coding tasks, labels and gold, in a real database.

This module owns persistence; nothing else in the app writes to the database.

* SQLite file by default (``<data dir>/groundwork.sqlite``, WAL mode, ``synchronous=FULL`` so an
  acknowledged label survives a killed server), PostgreSQL when ``GROUNDWORK_DB_URL`` (or the
  app's secrets) gives a URL. The schema carries a version (``schema_meta``).
* Labels are append-only: relabelling adds a row; the current label of a coder for an item is the
  latest. Gold decisions are append-only too, with provenance (unanimous, majority, adjudicated).
* Access is enforced here, not in the pages: every read and write takes the acting ``User``.
  A coder sees only their own labels (and no per-item agreement) until the lead opens
  adjudication; a viewer writes nothing.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
import os
import random
import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Iterable

import pandas as pd
import sqlalchemy as sa
from sqlalchemy import event

from corpus import codebook as codebooks
from corpus.codebook import Codebook
from corpus.consensus import as_share, majority, reaches

SCHEMA_VERSION = 1
ROLES = ("lead", "coder", "viewer")
PHASES = ("coding", "adjudication", "revealed")
PROVENANCE = ("unanimous", "majority", "adjudicated")
ERROR_TYPES = ("ambiguous", "codebook_gap", "coder_error", "edge_case")
PBKDF2_ITERATIONS = 200_000

metadata = sa.MetaData()

schema_meta = sa.Table(
    "schema_meta", metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)
users = sa.Table(
    "users", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("username", sa.String(64), nullable=False, unique=True),
    sa.Column("display_name", sa.String(128), nullable=False),
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("password_hash", sa.Text, nullable=True),  # null: signs in through an identity provider
    sa.Column("kind", sa.String(16), nullable=False, default="human"),  # human | model | external
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
codebook_rows = sa.Table(
    "codebooks", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("scheme", sa.String(64), nullable=False),
    sa.Column("version", sa.String(32), nullable=False),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.UniqueConstraint("scheme", "version", name="uq_codebook_version"),
)
tasks = sa.Table(
    "tasks", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(200), nullable=False, unique=True),
    sa.Column("dataset", sa.String(200), nullable=False),
    sa.Column("codebook_id", sa.Integer, sa.ForeignKey("codebooks.id"), nullable=False),
    sa.Column("seed", sa.Integer, nullable=False),
    sa.Column("context_k", sa.Integer, nullable=False, default=3),
    sa.Column("show_canvas", sa.Boolean, nullable=False, default=True),
    sa.Column("phase", sa.String(16), nullable=False, default="coding"),
    sa.Column("share_agreement", sa.Boolean, nullable=False, default=False),
    sa.Column("created_by", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
task_items = sa.Table(
    "task_items", metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("item_id", sa.String(200), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),
    sa.Column("session_id", sa.String(200), nullable=False),
    sa.Column("action_index", sa.Integer, nullable=False),
    sa.Column("partition", sa.String(32), nullable=False, default="validation"),
    sa.Column("stratum", sa.String(64), nullable=False, default=""),
)
task_coders = sa.Table(
    "task_coders", metadata,
    sa.Column("task_id", sa.Integer, sa.ForeignKey("tasks.id"), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
)
labels = sa.Table(
    "labels", metadata,
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
)
gold = sa.Table(
    "gold", metadata,
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
    "settings", metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
)


class AccessDenied(PermissionError):
    """The acting user may not do or see this."""


class StoreError(ValueError):
    """A request the store refuses (unknown code, missing note, bad import ...)."""


@dataclass(frozen=True)
class User:
    id: int
    username: str
    display_name: str
    role: str
    kind: str = "human"

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


def _now() -> datetime:
    return datetime.now(timezone.utc)


def hash_password(password: str, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)
    return f"pbkdf2_sha256${iterations}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str | None) -> bool:
    if not stored:
        return False
    try:
        algo, iterations, salt, digest = stored.split("$")
    except ValueError:
        return False
    if algo != "pbkdf2_sha256":
        return False
    check = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), bytes.fromhex(salt), int(iterations))
    return hmac.compare_digest(check.hex(), digest)


def data_dir() -> Path:
    """Where uploads and the SQLite label database live: ``GROUNDWORK_DATA_DIR``, default ./.groundwork."""
    return Path(os.environ.get("GROUNDWORK_DATA_DIR", ".groundwork")).resolve()


def configured_url(secrets: Any = None) -> str | None:
    """The label database URL: ``GROUNDWORK_DB_URL``, else ``secrets["database"]["url"]`` (the app
    passes ``st.secrets``; the command line the parsed secrets.toml), else None (SQLite)."""
    url = os.environ.get("GROUNDWORK_DB_URL", "").strip()
    if url:
        return url
    try:
        secret = secrets["database"]["url"] if secrets is not None else None
    except Exception:  # noqa: BLE001 - no secrets file, or no such key (st.secrets raises its own types)
        return None
    return str(secret).strip() or None if secret else None


def default_url(data_dir: str | Path) -> str:
    """``GROUNDWORK_DB_URL`` if set, else a SQLite file in the data directory."""
    url = configured_url()
    if url:
        return url
    path = Path(data_dir).resolve() / "groundwork.sqlite"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def _label_columns(with_kind: bool = True) -> list:
    """The columns every label read returns (the log's history leaves out the coder's id and kind)."""
    who = [labels.c.coder_id, users.c.username.label("coder"), users.c.kind.label("coder_kind")] if with_kind \
        else [users.c.username.label("coder")]
    return [labels.c.id, labels.c.item_id, *who, labels.c.code, labels.c.note, labels.c.unsure, labels.c.seconds,
            labels.c.codebook_version, labels.c.source, labels.c.created_at]


def _engine(url: str) -> sa.Engine:
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]
    if url.startswith("sqlite"):
        eng = sa.create_engine(url, connect_args={"timeout": 30, "check_same_thread": False}, poolclass=sa.pool.NullPool)

        @event.listens_for(eng, "connect")
        def _pragmas(dbapi_conn, _record):  # noqa: ANN001
            # Let SQLAlchemy's BEGIN be the only transaction control (pysqlite quirk).
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=FULL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(eng, "begin")
        def _begin(conn):  # noqa: ANN001
            # A write takes the lock at the start (no deadlock between two readers upgrading); a
            # read-only transaction does not, so live views polling the labels never block a coder.
            read_only = conn.get_execution_options().get("groundwork_read_only", False)
            conn.exec_driver_sql("BEGIN" if read_only else "BEGIN IMMEDIATE")

        return eng
    return sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10)


class Store:
    def __init__(self, url: str):
        self.url = url
        self.engine = _engine(url)
        # Reads go through this: on SQLite they begin without taking the write lock.
        self._reads = self.engine.execution_options(groundwork_read_only=True)
        self._codebook_cache: dict[int, Codebook] = {}
        self._migrate()

    @classmethod
    def open(cls, data_dir: str | Path, url: str | None = None) -> "Store":
        return cls(url or default_url(data_dir))

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    # -- schema ---------------------------------------------------------------------------------

    def _migrate(self) -> None:
        metadata.create_all(self.engine)
        with self.engine.begin() as c:
            row = c.execute(sa.select(schema_meta.c.value).where(schema_meta.c.key == "schema_version")).first()
            if row is None:
                try:
                    c.execute(schema_meta.insert().values(key="schema_version", value=str(SCHEMA_VERSION)))
                except sa.exc.IntegrityError:
                    pass
            elif int(row[0]) > SCHEMA_VERSION:
                raise StoreError(
                    f"the label database has schema version {row[0]}, newer than this app's {SCHEMA_VERSION}; "
                    "upgrade the app"
                )

    def schema_version(self) -> int:
        with self._reads.connect() as c:
            return int(c.execute(sa.select(schema_meta.c.value).where(schema_meta.c.key == "schema_version")).scalar_one())

    # -- users ----------------------------------------------------------------------------------

    def create_user(self, username: str, password: str | None, role: str, display_name: str | None = None,
                    kind: str = "human") -> User:
        with self.engine.begin() as c:
            return self._insert_user(c, username, password, role, display_name, kind)

    @staticmethod
    def _insert_user(c, username: str, password: str | None, role: str, display_name: str | None = None,
                     kind: str = "human") -> User:
        """Check and add an account inside the caller's transaction."""
        username = username.strip()
        if not username:
            raise StoreError("username: must not be empty")
        if role not in ROLES:
            raise StoreError(f"role: '{role}' is not one of {', '.join(ROLES)}")
        if password is not None and len(password) < 8 and kind == "human":
            raise StoreError("password: must be at least 8 characters")
        if c.execute(sa.select(users.c.id).where(users.c.username == username)).first():
            raise StoreError(f"username: '{username}' is taken")
        uid = c.execute(users.insert().values(
            username=username, display_name=display_name or username, role=role, kind=kind,
            password_hash=hash_password(password) if password else None, created_at=_now(),
        )).inserted_primary_key[0]
        return User(int(uid), username, display_name or username, role, kind)

    def _user_from_row(self, r) -> User:
        return User(int(r.id), r.username, r.display_name, r.role, r.kind)

    def user(self, username: str) -> User | None:
        with self._reads.connect() as c:
            r = c.execute(sa.select(users).where(users.c.username == username)).first()
        return self._user_from_row(r) if r else None

    def users(self) -> list[User]:
        with self._reads.connect() as c:
            return [self._user_from_row(r) for r in c.execute(sa.select(users).order_by(users.c.id))]

    def authenticate(self, username: str, password: str) -> User | None:
        with self._reads.connect() as c:
            r = c.execute(sa.select(users).where(users.c.username == username.strip())).first()
        if r is None or not verify_password(password, r.password_hash):
            return None
        return self._user_from_row(r)

    def has_lead(self) -> bool:
        with self._reads.connect() as c:
            return c.execute(sa.select(users.c.id).where(users.c.role == "lead")).first() is not None

    # First-run setup: a one-time token printed on the server console; the first lead claims it.

    def issue_setup_token(self) -> str | None:
        """A new one-time token while no lead exists (its hash is kept; the token is shown once)."""
        if self.has_lead():
            return None
        token = secrets.token_urlsafe(12)
        with self.engine.begin() as c:
            c.execute(settings.delete().where(settings.c.key == "setup_token"))
            c.execute(settings.insert().values(key="setup_token", value=hashlib.sha256(token.encode()).hexdigest()))
        return token

    def claim_setup(self, token: str, username: str, password: str, display_name: str | None = None) -> User:
        with self.engine.begin() as c:
            stored = c.execute(sa.select(settings.c.value).where(settings.c.key == "setup_token")).scalar()
            if c.execute(sa.select(users.c.id).where(users.c.role == "lead")).first():
                raise AccessDenied("a lead account exists already; ask them for an account")
            if not stored or not hmac.compare_digest(stored, hashlib.sha256(token.strip().encode()).hexdigest()):
                raise AccessDenied("setup token: does not match the one printed on the server console")
            # One transaction: a refused username or password leaves the token usable.
            lead = self._insert_user(c, username, password, "lead", display_name)
            c.execute(settings.delete().where(settings.c.key == "setup_token"))
        return lead

    # -- codebooks ------------------------------------------------------------------------------

    def save_codebook(self, cb: Codebook) -> int:
        """Store a codebook version (idempotent); a changed codebook must carry a new version."""
        content = cb.to_json()
        with self.engine.begin() as c:
            row = c.execute(sa.select(codebook_rows).where(
                (codebook_rows.c.scheme == cb.id) & (codebook_rows.c.version == cb.version))).first()
            if row is not None:
                if row.content != content:
                    raise StoreError(
                        f"codebook {cb.id} version {cb.version} is stored already with different content; "
                        "give the revised codebook a new version"
                    )
                return int(row.id)
            return int(c.execute(codebook_rows.insert().values(
                scheme=cb.id, version=cb.version, name=cb.name, content=content, created_at=_now(),
            )).inserted_primary_key[0])

    def _codebook(self, codebook_id: int) -> Codebook:
        if codebook_id not in self._codebook_cache:
            with self._reads.connect() as c:
                content = c.execute(sa.select(codebook_rows.c.content).where(codebook_rows.c.id == codebook_id)).scalar_one()
            self._codebook_cache[codebook_id] = codebooks.parse(json.loads(content), f"codebook #{codebook_id}")
        return self._codebook_cache[codebook_id]

    def codebook_versions(self, scheme: str | None = None) -> list[tuple[str, str]]:
        q = sa.select(codebook_rows.c.scheme, codebook_rows.c.version).order_by(codebook_rows.c.id)
        if scheme:
            q = q.where(codebook_rows.c.scheme == scheme)
        with self._reads.connect() as c:
            return [(r.scheme, r.version) for r in c.execute(q)]

    # -- tasks ----------------------------------------------------------------------------------

    @staticmethod
    def _require_lead(actor: User) -> None:
        if actor.role != "lead":
            raise AccessDenied(f"{actor.username} is a {actor.role}; only a lead can do this")

    def create_task(self, actor: User, name: str, dataset: str, codebook: Codebook,
                    items: Iterable[dict[str, Any]], coders: Iterable[User], seed: int = 0,
                    context_k: int = 3, show_canvas: bool = True) -> Task:
        """``items``: dicts with session_id, action_index and optional partition and stratum."""
        self._require_lead(actor)
        items = list(items)
        if not items:
            raise StoreError("items: a task needs at least one item")
        if not name.strip():
            raise StoreError("name: must not be empty")
        cb_id = self.save_codebook(codebook)
        rows, seen = [], set()
        for pos, it in enumerate(items):
            iid = f"{it['session_id']}:{int(it['action_index'])}"
            if iid in seen:
                raise StoreError(f"items[{pos}]: {iid} is listed twice")
            seen.add(iid)
            rows.append({
                "item_id": iid, "position": pos, "session_id": str(it["session_id"]),
                "action_index": int(it["action_index"]), "partition": it.get("partition") or "validation",
                "stratum": it.get("stratum") or "",
            })
        with self.engine.begin() as c:
            if c.execute(sa.select(tasks.c.id).where(tasks.c.name == name)).first():
                raise StoreError(f"name: a task called '{name}' exists already")
            tid = int(c.execute(tasks.insert().values(
                name=name, dataset=dataset, codebook_id=cb_id, seed=int(seed), context_k=int(context_k),
                show_canvas=bool(show_canvas), phase="coding", share_agreement=False,
                created_by=actor.id, created_at=_now(),
            )).inserted_primary_key[0])
            c.execute(task_items.insert(), [{**r, "task_id": tid} for r in rows])
            coder_rows = [{"task_id": tid, "user_id": u.id} for u in {u.id: u for u in coders}.values()]
            if coder_rows:
                c.execute(task_coders.insert(), coder_rows)
        return self.task(tid)

    def assign(self, actor: User, task_id: int, coders: Iterable[User]) -> None:
        self._require_lead(actor)
        with self.engine.begin() as c:
            have = {r[0] for r in c.execute(sa.select(task_coders.c.user_id).where(task_coders.c.task_id == task_id))}
            new = [{"task_id": task_id, "user_id": u.id} for u in coders if u.id not in have]
            if new:
                c.execute(task_coders.insert(), new)

    def _tasks(self, where=None) -> list[Task]:
        """Tasks (with their item counts) in one query."""
        n_items = (sa.select(task_items.c.task_id, sa.func.count().label("n")).group_by(task_items.c.task_id).subquery())
        q = (sa.select(tasks, sa.func.coalesce(n_items.c.n, 0).label("n_items"))
             .outerjoin(n_items, n_items.c.task_id == tasks.c.id).order_by(tasks.c.id))
        if where is not None:
            q = q.where(where)
        with self._reads.connect() as c:
            rows = c.execute(q).all()
        return [Task(int(r.id), r.name, r.dataset, self._codebook(int(r.codebook_id)), int(r.seed), int(r.context_k),
                     bool(r.show_canvas), r.phase, bool(r.share_agreement), int(r.n_items)) for r in rows]

    def task(self, task_id: int) -> Task:
        found = self._tasks(tasks.c.id == task_id)
        if not found:
            raise StoreError(f"task #{task_id} does not exist")
        return found[0]

    def tasks_for(self, user: User) -> list[Task]:
        if user.role in ("lead", "viewer"):
            return self._tasks()
        return self._tasks(tasks.c.id.in_(sa.select(task_coders.c.task_id).where(task_coders.c.user_id == user.id)))

    def coders(self, task_id: int) -> list[User]:
        with self._reads.connect() as c:
            rows = c.execute(sa.select(users).join(task_coders, task_coders.c.user_id == users.c.id)
                             .where(task_coders.c.task_id == task_id).order_by(users.c.id))
            return [self._user_from_row(r) for r in rows]

    def set_phase(self, actor: User, task_id: int, phase: str) -> None:
        self._require_lead(actor)
        if phase not in PHASES:
            raise StoreError(f"phase: '{phase}' is not one of {', '.join(PHASES)}")
        with self.engine.begin() as c:
            c.execute(tasks.update().where(tasks.c.id == task_id).values(phase=phase))

    def revise_codebook(self, actor: User, task_id: int, codebook: Codebook) -> Task:
        """Move a task to a revised version of its codebook (a guideline change). Labels keep the
        version they were given under, so agreement before and after the change stays separable."""
        self._require_lead(actor)
        current = self.task(task_id).codebook
        if codebook.id != current.id:
            raise StoreError(f"id: the task codes with '{current.id}'; a revision must keep that id, not '{codebook.id}'")
        if codebook.version == current.version:
            raise StoreError(f"version: the task already uses version {current.version}; give the revision a new version")
        stored = self.save_codebook(codebook)  # refuses a stored version with other content
        with self.engine.begin() as c:
            c.execute(tasks.update().where(tasks.c.id == task_id).values(codebook_id=stored))
        return self.task(task_id)

    def set_share_agreement(self, actor: User, task_id: int, share: bool) -> None:
        self._require_lead(actor)
        with self.engine.begin() as c:
            c.execute(tasks.update().where(tasks.c.id == task_id).values(share_agreement=bool(share)))

    def items(self, task_id: int) -> pd.DataFrame:
        """The task's items (no labels): item_id, position, session_id, action_index, partition, stratum."""
        with self._reads.connect() as c:
            df = pd.read_sql(sa.select(task_items).where(task_items.c.task_id == task_id).order_by(task_items.c.position), c)
        return df

    def coder_order(self, task_id: int, user: User) -> list[str]:
        """The order in which this coder sees the items: shuffled per coder, stable across visits."""
        t = self.task(task_id)
        ids = list(self.items(task_id)["item_id"])
        random.Random(f"{t.seed}:{task_id}:{user.id}").shuffle(ids)
        return ids

    # -- labels ---------------------------------------------------------------------------------

    def _is_assigned(self, c, task_id: int, user_id: int) -> bool:
        return c.execute(sa.select(task_coders.c.user_id).where(
            (task_coders.c.task_id == task_id) & (task_coders.c.user_id == user_id))).first() is not None

    def add_label(self, user: User, task_id: int, item_id: str, code: str, note: str = "", unsure: bool = False,
                  seconds: float | None = None, request_id: str | None = None, source: str = "ui") -> int:
        """Write one label now (append-only). Returns its id; a repeated ``request_id`` is not written twice."""
        if user.role == "viewer":
            raise AccessDenied(f"{user.username} is a viewer; viewers cannot label")
        t = self.task(task_id)
        if t.phase == "revealed":
            raise StoreError(f"task '{t.name}' is closed: the labels have been revealed")
        cb = t.codebook
        if code not in cb.code_ids:
            raise StoreError(f"code: '{code}' is not in codebook {cb.id} v{cb.version} (codes: {', '.join(cb.code_ids)})")
        note = (note or "").strip()
        if cb.by_code(code).requires_note and not note:
            raise StoreError(f"note: the code '{code}' needs a note saying why")
        with self.engine.begin() as c:
            if request_id:
                prior = c.execute(sa.select(labels.c.id).where(labels.c.request_id == request_id)).scalar()
                if prior is not None:
                    return int(prior)
            if not self._is_assigned(c, task_id, user.id):
                raise AccessDenied(f"{user.username} is not a coder of task '{t.name}'")
            if c.execute(sa.select(task_items.c.item_id).where(
                    (task_items.c.task_id == task_id) & (task_items.c.item_id == item_id))).first() is None:
                raise StoreError(f"item: '{item_id}' is not an item of task '{t.name}'")
            return int(c.execute(labels.insert().values(
                task_id=task_id, item_id=item_id, coder_id=user.id, code=code, note=note, unsure=bool(unsure),
                seconds=None if seconds is None else float(seconds), codebook_version=cb.version, source=source,
                request_id=request_id, created_at=_now(),
            )).inserted_primary_key[0])

    def _current_labels(self, c, task_id: int, coder_id: int | None = None) -> pd.DataFrame:
        latest = sa.select(sa.func.max(labels.c.id).label("id")).where(labels.c.task_id == task_id)
        if coder_id is not None:
            latest = latest.where(labels.c.coder_id == coder_id)
        latest = latest.group_by(labels.c.item_id, labels.c.coder_id).subquery()
        q = (sa.select(*_label_columns())
             .join(latest, latest.c.id == labels.c.id)
             .join(users, users.c.id == labels.c.coder_id)
             .order_by(labels.c.id))
        return pd.read_sql(q, c)

    def my_labels(self, user: User, task_id: int) -> pd.DataFrame:
        """This coder's current labels (one row per item they coded)."""
        with self._reads.connect() as c:
            return self._current_labels(c, task_id, coder_id=user.id)

    def can_see_all(self, user: User, task_id: int) -> bool:
        return user.role == "lead" or self.task(task_id).phase in ("adjudication", "revealed")

    def _require_see_all(self, user: User, task_id: int) -> None:
        if not self.can_see_all(user, task_id):
            raise AccessDenied(
                f"{user.username} cannot see other coders' labels while task #{task_id} is being coded (blind coding)"
            )

    def labels(self, user: User, task_id: int) -> pd.DataFrame:
        """Every coder's current labels. Leads always; coders and viewers only once adjudication is open."""
        self._require_see_all(user, task_id)
        with self._reads.connect() as c:
            return self._current_labels(c, task_id)

    def labels_since(self, user: User, task_id: int, after_id: int) -> pd.DataFrame:
        """Label rows given after ``after_id`` (columns as :meth:`labels`), with the same access rule."""
        self._require_see_all(user, task_id)
        q = (sa.select(*_label_columns())
             .join(users, users.c.id == labels.c.coder_id)
             .where(labels.c.task_id == task_id, labels.c.id > int(after_id))
             .order_by(labels.c.id))
        with self._reads.connect() as c:
            return pd.read_sql(q, c)

    def refresh_labels(self, user: User, task_id: int, previous: pd.DataFrame | None = None) -> pd.DataFrame:
        """The current labels, updated from ``previous`` (an earlier result of this method or of
        :meth:`labels`) by reading only the rows added since: a live view's cost per refresh does not
        grow with the task. A relabel replaces the coder's earlier label of the item."""
        if previous is None or previous.empty:
            return self.labels(user, task_id)
        new = self.labels_since(user, task_id, int(previous["id"].max()))
        if new.empty:
            return previous
        both = pd.concat([previous, new], ignore_index=True)
        return both.drop_duplicates(["item_id", "coder_id"], keep="last").reset_index(drop=True)

    def history(self, user: User, task_id: int, item_id: str | None = None) -> pd.DataFrame:
        """Every label ever given (append-only log). Coders get their own unless they may see all."""
        q = (sa.select(*_label_columns(with_kind=False))
             .join(users, users.c.id == labels.c.coder_id).where(labels.c.task_id == task_id).order_by(labels.c.id))
        if item_id is not None:
            q = q.where(labels.c.item_id == item_id)
        if not self.can_see_all(user, task_id):
            q = q.where(labels.c.coder_id == user.id)
        with self._reads.connect() as c:
            return pd.read_sql(q, c)

    def progress(self, task_id: int) -> pd.DataFrame:
        """Per coder: items coded (counts only, safe for everyone to see)."""
        with self._reads.connect() as c:
            done = self._current_labels(c, task_id)
        n = self.task(task_id).n_items
        coders = self.coders(task_id)
        counts = done.groupby("coder").size() if not done.empty else pd.Series(dtype=int)
        return pd.DataFrame({
            "coder": [u.username for u in coders],
            "coded": [int(counts.get(u.username, 0)) for u in coders],
            "items": n,
        })

    def aggregate(self, user: User, task_id: int, fn: Callable[[pd.DataFrame], Any]) -> Any:
        """Run ``fn`` on all current labels and return only its result.

        For coders, allowed only when the lead shares agreement; ``fn`` must return aggregate
        numbers (the page passes the agreement summary), never the frame itself.
        """
        t = self.task(task_id)
        if user.role != "lead" and not t.share_agreement and t.phase == "coding":
            raise AccessDenied("the lead has not shared the agreement numbers for this task")
        with self._reads.connect() as c:
            frame = self._current_labels(c, task_id)
        result = fn(frame)
        if isinstance(result, pd.DataFrame) and user.role != "lead" and t.phase == "coding":
            raise AccessDenied("only aggregate numbers can be shared during blind coding")
        return result

    # -- gold -----------------------------------------------------------------------------------

    def set_gold(self, actor: User, task_id: int, item_id: str, code: str, provenance: str = "adjudicated",
                 note: str = "", error_type: str | None = None, flag_codebook: bool = False) -> int:
        self._require_lead(actor)
        t = self.task(task_id)
        if code not in t.codebook.code_ids:
            raise StoreError(f"code: '{code}' is not in codebook {t.codebook.id} v{t.codebook.version}")
        if provenance not in PROVENANCE:
            raise StoreError(f"provenance: '{provenance}' is not one of {', '.join(PROVENANCE)}")
        if error_type is not None and error_type not in ERROR_TYPES:
            raise StoreError(f"error_type: '{error_type}' is not one of {', '.join(ERROR_TYPES)}")
        with self.engine.begin() as c:
            return int(c.execute(gold.insert().values(
                task_id=task_id, item_id=item_id, code=code, provenance=provenance, note=note or "",
                error_type=error_type, flag_codebook=bool(flag_codebook), decided_by=actor.id, created_at=_now(),
            )).inserted_primary_key[0])

    def gold(self, user: User, task_id: int) -> pd.DataFrame:
        """Current gold per item. Leads always; others once the labels are revealed."""
        if user.role != "lead" and self.task(task_id).phase != "revealed":
            raise AccessDenied("gold labels are shown to coders after the lead reveals them")
        latest = (sa.select(sa.func.max(gold.c.id).label("id")).where(gold.c.task_id == task_id)
                  .group_by(gold.c.item_id).subquery())
        q = (sa.select(gold.c.item_id, gold.c.code, gold.c.provenance, gold.c.note, gold.c.error_type,
                       gold.c.flag_codebook, gold.c.created_at)
             .join(latest, latest.c.id == gold.c.id).order_by(gold.c.item_id))
        with self._reads.connect() as c:
            return pd.read_sql(q, c)

    def revealed_gold(self, dataset: str, scheme: str | None = None) -> pd.DataFrame:
        """The gold of every closed (revealed) task on ``dataset``: what the analysis pages use.
        Anyone may read it; a task still being coded or adjudicated contributes nothing.
        Columns: task_id, task, scheme, session_id, action_index, item_id, code, provenance."""
        latest = sa.select(sa.func.max(gold.c.id).label("id")).group_by(gold.c.task_id, gold.c.item_id).subquery()
        q = (sa.select(tasks.c.id.label("task_id"), tasks.c.name.label("task"), codebook_rows.c.scheme,
                       task_items.c.session_id, task_items.c.action_index, gold.c.item_id, gold.c.code, gold.c.provenance)
             .join(latest, latest.c.id == gold.c.id)
             .join(tasks, tasks.c.id == gold.c.task_id)
             .join(codebook_rows, codebook_rows.c.id == tasks.c.codebook_id)
             .join(task_items, (task_items.c.task_id == gold.c.task_id) & (task_items.c.item_id == gold.c.item_id))
             .where(tasks.c.dataset == dataset, tasks.c.phase == "revealed")
             .order_by(tasks.c.id, task_items.c.position))
        if scheme is not None:
            q = q.where(codebook_rows.c.scheme == scheme)
        with self._reads.connect() as c:
            return pd.read_sql(q, c)

    def accept_consensus(self, actor: User, task_id: int, threshold: Fraction | float | str = 1,
                         min_coders: int = 2) -> int:
        """Make gold of items without gold whose majority label (:func:`corpus.consensus.majority`,
        human coders only) is given by at least ``threshold`` of the item's coders, compared as exact
        fractions (2 of 3 reaches "2/3"; see :func:`corpus.consensus.reaches`).

        ``threshold=1`` accepts unanimous items (provenance ``unanimous``); lower thresholds record
        ``majority``. Items with fewer than ``min_coders`` labels are left alone. Returns how many.
        """
        self._require_lead(actor)
        share = as_share(threshold)
        cur = self.labels(actor, task_id)
        cur = cur[cur["coder_kind"] == "human"]
        have = set(self.gold(actor, task_id)["item_id"])
        best = majority(cur[~cur["item_id"].isin(have)], keys=["item_id"])
        rows = []
        for item, code, k, n in best[["item_id", "code", "k", "n_coders"]].itertuples(index=False):
            if n < min_coders or not reaches(k, n, share):
                continue
            rows.append({
                "task_id": task_id, "item_id": item, "code": code,
                "provenance": "unanimous" if k == n else "majority",
                "note": "" if k == n else f"{k} of {n} coders",
                "error_type": None, "flag_codebook": False, "decided_by": actor.id, "created_at": _now(),
            })
        if rows:
            with self.engine.begin() as c:
                c.execute(gold.insert(), rows)
        return len(rows)

    def feedback(self, user: User, task_id: int) -> pd.DataFrame:
        """After the reveal: the items where gold differs from this coder's label, with the lead's note."""
        if self.task(task_id).phase != "revealed":
            raise AccessDenied("feedback is available once the lead reveals the gold labels")
        mine = self.my_labels(user, task_id)[["item_id", "code", "note"]].rename(columns={"code": "my_code", "note": "my_note"})
        g = self.gold(user, task_id)[["item_id", "code", "provenance", "note", "error_type"]].rename(
            columns={"code": "gold_code", "note": "lead_note"})
        both = mine.merge(g, on="item_id")
        return both[both["my_code"] != both["gold_code"]].reset_index(drop=True)

    # -- import and export ----------------------------------------------------------------------

    def import_labels_csv(self, actor: User, task_id: int, data: bytes | str, file: str = "labels.csv",
                          item_col: str = "item", coder_col: str = "coder", label_col: str = "label",
                          create_coders: bool = False, coder_kind: str = "external") -> int:
        """Import (item, coder, label) rows as labels of a task, all or nothing.

        Refused, with every problem named by line and column: an empty file, missing columns,
        unknown items, codes not in the task's codebook, unknown coders (unless ``create_coders``,
        which adds them as non-signing-in coders, e.g. an LLM), and duplicate (item, coder) rows.
        """
        self._require_lead(actor)
        t = self.task(task_id)
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
        if not text.strip():
            raise StoreError(f"{file}: the file is empty")
        reader = csv.DictReader(io.StringIO(text))
        cols = reader.fieldnames or []
        missing = [c for c in (item_col, coder_col, label_col) if c not in cols]
        if missing:
            raise StoreError(f"{file}: missing column(s) {', '.join(missing)} (found: {', '.join(cols) or 'none'})")
        items = set(self.items(task_id)["item_id"])
        known = {u.username: u for u in self.users()}
        problems, rows, seen = [], [], {}
        for lineno, r in enumerate(reader, start=2):
            item, coder, code = (r.get(item_col) or "").strip(), (r.get(coder_col) or "").strip(), (r.get(label_col) or "").strip()
            if item not in items:
                problems.append(f"{file} line {lineno}, column {item_col}: '{item}' is not an item of task '{t.name}'")
            if code not in t.codebook.code_ids:
                problems.append(f"{file} line {lineno}, column {label_col}: '{code}' is not in codebook {t.codebook.id} v{t.codebook.version}")
            if not coder:
                problems.append(f"{file} line {lineno}, column {coder_col}: empty")
            elif coder not in known and not create_coders:
                problems.append(f"{file} line {lineno}, column {coder_col}: unknown coder '{coder}'")
            key = (item, coder)
            if key in seen:
                problems.append(f"{file} line {lineno}: duplicate of line {seen[key]} (item '{item}', coder '{coder}')")
            seen[key] = lineno
            rows.append((item, coder, code))
        if not rows:
            problems.append(f"{file}: no rows below the header")
        if problems:
            raise StoreError("nothing imported:\n" + "\n".join(problems[:50]) + (f"\n... and {len(problems) - 50} more" if len(problems) > 50 else ""))
        with self.engine.begin() as c:
            ids = {}
            for coder in sorted({r[1] for r in rows}):
                if coder in known:
                    ids[coder] = known[coder].id
                else:
                    ids[coder] = self._insert_user(c, coder, None, "coder", kind=coder_kind).id
                if not self._is_assigned(c, task_id, ids[coder]):
                    c.execute(task_coders.insert().values(task_id=task_id, user_id=ids[coder]))
            now = _now()
            c.execute(labels.insert(), [
                {"task_id": task_id, "item_id": i, "coder_id": ids[k], "code": code, "note": "", "unsure": False,
                 "seconds": None, "codebook_version": t.codebook.version, "source": "import", "request_id": None,
                 "created_at": now}
                for i, k, code in rows
            ])
        return len(rows)

    def export_long(self, actor: User, task_id: int) -> pd.DataFrame:
        return self.long_table(self.labels(actor, task_id), self.items(task_id))

    def export_wide(self, actor: User, task_id: int) -> pd.DataFrame:
        return self.wide_table(self.labels(actor, task_id), self.items(task_id))

    @staticmethod
    def long_table(current: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
        """One row per current label, with the item's session, action and partition."""
        out = current.merge(items[["item_id", "session_id", "action_index", "partition"]], on="item_id", how="left")
        return out[["item_id", "session_id", "action_index", "partition", "coder", "code", "note", "unsure",
                    "seconds", "codebook_version", "source", "created_at"]]

    @staticmethod
    def wide_table(current: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
        """Items x coders, one code per cell (blank where not coded): the layout R's irr expects."""
        wide = current.pivot(index="item_id", columns="coder", values="code")
        return wide.reindex(items["item_id"]).reset_index()
