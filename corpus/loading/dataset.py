"""A loaded, validated dataset and the tables the rest of the tool reads.

``load(path)`` accepts a dataset directory or a ``.zip`` of one and either returns a complete
:class:`Corpus` or raises :class:`corpus.loading.validate.DatasetError` listing every problem: nothing is
half-loaded.

A loaded corpus holds its tables (:mod:`corpus.loading.tables`: one row per action, one per session),
every session's ``session.json`` and a bounded number of whole sessions; the others are read again
from the dataset's folder when asked for (:mod:`corpus.loading.session_store`). What a load made can be
kept on disk for the next load of the same bytes (:mod:`corpus.loading.dataset_cache`).
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import numpy as np
import pandas as pd

from corpus import schema
from corpus.canvas import CanvasHistory, session_history
from corpus.domain import MAP_TASK, UNIT_ID, ReadFromInfo, generated_by, provenance
from corpus.loading.action_rows import ActionColumns
from corpus.loading.dataset_cache import DatasetCache, Entry
from corpus.loading.listing import dataset_files, forget_listings
from corpus.loading.session_store import SESSION_CACHE_ACTIONS, SessionStore
from corpus.loading.tables import TableBuilder, Tables, tables_of
from corpus.loading.validate import (
    ActionRefs,
    DatasetError,
    Issue,
    Report,
    SessionOutline,
    SessionsRead,
    collector_paused,
    read_dataset,
    read_session,
    readers,
)
from corpus.metrics import DrawingScores, route_mask, score
from corpus.model import DatasetInfo, GridMap, ReferenceExpression, Session, SessionMeta
from corpus.server.processes import start_readers

SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"
DOMAIN = MAP_TASK
HISTORIES_KEPT = 2048  # canvas histories a corpus keeps (the ones built last)


def item_id(session_id: str, action_index: int) -> str:
    """The id of one action across the whole dataset (used by coding and predictions)."""
    return f"{session_id}:{action_index}"


@dataclass
class Corpus(ReadFromInfo):
    root: Path
    info: DatasetInfo
    maps: dict[str, GridMap]
    # Session id -> Session, held as a SessionStore (sessions given in memory are wrapped in one):
    # a loaded dataset's holds every session's session.json and reads a whole session when asked
    # for (corpus.loading.session_store).
    sessions: Mapping[str, Session]
    labels: (
        pd.DataFrame
    )  # coded labels of every scheme: item_id, scheme, session_id, action_index, coder, coder_kind, code, partition
    predictions: dict[str, Any]  # run id -> corpus.predictions.Run (refused runs included; see Run.ok)
    warnings: list[Issue] = field(default_factory=list)
    content_hash: str = ""  # of every file's path and bytes: the dataset's identity (tasks, caches)
    # Landmark reference expressions said in actions (labels/gmmt_expressions.jsonl): one row each,
    # the columns of EXPRESSION_COLUMNS.
    expressions: pd.DataFrame = field(default_factory=lambda: _expressions_frame([]))
    # The tables, when they were made as the dataset was read (else made from the sessions).
    tables: Tables | None = field(default=None, repr=False)

    def __hash__(self) -> int:  # cached helpers key on the corpus object itself
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    # -- per session ------------------------------------------------------------------------

    def session(self, session_id: str) -> Session:
        try:
            return self.sessions[session_id]
        except KeyError:
            raise KeyError(f"no session '{session_id}' in dataset '{self.info.name}'") from None

    def __post_init__(self) -> None:
        if not isinstance(self.sessions, SessionStore):
            self.sessions = SessionStore.holding(self.sessions)

    @property
    def _store(self) -> SessionStore:
        return cast(SessionStore, self.sessions)

    def meta(self, session_id: str) -> SessionMeta:
        """What the session's session.json holds (all but its actions), without reading the actions."""
        if session_id not in self.sessions:
            raise KeyError(f"no session '{session_id}' in dataset '{self.info.name}'")
        return self._store.meta(session_id)

    def n_actions(self, session_id: str) -> int:
        self.meta(session_id)  # (an unknown session is named)
        return self._store.n_actions(session_id)

    def map_of(self, session_id: str) -> GridMap:
        return self.maps[self.meta(session_id).map_id]

    def history(self, session_id: str) -> CanvasHistory:
        """The Follower's canvas after every action; computed once per session."""
        return self._history_of(session_id)

    @functools.cached_property
    def _history_of(self):
        """A cache of the canvas histories built last, that lives and dies with this corpus."""

        @functools.lru_cache(maxsize=HISTORIES_KEPT)
        def build(session_id: str) -> CanvasHistory:
            s = self.session(session_id)
            return session_history(s, self.maps[s.map_id].grid_size)

        return build

    def route_mask(self, session_id: str) -> np.ndarray:
        m = self.map_of(session_id)
        return route_mask(m.route, cast(tuple[int, int], tuple(m.grid_size)))

    def scores(self, session_id: str, step: int | None = None) -> DrawingScores:
        """Accuracy, coverage and distance-weighted score of the drawing after ``step``."""
        h = self.history(session_id)
        t = len(h) - 1 if step is None else step
        return score(h.mask(t), self.route_mask(session_id))

    # -- tables -----------------------------------------------------------------------------

    @functools.cached_property
    def _tables(self) -> Tables:
        return self.tables if self.tables is not None else tables_of(self.sessions, self.maps)

    @property
    def actions_df(self) -> pd.DataFrame:
        """One row per action, with its session's condition and split and the mental model."""
        return self._tables.actions

    @property
    def sessions_df(self) -> pd.DataFrame:
        """One row per session: condition, split, duration, action counts by type, task metrics."""
        return self._tables.sessions

    @property
    def route_coverage(self) -> np.ndarray:
        """The route coverage after each action (the rows of :attr:`actions_df`), NaN in sessions
        whose map has no route."""
        return self._tables.coverage

    def coded(self, scheme: str = schema.GROUNDING_ACTS_SCHEME) -> pd.DataFrame:
        """Long table of one coding scheme's labels: item_id, session_id, action_index, coder, coder_kind, code,
        partition."""
        return self.labels[self.labels["scheme"] == scheme].drop(columns="scheme").reset_index(drop=True)

    def model_coders(self, scheme: str = schema.GROUNDING_ACTS_SCHEME) -> list[str]:
        """The coders of a scheme recorded as models (coder_kind), sorted."""
        coded = self.coded(scheme)
        return sorted(coded.loc[coded["coder_kind"] == schema.MODEL, "coder"].unique().tolist())

    @property
    def design(self) -> tuple[str, str]:
        """The two conditions the sessions compare, (reference, treatment): the design their recorded
        conditions belong to, else the one the dataset names, else the canvas design."""
        present = sorted({self.meta(sid).condition for sid in self.sessions})
        return schema.design_of(present) or schema.design_of(self.info.conditions) or schema.CANVAS

    @functools.cached_property
    def outlines(self) -> dict[str, SessionOutline]:
        """Each session's map and its actions' indices and roles, from the action table: what a
        predictions file is checked against (:mod:`corpus.predictions`) without reading sessions."""
        actions = self.actions_df
        sids = actions["session_id"].to_numpy()
        starts = np.flatnonzero(np.r_[True, sids[1:] != sids[:-1]]) if len(sids) else np.zeros(0, dtype=int)
        ends = np.r_[starts[1:], len(sids)]
        index, roles = actions["index"].to_numpy(), actions["role"].to_numpy()
        out = {
            sids[a]: SessionOutline(sids[a], self.meta(sids[a]).map_id, ActionRefs(index[a:b].tolist(), roles[a:b]))
            for a, b in zip(starts.tolist(), ends.tolist())
        }
        for sid in self.sessions:  # (a session without actions is in no row of the table)
            out.setdefault(sid, SessionOutline(sid, self.meta(sid).map_id, ActionRefs((), ())))
        return out

    @functools.cached_property
    def splits(self) -> list[str]:
        """The splits the sessions belong to, in the schema's order (read from their session.json,
        not from :attr:`sessions_df`, which a corpus built in code makes by scoring every drawing)."""
        present = {self.meta(sid).split for sid in self.sessions}
        return [split for split in schema.SPLITS if split in present]

    # -- what every dataset offers (corpus.domain.Dataset) -------------------------------------

    @property
    def domain(self) -> str:
        return DOMAIN

    @property
    def unit_noun(self) -> str:
        return "session"

    @property
    def provenance(self) -> dict[str, str]:
        return provenance(self.info.description, generated_by=generated_by(self.info.generator))

    @property
    def units(self) -> pd.DataFrame:
        """One row per session: unit_id (the session id), condition, split and map_id, from each
        session's session.json (no action is read)."""
        metas = [self.meta(sid) for sid in self.sessions]
        return pd.DataFrame(
            {
                UNIT_ID: [m.id for m in metas],
                "condition": [m.condition for m in metas],
                "split": [m.split for m in metas],
                "map_id": [m.map_id for m in metas],
            },
            columns=[UNIT_ID, "condition", "split", "map_id"],
        )


def content_hash(root: str | Path) -> str:
    """SHA-256 over the relative path and bytes of every file of a dataset directory, in path order.

    Two copies of the same dataset have the same hash wherever they live; any edited byte gives
    another. Hidden files (names starting with a dot) are not part of a dataset and do not count.
    """
    return hash_and_signature(root)[0]


def hash_and_signature(root: str | Path) -> tuple[str, str]:
    """:func:`content_hash` and :func:`files_signature` of a dataset directory, made in one walk of
    its files (each file's size and modification time asked of it once it is open)."""
    return _afresh_if_gone(lambda: _hash_and_signature(root))


def _hash_and_signature(root: str | Path) -> tuple[str, str]:
    h = hashlib.sha256()
    buffer = bytearray(1 << 20)  # (read into, file after file: no new buffer for each of 20,000 files)
    view = memoryview(buffer)
    lines = []
    for parts, path in dataset_files(root):
        name = "/".join(parts)
        h.update(name.encode("utf-8") + b"\0")
        with open(path, "rb", buffering=0) as f:
            st = os.fstat(f.fileno())
            while n := f.readinto(buffer):
                h.update(view[:n])
        h.update(b"\0")
        lines.append(_signature_line(name, st))
    return h.hexdigest(), _signature_of(lines)


def files_signature(root: str | Path) -> str:
    """A cheap change token for a dataset directory: a digest of the names, sizes and modification
    times of the files :func:`content_hash` reads (it changes whenever their hash may). The folders
    are listed again only where they changed (:mod:`corpus.loading.listing`); the files are asked for their
    sizes and times every time."""
    return _afresh_if_gone(
        lambda: _signature_of([_signature_line("/".join(parts), os.stat(path)) for parts, path in dataset_files(root)])
    )


T = TypeVar("T")


def _afresh_if_gone(walk: Callable[[], T]) -> T:
    """``walk()`` of a dataset's files, again with every folder listed afresh should a file it lists
    be gone (a link to a file that went: its folder unchanged, its listing kept)."""
    try:
        return walk()
    except FileNotFoundError:
        forget_listings()
        return walk()


def _signature_line(name: str, st: os.stat_result) -> str:
    return f"{name}\0{st.st_size}\0{st.st_mtime_ns}"


def _signature_of(lines: list[str]) -> str:
    return hashlib.sha256("\n".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def _labels_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    df = pd.DataFrame(
        rows, columns=["scheme", "session_id", "action_index", "coder", "coder_kind", "code", "partition"]
    )
    df.insert(0, "item_id", [item_id(s, i) for s, i in zip(df["session_id"], df["action_index"])])
    return df


EXPRESSION_COLUMNS = list(ReferenceExpression.model_fields)


def _expressions_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=EXPRESSION_COLUMNS)


class _Found(Exception):  # noqa: N818 - (not an error: the reading stops, the entry is taken)
    """The cache's entry of the dataset being read, found once its hash was known."""

    def __init__(self, entry: Entry):
        super().__init__("found in the dataset cache")
        self.entry = entry


class _Lookup:
    """The cache's entry under the hash being made on another thread, looked for once it is made."""

    def __init__(self, cache: DatasetCache, hashed: Future[tuple[str, str]]):
        self.cache, self.hashed, self.looked = cache, hashed, False

    def __call__(self) -> Entry | None:
        if self.looked or not self.hashed.done():
            return None
        self.looked = True
        return self.cache.read(self.hashed.result()[0]) if self.hashed.exception() is None else None


class _Taken:
    """What :func:`load_dir` takes from each session as it is read: its rows of the tables, and the
    session itself while the sessions kept fit in the budget (the store reads the others again)."""

    def __init__(self, budget: int | None, found: _Lookup | None = None):
        self.builder: TableBuilder | None = None
        self.store_budget = budget
        self.kept: list[Session] = []
        self._kept_actions = 0
        self._found = found
        self.tables: Tables | None = None

    def _stop_if_found(self) -> None:
        if self._found is not None and (entry := self._found()) is not None:
            raise _Found(entry)

    def keeps(self, n_actions: int) -> bool:
        return self.store_budget is None or self._kept_actions + n_actions <= self.store_budget

    def take(
        self, meta: SessionMeta, actions: ActionColumns, session: Session | None, maps: Mapping[str, GridMap]
    ) -> None:
        self._stop_if_found()
        self._builder(maps).add_columns(meta, actions)
        if session is not None:
            self.kept.append(session)
            self._kept_actions += len(session.actions)

    def take_read(self, read: SessionsRead, maps: Mapping[str, GridMap]) -> None:
        self._stop_if_found()
        self._builder(maps).take_rows(read.rows)

    def sessions_read(self) -> None:
        if self.builder is not None:
            self.tables = self.builder.finish()

    def _builder(self, maps: Mapping[str, GridMap]) -> TableBuilder:
        if self.builder is None:
            self.builder = TableBuilder(maps)
        return self.builder


def load_dir(
    root: str | Path,
    *,
    keep_actions: int | None = SESSION_CACHE_ACTIONS,
    cache: DatasetCache | None = None,
    known_hash: str | None = None,
) -> Corpus:
    """Load and validate a dataset directory; raise DatasetError listing every problem.

    The tables are made as the sessions are read; whole sessions are kept up to ``keep_actions``
    actions in all (None: every one), the others read again from the directory when asked for.
    With a ``cache``, a dataset whose bytes were loaded before is taken from it instead of read
    record by record, and one read is kept in it (:mod:`corpus.loading.dataset_cache`); ``known_hash`` is
    the dataset's :func:`content_hash`, when the caller has it. Otherwise the hash the cache
    recorded for the folder as its files are is taken, or, for a folder not seen before, the hash
    is made while the dataset is read (:func:`_read_hashing`)."""
    root = Path(root)
    # A long dataset is read by worker processes: when it will be read (there is no cache, or one
    # holding no entry yet), their fork server starts now, while the files are listed and hashed.
    long = readers(_n_sessions(root)) > 0
    if long and (cache is None or (known_hash is None and not cache.holds_any())):
        start_readers()
    digest, signature = known_hash, None
    if digest is None and cache is not None and root.is_dir() and cache.remembers_hashes():
        signature = files_signature(root)
        digest = cache.known_hash(root, signature)
    with collector_paused(freeze=True):
        entry = cache.read(digest) if cache is not None and digest else None
        kept: list[Session] = []
        if entry is None:
            if long:
                start_readers()
            entry, kept, digest, read, signed = _read_hashing(root, keep_actions, cache, digest)
            # (a cache that remembers no hash: the files' signature is the one made as they were hashed)
            signature = signature or signed
            if cache is not None:  # (kept while the corpus is made and used; the folder's hash once it is kept)
                remember = (
                    None if signature is None else functools.partial(cache.remember_hash, root, signature, digest)
                )
                if read:
                    cache.keep(digest, entry, then=remember)
                elif remember is not None:
                    remember()
        assert digest is not None  # (an entry is only ever read under a digest)
        store = SessionStore(
            entry.metas,
            entry.n_actions,
            functools.partial(read_session, root, maps=entry.maps),
            budget=keep_actions,
        )
        for s in kept:
            store.keep(s)
        return Corpus(
            root=root,
            info=entry.info,
            maps=entry.maps,
            sessions=store,
            labels=entry.labels,
            predictions=entry.predictions,
            warnings=entry.warnings,
            content_hash=digest,
            expressions=entry.expressions,
            tables=entry.tables,
        )


def _n_sessions(root: Path) -> int:
    """How many entries the dataset directory's ``sessions/`` folder holds (0 without one)."""
    try:
        with os.scandir(root / "sessions") as it:
            return sum(1 for _ in it)
    except OSError:
        return 0


def _read_hashing(
    root: Path, keep_actions: int | None, cache: DatasetCache | None, digest: str | None
) -> tuple[Entry, list[Session], str, bool, str | None]:
    """The dataset read record by record (:func:`_read_entry`) while, when ``digest`` is not known,
    its bytes are hashed on another thread (hashing runs outside Python's lock); once the hash is
    made, the cache's entry under it, if any, is taken instead and the reading stops. (The entry,
    the whole sessions kept, the digest, whether the dataset was read, and the files' signature
    when they were hashed.)"""
    if digest is not None or not root.is_dir():
        entry, kept = _read_entry(root, keep_actions)
        return entry, kept, digest or content_hash(root), True, None
    hashing = ThreadPoolExecutor(max_workers=1, thread_name_prefix="groundwork-hash")
    try:
        hashed = hashing.submit(hash_and_signature, root)
        try:
            entry, kept = _read_entry(root, keep_actions, _Lookup(cache, hashed) if cache is not None else None)
        except _Found as found:
            made, signed = hashed.result()
            return found.entry, [], made, False, signed
        made, signed = hashed.result()
        return entry, kept, made, True, signed
    finally:
        hashing.shutdown(wait=False)  # (a read that failed does not wait for the hash)


def _read_entry(root: Path, keep_actions: int | None, found: _Lookup | None = None) -> tuple[Entry, list[Session]]:
    """What reading the dataset record by record makes of it, and the whole sessions kept; raises
    :class:`_Found` when ``found`` finds the dataset's entry in the cache meanwhile."""
    taken = _Taken(keep_actions, found)
    raw, report = read_dataset(root, sink=taken)
    if not report.ok:
        raise DatasetError(report, str(root))
    assert raw.info is not None and taken.builder is not None
    entry = Entry(
        info=raw.info,
        maps=raw.maps,
        metas=raw.metas,
        n_actions={sid: len(o.actions) for sid, o in raw.sessions.items()},
        labels=_labels_frame(raw.labels),
        predictions=raw.predictions,
        warnings=report.warnings,
        expressions=_expressions_frame(raw.expressions),
        tables=taken.tables if taken.tables is not None else taken.builder.finish(),
    )
    return entry, taken.kept


def load(path: str | Path) -> Corpus:
    """Load a dataset directory or a .zip of one (extracted safely to a temporary folder)."""
    path = Path(path)
    if path.suffix.lower() == ".zip" and path.is_file():
        from corpus.server.archive import extracted

        with extracted(path) as root:
            corpus = load_dir(root, keep_actions=None)  # (the folder is gone after: every session is kept)
        corpus.root = path
        return corpus
    return load_dir(path)


def validate(path: str | Path) -> Report:
    """Every problem of a dataset directory or .zip, without loading it."""
    path = Path(path)
    if path.suffix.lower() == ".zip" and path.is_file():
        from corpus.server.archive import ArchiveError, extracted

        try:
            with extracted(path) as root:
                return read_dataset(root)[1]
        except ArchiveError as exc:
            return exc.report
    return read_dataset(path)[1]


def load_sample() -> Corpus:
    return load_dir(SAMPLE_DATA)
