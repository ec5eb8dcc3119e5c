"""Grounding-act codes of sampled actions by three simulated human coders and a simulated LLM
coder, each erring towards plausible confusions of the true act."""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd

from corpus.consensus import majority
from corpus.generate.draws import choice
from corpus.schema import GROUNDING_ACTS_SCHEME

# Plausible confusions between grounding acts.
_CONFUSIONS = {
    "initiate": ["continue", "repair", "other"],
    "continue": ["initiate", "acknowledge", "other"],
    "acknowledge": ["continue", "request_ack", "other"],
    "repair": ["request_repair", "continue", "initiate"],
    "request_repair": ["repair", "request_ack"],
    "request_ack": ["acknowledge", "request_repair", "continue"],
    "cancel": ["repair", "other"],
    "other": ["continue", "acknowledge"],
}
HUMAN_CODERS = ("coder_a", "coder_b", "coder_c")
LLM_CODER = "llm_coder"
HUMAN_ACCURACY = 0.88
LLM_ACCURACY = 0.84
TARGET_FLEISS = 0.81  # among the human coders (the paper)
TARGET_LLM_COHEN = 0.76  # the LLM coder against the human majority (the paper)


def _code(rng, truth: str, accuracy: float) -> str:
    if rng.random() < accuracy:
        return truth
    return choice(rng, _CONFUSIONS[truth])


def _fleiss(rows: list[list[str]]) -> float:
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    return float(fleiss_kappa(aggregate_raters(np.array(rows, dtype=object))[0]))


def _llm_vs_majority(human: list[list[str]], llm: list[str], items: list[int]) -> float:
    """Cohen's kappa of the LLM coder against the human majority label (corpus.consensus) of
    ``items``; items where the humans tie have no majority and are left out."""
    from sklearn.metrics import cohen_kappa_score

    long = pd.DataFrame(
        [(i, coder, labels[i]) for i in items for coder, labels in zip(HUMAN_CODERS, human)],
        columns=["item", "coder", "code"],
    )
    best = majority(long, keys=["item"])
    return float(cohen_kappa_score([llm[i] for i in best["item"]], best["code"].tolist()))


def grounding_labels(rng, truths: dict[str, list[str]], n_items: int = 180, n_few_shot: int = 8):
    """Sample ``n_items`` actions; three human coders near Fleiss 0.8, an LLM coder near 0.75.

    The coders' accuracies are fixed; the seed of their noise is chosen among a few candidates so
    that the realised statistics land near the paper's (0.81 and 0.76), which a sample of 180 items
    does not guarantee by itself.
    """
    # The pool: every action of every session (``truths``, in session order), numbered in turn.
    sids = list(truths)
    starts = np.cumsum([0] + [len(truths[sid]) for sid in sids])
    n_items = min(n_items, int(starts[-1]))
    idx = np.sort(rng.choice(int(starts[-1]), size=n_items, replace=False))
    at = np.searchsorted(starts, idx, side="right") - 1
    items = [(sids[j], int(i - starts[j])) for i, j in zip(idx, at)]
    few = set(int(i) for i in rng.choice(n_items, size=min(n_few_shot, n_items), replace=False))
    truth = [truths[sid][ai] for sid, ai in items]
    val = [i for i in range(n_items) if i not in few]
    base_seed = int(rng.integers(1 << 30))
    best: tuple[float, list[list[str]], list[str]] | None = None
    for attempt in range(40):
        r = np.random.default_rng(base_seed + attempt)
        human = [[_code(r, t, HUMAN_ACCURACY) for t in truth] for _ in HUMAN_CODERS]
        llm = [_code(r, t, LLM_ACCURACY) for t in truth]
        k_h = _fleiss([[h[i] for h in human] for i in range(n_items)])
        k_llm = _llm_vs_majority(human, llm, val)
        err = abs(k_h - TARGET_FLEISS) + abs(k_llm - TARGET_LLM_COHEN)
        if best is None or err < best[0]:
            best = (err, human, llm)
        if err < 0.02:
            break
    _, human, llm = cast(tuple[float, list[list[str]], list[str]], best)  # set by the first attempt
    rows = []
    for i, (sid, ai) in enumerate(items):
        part = "few_shot" if i in few else "validation"
        for coder, labels in zip(HUMAN_CODERS, human):
            rows.append(
                {
                    "scheme": GROUNDING_ACTS_SCHEME,
                    "session_id": sid,
                    "action_index": ai,
                    "coder": coder,
                    "code": labels[i],
                    "partition": part,
                }
            )
        if part == "validation":
            rows.append(
                {
                    "scheme": GROUNDING_ACTS_SCHEME,
                    "session_id": sid,
                    "action_index": ai,
                    "coder": LLM_CODER,
                    "coder_kind": "model",
                    "code": llm[i],
                    "partition": part,
                }
            )
    return rows
