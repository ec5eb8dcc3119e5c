"""What the Compare views share: run names and colours, label names, escaped hover text, the
chart filter that carries over to the Instances view, and replay links."""

from __future__ import annotations

import textwrap
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from analysis.compare.comparison import Comparison
from analysis.compare.items import ACTION_TYPE
from analysis.format import fmt
from corpus import schema
from corpus.escape import plotly_text

FILTER_KEY = "compare_filter"
DIMENSIONS = {**schema.DIMENSION_TITLES, ACTION_TYPE: "Next action type"}
RUN_HELP = "Runs by id (the run folder's name); the charts name them by model and setting."
PALETTE = px.colors.qualitative.Safe + px.colors.qualitative.Vivid


def run_label(cmp: Comparison, run_id: str) -> str:
    """'model · setting' of a run, or its id when two runs would read the same."""
    info = cmp.infos[run_id]
    label = f"{info.name} · {info.setting or 'no setting'}"
    same = [r for r in cmp.run_ids if f"{cmp.infos[r].name} · {cmp.infos[r].setting or 'no setting'}" == label]
    return label if len(same) == 1 else f"{label} ({run_id})"


def run_color(cmp: Comparison, run_id: str) -> str:
    return PALETTE[cmp.run_ids.index(run_id) % len(PALETTE)]


def label_name(dimension: str, code: str) -> str:
    if dimension == ACTION_TYPE:
        return code
    return f"{code} {schema.SHORT_NAMES.get(code, code)}"


plain = plotly_text  # untrusted text for a Plotly string (trace name, title, axis category)


def hover(text: object, width: int = 70) -> str:
    """Untrusted text for a Plotly hover label: escaped (Plotly reads tags in labels), wrapped."""
    if not isinstance(text, str) or not text.strip():
        return "(none)"
    lines = textwrap.wrap(text, width=width, max_lines=4, placeholder=" ...")
    return "<br>".join(plotly_text(line) for line in lines)


def replay_url(session_id: str, action_index: int) -> str:
    """A link that opens the Replay screen at this action (relative to the app's base path)."""
    return "replay?" + urlencode({"session": session_id, "step": int(action_index)})


def run_bars(cmp: Comparison, table: pd.DataFrame, x: str, y: str, ticks, y_title: str) -> go.Figure:
    """Grouped bars, one colour per run, with the table's ``ci_low``/``ci_high`` interval as error bars.
    ``ticks`` turns the ``x`` values into axis labels; customdata of a bar: [run, x value, n, the value
    as printed]."""
    fig = go.Figure()
    for run in cmp.run_ids:
        d = table[table["run"] == run]
        if d.empty:
            continue
        fig.add_trace(
            go.Bar(
                x=[ticks(v) for v in d[x]],
                y=d[y],
                name=plain(run_label(cmp, run)),
                marker_color=run_color(cmp, run),
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": d["ci_high"] - d[y],
                    "arrayminus": d[y] - d["ci_low"],
                },
                customdata=np.column_stack([np.full(len(d), run), d[x], d["n"], [fmt(v, 2) for v in d[y]]]),
                hovertemplate=f"%{{x}}<br>{y} %{{customdata[3]}}<br>n = %{{customdata[2]}}<extra></extra>",
            )
        )
    fig.update_yaxes(title_text=y_title, range=[0, 1.05])
    fig.update_layout(barmode="group")
    figure_layout(fig, height=360)
    return fig


def figure_layout(fig, height: int) -> None:
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 50, "b": 10},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
    )
