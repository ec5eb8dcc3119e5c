"""The Compare page's computations, done once per (dataset, run set) and kept.

A comparison is keyed by the dataset's content hash and by the run set (each run's id and the
digest of its files), so the same runs on the same data are scored once per server, whoever asks;
the :class:`analysis.compare.comparison.Comparison` then remembers every view it has computed
(leaderboards, paired tests, slices, disagreements), so switching tabs recomputes nothing. The first
scoring of a run set is heavy work: a page asks for it through the server's queue (:mod:`services.jobs`,
a turn per person, the place shown while it waits). Uploaded runs are validated in a worker process
through the same queue.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

import streamlit as st

from analysis.benchmark import BenchmarkComparison, compare_benchmark
from analysis.compare.comparison import Comparison, compare
from corpus.benchmark.dataset import Benchmark
from corpus.loading.dataset import Corpus
from corpus.predictions import Run
from corpus.predictions.sources import read_uploads_for
from corpus.server.workqueue import Place
from services import jobs

Waiting = Callable[[Place], None]
_scored_lock = threading.Lock()


def run_set_key(runs: Iterable[Run]) -> tuple[tuple[str, str, bool], ...]:
    """What identifies a run set: each run's id, the digest of its files, and whether it was valid."""
    return tuple(sorted((r.run_id, r.digest, r.ok) for r in runs))


@st.cache_resource(max_entries=4, show_spinner="Scoring the runs against the people's labels...")
def _comparison(content_hash: str, run_key: tuple, _corpus: Corpus, _runs: tuple[Run, ...]) -> Comparison:
    return compare(_corpus, _runs)


_scored: OrderedDict[tuple, None] = OrderedDict()  # what this process scored lately (as many as are kept)


def _first_time(key: tuple) -> bool:
    """Whether the computation ``key`` has not been done lately in this process (so it is heavy)."""
    with _scored_lock:
        return key not in _scored


def _done(key: tuple, kept: int) -> None:
    with _scored_lock:
        _scored[key] = None
        _scored.move_to_end(key)
        while len(_scored) > kept:
            _scored.popitem(last=False)


def _queued(key: tuple, kept: int, who: str | None, what: str, waiting: Waiting | None, compute):  # noqa: ANN001, ANN202
    """``compute()``: at once when it was done lately (kept) or no one asks through the queue (a report
    being built holds its turn already); else when it is ``who``'s turn in the server's queue of heavy
    work (raises :class:`services.jobs.Busy` if it cannot be queued)."""
    if who is None or not _first_time(key):
        result = compute()
    else:
        with jobs.turn(who, what, waiting):
            result = compute()
    _done(key, kept)
    return result


def comparison(
    corpus: Corpus, runs: Iterable[Run], who: str | None = None, waiting: Waiting | None = None
) -> Comparison:
    """The comparison of ``runs`` on ``corpus`` (scored on first request, then kept). The first scoring of
    a run set waits for ``who``'s turn in the server's queue (``waiting(place)`` while it waits)."""
    runs = tuple(runs)
    key = ("runs", corpus.content_hash, run_set_key(runs))
    what = f"Scoring {len(runs)} run{'s' * (len(runs) != 1)} on {corpus.info.name}"
    return _queued(
        key, 4, who, what, waiting, lambda: _comparison(corpus.content_hash, run_set_key(runs), corpus, runs)
    )


_AHEAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="groundwork-split")


@st.cache_resource(max_entries=8, show_spinner=False)
def _standing(content_hash: str, _corpus: Corpus) -> Future[list]:
    from analysis.split import split_standing

    return _AHEAD.submit(split_standing, _corpus.actions_df, _corpus.sessions_df)


def split_standing(corpus: Corpus) -> Future[list]:
    """Where the dataset's own test split (the one every run is scored on) stands on Appendix E's
    objective, per condition (:func:`analysis.split.split_standing`): worked out on a thread of its
    own from the first time it is asked for, so that a page can ask before it scores the runs and
    read the answer (``.result()``) once they are shown: the search runs while the runs' bootstraps
    leave the processor to it."""
    return _standing(corpus.content_hash, corpus)


def start_upload_check(corpus: Corpus, files: list[tuple[str, bytes]], owner: str) -> jobs.Job:
    """Validate uploaded .zip or .jsonl files against ``corpus`` in the worker (raises
    :class:`services.jobs.Busy` past its limits); the job's result is the runs, refused ones included."""
    names = ", ".join(name for name, _ in files)
    return jobs.submit(owner, f"Validating {names}", read_uploads_for, str(corpus.root), corpus.content_hash, files)


@st.cache_resource(max_entries=4, show_spinner="Scoring the runs...")
def _benchmark_comparison(content_hash: str, _bench: Benchmark) -> BenchmarkComparison:
    return compare_benchmark(_bench)


def benchmark_comparison(
    bench: Benchmark, who: str | None = None, waiting: Waiting | None = None
) -> BenchmarkComparison:
    """The benchmark's runs scored (once per content; the views are kept in the object); the first
    time, when ``who``'s turn comes in the server's queue."""
    key = ("benchmark", bench.content_hash)
    what = f"Scoring the runs of {bench.name}"
    return _queued(key, 4, who, what, waiting, lambda: _benchmark_comparison(bench.content_hash, bench))
