"""Random draws shared by the bootstraps."""

from __future__ import annotations

import numpy as np


def indices(rng: np.random.Generator, n: int, size: tuple[int, int]) -> np.ndarray:
    """``rng.integers(0, n, size=size)``: the generator's 64-bit integers, drawn as 32-bit ones
    where they fit (the same numbers, a test holds it: the generator draws both from 32 bits of its
    stream below 2**32, and the 32-bit draw takes a third of the time)."""
    return rng.integers(0, n, size=size, dtype=np.int32 if n < 2**31 else np.int64)
