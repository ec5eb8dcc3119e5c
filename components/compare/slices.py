"""Accuracy per value of slice fields (role, condition, progress, and the prediction lines' own
fields such as question type and time span), as a table and a chart per field."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.compare.comparison import Comparison
from analysis.compare.slices import slice_wide, value_order
from components.compare.common import DIMENSIONS, FILTER_KEY, plain, run_bars, run_label
from corpus.escape import md_line

FIELD_NAMES = {"role": "role", "condition": "condition", "progress": "task progress", "split": "split"}


def slice_figure(table: pd.DataFrame, cmp: Comparison, field: str) -> go.Figure:
    fig = run_bars(cmp, table, "value", "accuracy", plain, "accuracy (95% Wilson CI)")
    fig.update_xaxes(
        title_text=plain(FIELD_NAMES.get(field, field)),
        categoryorder="array",
        type="category",
        categoryarray=[plain(v) for v in value_order(table["value"])],
    )
    return fig


def render(cmp: Comparison) -> None:
    fields = cmp.slice_fields()
    extra = [f for f in fields if f not in FIELD_NAMES]
    c1, c2 = st.columns([1, 2])
    dims = [d for d in DIMENSIONS if (cmp.cat["dimension"] == d).any()]
    dim = c1.selectbox("Accuracy of", dims, format_func=DIMENSIONS.get, key="compare_slice_dim")
    chosen = c2.multiselect(
        "By",
        fields,
        default=extra[:2] or ["role", "progress"],
        key="compare_slice_fields",
        format_func=lambda f: FIELD_NAMES.get(f, f),
        help="Any extra field on the prediction lines (question_type, time_span, ...) is offered "
        "here; two of them side by side give the SocialMindChange layout.",
    )
    cols = st.columns(max(1, min(2, len(chosen))))
    for k, field in enumerate(chosen):
        table = cmp.slices(field, dim)
        with cols[k % len(cols)]:
            st.markdown(f"**By {md_line(FIELD_NAMES.get(field, field))}**")  # a field of the prediction lines
            if table.empty:
                st.info("No item has this field.")
                continue
            ev = st.plotly_chart(
                slice_figure(table, cmp, field),
                key=f"compare_slice_{dim}_{field}",
                on_select="rerun",
                selection_mode="points",
                width="stretch",
            )
            pts = ev.selection.points if ev else []
            if pts and pts[0].get("customdata"):
                run, value = pts[0]["customdata"][:2]
                st.session_state[FILTER_KEY] = {"dimension": dim, "run": run, "field": field, "value": value}
            wide = slice_wide(table)
            wide.index = [run_label(cmp, r) for r in wide.index]
            st.dataframe(wide, width="stretch")
    st.caption("Each cell: accuracy (n items). Click a bar to list its items under Instances.")
