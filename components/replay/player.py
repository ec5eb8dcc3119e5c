"""The replay player: a custom component that holds the whole session in the browser.

Stepping, playing, pausing, jumping, seeking and the map view all happen in the browser (see
``assets/player.js``); no step waits for the server. The component reports its position (step,
view, route overlay) only when the user stops, on pause or 300 ms after the last key; the report
reruns only the player's fragment, which keeps the position in session state and the URL.
"""

from __future__ import annotations

import hashlib

import pandas as pd
import streamlit as st

from analysis.replay import SessionFrames
from analysis.replay_payload import clean_position
from components import grid_canvas
from components.replay import position
from components.replay.assets import player_css, player_html, player_js
from components.replay.export import downloads
from components.replay.expressions import expression_panel, session_expressions
from corpus.loading.dataset import Corpus
from services.replay import session_payload

KEY_PREFIX = "replay_player_"

_mount_player = st.components.v2.component(
    "groundwork_replay_player",
    html=player_html(),
    css=player_css(),
    js=player_js(),
    isolate_styles=True,
)


def player_key(session_id: str) -> str:
    """The player's widget key for a session: one per session (the browser keeps the player while
    the session stays), made of hex digits because a session id may hold anything, including the
    ``__`` a component key must not contain."""
    return KEY_PREFIX + hashlib.sha256(session_id.encode("utf-8")).hexdigest()[:16]


def _reported() -> None:
    """A report from the browser: read in the fragment's body (see :func:`_player`)."""


def player_data(payload: dict, start: dict, title: str = "", note: str = "") -> dict:
    """What the player component (and its HTML export) receives: the session's payload with the
    palette, where to start, and the export's title and note."""
    return {
        **payload,
        "cells": {**payload["cells"], **grid_canvas.palette()},
        "start": start,
        "title": title,
        "note": note,
    }


def player(corpus: Corpus, frames: SessionFrames) -> None:
    """The player of one session, starting at the position in session state (or the link's), and
    the session's downloads."""
    start = position.current(frames.n_steps)
    position.sync_url(start)
    # The data (and so the start) stays the same while the fragment reruns on reports: the browser
    # keeps its player instead of building a new one.
    data = player_data(session_payload(corpus, frames), start)
    st.fragment(_player)(frames, data, corpus.synthetic, session_expressions(corpus, frames.session_id))


def _player(frames: SessionFrames, data: dict, synthetic: bool, expressions: pd.DataFrame) -> None:
    result = _mount_player(
        data=data, key=player_key(frames.session_id), on_position_change=_reported, width="stretch", height="content"
    )
    reported = clean_position(result.get("position"), frames.n_steps)
    if reported is not None and reported != st.session_state.get(position.POSITION):
        position.store(reported)
    # The reference expressions of the action the player stopped at (GMMT datasets only).
    expression_panel(expressions, position.current(frames.n_steps)["step"])
    downloads(frames, data, position.current(frames.n_steps), synthetic)
