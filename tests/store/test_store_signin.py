"""Signing in: Argon2id hashes, PBKDF2 hashes upgraded, a backoff per account and per client whose
messages never tell whether an account exists, and signed, expiring, revocable tokens; on SQLite
and PostgreSQL, with a clock the tests move by hand."""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta

import pytest
import sqlalchemy as sa

from corpus.store import AccessDenied, SignInPolicy, SignInRefused, Store, StoreError

WRONG = "Unknown username or wrong password."


@pytest.fixture
def store(url, clock):
    s = Store(url, clock=clock)
    s.create_user("lead", "lead-password", "lead")
    s.create_user("ann", "ann-password", "coder")
    yield s
    s.engine.dispose()


def _refusal(store: Store, username: str, password: str, client: str | None = None) -> str:
    with pytest.raises(SignInRefused) as err:
        store.sign_in(username, password, client)
    return str(err.value)


def _hash_of(store: Store, username: str) -> str:
    with store.engine.connect() as c:
        return c.execute(sa.text("select password_hash from users where username = :u"), {"u": username}).scalar_one()


def test_passwords_are_argon2id_hashes(store):
    assert _hash_of(store, "ann").startswith("$argon2id$") and "ann-password" not in _hash_of(store, "ann")
    assert store.sign_in("ann", "ann-password").username == "ann"
    assert store.authenticate("ann", "wrong-password") is None
    with pytest.raises(StoreError, match="at least 8"):
        store.create_user("eve", "short", "coder")
    with pytest.raises(StoreError, match="'ann' is taken"):
        store.create_user("ann", "another-password", "coder")


@pytest.mark.production_password_hashing
def test_a_pbkdf2_hash_is_upgraded_at_the_next_successful_sign_in(store):
    salt = bytes(range(16))
    digest = hashlib.pbkdf2_hmac("sha256", b"old-password", salt, 200_000).hex()
    old = f"pbkdf2_sha256$200000${salt.hex()}${digest}"
    with store.engine.begin() as c:
        c.execute(sa.text("update users set password_hash = :h where username = 'ann'"), {"h": old})
    assert _refusal(store, "ann", "wrong-password") == WRONG
    assert _hash_of(store, "ann") == old  # a failure changes nothing
    assert store.sign_in("ann", "old-password").username == "ann"
    new = _hash_of(store, "ann")
    assert new.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert store.sign_in("ann", "old-password").username == "ann"
    assert _hash_of(store, "ann") == new  # upgraded once


def test_forty_wrong_passwords_make_that_client_wait_up_to_the_window(store, clock, caplog):
    """A guesser from one client who waits out every wait gets 40 guesses checked only over hours, and
    that client's right password too is refused until the 15-minute window has passed."""
    caplog.set_level(logging.WARNING, logger="groundwork.signin")
    start, checked = clock.now, 0
    while checked < 40:
        message = _refusal(store, "ann", "not-her-password", client="203.0.113.9")
        if message == WRONG:
            checked += 1
        else:
            clock.advance(seconds=int(message.split(" in ")[1].split()[0]) * (60 if "minutes" in message else 1))
    # Five free failures, then 30 s doubling up to 15 minutes.
    assert clock.now - start == timedelta(seconds=30 + 60 + 120 + 240 + 480 + 900 * 30)
    assert (
        _refusal(store, "ann", "ann-password", client="203.0.113.9")
        == "Too many failed sign-ins. Try again in 15 minutes."
    )
    assert store.sign_in("ann", "ann-password", client="198.51.100.4").username == "ann"  # her own client
    clock.advance(minutes=14, seconds=59)
    assert (
        _refusal(store, "ann", "ann-password", client="203.0.113.9")
        == "Too many failed sign-ins. Try again in 1 second."
    )
    clock.advance(seconds=1)
    assert store.sign_in("ann", "ann-password", client="203.0.113.9").username == "ann"
    # A success forgets the pair's failures: one more mistake costs nothing.
    assert _refusal(store, "ann", "not-her-password", client="203.0.113.9") == WRONG
    assert store.sign_in("ann", "ann-password", client="203.0.113.9").username == "ann"
    logged = [r.getMessage() for r in caplog.records]
    assert any("sign-in failed: account 'ann', client 203.0.113.9 (40 failures in a row)" in m for m in logged)
    assert any("(10 failures in a row; 10 failures on the name in 1:00:00)" in m for m in logged)
    assert any(m.startswith("sign-in waits 0:15:00: account 'ann', client 203.0.113.9") for m in logged)
    assert all("not-her-password" not in m and "ann-password" not in m for m in logged)


def test_a_day_of_guessing_from_another_client_never_keeps_the_owner_out(store, clock):
    """Four wrong passwords an hour from one client, for a day: the owner, signing in every ten
    minutes from her own client, is let in every time (144 of 144)."""
    let_in = 0
    for minute in range(0, 24 * 60, 10):
        if minute % 15 == 0:  # the guesser: every 15 minutes, whatever the answer
            _refusal(store, "ann", f"guess-{minute}", client="203.0.113.9")
        let_in += store.authenticate("ann", "ann-password", client="198.51.100.4") is not None
        clock.advance(minutes=10)
    assert let_in == 144


def test_an_address_shared_by_many_people_does_not_lock_out_the_others(store):
    """Seven mistakes by one person behind a shared address keep only that person's name waiting."""
    for _ in range(7):
        _refusal(store, "ann", "not-her-password", client="192.0.2.1")
    assert _refusal(store, "ann", "ann-password", client="192.0.2.1").startswith("Too many failed sign-ins")
    assert store.sign_in("lead", "lead-password", client="192.0.2.1").username == "lead"


def test_guesses_spread_over_many_clients_take_away_the_free_attempts(store, clock):
    """Once a name has failed ten times in the hour, from any clients, each new client that fails on
    it waits at once; a client that has not failed still signs in."""
    for i in range(10):
        _refusal(store, "ann", "guess-password", client=f"203.0.113.{i}")
    assert _refusal(store, "ann", "guess-password", client="203.0.113.50") == WRONG
    assert (
        _refusal(store, "ann", "ann-password", client="203.0.113.50")
        == "Too many failed sign-ins. Try again in 30 seconds."
    )
    assert store.sign_in("ann", "ann-password", client="198.51.100.4").username == "ann"
    clock.advance(hours=1, seconds=1)  # the alarm is over: five free attempts again
    for _ in range(4):
        assert _refusal(store, "ann", "guess-password", client="203.0.113.60") == WRONG
    assert store.sign_in("ann", "ann-password", client="203.0.113.60").username == "ann"


def test_a_burst_of_wrong_passwords_is_refused_without_being_checked(store, clock):
    for _ in range(40):
        _refusal(store, "ann", "not-her-password")
        clock.advance(seconds=1)
    # Failures 1-5 at 0-4 s lock until 34 s; the 6th, at 34 s, until 94 s; the rest were refused unchecked.
    assert _refusal(store, "ann", "ann-password") == "Too many failed sign-ins. Try again in 54 seconds."
    clock.advance(seconds=53)
    assert _refusal(store, "ann", "ann-password").startswith("Too many failed sign-ins")
    clock.advance(seconds=1)
    assert store.sign_in("ann", "ann-password").username == "ann"


def test_the_wait_doubles_up_to_the_lockout_window():
    policy = SignInPolicy()
    assert [policy.wait_after(n).total_seconds() for n in range(1, 12)] == [0, 0, 0, 0, 30, 60, 120, 240, 480, 900, 900]


def test_an_unknown_account_reads_exactly_like_a_wrong_password(store, clock):
    assert _refusal(store, "nobody", "some-password") == _refusal(store, "ann", "some-password") == WRONG
    for _ in range(5):
        unknown = _refusal(store, "nobody", "some-password")
        known = _refusal(store, "ann", "some-password")
    assert unknown == known == "Too many failed sign-ins. Try again in 30 seconds."


def test_one_client_guessing_many_names_waits_at_each_further_mistake(store, clock):
    """A client that failed on five different names in the hour has no free attempts left: each
    further mistake makes it wait. Its right password on a name it has not failed on still works,
    and signing in does not buy it more guesses at others."""
    for i in range(5):
        _refusal(store, f"user{i}", "guess-password", client="203.0.113.9")
    assert store.sign_in("ann", "ann-password", client="203.0.113.9").username == "ann"
    assert _refusal(store, "user9", "guess-password", client="203.0.113.9") == WRONG
    assert (
        _refusal(store, "user9", "guess-password", client="203.0.113.9")
        == "Too many failed sign-ins. Try again in 30 seconds."
    )
    assert _refusal(store, "lead", "guess-password", client="203.0.113.9") == WRONG
    assert _refusal(store, "lead", "lead-password", client="203.0.113.9").startswith("Too many failed sign-ins")
    assert store.sign_in("lead", "lead-password", client="198.51.100.4").username == "lead"  # another client
    clock.advance(seconds=30)
    assert store.sign_in("lead", "lead-password", client="203.0.113.9").username == "lead"


def test_a_lead_sees_the_failed_sign_ins(store, clock):
    lead = store.user("lead")
    for client in ("203.0.113.9", "203.0.113.9", "198.51.100.4"):
        _refusal(store, "Ann", "guess-password", client=client)
    clock.advance(days=2)
    _refusal(store, "ann", "guess-password", client="203.0.113.9")
    clock.advance(seconds=1)
    _refusal(store, "nobody", "guess-password", client="203.0.113.9")
    seen = store.failed_sign_ins(lead)
    assert seen[
        ["account", "is_account", "failures_24h", "failures_30d", "clients", "clients_waiting"]
    ].values.tolist() == [["nobody", False, 1, 1, 1, 0], ["ann", True, 1, 4, 2, 0]]
    assert seen["last_failure"].tolist() == [clock.now, clock.now - timedelta(seconds=1)]
    with pytest.raises(AccessDenied):
        store.failed_sign_ins(store.user("ann"))
    clock.advance(days=31)
    _refusal(store, "ann", "guess-password", client="203.0.113.9")
    assert store.failed_sign_ins(lead)["failures_30d"].tolist() == [1]  # older ones are forgotten


def test_the_failures_kept_are_capped(url, clock):
    store = Store(url, clock=clock, policy=SignInPolicy(max_failures_kept=5))
    for i in range(12):
        store.authenticate(f"name{i:02d}", "guess-password", client=f"198.51.100.{i}")
    with store.engine.connect() as c:
        assert c.execute(sa.text("SELECT count(*), min(account) FROM signin_failures")).one() == (5, "name07")
    store.engine.dispose()


def test_a_disabled_account_does_not_sign_in(store):
    store.disable_user(None, "ann")
    assert _refusal(store, "ann", "wrong-password") == WRONG
    assert _refusal(store, "ann", "ann-password") == "This account is disabled; ask a lead."
    store.enable_user(None, "ann")
    assert store.sign_in("ann", "ann-password").username == "ann"


def test_a_token_signs_in_until_it_expires(store, clock):
    ann = store.user("ann")
    token = store.issue_token(ann, ttl=timedelta(hours=2))
    assert store.user_for_token(token) == ann
    clock.advance(hours=1, minutes=59)
    assert store.user_for_token(token) == ann
    clock.advance(minutes=1)
    assert store.user_for_token(token) is None
    default = store.issue_token(ann)  # the policy's lifetime: 12 hours
    clock.advance(hours=11)
    assert store.user_for_token(default) == ann
    clock.advance(hours=1)
    assert store.user_for_token(default) is None


def test_a_forged_or_altered_token_is_refused(store, clock):
    ann, lead = store.user("ann"), store.user("lead")
    token = store.issue_token(ann)
    uid, key, epoch, expires, signature = token.split(".")
    lead_key = store.issue_token(lead).split(".")[1]
    for bad in (
        f"{lead.id}.{key}.{epoch}.{expires}.{signature}",
        f"{uid}.{lead_key}.{epoch}.{expires}.{signature}",
        f"{uid}.{key}.{epoch}.{int(expires) + 99999}.{signature}",
        f"{uid}.{key}.{epoch}.{expires}.{signature[:-2]}{'BB' if signature.endswith('AA') else 'AA'}",
        "",
        "a.b.c.d.e",
        "1.2.3",
        None,
        42,
        f"{uid}.{key}.{epoch}.{expires}.{signature}x",
    ):
        assert store.user_for_token(bad) is None
    # The secret lives in the database: another process (another Store) accepts the token.
    assert Store(store.url, clock=clock).user_for_token(token) == ann


@pytest.mark.parametrize("bad", ["1.2.3.4.é", "é" * 80, "１.2.3.4.5", "\x00" * 10, "1." + "9" * 5000, "١٢٣"])
def test_a_token_with_foreign_characters_is_refused_not_raised(store, bad):
    """A cookie with a non-ASCII character once raised TypeError inside the signature check."""
    token = store.issue_token(store.user("ann"))
    for candidate in (bad, token[:-1] + "é", token.replace(".", "\u2024", 1)):
        assert store.user_for_token(candidate) is None
        assert store.revoke_token(candidate) is False


def test_a_deleted_accounts_token_never_signs_in_the_next_account(store):
    """SQLite gives a new account the id of the last one removed; the token names the account's own
    random key, which no other account gets."""
    lead = store.user("lead")
    eve = store.create_user("eve", "eve-password", "coder")
    token = store.issue_token(eve)
    assert store.delete_user(lead, "eve") == "removed"
    new_lead = store.create_user("newlead", "newlead-password", "lead")
    if store.backend == "sqlite":
        assert new_lead.id == eve.id  # the id is given again ...
    assert store.user_for_token(token) is None  # ... the token is not
    assert store.user_for_token(store.issue_token(new_lead)) == new_lead


@pytest.mark.parametrize("change", ["own password", "reset", "disable", "delete"])
def test_a_token_is_revoked_by_a_password_change_disable_or_delete(store, change):
    ann, lead = store.user("ann"), store.user("lead")
    token = store.issue_token(ann)
    other = store.issue_token(lead)
    if change == "own password":
        store.change_password(ann, "ann-password", "ann-new-password")
    elif change == "reset":
        store.reset_password(lead, "ann", "set-by-the-lead")
    elif change == "disable":
        store.disable_user(lead, "ann")
    else:
        store.delete_user(lead, "ann")
    assert store.user_for_token(token) is None
    assert store.user_for_token(other) == lead  # nobody else's token is touched
    if change == "disable":
        store.enable_user(lead, "ann")
        assert store.user_for_token(token) is None  # enabling again does not revive old tokens


def _revoked(store: Store) -> list[tuple]:
    with store.engine.connect() as c:
        return c.execute(sa.text("SELECT user_id, signature FROM revoked_tokens ORDER BY expires_at")).all()


def test_signing_out_revokes_that_token_only_until_it_would_have_expired(store, clock):
    ann, lead = store.user("ann"), store.user("lead")
    here = store.issue_token(ann, ttl=timedelta(hours=2))
    elsewhere = store.issue_token(ann, ttl=timedelta(hours=3))  # the same account in another browser
    theirs = store.issue_token(lead)
    assert store.revoke_token(here) is True
    assert store.user_for_token(here) is None  # a copy of the cookie is refused from now on
    assert store.user_for_token(elsewhere) == ann and store.user_for_token(theirs) == lead
    assert store.revoke_token(here) is True  # signing out twice changes nothing
    assert _revoked(store) == [(ann.id, here.split(".")[4])]
    # Only a token the server signed, and not yet expired, is remembered.
    uid, key, epoch, expires, signature = elsewhere.split(".")
    for junk in (
        "",
        None,
        "a.b.c.d.e",
        f"{uid}.{key}.{epoch}.{int(expires) + 1}.{signature}",
        f"{uid}.{key}.{epoch}.{expires}.x" * 50,
    ):
        assert store.revoke_token(junk) is False
    assert len(_revoked(store)) == 1
    # A revoked token is forgotten once it would have expired (at the next sign-out).
    clock.advance(hours=2)
    assert store.revoke_token(elsewhere) is True
    assert _revoked(store) == [(ann.id, signature)]
    assert store.user_for_token(elsewhere) is None and store.user_for_token(theirs) == lead


def test_an_account_with_revoked_tokens_can_be_deleted_and_then_sign_out(store):
    ann, lead = store.user("ann"), store.user("lead")
    store.revoke_token(store.issue_token(ann))
    still_open = store.issue_token(ann)  # a browser still signed in when the lead deletes the account
    assert store.delete_user(lead, "ann") == "removed"
    assert store.user("ann") is None and _revoked(store) == []
    assert store.revoke_token(still_open) is False and _revoked(store) == []  # void anyway
