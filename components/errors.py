"""What a visitor sees when a page fails unexpectedly: a short message with an error id, never a
traceback (it shows server paths and code). The details go to the server log (logger
``groundwork.errors``) under the same id, so a lead who reports the id can be helped.

The served app sets ``client.showErrorDetails = "none"`` (.streamlit/config.toml), so an error
outside a page's run (in a widget's callback) is shown by Streamlit without its details too. With
details turned on (a developer's server, the tests' AppTest), the error is raised as usual.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable

import streamlit as st

log = logging.getLogger("groundwork.errors")

CONTAINER_KEY = "gw-page-error"  # the message's container: class st-key-gw-page-error in the page


def details_shown() -> bool:
    """Whether Streamlit is set to show an error's details (a developer's server)."""
    return str(st.get_option("client.showErrorDetails")).lower() in ("full", "stacktrace", "true")


def show_failure(exc: BaseException, where: str) -> str:
    """Log ``exc`` with a new error id and tell the visitor in one short message; the id."""
    error_id = uuid.uuid4().hex[:8]
    log.error("error %s in %s: %s: %s", error_id, where, type(exc).__name__, exc, exc_info=exc)
    with st.container(key=CONTAINER_KEY):
        st.error(
            f"Something went wrong on this page (error {error_id}). Nothing you saved is lost. "
            "Reload the page to go on; if it happens again, give the error id to whoever runs this "
            "server: the details are in its log.",
            icon=":material/error:",
        )
    return error_id


def guarded(run: Callable[[], None], where: str) -> None:
    """Run a page; an unexpected error becomes :func:`show_failure`'s message (unless details are shown)."""
    try:
        run()
    except Exception as exc:  # noqa: BLE001 - every failure, reported with an id and logged
        if details_shown():
            raise
        show_failure(exc, where)
