"""Scores of one group of predictions (one run, dimension, condition and role).

Category scores are read off the confusion matrix (rows: the person's label, columns: the
model's), vectorized so that a bootstrap of thousands of resampled matrices is one array
operation; tests prove each equal to scikit-learn on the same labels:

- accuracy (``accuracy_score``), with a Wilson interval from statsmodels ``proportion_confint``;
- macro recall: the mean recall over the labels people gave (``recall_score(average="macro",
  labels=<people's labels>)``, the same as ``balanced_accuracy_score``);
- macro F1 over every label either side used (``f1_score(average="macro")``);
- Cohen's kappa of model against person (``cohen_kappa_score``).

Their intervals are percentile bootstraps over items: resampling n items with replacement is
resampling the confusion matrix's cells with the multinomial distribution of their shares. The macro
scores and kappa weigh every label alike, so a label the people gave to a handful of items moves
them, and resamples that lose such a label average over fewer labels: each of these scores warns
(:func:`artefact_warnings`) when a label the people used has fewer than :data:`MIN_LABEL_ITEMS`
items, or when more than :data:`MAX_LOST_SHARE` of the resamples lose one of the people's labels or
have no value, or when the estimate lies outside its own interval: its interval is then an
artefact of resampling rather than a statement about the run.
Text scores (ROUGE-L, similarity) are means with a t interval (statsmodels ``DescrStatsW``); the
drawing score is the paper's average over every predicted ink cell, with a bootstrap over
predictions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from statsmodels.stats.weightstats import DescrStatsW

from analysis import draws
from analysis.draws import indices
from analysis.results import CONFIDENCE, OURS, Estimate, wilson
from corpus.values import Undefined

N_BOOT = 1000
SEED = 0
BOOT_METHOD = "percentile bootstrap over items, B={b}, seed {s}"
ITEMS = "items with the person's label and the run's prediction"

CATEGORY_METRICS = ("accuracy", "macro_recall", "macro_f1", "kappa")
NO_ITEMS = "no item in this group"
MIN_LABEL_ITEMS = 5  # a label the people used on fewer items makes a macro score hinge on those items
MAX_LOST_SHARE = 0.05  # resamples that lose one of the people's labels (or the value) beyond this share


def confusion(truth: np.ndarray, pred: np.ndarray, k: int) -> np.ndarray:
    """k x k counts of (truth, pred) integer codes."""
    return np.bincount(truth * k + pred, minlength=k * k).reshape(k, k)


def metric_arrays(c: np.ndarray) -> dict[str, np.ndarray]:
    """Each category score of a stack of confusion matrices (..., k, k); NaN where undefined."""
    c = c.astype(float)
    n = c.sum(axis=(-2, -1))
    diag = np.diagonal(c, axis1=-2, axis2=-1)
    rows, cols = c.sum(axis=-1), c.sum(axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        acc = diag.sum(axis=-1) / n
        has_true = rows > 0
        recall = np.where(has_true, diag / np.where(has_true, rows, 1), 0).sum(axis=-1) / has_true.sum(axis=-1)
        used = (rows + cols) > 0
        f1 = np.where(used, 2 * diag / np.where(used, rows + cols, 1), 0).sum(axis=-1) / used.sum(axis=-1)
        pe = (rows * cols).sum(axis=-1) / n**2
        kappa = np.where(np.isclose(pe, 1.0), np.nan, (acc - pe) / (1 - pe))
    return {"accuracy": acc, "macro_recall": recall, "macro_f1": f1, "kappa": kappa}


def category_scores(c: np.ndarray) -> dict[str, float]:
    """Accuracy, macro recall, macro F1 and kappa of one confusion matrix (NaN where undefined)."""
    return {k: float(v) for k, v in metric_arrays(c).items()}


def resample_cells(c: np.ndarray, n_boot: int = N_BOOT, seed: int = SEED) -> np.ndarray:
    """``n_boot`` bootstrap resamples of the items behind a count table (any shape)."""
    flat = c.ravel().astype(float)
    n = int(flat.sum())
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, flat / n, size=n_boot).reshape(n_boot, *c.shape)


def resample_items(n: int, n_boot: int = N_BOOT, seed: int = SEED) -> np.ndarray:
    """``n_boot`` x ``n`` indices: each row one bootstrap resample of n items with replacement."""
    return indices(np.random.default_rng(seed), n, (n_boot, n))


def resampled_sums(values: Sequence[np.ndarray], n_boot: int = N_BOOT, seed: int = SEED) -> list[np.ndarray]:
    """For each array of ``values`` (all of length n), its sum over each resample of
    :func:`resample_items` (n, ``n_boot``, ``seed``): ``v[resample_items(n)].sum(axis=1)``. The
    resamples are drawn a block at a time (the generator draws them in the same order), so that at
    most :data:`analysis.draws.RESAMPLE_BLOCK` indices are held, not ``n_boot`` x n (at 100,000 items, 800 MB);
    each resample is counted once (how often it takes each item) and the counts weigh every array
    at once, instead of each array gathered item by item. The sums are the gathered ones up to
    rounding (a test holds them within 1e-12), and arrays alike give sums alike, bit for bit (the
    paired tests' ties stay ties). The counts depend on n, ``n_boot`` and ``seed`` alone: the
    latest ones are kept (:data:`analysis.draws.RESAMPLE_COUNTS`), and the next arrays of n items (another run
    scored on the same items, the next pair of runs) are weighed by them without drawing again."""
    n = len(values[0])
    table = np.column_stack([np.asarray(v, dtype=float) for v in values])
    sums = np.empty((n_boot, len(values)))
    for i, row in enumerate(draws.RESAMPLE_COUNTS.rows(n, n_boot, seed)):
        sums[i] = row.astype(np.int64, copy=False) @ table  # (the counts as np.bincount gives them: the same sums)
    return [sums[:, j].copy() for j in range(len(values))]


GROUPED_SHARE = 10  # resample counts of distinct rows when there are at most 1 per this many items


def bootstrap_sums(values: Sequence[np.ndarray], n_boot: int = N_BOOT, seed: int = SEED) -> list[np.ndarray]:
    """For each array of ``values`` (all of length n), its sum over each of ``n_boot`` resamples
    of the n items with replacement. Items alike in every array (a drawing's score and cells, a
    pair of scores) are one row of the table of distinct rows; when there are few of them (at most
    n / :data:`GROUPED_SHARE`), each resample is drawn as how often it takes each distinct row: a
    multinomial over the rows with their shares of the items, the same distribution as drawing the
    items one by one (a test holds the intervals to scipy's bootstrap), made in k steps, not n.
    Otherwise the items are drawn one by one (:func:`resampled_sums`). Either way, the same
    inputs and seed give the same resamples."""
    n = len(values[0])
    rows = _distinct_rows(values, n // GROUPED_SHARE) if n >= GROUPED_SHARE else None
    if rows is None:
        return resampled_sums(values, n_boot, seed)
    distinct, counts = rows
    drawn = np.random.default_rng(seed).multinomial(n, counts / n, size=n_boot)
    sums = drawn @ distinct
    return [sums[:, j] for j in range(len(values))]


def _distinct_rows(values: Sequence[np.ndarray], most: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The distinct rows of the arrays ``values`` side by side and how many items have each; None
    when there are more than ``most`` or a value is NaN. Each array's values are numbered by
    hashing (no sort), and a row is its numbers as one integer."""
    key = np.zeros(len(values[0]), dtype=np.int64)
    span = 1
    for v in values:
        codes, uniques = pd.factorize(np.asarray(v, dtype=float), use_na_sentinel=True)
        if len(uniques) > most or (codes < 0).any() or span * len(uniques) >= 2**62:
            return None
        key += codes * span
        span *= len(uniques)
    _, first, counts = np.unique(key, return_index=True, return_counts=True)
    if len(first) > most:
        return None
    return np.column_stack([np.asarray(v, dtype=float)[first] for v in values]), counts


def percentile(reps: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float, float] | Undefined:
    reps = reps[~np.isnan(reps)]
    if len(reps) < 2:
        return Undefined("undefined in almost every bootstrap resample")
    a = (1 - confidence) / 2
    lo, hi = np.quantile(reps, [a, 1 - a])
    return float(lo), float(hi)


NAMES = {
    "accuracy": "accuracy",
    "macro_recall": "macro recall",
    "macro_f1": "macro F1",
    "kappa": "Cohen's kappa",
    "rouge_l": "ROUGE-L",
    "similarity": "SBERT similarity",
    "drawing": "drawing score",
}
METHODS = {
    "accuracy": "share of items where the run's label is the person's",
    "macro_recall": "mean recall over the people's labels",
    "macro_f1": "mean F1 over the labels either side used",
    "kappa": "model vs person, chance-corrected",
}
CHECKED = {
    "accuracy": "sklearn.metrics.accuracy_score",
    "macro_recall": "sklearn.metrics.recall_score(average='macro')",
    "macro_f1": "sklearn.metrics.f1_score(average='macro')",
    "kappa": "sklearn.metrics.cohen_kappa_score",
}
_UNDEFINED = {"kappa": "people and model used one and the same label throughout (chance agreement is 1)"}


def artefact_warnings(
    c: np.ndarray, point: float, reps: np.ndarray | None, interval: Any, resampled: Any
) -> tuple[str, ...]:
    """Why the bootstrap interval of a macro score or kappa of the confusion matrix ``c`` is not to
    be trusted (see the module docstring); ``resampled`` are the resampled matrices behind ``reps``."""
    out = []
    rows = c.sum(axis=1)
    used = rows > 0
    rare = sorted(int(v) for v in rows[used & (rows < MIN_LABEL_ITEMS)])
    if rare:
        out.append(
            f"{len(rare)} of the people's labels {'has' if len(rare) == 1 else 'have'} fewer than {MIN_LABEL_ITEMS} items "
            f"({', '.join(map(str, rare))}): this score weighs each label alike, so those items move it"
        )
    if reps is not None and resampled is not None:
        lost = ~np.all(resampled.sum(axis=-1)[:, used] > 0, axis=1) | np.isnan(reps)
        if lost.mean() > MAX_LOST_SHARE:
            out.append(
                f"{lost.mean():.0%} of the bootstrap resamples lose one of the people's labels (or the value): "
                "the interval is an artefact of resampling"
            )
    if isinstance(interval, tuple) and not (interval[0] - 1e-12 <= point <= interval[1] + 1e-12):
        out.append("the estimate lies outside its own bootstrap interval: the resamples' distribution is degenerate")
    return tuple(out)


def category_estimates(c: np.ndarray, n_boot: int = N_BOOT, seed: int = SEED) -> dict[str, Estimate]:
    """The four category scores of one confusion matrix as estimates with intervals."""
    n = int(c.sum())
    boot = BOOT_METHOD.format(b=n_boot, s=seed)

    def fields(m: str) -> dict:
        return dict(
            key=m,
            statistic=NAMES[m],
            n=n,
            n_of=ITEMS,
            method=METHODS[m],
            computed_by="analysis.compare.metrics.metric_arrays",
            package=OURS,
            checked_against=CHECKED[m],
            interval_method=boot,
        )

    if n == 0:
        return {m: Estimate.undefined(NO_ITEMS, **fields(m)) for m in CATEGORY_METRICS}
    point = category_scores(c)
    resampled = resample_cells(c, n_boot, seed) if n_boot > 0 else None
    reps = metric_arrays(resampled) if resampled is not None else None
    out: dict[str, Estimate] = {}
    for m in CATEGORY_METRICS:
        if np.isnan(point[m]):
            out[m] = Estimate.undefined(_UNDEFINED.get(m, "no defined value"), **fields(m))
        elif m == "accuracy":
            out[m] = wilson(int(np.trace(c)), n, key=m, statistic=NAMES[m], n_of=ITEMS, method=METHODS[m])
        else:
            interval = percentile(reps[m]) if reps is not None else Undefined("no bootstrap was run")
            warnings = artefact_warnings(c, point[m], reps[m] if reps is not None else None, interval, resampled)
            out[m] = Estimate(**fields(m), estimate=point[m], interval=interval, warnings=warnings)
    return out


def mean_estimate(key: str, values: np.ndarray, method: str, computed_by: str, package: str) -> Estimate:
    """A mean score with a t interval (statsmodels), or undefined when there is nothing to average."""
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    n = len(values)
    base: dict[str, Any] = dict(
        key=key,
        statistic=NAMES[key],
        n=n,
        n_of=ITEMS,
        method=f"mean {method}",
        computed_by=computed_by,
        package=package,
        interval_method="t interval of the mean (statsmodels DescrStatsW.tconfint_mean)",
    )
    if n == 0:
        return Estimate.undefined(NO_ITEMS, **base)
    if n < 2 or np.allclose(values, values[0]):
        ci: tuple[float, float] | Undefined = Undefined("an interval needs two or more different values")
    else:
        lo, hi = DescrStatsW(values).tconfint_mean(alpha=1 - CONFIDENCE)
        ci = (float(lo), float(hi))
    return Estimate(**base, estimate=float(values.mean()), interval=ci)


def ratio_estimate(
    key: str,
    scores: np.ndarray,
    weights: np.ndarray,
    method: str,
    computed_by: str,
    n_boot: int = N_BOOT,
    seed: int = SEED,
) -> Estimate:
    """sum(score_i * w_i) / sum(w_i) with a bootstrap over the i (e.g. drawing score over ink cells)."""
    scores, weights = np.asarray(scores, float), np.asarray(weights, float)
    n = len(scores)
    base: dict[str, Any] = dict(
        key=key,
        statistic=NAMES[key],
        n=n,
        n_of="predictions",
        method=method,
        computed_by=computed_by,
        package=OURS,
        interval_method=f"{BOOT_METHOD.format(b=n_boot, s=seed)} (predictions)",
    )
    if n == 0 or weights.sum() == 0:
        return Estimate.undefined("no predicted drawing in this group", **base)
    est = float((scores * weights).sum() / weights.sum())
    if n < 2:
        ci: tuple[float, float] | Undefined = Undefined("an interval needs two or more predictions")
    else:
        weighted, total = bootstrap_sums([scores * weights, weights], n_boot, seed)
        reps = weighted / total
        ci = percentile(reps)
    return Estimate(**base, estimate=est, interval=ci)
