"""The whole sample corpus from one seed: maps, sessions, coders' labels and model predictions,
in memory (:func:`build`) or written as a dataset directory (:func:`generate`)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from corpus.generate.coders import grounding_labels
from corpus.generate.maps import make_map
from corpus.generate.predictions import predictions
from corpus.generate.session import make_session
from corpus.model import DatasetInfo
from corpus.write import write_dataset

GENERATOR_VERSION = 4
# The story adds more actions to a session than its target in the visible condition (smaller
# strokes, confirmations); these factors bring both conditions near Table 1's means (122 and 117).
TARGET_SCALE = {"not_visible": 1.2, "visible": 0.84}


def _action_counts(rng, n: int) -> list[int]:
    """Per-session action counts with Table 1's spread (mean ~120, SD ~85)."""
    sigma = 0.72
    mu = math.log(120) - sigma**2 / 2
    counts = np.clip(rng.lognormal(mu, sigma, size=n), 30, 420)
    # The simulation adds ~12 % (repairs, resets): the sample corpus ends near ALMANAC's 2,987
    # actions, and larger corpora near 100 actions per session.
    counts = counts * ((2700 if n == 25 else 88 * n) / counts.sum())
    return [int(round(c)) for c in counts]


def build(seed: int, n_sessions: int = 25):
    """Everything the corpus holds, in memory: (info, maps, sessions, labels, predictions)."""
    rng = np.random.default_rng(seed)
    maps = [make_map(rng, "map_a", "Map A (synthetic)"), make_map(rng, "map_b", "Map B (synthetic)")]
    by_id = {m.id: m for m in maps}
    n_nv = round(n_sessions * 12 / 25)
    conditions = ["not_visible"] * n_nv + ["visible"] * (n_sessions - n_nv)
    n_test_nv = round(n_nv * 3 / 12)
    n_test_v = round((n_sessions - n_nv) * 3 / 13)
    splits = (
        ["train"] * (n_nv - n_test_nv)
        + ["test"] * n_test_nv
        + ["train"] * (n_sessions - n_nv - n_test_v)
        + ["test"] * n_test_v
    )
    order = rng.permutation(n_sessions)
    counts = _action_counts(rng, n_sessions)
    sessions, steps_by = [], {}
    width = max(2, len(str(n_sessions)))
    for j, i in enumerate(order):
        sid = f"S{j + 1:0{width}d}"
        gm = maps[j % 2]
        n_target = int(counts[j] * TARGET_SCALE[conditions[i]])
        s, steps = make_session(rng, sid, conditions[i], splits[i], gm, n_target)
        sessions.append(s)
        steps_by[sid] = steps
    truths = {sid: [st.act for st in steps] for sid, steps in steps_by.items()}
    labels = grounding_labels(rng, sessions, truths)
    preds = predictions(rng, sessions, by_id, steps_by)
    info = DatasetInfo(
        name="Groundwork sample corpus (synthetic)",
        description=(
            "A synthetic Map Task corpus shaped like ALMANAC: invented sessions, chat, drawings, "
            "personas, mental-model labels, grounding-act codes and model predictions. "
            "Not real participant data."
        ),
        synthetic=True,
        generator={"module": "corpus.generate", "version": GENERATOR_VERSION, "seed": seed, "n_sessions": n_sessions},
    )
    return info, maps, sessions, labels, preds


def generate(seed: int, out: str | Path, n_sessions: int = 25, overwrite: bool = False) -> Path:
    """Write a synthetic corpus to ``out`` and return its path."""
    info, maps, sessions, labels, preds = build(seed, n_sessions)
    return write_dataset(out, info, maps, sessions, labels=labels, predictions=preds, overwrite=overwrite)
