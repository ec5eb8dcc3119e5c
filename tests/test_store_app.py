"""The store's rules as the app offers them (AppTest): the lead adds, resets, disables, enables and
deletes accounts and is told what happened; anyone signed in changes their own password; a
disabled account is signed out at once and cannot sign in; signing out revokes the browser's token;
the lead chooses what coders see and shares agreement numbers as snapshots."""

from __future__ import annotations

import pytest
from coding_team import ROOT, data_dir, people, signed_in
from streamlit.testing.v1 import AppTest

from corpus import codebook as cbm
from corpus.store import Store


@pytest.fixture
def store(tmp_path, monkeypatch):
    s = Store.open(data_dir(tmp_path, monkeypatch))
    lead, ann, _ = people(s, lead="lead", ann="coder", bob="coder")
    task = s.create_task(
        lead, "pilot", "sample", cbm.default(), [{"session_id": "S", "action_index": 0}], [ann], dataset_hash="h"
    )
    s.add_label(ann, task.id, "S:0", "initiate")
    return s


def _by_label(widgets, label: str):
    return next(w for w in widgets if w.label == label)


def _account_action(at: AppTest, name: str, action: str, password: str = "", sure: bool = False) -> AppTest:
    _by_label(at.selectbox, "Account").select(name)
    _by_label(at.selectbox, "Action").select(action)
    _by_label(at.text_input, "New password (for a reset)").input(password)
    if sure:
        next(c for c in at.checkbox if c.label.startswith("Yes, delete")).check()
    return _by_label(at.button, "Apply").click().run()


def test_the_lead_manages_accounts_and_is_told_what_happened(store):
    at = signed_in("lead", "lead-password", "pages/tasks.py")
    _by_label(at.text_input, "Username").input("carl")
    _by_label(at.text_input, "Password (8 characters or more)").input("carl-password")
    _by_label(at.button, "Add account").click().run()
    assert "Added coder 'carl'." in [s.value for s in at.success]
    at = _account_action(at, "bob", "Reset the password", "bob-new-password")
    assert "Reset the password of 'bob'; its sign-ins end." in [s.value for s in at.success]
    assert store.authenticate("bob", "bob-new-password").username == "bob"
    at = _account_action(at, "ann", "Disable")
    assert "Disabled 'ann': it cannot sign in; its labels stay." in [s.value for s in at.success]
    at = _account_action(at, "ann", "Enable")
    assert "Enabled 'ann': it can sign in again." in [s.value for s in at.success]
    at = _account_action(at, "ann", "Delete")
    assert "delete: tick the box to confirm" in [e.value for e in at.error]
    at = _account_action(at, "ann", "Delete", sure=True)
    assert any(s.value.startswith("Deleted 'ann': kept as a tombstone") for s in at.success)
    at = _account_action(at, "carl", "Delete", sure=True)
    assert "Deleted 'carl' (it had no labels, gold or tasks)." in [s.value for s in at.success]
    statuses = dict(zip(at.dataframe[0].value["username"], at.dataframe[0].value["status"]))
    assert statuses == {"lead": "active", "ann": "deleted", "bob": "active"}
    at = _account_action(at, "lead", "Disable")
    assert any("only active lead" in e.value for e in at.error)


def test_a_coder_changes_their_own_password(store):
    at = signed_in("ann", "ann-password", "pages/code.py")

    def change(current: str, new: str, again: str) -> AppTest:
        at.text_input(key="auth_pw_current").input(current)
        at.text_input(key="auth_pw_new").input(new)
        at.text_input(key="auth_pw_again").input(again)
        return _by_label(at.button, "Change the password").click().run()

    new = "ann-next-password"
    assert "current password: wrong; the password was not changed" in [
        e.value for e in change("nope-nope", new, new).error
    ]
    assert any("two entries differ" in e.value for e in change("ann-password", new, "something-else").error)
    assert "Your password is changed." in [s.value for s in change("ann-password", new, new).success]
    assert store.authenticate("ann", "ann-password") is None
    assert store.authenticate("ann", "ann-next-password").username == "ann"


def test_guessing_the_current_password_in_the_sidebar_is_throttled_and_the_lead_sees_it(store):
    """Before: a hundred wrong current passwords were each checked at once, then the right one changed
    the password, with no log line. Now five are free, then changing waits; the lead's table counts them."""
    at = signed_in("bob", "bob-password", "pages/code.py")
    said = []
    for i in range(7):
        at.text_input(key="auth_pw_current").input(f"guess-{i}-password")
        at.text_input(key="auth_pw_new").input("bob-next-password")
        at.text_input(key="auth_pw_again").input("bob-next-password")
        said.append([e.value for e in _by_label(at.button, "Change the password").click().run().error])
    assert said[:5] == [["current password: wrong; the password was not changed"]] * 5
    assert said[5:] == [["Too many wrong current passwords. Try again in 30 seconds."]] * 2
    at.text_input(key="auth_pw_current").input("bob-password")
    at.text_input(key="auth_pw_new").input("bob-next-password")
    at.text_input(key="auth_pw_again").input("bob-next-password")
    assert not _by_label(at.button, "Change the password").click().run().success  # still waiting
    seen = store.failed_sign_ins(store.user("lead")).set_index("account")
    assert seen.loc["bob", ["failures_24h", "password_changes"]].tolist() == [5, 5]


def test_past_the_free_attempts_the_sign_in_form_says_why_and_the_browser_proves_work(store):
    """The sixth wrong password from a client: the form shows the store's words and mounts the
    browser's proof of work on the store's challenge (the browser test solves it)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page("pages/code.py").run()
    for _ in range(5):
        at.text_input(key="auth_username").input("ann")
        at.text_input(key="auth_password").input("not-her-password")
        _by_label(at.button, "Sign in").click().run()
        assert [e.value for e in at.error] == ["Unknown username or wrong password."]
    at.text_input(key="auth_password").input("ann-password")
    _by_label(at.button, "Sign in").click().run()
    assert not at.error and "auth_user" not in at.session_state
    assert [i.value for i in at.info if "proves it waited" in i.value]
    challenge, bits, _ = at.session_state["auth_challenge"]
    assert bits == store.policy.proof_bits(1) and challenge.startswith("1.")
    assert [c.key for c in at.get("bidi_component") if c.key == "auth_proof"] == ["auth_proof"]


def test_a_disabled_account_is_signed_out_and_cannot_signed_in(store):
    at = signed_in("ann", "ann-password", "pages/code.py")
    store.disable_user(None, "ann")
    at.run()
    assert at.text_input(key="auth_username") is not None  # back at the sign-in form
    at = signed_in("ann", "ann-password", "pages/code.py")
    assert [e.value for e in at.error] == ["This account is disabled; ask a lead."]


def test_signing_out_revokes_the_token_the_sign_in_gave_the_browser(store):
    at = signed_in("ann", "ann-password", "pages/code.py")
    token = at.session_state["auth_cookie_write"][1]["groundwork_sign_in"][0]  # what the browser was given to keep
    assert store.user_for_token(token) == store.user("ann")
    at.button(key="auth_sign_out").click().run()
    assert not at.exception and at.text_input(key="auth_username") is not None
    assert store.user_for_token(token) is None  # a copy of that cookie no longer signs in


@pytest.mark.parametrize(
    "ending",
    ["signed out in another tab", "password reset", "password changed elsewhere", "token expired", "account deleted"],
)
def test_an_open_session_ends_when_its_token_stops_signing_in(store, ending, monkeypatch):
    """The session that was signed in keeps nothing of its own: every run asks the store whether its
    token still signs in (another tab with the same cookie signing out, a reset, an expiry ...)."""
    at = signed_in("bob", "bob-password", "pages/code.py")
    token = at.session_state["auth_token"]
    assert at.session_state["auth_cookie_write"][1]["groundwork_sign_in"][0] == token  # the cookie keeps it
    lead = store.user("lead")
    if ending == "signed out in another tab":
        other = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
        other.session_state["auth_user"], other.session_state["auth_token"] = store.user("bob"), token
        other.run()
        other.switch_page("pages/code.py").run()
        other.button(key="auth_sign_out").click().run()
    elif ending == "password reset":
        store.reset_password(lead, "bob", "bob-reset-password")
    elif ending == "password changed elsewhere":
        store.change_password(store.user("bob"), "bob-password", "bob-changed-password")
    elif ending == "token expired":
        real_now = store.__class__._now
        monkeypatch.setattr(store.__class__, "_now", lambda self: real_now(self) + store.policy.token_ttl)
    else:
        store.delete_user(lead, "bob")
    at.run()
    assert not at.exception
    assert at.text_input(key="auth_username") is not None and "auth_user" not in at.session_state
    writes = at.session_state["auth_cookie_write"][1]
    assert writes["groundwork_sign_in"] == (None, 0, token)  # dropped only if it still holds that token
    assert writes["groundwork_device"][0]  # the browser stays one the account knows


def test_the_lead_shares_snapshots_and_chooses_what_coders_see(store):
    at = signed_in("lead", "lead-password", "pages/tasks.py")
    task = store.tasks_for(store.user("lead"))[0]
    at.radio(key=f"ta_view_{task.id}").set_value("nothing").run()
    assert store.task(task.id).coder_view == "nothing"
    at.toggle(key=f"ta_share_{task.id}").set_value(True).run()
    at.number_input(key=f"ta_min_{task.id}").set_value(1).run()
    assert (store.task(task.id).share_agreement, store.task(task.id).share_min_items) == (True, 1)
    _by_label(at.button, "Share the current numbers with the coders").click().run()
    assert "Shared a snapshot on 0 items coded by two or more coders." in [s.value for s in at.success]
    (snap,) = store.snapshots(store.user("lead"), task.id)
    assert (snap.n_labels, snap.numbers["n_labels"]) == (1, 1)
