"""Where a visitor's heavy task stands in the server's queue (:mod:`services.jobs`): one line that says
its place while it waits, and what is said when it cannot be queued."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import streamlit as st

from components.auth import signed_in_user
from corpus.escape import md_line
from corpus.server.workqueue import Place
from services import jobs


class PlaceLine:
    """A line on the page that shows a waiting task's place (call it with the place), gone once the
    task runs (:meth:`done`)."""

    def __init__(self) -> None:
        self._slot = st.empty()

    def __call__(self, place: Place) -> None:
        self._slot.info(jobs.place_text(place), icon=":material/hourglass_top:")

    def done(self) -> None:
        self._slot.empty()


def not_started(exc: jobs.Busy, what: str) -> None:
    """Say that ``what`` was not started, and why (the person's share, or a full queue)."""
    st.warning(md_line(f"{what} did not start: {exc}."), icon=":material/block:")


T = TypeVar("T")


def in_turn(work: Callable[[str, PlaceLine], T], what: str) -> T:
    """``work(who, waiting)``: heavy work that waits for this visitor's turn in the server's queue
    (``who``, see :func:`services.jobs.owner`), its place shown meanwhile; the page stops, saying why,
    if it cannot be queued."""
    line = PlaceLine()
    try:
        result = work(jobs.owner(signed_in_user()), line)
    except jobs.Busy as exc:
        not_started(exc, what)
        st.stop()
    line.done()
    return result
