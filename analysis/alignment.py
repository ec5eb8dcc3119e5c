"""Mental-model alignment over task progress and by grounding act (the paper's Fig. 3 and Fig. 4).

Pure functions on a per-action table (session_id, index, condition, role, the mental-model
columns, and a progress column from :mod:`analysis.progress`) and on a table of one grounding act
per action (session_id, action_index, code, from :mod:`analysis.label_sources`).

- :func:`progress_curves`: per condition and progress bin, the share of "grounded" labels on each
  dimension (t3 clear team goal, p1 partner understood, r1 executing the plan) and of perceived
  alignment, with n and Wilson 95 % intervals (statsmodels). Actions in one session are not
  independent: the intervals describe the actions, the session-clustered model of
  :mod:`analysis.progress_model` is the test.
- :func:`act_shares`: grounding acts' share of the coded actions per condition (Fig. 3); the test
  of independence is :mod:`analysis.contingency`.
- :func:`alignment_by_act`: perceived partner-intent alignment (p1) within each grounding act per
  condition (Fig. 4 left), with Wilson intervals.
- :func:`with_acts`: the coded actions with their act (the rows behind a bar).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from analysis.progress import assign_bins, bin_edges, bin_midpoints, counts_by_bin
from analysis.results import wilson_columns
from corpus import schema

MEASURES = {
    "team_goal": "Team goal clear (t3)",
    "partner_intent": "Partner understood (p1)",
    "self_reasoning": "Executing the plan (r1)",
    "aligned": "Perceived aligned (yes)",
}
CURVE_COLUMNS = [
    "measure",
    "label",
    "condition",
    "bin",
    "progress",
    "bin_low",
    "bin_high",
    "k",
    "n",
    "share",
    "ci_low",
    "ci_high",
]


def grounded_indicators(actions: pd.DataFrame) -> pd.DataFrame:
    """One 0/1 column per measure (NaN where the action has no label on it)."""
    out = pd.DataFrame(index=actions.index)
    for dim, codes in schema.GROUNDED_CODES.items():
        col = actions[dim]
        out[dim] = np.where(col.isna(), np.nan, col.isin(codes).astype(float))
    out["aligned"] = actions["aligned"].map({True: 1.0, False: 0.0}).astype(float)
    return out


def progress_curves(
    actions: pd.DataFrame,
    progress_col: str = "progress",
    bins: int = 5,
    measures: list[str] | tuple[str, ...] = tuple(MEASURES),
) -> pd.DataFrame:
    """Share grounded per measure x condition x progress bin, with k, n and a Wilson 95 % CI.

    Progress (0 to 1) is cut into ``bins`` equal-width bins (closed on the right) labelled by their
    midpoint; actions whose progress is undefined (NaN) are left out.
    """
    ind = grounded_indicators(actions)
    b = assign_bins(actions[progress_col].to_numpy(dtype=float), bins)
    edges, mids = bin_edges(bins), bin_midpoints(bins)
    frames = []
    for measure in measures:
        y = ind[measure].to_numpy()
        ok = ~np.isnan(y) & (b >= 0)
        if not ok.any():
            continue
        g = counts_by_bin(actions["condition"], b, y, ok, bins)
        g.insert(0, "measure", measure)
        g.insert(1, "label", MEASURES[measure])
        frames.append(g)
    if not frames:
        return pd.DataFrame(columns=CURVE_COLUMNS)
    out = pd.concat(frames, ignore_index=True)
    out["k"] = out["k"].astype(int)
    out["progress"] = mids[out["bin"]].round(4)
    out["bin_low"], out["bin_high"] = edges[out["bin"]], edges[out["bin"] + 1]
    out["share"] = out["k"] / out["n"]
    out["ci_low"], out["ci_high"] = wilson_columns(out["k"], out["n"])
    return out[CURVE_COLUMNS]


def in_bin(actions: pd.DataFrame, progress_col: str, bins: int, bin_index: int) -> pd.Series:
    """Which actions fall in progress bin ``bin_index`` (the rows behind one point of a curve)."""
    return pd.Series(assign_bins(actions[progress_col].to_numpy(dtype=float), bins) == bin_index, index=actions.index)


def with_acts(labels: pd.DataFrame, actions: pd.DataFrame) -> pd.DataFrame:
    """The coded actions: ``actions`` rows joined with their grounding act (column ``code``)."""
    keyed = labels[["session_id", "action_index", "code"]].rename(columns={"action_index": "index"})
    return actions.merge(keyed, on=["session_id", "index"], how="inner", validate="one_to_one")


def act_shares(labels: pd.DataFrame, actions: pd.DataFrame) -> pd.DataFrame:
    """Each grounding act's share of the coded actions in each condition (Fig. 3): condition, code,
    n (actions with that act), total (coded actions of the condition), share; every act seen in any
    condition has a row in each (n = 0 where a condition has none)."""
    df = with_acts(labels, actions)
    if df.empty:
        return pd.DataFrame(columns=["condition", "code", "n", "total", "share"])
    counts = df.groupby([df["condition"].astype(str), "code"]).size().rename("n")
    # Every act seen in any condition, in every condition: an act no action of a condition has is a
    # cell of 0 with its total, not a missing row.
    every = pd.MultiIndex.from_product(counts.index.levels, names=counts.index.names)
    tab = counts.reindex(every, fill_value=0).reset_index()
    tab["total"] = tab.groupby("condition")["n"].transform("sum")
    tab["share"] = tab["n"] / tab["total"]
    return tab.sort_values(["condition", "share"], ascending=[True, False]).reset_index(drop=True)


def alignment_by_act(labels: pd.DataFrame, actions: pd.DataFrame) -> pd.DataFrame:
    """Share of actions whose actor judged the partner aligned (p1), per grounding act and condition
    (Fig. 4 left), with k, n and a Wilson 95 % CI."""
    df = with_acts(labels, actions)
    df = df[df["partner_intent"].notna()]
    cols = ["condition", "code", "k", "n", "share_aligned", "ci_low", "ci_high"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    g = (
        df.assign(y=(df["partner_intent"] == "p1").astype(int), condition=df["condition"].astype(str))
        .groupby(["condition", "code"])["y"]
        .agg(k="sum", n="count")
        .reset_index()
    )
    g["share_aligned"] = g["k"] / g["n"]
    g["ci_low"], g["ci_high"] = wilson_columns(g["k"], g["n"])
    return g[cols]
