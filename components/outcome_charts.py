"""Session outcomes by condition: one panel per outcome, a box and every session as a point, and the
table of tests and effect sizes."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.format import fmt, fmt_mean_sd, fmt_range, fmt_test, p_clause
from analysis.outcomes import ALL_OUTCOMES, TESTS, OutcomeComparison, outcomes_of
from components.chart import axis_suffix, figure, on_panel, panels
from components.palette import CONDITION, CONDITION_NAMES, CONDITION_SYMBOLS, rgba
from corpus import schema
from corpus.values import Undefined


def _short(condition: str) -> str:
    return condition.replace("_", " ")


AXIS_UNITS = {
    "final_accuracy": "share (0 to 1)",
    "route_coverage": "share (0 to 1)",
    "distance_weighted": "score (0 to 1)",
    "n_actions": "actions",
    "duration_min": "minutes",
    "route_deviation": "deviation score",
}


def outcome_data(sessions: pd.DataFrame) -> pd.DataFrame:
    """The figure's data, a row per session: its id, condition and split, and each outcome it shows."""
    return sessions[["session_id", "condition", "split", *outcomes_of(sessions)]]


def outcome_figure(sessions: pd.DataFrame) -> go.Figure:
    """Per outcome, a box per condition with every session as a point (click: its actions); the
    route deviation only where a session has one."""
    outcomes = outcomes_of(sessions)
    traces = []
    for i, outcome in enumerate(outcomes, start=1):
        for cond in schema.CONDITIONS:
            d = sessions[sessions["condition"].astype(str) == cond]
            values = pd.to_numeric(d[outcome], errors="coerce")
            ok = values.notna()
            n = int(ok.sum())
            if not n:
                continue
            x = [f"{_short(cond)}<br>n = {n}"] * n
            y = values[ok].tolist()
            traces.append(
                on_panel(
                    {
                        "type": "box",
                        "x": x,
                        "y": y,
                        "name": CONDITION_NAMES[cond],
                        "marker": {"color": CONDITION[cond]},
                        "fillcolor": rgba(CONDITION[cond], 0.15),
                        "boxpoints": False,
                        "hoverinfo": "skip",
                        "legendgroup": cond,
                        "showlegend": False,
                    },
                    i,
                    shared_y=False,
                )
            )
            traces.append(
                on_panel(
                    {
                        "type": "scatter",
                        "x": x,
                        "y": y,
                        "mode": "markers",
                        "name": CONDITION_NAMES[cond],
                        "legendgroup": cond,
                        "showlegend": i == 1,
                        "marker": {
                            "color": CONDITION[cond],
                            "symbol": CONDITION_SYMBOLS[cond],
                            "size": 7,
                            "line": {"width": 0.5, "color": "white"},
                        },
                        "customdata": [
                            [sid, outcome, fmt(v, 3, significant=True)] for sid, v in zip(d.loc[ok, "session_id"], y)
                        ],
                        "hovertemplate": "%{customdata[0]}: %{customdata[2]}<br>click: list its actions<extra>"
                        + CONDITION_NAMES[cond]
                        + "</extra>",
                    },
                    i,
                    shared_y=False,
                )
            )
    layout = panels(len(outcomes), [ALL_OUTCOMES[o][0] for o in outcomes], shared_y=False, spacing=0.07)
    layout["scattermode"] = "group"  # each condition's points beside its box
    for i, outcome in enumerate(outcomes, start=1):
        layout[f"yaxis{axis_suffix(i)}"].update(
            title={"text": AXIS_UNITS[outcome]},
            rangemode="tozero",
            **({"range": [0, 1.02]} if AXIS_UNITS[outcome].endswith("(0 to 1)") else {}),
        )
    return figure(traces, layout, height=420)


def _with_interval(e, digits: int = 2, significant: bool = False) -> str:
    """ "+0.18 (0.05 to 0.31)": an estimate with its interval, where it has one."""
    ci = fmt_range(e.interval, digits, missing="", significant=significant)
    return fmt(e.estimate, digits, signed=True, significant=significant) + (f" ({ci})" if ci else "")


def outcome_table(results: dict[str, OutcomeComparison | Undefined], test: str) -> pd.DataFrame:
    rows = []
    for outcome, r in results.items():
        label, unit = ALL_OUTCOMES[outcome]
        if isinstance(r, Undefined):
            rows.append({"outcome": f"{label} ({unit})", "test": str(r)})
            continue
        g = r.groups.set_index("condition")
        row = {"outcome": f"{label} ({unit})"}
        for cond in reversed(list(g.index)):  # the reference condition first
            mean_sd = fmt_mean_sd(g.loc[cond, "mean"], g.loc[cond, "sd"], 3, significant=True)
            row[f"{_short(cond)}: mean (SD), n"] = f"{mean_sd}, {int(g.loc[cond, 'n'])}"
            row[f"{_short(cond)}: median"] = fmt(g.loc[cond, "median"], 3, significant=True)
        treatment, reference = (list(g.index) + ["", ""])[:2]
        row[f"difference ({_short(treatment)} - {_short(reference)})"] = _with_interval(
            r.difference, 3, significant=True
        )
        row["test"] = f"{fmt_test(r.test)}, {p_clause(r.test.p_value)}"
        row[f"{r.effect.statistic} (95% CI)"] = _with_interval(r.effect)
        row["warnings"] = "; ".join(r.warnings)
        rows.append(row)
    return pd.DataFrame(rows)


def outcome_caption(results: dict, test: str) -> None:
    first = next((r for r in results.values() if not isinstance(r, Undefined)), None)
    if first is None:
        return
    treatment = _short(str(first.groups["condition"].iloc[0]))
    st.caption(
        f"{TESTS[test]}: {first.test.method}. Effect size: {first.effect.statistic}, {first.effect.method}; "
        f"95% interval: {first.effect.interval_method}. Computed by {first.test.provenance()}. "
        f"Positive differences and effects: higher in {treatment} sessions."
    )
