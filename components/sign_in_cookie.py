"""The sign-in cookie: a signed, expiring sign-in token kept in the browser, so a reload (or a link
opened in a new tab) keeps the user signed in until the token expires (``sign_in_hours``).

- The token is :meth:`corpus.store.Store.issue_token`'s: the account, its sign-in epoch and an
  expiry, signed by the server (a changed password or a disabled account voids it).
- Streamlit cannot set a cookie from Python: a tiny custom component
  (``assets/sign_in_cookie.js``) writes it with ``document.cookie``: ``SameSite=Strict``,
  ``Path=/``, ``Secure`` when the page is served over https, ``Max-Age`` the token's lifetime. It
  is readable by the page's scripts (a cookie written by a script cannot be HttpOnly).
- The app reads it once per browser session from ``st.context.cookies`` (the cookies of the
  request that opened the session, which a later write does not change): a token this session
  has signed out of, or found invalid, is remembered and not used again. Signing out also revokes
  the tokens the session held (:func:`held`) in the store, so a copy of the cookie is refused too.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

COOKIE = "groundwork_sign_in"
_WRITE = "auth_cookie_write"  # the write the browser still has to do: (n, value or None, max-age, only if)
_IGNORED = "auth_cookie_ignored"  # the cookie value this session must not sign in with

# No HTML or CSS to isolate: a plain element, not a shadow root beside the page's other components.
_write_cookie = st.components.v2.component(
    "groundwork_sign_in_cookie",
    js=(Path(__file__).parent / "assets" / "sign_in_cookie.js").read_text(encoding="utf-8"),
    isolate_styles=False,
)


def _sent() -> str | None:
    """The cookie the browser sent when this session started."""
    try:
        value = st.context.cookies.get(COOKIE)
    except Exception:  # noqa: BLE001 - no browser session (a bare script run)
        return None
    return str(value) if value else None


def token() -> str | None:
    """The sign-in token the browser holds, unless this session signed out of it or refused it."""
    sent = _sent()
    return sent if sent and sent != st.session_state.get(_IGNORED) else None


def _queue(value: str | None, max_age: int, only_if: str | None = None) -> None:
    n = (st.session_state.get(_WRITE) or (0,))[0] + 1
    st.session_state[_WRITE] = (n, value, max_age, only_if)


def keep(new_token: str, seconds: float) -> None:
    """Have the browser keep ``new_token`` for ``seconds``."""
    _queue(new_token, int(seconds))


def held() -> list[str]:
    """The tokens this session's browser may hold: the one it sent and the last one it was given."""
    pending = st.session_state.get(_WRITE)
    given = pending[1] if pending else None
    return [t for t in dict.fromkeys((_sent(), given)) if t]


def forget(only_if: str | None = None) -> None:
    """Have the browser drop the cookie (only while it holds ``only_if``, when given), and never sign
    this session in with the one it sent."""
    if _sent():
        st.session_state[_IGNORED] = _sent()
    _queue(None, 0, only_if)


def write_pending() -> None:
    """Mount the writer for the latest cookie change of this session (call once per run). It stays
    mounted, with the same key, until the next change, so the browser writes each change once."""
    pending = st.session_state.get(_WRITE)
    if pending is None:
        return
    n, value, max_age, only_if = pending
    with st.sidebar:
        _write_cookie(
            data={"name": COOKIE, "value": value, "max_age": max_age, "only_if": only_if},
            key=f"auth_cookie_{n}",
            width="content",
            height="content",
        )
