"""Accounts and signing in, as the pages offer them: every call goes to the label store the settings
name (:func:`services.store.get_store`), which checks who may do what.

- Signing in: :func:`sign_in` (a browser the account knows gets through; others behind the store's
  proofs of work, counted per client and name), :func:`device_tokens`, :func:`session_user`
  (the user a session's token signs in now: every run of an Annotate page asks), :func:`new_token`,
  :func:`sign_out`; the first lead from the setup token (:func:`claim_setup`).
- A lead's account administration: :func:`add_account`, :func:`account_action` (reset, disable,
  enable, delete, each answered with a sentence saying what was done), :func:`failed_sign_ins`.
"""

from __future__ import annotations

import pandas as pd

from corpus.store import AccessDenied, StoreError, User
from services.store import get_store

ACCOUNT_ACTIONS = ("Reset the password", "Disable", "Enable", "Delete")


def session_user(token: str | None) -> User | None:
    """The user ``token`` signs in now (None: malformed, forged, expired, revoked, or its account
    gone, disabled or changed since)."""
    return get_store().user_for_token(token) if token else None


def sign_in(username: str, password: str, client: str, device: str | None = None, proof: str | None = None) -> User:
    """The account, or :class:`corpus.store.SignInRefused` (the store's words: never whether the
    account exists), or :class:`corpus.store.ProofNeeded` (a browser the account does not know, past
    its free attempts: the password was not checked). ``device``: the device tokens the browser
    keeps; ``proof``: a solved challenge."""
    return get_store().sign_in(username, password, client=client, device=device, proof=proof)


def device_tokens(user: User, held: str | None) -> str | None:
    """What the browser ``user`` just signed in from keeps from now on: its device tokens with this
    account's (None if the account cannot sign in any more)."""
    try:
        return get_store().issue_device_token(user, held)
    except AccessDenied:
        return None


def device_seconds() -> float:
    """How long a browser stays known to an account after signing in to it."""
    return get_store().policy.device_ttl.total_seconds()


def new_token(user: User) -> str | None:
    """A sign-in token for ``user`` (None if the account cannot sign in any more)."""
    try:
        return get_store().issue_token(user)
    except AccessDenied:
        return None


def token_seconds() -> float:
    """How long a sign-in lasts."""
    return get_store().policy.token_ttl.total_seconds()


def sign_out(tokens: list[str]) -> None:
    """Revoke the tokens a browser held (a copy of its cookie is refused from then on)."""
    store = get_store()
    for token in tokens:
        store.revoke_token(token)


def has_lead() -> bool:
    return get_store().has_lead()


def claim_setup(token: str, username: str, password: str) -> User:
    """The first lead, from the one-time setup token the server printed."""
    return get_store().claim_setup(token, username, password)


def account_named(username: str) -> User | None:
    """The active account of that name (an identity provider's e-mail), or None."""
    return get_store().user(username)


def change_password(user: User, current: str, new: str, client: str) -> None:
    """Change ``user``'s own password: the current one is checked behind the sign-in's backoff and
    each attempt is logged (:meth:`corpus.store.Store.change_password`)."""
    get_store().change_password(user, current, new, client=client)


# -- a lead's administration ---------------------------------------------------------------------


def accounts(include_inactive: bool = True) -> list[User]:
    return get_store().users(include_inactive=include_inactive)


def human_coders() -> list[User]:
    """The accounts that code by hand (coders), for a new task."""
    return [u for u in get_store().users() if u.role == "coder" and u.kind == "human"]


def add_account(lead: User, username: str, password: str, role: str) -> User:
    if not lead.is_lead:
        raise AccessDenied(f"{lead.username} is a {lead.role}; only a lead can add accounts")
    return get_store().create_user(username, password, role)


def account_action(lead: User, name: str, action: str, password: str, sure: bool) -> str:
    """Do one of :data:`ACCOUNT_ACTIONS` on the account ``name``; what was done, as a sentence."""
    store = get_store()
    if action == "Reset the password":
        store.reset_password(lead, name, password)
        return f"Reset the password of '{name}'; its sign-ins end."
    if action == "Disable":
        store.disable_user(lead, name)
        return f"Disabled '{name}': it cannot sign in; its labels stay."
    if action == "Enable":
        store.enable_user(lead, name)
        return f"Enabled '{name}': it can sign in again."
    if not sure:
        raise StoreError("delete: tick the box to confirm")
    if store.delete_user(lead, name) == "removed":
        return f"Deleted '{name}' (it had no labels, gold or tasks)."
    return f"Deleted '{name}': kept as a tombstone that never signs in, so its labels keep its name."


def failed_sign_ins(lead: User, days: int = 30) -> pd.DataFrame:
    """The failed sign-ins of the last ``days`` per name typed (see
    :meth:`corpus.store.Store.failed_sign_ins`)."""
    return get_store().failed_sign_ins(lead, days=days)
