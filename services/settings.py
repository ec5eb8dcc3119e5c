"""The app's settings: :class:`corpus.settings.Settings` read from the environment, then the app's
secrets (``st.secrets``, the same file the command lines read), then the defaults."""

from __future__ import annotations

import streamlit as st

from corpus.settings import Settings


def settings() -> Settings:
    """The settings now (read on each call, about a millisecond: a changed environment or secrets
    file takes effect on the next rerun)."""
    return Settings.load(st.secrets)
