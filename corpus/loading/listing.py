"""The files of a dataset folder, listed again only where a folder changed.

A corpus of a million actions is 10,000 session folders and 20,000 files, and the app asks for
their names, sizes and times on every run of a page (:func:`corpus.loading.dataset.files_signature`), to
see whether the dataset changed on disk. Listing 10,000 folders takes a tenth of a second or more;
asking a folder for its times takes a fortieth of that. A folder's modification time changes
whenever a name in it is added, removed or renamed, so a folder whose time (and change time and
inode) is what it was when it was listed still holds the names it held: each folder's names are
kept with those times, and a folder is listed again only when they differ. A file written in place
does not change its folder's time, which is why the files themselves are still asked for their
sizes and times on every check (by the caller).

A folder changed within :data:`RACY_NS` of being listed is not kept: its time may not move again
for a change made in the same tick of the file system's clock (the "racy" case of any tool that
trusts modification times), so it is listed again on the next call, until its time is older.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass

RACY_NS = 2_000_000_000  # a folder changed this recently (ns) is listed again on the next call
MAX_FOLDERS = 200_000  # folders whose names are kept, in all (past it, every kept listing goes)


@dataclass(frozen=True)
class _Listing:
    stamp: tuple[int, int, int]  # (mtime_ns, ctime_ns, inode) when listed
    folders: tuple[str, ...]  # the names of its folders and of its files (hidden names left out)
    files: tuple[str, ...]


_KEPT: dict[str, _Listing] = {}
_LOCK = threading.Lock()


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def _listing(folder: str) -> _Listing:
    st = os.stat(folder)
    stamp = _stamp(st)
    kept = _KEPT.get(folder)
    if kept is not None and kept.stamp == stamp:
        return kept
    folders, files = [], []
    with os.scandir(folder) as it:
        for entry in it:
            if entry.name.startswith("."):
                continue
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.name)
            elif entry.is_file():
                files.append(entry.name)
    made = _Listing(stamp, tuple(folders), tuple(files))
    if time.time_ns() - st.st_mtime_ns > RACY_NS:
        with _LOCK:
            if len(_KEPT) >= MAX_FOLDERS:
                _KEPT.clear()
            _KEPT[folder] = made
    else:
        _KEPT.pop(folder, None)
    return made


@dataclass(frozen=True)
class _Walk:
    folders: tuple[tuple[str, _Listing], ...]  # every folder walked, with the listing it gave
    files: tuple[tuple[tuple[str, ...], str], ...]  # what the walk gave


_WALKS: dict[str, _Walk] = {}
MAX_WALKS = 64  # dataset folders whose whole walk is kept


def _unchanged(walk: _Walk) -> bool:
    try:
        return all(_stamp(os.stat(folder)) == listing.stamp for folder, listing in walk.folders)
    except OSError:
        return False


def dataset_files(root: str | os.PathLike[str]) -> list[tuple[tuple[str, ...], str]]:
    """The files of a dataset directory as (parts of the path relative to ``root``, full path), in
    path order. Hidden files and folders (names starting with a dot) are not part of a dataset and
    are left out; links to folders are not followed. Each folder is asked for its times, and listed
    only when they are not those it was last listed with (see the module's note); when no folder
    changed, the last walk's files are the answer."""
    top = os.fspath(root)
    walk = _WALKS.get(top)
    if walk is not None and _unchanged(walk):
        return list(walk.files)
    out: list[tuple[tuple[str, ...], str]] = []
    walked: list[tuple[str, _Listing]] = []
    pending: list[tuple[tuple[str, ...], str]] = [((), top)]
    while pending:
        parts, folder = pending.pop()
        listing = _listing(folder)
        walked.append((folder, listing))
        for name in listing.folders:
            pending.append(((*parts, name), os.path.join(folder, name)))
        for name in listing.files:
            out.append(((*parts, name), os.path.join(folder, name)))
    out.sort()
    with _LOCK:
        if all(_KEPT.get(folder) is listing for folder, listing in walked):  # (none too recent to keep)
            if len(_WALKS) >= MAX_WALKS:
                _WALKS.clear()
            _WALKS[top] = _Walk(tuple(walked), tuple(out))
        else:
            _WALKS.pop(top, None)
    return out


def forget_listings() -> None:
    """Drop every kept listing (the next call lists every folder)."""
    with _LOCK:
        _KEPT.clear()
        _WALKS.clear()
