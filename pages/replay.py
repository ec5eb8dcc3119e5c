"""Replay: step through a session on the grid canvas, with the chat, mental models and a timeline."""

import streamlit as st

from components.dataset import require_corpus, synthetic_banner
from components.replay import participants, player, session_frames, session_header, session_picker

corpus = require_corpus()
st.title("Replay")
synthetic_banner(corpus)

pick, about = st.columns([1, 2.6], vertical_alignment="bottom")
with pick:
    session_id = session_picker(corpus)
frames = session_frames(corpus, session_id) if session_id else None
if frames is not None:
    with about:
        session_header(frames)
        participants(frames)
    player(corpus, frames)
