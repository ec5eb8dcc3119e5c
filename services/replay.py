"""The Replay screen's data: a session's frames and the player's JSON, once per dataset and session.

Both are keyed by the dataset's content hash and the session id, so every browser session on the
same data shares them; the payload is shared, so it is never changed in place (the player adds
its start position and palette to a copy).
"""

from __future__ import annotations

import streamlit as st

from analysis.replay import SessionFrames, frames_for
from analysis.replay_payload import player_payload
from corpus.loading.dataset import Corpus


@st.cache_resource(show_spinner="Preparing the replay...", max_entries=16)
def _frames(content_hash: str, session_id: str, _corpus: Corpus) -> SessionFrames:
    return frames_for(_corpus, session_id)


@st.cache_resource(show_spinner=False, max_entries=16)
def _payload(content_hash: str, session_id: str, _frames: SessionFrames) -> dict:
    return player_payload(_frames)


def session_frames(corpus: Corpus, session_id: str) -> SessionFrames:
    """The session's frames (raises :class:`analysis.replay.ReplayError`, or ``KeyError``,
    ``ValueError``, ``IndexError`` for a session that cannot be replayed)."""
    return _frames(corpus.content_hash, session_id, corpus)


def session_payload(corpus: Corpus, frames: SessionFrames) -> dict:
    """What the player receives for this session (:func:`analysis.replay_payload.player_payload`)."""
    return _payload(corpus.content_hash, frames.session_id, frames)
