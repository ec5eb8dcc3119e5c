"""The datasets a server offers: those under its configured dataset roots, and nothing else.

A root (:attr:`corpus.settings.Settings.dataset_roots`) is either a dataset itself (it holds
``dataset.json``, as the bundled sample corpus does) or a folder of datasets one level down (as the
data directory's ``datasets/``, where uploads go). :func:`datasets_under` lists them for the picker;
:func:`within_roots` is the one check every opening goes through: a path is accepted only if, with
every symbolic link followed, it is a root or lies inside one. A refusal says the same thing
whether or not the path exists (:data:`OUTSIDE_ROOTS`), so it cannot be used to probe the server.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from corpus.domain import MAP_TASK

MAX_DOMAIN = 60  # characters of a declared domain kept (a name, not a text)
OUTSIDE_ROOTS = "that folder is not one of the datasets this server offers; pick one from the list"


class OutsideRoots(Exception):
    """A path that is not under a dataset root (the message never says what exists there)."""

    def __init__(self) -> None:
        super().__init__(OUTSIDE_ROOTS)


@dataclass(frozen=True)
class DatasetEntry:
    """One dataset a server offers: where it is, its name (from its dataset.json), whether it is
    marked synthetic, and its domain: the name its dataset.json declares ("map_task" when it declares
    none; the registry's entries: :mod:`corpus.domain`). What a page needs to know of a dataset before
    it is opened is read here, once per change of its dataset.json, not on every rerun."""

    path: Path
    name: str
    synthetic: bool
    domain: str = MAP_TASK

    @property
    def key(self) -> str:
        """A short name for links (``?dataset=KEY``) that does not show the server's folders."""
        return key_of(self.path)

    @property
    def label(self) -> str:
        return f"{self.name} ({self.path.name})" if self.name != self.path.name else self.name


def key_of(path: Path) -> str:
    return hashlib.sha256(str(Path(path).resolve()).encode("utf-8")).hexdigest()[:12]


def within_roots(path: str | Path, roots: Iterable[Path]) -> Path:
    """``path`` resolved (links followed) if it is a root or inside one; else :class:`OutsideRoots`."""
    try:
        resolved = Path(path).expanduser().resolve()
    except (OSError, RuntimeError, ValueError):  # a link loop, an embedded NUL byte
        raise OutsideRoots() from None
    for root in roots:
        root = Path(root).resolve()
        if resolved == root or root in resolved.parents:
            return resolved
    raise OutsideRoots()


def _entry(folder: Path) -> DatasetEntry | None:
    meta = folder / "dataset.json"
    if not meta.is_file():
        return None
    try:
        info = json.loads(meta.read_text(encoding="utf-8"))
        name = str(info.get("name") or folder.name) if isinstance(info, dict) else folder.name
        synthetic = bool(info.get("synthetic")) if isinstance(info, dict) else False
        found = info.get("domain") if isinstance(info, dict) else None
        # (a domain no entry reads is kept as declared: opening the dataset says so)
        domain = found[:MAX_DOMAIN] if isinstance(found, str) and found else MAP_TASK
    except (OSError, ValueError, RecursionError):  # listed by its folder name; opening it reports the problem
        name, synthetic, domain = folder.name, False, MAP_TASK
    return DatasetEntry(folder.resolve(), name[:200], synthetic, domain)


def entry_at(folder: str | Path) -> DatasetEntry:
    """The entry of the dataset at ``folder`` read afresh (for a folder no root lists: one inside a
    dataset root's datasets); a folder without dataset.json is listed as Map Task sessions, whose
    reader then says what is missing."""
    folder = Path(folder)
    return _entry(folder) or DatasetEntry(folder.resolve(), folder.name, False, MAP_TASK)


def datasets_under(roots: Iterable[Path]) -> list[DatasetEntry]:
    """Every dataset a root is or holds one level down, in the order of the roots, then by name."""
    found: dict[Path, DatasetEntry] = {}
    for root in roots:
        root = Path(root)
        here = _entry(root) if root.is_dir() else None
        if here is not None:
            found.setdefault(here.path, here)
            continue
        try:
            children = sorted(
                (p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")), key=lambda p: p.name
            )
        except OSError:  # a root that does not exist (yet): nothing offered from it
            continue
        inside = []
        for child in children:  # a link that leads out of the root is not offered
            try:
                inside.append(within_roots(child, [root]))
            except OutsideRoots:
                continue
        entries = [e for e in map(_entry, inside) if e is not None]
        for e in sorted(entries, key=lambda e: (e.name.lower(), e.path.name)):
            found.setdefault(e.path, e)
    return list(found.values())


def signature(roots: Iterable[Path]) -> tuple:
    """A cheap change token for what :func:`datasets_under` would list (each root's and each child's
    dataset.json modification time): the picker re-reads the names only when it changes."""
    sig = []
    for root in roots:
        root = Path(root)
        candidates = [root]
        try:
            candidates += sorted(p for p in root.iterdir() if p.is_dir())
        except OSError:
            pass
        for folder in candidates:
            try:
                sig.append((str(folder), (folder / "dataset.json").stat().st_mtime_ns))
            except OSError:
                continue
    return tuple(sig)
