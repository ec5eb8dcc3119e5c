"""The bootstrap over items that gives Fleiss' kappa and Krippendorff's alpha their intervals.

A resample draws n items with replacement; it is represented by how often each item was drawn
(a weight per item), so a statistic built from per-item sums is recomputed for many resamples at
once as a matrix product. The standard error is the standard deviation of the resampled values,
the interval their percentile interval; resamples in which the statistic is undefined (every
label one category) are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from analysis.results import Interval, Value
from corpus.values import Undefined

NOT_RUN = "no bootstrap was run"
MAX_CELLS = 2_000_000  # resamples x (items, categories) cells held at once
MAX_KEPT_CELLS = 10_000_000  # resamples x items of a set of draws kept for reuse (20 MB as 16-bit counts)


@dataclass(frozen=True)
class Replicates:
    """Bootstrap settings, and the procedure text every interval of that bootstrap carries."""

    n_boot: int
    seed: int | None
    confidence: float = 0.95

    @property
    def method(self) -> str:
        if self.n_boot <= 0:
            return ""
        return (
            f"percentile bootstrap over items ({self.n_boot} resamples, seed {self.seed}); "
            "SE = standard deviation of the resampled values"
        )

    def estimate_fields(self) -> dict[str, Any]:
        return {"interval_method": self.method, "confidence": self.confidence}


def _draw(rng: np.random.Generator, n: int, n_boot: int, per_block: int) -> Iterator[np.ndarray]:
    # 32-bit draws are the same numbers as 64-bit ones below 2**32 (numpy draws both from 32 bits
    # then), at a third of the time.
    dtype: type[np.signedinteger[Any]] = np.int32 if per_block * n < 2**31 else np.int64
    done = 0
    while done < n_boot:
        b = min(per_block, n_boot - done)
        idx = rng.integers(0, n, (b, n), dtype=dtype)
        idx += (np.arange(b, dtype=dtype) * n)[:, None]
        yield np.bincount(idx.ravel(), minlength=b * n).reshape(b, n)
        done += b


@lru_cache(maxsize=4)
def _kept(seed: int, n: int, n_boot: int, per_block: int) -> tuple[np.ndarray, ...]:
    """The draws of one (seed, items, resamples), as 16-bit counts: Fleiss' kappa and alpha on the
    same items, and a live panel refreshing while its items stay the same, draw them once."""
    blocks = tuple(b.astype(np.uint16) for b in _draw(np.random.default_rng(seed), n, n_boot, per_block))
    for b in blocks:
        b.flags.writeable = False
    return blocks


def weights(seed: int | None, n: int, n_boot: int, width: int = 0) -> Iterator[np.ndarray]:
    """How often each of ``n`` items is drawn in each of ``n_boot`` resamples (a generator seeded
    with ``seed``), as floats.

    Yields (resamples x items) blocks; the rows over all blocks are the ``n_boot`` resamples in
    order. A block holds at most :data:`MAX_CELLS` cells of the widest array a statistic builds
    from it (``max(n, width)`` per resample). The draws depend only on (seed, n, n_boot): the last
    few sets (up to :data:`MAX_KEPT_CELLS` cells each) are kept and reused.
    """
    per_block = max(1, MAX_CELLS // max(n, width, 1))
    if seed is None or n >= 2**16 or n * n_boot > MAX_KEPT_CELLS:
        blocks: Iterable[np.ndarray] = _draw(np.random.default_rng(seed), n, n_boot, per_block)
    else:
        blocks = _kept(seed, n, n_boot, per_block)
    return (b.astype(float) for b in blocks)


@lru_cache(maxsize=1)
def _blas_controller():
    """The resamples' matrix products are small (resamples x items times a few columns): BLAS
    threads cost more in start-up and spinning than they save, and take CPU from other users of
    the server. They run on one thread."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def replicate(
    statistic: Callable[[np.ndarray], np.ndarray], n: int, settings: Replicates, what: str, width: int = 0
) -> tuple[Value, Interval]:
    """Standard error and percentile interval of ``statistic`` over bootstrap resamples.

    ``statistic`` maps a block of weights (resamples x items) to one value per resample (NaN
    where undefined). ``what`` names the statistic in the reasons given when there is no interval.
    """
    if settings.n_boot <= 0:
        u = Undefined(NOT_RUN)
        return u, u
    if n < 2:
        u = Undefined("a bootstrap needs two or more items")
        return u, u
    with _blas_controller().limit(limits=1, user_api="blas"):
        reps = np.concatenate([statistic(w) for w in weights(settings.seed, n, settings.n_boot, width)])
    reps = reps[~np.isnan(reps)]
    if len(reps) < 2:
        u = Undefined(f"{what} is undefined in almost every bootstrap resample")
        return u, u
    tail = (1 - settings.confidence) / 2 * 100
    lo, hi = np.percentile(reps, [tail, 100 - tail])
    return float(reps.std(ddof=1)), (float(lo), float(hi))
