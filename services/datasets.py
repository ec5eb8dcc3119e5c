"""The current dataset: which one this browser session looks at, and the loaded dataset.

- The datasets a server offers are those under the configured dataset roots
  (:mod:`corpus.loading.catalog`); :func:`offered` lists them (names re-read only when a dataset.json
  changes). :func:`open_dataset` is the only way to change the current one, and refuses any path
  outside the roots with one message that says nothing about what exists there.
- A link can name the dataset (``?dataset=KEY``, :func:`link_params`) so that it opens in a new
  browser session on the same data; the key is a digest of the folder, never its path.
- A dataset is read by its domain's reader (:mod:`corpus.domain`), the domain named by its catalog
  entry (no dataset.json is read again on a rerun). A loaded dataset is kept once per server, keyed
  by its content hash (and its folder, where the map editor writes); the hash itself is recomputed
  only when a file's name, size or time changes. Every cached computation downstream keys on
  ``data.content_hash``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import streamlit as st

from corpus import domain as registry
from corpus.domain import MAP_TASK, Dataset
from corpus.loading import catalog
from corpus.loading.dataset import Corpus, content_hash, files_signature
from corpus.loading.dataset_cache import DatasetCache
from corpus.loading.validate import Report
from services.settings import settings

STATE_KEY = "dataset_source"
REPORT_KEY = "import_report"
QUERY_KEY = "dataset"
UNKNOWN_LINK_KEY = "dataset_link_unknown"
MAX_LINK_KEY = 80  # characters of an unknown key that are shown


@dataclass(frozen=True)
class Source:
    """The dataset a session looks at: its folder and how the picker names it."""

    path: Path
    label: str
    uploaded: bool = False
    domain: str = MAP_TASK  # as its catalog entry says


@dataclass(frozen=True)
class ImportOutcome:
    """The last upload or opening of this session, for the Data page's validation report."""

    name: str
    report: Report
    imported: bool
    note: str = ""  # what the upload was read as ("Read as ... (found ...)")


# -- what the server offers ---------------------------------------------------------------------


@st.cache_data(show_spinner=False, max_entries=16)
def _offered(roots: tuple[str, ...], signature: tuple) -> list[catalog.DatasetEntry]:
    return catalog.datasets_under(Path(r) for r in roots)


def offered() -> list[catalog.DatasetEntry]:
    """The datasets under the configured roots (the sample corpus first, by default), of every
    domain alike (each entry says its domain)."""
    roots = settings().dataset_roots
    return _offered(tuple(map(str, roots)), catalog.signature(roots))


def default_source() -> Source:
    entries = offered()
    if not entries:
        raise catalog.OutsideRoots()
    first = entries[0]
    return Source(first.path, first.label, domain=first.domain)


def current_source() -> Source:
    """The dataset this session looks at (the first one offered until another is opened)."""
    held = st.session_state.get(STATE_KEY)
    if isinstance(held, Source) and held.path.is_dir():
        return held
    st.session_state.pop(STATE_KEY, None)  # never chosen, or reclaimed since
    wanted = st.query_params.get(QUERY_KEY)  # a link from another session (e.g. the Data page's rows)
    entry = next((e for e in offered() if e.key == wanted), None) if wanted else None
    if wanted and entry is None:
        st.session_state[UNKNOWN_LINK_KEY] = wanted[:MAX_LINK_KEY]  # (said until another dataset is picked)
    return open_dataset(entry.path) if entry else default_source()


def unknown_link() -> str | None:
    """The dataset key of a link that named none this server offers (the default was opened instead)."""
    held = st.session_state.get(UNKNOWN_LINK_KEY)
    return held if isinstance(held, str) else None


def forget_unknown_link() -> None:
    st.session_state.pop(UNKNOWN_LINK_KEY, None)


def link_params(source: Source) -> dict[str, str]:
    """Query parameters that open ``source`` in a new browser session (none for the default)."""
    return {} if source.path == default_source().path else {QUERY_KEY: catalog.key_of(source.path)}


def open_dataset(path: str | Path) -> Source:
    """Make the dataset at ``path`` this session's current one, if it is under a dataset root
    (:class:`corpus.loading.catalog.OutsideRoots` otherwise; nothing is read from outside)."""
    s = settings()
    resolved = catalog.within_roots(path, s.dataset_roots)
    entry = _entry(resolved)
    uploaded = s.datasets_dir in resolved.parents
    source = Source(resolved, entry.label, uploaded, entry.domain)
    st.session_state[STATE_KEY] = source
    return source


def _entry(resolved: Path) -> catalog.DatasetEntry:
    """The catalog entry of a folder under the roots: the one offered, else (a folder no root lists)
    its dataset.json read now."""
    return next((e for e in offered() if e.path == resolved), None) or catalog.entry_at(resolved)


def offered_with_hash(digest: str) -> catalog.DatasetEntry | None:
    """The offered dataset whose content is ``digest`` (what a coding task names), if any: each
    dataset is hashed once per state of its files."""
    return next((e for e in offered() if _hash(str(e.path), files_signature(e.path)) == digest), None)


def last_outcome() -> ImportOutcome | None:
    held = st.session_state.get(REPORT_KEY)
    return held if isinstance(held, ImportOutcome) else None


def set_outcome(name: str, report: Report, imported: bool, note: str = "") -> None:
    st.session_state[REPORT_KEY] = ImportOutcome(name, report, imported, note)


# -- loading --------------------------------------------------------------------------------------


@st.cache_resource(show_spinner=False, max_entries=64)
def _hash(root: str, signature: str) -> str:
    """The dataset's content hash, once per state of its files (with the loaded datasets, not with
    the pages' results: clearing those does not read every file again); recorded in the data
    directory's dataset cache, so that a restarted server or another replica does not read every
    file again either (:meth:`corpus.loading.dataset_cache.DatasetCache.known_hash`)."""
    cache = DatasetCache(settings().cache_dir)
    digest = cache.known_hash(Path(root), signature)
    if digest is None:
        digest = content_hash(root)
        cache.remember_hash(Path(root), signature, digest)
    return digest


@st.cache_resource(show_spinner="Loading and validating the dataset...", max_entries=8)
def _load(domain: str, digest: str, root: str) -> Dataset:
    return registry.read(domain, Path(root), known_hash=digest, cache=DatasetCache(settings().cache_dir))


def check(root: Path) -> Dataset:
    """The dataset at ``root`` (a folder under a dataset root) read by its domain's reader, once per
    content; raises :class:`corpus.loading.report.DatasetError` (an unknown domain among them) or ``OSError``."""
    resolved = catalog.within_roots(root, settings().dataset_roots)
    digest = _hash(str(resolved), files_signature(resolved))
    return _load(_entry(resolved).domain, digest, str(resolved))


def current() -> Dataset:
    """The current dataset, loaded by its domain's reader (raises as :func:`check` does)."""
    return check(current_source().path)


def current_domain() -> str:
    """The current dataset's domain, as its catalog entry says ("map_task", "kitchen", "benchmark" or a
    plugin's)."""
    return current_source().domain


def _current_as(domain: str) -> Dataset:
    found = current()
    if found.domain != domain:
        held = registry.get(found.domain).title if registry.known(found.domain) else found.domain
        raise ValueError(f"the current dataset holds {held}, not {registry.get(domain).title}")
    return found


def current_corpus() -> Corpus:
    """The current dataset's Map Task sessions, loaded once per content (raises as :func:`check` does,
    and ValueError for a dataset of another domain)."""
    return cast(Corpus, _current_as(MAP_TASK))


@st.cache_data(show_spinner="Building the replay...", max_entries=16)
def _replay_payload(content_hash: str, domain: str, unit: str, _data: Any) -> Mapping[str, Any]:
    hook = registry.get(domain).replay
    if hook is None:
        raise ValueError(f"the domain '{domain}' has no replay payload")
    return dict(hook(_data, unit))


def replay_payload(data: Dataset, unit: str) -> Mapping[str, Any]:
    """The replay payload of one unit of ``data``, by its domain's replay hook (the tile payload of
    :mod:`analysis.tile_replay` as JSON), built once per content and unit."""
    return _replay_payload(data.content_hash, data.domain, unit, data)
