"""The distribution-matched test split of the paper's Appendix E.

Each session is described by role-specific proportions: for the Guide and for the Follower, the
share of their actions of each type (draw, erase, message, reset, undo) and the share of their
annotated actions carrying each mental-model label on the three dimensions (team goal, partner
intent, self-reasoning; "other" included). The two roles' vectors are concatenated; a proportion
a session never shows is 0. Within each condition separately, the test sessions are the subset of
the chosen size minimising

    L = sum_d |mean_d(train) - mean_d(test)| + sum_d |sd_d(train) - sd_d(test)|

over the feature dimensions d, with means and standard deviations across sessions (SD with
ddof=1, as in the paper's tables; test and train need 2 or more sessions each).

**Held-out sessions.** A session the dataset puts in the ``val`` split (held out for tuning, as
the HCRC corpus's split lists do) is neither train nor test: it is not a candidate of the search,
it counts on neither side of the dataset's own split's objective, and a dataset written with a new
split keeps it in ``val`` (:func:`candidates`).

**Search.** When the number of candidate subsets C(n, k) is at most :data:`EXHAUSTIVE_LIMIT`
every subset is scored (exact optimum; the paper's 220 and 286 subsets of 3 of 12 and 3 of 13).
Beyond it, a seeded stochastic local search: :data:`RESTARTS` random starting subsets, each
improved by swapping a test and a train session, the best of :data:`SWAPS_PER_STEP` random swaps
at each step, until :data:`PATIENCE` steps in a row bring no improvement (at most
:data:`MAX_STEPS` steps); the best end point is returned, with no guarantee that it is the global
optimum (the result says so).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import chain, combinations, islice

import numpy as np
import pandas as pd

from analysis.codes import category_codes, sorted_codes
from analysis.format import fmt, fmt_count
from corpus import schema

EXHAUSTIVE_LIMIT = 200_000
RESTARTS = 4
SWAPS_PER_STEP = 512
MAX_STEPS = 3000
PATIENCE = 40
CHUNK = 20_000
N_RUNNERS_UP = 10
KEPT_APART = ("val",)  # splits whose sessions stay as they are: neither train nor test


def candidates(sessions: pd.DataFrame) -> pd.DataFrame:
    """The rows of a per-session table (session_id, condition, split) a test split is chosen
    among: every session but those held out (:data:`KEPT_APART`)."""
    if "split" not in sessions.columns:
        return sessions
    return sessions[~sessions["split"].astype(str).isin(KEPT_APART)]


def kept_apart(sessions: pd.DataFrame) -> pd.DataFrame:
    """The rows of a per-session table that are held out (:data:`KEPT_APART`)."""
    if "split" not in sessions.columns:
        return sessions.iloc[:0]
    return sessions[sessions["split"].astype(str).isin(KEPT_APART)]


def _shares(session_idx: np.ndarray, codes: np.ndarray, n_categories: int, n_sessions: int) -> np.ndarray:
    """n_sessions x categories: each session's share of rows per category (0 where it has none);
    ``codes`` are the rows' category positions (-1: none of them)."""
    ok = codes >= 0
    counts = np.bincount(session_idx[ok] * n_categories + codes[ok], minlength=n_sessions * n_categories)
    counts = counts.reshape(n_sessions, n_categories).astype(float)
    totals = counts.sum(1, keepdims=True)
    return np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)


def session_features(actions: pd.DataFrame) -> pd.DataFrame:
    """One row per session (index session_id, sorted), one column per feature ``role:kind:value``.

    Type shares are over the role's actions; label shares over the role's annotated actions (an
    action without a label on a dimension does not count for it)."""
    sessions, idx = sorted_codes(actions["session_id"])
    groups = {
        "type": list(schema.ACTION_TYPES),
        **{dim: [*codes, schema.OTHER] for dim, codes in schema.DIMENSIONS.items()},
    }
    codes = {kind: category_codes(actions[kind], cats) for kind, cats in groups.items()}
    blocks, names = [], []
    for role in schema.ROLES:
        mine = (actions["role"] == role).to_numpy(dtype=bool)
        for kind, cats in groups.items():
            blocks.append(_shares(idx[mine], codes[kind][mine], len(cats), len(sessions)))
            names += [f"{role}:{kind}:{c}" for c in cats]
    return pd.DataFrame(np.hstack(blocks), index=pd.Index(sessions, name="session_id"), columns=names)


def objective(features: np.ndarray, test: np.ndarray) -> float:
    """L for one test subset (indices into the rows of ``features``), straight from its definition."""
    mask = np.zeros(len(features), dtype=bool)
    mask[test] = True
    tr, te = features[~mask], features[mask]
    return float(np.abs(tr.mean(0) - te.mean(0)).sum() + np.abs(tr.std(0, ddof=1) - te.std(0, ddof=1)).sum())


def _from_sums(s1: np.ndarray, s2: np.ndarray, tot1: np.ndarray, tot2: np.ndarray, n: int, k: int) -> np.ndarray:
    """L from the test sessions' feature sums ``s1`` and sums of squares ``s2`` (last axis: features)."""
    mean_te, mean_tr = s1 / k, (tot1 - s1) / (n - k)
    var_te = np.maximum(s2 - s1**2 / k, 0) / (k - 1)
    var_tr = np.maximum((tot2 - s2) - (tot1 - s1) ** 2 / (n - k), 0) / (n - k - 1)
    return np.abs(mean_tr - mean_te).sum(-1) + np.abs(np.sqrt(var_tr) - np.sqrt(var_te)).sum(-1)


def _swap_objectives(
    sums: tuple[np.ndarray, np.ndarray],
    F: np.ndarray,
    F2: np.ndarray,
    swaps: tuple[np.ndarray, np.ndarray],
    totals: tuple[np.ndarray, np.ndarray],
    n: int,
    k: int,
) -> np.ndarray:
    """L of each swap of a test session ``swaps[0][i]`` for a train session ``swaps[1][i]``, from
    the test sums ``sums`` (of ``F`` and its squares ``F2``): :func:`_from_sums` of the swapped sums,
    the same numbers bit for bit (the same operations in the same order; a test holds it), made in
    four buffers without a new array per operation (a third of the time: the local search scores
    half a million swaps)."""
    (s1, s2), (out_, in_), (tot1, tot2) = sums, swaps, totals
    a, b, c, d = (np.empty((len(out_), F.shape[1])) for _ in range(4))
    np.take(F, out_, axis=0, out=c, mode="clip")  # (indices of rows, always in range)
    np.subtract(s1, c, out=a)
    np.take(F, in_, axis=0, out=c, mode="clip")
    a += c  # the test sums
    np.take(F2, out_, axis=0, out=c, mode="clip")
    np.subtract(s2, c, out=b)
    np.take(F2, in_, axis=0, out=c, mode="clip")
    b += c  # the test sums of squares
    np.subtract(tot1, a, out=c)
    np.divide(c, n - k, out=d)  # the train means
    d -= a / k
    np.abs(d, out=d)
    means = d.sum(-1)
    np.square(c, out=c)
    c /= n - k
    np.subtract(tot2, b, out=d)
    d -= c
    np.maximum(d, 0, out=d)
    d /= n - k - 1
    np.sqrt(d, out=d)  # the train SDs
    np.square(a, out=c)
    c /= k
    np.subtract(b, c, out=c)
    np.maximum(c, 0, out=c)
    c /= k - 1
    np.sqrt(c, out=c)  # the test SDs
    d -= c
    np.abs(d, out=d)
    return means + d.sum(-1)


def _objectives(F: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """L for many subsets at once (rows of ``subsets`` hold k indices)."""
    gathered = F[subsets]
    return _from_sums(gathered.sum(1), (gathered**2).sum(1), F.sum(0), (F**2).sum(0), len(F), subsets.shape[1])


def _exhaustive(F: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The best ``N_RUNNERS_UP + 1`` subsets of size k and their L, best first, scoring every subset."""
    best_sub, best_obj = [], []
    it = combinations(range(len(F)), k)
    while True:
        chunk = np.fromiter(chain.from_iterable(islice(it, CHUNK)), dtype=np.int64).reshape(-1, k)
        if not len(chunk):
            break
        obj = _objectives(F, chunk)
        keep = np.argsort(obj, kind="stable")[: N_RUNNERS_UP + 1]
        best_sub.append(chunk[keep])
        best_obj.append(obj[keep])
    subs, objs = np.concatenate(best_sub), np.concatenate(best_obj)
    order = np.argsort(objs, kind="stable")[: N_RUNNERS_UP + 1]
    return subs[order], objs[order]


def _local_search(F: np.ndarray, k: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, int]:
    """Seeded stochastic descent from :data:`RESTARTS` random subsets: at each step
    :data:`SWAPS_PER_STEP` random (test, train) swaps are scored and the best one taken if it lowers
    L; a start ends after :data:`PATIENCE` steps without improvement or :data:`MAX_STEPS` steps.
    Returns the distinct end points (best first) and how many subsets were scored. A swap's L comes
    from the test sums updated by the two sessions swapped."""
    n = len(F)
    F2 = F**2
    tot1, tot2 = F.sum(0), F2.sum(0)
    # Row-major copies for taking rows (a frame's values are column-major); the sums above are made
    # of the arrays as given, so that they are the same numbers however the rows are then taken.
    rows, rows2 = np.ascontiguousarray(F), np.ascontiguousarray(F2)
    seen: dict[tuple, float] = {}
    scored = 0
    for _ in range(RESTARTS):
        in_test = np.zeros(n, dtype=bool)
        in_test[rng.choice(n, size=k, replace=False)] = True
        s1, s2 = F[in_test].sum(0), F2[in_test].sum(0)
        current = float(_from_sums(s1, s2, tot1, tot2, n, k))
        scored += 1
        stale = 0
        for _step in range(MAX_STEPS):
            test, train = np.flatnonzero(in_test), np.flatnonzero(~in_test)
            out_ = test[rng.integers(0, k, size=SWAPS_PER_STEP)]
            in_ = train[rng.integers(0, n - k, size=SWAPS_PER_STEP)]
            obj = _swap_objectives((s1, s2), rows, rows2, (out_, in_), (tot1, tot2), n, k)
            scored += len(obj)
            j = int(np.argmin(obj))
            if obj[j] < current - 1e-12:
                in_test[out_[j]], in_test[in_[j]] = False, True
                s1, s2 = s1 - F[out_[j]] + F[in_[j]], s2 - F2[out_[j]] + F2[in_[j]]
                current, stale = float(obj[j]), 0
            else:
                stale += 1
                if stale >= PATIENCE:
                    break
        seen[tuple(int(t) for t in np.flatnonzero(in_test))] = current
    ranked = sorted(seen.items(), key=lambda kv: kv[1])[: N_RUNNERS_UP + 1]
    return np.array([list(s) for s, _ in ranked], dtype=np.int64), np.array([o for _, o in ranked]), scored


@dataclass(frozen=True)
class ConditionSplit:
    condition: str
    sessions: tuple[str, ...]  # the candidates, in order
    test: tuple[str, ...]  # the chosen test sessions
    objective: float
    runners_up: pd.DataFrame  # rank, test sessions, objective (the chosen one first)
    subsets: tuple[tuple[str, ...], ...]  # the test sets of the rows of runners_up, in rank order
    n_candidates: int  # C(n, k)
    n_scored: int
    exhaustive: bool
    search: str  # how the subset was found, in words


@dataclass(frozen=True)
class SplitResult:
    by_condition: dict[str, ConditionSplit]
    features: pd.DataFrame
    test_size: dict[str, int]
    seed: int

    @property
    def test_sessions(self) -> set[str]:
        return {s for c in self.by_condition.values() for s in c.test}

    def assignment(self) -> dict[str, str]:
        """session_id -> "train" / "test" for every candidate session."""
        test = self.test_sessions
        return {s: ("test" if s in test else "train") for c in self.by_condition.values() for s in c.sessions}


def _count(n: int) -> str:
    """A count of subsets in words: exact up to a million, else its order of magnitude (C(2,860, 1,430)
    is too large for a float)."""
    if n < 10**6:
        return f"{n:,}"
    exponent = int(math.log10(n))  # exact for integers of any size
    return f"about {n / 10**exponent:.2f}e{exponent}" if exponent < 300 else f"about 10^{exponent}"


def split_condition(features: pd.DataFrame, condition: str, k: int, seed: int = 0) -> ConditionSplit:
    """The best test subset of size ``k`` among the sessions (rows) of ``features``."""
    ids = list(features.index)
    n = len(ids)
    if not 2 <= k <= n - 2:
        raise ValueError(
            f"{condition}: a test set of {k} of {n} sessions leaves fewer than 2 on a side (SDs need 2 or more)"
        )
    F = features.to_numpy(dtype=float)
    total = math.comb(n, k)
    if total <= EXHAUSTIVE_LIMIT:
        subs, objs = _exhaustive(F, k)
        scored, exhaustive = total, True
        search = f"exhaustive: all {total:,} subsets of {k} of {n} sessions scored (exact optimum)"
    else:
        subs, objs, scored = _local_search(F, k, np.random.default_rng(seed))
        exhaustive = False
        search = (
            f"seeded local search (seed {seed}): C({n}, {k}) = {_count(total)} subsets exceed the exhaustive bound "
            f"of {EXHAUSTIVE_LIMIT:,}; {RESTARTS} random starts improved by swapping a test and a train session "
            f"(best of {SWAPS_PER_STEP} random swaps a step, until {PATIENCE} steps bring nothing), {scored:,} subsets "
            "scored; the best end point, not guaranteed to be the global optimum"
        )
    runners = pd.DataFrame(
        {
            "rank": np.arange(1, len(subs) + 1),
            "test_sessions": [", ".join(ids[i] for i in s) for s in subs],
            "objective": objs,
        }
    )
    return ConditionSplit(
        condition=condition,
        sessions=tuple(ids),
        test=tuple(ids[i] for i in subs[0]),
        objective=float(objs[0]),
        runners_up=runners,
        subsets=tuple(tuple(ids[i] for i in s) for s in subs),
        n_candidates=total,
        n_scored=int(scored),
        exhaustive=exhaustive,
        search=search,
    )


def distribution_matched_split(
    actions: pd.DataFrame, sessions: pd.DataFrame, test_size: dict[str, int], seed: int = 0
) -> SplitResult:
    """The split per condition of ``sessions`` (session_id, condition) with ``test_size[condition]``
    test sessions, from the actions of those sessions; held-out sessions (``val``) are not
    candidates (:func:`candidates`)."""
    sessions = candidates(sessions)
    feats = session_features(actions)
    out = {}
    for cond in schema.CONDITIONS:
        ids = sorted(sessions.loc[sessions["condition"].astype(str) == cond, "session_id"].astype(str))
        if not ids or cond not in test_size:
            continue
        out[cond] = split_condition(feats.reindex(ids).fillna(0.0), cond, int(test_size[cond]), seed)
    return SplitResult(by_condition=out, features=feats, test_size=dict(test_size), seed=seed)


def split_objective(features: pd.DataFrame, test: list[str]) -> float:
    """L of a given test set among the sessions (rows) of ``features`` (e.g. the dataset's own split)."""
    idx = np.flatnonzero(features.index.isin(test))
    return objective(features.to_numpy(dtype=float), idx)


@dataclass(frozen=True)
class SplitStanding:
    """Where a condition's own test sessions stand on the objective among every subset of their size."""

    condition: str
    n_test: int
    n_sessions: int
    objective: float
    best: float
    rank: int | None  # 1 = the optimum; None when the subsets are too many to score them all
    n_candidates: int


def split_standing(actions: pd.DataFrame, sessions: pd.DataFrame) -> list[SplitStanding]:
    """Per condition, the objective L of the sessions' own test split (``sessions``: session_id,
    condition, split), the best L of any subset of that size and the own split's rank among all
    of them (ties share the better rank), scored exhaustively where C(n, k) <= EXHAUSTIVE_LIMIT.
    Held-out sessions (``val``) are on neither side (:func:`candidates`)."""
    sessions = candidates(sessions)
    feats = session_features(actions)
    out = []
    for cond in schema.CONDITIONS:
        mine = sessions[sessions["condition"].astype(str) == cond]
        ids = sorted(mine["session_id"].astype(str))
        test = sorted(mine.loc[mine["split"].astype(str) == "test", "session_id"].astype(str))
        k, n = len(test), len(ids)
        if not 2 <= k <= n - 2:
            continue
        F = feats.reindex(ids).fillna(0.0).to_numpy(dtype=float)
        own = objective(F, np.array([ids.index(t) for t in test]))
        total = math.comb(n, k)
        if total <= EXHAUSTIVE_LIMIT:
            all_subsets = np.array(list(combinations(range(n), k)), dtype=np.int64)
            objs = _objectives(F, all_subsets)
            rank: int | None = int(np.sum(objs < own - 1e-12)) + 1
            best = float(objs.min())
        else:
            rank, best = None, split_condition(feats.reindex(ids).fillna(0.0), cond, k).objective
        out.append(SplitStanding(cond, k, n, float(own), best, rank, total))
    return out


SCORED_ON = "test"  # the split every run is scored on (the paper's benchmark: the test sessions)


def standing_sentence(standing: list[SplitStanding], names: Mapping[str, str] | None = None) -> str:
    """Which split the runs are scored on and, where Appendix E's objective applies, how it stands:
    per condition (named by ``names``) its size, its imbalance L beside the optimum, and its rank
    among every subset of its size. The leaderboards of the page, the command line and the report say
    it in these words."""
    if not standing:
        return f"Scored on the dataset's {SCORED_ON} split."
    parts = []
    for s in standing:
        where = (
            f"ranks {s.rank} of {fmt_count(s.n_candidates)} subsets"
            if s.rank is not None
            else f"has objective {fmt(s.objective, 2)} (best found {fmt(s.best, 2)})"
        )
        parts.append(
            f"{(names or {}).get(s.condition, s.condition)}: {s.n_test} of {s.n_sessions} sessions, "
            f"imbalance L {fmt(s.objective, 2)} (optimum {fmt(s.best, 2)}), {where}"
        )
    matched = all(s.rank == 1 for s in standing)
    return (
        f"Scored on the dataset's {SCORED_ON} split. On Appendix E's objective (train and test differ least in the mean "
        "and SD of their action types and labels) it "
        + ("is the distribution-matched split: " if matched else "is not the distribution-matched split: ")
        + "; ".join(parts)
        + "."
    )


def standing_json(standing: list[SplitStanding]) -> dict:
    """The same as numbers: the split scored on, and per condition its standing."""
    return {
        "scored_on": SCORED_ON,
        "matched": bool(standing) and all(s.rank == 1 for s in standing),
        "standing": [
            {
                "condition": s.condition,
                "n_test": s.n_test,
                "n_sessions": s.n_sessions,
                "objective": s.objective,
                "optimum": s.best,
                "rank": s.rank,
                "n_candidates": s.n_candidates,
            }
            for s in standing
        ],
    }


def comparison_table(result: SplitResult) -> pd.DataFrame:
    """Table 8 style: per condition, feature: train and test mean and SD (%), and |difference|."""
    rows = []
    feats = result.features * 100.0
    for cond, cs in result.by_condition.items():
        f = feats.reindex(list(cs.sessions))
        te, tr = f.loc[list(cs.test)], f.drop(index=list(cs.test))
        for col in f.columns:
            role, kind, value = col.split(":")
            label = schema.SHORT_NAMES.get(value, value) if kind != "type" else value
            rows.append(
                {
                    "condition": cond,
                    "role": role,
                    "dimension": "action type" if kind == "type" else schema.DIMENSION_TITLES[kind],
                    "label": label if kind == "type" else f"{value} {label}",
                    "train_mean": tr[col].mean(),
                    "train_sd": tr[col].std(ddof=1),
                    "test_mean": te[col].mean(),
                    "test_sd": te[col].std(ddof=1),
                }
            )
    out = pd.DataFrame(rows)
    if not out.empty:
        out["abs_mean_diff"] = (out["train_mean"] - out["test_mean"]).abs()
        out["abs_sd_diff"] = (out["train_sd"] - out["test_sd"]).abs()
    return out
