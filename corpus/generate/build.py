"""The whole sample corpus from one seed, written as a dataset directory: maps, sessions, coders'
labels and model predictions."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from corpus.generate.coders import grounding_labels
from corpus.generate.maps import make_map
from corpus.generate.predictions import MM_DIMENSIONS, MODELS, model_info, model_rows
from corpus.generate.session import make_session
from corpus.generate.story import Step
from corpus.loading.write import DatasetWriter, folder_in_place
from corpus.model import Action, DatasetInfo, Session

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


def generate(
    seed: int,
    out: str | Path,
    n_sessions: int = 25,
    overwrite: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write a synthetic corpus of ``n_sessions`` sessions to ``out`` and return its path.

    Written as it is made: each session as soon as it is simulated, the model predictions row by
    row (their test sessions read back from the files), so memory does not grow with the corpus
    (a million actions are written like the sample); ``progress(done, n_sessions)`` is called after
    each session. The draws are made in one order, the same for every size: maps, the sessions in
    turn, the coders' labels, then each model's predictions.
    """
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
    width = max(2, len(str(n_sessions)))
    out = Path(out)
    with folder_in_place(out, overwrite) as tmp:
        w = DatasetWriter(tmp)
        w.info(_info(seed, n_sessions))
        w.maps(maps)
        truths: dict[str, list[str]] = {}  # the grounding act of every action (the coders' truth)
        marg: dict[str, list[str]] = {dim: [] for dim in MM_DIMENSIONS}  # every mental-model code
        tests: dict[str, list[Step]] = {}  # test session -> its story
        for j, i in enumerate(order):
            sid = f"S{j + 1:0{width}d}"
            gm = maps[j % 2]
            n_target = int(counts[j] * TARGET_SCALE[conditions[i]])
            s, steps = make_session(rng, sid, conditions[i], splits[i], gm, n_target)
            w.session(s)
            truths[sid] = [st.act for st in steps]
            for a in s.actions:
                if a.mental_model is not None:
                    for dim in MM_DIMENSIONS:
                        marg[dim].append(getattr(a.mental_model, dim).code)
            if s.split == "test":
                tests[sid] = steps
            if progress is not None:
                progress(j + 1, n_sessions)
        w.labels(grounding_labels(rng, truths))
        for model_id, cfg in MODELS.items():
            with w.predictions(model_id, model_info(cfg)) as emit:
                for task, row in model_rows(rng, cfg, _read_back(tmp, tests), by_id, marg):
                    emit(task, row)
    return out


def _info(seed: int, n_sessions: int) -> DatasetInfo:
    return DatasetInfo(
        name="Groundwork sample corpus (synthetic)",
        description=(
            "A synthetic Map Task corpus shaped like ALMANAC: invented sessions, chat, drawings, "
            "personas, mental-model labels, grounding-act codes and model predictions. "
            "Not real participant data."
        ),
        synthetic=True,
        generator={"module": "corpus.generate", "version": GENERATOR_VERSION, "seed": seed, "n_sessions": n_sessions},
    )


def _read_back(root: Path, tests: dict[str, list[Step]]) -> Iterator[tuple[Session, list[Step]]]:
    """The test sessions as written (their actions read back from the folder), one at a time."""
    for sid, steps in tests.items():
        d = root / "sessions" / sid
        with open(d / "actions.jsonl", encoding="utf-8") as f:
            actions = [Action.model_validate_json(line) for line in f]
        meta = json.loads((d / "session.json").read_text(encoding="utf-8"))
        yield Session.model_validate({**meta, "actions": actions}), steps
