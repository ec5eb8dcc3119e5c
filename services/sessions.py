"""What a browser session holds in the server's memory for its uploads, released when the session ends.

Streamlit keeps a closed tab's session (its state and the files its uploaders received) for
``server.disconnectedSessionTTL`` (two minutes) in case it reconnects, and drops it only lazily
after that: eight visitors who uploaded large runs and left held a gigabyte for minutes. So what a
session keeps of its uploads (Compare's validated runs, for one) is held here, not in its state
(:func:`hold`, :func:`held`), and a watcher thread asks every :data:`CHECK_SECONDS` which of the
sessions that hold something, or that have an uploader on their page (:func:`watch`), are still
connected. A session gone for :data:`GRACE_SECONDS` (long enough for a reconnect after a network
blip) has what it held dropped, and its files removed from Streamlit's upload store; one line in the
log says so (logger ``groundwork.sessions``).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from typing import Any

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

log = logging.getLogger("groundwork.sessions")

CHECK_SECONDS = 2.0
GRACE_SECONDS = 10.0

_lock = threading.Lock()
_held: dict[tuple[str, str], dict[str, Any]] = {}  # (session id, holder key) -> {name: what it holds}
_watched: dict[str, float | None] = {}  # session id -> when it was first seen gone (None: connected)
_watcher: threading.Thread | None = None


HOLDER_KEY = "held_for_uploads"  # this session's own key among the held (its state's, so never another's)


def _session_id() -> str | None:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else None


def _holder() -> tuple[str, str] | None:
    """(the session's id, a key its state keeps): what this session holds is filed under both, so a
    session never reads another's, even where ids repeat (a test's app sessions)."""
    sid = _session_id()
    if sid is None:
        return None
    return sid, st.session_state.setdefault(HOLDER_KEY, secrets.token_hex(8))


def watch() -> None:
    """Have this session's uploads released once it ends (call where a page offers an uploader)."""
    global _watcher
    sid = _session_id()
    if sid is None:
        return
    with _lock:
        _watched[sid] = None
        if _watcher is None or not _watcher.is_alive():
            _watcher = threading.Thread(target=_watch_forever, name="groundwork-session-watch", daemon=True)
            _watcher.start()


def hold(name: str, value: Any) -> Any:
    """Keep ``value`` under ``name`` for this session until it ends; the value."""
    holder = _holder()
    if holder is None:  # no browser session (a script run): nothing to watch, nothing kept
        return value
    watch()
    with _lock:
        _held.setdefault(holder, {})[name] = value
    return value


def held(name: str, default: Any = None) -> Any:
    """What this session holds under ``name`` (``default`` if nothing)."""
    holder = _holder()
    with _lock:
        return _held.get(holder, {}).get(name, default) if holder else default


def holding() -> dict[str, list[str]]:
    """Which sessions hold what now (session id -> names), for the log and the tests."""
    with _lock:
        out: dict[str, list[str]] = {}
        for (sid, _), names in _held.items():
            out.setdefault(sid, []).extend(names)
        return {sid: sorted(names) for sid, names in out.items()}


def _active(session_id: str) -> bool:
    from streamlit.runtime import Runtime

    return Runtime.exists() and Runtime.instance().is_active_session(session_id)


def _release(session_id: str) -> None:
    from streamlit.runtime import Runtime

    with _lock:
        names = sorted(n for key in [k for k in _held if k[0] == session_id] for n in _held.pop(key))
        _watched.pop(session_id, None)
    if Runtime.exists():
        Runtime.instance().uploaded_file_mgr.remove_session_files(session_id)
    log.info("released what a closed session held for its uploads: %s", ", ".join(names) or "its uploaded files")


def sweep(now: float | None = None) -> list[str]:
    """Release what the sessions gone for :data:`GRACE_SECONDS` held; the sessions released."""
    now = time.monotonic() if now is None else now
    with _lock:
        ids = list(_watched)
    gone = []
    for sid in ids:
        if _active(sid):
            with _lock:
                if sid in _watched:
                    _watched[sid] = None
            continue
        with _lock:
            since = _watched.get(sid)
            if since is None and sid in _watched:
                _watched[sid] = since = now
        if since is not None and now - since >= GRACE_SECONDS:
            _release(sid)
            gone.append(sid)
    return gone


def _watch_forever() -> None:
    while True:
        time.sleep(CHECK_SECONDS)
        try:
            sweep()
        except Exception:  # noqa: BLE001 - the watcher must outlive any one failure
            log.exception("checking which sessions ended")
