"""Random draws shared by every part of the generator."""

from __future__ import annotations

import math

import numpy as np


def choice(rng: np.random.Generator, options: list, weights=None):
    """One of ``options``, uniformly or by ``weights`` (normalised here)."""
    if weights is None:
        return options[int(rng.integers(len(options)))]
    w = np.asarray(weights, dtype=float)
    return options[int(rng.choice(len(options), p=w / w.sum()))]


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))
