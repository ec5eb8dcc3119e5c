"""The Compare page's computations, done once per (dataset, run set) and kept.

A comparison is keyed by the dataset's content hash and by the run set (each run's id and the
digest of its files), so the same runs on the same data are scored once per server, whoever asks;
the :class:`analysis.compare.comparison.Comparison` then remembers every view it has computed
(leaderboards, paired tests, slices, disagreements), so switching tabs recomputes nothing.
Uploaded runs are validated in a worker process (:mod:`services.jobs`), one upload at a time per
visitor.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor

import streamlit as st

from analysis.benchmark import BenchmarkComparison, compare_benchmark
from analysis.compare.comparison import Comparison, compare
from corpus.benchmark import Benchmark
from corpus.dataset import Corpus
from corpus.prediction_sources import read_uploads_for
from corpus.predictions import Run
from services import jobs


def run_set_key(runs: Iterable[Run]) -> tuple[tuple[str, str, bool], ...]:
    """What identifies a run set: each run's id, the digest of its files, and whether it was valid."""
    return tuple(sorted((r.run_id, r.digest, r.ok) for r in runs))


@st.cache_resource(max_entries=4, show_spinner="Scoring the runs against the people's labels...")
def _comparison(content_hash: str, run_key: tuple, _corpus: Corpus, _runs: tuple[Run, ...]) -> Comparison:
    return compare(_corpus, _runs)


def comparison(corpus: Corpus, runs: Iterable[Run]) -> Comparison:
    """The comparison of ``runs`` on ``corpus`` (scored on first request, then kept)."""
    runs = tuple(runs)
    return _comparison(corpus.content_hash, run_set_key(runs), corpus, runs)


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


def benchmark_comparison(bench: Benchmark) -> BenchmarkComparison:
    """The benchmark's runs scored (once per content; the views are kept in the object)."""
    return _benchmark_comparison(bench.content_hash, bench)
