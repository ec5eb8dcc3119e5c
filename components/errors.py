"""What a visitor sees when a page fails unexpectedly: a short message with an error id, never a
traceback (it shows server paths and code). The details go to the server log (logger
``groundwork.errors``) under the same id, so a lead who reports the id can be helped.

A failure a page goes on from (an upload whose import fails unexpectedly) is logged the same way
(:func:`log_failure`) and told in a sentence that names the id (:func:`failure_sentence`).

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


def log_failure(exc: BaseException, where: str) -> str:
    """Log ``exc`` and its traceback under a new error id (``where``: what failed); the id."""
    error_id = uuid.uuid4().hex[:8]
    log.error("error %s in %s: %s: %s", error_id, where, type(exc).__name__, exc, exc_info=exc)
    return error_id


def failure_sentence(exc: BaseException, where: str, what: str) -> str:
    """Log ``exc`` as :func:`log_failure` does and say in one sentence that ``what`` failed, naming the
    error id (never the exception or a path): for a failure the page goes on from."""
    error_id = log_failure(exc, where)
    return (
        f"{what} failed unexpectedly (error {error_id}). If it happens again, give the error id to whoever "
        "runs this server: the details are in its log."
    )


def show_failure(exc: BaseException, where: str) -> str:
    """Log ``exc`` with a new error id and tell the visitor in one short message; the id."""
    error_id = log_failure(exc, where)
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
