"""How far a session had got at each action: three measures of task progress, each 0 to 1.

- ``coverage``: route coverage, the share of the route's cells on the Follower's canvas after the
  action (:func:`corpus.metrics.coverage_curve`). This is the paper's "drawing progress": its
  checkpoints are asked at 25, 50 and 75 % of it. It falls back when the Follower erases or resets,
  and most sessions end below 100 %. Undefined for a map without a route.
- ``index``: the action's position in its session (0 = first action, 1 = last).
- ``time``: elapsed time, the action's timestamp as a share of the session's duration.

:func:`progress_table` gives all three for every action; :func:`default_progress` picks route
coverage when every session's map has a route, else the action's position.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from corpus.dataset import Corpus
from corpus.metrics import coverage_curve

PROGRESS_KINDS = {
    "coverage": "route coverage",
    "index": "action position",
    "time": "elapsed time",
}
AXIS_TITLES = {
    "coverage": "route drawn (% of route cells)",
    "index": "position in the session (% of actions)",
    "time": "elapsed time (% of session duration)",
}
COLUMNS = {kind: f"progress_{kind}" for kind in PROGRESS_KINDS}


def has_route(corpus: Corpus, session_id: str) -> bool:
    return len(corpus.map_of(session_id).route) > 0


def default_progress(corpus: Corpus) -> str:
    """``coverage`` when every session's map has a route, else ``index``."""
    return "coverage" if corpus.sessions and all(has_route(corpus, s) for s in corpus.sessions) else "index"


def progress_table(corpus: Corpus) -> pd.DataFrame:
    """One row per action (in the order of ``corpus.actions_df``): session_id, index and the three
    progress measures; ``progress_coverage`` is NaN in sessions whose map has no route."""
    sids, indices, coverage, position, time = [], [], [], [], []
    for sid, s in corpus.sessions.items():
        n = len(s.actions)
        if n == 0:
            continue
        index = np.arange(n) / (n - 1) if n > 1 else np.ones(1)
        stamps = np.fromiter((a.timestamp for a in s.actions), dtype=float, count=n)
        duration = max(float(s.duration_s or 0.0), float(stamps.max()))
        sids.append(np.full(n, sid, dtype=object))
        indices.append(np.fromiter((a.index for a in s.actions), dtype=np.int64, count=n))
        coverage.append(
            coverage_curve(corpus.history(sid), corpus.route_mask(sid)).astype(float)
            if has_route(corpus, sid)
            else np.full(n, np.nan)
        )
        position.append(index)
        time.append(np.clip(stamps / duration, 0.0, 1.0) if duration > 0 else index)
    if not sids:
        return pd.DataFrame(columns=["session_id", "index", *COLUMNS.values()])
    return pd.DataFrame(
        {
            "session_id": np.concatenate(sids),
            "index": np.concatenate(indices),
            COLUMNS["coverage"]: np.concatenate(coverage),
            COLUMNS["index"]: np.concatenate(position),
            COLUMNS["time"]: np.concatenate(time),
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
