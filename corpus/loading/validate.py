"""Read a dataset directory and report every problem with file, record and field.

:func:`validate_path` takes any dataset Groundwork writes, a folder or a .zip, and reports it the
same way whatever its domain (``dataset.json``'s ``domain``): Map Task sessions (read here), kitchen
runs (:func:`corpus.kitchen.dataset.read_kitchen`) or a benchmark (:func:`corpus.benchmark.dataset.load_benchmark`).

A dataset directory (documented in docs/data-format.md)::

    dataset.json
    maps/<map_id>.json
    sessions/<session_id>/session.json
    sessions/<session_id>/actions.jsonl
    labels/<scheme>.csv                         (optional; scheme: grounding_acts, hcrc_moves, gmmt)
    labels/gmmt_expressions.jsonl               (optional; the details of the gmmt labels)
    predictions/<model_id>/model.json           (optional)
    predictions/<model_id>/<task>.jsonl         (optional; task: next_action, mental_model)

:func:`read_dataset` collects every problem instead of stopping at the first; the caller decides
(``corpus.loading.dataset.load`` refuses the whole dataset if any problem is an error). A problem is
reported once, where it is: a map or session with errors is not reported again by every record
that refers to it; its error says how many records do. A session folder's files
are checked in :mod:`corpus.loading.validate_session`, labels in :mod:`corpus.loading.validate_refs`, predictions in
:mod:`corpus.predictions`; reading a single file is
:mod:`corpus.loading.reading`.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, overload

from corpus import schema
from corpus.loading.action_rows import ActionColumns, columns_at_once, columns_of_bytes
from corpus.loading.reading import (  # noqa: F401  (re-exported: the readers' public names)
    MAX_FILE_BYTES,
    bytes_at_once,
    iter_jsonl,
    jsonl_records,
    load_json,
    parse,
    parse_jsonl,
    pydantic_issues,
    read_json,
    read_text,
    text_at_once,
)
from corpus.loading.report import (  # noqa: F401  (re-exported)
    ERROR,
    MAX_ISSUES,
    WARNING,
    DatasetError,
    Issue,
    Report,
    describe,
    shown,
)
from corpus.loading.tables import BuiltRows, TableBuilder
from corpus.loading.validate_refs import note_references, read_labels
from corpus.loading.validate_session import (
    _actions_text,
    _check_against_actions,
    _meta_at_once,
    _read_actions,
    _read_meta,
)
from corpus.model import MAX_SECONDS, DatasetInfo, GridMap, Session, SessionMeta  # noqa: F401  (MAX_SECONDS: re-exported)
from corpus.server.processes import Workers, processors


class SessionSink(Protocol):
    """How a loader takes each session read in full (its session.json and every action valid, its
    map known) as it is read."""

    def keeps(self, n_actions: int) -> bool:
        """Whether the whole session of ``n_actions`` actions is wanted, built as models (else only
        its columns are)."""
        ...

    def take(
        self, meta: SessionMeta, actions: ActionColumns, session: Session | None, maps: Mapping[str, GridMap]
    ) -> None:
        """A session's session.json and actions' columns, the session itself when :meth:`keeps`
        wanted it, and the dataset's maps."""
        ...

    def take_read(self, read: SessionsRead, maps: Mapping[str, GridMap]) -> None:
        """Sessions a worker read (none kept whole), after those taken so far: as if each had
        been taken in turn."""
        ...

    def sessions_read(self) -> None:
        """Every session was taken, with nothing wrong so far; the workers, if any, are reading the
        runs' files now (what the sink makes of the sessions is best made meanwhile)."""
        ...


@dataclass(frozen=True, slots=True)
class ActionRef:
    """What the labels and predictions readers check a record against: an action's index and role."""

    index: int
    role: str


_ROLE_CODE = {role: k for k, role in enumerate(schema.ROLES)}


class ActionRefs(Sequence[ActionRef]):
    """The index and role of each action of a session, in file order, without the actions (each
    role one byte, its place in the schema's roles: a million of them pickle, for the workers that
    check predictions against them, as a megabyte)."""

    __slots__ = ("_index", "_roles")

    def __init__(self, index: Iterable[int], roles: Iterable[str]):
        self._index = array("q", index)
        self._roles = self.codes_of(roles)

    def __len__(self) -> int:
        return len(self._roles)

    @property
    def role_codes(self) -> bytes:
        """Each action's role as its place in the schema's roles."""
        return self._roles

    @staticmethod
    def codes_of(roles: Iterable[str]) -> bytes:
        """:attr:`role_codes` of actions whose roles are ``roles``."""
        return bytes(map(_ROLE_CODE.__getitem__, roles))

    @overload
    def __getitem__(self, k: int) -> ActionRef: ...
    @overload
    def __getitem__(self, k: slice) -> list[ActionRef]: ...
    def __getitem__(self, k: int | slice) -> ActionRef | list[ActionRef]:
        if isinstance(k, slice):
            return [ActionRef(i, schema.ROLES[r]) for i, r in zip(self._index[k], self._roles[k])]
        return ActionRef(self._index[k], schema.ROLES[self._roles[k]])


@dataclass(frozen=True)
class SessionOutline:
    """A session as the readers after it see it: its id, its map and its actions' indices and roles
    (the whole session is handed to the :data:`SessionSink`, if any, and not kept)."""

    id: str
    map_id: str
    actions: ActionRefs


@dataclass
class RawDataset:
    """What :func:`read_dataset` parsed; complete only when the report has no errors."""

    root: Path
    info: DatasetInfo | None = None
    maps: dict[str, GridMap] = field(default_factory=dict)
    sessions: dict[str, SessionOutline] = field(default_factory=dict)
    metas: dict[str, SessionMeta] = field(default_factory=dict)  # each session's session.json
    labels: list[dict[str, Any]] = field(default_factory=list)
    # Details of labels: the reference expressions of labels/gmmt_expressions.jsonl, as dicts.
    expressions: list[dict[str, Any]] = field(default_factory=list)
    invalid_maps: set[str] = field(default_factory=set)
    # Sessions whose session.json or some action failed: records referring to them are counted,
    # not checked (their actions are not known).
    failed_sessions: set[str] = field(default_factory=set)
    predictions: dict[str, Any] = field(default_factory=dict)  # run id -> corpus.predictions.Run
    # ("map" | "session", id) -> position of the first error it caused in the report.
    root_errors: dict[tuple[str, str], int | None] = field(default_factory=dict)
    # ("map" | "session", id) -> {file: number of records there referring to it}.
    references: dict[tuple[str, str], Counter] = field(default_factory=dict)

    def refer(self, kind: str, key: str, file: str) -> None:
        self.references.setdefault((kind, key), Counter())[file] += 1

    def counts_as_reference(self, session_id: str, file: str) -> bool:
        """Whether a record of ``file`` naming ``session_id`` is only counted (the session failed)."""
        if session_id not in self.failed_sessions:
            return False
        self.refer("session", session_id, file)
        return True


@contextmanager
def collector_paused(freeze: bool = False) -> Iterator[None]:
    """Pause Python's cyclic collector while a dataset is read.

    Reading builds about ten objects per action, and all of them stay alive until the read ends.
    The collector would scan the growing heap again and again (half the time at 100,000 actions)
    and could free nothing, so :func:`read_dataset` always runs with it paused.

    With ``freeze`` (``corpus.loading.dataset.load_dir``, the one caller that keeps what was read), once
    the body has succeeded everything then alive, the loaded corpus included, is moved out of the
    collector's sight (``gc.freeze``): a loaded corpus lives as long as it is shown, and is freed
    by reference counting when it is dropped. A read kept only for its report is not frozen.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if freeze:
            gc.freeze()
    finally:
        if was_enabled:
            gc.enable()


MAP_TASK = "map_task"


def domain_of(root: str | Path) -> str:
    """The domain a dataset folder's dataset.json names ("map_task" when it names none, or when
    there is no readable dataset.json: the Map Task reader then says what is wrong)."""
    try:
        info = json.loads((Path(root) / "dataset.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return MAP_TASK
    domain = info.get("domain") if isinstance(info, dict) else None
    return domain if isinstance(domain, str) and domain else MAP_TASK


def validate_path(path: str | Path) -> tuple[str, Report]:
    """Every problem of any dataset Groundwork writes (a folder or a .zip of one), without loading
    it for a screen, and its domain (the registry's name: "map_task", "kitchen", "benchmark" or a
    plugin's; "" when a .zip could not be opened). The report has the same shape for every domain: file, record, field, message."""
    path = Path(path)
    if path.suffix.lower() == ".zip" and path.is_file():
        from corpus.server.archive import ArchiveError, extracted

        try:
            with extracted(path) as root:
                return _validate_folder(root)
        except ArchiveError as exc:
            return "", exc.report
    return _validate_folder(path)


def _validate_folder(root: Path) -> tuple[str, Report]:
    """Every problem of a folder, by the validator of the domain its dataset.json names (the registry's,
    :mod:`corpus.domain`); a domain this server does not read is the one problem reported."""
    from corpus import domain as registry

    name = domain_of(root) if root.is_dir() else MAP_TASK
    try:
        found = registry.get(name)
    except registry.UnknownDomain as exc:
        return name, exc.report
    return name, found.validate(root)


def read_dataset(root: str | Path, sink: SessionSink | None = None) -> tuple[RawDataset, Report]:
    """Every problem of the dataset directory ``root``; each session read in full goes to ``sink``."""
    with collector_paused():
        return _read_dataset(Path(root), sink)


def read_session(root: str | Path, session_id: str, maps: Mapping[str, GridMap]) -> Session:
    """The session ``session_id`` of a dataset directory read before (whose maps are ``maps``),
    validated as on load; :class:`DatasetError` if its files no longer read without an error."""
    root = Path(root)
    report = Report()
    raw = RawDataset(root=root, maps=dict(maps))
    folder = root / "sessions" / session_id
    session = None
    with collector_paused():
        if folder.is_dir():
            _, _, session, _ = _read_session(folder, raw, report)
        else:
            report.add(f"sessions/{session_id}/", "-", "(folder)", "missing: the session's folder is gone")
    if session is None or not report.ok:
        raise DatasetError(report, str(root))
    return session


def _read_dataset(root: Path, sink: SessionSink | None = None) -> tuple[RawDataset, Report]:
    report = Report()
    raw = RawDataset(root=root)
    if not root.is_dir():
        report.add(str(root), "-", "(path)", "not a directory (give a dataset directory or a .zip)")
        return raw, report
    info_path = root / "dataset.json"
    if not info_path.is_file():
        report.add("dataset.json", "-", "(file)", "missing: a dataset directory needs dataset.json")
    else:
        loaded = load_json(info_path, report, "dataset.json")
        if loaded is not None:
            raw.info = parse(DatasetInfo, loaded[0], report, "dataset.json", "-", text=loaded[1])
    if raw.info is not None and raw.info.domain == "kitchen":
        report.add(
            "dataset.json",
            "-",
            "domain",
            "a kitchen dataset (runs of two agents cooking, in runs/): read it with corpus.kitchen.dataset, "
            "not as Map Task sessions",
        )
        return raw, report

    _read_maps(root, raw, report)
    with Workers() as workers:  # (started only for a long read: see _read_in_workers)
        _read_sessions(root, raw, report, sink, workers)
        read_labels(root, raw, report)
        from corpus.predictions import read_dataset_runs  # imported here: it builds on this module's readers

        # (With no failed session, no line is only counted: the runs are read without asking.)
        failed = raw.counts_as_reference if raw.failed_sessions else None
        meanwhile = sink.sessions_read if sink is not None and report.ok else None
        raw.predictions = read_dataset_runs(
            root, raw.sessions, raw.maps, report, failed=failed, pool=workers.pool, meanwhile=meanwhile
        )
    note_references(raw, report)
    return raw, report


def _first_error_since(report: Report, start: int) -> int | None:
    """Position of the first error added to ``report`` at or after ``start`` (None if none kept)."""
    return next((k for k in range(start, len(report.issues)) if report.issues[k].severity == ERROR), None)


def _read_maps(root: Path, raw: RawDataset, report: Report) -> None:
    map_dir = root / "maps"
    if not map_dir.is_dir():
        raw.root_errors[("folder", "maps")] = report.add(
            "maps/", "-", "(folder)", "missing: a dataset directory needs a maps/ folder"
        )
        return
    for path in sorted(map_dir.glob("*.json")):
        rel = f"maps/{path.name}"
        start = len(report.issues)
        loaded = load_json(path, report, rel)
        gm = None
        if loaded is not None:
            obj, text = loaded
            map_id = obj.get("id", path.stem) if isinstance(obj, dict) else path.stem
            gm = parse(
                GridMap, obj, report, rel, f"map {shown(map_id) if not isinstance(map_id, str) else map_id}", text=text
            )
        if gm is not None and gm.id != path.stem:
            report.add(rel, f"map {gm.id}", "id", f"map id '{gm.id}' does not match the file name '{path.stem}.json'")
            gm = None
        if gm is None:
            raw.invalid_maps.add(path.stem)
            raw.root_errors[("map", path.stem)] = _first_error_since(report, start)
            continue
        raw.maps[gm.id] = gm


def _read_sessions(
    root: Path, raw: RawDataset, report: Report, sink: SessionSink | None, workers: Workers | None = None
) -> None:
    """Every session folder in order; many are read by worker processes (:func:`_read_in_workers`),
    with the same tables and report."""
    sess_dir = root / "sessions"
    if not sess_dir.is_dir():
        report.add("sessions/", "-", "(folder)", "missing: a dataset directory needs a sessions/ folder")
        return
    with os.scandir(sess_dir) as it:  # (names sorted: a folder's paths in path order)
        dirs = [sess_dir / name for name in sorted(entry.name for entry in it if entry.is_dir())]
    if not dirs:
        report.add("sessions/", "-", "(folder)", "no sessions: sessions/ holds no session folders")
    if workers is not None and _read_in_workers(root, dirs, raw, report, sink, workers):
        return
    for d in dirs:
        _read_one(d, raw, report, sink)


def _read_one(d: Path, raw: RawDataset, report: Report, sink: SessionSink | None, keep: bool = True) -> None:
    """Read the session folder ``d`` (and hand it to ``sink``: whole, if it keeps it and ``keep``)."""
    start = len(report.issues)
    meta, columns, session, complete = _read_session(
        d, raw, report, sink.keeps if sink is not None and keep else _no_session
    )
    if meta is not None:
        raw.sessions[meta.id] = SessionOutline(meta.id, meta.map_id, ActionRefs(columns.index, columns.role))
        raw.metas[meta.id] = meta
        if sink is not None and complete and meta.map_id in raw.maps:
            sink.take(meta, columns, session, raw.maps)
    if not complete:
        raw.failed_sessions.add(d.name)
        raw.root_errors[("session", d.name)] = _first_error_since(report, start)


PARALLEL_SESSIONS = 400  # sessions from which worker processes read them
MAX_READERS = 8  # how many at most, unless the read_workers setting says
CHUNKS_PER_READER = 16


@dataclass
class SessionsRead:
    """Sessions a worker read whole with nothing to report, in folder order: each one's
    session.json and its actions' indices and roles, and the rows of the tables made of them.
    session.json is handed over as its text, validated again where it is taken (pickled, the model
    of a session.json takes twice as long to make as validating its text)."""

    meta_texts: list[str]
    refs: list[ActionRefs]
    rows: BuiltRows

    def metas(self) -> Iterator[SessionMeta]:
        """Each session.json as its model (each text validated when the worker read it)."""
        return (SessionMeta.model_validate_json(text, strict=True) for text in self.meta_texts)


def readers(n_sessions: int) -> int:
    """How many worker processes read ``n_sessions`` sessions (0: this process reads them): the
    ``read_workers`` setting, by default one per processor (at most :data:`MAX_READERS`)."""
    if n_sessions < PARALLEL_SESSIONS:
        return 0
    from corpus.settings import Settings

    try:
        wanted = Settings.load().read_workers
    except ValueError:  # (a setting that does not read is reported where it is used; a load goes on)
        wanted = None
    n = min(processors(), MAX_READERS) if wanted is None else wanted
    return n if n >= 2 else 0


def _read_in_workers(
    root: Path, dirs: Sequence[Path], raw: RawDataset, report: Report, sink: SessionSink | None, workers: Workers
) -> bool:
    """Read the session folders ``dirs`` in worker processes, each a run of them at a time, and
    take what they read in order (no session is built whole: the first one asked for is read then);
    a run in which a session has anything to report (or a worker that fails) is read here, so the
    report is the one reading here gives. False (nothing read) when the sessions are too few, there
    is one processor, or the sink keeps every session whole."""
    n = readers(len(dirs))
    if sink is None or not n or sink.keeps(sys.maxsize):  # (keeping every session: all are built here)
        return False
    pool = workers.start(n)
    size = -(-len(dirs) // (n * CHUNKS_PER_READER))
    runs = [dirs[k : k + size] for k in range(0, len(dirs), size)]
    futures = [pool.submit(read_whole_sessions, str(root), [d.name for d in run], raw.maps) for run in runs]
    for run, future in zip(runs, futures):
        try:
            got = future.result()
        except Exception:  # noqa: BLE001 - (a worker that fails leaves its run to this process)
            got = None
        if got is None:
            for d in run:
                _read_one(d, raw, report, sink, keep=False)
            continue
        for meta, refs in zip(got.metas(), got.refs):
            raw.sessions[meta.id] = SessionOutline(meta.id, meta.map_id, refs)
            raw.metas[meta.id] = meta
        sink.take_read(got, raw.maps)
    return True


def read_whole_sessions(root: str, names: Sequence[str], maps: Mapping[str, GridMap]) -> SessionsRead | None:
    """The sessions ``names`` of the dataset directory ``root`` (whose valid maps are ``maps``) as
    the loader reads them, with their rows of the tables; None as soon as one has anything to
    report or is not read whole (the caller reads them then, and words it). A worker's task."""
    raw = RawDataset(root=Path(root), maps=dict(maps))
    report = Report()
    builder = TableBuilder(raw.maps)
    texts, refs = [], []
    folder = os.path.join(root, "sessions")  # (paths joined as texts: a tenth of what Path takes, per session)
    with collector_paused():
        for name in names:
            d = os.path.join(folder, name)
            found = _meta_at_once(d, raw)
            if found is None:
                return None
            meta, grid_map, text = found
            data = bytes_at_once(os.path.join(d, "actions.jsonl"))
            columns = columns_of_bytes(data, grid_map.grid_size) if data is not None else None
            if columns is None:
                return None
            _check_against_actions(meta, columns, True, report, f"sessions/{name}/session.json")
            if report.issues:
                return None
            builder.add_columns(meta, columns)
            texts.append(text)
            refs.append(ActionRefs(columns.index, columns.role))
    return SessionsRead(texts, refs, builder.rows_made())


def _no_session(n_actions: int) -> bool:
    return False


def _read_session(
    d: Path, raw: RawDataset, report: Report, keeps: Callable[[int], bool] | None = None
) -> tuple[SessionMeta | None, ActionColumns, Session | None, bool]:
    """The session of folder ``d``: its session.json (None if it failed), its actions' columns,
    the session built as models (when ``keeps`` wants a session of that many actions; always
    without ``keeps``) and whether it is complete: its session.json valid and every action read.

    With ``keeps``, a session with nothing to report is read by :func:`columns_at_once`, and its
    actions are built as models only when it is kept."""
    meta, grid_map = _read_meta(d, raw, report)
    rel = f"sessions/{d.name}/actions.jsonl"
    text = _actions_text(d, rel, report)
    columns = None
    if keeps is not None and text is not None and meta is not None and grid_map is not None and meta.id == d.name:
        columns = columns_at_once(text, grid_map.grid_size)
    actions = None
    complete = columns is not None
    if columns is None or keeps is None or keeps(len(columns)):
        actions, complete = _read_actions(rel, text, grid_map, report)
        columns = columns if columns is not None else ActionColumns.of(actions)
    if meta is None:
        return None, columns, None, False
    complete = complete and meta.id == d.name  # (records name the session by its folder)
    _check_against_actions(meta, columns, complete, report, f"sessions/{d.name}/session.json")
    session = None
    if actions is not None:
        session = Session.model_construct(**{k: getattr(meta, k) for k in SessionMeta.model_fields}, actions=actions)
    return meta, columns, session, complete
