"""Dyadic alignment: at each moment, do the Guide and the Follower report the same team goal?

A moment is an action of the session. At each moment each participant's team goal is their
latest annotation so far (their own most recent annotated action, this one included). Once both
have annotated, the pair *agrees* when the two codes are the same. :func:`dyad_moments` gives
the moments, :func:`dyad_curves` the share of agreeing moments per condition and progress bin,
:func:`dyad_share_by_condition` over whole sessions, and :func:`dyad_condition_test` the test of
the condition difference.

A session's moments are not independent (each carries the annotations forward), so nothing treats
them as such: the intervals are percentile bootstraps over sessions (the sessions of a condition
resampled with replacement, their moments kept together; seeded, :data:`N_BOOT` resamples), and the
test compares the sessions' own shares of agreeing moments (Welch's t-test, one value per session).
"""

from __future__ import annotations

from typing import cast

import numpy as np
import pandas as pd
from scipy import stats

from analysis import draws
from analysis.codes import in_session_order, sorted_codes, tally
from analysis.progress import assign_bins, bin_edges, bin_midpoints, counts_by_bin
from analysis.results import Test, few_per_group
from corpus import schema
from corpus.values import Undefined

N_BOOT = 2000
SEED = 0


def _session_bootstrap(k: np.ndarray, n: np.ndarray, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """95 % percentile intervals of sum(k) / sum(n) per column, resampling the rows (sessions) of
    ``k`` and ``n`` (sessions x cells) with replacement; NaN where a resample has no moment, or
    where there is a single session (no spread to resample)."""
    sessions, cells = k.shape
    if sessions < 2:
        return np.full(cells, np.nan), np.full(cells, np.nan)
    # Each resample's sums as (times each session is drawn) x (its counts): the same sums as adding
    # the drawn rows (whole numbers, exact in floating point), without a resamples x sessions x cells
    # array (2,000 x 5,000 x 5 at a million actions). The times depend on the number of sessions
    # alone: kept for the next table over as many sessions (the other table of the same condition).
    times = np.empty((N_BOOT, sessions))
    for b, row in enumerate(draws.RESAMPLE_COUNTS.rows(sessions, N_BOOT, seed)):
        times[b] = row
    kb, nb = times @ k, times @ n
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(nb > 0, kb / np.where(nb > 0, nb, 1), np.nan)
    lo, hi = np.full(cells, np.nan), np.full(cells, np.nan)
    some = np.isfinite(share).any(axis=0)  # a cell no session has a moment in has no interval
    if some.any():
        lo[some], hi[some] = np.nanpercentile(share[:, some], [2.5, 97.5], axis=0)
    return lo, hi


DIMENSION = "team_goal"
DYAD_COLUMNS = ["condition", "bin", "progress", "bin_low", "bin_high", "k", "n", "share", "ci_low", "ci_high"]


def dyad_moments(actions: pd.DataFrame, dimension: str = DIMENSION) -> pd.DataFrame:
    """Per action where both participants have annotated ``dimension`` so far: the Guide's and the
    Follower's latest code and whether they agree. ``actions`` holds both roles of whole sessions
    (session_id, index, role, condition, the dimension and any progress columns); the moments carry
    every column but the other texts (sorting every text of every action would copy them all)."""
    keys = ("session_id", "index", "role", "condition", dimension)
    read = [c for c in actions.columns if c in keys or not pd.api.types.is_string_dtype(actions[c])]
    df = in_session_order(actions[read])
    latest = {}
    for role in ("guide", "follower"):
        own = df[dimension].where(df["role"] == role)
        latest[role] = own.groupby(df["session_id"], sort=False).ffill()
    out = df.assign(guide_code=latest["guide"], follower_code=latest["follower"])
    out = out[out["guide_code"].notna() & out["follower_code"].notna()]
    return out.assign(agree=(out["guide_code"] == out["follower_code"]).astype(int))


def dyad_curves(moments: pd.DataFrame, progress_col: str, bins: int = 5) -> pd.DataFrame:
    """Share of moments where both report the same code, per condition x progress bin."""
    b = assign_bins(moments[progress_col].to_numpy(dtype=float), bins)
    ok = b >= 0
    if not ok.any():
        return pd.DataFrame(columns=DYAD_COLUMNS)
    g = counts_by_bin(moments["condition"], b, moments["agree"].to_numpy(), ok, bins)
    edges = bin_edges(bins)
    g["progress"] = bin_midpoints(bins)[g["bin"]].round(4)
    g["bin_low"], g["bin_high"] = edges[g["bin"]], edges[g["bin"] + 1]
    g["share"] = g["k"] / g["n"]
    # Per condition, a sessions x bins table of k and n (the sessions with a moment in the
    # condition, in the order of their names), resampled by session.
    conditions, cond = sorted_codes(moments["condition"])
    names, session = sorted_codes(moments["session_id"])
    y = moments["agree"].to_numpy()
    g["ci_low"], g["ci_high"] = np.nan, np.nan
    for c, name in enumerate(conditions):
        mine = ok & (cond == c)
        if not mine.any():
            continue
        present, row = np.unique(session[mine], return_inverse=True)
        k, n = tally(row, len(present), b[mine], bins, y[mine], np.ones(len(row), dtype=bool))
        lo, hi = _session_bootstrap(k.astype(float), n.astype(float))
        rows = g["condition"] == name
        g.loc[rows, "ci_low"] = lo[g.loc[rows, "bin"].to_numpy()]
        g.loc[rows, "ci_high"] = hi[g.loc[rows, "bin"].to_numpy()]
    return g[DYAD_COLUMNS]


def _session_shares(moments: pd.DataFrame) -> pd.DataFrame:
    """Per session: its condition, agreeing moments k, moments n and share k / n (sorted by condition
    and session; counted with integer codes, as grouping by their names would give)."""
    conditions, cond = sorted_codes(moments["condition"])
    names, session = sorted_codes(moments["session_id"])
    k, n = tally(cond, len(conditions), session, len(names), moments["agree"].to_numpy(), (cond >= 0) & (session >= 0))
    c, s = np.nonzero(n)  # the pairs that occur, by condition then session
    g = pd.DataFrame(
        {
            "condition": pd.array(conditions[c], dtype="str"),
            "session_id": pd.Series(names[s], dtype=object).astype(moments["session_id"].dtype),
            "k": k[c, s].astype(np.int64),
            "n": n[c, s].astype(np.int64),
        }
    )
    return g.assign(share=g["k"] / g["n"])


def dyad_share_by_condition(moments: pd.DataFrame) -> pd.DataFrame:
    """Share of agreeing moments per condition over the whole session (k, n), the number of
    sessions behind it, and its interval from a bootstrap over sessions."""
    per = _session_shares(moments)
    g = per.groupby("condition").agg(k=("k", "sum"), n=("n", "sum"), sessions=("session_id", "nunique")).reset_index()
    g["share"] = g["k"] / g["n"]
    bounds = [
        _session_bootstrap(part[["k"]].to_numpy(dtype=float), part[["n"]].to_numpy(dtype=float))
        for _, part in per.groupby("condition")
    ]
    g["ci_low"] = [float(lo[0]) for lo, _ in bounds]
    g["ci_high"] = [float(hi[0]) for _, hi in bounds]
    return g


def dyad_condition_test(moments: pd.DataFrame, design: tuple[str, str] = schema.CANVAS) -> Test | Undefined:
    """Do the conditions differ in how often the pair reports the same team goal? Welch's t-test on
    the sessions' own shares of agreeing moments (treatment - reference of ``design``), one value per
    session."""
    per = _session_shares(moments)
    ref, treat = design
    x = per.loc[per["condition"] == treat, "share"].to_numpy(dtype=float)
    y = per.loc[per["condition"] == ref, "share"].to_numpy(dtype=float)
    words = [c.replace("_", " ") for c in (treat, ref)]
    if len(x) < 2 or len(y) < 2:
        return Undefined(f"each condition needs at least 2 sessions ({words[0]} {len(x)}, {words[1]} {len(y)})")
    if np.ptp(np.concatenate([x, y])) == 0:
        return Undefined("every session has the same share")
    res = stats.ttest_ind(x, y, equal_var=False)
    ci = res.confidence_interval(0.95)
    return Test(
        key="dyad_welch",
        statistic=f"difference of session means ({words[0]} - {words[1]})",
        estimate=float(x.mean() - y.mean()),
        n=len(x) + len(y),
        n_of="sessions",
        method="Welch's t-test on each session's share of moments where both report the same team goal, two-sided",
        computed_by="scipy.stats.ttest_ind(equal_var=False)",
        package="scipy",
        interval=(float(ci.low), float(ci.high)),
        interval_method="Welch's 95% interval",
        distribution="t",
        test_statistic=float(res.statistic),
        dof=float(cast(float, res.df)),
        p_value=float(res.pvalue),
        warnings=tuple(w for w in [few_per_group({treat: len(x), ref: len(y)})] if w),
    )


def in_dyad_bin(moments: pd.DataFrame, progress_col: str, bins: int, bin_index: int) -> np.ndarray:
    return assign_bins(moments[progress_col].to_numpy(dtype=float), bins) == bin_index
