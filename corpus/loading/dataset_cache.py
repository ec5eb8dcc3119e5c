"""A loaded dataset kept on disk, so that the next load of the same bytes skips reading every record.

When a dataset has been read and validated (:func:`corpus.loading.dataset.load_dir`), what the load made of
it (the tables, every session's ``session.json``, the maps, labels, predictions and warnings) is
written to a cache folder under the dataset's content hash and the version of the code that read
it, on a thread of its own while the load returns (:meth:`DatasetCache.keep`). A later load of a
dataset with the same content hash, by any process sharing the folder (the replicas of a lab: the
app's is the data directory's ``cache/``), reads that instead: for a million actions, a few
seconds instead of half a minute. Whole sessions are read again from the dataset's own folder when
a page asks for one, as after any load.

The files are Python pickles, written and read only by this server, in a folder only it writes
(the data directory: docs/security.md); nothing from a dataset is ever unpickled. Any change to
the code under ``corpus/`` or to the versions of Python, pandas, numpy and pydantic gives another
version, so an entry is never read by code that did not write it. An entry that does not read is
ignored (and written again). The ``entries`` used last are kept, the others removed.

Finding an entry needs the dataset's content hash, which reads every byte (two seconds for a
million actions). The folder also records the hash of each dataset folder it was computed for,
under the folder's path and its files' names, sizes and modification times (what the app already
takes as a sign that a folder has not changed): a folder opened again with its files unchanged, by
a restarted server or another replica, is not hashed again. A folder never seen is hashed while it
is read (:func:`corpus.loading.dataset.load_dir`).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import pickle
import re
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pydantic

from corpus.loading.report import Issue
from corpus.loading.tables import Tables
from corpus.model import DatasetInfo, GridMap, SessionMeta

log = logging.getLogger(__name__)

MIN_ACTIONS = 20_000  # smaller datasets read in about a second: they are not kept
ENTRIES = 8
HASHES_FOLDER = "hashes"  # the content hashes of folders as their files were (known_hash)
HASHES = 256
_DIGEST = re.compile(r"[0-9a-f]{64}")


@dataclass
class Entry:
    """What a load made of a dataset, but its whole sessions."""

    info: DatasetInfo
    maps: dict[str, GridMap]
    metas: dict[str, SessionMeta]
    n_actions: dict[str, int]
    labels: pd.DataFrame
    predictions: dict[str, Any]
    warnings: list[Issue]
    expressions: pd.DataFrame
    tables: Tables


_WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="groundwork-cache-write")
_WRITING: set[Future[Path | None]] = set()  # entries being kept (DatasetCache.keep)
_WRITING_LOCK = threading.Lock()


def _written(future: Future[Path | None]) -> None:
    with _WRITING_LOCK:
        _WRITING.discard(future)


def written(timeout: float | None = None) -> None:
    """Wait until the entries being kept (:meth:`DatasetCache.keep`) are written, or not."""
    with _WRITING_LOCK:
        pending = list(_WRITING)
    wait(pending, timeout=timeout)


def add_sources(h: Any, root: Path, folders: Iterable[str] = (".",)) -> None:
    """Feed ``h`` (a hashlib object) every Python module under ``root``'s ``folders``: each one's
    path relative to ``root`` and its bytes, in sorted order (a digest of the code)."""
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")


@functools.cache
def code_version() -> str:
    """A digest of the code that reads datasets (every module under ``corpus/``) and of the
    versions of what its objects are made of."""
    h = hashlib.sha256()
    add_sources(h, Path(__file__).resolve().parents[1])
    for part in (sys.version, pd.__version__, np.__version__, pydantic.VERSION):
        h.update(part.encode() + b"\0")
    return h.hexdigest()[:16]


@dataclass(frozen=True)
class DatasetCache:
    """The cache folder, and what goes in it: datasets of at least ``min_actions`` actions, the
    ``entries`` used last."""

    folder: Path
    min_actions: int = MIN_ACTIONS
    entries: int = ENTRIES

    def path(self, content_hash: str) -> Path:
        return self.folder / f"{content_hash[:32]}-{code_version()}.pickle"

    def holds_any(self) -> bool:
        """Whether the folder holds an entry written by this version of the code (a load that finds
        none will read its dataset)."""
        try:
            return any(self.folder.glob(f"*-{code_version()}.pickle"))
        except OSError:
            return False

    def read(self, content_hash: str) -> Entry | None:
        """The entry of a dataset with this content hash, or None (none kept, or one that does not read)."""
        path = self.path(content_hash)
        try:
            with open(path, "rb") as f:
                entry = pickle.load(f)
        except FileNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - a damaged entry is read past, whatever broke it
            log.warning("Groundwork: the cached dataset %s does not read (%s); reading the dataset", path.name, exc)
            return None
        if not isinstance(entry, Entry):
            return None
        try:
            os.utime(path)  # (used now: kept longest)
        except OSError:
            pass
        return entry

    def keep(self, content_hash: str, entry: Entry, then: Callable[[], None] | None = None) -> Future[Path | None]:
        """:meth:`write` ``entry`` on a thread of its own, one entry at a time, and call ``then``
        once it is written: the load that made it goes on meanwhile (pickling the entry of a million
        actions takes a second or two). An entry too small to keep is neither written nor followed by
        ``then``. A process waits for the entries it is writing before it exits, and
        :func:`written` waits for them at any time."""
        if sum(entry.n_actions.values()) < self.min_actions:
            done: Future[Path | None] = Future()
            done.set_result(None)
            return done

        def write_then() -> Path | None:
            try:
                path = self.write(content_hash, entry)
                if path is not None and then is not None:
                    then()
                return path
            except Exception:  # (logged: the load it came from has returned)
                log.exception("Groundwork: the loaded dataset %s could not be kept", content_hash[:12])
                raise

        future = _WRITER.submit(write_then)
        with _WRITING_LOCK:
            _WRITING.add(future)
        future.add_done_callback(_written)
        return future

    def write(self, content_hash: str, entry: Entry) -> Path | None:
        """Keep ``entry`` (written whole or not at all), when its dataset is large enough; the
        path written, or None. A folder that cannot be written is logged, never raised."""
        if sum(entry.n_actions.values()) < self.min_actions:
            return None
        path = self.path(content_hash)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".writing-", suffix=".pickle", dir=self.folder)
            try:
                with os.fdopen(fd, "wb") as f:
                    pickle.dump(entry, f, protocol=pickle.HIGHEST_PROTOCOL)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
            self._evict()
        except OSError as exc:
            log.warning("Groundwork: cannot keep the loaded dataset in %s (%s)", self.folder, exc)
            return None
        return path

    # -- the content hash of a folder as its files were -------------------------------------------

    def _hash_path(self, root: Path, signature: str) -> Path:
        key = hashlib.sha256(f"{Path(root).resolve()}\0{signature}".encode("utf-8", "surrogateescape")).hexdigest()
        return self.folder / HASHES_FOLDER / key[:32]

    def remembers_hashes(self) -> bool:
        """Whether the folder records any folder's content hash (:meth:`known_hash` may know one)."""
        try:
            with os.scandir(self.folder / HASHES_FOLDER) as it:
                return any(True for _ in it)
        except OSError:
            return False

    def known_hash(self, root: Path, signature: str) -> str | None:
        """The content hash recorded for the folder ``root`` when its files had ``signature``
        (:func:`corpus.loading.dataset.files_signature`: their names, sizes and modification times), or
        None: a folder opened again, by this process or another, is not hashed again."""
        try:
            digest = self._hash_path(root, signature).read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError):
            return None
        return digest if _DIGEST.fullmatch(digest) else None

    def remember_hash(self, root: Path, signature: str, digest: str) -> None:
        """Record ``digest`` as the content hash of ``root`` while its files have ``signature`` (the
        :data:`HASHES` recorded last are kept). A folder that cannot be written is logged."""
        path = self._hash_path(root, signature)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".writing-", dir=path.parent)
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(digest)
            os.replace(tmp, path)
            kept = sorted(path.parent.iterdir(), key=lambda p: p.stat().st_mtime_ns, reverse=True)
            for old in kept[HASHES:]:
                old.unlink(missing_ok=True)
        except OSError as exc:
            log.warning("Groundwork: cannot record a dataset's content hash in %s (%s)", self.folder, exc)

    def _evict(self) -> None:
        kept = sorted(self.folder.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in kept[self.entries :]:
            old.unlink(missing_ok=True)
