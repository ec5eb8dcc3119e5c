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
    """Why ``user`` (None: not signed in) may not build the reproduction report here, or None. A
    visitor who is not signed in never builds one (they get the server's own report of a dataset it
    offers: :mod:`reports.prebuilt`); under the policy ``lead`` only a lead does."""
    if user is None:
        return (
            "Building a report needs you to be signed in (on an Annotate page, e.g. Code): a visitor who is not "
            "signed in gets the server's own report."
        )
    if settings().report_policy == "lead" and user.role != "lead":
        return "Building a report on this server needs a signed-in lead: you get the server's own report."
    return None
