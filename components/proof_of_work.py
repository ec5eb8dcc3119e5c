"""The browser's proof of work before a throttled sign-in is checked (:mod:`corpus.store.signin`):
a custom component (``assets/proof_of_work.js``) that solves the server's challenge in a Web
Worker, shows how far it is, and sends the answer back once, as a trigger."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

_mount = st.components.v2.component(
    "groundwork_proof_of_work",
    js=(Path(__file__).parent / "assets" / "proof_of_work.js").read_text(encoding="utf-8"),
    isolate_styles=False,
)


def prove(challenge: str, bits: int, key: str, on_solved: Callable[[], None]) -> None:
    """Work on ``challenge`` in the browser; ``on_solved`` runs once it is solved, with
    ``st.session_state[key]["solved"]`` the answer (``{"challenge": ..., "counter": ...}``)."""
    _mount(
        data={"challenge": challenge, "bits": bits},
        key=key,
        on_solved_change=on_solved,
        width="stretch",
        height="content",
    )


def solved(key: str) -> tuple[str, int] | None:
    """The answer the browser sent under ``key`` (challenge, counter), or None."""
    value = (st.session_state.get(key) or {}).get("solved")
    if not isinstance(value, dict):
        return None
    challenge, counter = value.get("challenge"), value.get("counter")
    if not isinstance(challenge, str) or not isinstance(counter, int) or isinstance(counter, bool) or counter < 0:
        return None
    return challenge, counter
