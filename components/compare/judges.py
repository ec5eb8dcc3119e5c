"""Agreement of the judges who scored the runs' outputs on a 0-5 scale (judge_scores.jsonl)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.compare.comparison import Comparison
from analysis.format import fmt, fmt_interval
from components.compare.common import figure_layout, plain, run_label
from corpus.values import is_defined

METRICS = {
    "exact": "exact match",
    "within_1": "within 1",
    "weighted_kappa": "quadratic-weighted kappa",
    "linear_weighted_kappa": "linear-weighted kappa",
    "alpha": "Krippendorff's alpha (ordinal)",
}


def judge_matrix(m: pd.DataFrame) -> go.Figure:
    fig = go.Figure(
        go.Heatmap(
            z=m.to_numpy(),
            x=[str(c) for c in m.columns],
            y=[str(i) for i in m.index],
            text=m.to_numpy(),
            texttemplate="%{text}",
            colorscale="Blues",
            showscale=False,
            hovertemplate="%{y} vs %{x}: %{z} items<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed", title_text=plain(m.index.name), type="category")
    fig.update_xaxes(title_text=plain(m.columns.name), type="category")
    figure_layout(fig, height=330)
    return fig


def render(cmp: Comparison) -> None:
    table, matrices = cmp.judges()
    if not len(table):
        st.info(
            "No run carries judge scores. A run's judge_scores.jsonl gives each judge's 0-5 score of its outputs "
            "(session_id, action_index, task, criterion, judge, score); see docs/data-format.md."
        )
        return
    df = table.to_frame()
    shown = pd.DataFrame(
        {
            "run": [run_label(cmp, r) for r in df["run"]],
            "task": df["task"],
            "criterion": df["criterion"],
            "judges": [f"{a} x {b}" if a != "all" else "all judges" for a, b in zip(df["judge_a"], df["judge_b"])],
            "statistic": df["metric"].map(METRICS),
            "value": [fmt(v, 2) for v in df["estimate"]],
            "95% CI": [fmt_interval(ci, 2) if is_defined(ci[0]) else "" for ci in zip(df["ci_low"], df["ci_high"])],
            "n": df["n"],
            "method": df["method"],
        }
    )
    st.dataframe(shown, hide_index=True, width="stretch")
    keys = list(matrices)
    key = st.selectbox(
        "Judge pair",
        keys,
        key="compare_judge_pair",
        format_func=lambda k: f"{k[0]} · {k[1]} · {k[2]} · {k[3]} x {k[4]}",
    )
    st.plotly_chart(judge_matrix(matrices[key]), key="compare_judge_matrix", width="stretch")
    st.caption(
        "Rows: the first judge's score, columns: the second's (0-5). SynchToM reports exact match and "
        "within-1 agreement between its judge and other models."
    )
