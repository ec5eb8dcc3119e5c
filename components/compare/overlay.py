"""One session on the action axis: per dimension the person's label track and one track per run,
mismatches ringed; the hover shows both rationales; a click opens that moment in Replay."""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from analysis.compare.comparison import Comparison
from analysis.compare.items import ACTION_TYPE, CATEGORIES
from analysis.drilldown import replay_link
from components.compare.common import DIMENSIONS, PALETTE, RUN_HELP, figure_layout, hover, label_name, plain, run_label
from corpus.escape import md_line
from services import datasets

PERSON = "person"
WINDOW = 60  # actions shown at once
MISMATCH = "#d62728"


def _colors(dimension: str) -> dict[str, str]:
    return {c: PALETTE[i % len(PALETTE)] for i, c in enumerate(CATEGORIES[dimension])}


def _person_hover(r) -> str:
    return (
        f"<b>Action {int(r.action_index) + 1}</b> · {r.role} · {r.h_action_type}: {hover(r.h_text, 60)}"
        f"<br><b>Person</b>: {hover(label_name(r.dimension, r.truth))}<br>person's rationale: {hover(r.h_rationale)}"
    )


def _run_hover(r, name: str) -> str:
    said = f"<br>predicted content: {hover(r.p_content, 60)}" if isinstance(r.p_content, str) else ""
    verdict = "matches the person" if r.correct else "differs from the person"
    return (
        f"<b>Action {int(r.action_index) + 1}</b> · {r.role}<br><b>{hover(name, 60)}</b>: "
        f"{hover(label_name(r.dimension, r.pred))} ({verdict}){said}<br>model's rationale: {hover(r.p_rationale)}"
        f"<br><b>Person</b>: {hover(label_name(r.dimension, r.truth))}<br>person's rationale: {hover(r.h_rationale)}"
    )


def overlay_figure(data: pd.DataFrame, tracks: dict[str, str], dims: list[str]) -> go.Figure:
    """``tracks``: run id -> display name, in order (each track is labelled by run id, the hover
    names the run in full). customdata of every point: [session, action]."""
    fig = make_subplots(
        rows=len(dims), cols=1, shared_xaxes=True, vertical_spacing=0.06, subplot_titles=[DIMENSIONS[d] for d in dims]
    )
    names = [PERSON, *(plain(r) for r in tracks)]
    for row, dim in enumerate(dims, start=1):
        d = data[data["dimension"] == dim]
        colors = _colors(dim)
        person = d.drop_duplicates("action_index")
        fig.add_trace(
            go.Scatter(
                x=person["action_index"] + 1,
                y=[PERSON] * len(person),
                mode="markers",
                name=PERSON,
                showlegend=False,
                marker={"color": [colors.get(c, "#999") for c in person["truth"]], "size": 9, "symbol": "square"},
                customdata=person[["session_id", "action_index"]].to_numpy(),
                hovertext=[_person_hover(r) for r in person.itertuples()],
                hoverinfo="text",
            ),
            row=row,
            col=1,
        )
        for run_id, name in tracks.items():
            r = d[d["run"] == run_id]
            wrong = ~r["correct"].to_numpy()
            fig.add_trace(
                go.Scatter(
                    x=r["action_index"] + 1,
                    y=[plain(run_id)] * len(r),
                    mode="markers",
                    name=plain(name),
                    showlegend=False,
                    marker={
                        "color": [colors.get(c, "#999") for c in r["pred"]],
                        "size": [11 if w else 9 for w in wrong],
                        "line": {"color": [MISMATCH if w else "rgba(0,0,0,0)" for w in wrong], "width": 2},
                        "symbol": ["diamond" if w else "circle" for w in wrong],
                    },
                    customdata=r[["session_id", "action_index"]].to_numpy(),
                    hovertext=[_run_hover(x, name) for x in r.itertuples()],
                    hoverinfo="text",
                ),
                row=row,
                col=1,
            )
        fig.update_yaxes(categoryorder="array", categoryarray=names[::-1], row=row, col=1)
        # The colour key: one legend entry per label of the dimension, grouped under its name.
        used = [c for c in colors if c in set(d["truth"]) | set(d["pred"])]
        for code in used:
            fig.add_trace(
                go.Scatter(
                    x=[None],
                    y=[None],
                    mode="markers",
                    name=plain(label_name(dim, code)),
                    legendgroup=dim,
                    legendgrouptitle={"text": plain(DIMENSIONS[dim])},
                    marker={"color": colors[code], "size": 9, "symbol": "square"},
                    hoverinfo="skip",
                ),
                row=row,
                col=1,
            )
    fig.update_xaxes(title_text="action", row=len(dims), col=1)
    # Room for the colour key above the tracks: a column of labels per dimension.
    key_rows = max((len(_colors(d)) for d in dims), default=0) + 1
    figure_layout(fig, height=110 + len(dims) * (40 + 26 * len(names)) + 20 * key_rows)
    fig.update_layout(hoverlabel={"align": "left"}, clickmode="event+select")
    return fig


def _one_task_note(data: pd.DataFrame) -> None:
    """Says so when the chosen runs predict only one of the two tasks in this session: the tracks
    are then that task's alone."""
    tasks = set(data["dimension"].eq(ACTION_TYPE))
    if tasks == {False}:
        st.caption(
            "The chosen runs have no next-action predictions in this session: the tracks are their mental-model labels."
        )
    elif tasks == {True}:
        st.caption(
            "The chosen runs have no mental-model predictions in this session: the track is their next action's type."
        )


def _with(link: str, params: dict[str, str]) -> str:
    """``link`` with the parameters that open the same dataset in a new browser session."""
    return link + ("&" + urlencode(params) if params else "")


def render(cmp: Comparison) -> None:
    sessions = cmp.sessions()
    if not sessions:
        st.info("No scored predictions to overlay.")
        return
    c1, c2 = st.columns([1, 2])
    sid = c1.selectbox(
        "Session",
        sessions,
        key="compare_overlay_session",
        format_func=lambda s: f"{s} · {cmp.truth.loc[cmp.truth['session_id'] == s, 'condition'].iat[0]}",
    )
    chosen = c2.multiselect("Runs", cmp.run_ids, default=cmp.run_ids[:4], key="compare_overlay_runs", help=RUN_HELP)
    data = cmp.overlay(sid)
    dims = [d for d in DIMENSIONS if d in set(data["dimension"])] if not data.empty else []
    if not chosen or not dims:
        st.info("Choose at least one run with predictions in this session.")
        return
    _one_task_note(data[data["run"].isin(chosen)])
    first, last = int(data["action_index"].min()) + 1, int(data["action_index"].max()) + 1  # as Replay numbers them
    if last - first > WINDOW:
        lo, hi = st.slider(
            "Actions",
            first,
            last,
            (first, first + WINDOW),
            key=f"compare_overlay_window_{sid}",
            help="The part of the session shown: a window keeps every action readable.",
        )
        data = data[data["action_index"].between(lo - 1, hi - 1)]
    fig = overlay_figure(data, {r: run_label(cmp, r) for r in chosen}, dims)
    event = st.plotly_chart(fig, key="compare_overlay", on_select="rerun", selection_mode="points", width="stretch")
    st.caption(
        "Colour: the label; a diamond ringed in red: the run's label differs from the person's. Tracks are "
        "named by run id; the legend gives each label's colour. Hover for both rationales; click a point for a link "
        "that opens that moment in Replay in a new tab."
    )
    points = event.selection.points if event else []
    if points and points[0].get("customdata"):
        session_id, index = points[0]["customdata"][:2]
        st.link_button(
            f"Open {md_line(session_id)}, action {int(index) + 1}, in Replay",  # a label reads Markdown
            _with(replay_link(str(session_id), int(index)), datasets.link_params(datasets.current_source())),
            icon=":material/open_in_new:",
        )
