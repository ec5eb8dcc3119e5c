"""How far a session had got at each action: three measures of task progress, each 0 to 1.

- ``coverage``: route coverage, the share of the route's cells on the Follower's canvas after the
  action (:func:`corpus.metrics.coverage_curve`). This is the paper's "drawing progress": its
  checkpoints are asked at 25, 50 and 75 % of it. It falls back when the Follower erases or resets,
  and most sessions end below 100 %. Undefined for a map without a route.
- ``index``: the action's position in its session (0 = first action, 1 = last).
- ``time``: elapsed time, the action's timestamp as a share of the session's duration.
- ``pixel_ratio``: the collaboration platform's own measure of the drawing, its
  ``route_pixel_ratio`` (the drawing thinned to a line 8 px wide, as a share of the canvas's
  pixels, logged with each drawing action: :attr:`corpus.model.Action.route_pixel_ratio`). At each
  action, the last value logged at or before it (0 before the first: nothing drawn yet), as a share
  of the largest the session reached, so a session's fullest drawing is 1. Like coverage it falls
  back when the Follower erases or resets; it needs no route on the map, only the platform's values.
  Undefined in a session that logs none (or whose drawing never has a pixel): :func:`pixel_ratio_sessions`
  says which.

:func:`progress_table` gives all four for every action; :func:`default_progress` picks route
coverage when every session's map has a route, else the action's position.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.codes import sorted_codes, tally
from corpus.loading.dataset import Corpus

PROGRESS_KINDS = {
    "coverage": "route coverage",
    "index": "action position",
    "time": "elapsed time",
    "pixel_ratio": "route pixel ratio",
}
AXIS_TITLES = {
    "coverage": "route drawn (% of route cells)",
    "index": "position in the session (% of actions)",
    "time": "elapsed time (% of session duration)",
    "pixel_ratio": "route pixel ratio (% of the session's largest)",
}
COLUMNS = {kind: f"progress_{kind}" for kind in PROGRESS_KINDS}


def has_route(corpus: Corpus, session_id: str) -> bool:
    return len(corpus.map_of(session_id).route) > 0


def default_progress(corpus: Corpus) -> str:
    """``coverage`` when every session's map has a route, else ``index``."""
    return "coverage" if corpus.sessions and all(has_route(corpus, s) for s in corpus.sessions) else "index"


def pixel_ratio_sessions(corpus: Corpus) -> tuple[list[str], list[str]]:
    """(the sessions that log the platform's route pixel ratio, those that log none), in the order
    of the sessions table."""
    sessions = corpus.sessions_df
    if not len(sessions):
        return [], []
    has = sessions["n_route_pixel_ratio"].to_numpy() > 0
    ids = sessions["session_id"].astype(str).to_numpy()
    return ids[has].tolist(), ids[~has].tolist()


def _pixel_ratio_progress(ratios: np.ndarray, starts: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The ``pixel_ratio`` measure of actions whose logged ratios are ``ratios`` (NaN where an action
    logs none), sessions starting at ``starts`` with ``n`` actions each."""
    logged = ~np.isnan(ratios)
    if not logged.any():  # (no session logs one: the common case, at once)
        return np.full(len(ratios), np.nan)
    session = np.repeat(np.arange(len(n)), n)
    # The last value logged at or before each action: the position of the latest logged action,
    # carried forward within the session (0 before the first).
    pos = np.where(logged, np.arange(len(ratios)), -1)
    last = np.maximum.accumulate(pos)
    carried = np.where(last >= np.repeat(starts, n), ratios[np.maximum(last, 0)], 0.0)
    largest = np.maximum.reduceat(np.where(logged, ratios, 0.0), starts)
    any_logged = np.add.reduceat(logged.astype(np.int64), starts) > 0
    scale = np.where(any_logged & (largest > 0), largest, np.nan)[session]
    return carried / scale


def progress_table(corpus: Corpus) -> pd.DataFrame:
    """One row per action (in the order of ``corpus.actions_df``): session_id, index and the four
    progress measures; ``progress_coverage`` is NaN in sessions whose map has no route,
    ``progress_pixel_ratio`` in sessions that log no route pixel ratio.

    Read from the corpus's tables (the action table's rows are the sessions' actions, session by
    session, in order; the route coverage after each action is made with them)."""
    actions = corpus.actions_df
    if not len(actions):
        return pd.DataFrame(columns=["session_id", "index", *COLUMNS.values()])
    sessions = corpus.sessions_df
    sizes = sessions["n_actions"].to_numpy(dtype=np.int64)
    kept = sizes > 0
    n = sizes[kept]
    starts = np.concatenate([[0], np.cumsum(n)[:-1]])
    step = np.arange(int(n.sum())) - np.repeat(starts, n)
    last = np.repeat(n - 1, n)
    position = np.where(last > 0, step / np.where(last > 0, last, 1), 1.0)
    stamps = actions["timestamp"].to_numpy(dtype=float)
    declared = np.array([float(corpus.meta(sid).duration_s or 0.0) for sid in sessions["session_id"][kept]])
    duration = np.repeat(np.maximum(declared, np.maximum.reduceat(stamps, starts)), n)
    with np.errstate(invalid="ignore", divide="ignore"):
        time = np.where(duration > 0, np.clip(stamps / np.where(duration > 0, duration, 1.0), 0.0, 1.0), position)
    pixels = _pixel_ratio_progress(actions["route_pixel_ratio"].to_numpy(dtype=float), starts, n)
    return pd.DataFrame(
        {
            "session_id": actions["session_id"].array,
            "index": actions["index"].to_numpy(dtype=np.int64),
            COLUMNS["coverage"]: np.asarray(corpus.route_coverage, dtype=float),
            COLUMNS["index"]: position,
            COLUMNS["time"]: time,
            COLUMNS["pixel_ratio"]: pixels,
        }
    )


def bin_edges(bins: int) -> np.ndarray:
    return np.linspace(0.0, 1.0, bins + 1)


def assign_bins(progress: pd.Series | np.ndarray, bins: int) -> np.ndarray:
    """The 0-based equal-width bin of each progress value in [0, 1] (NaN stays -1). Bins are closed
    on the right, the first also on the left: with 5 bins, 0.2 is in bin 0 and 0.2001 in bin 1."""
    p = np.asarray(progress, dtype=float)
    out = np.clip(np.digitize(p, bin_edges(bins)[1:-1], right=True), 0, bins - 1)
    return np.where(np.isnan(p), -1, out)


def bin_midpoints(bins: int) -> np.ndarray:
    e = bin_edges(bins)
    return (e[:-1] + e[1:]) / 2


def counts_by_bin(groups: pd.Series, bins: np.ndarray, y: np.ndarray, ok: np.ndarray, n_bins: int) -> pd.DataFrame:
    """k (the sum of ``y``) and n (the count) per group x progress bin over the rows where ``ok``,
    for the pairs that occur, sorted by the group's name and then the bin: columns condition, bin, k,
    n. The table ``DataFrame({"condition": groups.astype(str), "bin": bins, "y": y})[ok]
    .groupby(["condition", "bin"])["y"].agg(k="sum", n="count").reset_index()`` gives, counted
    with integer codes instead of grouping the groups' names row by row (``y`` holds no NaN where
    ``ok``; its sums are of whole numbers, exact in any order; k is whole when ``y`` is)."""
    names, codes = sorted_codes(groups)
    k, n = tally(codes, len(names), np.asarray(bins), n_bins, y, ok & (codes >= 0))
    present = np.flatnonzero(n)
    return pd.DataFrame(
        {
            "condition": pd.array(names[present // n_bins], dtype="str"),
            "bin": (present % n_bins).astype(np.int64),
            "k": k.ravel()[present],
            "n": n.ravel()[present].astype(np.int64),
        }
    )
