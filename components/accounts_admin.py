"""The lead's administration of accounts: who has one, adding one, resetting, disabling, enabling
and deleting one (each answered with a sentence saying what was done), and the failed sign-ins.
What each action does in the label store is in :mod:`services.accounts`."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from corpus.escape import md_line
from corpus.store import ROLES, AccessDenied, StoreError, User
from services import accounts


def users_admin(lead: User) -> None:
    """The accounts, a form to add one, one to reset, disable, enable or delete one, and the failed
    sign-ins."""
    people = accounts.accounts()
    st.dataframe(
        pd.DataFrame([{"username": u.username, "role": u.role, "kind": u.kind, "status": u.status} for u in people]),
        hide_index=True,
        width="stretch",
    )
    add_account_form(lead, "ta_new_user")
    account_actions(lead, [u.username for u in people if u.status != "deleted"])
    failed_sign_ins(accounts.failed_sign_ins(lead))


def failed_sign_ins(failed: pd.DataFrame) -> None:
    """The failed sign-ins (and password changes) of the last 30 days per name typed (the server log has
    each one)."""
    st.markdown("**Failed sign-ins** (last 30 days)")
    if failed.empty:
        st.caption("None.")
        return
    shown = failed.assign(
        account=[
            name if known else f"{name} (no such account)"
            for name, known in zip(failed["account"], failed["is_account"])
        ]
    )
    st.dataframe(
        shown.drop(columns="is_account"),
        hide_index=True,
        width="stretch",
        key="ta_failed_sign_ins",
        column_config={
            "account": "Name typed",
            "failures_24h": "Last 24 h",
            "failures_30d": "Last 30 days",
            "known_devices": "Known browsers",
            "password_changes": "Password changes",
            "clients": "Clients",
            "last_failure": "Last failure",
            "clients_proving": "Proving now",
        },
    )
    st.caption(
        "A browser that signed in to an account before always gets through with the right password. Any other "
        "browser, after five failures on a name from its address (or once the name failed ten times in the hour, "
        "or the address failed on five names), proves work before its password is checked: a few seconds of the "
        'browser\'s time, longer with each failure, never a lockout. "Known browsers" counts failures from '
        'browsers the account knew; "Password changes" wrong current passwords (five free, then a wait); '
        '"Proving now" the clients that must prove work on the name now. Each failure is in the server log '
        "(groundwork.signin)."
    )


def accounts_title(lead: User) -> str:
    """The Accounts section's title, with the failed sign-ins of the last day when there are any."""
    failed = accounts.failed_sign_ins(lead, days=1)
    n = int(failed["failures_24h"].sum()) if not failed.empty else 0
    return f"Accounts ({n} failed sign-in{'s' * (n != 1)} in the last 24 h)" if n else "Accounts"


def add_account_form(lead: User, key: str, role: str = "coder") -> None:
    """A form to add one account (``role`` chosen at first); once added, the page reruns and says so."""
    with st.form(key, clear_on_submit=True):
        c1, c2, c3 = st.columns(3)
        name = c1.text_input("Username")
        pw = c2.text_input("Password (8 characters or more)", type="password")
        chosen = c3.selectbox("Role", ROLES, index=ROLES.index(role))
        if st.form_submit_button("Add account", icon=":material/person_add:"):
            try:
                accounts.add_account(lead, name, pw, chosen)
            except (StoreError, AccessDenied) as exc:
                st.error(md_line(exc))
            else:
                st.session_state["ta_msg"] = f"Added {chosen} '{name.strip()}'."
                st.rerun()


def account_actions(lead: User, names: list[str]) -> None:
    with st.form("ta_account", clear_on_submit=True):
        c1, c2, c3 = st.columns(3)
        name = c1.selectbox("Account", names)
        action = c2.selectbox("Action", accounts.ACCOUNT_ACTIONS)
        password = c3.text_input("New password (for a reset)", type="password")
        sure = st.checkbox("Yes, delete this account (an account with labels is kept as a tombstone)")
        if st.form_submit_button("Apply", icon=":material/manage_accounts:"):
            try:
                st.session_state["ta_msg"] = accounts.account_action(lead, name, action, password, sure)
            except (StoreError, AccessDenied) as exc:
                st.error(md_line(exc))
            else:
                st.rerun()
