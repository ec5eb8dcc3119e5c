"""Dyadic alignment: at each moment, do the Guide and the Follower report the same team goal?

A moment is an action of the session. At each moment each participant's team goal is their
latest annotation so far (their own most recent annotated action, this one included). Once both
have annotated, the pair *agrees* when the two codes are the same. :func:`dyad_moments` gives
the moments, :func:`dyad_curves` the share of agreeing moments per condition and progress bin,
with n and Wilson 95 % intervals (moments of one session are not independent: the intervals
describe the moments).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.progress import assign_bins, bin_edges, bin_midpoints
from analysis.results import wilson_columns

DIMENSION = "team_goal"
DYAD_COLUMNS = ["condition", "bin", "progress", "bin_low", "bin_high", "k", "n", "share", "ci_low", "ci_high"]


def dyad_moments(actions: pd.DataFrame, dimension: str = DIMENSION) -> pd.DataFrame:
    """Per action where both participants have annotated ``dimension`` so far: the Guide's and the
    Follower's latest code and whether they agree. ``actions`` holds both roles of whole sessions
    (session_id, index, role, condition, the dimension and any progress columns)."""
    df = actions.sort_values(["session_id", "index"], kind="stable")
    latest = {}
    for role in ("guide", "follower"):
        own = df[dimension].where(df["role"].astype(str) == role)
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
    g = (
        pd.DataFrame(
            {
                "condition": moments["condition"].astype(str).to_numpy()[ok],
                "bin": b[ok],
                "y": moments["agree"].to_numpy()[ok],
            }
        )
        .groupby(["condition", "bin"])["y"]
        .agg(k="sum", n="count")
        .reset_index()
    )
    edges = bin_edges(bins)
    g["progress"] = bin_midpoints(bins)[g["bin"]].round(4)
    g["bin_low"], g["bin_high"] = edges[g["bin"]], edges[g["bin"] + 1]
    g["share"] = g["k"] / g["n"]
    g["ci_low"], g["ci_high"] = wilson_columns(g["k"], g["n"])
    return g[DYAD_COLUMNS]


def dyad_share_by_condition(moments: pd.DataFrame) -> pd.DataFrame:
    """Share of agreeing moments per condition over the whole session (k, n, Wilson CI) and the
    number of sessions behind it."""
    g = (
        moments.groupby(moments["condition"].astype(str))
        .agg(k=("agree", "sum"), n=("agree", "count"), sessions=("session_id", "nunique"))
        .reset_index()
    )
    g["share"] = g["k"] / g["n"]
    g["ci_low"], g["ci_high"] = wilson_columns(g["k"], g["n"])
    return g


def in_dyad_bin(moments: pd.DataFrame, progress_col: str, bins: int, bin_index: int) -> np.ndarray:
    return assign_bins(moments[progress_col].to_numpy(dtype=float), bins) == bin_index
