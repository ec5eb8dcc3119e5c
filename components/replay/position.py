"""Where the replay is: the session, the step, the map view and the route overlay, kept in
``st.session_state`` and in the URL (``?session=S01&step=12&view=both&route=1``), so a link opens
the same moment.

The browser reports the position only when the user stops (see :mod:`components.replay.player`);
this module keeps the two copies in step.
"""

from __future__ import annotations

import streamlit as st

from analysis.replay_payload import DEFAULT_POSITION, clean_position

SESSION = "replay_session"
POSITION = "replay_position"


def from_url() -> dict:
    """The position a link asks for (checked later against the session's length)."""
    qp = st.query_params
    return {"step": qp.get("step", 0), "view": qp.get("view", DEFAULT_POSITION["view"]), "route": qp.get("route")}


def reset_step() -> None:
    """Back to the first action (another session); the view and the overlay stay as they were."""
    st.session_state[POSITION] = {**DEFAULT_POSITION, **st.session_state.get(POSITION, {}), "step": 0}


def current(n_steps: int) -> dict:
    """The position in session state, checked and clamped to the session."""
    pos = clean_position(st.session_state.get(POSITION, DEFAULT_POSITION), n_steps) or dict(DEFAULT_POSITION)
    st.session_state[POSITION] = pos
    return pos


def store(pos: dict) -> None:
    """Keep a position (already checked) and put it in the URL."""
    st.session_state[POSITION] = pos
    sync_url(pos)


def sync_url(pos: dict) -> None:
    qp = st.query_params
    wanted = {"step": str(pos["step"]), "view": pos["view"]}
    for k, v in wanted.items():
        if qp.get(k) != v:
            qp[k] = v
    if pos["route"] and qp.get("route") != "1":
        qp["route"] = "1"
    elif not pos["route"] and "route" in qp:
        del qp["route"]
