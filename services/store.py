"""The open label store: one :class:`corpus.store.Store` per process and database.

While the database has no lead, a one-time setup token is printed to the server console once per
process (``make run`` prints it before the server starts, with
``python -m corpus users setup-token``, and turns the app's own announcement off): the first-run
form turns it into the first lead.
"""

from __future__ import annotations

import sys

import streamlit as st

from corpus.settings import Settings
from corpus.store import SETUP_TOKEN_ISSUED, Store, setup_notice
from services.settings import settings

# Setup tokens already printed by this process, per database URL.
_ANNOUNCED: dict[str, str] = {}
_started = False


@st.cache_resource(show_spinner=False, max_entries=8)
def _open(url: str, sign_in_hours: float, proof_bits: int, _settings: Settings) -> Store:
    return _settings.open_store()


def get_store() -> Store:
    """The label store the settings name (opened once per process and database)."""
    s = settings()
    store = _open(s.database_url, float(s.sign_in_hours), s.sign_in_proof_bits, s)
    if s.announce_setup_token:
        announce_setup_token(store)
    return store


def announce_setup_token(store: Store) -> str | None:
    """Print a one-time setup token to the server console while no lead exists (once per process).
    A token issued already (by another replica on the same database, or by ``make run``) is kept:
    this process says so instead of replacing it, so the token printed first keeps working."""
    if store.url in _ANNOUNCED:
        return _ANNOUNCED[store.url] or None
    if store.has_lead():
        return None
    token = store.issue_setup_token(replace=False)
    if token is None:
        if store.has_setup_token():
            _ANNOUNCED[store.url] = ""
            print(SETUP_TOKEN_ISSUED, file=sys.stdout, flush=True)
        return None
    _ANNOUNCED[store.url] = token
    print(setup_notice(token), file=sys.stdout, flush=True)
    return token


def announce_at_start() -> None:
    """The app's first run in a process: open the store, so the setup token (if one is needed) is
    printed now rather than when someone first opens an Annotate page. Never raises: an unreachable
    database is reported by the pages that need it."""
    global _started
    if _started:
        return
    _started = True
    try:
        if settings().announce_setup_token:
            get_store()
    except Exception as exc:  # noqa: BLE001 - e.g. PostgreSQL not reachable yet
        print(f"Groundwork: the label database cannot be opened yet ({exc})", file=sys.stderr, flush=True)
