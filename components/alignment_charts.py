"""Charts of mental-model alignment over task progress and by grounding act."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from analysis.alignment import MEASURES, ProgressModel
from corpus import schema

CONDITION_COLORS = {"visible": "#1f77b4", "not_visible": "#d62728"}
CONDITION_NAMES = {"visible": "visible (Guide saw the canvas)", "not_visible": "not visible"}


def _rgba(hex_color: str, alpha: float) -> str:
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i:i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


def progress_figure(curves: pd.DataFrame, measures: list[str]) -> go.Figure:
    """One panel per measure: share grounded against progress, a line per condition with its 95 % CI."""
    fig = make_subplots(rows=1, cols=len(measures), shared_yaxes=True, subplot_titles=[MEASURES[m] for m in measures])
    for col, measure in enumerate(measures, start=1):
        d = curves[curves["measure"] == measure]
        for cond in schema.CONDITIONS:
            c = d[d["condition"] == cond].sort_values("progress")
            if c.empty:
                continue
            color = CONDITION_COLORS[cond]
            fig.add_trace(go.Scatter(
                x=list(c["progress"]) + list(c["progress"][::-1]),
                y=list(c["ci_high"]) + list(c["ci_low"][::-1]),
                mode="lines", fill="toself", fillcolor=_rgba(color, 0.15), line={"width": 0}, hoverinfo="skip",
                showlegend=False, legendgroup=cond,
            ), row=1, col=col)
            fig.add_trace(go.Scatter(
                x=c["progress"], y=c["share"], mode="lines+markers", name=CONDITION_NAMES[cond],
                line={"color": color, "width": 2}, legendgroup=cond, showlegend=col == 1,
                customdata=c[["n", "ci_low", "ci_high"]].to_numpy(),
                hovertemplate="progress %{x:.0%}<br>share %{y:.0%} (95% CI %{customdata[1]:.0%}-%{customdata[2]:.0%})<br>n = %{customdata[0]}<extra></extra>",
            ), row=1, col=col)
        fig.update_xaxes(title_text="task progress", tickformat=".0%", range=[0, 1], row=1, col=col)
    fig.update_yaxes(title_text="share of actions", tickformat=".0%", range=[0, 1], row=1, col=1)
    fig.update_layout(height=360, margin={"l": 10, "r": 10, "t": 40, "b": 10}, legend={"orientation": "h", "y": -0.25})
    return fig


def model_table(fit: ProgressModel | str) -> None:
    if isinstance(fit, str):
        st.info(f"Logistic model: {fit}.")
        return
    names = {"Intercept": "intercept", "progress": "progress (0 to 1)", "visible": "visible condition", "progress:visible": "progress x visible"}
    df = fit.params.assign(term=fit.params["term"].map(names).fillna(fit.params["term"]))
    st.dataframe(
        df[["term", "coef", "se", "z", "p", "ci_low", "ci_high", "odds_ratio"]],
        hide_index=True, width="stretch",
        column_config={c: st.column_config.NumberColumn(format="%.3f") for c in ["coef", "se", "z", "p", "ci_low", "ci_high", "odds_ratio"]},
    )
    st.caption(
        f"Logistic regression `{fit.formula}` on {fit.n} annotated actions in {fit.n_sessions} sessions; "
        "standard errors clustered by session."
    )


def act_share_figure(shares: pd.DataFrame) -> go.Figure:
    """Grounding acts' share per condition (the paper's Fig. 3)."""
    order = [c for c in schema.GROUNDING_ACTS if c in set(shares["code"])]
    fig = go.Figure()
    for cond in schema.CONDITIONS:
        d = shares[shares["condition"] == cond].set_index("code").reindex(order)
        fig.add_trace(go.Bar(
            x=[schema.GROUNDING_ACTS[c] for c in order], y=d["share"].fillna(0), name=CONDITION_NAMES[cond],
            marker_color=CONDITION_COLORS[cond], customdata=d["n"].fillna(0),
            hovertemplate="%{x}: %{y:.0%} (n = %{customdata})<extra></extra>",
        ))
    fig.update_layout(barmode="group", yaxis={"tickformat": ".0%", "title": "share of coded actions"}, height=340,
                      margin={"l": 10, "r": 10, "t": 10, "b": 10}, legend={"orientation": "h", "y": -0.3})
    return fig


def alignment_by_act_figure(by_act: pd.DataFrame) -> go.Figure:
    """Perceived partner-intent alignment within each grounding act (the paper's Fig. 4 left)."""
    order = [c for c in schema.GROUNDING_ACTS if c in set(by_act["code"])]
    fig = go.Figure()
    for cond in schema.CONDITIONS:
        d = by_act[by_act["condition"] == cond].set_index("code").reindex(order)
        fig.add_trace(go.Bar(
            x=[schema.GROUNDING_ACTS[c] for c in order], y=d["share_aligned"], name=CONDITION_NAMES[cond],
            marker_color=CONDITION_COLORS[cond],
            error_y={"type": "data", "symmetric": False, "array": (d["ci_high"] - d["share_aligned"]).fillna(0),
                     "arrayminus": (d["share_aligned"] - d["ci_low"]).fillna(0)},
            customdata=d["n"].fillna(0), hovertemplate="%{x}: %{y:.0%} aligned (n = %{customdata})<extra></extra>",
        ))
    fig.update_layout(barmode="group", yaxis={"tickformat": ".0%", "title": "partner understood (p1)", "range": [0, 1]},
                      height=340, margin={"l": 10, "r": 10, "t": 10, "b": 10}, legend={"orientation": "h", "y": -0.3})
    return fig
