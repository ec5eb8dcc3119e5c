"""Accounts: the first lead, password changes and resets, disabling, enabling and deleting (a
tombstone keeps every label), in the store and at the command line; on SQLite and PostgreSQL."""

from __future__ import annotations

import io
import sys

import pytest

from corpus.cli import main
from corpus.store import AccessDenied, Store, StoreError


def test_first_lead_needs_the_console_token(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    token = store.issue_setup_token()
    assert token and len(token) >= 12
    with pytest.raises(AccessDenied, match="does not match"):
        store.claim_setup("guess", "mallory", "mallory-password")
    # A refused password does not use the token up.
    with pytest.raises(StoreError, match="at least 8"):
        store.claim_setup(token, "pi", "short")
    assert not store.has_lead()
    lead = store.claim_setup(token, "pi", "pi-password")
    assert lead.role == "lead"
    assert store.issue_setup_token() is None
    with pytest.raises(AccessDenied, match="exists already"):
        store.claim_setup(token, "second", "second-password")


def test_a_coder_changes_their_own_password(team):
    store, lead, ann, bob, viewer, task = team
    with pytest.raises(AccessDenied, match="current password: wrong"):
        store.change_password(ann, "not-the-password", "ann-new-password")
    with pytest.raises(StoreError, match="at least 8"):
        store.change_password(ann, "ann-password", "short")
    store.change_password(ann, "ann-password", "ann-new-password")
    assert store.authenticate("ann", "ann-password") is None
    assert store.authenticate("ann", "ann-new-password") == ann


def test_only_a_lead_resets_disables_enables_or_deletes(team):
    store, lead, ann, bob, viewer, task = team
    for act in (
        lambda: store.reset_password(ann, "bob", "bob-new-password"),
        lambda: store.disable_user(ann, "bob"),
        lambda: store.enable_user(ann, "bob"),
        lambda: store.delete_user(viewer, "bob"),
    ):
        with pytest.raises(AccessDenied, match="only a lead"):
            act()
    store.reset_password(lead, "bob", "bob-new-password")
    assert store.authenticate("bob", "bob-new-password") == bob
    with pytest.raises(StoreError, match="no account 'zed'"):
        store.disable_user(lead, "zed")


def test_a_disabled_account_keeps_its_labels_and_comes_back(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.disable_user(lead, "ann")
    assert store.user("ann") is None  # a session holding ann ends at its next read
    assert [u.username for u in store.users()] == ["lead", "bob", "guest"]
    assert {u.username: u.status for u in store.users(include_inactive=True)}["ann"] == "disabled"
    assert store.labels(lead, task.id)["coder"].tolist() == ["ann"]
    store.enable_user(lead, "ann")
    assert store.user("ann") == ann


def test_deleting_an_account_with_labels_keeps_a_tombstone(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    assert store.delete_user(lead, "ann") == "tombstone"
    assert store.user("ann") is None and store.authenticate("ann", "ann-password") is None
    assert store.history(lead, task.id)[["coder", "code"]].values.tolist() == [["ann", "initiate"]]
    assert store.export_long(lead, task.id)["coder"].tolist() == ["ann"]
    with pytest.raises(StoreError, match="'ann' is taken"):
        store.create_user("ann", "someone-else", "coder")  # a name on labels is never given to another person
    with pytest.raises(StoreError, match="deleted and cannot be enabled"):
        store.enable_user(lead, "ann")
    with pytest.raises(StoreError, match="deleted already"):
        store.delete_user(lead, "ann")
    # An account that left no trace is removed outright, and its name is free again.
    assert store.delete_user(lead, "guest") == "removed"
    assert "guest" not in [u.username for u in store.users(include_inactive=True)]
    store.create_user("guest", "new-guest-password", "viewer")


def test_the_last_active_lead_stays(team):
    store, lead, ann, bob, viewer, task = team
    for act in (store.disable_user, store.delete_user):
        with pytest.raises(StoreError, match="only active lead"):
            act(lead, "lead")
    second = store.create_user("second", "second-password", "lead")
    store.disable_user(second, "lead")
    with pytest.raises(StoreError, match="only active lead"):
        store.delete_user(None, "second")
    assert store.has_lead()


# -- the command line ---------------------------------------------------------------------------


def _cli(monkeypatch, capsys, *args: str, stdin: str = "") -> tuple[int, str, str]:
    """``python -m corpus users ...`` run in this process (the same parser and functions)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["users", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_users_command_says_what_it_did(url, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("GROUNDWORK_DB_URL", url)
    run = lambda *a, stdin="": _cli(monkeypatch, capsys, *a, stdin=stdin)  # noqa: E731
    code, out, err = run("add", "pi", "--role", "lead", "--password-stdin", stdin="pi-password\n")
    assert code == 0 and out.startswith("added lead 'pi' to "), err
    assert run("add", "ann", "--password-stdin", stdin="ann-password\n")[0] == 0
    assert run("passwd", "ann", "--password-stdin", stdin="ann-password\nann-second-password\n")[:2] == (
        0,
        "changed the password of 'ann'; its other sign-ins end\n",
    )
    code, out, err = run("passwd", "ann", "--password-stdin", stdin="wrong-password\nx-password\n")
    assert code == 1 and "current password: wrong" in err
    assert run("reset", "ann", "--password-stdin", stdin="ann-third-password\n")[1] == (
        "reset the password of 'ann'; its sign-ins end\n"
    )
    assert Store(url).authenticate("ann", "ann-third-password").username == "ann"
    assert run("disable", "ann")[1].startswith("disabled 'ann': it cannot sign in; its labels stay")
    assert run("list")[1].splitlines() == [
        "username  role   kind   status",
        "pi        lead   human  active",
        "ann       coder  human  disabled",
    ]
    assert run("enable", "ann")[1] == "enabled 'ann': it can sign in again\n"
    code, out, err = run("delete", "ann")
    assert code == 1 and "add --yes" in err
    assert run("delete", "ann", "--yes")[1] == "deleted 'ann' (it had no labels, gold or tasks)\n"
    code, out, err = run("disable", "pi")
    assert code == 1 and "'pi' is the only active lead" in err
    code, out, err = run("add", "pi", "--role", "lead", "--password-stdin", stdin="pi-password\n")
    assert code == 1 and "'pi' is taken" in err


def test_deleting_at_the_command_line_keeps_a_tombstone_of_a_coder_with_labels(team, monkeypatch, capsys):
    store, lead, ann, bob, viewer, task = team
    monkeypatch.setenv("GROUNDWORK_DB_URL", store.url)
    store.add_label(bob, task.id, "S01:1", "initiate")
    code, out, err = _cli(monkeypatch, capsys, "delete", "bob", "--yes")
    assert code == 0 and out.startswith("deleted 'bob': it can never sign in again; the account is kept as a tombstone")
    assert store.labels(lead, task.id)["coder"].tolist() == ["bob"]
