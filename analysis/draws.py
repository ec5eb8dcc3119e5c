"""Random draws shared by the bootstraps: the indices of resamples, and how often each resample of n
items takes each item (:func:`resample_counts`), kept for the next bootstrap over as many items
(:data:`RESAMPLE_COUNTS`)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future

import numpy as np


def indices(rng: np.random.Generator, n: int, size: tuple[int, int]) -> np.ndarray:
    """``rng.integers(0, n, size=size)``: the generator's 64-bit integers, drawn as 32-bit ones
    where they fit (the same numbers, a test holds it: the generator draws both from 32 bits of its
    stream below 2**32, and the 32-bit draw takes a third of the time)."""
    return rng.integers(0, n, size=size, dtype=np.int32 if n < 2**31 else np.int64)


RESAMPLE_BLOCK = 1 << 20  # indices held at once by resample_counts


def resample_counts(n: int, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """How often each of ``n_boot`` resamples of n items with replacement takes each item, one
    resample at a time: ``np.bincount`` of each row of ``indices(np.random.default_rng(seed), n,
    (n_boot, n))``, drawn a block of :data:`RESAMPLE_BLOCK` indices at a time (the generator draws
    them in the same order)."""
    return _drawn_counts(np.random.default_rng(seed), n, n_boot)


def _drawn_counts(rng: np.random.Generator, n: int, n_boot: int) -> Iterator[np.ndarray]:
    step = max(1, RESAMPLE_BLOCK // max(n, 1))
    for start in range(0, n_boot, step):
        for row in indices(rng, n, (min(step, n_boot - start), n)):
            yield np.bincount(row, minlength=n)


def _counts(n: int, n_boot: int, seed: int) -> np.ndarray:
    """``n_boot`` x n: :func:`resample_counts` kept, a byte each (wider, should a count not fit)."""
    return _samples_counts((n,), n_boot, seed)


def _samples_counts(sizes: tuple[int, ...], n_boot: int, seed: int) -> np.ndarray:
    """``n_boot`` x sum(sizes): for samples of these sizes resampled one after the other by one
    generator (as ``scipy.stats.bootstrap`` resamples several samples: ``n_boot`` x n indices of
    the first, then of the second, ...), how often each resample takes each item, the samples side
    by side; a byte each (wider, should a count not fit)."""
    counts = np.empty((n_boot, sum(sizes)), dtype=np.uint8)
    rng = np.random.default_rng(seed)
    start = 0
    for n in sizes:
        for i, c in enumerate(_drawn_counts(rng, n, n_boot)):
            if c.max() > np.iinfo(counts.dtype).max:  # (hardly ever: n draws of n items)
                counts = counts.astype(np.int64)
            counts[i, start : start + n] = c
        start += n
    return counts


class ResampleCounts:
    """:func:`resample_counts` (n, n_boot, seed) as one array, or the counts of several samples
    (:func:`_samples_counts`), kept for the latest sizes, n_boot and seed asked for, up to
    ``budget`` bytes in all; made once when two threads ask at the same time. The counts depend on
    the sizes, n_boot and the seed alone: a bootstrap over as many items (another run scored on the
    same items, a condition's sessions for another table, another outcome of the same sessions)
    uses them again."""

    def __init__(self, budget: int):
        self.budget = budget
        self.kept: OrderedDict[tuple, Future[np.ndarray]] = OrderedDict()
        self.lock = threading.Lock()

    def fits(self, n: int, n_boot: int) -> bool:
        """Whether the counts of ``n`` items in all, ``n_boot`` resamples, are kept (a byte each)."""
        return n * n_boot <= self.budget

    def rows(self, n: int, n_boot: int, seed: int) -> Iterable[np.ndarray]:
        """Each resample's counts of n items, in order: the kept array's rows where they fit the
        budget, else drawn a block at a time (:func:`resample_counts`); the same numbers either way."""
        return self.get(n, n_boot, seed) if self.fits(n, n_boot) else resample_counts(n, n_boot, seed)

    def get(self, n: int, n_boot: int, seed: int) -> np.ndarray:
        """:func:`resample_counts` (n, n_boot, seed), ``n_boot`` x n."""
        return self._kept((n, n_boot, seed), lambda: _counts(n, n_boot, seed))

    def get_samples(self, sizes: tuple[int, ...], n_boot: int, seed: int) -> np.ndarray:
        """:func:`_samples_counts` (sizes, n_boot, seed), ``n_boot`` x sum(sizes)."""
        return self._kept((sizes, n_boot, seed), lambda: _samples_counts(sizes, n_boot, seed))

    def _kept(self, key: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
        with self.lock:
            made = self.kept.get(key)
            mine = made is None
            if made is None:
                made = self.kept[key] = Future()
            self.kept.move_to_end(key)
        if not mine:
            return made.result()
        try:
            counts = make()
        except BaseException as exc:
            made.set_exception(exc)
            with self.lock:
                self.kept.pop(key, None)
            raise
        made.set_result(counts)
        with self.lock:  # (the oldest made go, until the rest fit)
            made_ones = {k: f.result() for k, f in self.kept.items() if f.done() and f.exception() is None}
            while sum(c.nbytes for c in made_ones.values()) > self.budget and len(made_ones) > 1:
                oldest = next(iter(made_ones))
                self.kept.pop(oldest)
                del made_ones[oldest]
        return counts


RESAMPLE_COUNTS_BYTES = 64 * 2**20
RESAMPLE_COUNTS = ResampleCounts(RESAMPLE_COUNTS_BYTES)
