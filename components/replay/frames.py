"""A session's replay data for a screen, or the reason it cannot be replayed, shown for that
session only (the data itself comes from :mod:`services.replay`)."""

from __future__ import annotations

import streamlit as st

from analysis.replay import ReplayError, SessionFrames
from corpus.escape import md_line
from corpus.loading.dataset import Corpus
from services import replay


def session_frames(corpus: Corpus, session_id: str) -> SessionFrames | None:
    """The session's replay data, or None with the problem shown for this session only."""
    try:
        return replay.session_frames(corpus, session_id)
    except ReplayError as exc:
        st.error(md_line(exc), icon=":material/error:")
    except (KeyError, ValueError, IndexError) as exc:
        st.error(md_line(f"Session '{session_id}' cannot be replayed: {exc}"), icon=":material/error:")
    return None
