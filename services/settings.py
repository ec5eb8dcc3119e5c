"""The app's settings: :class:`corpus.settings.Settings` read from the environment, then the app's
secrets (``st.secrets``, the same file the command lines read), then the defaults."""

from __future__ import annotations

import streamlit as st

from corpus.settings import Settings


def settings() -> Settings:
    """The settings now (read on each call, about a millisecond: a changed environment or secrets
    file takes effect on the next rerun)."""
    return Settings.load(st.secrets)


def report_refusal(user) -> str | None:  # noqa: ANN001 - a corpus.store.User or None
    """Why ``user`` (None: not signed in) may not build the reproduction report here, or None."""
    policy = settings().report_policy
    if policy == "anyone" or (user is not None and (policy == "signed-in" or user.role == "lead")):
        return None
    who = "a signed-in lead" if policy == "lead" else "you to be signed in"
    return f"Building the report on this server needs {who}: sign in on an Annotate page (e.g. Tasks)."
