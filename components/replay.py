"""The Replay screen's pieces: session picker and header, player controls, canvas, timeline strip,
transcript, mental-model panel and sharing.

State lives in ``st.session_state`` under the ``replay_*`` keys; the current step (a position in
the session's action list) is ``replay_step``, which the slider, the buttons, the keyboard, the
timeline and playback all move. The URL carries ``session`` and ``step`` so a link opens the same
moment. Everything that changes with the step runs inside one fragment (:func:`player`), so
stepping and playback rerun only that part of the page.
"""

from __future__ import annotations

import html
import time

import numpy as np
import plotly.graph_objects as go
import streamlit as st

from analysis.replay import (
    JUMP_KINDS,
    VIEW_TITLES,
    ReplayError,
    SessionFrames,
    all_states,
    frames_for,
    nearest_checkpoint,
    next_target,
    play_target,
    time_label,
)
from components import grid_canvas
from components.overview import corpus_key
from corpus import schema
from corpus.dataset import Corpus

SESSION = "replay_session"
STEP = "replay_step"
PENDING_STEP = "replay_pending_step"
PLAYING = "replay_playing"
ANCHOR = "replay_anchor"  # (position, wall-clock seconds) where playback (re)started
TICKING = "replay_ticking"  # run_every the player fragment was created with
SPEED = "replay_speed"
MODE = "replay_mode"
VIEW = "replay_view"
ROUTE_ON_FOLLOWER = "replay_route_on_follower"
TIMELINE = "replay_timeline"

MODES = {"uniform": "Uniform", "real_time": "Real time"}
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
VIEWS = {"guide": VIEW_TITLES["guide"], "follower": VIEW_TITLES["follower"], "both": "Both, side by side"}

JUMP_LABELS = {"message": "Message", "drawing": "Drawing", "checkpoint": "Checkpoint", "not_aligned": "Not aligned"}
ROLE_COLORS = {"guide": "#1d4ed8", "follower": "#047857"}
ALIGN_COLORS = {"aligned": "#16a34a", "not aligned": "#e11d48", "no label": "#94a3b8"}
# Alignment as numbers on a stepped colorscale: validating 1,000 colour strings per step is slow.
ALIGN_CODES = {name: k for k, name in enumerate(ALIGN_COLORS)}
ALIGN_SCALE = [[edge, color] for k, color in enumerate(ALIGN_COLORS.values()) for edge in (k / len(ALIGN_COLORS), (k + 1) / len(ALIGN_COLORS))]
TYPE_SYMBOLS = {"message": "circle", "draw": "square", "erase": "x", "undo": "triangle-left", "reset": "diamond"}


# -- data ---------------------------------------------------------------------------------------


@st.cache_resource(show_spinner="Preparing the replay...", max_entries=16)
def _frames(_corpus: Corpus, key: str, session_id: str) -> SessionFrames:
    return frames_for(_corpus, session_id)


def session_frames(corpus: Corpus, session_id: str) -> SessionFrames | None:
    """The session's replay data (computed once per loaded corpus and session), or None with the
    problem shown for this session only."""
    try:
        return _frames(corpus, corpus_key(corpus), session_id)
    except ReplayError as exc:
        st.error(str(exc), icon=":material/error:")
    except (KeyError, ValueError, IndexError) as exc:
        st.error(f"Session '{session_id}' cannot be replayed: {exc}", icon=":material/error:")
    return None


# -- session picker and header ------------------------------------------------------------------


def _int_or_none(value) -> int | None:
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


def _on_session_change() -> None:
    st.session_state[STEP] = 0
    st.session_state[PLAYING] = False


def session_picker(corpus: Corpus) -> str | None:
    """A select box over the sessions; the first visit takes session and step from the URL."""
    ids = list(corpus.sessions)
    if not ids:
        st.info("This dataset has no sessions.")
        return None
    if SESSION not in st.session_state or st.session_state[SESSION] not in corpus.sessions:
        wanted = st.query_params.get("session")
        if wanted is not None and wanted not in corpus.sessions:
            st.warning(f"The link names session '{wanted}', which is not in this dataset; showing '{ids[0]}'.")
        first_visit = SESSION not in st.session_state
        st.session_state[SESSION] = wanted if wanted in corpus.sessions else ids[0]
        step = _int_or_none(st.query_params.get("step"))
        if first_visit and wanted in corpus.sessions and step is not None:
            st.session_state[PENDING_STEP] = step
        else:
            st.session_state[STEP] = 0

    def label(sid: str) -> str:
        s = corpus.sessions[sid]
        return f"{sid}  ·  {s.condition.replace('_', ' ')}  ·  {s.split}  ·  {len(s.actions)} actions"

    sid = st.selectbox("Session", ids, key=SESSION, format_func=label, on_change=_on_session_change)
    if st.query_params.get("session") != sid:
        st.query_params["session"] = sid
    return sid


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v:.0%}"


def condition_sentence(condition: str) -> str:
    desc = schema.CONDITION_DESCRIPTIONS.get(condition, condition)
    return f"{desc[0].upper()}{desc[1:]}."


def session_header(frames: SessionFrames) -> None:
    final = frames.final_scores()
    visible = frames.condition == "visible"
    st.markdown(
        f":material/{'visibility' if visible else 'visibility_off'}: **Condition: {frames.condition.replace('_', ' ')}.** "
        f"{condition_sentence(frames.condition)}"
    )
    c = st.columns(5)
    c[0].metric("Split", frames.split)
    c[1].metric("Duration", time_label(frames.duration_s), help="Length of the session (m:ss)")
    c[2].metric("Actions", frames.n_steps)
    c[3].metric(
        "Final accuracy", _pct(final["accuracy"]),
        help="Share of the cells drawn at the end that lie on the target route"
        + ("" if frames.reported_accuracy is None else f" (the session file reports {frames.reported_accuracy:.0%})"),
    )
    c[4].metric("Route coverage", _pct(final["coverage"]), help="Share of the route's cells drawn at the end")


# -- step changes -------------------------------------------------------------------------------


def _reanchor(t: int) -> None:
    st.session_state[ANCHOR] = (int(t), time.monotonic())


def _seek(frames: SessionFrames, t: int | None) -> None:
    if t is None:
        return
    st.session_state[STEP] = frames.clamp(t)
    _reanchor(st.session_state[STEP])


def _step_by(frames: SessionFrames, delta: int) -> None:
    _seek(frames, int(st.session_state.get(STEP, 0)) + delta)


def _jump(frames: SessionFrames, kind: str) -> None:
    _seek(frames, next_target(frames, kind, int(st.session_state.get(STEP, 0))))


def _toggle_play(frames: SessionFrames) -> None:
    playing = not st.session_state.get(PLAYING, False)
    t = int(st.session_state.get(STEP, 0))
    if playing and t >= frames.n_steps - 1:
        t = 0  # play from the start once the end is reached
        st.session_state[STEP] = 0
    st.session_state[PLAYING] = playing
    _reanchor(t)


def _on_slider() -> None:
    _reanchor(int(st.session_state.get(STEP, 0)))


def _on_timeline(frames: SessionFrames) -> None:
    event = st.session_state.get(TIMELINE)
    points = (event or {}).get("selection", {}).get("points", []) if event else []
    for p in points:
        cd = p.get("customdata")
        if isinstance(cd, (list, tuple)):
            cd = cd[0] if cd else None
        pos = _int_or_none(cd)
        if pos is not None:
            _seek(frames, pos)
            return


def tick_interval() -> float:
    """Seconds between playback ticks: one step per tick when uniform, 0.25 s in real time."""
    speed = float(st.session_state.get(SPEED, 1.0))
    if st.session_state.get(MODE, "uniform") == "uniform":
        return max(0.1, 1.0 / speed)
    return 0.25


# -- the player ---------------------------------------------------------------------------------


def player(frames: SessionFrames) -> None:
    """Controls, canvas, timeline, transcript, mental model and sharing of the current step."""
    st.session_state.setdefault(PLAYING, False)
    st.session_state.setdefault(SPEED, 2.0)
    st.session_state.setdefault(MODE, "uniform")
    st.session_state.setdefault(VIEW, "guide")
    st.session_state.setdefault(ROUTE_ON_FOLLOWER, False)
    if PENDING_STEP in st.session_state:
        st.session_state[STEP] = frames.clamp(st.session_state.pop(PENDING_STEP))
    st.session_state[STEP] = frames.clamp(st.session_state.get(STEP, 0))
    run_every = tick_interval() if st.session_state[PLAYING] else None
    st.session_state[TICKING] = run_every
    st.fragment(_player_body, run_every=run_every)(frames)


def _advance_if_playing(frames: SessionFrames) -> None:
    if not st.session_state.get(PLAYING):
        return
    pos, wall = st.session_state.get(ANCHOR) or (int(st.session_state[STEP]), time.monotonic())
    t = play_target(frames, pos, time.monotonic() - wall, st.session_state[MODE], float(st.session_state[SPEED]))
    st.session_state[STEP] = t
    if t >= frames.n_steps - 1:
        st.session_state[PLAYING] = False


def _player_body(frames: SessionFrames) -> None:
    _advance_if_playing(frames)
    # The fragment's timer is set when the page runs: after play/pause (or a speed change while
    # playing) rerun the page so it matches.
    wanted = tick_interval() if st.session_state.get(PLAYING) else None
    if wanted != st.session_state.get(TICKING):
        st.rerun()

    n = frames.n_steps
    if n == 0:
        st.info("This session has no actions: only the map is shown.")
        _canvases(frames, None)
        return
    controls(frames)
    t = int(st.session_state[STEP])
    state = frames.state(t)

    # Both maps side by side need the full width: they go above the columns, and the current
    # action moves under the timeline. One map sits in the left column, the current action on top
    # of the right one.
    both = st.session_state[VIEW] == "both"
    if both:
        _canvases(frames, state)
    left, right = st.columns([3, 2], gap="medium")
    with left:
        if not both:
            _canvases(frames, state)
        timeline(frames, t)
        if both:
            current_action(frames, t)
    with right:
        if not both:
            current_action(frames, t)
        mental_model_panel(frames, t)
        transcript(frames, t)
    sharing(frames, t)
    if st.query_params.get("step") != str(t):
        st.query_params["step"] = str(t)


def controls(frames: SessionFrames) -> None:
    n = frames.n_steps
    t = int(st.session_state[STEP])
    playing = bool(st.session_state.get(PLAYING))
    c = st.columns([1.3, 1.6, 1.3, 6], vertical_alignment="bottom")
    c[0].button("Prev", key="replay_prev", icon=":material/skip_previous:", on_click=_step_by, args=(frames, -1),
                disabled=t <= 0, shortcut="Left", help="Previous action (left arrow)", width="stretch")
    c[1].button("Pause" if playing else "Play", key="replay_play", icon=":material/pause:" if playing else ":material/play_arrow:",
                on_click=_toggle_play, args=(frames,), shortcut="Space", help="Play or pause (space)", width="stretch",
                type="primary" if playing else "secondary")
    c[2].button("Next", key="replay_next", icon=":material/skip_next:", on_click=_step_by, args=(frames, 1),
                disabled=t >= n - 1, shortcut="Right", help="Next action (right arrow)", width="stretch")
    with c[3]:
        if n > 1:
            row = frames.row(t)
            st.slider(
                f"Action {row['index']} of {frames.transcript[-1]['index']}  ·  {row['time_label']} into the session",
                min_value=0, max_value=n - 1, key=STEP, on_change=_on_slider,
            )
    j = st.columns([1.1, 1.5, 1.5, 1.5, 1.7, 1.3, 1.3], vertical_alignment="bottom")
    j[0].markdown("Jump to the next")
    for col, (kind, name) in zip(j[1:5], JUMP_KINDS.items()):
        target = next_target(frames, kind, t)
        col.button(
            JUMP_LABELS[kind], key=f"replay_jump_{kind}", on_click=_jump, args=(frames, kind), disabled=target is None,
            icon=":material/keyboard_double_arrow_right:", width="stretch",
            help=f"Action {frames.row(target)['index']}" if target is not None else f"No {name} after this one",
        )
    j[5].selectbox("Playback", list(MODES), key=MODE, format_func=MODES.get, on_change=_on_slider,
                   help="Uniform: the same time for every action. Real time: the session's own pace, sped up.")
    mode = st.session_state[MODE]
    j[6].selectbox(
        "Speed", SPEEDS, key=SPEED, on_change=_on_slider,
        format_func=(lambda v: f"{v:g} actions/s") if mode == "uniform" else (lambda v: f"{v:g}x"),
    )


def canvas_height(grid_shape: tuple[int, int], width_px: int) -> int:
    """A figure height that fits the grid at ``width_px`` wide, plus title, ticks and legend."""
    rows, cols = grid_shape
    return int(min(820, max(320, width_px * rows / max(cols, 1) + 110)))


def _canvases(frames: SessionFrames, state) -> None:
    a, b = st.columns([3, 2], vertical_alignment="center")
    a.radio("Map", list(VIEWS), key=VIEW, format_func=VIEWS.get, horizontal=True, label_visibility="collapsed")
    b.toggle("Route on the Follower's map", key=ROUTE_ON_FOLLOWER,
             help="Overlay the target route on the Follower's drawing to see where it leaves the route")
    view = st.session_state[VIEW]
    views = ["guide", "follower"] if view == "both" else [view]
    cols = st.columns(len(views)) if len(views) > 1 else [st.container()]
    height = canvas_height(frames.layers.shape, 520 if len(views) > 1 else 580)
    for col, v in zip(cols, views):
        with col:
            grid_canvas.render(
                frames.grid_map, state, key=f"replay_canvas_{v}", view=v, layers=frames.layers, height=height,
                show_route=True if v == "guide" else st.session_state[ROUTE_ON_FOLLOWER],
            )
    if frames.layers.misplaced:
        st.caption(
            f"Outlined: **{', '.join(frames.layers.misplaced)}**, placed differently on the two maps "
            "(solid: where this map has it; dashed: where the other map has it)."
        )


# -- timeline -----------------------------------------------------------------------------------


def timeline_figure(frames: SessionFrames, t: int) -> go.Figure:
    """Actions per role over time (symbol: type, colour: the actor's alignment), checkpoints,
    route coverage below, and the current step as a vertical line."""
    tl = frames.timeline
    data = []
    for kind, symbol in TYPE_SYMBOLS.items():
        d = tl[tl["type"] == kind]
        if d.empty:
            continue
        data.append(go.Scatter(
            x=d["time"].to_numpy(), y=d["role"].to_numpy(), mode="markers", name=kind,
            marker={"symbol": symbol, "size": 9, "color": d["alignment"].map(ALIGN_CODES).to_numpy(dtype=np.int8),
                    "colorscale": ALIGN_SCALE, "cmin": -0.5, "cmax": len(ALIGN_COLORS) - 0.5, "line": {"width": 0.5, "color": "#334155"}},
            customdata=d["pos"].to_numpy(), showlegend=False,
            hovertemplate="action %{customdata} · %{x:.0f} s<br>%{y} " + kind + "<extra></extra>",
        ))
        data.append(go.Scatter(x=[None], y=[None], mode="markers", name=kind, hoverinfo="skip",
                               marker={"symbol": symbol, "size": 9, "color": "#ffffff", "line": {"width": 1.2, "color": "#334155"}}))
    for name, color in ALIGN_COLORS.items():
        data.append(go.Scatter(x=[None], y=[None], mode="markers", name=name, marker={"size": 9, "color": color, "symbol": "circle"}, hoverinfo="skip"))
    data.append(go.Scatter(
        x=tl["time"].to_numpy(), y=tl["coverage"].to_numpy(), mode="lines", line={"shape": "hv", "color": "#0f766e", "width": 2},
        name="route coverage", yaxis="y2", customdata=tl["pos"].to_numpy(),
        hovertemplate="action %{customdata} · %{x:.0f} s<br>coverage %{y:.0%}<extra></extra>",
    ))
    now = float(tl["time"].iat[t])
    shapes = [{"type": "line", "xref": "x", "yref": "paper", "x0": now, "x1": now, "y0": 0, "y1": 1, "line": {"color": "#f97316", "width": 2}}]
    annotations = []
    for pos, cp in frames.checkpoints:
        x = float(tl["time"].iat[pos])
        shapes.append({"type": "line", "xref": "x", "yref": "paper", "x0": x, "x1": x, "y0": 0, "y1": 1, "line": {"color": "#7c3aed", "width": 1, "dash": "dot"}})
        # Guide's labels above the strip, the Follower's in the gap above the coverage panel, so
        # checkpoints of both roles at about the same moment do not print over each other.
        annotations.append({"x": x, "y": 1.0 if cp.role == "guide" else 0.41, "xref": "x", "yref": "paper", "yanchor": "bottom",
                            "xanchor": "left", "showarrow": False, "text": f"{cp.role[0].upper()}{cp.index}",
                            "font": {"size": 9, "color": "#7c3aed"}, "bgcolor": "rgba(255,255,255,0.85)"})
    end = max(float(tl["time"].iat[-1]), frames.duration_s, 1.0)
    layout = dict(
        height=260, margin={"l": 8, "r": 8, "t": 22, "b": 8},
        xaxis={"range": [-0.01 * end, end * 1.01], "anchor": "y2", "ticksuffix": " s"},
        yaxis={"domain": [0.5, 1.0], "categoryorder": "array", "categoryarray": ["follower", "guide"], "fixedrange": True},
        yaxis2={"domain": [0.0, 0.4], "range": [0, 1.02], "tickformat": ".0%", "title": {"text": "coverage", "font": {"size": 10}}, "fixedrange": True},
        shapes=shapes, annotations=annotations,
        legend={"orientation": "h", "y": -0.16, "yanchor": "top", "x": 0, "font": {"size": 10}, "itemclick": False, "itemdoubleclick": False},
        clickmode="event+select", dragmode=False, hovermode="closest",
        uirevision=frames.session_id,
    )
    return go.Figure(data=data, layout=layout)


def timeline(frames: SessionFrames, t: int) -> None:
    st.plotly_chart(
        timeline_figure(frames, t), key=TIMELINE, on_select=lambda: _on_timeline(frames), selection_mode="points",
        width="stretch", config={"displaylogo": False, "displayModeBar": False},
    )
    st.caption("Click an action or the coverage curve to go there. Dotted lines: checkpoints (G1 = the guide's first, F1 = the follower's first).")


# -- transcript and mental model ----------------------------------------------------------------

TRANSCRIPT_CSS = """
<style>
.rp-transcript{height:360px;overflow-y:auto;position:relative;border:1px solid rgba(49,51,63,.15);border-radius:.5rem;padding:4px;font-size:.88rem;line-height:1.3}
.rp-row{display:flex;gap:.5rem;padding:3px 6px;border-radius:6px;border-left:3px solid transparent}
.rp-row.rp-na{border-left-color:#e11d48}
.rp-row.rp-cur{background:#fff7ed;box-shadow:inset 0 0 0 2px #f97316}
.rp-time{color:#64748b;font-variant-numeric:tabular-nums;min-width:2.8rem}
.rp-role{font-weight:600;min-width:4.6rem}
.rp-role.guide{color:#1d4ed8}.rp-role.follower{color:#047857}
.rp-act{color:#475569;font-style:italic}
</style>
"""


def transcript_rows_html(frames: SessionFrames) -> list[tuple[str, str]]:
    """One HTML row per action, split where the current row's ``rp-cur`` class goes (computed once per session)."""
    rows = frames._cache.get("transcript_html")
    if rows is None:
        rows = []
        for r in frames.transcript:
            text = html.escape(r["text"])
            body = text if r["type"] == "message" else f'<span class="rp-act">{r["icon"]} {text}</span>'
            na = " rp-na" if r["aligned"] is False else ""
            rows.append((
                f'<div class="rp-row{na}',
                f'" data-pos="{r["pos"]}"><span class="rp-time">{r["time_label"]}</span>'
                f'<span class="rp-role {r["role"]}">{r["role"]}</span><span>{body}</span></div>',
            ))
        frames._cache["transcript_html"] = rows
    return rows


def transcript_html(frames: SessionFrames, t: int) -> str:
    rows = transcript_rows_html(frames)
    body = "".join(head + (" rp-cur" if i == t else "") + tail for i, (head, tail) in enumerate(rows))
    # Keep the current row in view: scroll the box (not the page) so the row sits a third down.
    script = (
        "<script>(function(){const b=document.getElementById('rp-transcript');if(!b)return;"
        "const c=b.querySelector('.rp-cur');if(c){b.scrollTop=Math.max(0,c.offsetTop-b.clientHeight/3);}})();</script>"
    )
    return f'{TRANSCRIPT_CSS}<div class="rp-transcript" id="rp-transcript" data-current="{t}">{body}</div>{script}'


def transcript(frames: SessionFrames, t: int) -> None:
    st.markdown("**Transcript**")
    st.html(transcript_html(frames, t), unsafe_allow_javascript=True)


def current_action(frames: SessionFrames, t: int) -> None:
    r = frames.row(t)
    with st.container(border=True, key="replay_current"):
        st.markdown(
            f"**Action {r['index']}** · {r['time_label']} · :{'blue' if r['role'] == 'guide' else 'green'}[**{r['role']}**] · {r['type']}"
        )
        if r["type"] == "message":
            st.markdown(f"> {r['text']}")
        else:
            st.markdown(f"{r['icon']} {r['text'].capitalize()}; {frames.timeline['n_drawn'].iat[frames.clamp(t)]} cells on the canvas; "
                        f"route coverage {_pct(frames.coverage(t))}.")


def _label_line(title: str, label) -> str:
    code = label.code
    text = label.other_text if code == schema.OTHER and label.other_text else label.text
    return f"**{title}:** `{code}` {text}"


def mental_model_panel(frames: SessionFrames, t: int) -> None:
    r = frames.row(t)
    mm = frames.mental_models[t]
    st.markdown(f"**Mental model of the {r['role']}** at this action")
    if mm is None:
        st.caption("No annotation for this action.")
    else:
        lines = [
            _label_line("Team goal", mm.team_goal),
            _label_line("Partner intent", mm.partner_intent),
            _label_line("Self-reasoning", mm.self_reasoning),
        ]
        if mm.aligned:
            lines.append("**On the same page:** :green[yes]")
        else:
            reasons = "; ".join(f"`{x.code}` {x.other_text or x.text}" for x in mm.misalignment_reasons) or "no reason given"
            lines.append(f"**On the same page:** :red[no] ({reasons})")
        st.markdown("  \n".join(lines))
        if mm.rationale:
            st.markdown(f"**Rationale:** _{html.escape(mm.rationale)}_")
    anchor = nearest_checkpoint(frames, t, r["role"])
    if anchor is None:
        st.caption("No in-session checkpoint responses in this session.")
        return
    pos, cp = anchor
    where = "this action" if pos == t else f"{abs(pos - t)} action{'s' if abs(pos - t) != 1 else ''} {'later' if pos > t else 'earlier'}"
    with st.expander(f"Memory anchor: checkpoint {cp.index} ({cp.role}, {cp.progress:.0%} drawn, {where})", expanded=True):
        parts = [
            f"**{schema.DIMENSION_TITLES[d]}:** {getattr(cp, d) or '(no answer)'}"
            for d in ("team_goal", "partner_intent", "self_reasoning")
        ]
        st.markdown("  \n".join(parts))
        st.caption(f"Answered at {time_label(cp.elapsed_s)}, at action {cp.action_index}.")


# -- sharing ------------------------------------------------------------------------------------


def _captions(frames: SessionFrames) -> list[str]:
    out = []
    for r in frames.transcript:
        text = r["text"] if len(r["text"]) <= 90 else r["text"][:87] + "..."
        out.append(f"action {r['index']} · {r['time_label']} · {r['role']}: {html.escape(text)}")
    return out


def sharing(frames: SessionFrames, t: int) -> None:
    view = st.session_state.get(VIEW, "both")
    export_view = "guide" if view == "both" else view
    show_route = True if export_view == "guide" else bool(st.session_state.get(ROUTE_ON_FOLLOWER))
    r = frames.row(t)
    stem = f"{frames.session_id}-{export_view}"
    with st.expander("Share this session", icon=":material/share:"):
        st.caption(
            f"Exports use the {VIEW_TITLES[export_view]}. The link in the address bar opens this session at this action."
        )
        c = st.columns(3)
        c[0].download_button(
            "Frame as PNG", key="replay_png", icon=":material/image:", on_click="ignore", mime="image/png",
            file_name=f"{stem}-action{r['index']}.png",
            data=lambda: grid_canvas.to_png(
                frames.grid_map, frames.state(t), view=export_view, show_route=show_route, layers=frames.layers,
                caption=f"{frames.session_id} ({frames.condition.replace('_', ' ')}) · action {r['index']} · {r['time_label']} · {r['role']} {r['type']}",
            ),
        )
        c[1].download_button(
            "Session as HTML animation", key="replay_html", icon=":material/movie:", on_click="ignore", mime="text/html",
            file_name=f"{stem}.html",
            data=lambda: grid_canvas.animation_html(
                frames.grid_map, all_states(frames), view=export_view, show_route=show_route, captions=_captions(frames),
                title=f"{frames.session_id} · {condition_sentence(frames.condition)}",
            ),
        )
        c[2].download_button(
            "Session as GIF", key="replay_gif", icon=":material/gif_box:", on_click="ignore", mime="image/gif",
            file_name=f"{stem}.gif",
            data=lambda: grid_canvas.to_gif(
                frames.grid_map, (frames.state(s) for s in range(frames.n_steps)), view=export_view, show_route=show_route,
            ),
        )
