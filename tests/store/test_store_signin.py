"""Signing in: Argon2id hashes, PBKDF2 hashes upgraded, a backoff per account and per client whose
messages never tell whether an account exists, and signed, expiring, revocable tokens; on SQLite
and PostgreSQL, with a clock the tests move by hand."""

from __future__ import annotations

import hashlib
import logging
from datetime import timedelta

import pytest
import sqlalchemy as sa

from corpus.store import (
    AccessDenied,
    ProofNeeded,
    SignInPolicy,
    SignInRefused,
    Store,
    StoreError,
    User,
    passwords,
    proof_holds,
    solve_proof,
)

WRONG = "Unknown username or wrong password."


@pytest.fixture
def store(url, clock):
    s = Store(url, clock=clock, policy=SignInPolicy(proof_first_bits=4))  # proofs a test solves at once
    s.create_user("lead", "lead-password", "lead")
    s.create_user("ann", "ann-password", "coder")
    yield s
    s.engine.dispose()


def _refusal(store: Store, username: str, password: str, client: str | None = None, device: str | None = None) -> str:
    with pytest.raises(SignInRefused) as err:
        store.sign_in(username, password, client, device)
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


def _attempt(store: Store, username: str, password: str, client: str | None = None, device: str | None = None):
    """One attempt as the sign-in form makes it: when a proof is asked for, the browser solves it and
    the same attempt goes again with it. The user, or the refusal's words."""
    try:
        return store.sign_in(username, password, client, device)
    except ProofNeeded as asked:
        proof = f"{asked.challenge}:{solve_proof(asked.challenge, asked.bits)}"
        try:
            return store.sign_in(username, password, client, device, proof=proof)
        except SignInRefused as exc:
            return str(exc)
    except SignInRefused as exc:
        return str(exc)


def _level(store: Store, username: str, client: str, device: str | None = None) -> int:
    return store.proof_level(username, client, device)


def _device(store: Store, username: str, password: str, client: str, held: str | None = None) -> str:
    """Sign in from a new browser and keep what the app gives it: its device token."""
    user = _attempt(store, username, password, client, held)
    assert isinstance(user, User), user
    return store.issue_device_token(user, held)


def test_a_day_of_guessing_behind_the_owners_own_address_never_keeps_her_out(store, clock):
    """The owner and a guesser behind one address (a lab's NAT): all day, every ten minutes, the
    guesser tries six passwords, solving every proof asked of it, just before the owner signs in from
    the browser she signed in with before. She gets in every time, 144 of 144 (before: 0 of 144, the
    address waiting out the guesser's failures each time)."""
    shared = "192.0.2.1"
    device = _device(store, "ann", "ann-password", shared)
    let_in = 0
    for minute in range(0, 24 * 60, 10):
        for k in range(6):
            assert _attempt(store, "ann", f"guess-{minute}-{k}", shared) == WRONG
        let_in += isinstance(_attempt(store, "ann", "ann-password", shared, device), User)
        clock.advance(minutes=10)
    assert let_in == 144
    assert _level(store, "ann", shared) == store.policy.proof_max_level  # the guesser pays the most for each guess


def test_six_wrong_guesses_from_one_browser_never_stop_another_browser_at_the_same_address(store, clock):
    shared = "192.0.2.1"
    lead_device = _device(store, "lead", "lead-password", shared)
    for _ in range(6):
        assert _attempt(store, "lead", "not-the-password", shared) == WRONG
    assert _level(store, "lead", shared) == 2
    # The lead's own browser (known): checked at once, no proof.
    assert _level(store, "lead", shared, lead_device) == 0
    assert store.sign_in("lead", "lead-password", shared, lead_device).username == "lead"
    # A browser that never signed in to the account (unknown): a proof, never a refusal.
    with pytest.raises(ProofNeeded):
        store.sign_in("lead", "lead-password", shared)
    assert _attempt(store, "lead", "lead-password", shared).username == "lead"


def test_an_unknown_device_past_its_free_attempts_proves_work_rising_to_a_cap_never_waits(store, clock, caplog):
    """Five free failures, then each attempt needs a proof one level harder, up to the cap; the right
    password with a proof gets in at once, whatever came before."""
    caplog.set_level(logging.INFO, logger="groundwork.signin")
    levels = []
    for _ in range(12):
        levels.append(_level(store, "ann", "203.0.113.9"))
        assert _attempt(store, "ann", "not-her-password", "203.0.113.9") == WRONG
    assert levels == [0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 6]
    policy = store.policy
    assert [policy.proof_bits(n) for n in (1, 2, 6, 9)] == [policy.proof_first_bits + k for k in (0, 1, 5, 5)]
    assert _attempt(store, "ann", "ann-password", "203.0.113.9").username == "ann"
    # A success forgets the pair's failures; the name's twelve from unknown devices keep its alarm on
    # for the hour, for every unknown device, but not for a browser that signed in before.
    assert _level(store, "ann", "203.0.113.9") == _level(store, "ann", "198.51.100.4") == 1
    device = store.issue_device_token(store.user("ann"))
    assert _level(store, "ann", "203.0.113.9", device) == 0
    logged = [r.getMessage() for r in caplog.records]
    assert any("sign-in failed: account 'ann', client 203.0.113.9 (12 failures in a row)" in m for m in logged)
    assert any(m == "sign-in needs proofs of level 6 from now: account 'ann', client 203.0.113.9" for m in logged)
    assert any(m == "sign-in needs a proof: account 'ann', client 203.0.113.9, level 6" for m in logged)
    assert all("not-her-password" not in m and "ann-password" not in m for m in logged)


def test_an_attempt_that_needs_a_proof_and_brings_none_is_not_checked(store, monkeypatch):
    """A flood of attempts without proofs costs the server a signature each, not a password hash."""
    for _ in range(5):
        _attempt(store, "ann", "not-her-password", "203.0.113.9")
    checked = []
    real = passwords.verify_password
    monkeypatch.setattr(passwords, "verify_password", lambda *a: checked.append(1) or real(*a))
    for _ in range(20):
        with pytest.raises(ProofNeeded):
            store.sign_in("ann", "ann-password", "203.0.113.9")
    assert checked == []


def test_a_proof_is_bound_to_its_name_and_client_taken_once_and_expires(store, clock):
    for name, client in (("ann", "203.0.113.9"), ("ann", "198.51.100.4"), ("lead", "203.0.113.9")):
        for _ in range(5):
            _attempt(store, name, "not-the-password", client)
    with pytest.raises(ProofNeeded) as asked:
        store.sign_in("ann", "ann-password", "203.0.113.9")
    challenge, bits = asked.value.challenge, asked.value.bits
    proof = f"{challenge}:{solve_proof(challenge, bits)}"
    wrong_counter = next(n for n in range(10_000) if not proof_holds(challenge, n, bits))
    for name, password, client, given in (
        ("ann", "ann-password", "198.51.100.4", proof),  # another client
        ("lead", "lead-password", "203.0.113.9", proof),  # another name
        ("ann", "ann-password", "203.0.113.9", f"{challenge}:{wrong_counter}"),  # not solved
        ("ann", "ann-password", "203.0.113.9", f"1{proof}"),  # another level than signed
    ):
        with pytest.raises(ProofNeeded):
            store.sign_in(name, password, client, proof=given)
    with pytest.raises(SignInRefused) as checked:
        store.sign_in("ann", "not-her-password-again", "203.0.113.9", proof=proof)
    assert type(checked.value) is SignInRefused and str(checked.value) == WRONG  # checked, with the proof
    with pytest.raises(ProofNeeded):  # the same proof again: used up
        store.sign_in("ann", "ann-password", "203.0.113.9", proof=proof)
    # A proof of the level needed, brought after the challenge expired, is refused: a new one comes.
    with pytest.raises(ProofNeeded) as asked:
        store.sign_in("ann", "ann-password", "203.0.113.9")
    late = f"{asked.value.challenge}:{solve_proof(asked.value.challenge, asked.value.bits)}"
    clock.advance(minutes=10)
    with pytest.raises(ProofNeeded):
        store.sign_in("ann", "ann-password", "203.0.113.9", proof=late)
    assert _attempt(store, "ann", "ann-password", "203.0.113.9").username == "ann"


def test_a_proof_of_a_lower_level_than_needed_now_is_not_enough(store):
    for _ in range(5):
        _attempt(store, "ann", "not-her-password", "203.0.113.9")
    with pytest.raises(ProofNeeded) as asked:
        store.sign_in("ann", "ann-password", "203.0.113.9")
    early = f"{asked.value.challenge}:{solve_proof(asked.value.challenge, asked.value.bits)}"
    assert _attempt(store, "ann", "not-her-password", "203.0.113.9") == WRONG  # a guesser's meanwhile
    with pytest.raises(ProofNeeded) as again:
        store.sign_in("ann", "ann-password", "203.0.113.9", proof=early)
    assert again.value.level == asked.value.level + 1


def test_an_unknown_account_reads_exactly_like_a_wrong_password(store, clock):
    assert _refusal(store, "nobody", "some-password") == _refusal(store, "ann", "some-password") == WRONG
    for _ in range(4):
        _refusal(store, "nobody", "some-password")
        _refusal(store, "ann", "some-password")
    with pytest.raises(ProofNeeded) as unknown:
        store.sign_in("nobody", "some-password")
    with pytest.raises(ProofNeeded) as known:
        store.sign_in("ann", "some-password")
    assert str(unknown.value) == str(known.value) and unknown.value.bits == known.value.bits


def test_guesses_spread_over_many_clients_make_every_unknown_device_prove_work(store, clock):
    """Ten failures on a name in the hour, from any clients: every unknown device then proves work on
    it, one level more each time the failures double; the owner's known device is not asked."""
    device = _device(store, "ann", "ann-password", "198.51.100.4")
    for i in range(10):
        _attempt(store, "ann", "guess-password", f"203.0.113.{i}")
    assert _level(store, "ann", "203.0.113.50") == 1
    assert _level(store, "ann", "198.51.100.4") == 1  # her own address, from a browser never used for it
    assert _level(store, "ann", "198.51.100.4", device) == 0
    for i in range(10, 20):
        _attempt(store, "ann", "guess-password", f"203.0.113.{i}")
    assert _level(store, "ann", "203.0.113.50") == 2
    assert store.sign_in("ann", "ann-password", "198.51.100.4", device).username == "ann"
    assert _level(store, "lead", "203.0.113.50") == 0  # another name is not touched
    clock.advance(hours=1, seconds=1)  # the alarm is over
    assert _level(store, "ann", "203.0.113.50") == 0


def test_one_client_guessing_many_names_proves_work_for_every_name(store, clock):
    for i in range(5):
        _refusal(store, f"user{i}", "guess-password", client="203.0.113.9")
    assert _level(store, "lead", "203.0.113.9") == 1
    assert _attempt(store, "lead", "lead-password", "203.0.113.9").username == "lead"
    assert _level(store, "lead", "198.51.100.4") == 0  # another client
    clock.advance(hours=1, seconds=1)
    assert _level(store, "lead", "203.0.113.9") == 0


def test_a_known_device_that_keeps_failing_counts_as_unknown_for_a_while(store, clock):
    """A device token taken from the owner's browser buys a few guesses, no more."""
    device = _device(store, "ann", "ann-password", "198.51.100.4")
    for _ in range(4):
        assert _attempt(store, "ann", "guess-password", "203.0.113.9", device) == WRONG
    assert _level(store, "ann", "203.0.113.9", device) == 0
    assert _attempt(store, "ann", "guess-password", "203.0.113.9", device) == WRONG  # the fifth in a row
    assert _level(store, "ann", "203.0.113.9") == 0  # the device's failures did not count on the pair
    for _ in range(5):  # the device is unknown now: the pair's own free attempts, then proofs
        assert _attempt(store, "ann", "guess-password", "203.0.113.9", device) == WRONG
    assert _level(store, "ann", "203.0.113.9", device) == 1
    clock.advance(hours=1, seconds=1)
    assert _level(store, "ann", "203.0.113.9", device) == 0
    assert store.sign_in("ann", "ann-password", "198.51.100.4", device).username == "ann"


def test_a_device_token_knows_one_account_and_only_while_it_lives(store, clock):
    lead = store.user("lead")
    ann_device = _device(store, "ann", "ann-password", "198.51.100.4")
    both = _device(store, "lead", "lead-password", "198.51.100.4", held=ann_device)
    assert both.split("~")[0] == ann_device  # one browser, two accounts: both kept
    for _ in range(5):
        _attempt(store, "ann", "guess-password", "198.51.100.4")
        _attempt(store, "lead", "guess-password", "198.51.100.4")
    assert _level(store, "ann", "198.51.100.4", both) == 0
    assert _level(store, "lead", "198.51.100.4", both) == 0
    assert _level(store, "lead", "198.51.100.4", ann_device) > 0  # ann's token does not know the lead
    uid, device, issued, signature = ann_device.split(".")
    for forged in (
        f"{lead.id}.{device}.{issued}.{signature}",
        f"{uid}.{device}.{int(issued) + 1}.{signature}",
        f"{uid}.{'0' * 32}.{issued}.{signature}",
        "x" * 5000,
        "~".join([ann_device.replace(signature, "A" * 43)] * 3),
    ):
        assert _level(store, "ann", "198.51.100.4", forged) > 0
    # The same browser keeps its device id when it signs in again; at most five accounts are kept.
    again = store.issue_device_token(store.user("ann"), both)
    assert again.split("~")[-1].split(".")[1] == device
    for i in range(6):
        store.create_user(f"coder{i}", "coder-password", "coder")
        again = store.issue_device_token(store.user(f"coder{i}"), again)
    assert len(again.split("~")) == 5
    # A device token dies with its account's key (deleted) and after its lifetime.
    clock.advance(days=179)
    assert _level(store, "ann", "198.51.100.4", ann_device) == 0
    for _ in range(5):
        _attempt(store, "ann", "guess-password", "198.51.100.4")
    assert _level(store, "ann", "198.51.100.4", ann_device) == 0
    clock.advance(days=1)
    for _ in range(5):
        _attempt(store, "ann", "guess-password", "198.51.100.4")
    assert _level(store, "ann", "198.51.100.4", ann_device) > 0  # expired after 180 days
    # A new account given a deleted one's id is not known to the old account's device tokens.
    eve_device = (
        _device(store, "eve", "eve-password", "198.51.100.4")
        if store.create_user("eve", "eve-password", "coder")
        else ""
    )
    assert store.delete_user(lead, "eve") == "removed"
    mallory = store.create_user("mallory", "mallory-password", "coder")
    for _ in range(5):
        _attempt(store, "mallory", "guess-password", "198.51.100.4")
    if store.backend == "sqlite":
        assert mallory.id == int(eve_device.split(".")[0])
    assert _level(store, "mallory", "198.51.100.4", eve_device) > 0


def test_a_wrong_current_password_in_a_password_change_is_throttled_and_logged(store, clock, caplog):
    """Before: a hundred wrong current passwords were checked at once, unlogged, and then the right one
    changed the password. Now five are free, then the account waits (30 s, doubling), each is logged and
    the lead sees them; the account's sign-ins are not touched."""
    caplog.set_level(logging.INFO, logger="groundwork.signin")
    ann = store.user("ann")
    refusals = []
    for i in range(100):
        with pytest.raises(AccessDenied) as err:
            store.change_password(ann, f"guess-{i}", "a-new-password", client="203.0.113.9")
        refusals.append(str(err.value))
    assert refusals[:5] == ["current password: wrong; the password was not changed"] * 5
    assert set(refusals[5:]) == {"Too many wrong current passwords. Try again in 30 seconds."}
    with pytest.raises(AccessDenied):
        store.change_password(ann, "ann-password", "a-new-password", client="203.0.113.9")
    assert store.sign_in("ann", "ann-password", "198.51.100.4").username == "ann"  # sign-in untouched
    clock.advance(seconds=30)
    store.change_password(ann, "ann-password", "a-new-password", client="203.0.113.9")
    assert store.sign_in("ann", "a-new-password", "198.51.100.4").username == "ann"
    logged = [r.getMessage() for r in caplog.records]
    assert sum(m.startswith("password change failed: wrong current password, account 'ann'") for m in logged) == 5
    assert sum(m.startswith("password change refused while waiting: account 'ann'") for m in logged) == 96
    assert "password changed: account 'ann', client 203.0.113.9" in logged
    seen = store.failed_sign_ins(store.user("lead"))
    assert seen[["account", "failures_24h", "password_changes", "known_devices"]].values.tolist() == [["ann", 5, 5, 0]]


def test_a_lead_sees_the_failed_sign_ins(store, clock):
    lead = store.user("lead")
    device = _device(store, "ann", "ann-password", "198.51.100.4")
    for client in ("203.0.113.9", "203.0.113.9", "198.51.100.4"):
        _refusal(store, "Ann", "guess-password", client=client)
    _refusal(store, "ann", "guess-password", "198.51.100.4", device)
    clock.advance(days=2)
    _refusal(store, "ann", "guess-password", client="203.0.113.9")
    clock.advance(seconds=1)
    _refusal(store, "nobody", "guess-password", client="203.0.113.9")
    seen = store.failed_sign_ins(lead)
    assert seen[
        ["account", "is_account", "failures_24h", "failures_30d", "known_devices", "clients", "clients_proving"]
    ].values.tolist() == [["nobody", False, 1, 1, 0, 1, 0], ["ann", True, 1, 5, 1, 2, 0]]
    assert seen["last_failure"].tolist() == [clock.now, clock.now - timedelta(seconds=1)]
    for _ in range(5):
        _attempt(store, "ann", "guess-password", "203.0.113.9")
    assert store.failed_sign_ins(lead).set_index("account").loc["ann", "clients_proving"] == 1
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
