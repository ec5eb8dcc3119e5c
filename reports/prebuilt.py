"""The server's own report of a dataset it offers: built once per dataset and version of the code, kept
in the data directory's ``reports/``, and given to everyone who asks. A visitor who is not signed in
gets this one (a reviewer needs no account) and never starts a build of their own: the most they
can cost the server is one build per dataset it offers, ever, through the server's queue.

``deploy/serve.py`` builds the default dataset's report in the background once the server has
warmed up (``GROUNDWORK_PREBUILD_REPORT``), at a low priority, as ``python -m reports.prebuilt
DATASET``; a visitor who asks before it is done waits for that build rather than starting another
(one build per report at a time, across every process serving the data directory: a lock file).

The report is the command line's (``python -m analysis report``): the dataset's own labels, the
pages' opening choices, no gold from the label database (a signed-in user's build adds it).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from corpus.domain import Dataset
from corpus.loading.dataset_cache import code_version
from corpus.server.workqueue import Place
from reports import html, reproduction
from reports.reference import load as load_reference
from services import jobs
from services.settings import settings

OWNER = "server:reports"  # the queue's owner of the server's own builds (two at most, as for anyone)
STALE_BUILD_SECONDS = 15 * 60  # a lock older than this is a build that died: the next asker builds
WAIT_SECONDS = 10 * 60  # the longest a visitor waits for another's build of the same report
KEEP = 8  # reports kept (the newest): older datasets and older versions of the code go


@dataclass(frozen=True)
class Kept:
    """A report the server built and kept."""

    html: Path
    tables: Path
    built_at: float
    seconds: float

    def read(self) -> tuple[bytes, bytes]:
        return self.html.read_bytes(), self.tables.read_bytes()


@functools.cache
def version() -> str:
    """A digest of the code that makes a report (the dataset reader's version, and every module under
    ``analysis/``, ``components/`` and ``reports/``): a report kept by other code is not given out."""
    h = hashlib.sha256(code_version().encode())
    root = Path(__file__).resolve().parent.parent
    for folder in ("analysis", "components", "reports"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".js", ".css", ".html", ".yaml"):
                h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def _folder() -> Path:
    return settings().data_dir / "reports"


def _stem(content_hash: str) -> Path:
    return _folder() / f"{content_hash[:32]}-{version()}"


def kept(content_hash: str) -> Kept | None:
    """The report the server kept of the dataset with this content hash, by this code; or None."""
    stem = _stem(content_hash)
    html_path, tables = stem.with_name(stem.name + ".html"), stem.with_name(stem.name + "_tables.zip")
    meta = stem.with_name(stem.name + ".json")
    try:
        facts = json.loads(meta.read_text(encoding="utf-8"))
        if html_path.is_file() and tables.is_file():
            return Kept(html_path, tables, float(facts["built_at"]), float(facts["seconds"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return None


def building(content_hash: str) -> bool:
    """Whether the server's report of this dataset is being built now (by any process)."""
    stem = _stem(content_hash)
    lock = stem.with_name(stem.name + ".building")
    try:
        return time.time() - lock.stat().st_mtime <= STALE_BUILD_SECONDS
    except FileNotFoundError:
        return False


def _claim(stem: Path) -> bool:
    """Whether this process builds the report now (it made the lock; a lock left by a build that
    died long ago is taken over)."""
    lock = stem.with_name(stem.name + ".building")
    lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        if time.time() - lock.stat().st_mtime > STALE_BUILD_SECONDS:
            lock.unlink(missing_ok=True)
    except FileNotFoundError:
        pass
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    return True


def _forget_old() -> None:
    """Keep the :data:`KEEP` newest reports (their three files each)."""
    metas = sorted(_folder().glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for meta in metas[KEEP:]:
        stem = meta.with_suffix("")
        for path in (meta, stem.with_name(stem.name + ".html"), stem.with_name(stem.name + "_tables.zip")):
            path.unlink(missing_ok=True)


def build_and_keep(
    data: Dataset,
    command: str,
    waiting: Callable[[Place | None], None] | None = None,
    step: Callable[[str], None] | None = None,
) -> Kept | None:
    """The server's report of ``data``: the one kept, else built now through the server's queue (or,
    if another process is building it, that one once it is done). ``waiting(place)`` is called while
    it waits (``None``: waiting for another process's build); ``step`` names each step of a build.
    None if another's build did not finish in :data:`WAIT_SECONDS`."""
    found = kept(data.content_hash)
    if found is not None:
        return found
    stem = _stem(data.content_hash)
    if not _claim(stem):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            if waiting is not None:
                waiting(None)
            time.sleep(1.0)
            found = kept(data.content_hash)
            if found is not None or not stem.with_name(stem.name + ".building").exists():
                return found
        return None
    lock = stem.with_name(stem.name + ".building")
    try:
        with jobs.turn(OWNER, f"Building the server's report of {data.name}", waiting):
            started = time.time()
            if step is not None:
                step("Computing the results, as the pages do...")
            report = reproduction.build_for(
                data,
                command=command,
                reference=load_reference() if reproduction.report_of(data).reference else None,
                ahead=True,
            )
            if step is not None:
                step("Drawing the figures...")
            html.write(report, stem)
            meta = stem.with_name(stem.name + ".json")
            facts = {"built_at": time.time(), "seconds": time.time() - started, "name": data.name}
            meta.write_text(json.dumps(facts), encoding="utf-8")
        _forget_old()
        return kept(data.content_hash)
    finally:
        lock.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> int:
    """``python -m reports.prebuilt DATASET``: build and keep the server's report of the dataset at
    ``DATASET`` (what ``deploy/serve.py`` starts after its warm-up)."""
    from streamlit import logger

    logger.set_log_level("error")  # the screens' caches run here without a server, as they may
    from components.report import command_for
    from services.datasets import check

    path = Path((argv or sys.argv[1:])[0])
    data = check(path)
    if data.domain not in reproduction.REPORTS:  # (a domain a lab added, with no report of its own)
        print(f"Groundwork: {data.name} is of a domain that has no report", file=sys.stderr)
        return 0
    done = build_and_keep(data, command_for(path))
    print(f"Groundwork: the server's report of {data.name} is {'kept' if done else 'not built'}", file=sys.stderr)
    return 0 if done else 1


if __name__ == "__main__":
    sys.exit(main())
