"""Who is using the app: sign-in, sign-out, the first lead and page access (the forms; what they
ask of the label store is in :mod:`services.accounts`).

- While the label database has no lead, a one-time setup token is printed to the server console
  ("Groundwork setup token: ...") when the server starts; the first-run form turns it into the
  first lead.
  ``python -m corpus users add NAME --role lead`` does the same from the command line.
- :func:`require_user` is how a page asks for a signed-in user of some roles; it shows the sign-in
  form (or the first-run form) and stops the page otherwise. The user lives in
  ``st.session_state["auth_user"]`` beside the sign-in token the session was opened with
  (``"auth_token"``), and every run checks that token in the store (signature, expiry, revocation,
  the account's key, epoch and status): signing out elsewhere with the same cookie, a password
  change or reset, disabling or deleting the account, or the token's expiry ends an open session at
  its next run, and a role change takes effect at once.
- A browser that signed in to an account before keeps a device token for it (a second cookie), and
  the account's right password from it always gets through. From a browser the account does not
  know, past a few failures from the same client (or many on the name), the store asks for a proof
  of work first: the form shows why, the browser solves it on its own in a few seconds and the
  attempt goes again with it (no waiting for good, no puzzle).
- Signing in also gives the browser a signed, expiring token in a cookie
  (:mod:`components.sign_in_cookie`), so a reload or a new tab stays signed in for
  ``sign_in_hours``; a forged, expired or revoked token is refused and the cookie dropped. Signing
  out drops the cookie and revokes its token in the store, so a copy of the cookie taken before
  is refused as well (a changed password voids every token of the account).
- When an identity provider is configured in the secrets (an ``[auth]`` section), a
  "Sign in with ..." button uses ``st.login``; the provider's e-mail must match a store user's
  username (the lead creates those accounts without a password).
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from components import proof_of_work, sign_in_cookie
from corpus.escape import md_line, md_text
from corpus.store import AccessDenied, ProofNeeded, SignInRefused, StoreError, User
from services import accounts
from services.client import client_key

USER_KEY = "auth_user"
TOKEN_KEY = "auth_token"  # the sign-in token this session was opened with
CHALLENGE = "auth_challenge"  # (challenge, bits, the store's words) of a sign-in that needs a proof first
PROOF_KEY = "auth_proof"  # the proof of work's component
ROLE_NAMES = {"lead": "Lead", "coder": "Coder", "viewer": "Viewer (read-only)"}

__all__ = [
    "ROLE_NAMES",
    "TOKEN_KEY",
    "USER_KEY",
    "current_user",
    "require_user",
    "sign_in_form",
    "sign_out",
    "signed_in_user",
    "user_badge",
]


def _secret(*path: str) -> object | None:
    """A value from st.secrets, or None (no secrets file, no such key: never raises)."""
    try:
        node: object = st.secrets
        for key in path:
            node = node[key]  # type: ignore[index]
        return node
    except Exception:  # noqa: BLE001 - a missing secrets file raises its own error type
        return None


# -- the signed-in user -------------------------------------------------------------------------


def current_user() -> User | None:
    """The signed-in user, as the session's token signs in now (None if signed out, or if the token
    no longer signs anyone in: the session ends)."""
    held = st.session_state.get(USER_KEY)
    if held is None:
        return _cookie_user() or _provider_user()
    token = st.session_state.get(TOKEN_KEY)
    fresh = accounts.session_user(token)
    if fresh is None or fresh.id != held.id:
        _end_session(token)
        return None
    if fresh != held:
        st.session_state[USER_KEY] = fresh
    return fresh


def _end_session(token: str | None) -> None:
    """This session's token no longer signs in: forget the user, and have the browser drop the
    cookie if it still holds that token (not one a sign-in in another tab gave it since)."""
    st.session_state.pop(USER_KEY, None)
    st.session_state.pop(TOKEN_KEY, None)
    sign_in_cookie.forget(only_if=token)


def signed_in_user() -> User | None:
    """:func:`current_user`, without opening the label database when nobody can be signed in (no
    user in the session, no sign-in cookie)."""
    if st.session_state.get(USER_KEY) is None and sign_in_cookie.token() is None and not _provider_configured():
        return None
    return current_user()


def _cookie_user() -> User | None:
    """The user the browser's sign-in cookie signs in (once per session); a bad token is dropped."""
    token = sign_in_cookie.token()
    if token is None:
        return None
    user = accounts.session_user(token)
    if user is None:
        sign_in_cookie.forget()
        return None
    st.session_state[USER_KEY] = user
    st.session_state[TOKEN_KEY] = token
    return user


def _signed_in(user: User, cookie: bool = True) -> bool:
    """``user`` is signed in to this session with a new token, which the browser keeps for the next
    ones (``cookie``); False if the account cannot sign in any more (disabled in between)."""
    token = accounts.new_token(user)
    if token is None:
        return False
    st.session_state[USER_KEY] = user
    st.session_state[TOKEN_KEY] = token
    if cookie:
        sign_in_cookie.keep(token, accounts.token_seconds())
        device = accounts.device_tokens(user, sign_in_cookie.device())
        if device:  # from now on this browser is one the account knows
            sign_in_cookie.keep_device(device, accounts.device_seconds())
    return True


def sign_out() -> None:
    held = [t for t in dict.fromkeys([*sign_in_cookie.held(), st.session_state.get(TOKEN_KEY)]) if t]
    if held:
        accounts.sign_out(held)
    sign_in_cookie.forget()
    st.session_state.pop(USER_KEY, None)
    st.session_state.pop(TOKEN_KEY, None)
    for key in [k for k in st.session_state if str(k).startswith(("code_", "adj_"))]:
        del st.session_state[key]
    if _provider_configured() and _provider_logged_in():
        st.logout()


def _provider_configured() -> bool:
    return _secret("auth") is not None


def _provider_logged_in() -> bool:
    try:
        return bool(st.user.is_logged_in)
    except Exception:  # noqa: BLE001
        return False


def _provider_user() -> User | None:
    """The account of the identity provider's signed-in user (by e-mail), if any."""
    if not _provider_configured() or not _provider_logged_in():
        return None
    try:
        email = str(st.user.get("email") or "").strip()
    except Exception:  # noqa: BLE001
        return None
    user = accounts.account_named(email) if email else None
    if user is None or not _signed_in(user, cookie=False):  # the provider keeps its own sign-in
        return None
    return user


def _sign_in(proof: str | None = None) -> None:
    """The form's attempt (again with ``proof`` once the browser has solved the challenge it was
    given): signed in, or why not, or the challenge to solve first."""
    s = st.session_state
    username, password = s.get("auth_username", ""), s.get("auth_password", "")
    try:
        user = accounts.sign_in(username, password, client_key(), sign_in_cookie.device(), proof)
    except ProofNeeded as asked:
        s[CHALLENGE] = (asked.challenge, asked.bits, str(asked))
        s.pop("auth_error", None)
        return
    except SignInRefused as exc:
        s.pop(CHALLENGE, None)
        s["auth_error"] = str(exc)
        return
    s.pop(CHALLENGE, None)
    if not _signed_in(user):
        s["auth_error"] = "This account cannot sign in now; ask a lead."
        return
    s.pop("auth_error", None)


def _proved() -> None:
    """The browser solved the challenge: the same attempt again, with the proof."""
    answer, asked = proof_of_work.solved(PROOF_KEY), st.session_state.get(CHALLENGE)
    if answer is not None and asked is not None and answer[0] == asked[0]:
        _sign_in(f"{answer[0]}:{answer[1]}")


def _claim() -> None:
    s = st.session_state
    if s.get("setup_password", "") != s.get("setup_password2", ""):
        s["setup_error"] = "password: the two passwords differ"
        return
    try:
        user = accounts.claim_setup(s.get("setup_token", ""), s.get("setup_username", ""), s.get("setup_password", ""))
    except (AccessDenied, StoreError) as exc:
        s["setup_error"] = str(exc)
        return
    s.pop("setup_error", None)
    _signed_in(user)


def sign_in_form() -> None:
    """The first-run form while no lead exists, else the sign-in form (and a provider button)."""
    if not accounts.has_lead():
        st.subheader("Set up Groundwork")
        st.write(
            "No lead account exists yet. The server printed a one-time **setup token** to its console "
            "(the terminal running `make run` or `streamlit run`) when it started. Enter it to create the "
            "first lead account; or run `python -m corpus users add NAME --role lead` on the server "
            "(`python -m corpus users setup-token` prints a new token)."
        )
        with st.form("setup_form"):
            st.text_input("Setup token", key="setup_token", type="password")
            st.text_input("Username", key="setup_username")
            st.text_input("Password (8 characters or more)", key="setup_password", type="password")
            st.text_input("Password again", key="setup_password2", type="password")
            st.form_submit_button("Create the lead account", on_click=_claim, type="primary")
        if st.session_state.get("setup_error"):
            st.error(md_line(st.session_state["setup_error"]))
        return
    st.subheader("Sign in")
    with st.form("sign_in_form"):
        st.text_input("Username", key="auth_username")
        st.text_input("Password", key="auth_password", type="password")
        st.form_submit_button("Sign in", on_click=_sign_in, type="primary")
        if st.session_state.get("auth_error"):  # the store's words: never whether the account exists
            st.error(md_line(st.session_state["auth_error"]))
    asked = st.session_state.get(CHALLENGE)
    if asked is not None:  # the store's words, then the browser's work on its challenge
        challenge, bits, notice = asked
        st.info(md_line(notice), icon=":material/hourglass_top:")
        proof_of_work.prove(challenge, bits, PROOF_KEY, _proved)
    if _provider_configured():
        providers = [k for k, v in (_secret("auth") or {}).items() if isinstance(v, dict) or hasattr(v, "keys")]
        provider = providers[0] if providers else None
        label = f"Sign in with {provider}" if provider else "Sign in with your identity provider"
        if st.button(label, key="auth_provider"):
            try:
                st.login(provider) if provider else st.login()
            except Exception as exc:  # noqa: BLE001 - a misconfigured provider must not crash the page
                st.error(md_line(f"The identity provider is not usable: {exc}"))
        if _provider_logged_in():
            st.warning(
                "Your identity provider account has no Groundwork account yet: ask a lead to add your e-mail as a user."
            )
    st.caption("Accounts are created by a lead on the Tasks page.")


def user_badge(user: User) -> None:
    """Who is signed in, with a sign-out button and a form to change one's password, in the sidebar."""
    with st.sidebar:
        st.divider()
        st.caption(f"Signed in as **{md_text(user.display_name)}** ({ROLE_NAMES.get(user.role, user.role)})")
        st.button("Sign out", key="auth_sign_out", on_click=sign_out, icon=":material/logout:")
        with st.expander("Change my password"), st.form("auth_passwd", clear_on_submit=True):
            current = st.text_input("Current password", type="password", key="auth_pw_current")
            new = st.text_input("New password (8 characters or more)", type="password", key="auth_pw_new")
            again = st.text_input("New password again", type="password", key="auth_pw_again")
            if st.form_submit_button("Change the password"):
                try:
                    if new != again:
                        raise StoreError("new password: the two entries differ; the password was not changed")
                    accounts.change_password(user, current, new, client_key())
                except (StoreError, AccessDenied) as exc:
                    st.error(md_line(exc))
                else:
                    st.success("Your password is changed.")


def require_user(roles: Iterable[str] | None = None) -> User:
    """The signed-in user with one of ``roles``; otherwise show why and stop the page."""
    try:
        user = current_user()
    except Exception as exc:  # noqa: BLE001 - e.g. an unreachable PostgreSQL server
        st.error(md_line(f"The label database cannot be opened: {exc}"))
        st.stop()
    sign_in_cookie.write_pending()
    if user is None:
        sign_in_form()
        st.stop()
    user_badge(user)
    allowed = tuple(roles) if roles is not None else None
    if allowed and user.role not in allowed:
        need = " or ".join(ROLE_NAMES.get(r, r).lower() for r in allowed)
        st.warning(f"This page is for a {need}; you are signed in as a {ROLE_NAMES.get(user.role, user.role).lower()}.")
        st.stop()
    return user
