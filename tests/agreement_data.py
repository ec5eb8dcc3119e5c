"""Label tables for the agreement tests: textbook data sets and seeded random coders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from analysis import agreement as ag

# Fleiss (1971): 30 patients, 6 psychiatrists each, 5 diagnoses (1 depression, 2 personality
# disorder, 3 schizophrenia, 4 neurosis, 5 other); the same data as statsmodels' and R irr's tests.
DIAGNOSES = np.array(
    [
        [4, 4, 4, 4, 4, 4],
        [2, 2, 2, 5, 5, 5],
        [2, 3, 3, 3, 3, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4],
        [1, 1, 3, 3, 3, 3],
        [3, 3, 3, 3, 5, 5],
        [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4],
        [5, 5, 5, 5, 5, 5],
        [1, 4, 4, 4, 4, 4],
        [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3],
        [1, 4, 4, 4, 4, 4],
        [2, 2, 4, 4, 4, 5],
        [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5],
        [1, 1, 1, 1, 1, 2],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5],
        [2, 4, 4, 4, 4, 4],
        [2, 2, 4, 5, 5, 5],
        [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5],
        [2, 2, 2, 2, 2, 4],
        [1, 1, 1, 1, 5, 5],
        [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3],
        [5, 5, 5, 5, 5, 5],
    ]
)

# Wikipedia "Fleiss' kappa" worked example: 10 items, 14 raters, 5 categories, kappa 0.210.
WIKIPEDIA = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)

GROUNDING_CODES = ["initiate", "continue", "acknowledge", "repair", "request_repair", "request_ack", "cancel", "other"]


def long_from_matrix(matrix, missing=None) -> pd.DataFrame:
    """items x coders matrix -> long table (``missing`` marks an absent label)."""
    rows = [
        (f"i{i}", f"c{c}", v)
        for i, row in enumerate(matrix)
        for c, v in enumerate(row)
        if not (missing is not None and v == missing)
    ]
    return pd.DataFrame(rows, columns=["item", "coder", "label"])


def long_from_counts(counts) -> pd.DataFrame:
    """items x categories count table -> long table (the k-th rating of an item by coder k)."""
    rows = []
    for i, row in enumerate(np.asarray(counts, dtype=int)):
        k = 0
        for cat, n in enumerate(row):
            for _ in range(n):
                rows.append((f"i{i}", f"r{k}", cat + 1))
                k += 1
    return pd.DataFrame(rows, columns=["item", "coder", "label"])


def random_labels(
    seed: int, n_items: int = 120, n_coders: int = 4, n_cats: int = 5, accuracy: float = 0.7, p_missing: float = 0.1
) -> pd.DataFrame:
    """Coders who give a latent category with probability ``accuracy``, some labels missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_cats, n_items)
    rows = []
    for i in range(n_items):
        for c in range(n_coders):
            if rng.random() < p_missing:
                continue
            v = truth[i] if rng.random() < accuracy else rng.integers(0, n_cats)
            rows.append((f"item{i}", f"coder{c}", int(v)))
    return pd.DataFrame(rows, columns=["item", "coder", "label"])


def reliability_data(t: ag.LabelTable) -> np.ndarray:
    """coders x items with NaN for missing, as krippendorff.alpha takes it (category codes)."""
    return np.where(t.codes >= 0, t.codes, np.nan).T.astype(float)


def grounding_csv(path: Path) -> Path:
    """A labels/grounding_acts.csv-like file: composite item key, 'code' labels, an LLM coder."""
    rng = np.random.default_rng(12)
    rows = []
    for s in range(4):
        for a in range(15):
            t = GROUNDING_CODES[rng.integers(0, 8)]
            part = "few_shot" if a == 0 else "validation"
            for c in ("coder_a", "coder_b", "coder_c", "llm_coder"):
                rows.append((f"S{s}", a, c, t if rng.random() < 0.85 else GROUNDING_CODES[rng.integers(0, 8)], part))
    pd.DataFrame(rows, columns=["session_id", "action_index", "coder", "code", "partition"]).to_csv(path, index=False)
    return path
