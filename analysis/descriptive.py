"""Dataset statistics in the form of the paper's Table 1 (actions per session by type) and
Table 8 (mental-model label distribution, % of a session's annotated actions, averaged over
sessions), overall, per condition, per split and per condition x split.

Means and sample standard deviations (ddof=1) are taken over sessions; an SD over fewer than two
sessions is undefined and reported as ``None``.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from analysis.format import fmt_mean_sd
from corpus import schema

COUNT_COLUMNS = ["n_actions", *[f"n_{t}" for t in schema.ACTION_TYPES]]


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def _mean_sd(values: pd.Series) -> dict[str, float | None]:
    values = values.dropna().astype(float)
    return {
        "mean": _num(values.mean()) if len(values) else None,
        "sd": _num(values.std(ddof=1)) if len(values) > 1 else None,
    }


def label_shares(actions: pd.DataFrame) -> pd.DataFrame:
    """Per session and dimension, the % of annotated actions carrying each code.

    Returns a long frame: session_id, dimension, code, share (0-100). Codes a session never used
    count as 0 % for it, so averages are over all sessions of the group.
    """
    frames = []
    for dim, codes in schema.DIMENSIONS.items():
        all_codes = [*codes, schema.OTHER]
        sub = actions.loc[actions[dim].notna(), ["session_id", dim]]
        if sub.empty:
            continue
        tab = pd.crosstab(sub["session_id"], sub[dim], normalize="index") * 100.0
        tab = tab.reindex(columns=all_codes, fill_value=0.0)
        long = tab.reset_index().melt(id_vars="session_id", var_name="code", value_name="share")
        long.insert(1, "dimension", dim)
        frames.append(long)
    if not frames:
        return pd.DataFrame(columns=["session_id", "dimension", "code", "share"])
    return pd.concat(frames, ignore_index=True)


def _group_stats(sessions: pd.DataFrame, shares: pd.DataFrame) -> dict[str, Any]:
    ids = set(sessions["session_id"])
    out: dict[str, Any] = {
        "n_sessions": int(len(sessions)),
        "n_actions": int(sessions["n_actions"].sum()),
        "per_session": {
            c.removeprefix("n_") if c != "n_actions" else "actions": _mean_sd(sessions[c]) for c in COUNT_COLUMNS
        },
        "duration_min": _mean_sd(sessions["duration_min"]),
        "final_accuracy": _mean_sd(sessions["final_accuracy"]),
        "route_coverage": _mean_sd(sessions["route_coverage"]),
    }
    mm: dict[str, dict[str, Any]] = {}
    sub = shares[shares["session_id"].isin(ids)]
    for dim, codes in schema.DIMENSIONS.items():
        d = sub[sub["dimension"] == dim]
        mm[dim] = {code: _mean_sd(d.loc[d["code"] == code, "share"]) for code in [*codes, schema.OTHER]}
    out["mental_model_pct"] = mm
    return out


def dataset_stats(sessions: pd.DataFrame, actions: pd.DataFrame) -> dict[str, Any]:
    """Table 1 and Table 8 numbers: overall, by condition, by split, by condition x split."""
    shares = label_shares(actions)
    result: dict[str, Any] = {"overall": _group_stats(sessions, shares)}
    result["by_condition"] = {
        c: _group_stats(sessions[sessions["condition"] == c], shares)
        for c in schema.CONDITIONS
        if (sessions["condition"] == c).any()
    }
    result["by_split"] = {
        s: _group_stats(sessions[sessions["split"] == s], shares)
        for s in schema.SPLITS
        if (sessions["split"] == s).any()
    }
    result["by_condition_split"] = {
        f"{c}/{s}": _group_stats(sessions[(sessions["condition"] == c) & (sessions["split"] == s)], shares)
        for c in schema.CONDITIONS
        for s in schema.SPLITS
        if ((sessions["condition"] == c) & (sessions["split"] == s)).any()
    }
    return result


def _fmt(ms: dict[str, float | None], digits: int = 1) -> str:
    return fmt_mean_sd(ms["mean"], ms["sd"], digits)


def _columns(stats: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    cols = [("All", stats["overall"])]
    cols += [(k, v) for k, v in stats["by_condition"].items()]
    cols += [(k, v) for k, v in stats["by_condition_split"].items()]
    return cols


def table1(stats: dict[str, Any]) -> pd.DataFrame:
    """Table 1 as a frame: rows are metrics, columns are groups, cells 'mean (SD)'."""
    cols = _columns(stats)
    rows = {}
    rows["sessions"] = {name: str(g["n_sessions"]) for name, g in cols}
    rows["actions"] = {name: str(g["n_actions"]) for name, g in cols}
    for key in ["actions", *schema.ACTION_TYPES]:
        rows[f"# {key}/session"] = {name: _fmt(g["per_session"][key]) for name, g in cols}
    rows["duration (min)"] = {name: _fmt(g["duration_min"]) for name, g in cols}
    rows["final accuracy"] = {name: _fmt(g["final_accuracy"], 2) for name, g in cols}
    rows["route coverage"] = {name: _fmt(g["route_coverage"], 2) for name, g in cols}
    return pd.DataFrame(rows).T


def table8(stats: dict[str, Any]) -> pd.DataFrame:
    """Table 8 as a frame: rows (dimension, label), columns groups, cells '% mean (SD)'."""
    cols = _columns(stats)
    index, data = [], []
    for dim, codes in schema.DIMENSIONS.items():
        for code in [*codes, schema.OTHER]:
            index.append((schema.DIMENSION_TITLES[dim], f"{code} {schema.SHORT_NAMES[code]}"))
            data.append([_fmt(g["mental_model_pct"][dim][code]) for _, g in cols])
    return pd.DataFrame(
        data, index=pd.MultiIndex.from_tuples(index, names=["dimension", "label"]), columns=[n for n, _ in cols]
    )


def format_stats(stats: dict[str, Any]) -> str:
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        return (
            "Table 1: actions per session, mean (SD)\n"
            + table1(stats).to_string()
            + "\n\nTable 8: mental-model labels, % of a session's actions, mean (SD)\n"
            + table8(stats).to_string()
        )
