"""The sign-in cookies: a signed, expiring sign-in token kept in the browser, so a reload (or a link
opened in a new tab) keeps the user signed in until the token expires (``sign_in_hours``); and the
device tokens that make the browser known to the accounts that signed in from it, so their right
password always gets through, whatever others try from the same address (:mod:`corpus.store.signin`).

- The sign-in token is :meth:`corpus.store.Store.issue_token`'s: the account, its sign-in epoch and
  an expiry, signed by the server (a changed password or a disabled account voids it). Signing out
  drops it.
- The device tokens are :meth:`corpus.store.Store.issue_device_token`'s, one per account signed in
  from this browser (the last five), kept for the policy's ``device_ttl`` (180 days); signing out
  keeps them: the browser stays one the owner used.
- Streamlit cannot set a cookie from Python: a tiny custom component
  (``assets/sign_in_cookie.js``) writes them with ``document.cookie``: ``SameSite=Strict``,
  ``Path=/``, ``Secure`` when the page is served over https, ``Max-Age`` the token's lifetime. They
  are readable by the page's scripts (a cookie written by a script cannot be HttpOnly).
- The app reads them once per browser session from ``st.context.cookies`` (the cookies of the
  request that opened the session, which a later write does not change): a sign-in token this
  session has signed out of, or found invalid, is remembered and not used again; device tokens
  given since are remembered too. Signing out also revokes the sign-in tokens the session held
  (:func:`held`) in the store, so a copy of the cookie is refused too.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

COOKIE = "groundwork_sign_in"
DEVICE_COOKIE = "groundwork_device"
_WRITE = "auth_cookie_write"  # the writes the browser still has to do: (n, {name: (value or None, max-age, only if)})
_IGNORED = "auth_cookie_ignored"  # the sign-in cookie value this session must not sign in with
_DEVICE = "auth_device_tokens"  # the device tokens this session gave the browser since it started

# No HTML or CSS to isolate: a plain element, not a shadow root beside the page's other components.
_write_cookie = st.components.v2.component(
    "groundwork_sign_in_cookie",
    js=(Path(__file__).parent / "assets" / "sign_in_cookie.js").read_text(encoding="utf-8"),
    isolate_styles=False,
)


def _sent(name: str = COOKIE) -> str | None:
    """The cookie ``name`` the browser sent when this session started."""
    try:
        value = st.context.cookies.get(name)
    except Exception:  # noqa: BLE001 - no browser session (a bare script run)
        return None
    return str(value) if value else None


def token() -> str | None:
    """The sign-in token the browser holds, unless this session signed out of it or refused it."""
    sent = _sent()
    return sent if sent and sent != st.session_state.get(_IGNORED) else None


def device() -> str | None:
    """The device tokens the browser holds (as one value, tokens joined by ``~``), or None."""
    return st.session_state.get(_DEVICE) or _sent(DEVICE_COOKIE)


def _queue(name: str, value: str | None, max_age: int, only_if: str | None = None) -> None:
    n, writes = st.session_state.get(_WRITE) or (0, {})
    st.session_state[_WRITE] = (n + 1, {**writes, name: (value, max_age, only_if)})


def keep(new_token: str, seconds: float) -> None:
    """Have the browser keep ``new_token`` for ``seconds``."""
    _queue(COOKIE, new_token, int(seconds))


def keep_device(tokens: str, seconds: float) -> None:
    """Have the browser keep its device ``tokens`` (all of them, as one value) for ``seconds``."""
    st.session_state[_DEVICE] = tokens
    _queue(DEVICE_COOKIE, tokens, int(seconds))


def held() -> list[str]:
    """The sign-in tokens this session's browser may hold: the one it sent and the last one it was given."""
    pending = st.session_state.get(_WRITE)
    given = pending[1].get(COOKIE, (None,))[0] if pending else None
    return [t for t in dict.fromkeys((_sent(), given)) if t]


def forget(only_if: str | None = None) -> None:
    """Have the browser drop the sign-in cookie (only while it holds ``only_if``, when given), and never
    sign this session in with the one it sent. The device tokens stay."""
    if _sent():
        st.session_state[_IGNORED] = _sent()
    _queue(COOKIE, None, 0, only_if)


def write_pending() -> None:
    """Mount the writer for the latest cookie changes of this session (call once per run). It stays
    mounted, with the same key, until the next change, so the browser writes each change once."""
    pending = st.session_state.get(_WRITE)
    if pending is None:
        return
    n, writes = pending
    cookies = [
        {"name": name, "value": value, "max_age": max_age, "only_if": only_if}
        for name, (value, max_age, only_if) in writes.items()
    ]
    with st.sidebar:
        _write_cookie(data={"cookies": cookies}, key=f"auth_cookie_{n}", width="content", height="content")
