"""Session outcomes by condition: one panel per outcome, a box and every session as a point, and the
table of tests and effect sizes."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.outcomes import OUTCOMES, TESTS, OutcomeComparison
from analysis.progress_model import p_text
from components.chart import axis_suffix, figure, on_panel, panels
from components.palette import CONDITION, CONDITION_NAMES, CONDITION_SYMBOLS, rgba
from corpus import schema
from corpus.values import Undefined, is_defined

SHORT = {"not_visible": "not visible", "visible": "visible"}
AXIS_UNITS = {"final_accuracy": "share (0 to 1)", "route_coverage": "share (0 to 1)", "distance_weighted": "score (0 to 1)",
              "n_actions": "actions", "duration_min": "minutes"}


def outcome_figure(sessions: pd.DataFrame) -> go.Figure:
    """Per outcome, a box per condition with every session as a point (click: its actions)."""
    outcomes = list(OUTCOMES)
    traces = []
    for i, outcome in enumerate(outcomes, start=1):
        for cond in schema.CONDITIONS:
            d = sessions[sessions["condition"].astype(str) == cond]
            values = pd.to_numeric(d[outcome], errors="coerce")
            ok = values.notna()
            n = int(ok.sum())
            if not n:
                continue
            x = [f"{SHORT[cond]}<br>n = {n}"] * n
            y = values[ok].tolist()
            traces.append(on_panel({"type": "box", "x": x, "y": y, "name": CONDITION_NAMES[cond], "marker": {"color": CONDITION[cond]},
                                    "fillcolor": rgba(CONDITION[cond], 0.15), "boxpoints": False, "hoverinfo": "skip",
                                    "legendgroup": cond, "showlegend": False}, i, shared_y=False))
            traces.append(on_panel({
                "type": "scatter", "x": x, "y": y, "mode": "markers", "name": CONDITION_NAMES[cond], "legendgroup": cond,
                "showlegend": i == 1, "marker": {"color": CONDITION[cond], "symbol": CONDITION_SYMBOLS[cond], "size": 7,
                                                 "line": {"width": 0.5, "color": "white"}},
                "customdata": [[sid, outcome] for sid in d.loc[ok, "session_id"]],
                "hovertemplate": "%{customdata[0]}: %{y:.3~f}<br>click: list its actions<extra>" + CONDITION_NAMES[cond] + "</extra>",
            }, i, shared_y=False))
    layout = panels(len(outcomes), [OUTCOMES[o][0] for o in outcomes], shared_y=False, spacing=0.07)
    layout["scattermode"] = "group"  # each condition's points beside its box
    for i, outcome in enumerate(outcomes, start=1):
        layout[f"yaxis{axis_suffix(i)}"].update(title={"text": AXIS_UNITS[outcome]}, rangemode="tozero",
                                                **({"range": [0, 1.02]} if AXIS_UNITS[outcome].endswith("(0 to 1)") else {}))
    return figure(traces, layout, height=420)


def _effect_text(e) -> str:
    ci = f"{e.low:.2f} to {e.high:.2f}" if is_defined(e.low) else "-"
    return f"{e.value:+.2f} ({ci})"


def outcome_table(results: dict[str, OutcomeComparison | Undefined], test: str) -> pd.DataFrame:
    rows = []
    for outcome, r in results.items():
        label, unit = OUTCOMES[outcome]
        if isinstance(r, Undefined):
            rows.append({"outcome": f"{label} ({unit})", "test": str(r)})
            continue
        g = r.groups.set_index("condition")
        row = {"outcome": f"{label} ({unit})"}
        for cond in ("not_visible", "visible"):
            if cond in g.index:
                row[f"{SHORT[cond]}: mean (SD), n"] = f"{g.loc[cond, 'mean']:.3g} ({g.loc[cond, 'sd']:.2g}), {int(g.loc[cond, 'n'])}"
                row[f"{SHORT[cond]}: median"] = f"{g.loc[cond, 'median']:.3g}"
        diff = r.difference
        row["difference (visible - not visible)"] = f"{diff.value:+.3g}" + (f" ({diff.low:.3g} to {diff.high:.3g})" if is_defined(diff.low) else "")
        stat = f"t({r.test.df:.1f}) = {r.test.statistic:.2f}" if test == "welch" else f"U = {r.test.statistic:.1f}"
        row["test"] = f"{stat}, {p_text(r.test.p)}"
        row[f"{r.effect.name} (95 % CI)"] = _effect_text(r.effect)
        row["warnings"] = "; ".join(r.warnings)
        rows.append(row)
    return pd.DataFrame(rows)


def outcome_caption(results: dict, test: str) -> None:
    first = next((r for r in results.values() if not isinstance(r, Undefined)), None)
    if first is None:
        return
    st.caption(f"{TESTS[test]}, two-sided: {first.test.method}. Effect size: {first.effect.name}, {first.effect.method}. "
               f"Computed by {first.test.package}. Positive differences and effects: higher in visible sessions.")
