"""The current dataset: which one this browser session looks at, and the loaded corpus.

- The datasets a server offers are those under the configured dataset roots
  (:mod:`corpus.catalog`); :func:`offered` lists them (names re-read only when a dataset.json
  changes). :func:`open_dataset` is the only way to change the current one, and refuses any path
  outside the roots with one message that says nothing about what exists there.
- A link can name the dataset (``?dataset=KEY``, :func:`link_params`) so that it opens in a new
  browser session on the same data; the key is a digest of the folder, never its path.
- A loaded corpus is kept once per server, keyed by the dataset's content hash (and its folder, where
  the map editor writes); the hash itself is recomputed only when a file's name, size or time
  changes. Every cached computation downstream keys on ``corpus.content_hash``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from corpus import catalog
from corpus.benchmark import Benchmark, is_benchmark, load_benchmark
from corpus.dataset import Corpus, content_hash, files_signature, load_dir
from corpus.dataset_cache import DatasetCache
from corpus.kitchen_dataset import KitchenCorpus, is_kitchen, load_kitchen
from corpus.validate import Report
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
    """The datasets under the configured roots (the sample corpus first, by default), Map Task
    datasets and kitchen datasets alike (each entry says its domain)."""
    roots = settings().dataset_roots
    return _offered(tuple(map(str, roots)), catalog.signature(roots))


def default_source() -> Source:
    entries = offered()
    if not entries:
        raise catalog.OutsideRoots()
    first = entries[0]
    return Source(first.path, first.label)


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
    (:class:`corpus.catalog.OutsideRoots` otherwise; nothing is read from outside)."""
    s = settings()
    resolved = catalog.within_roots(path, s.dataset_roots)
    entry = next((e for e in offered() if e.path == resolved), None)
    uploaded = s.datasets_dir in resolved.parents
    source = Source(resolved, entry.label if entry else resolved.name, uploaded)
    st.session_state[STATE_KEY] = source
    return source


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
    file again either (:meth:`corpus.dataset_cache.DatasetCache.known_hash`)."""
    cache = DatasetCache(settings().cache_dir)
    digest = cache.known_hash(Path(root), signature)
    if digest is None:
        digest = content_hash(root)
        cache.remember_hash(Path(root), signature, digest)
    return digest


@st.cache_resource(show_spinner="Loading and validating the dataset...", max_entries=4)
def _load(digest: str, root: str) -> Corpus:
    return load_dir(root, cache=DatasetCache(settings().cache_dir), known_hash=digest)


def load(root: Path) -> Corpus:
    """The dataset at ``root`` (a folder under a dataset root), loaded and validated once per
    content; raises :class:`corpus.validate.DatasetError` or ``OSError``."""
    root = catalog.within_roots(root, settings().dataset_roots)
    return _load(_hash(str(root), files_signature(root)), str(root))


def current_corpus() -> Corpus:
    """The current dataset, loaded (raises as :func:`load` does)."""
    return load(current_source().path)


def check(root: Path) -> Corpus | KitchenCorpus | Benchmark:
    """The dataset at ``root`` loaded as its domain reads it: Map Task sessions, kitchen runs or a
    benchmark's items and runs (raises as :func:`load` does)."""
    if is_kitchen(root) or is_benchmark(root):
        resolved = catalog.within_roots(root, settings().dataset_roots)
        digest = _hash(str(resolved), files_signature(resolved))
        if is_benchmark(root):
            return _load_benchmark(digest, str(resolved))
        return _load_kitchen(digest, str(resolved))
    return load(root)


def current_domain() -> str:
    """The current dataset's domain: "map_task", "kitchen" (runs of two agents cooking) or
    "benchmark" (a benchmark's items and runs of model answers)."""
    path = current_source().path
    return "kitchen" if is_kitchen(path) else "benchmark" if is_benchmark(path) else "map_task"


@st.cache_resource(show_spinner="Loading the benchmark...", max_entries=4)
def _load_benchmark(digest: str, root: str) -> Benchmark:
    return load_benchmark(root)


def current_benchmark() -> Benchmark:
    """The current dataset as a benchmark, loaded once per content (raises DatasetError or OSError)."""
    found = check(current_source().path)
    if not isinstance(found, Benchmark):
        raise ValueError("the current dataset is not a benchmark")
    return found


@st.cache_resource(show_spinner="Loading the kitchen runs...", max_entries=4)
def _load_kitchen(digest: str, root: str) -> KitchenCorpus:
    return load_kitchen(root)


def current_kitchen() -> KitchenCorpus:
    """The current dataset as kitchen runs, loaded once per content (raises DatasetError or OSError)."""
    found = check(current_source().path)
    if not isinstance(found, KitchenCorpus):
        raise ValueError("the current dataset holds Map Task sessions, not kitchen runs")
    return found
