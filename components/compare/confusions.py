"""Confusion matrices per dimension (row-normalised, with counts) and per-label recall bars.

A click on a matrix cell or a bar sets the Instances view's filter (dimension, run, the person's
label and, for a cell, the model's)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.compare.comparison import Comparison
from analysis.format import fmt_share
from components.compare.common import (
    DIMENSIONS,
    FILTER_KEY,
    RUN_HELP,
    figure_layout,
    label_name,
    plain,
    run_bars,
    run_label,
)


def matrix_figure(counts: pd.DataFrame, dimension: str, title: str) -> go.Figure:
    """Row-normalised heatmap (share of the person's label), the count in each cell."""
    c = counts.to_numpy(dtype=float)
    rows = c.sum(axis=1, keepdims=True)
    share = np.divide(c, rows, out=np.zeros_like(c), where=rows > 0)
    x = [label_name(dimension, v) for v in counts.columns]
    y = [label_name(dimension, v) for v in counts.index]
    text = [[f"{fmt_share(share[i, j])}<br>{int(c[i, j])}" for j in range(c.shape[1])] for i in range(c.shape[0])]
    fig = go.Figure(
        go.Heatmap(
            z=share,
            x=x,
            y=y,
            text=text,
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=0,
            zmax=1,
            customdata=[
                [[str(counts.index[i]), str(counts.columns[j])] for j in range(c.shape[1])] for i in range(c.shape[0])
            ],
            hovertemplate="person: %{y}<br>model: %{x}<br>%{text}<extra></extra>",
            showscale=False,
        )
    )
    fig.update_yaxes(autorange="reversed", title_text="person")
    fig.update_xaxes(title_text="model", tickangle=-30)
    figure_layout(fig, height=150 + 44 * len(y))
    fig.update_layout(title={"text": title, "font": {"size": 13}})
    return fig


def recall_figure(per_label: pd.DataFrame, cmp: Comparison, dimension: str) -> go.Figure:
    return run_bars(cmp, per_label, "label", "recall", lambda v: label_name(dimension, v), "recall (95% Wilson CI)")


def _set_filter(dimension: str, run: str, truth: str, pred: str | None = None) -> None:
    st.session_state[FILTER_KEY] = {"dimension": dimension, "run": run, "truth": truth, "pred": pred}


def render(cmp: Comparison) -> None:
    c1, c2 = st.columns([1, 2])
    dims = [d for d in DIMENSIONS if (cmp.cat["dimension"] == d).any()]
    dim = c1.selectbox("Dimension", dims, format_func=DIMENSIONS.get, key="compare_conf_dim")
    runs = c2.multiselect("Runs", cmp.run_ids, default=cmp.run_ids[:3], key="compare_conf_runs", help=RUN_HELP)
    cols = st.columns(max(1, min(3, len(runs))))
    for k, run in enumerate(runs):
        with cols[k % len(cols)]:
            fig = matrix_figure(cmp.confusion(run, dim), dim, plain(run_label(cmp, run)))
            ev = st.plotly_chart(
                fig, key=f"compare_conf_{dim}_{run}", on_select="rerun", selection_mode="points", width="stretch"
            )
            pts = ev.selection.points if ev else []
            if pts and pts[0].get("customdata"):
                _set_filter(dim, run, *pts[0]["customdata"][:2])
    st.caption(
        "Rows: the person's label; columns: the run's. Each cell: share of the row, and the count. "
        "Click a cell to list those items under Instances."
    )
    st.subheader("Recall per label")
    ev = st.plotly_chart(
        recall_figure(cmp.per_label(dim), cmp, dim),
        key=f"compare_recall_{dim}",
        on_select="rerun",
        selection_mode="points",
        width="stretch",
    )
    pts = ev.selection.points if ev else []
    if pts and pts[0].get("customdata"):
        run, truth = pts[0]["customdata"][:2]
        _set_filter(dim, run, truth)
    if st.session_state.get(FILTER_KEY):
        st.info("Filter set from the chart: open the Instances tab to see those items.", icon=":material/filter_alt:")
