"""Replay: step through a session on the grid canvas, with the chat, mental models and a timeline."""

import streamlit as st

from components.dataset import require_corpus, synthetic_banner
from components.replay import player, session_frames, session_header, session_picker

corpus = require_corpus()
st.title("Replay")
synthetic_banner(corpus)

session_id = session_picker(corpus)
frames = session_frames(corpus, session_id) if session_id else None
if frames is not None:
    session_header(frames)
    player(frames)
