"""The replay data of a session, computed once per loaded dataset and session."""

from __future__ import annotations

import streamlit as st

from analysis.replay import ReplayError, SessionFrames, frames_for
from components.overview import corpus_key
from components.replay.payload import player_payload
from corpus.dataset import Corpus


@st.cache_resource(show_spinner="Preparing the replay...", max_entries=16)
def _frames(_corpus: Corpus, key: str, session_id: str) -> SessionFrames:
    return frames_for(_corpus, session_id)


@st.cache_resource(show_spinner=False, max_entries=16)
def _payload(_frames: SessionFrames, key: str, session_id: str) -> dict:
    return player_payload(_frames)


def session_frames(corpus: Corpus, session_id: str) -> SessionFrames | None:
    """The session's replay data, or None with the problem shown for this session only."""
    try:
        return _frames(corpus, corpus_key(corpus), session_id)
    except ReplayError as exc:
        st.error(str(exc), icon=":material/error:")
    except (KeyError, ValueError, IndexError) as exc:
        st.error(f"Session '{session_id}' cannot be replayed: {exc}", icon=":material/error:")
    return None


def session_payload(corpus: Corpus, frames: SessionFrames) -> dict:
    """What the player receives for this session (built once per loaded dataset and session; shared,
    so never changed in place)."""
    return _payload(frames, corpus_key(corpus), frames.session_id)
