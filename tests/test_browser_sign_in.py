"""Signing in, in headless chromium: the sign-in survives a reload through a signed, expiring
cookie (SameSite=Strict, path /), signing out drops it and revokes its token (a copy taken before
is refused), a tampered or expired cookie is refused, the lifetime is the ``sign_in_hours``
setting, a cookie that is no token (a foreign character) is dropped without a traceback, past the
free attempts the browser proves work before a password is checked, with the same words whether the
account exists or not, a browser that signed in before gets through whatever another browser at the
same address did, and a forged X-Forwarded-For header is not believed."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
import sqlalchemy as sa
from conftest import expect_no_error, served_app, sign_in, submit_sign_in, wait_idle
from playwright.sync_api import expect

from components.sign_in_cookie import COOKIE, DEVICE_COOKIE
from corpus.store import Store
from corpus.store.signin import WRONG
from corpus.store.tables import signin_failures

pytestmark = pytest.mark.browser

PASSWORD = "ann-password"
HOURS = 2  # the served app's sign_in_hours (the default is 12)
PROOF_BITS = 12  # the served app's first proof: a few thousand hashes, quick in a test


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("sign_in")
    store = Store.open(data)
    store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", PASSWORD, "coder")
    with served_app(
        data, {"GROUNDWORK_SIGN_IN_HOURS": str(HOURS), "GROUNDWORK_SIGN_IN_PROOF_BITS": str(PROOF_BITS)}
    ) as url:
        yield url, store, ann


def _sign_in(page, url: str, username: str = "ann", password: str = PASSWORD) -> None:
    sign_in(page, url, "code", username, password)


def _signed_in(page) -> None:
    expect(page.get_by_text("Signed in as")).to_be_visible()
    expect(page.get_by_role("button", name="Sign in")).to_have_count(0)


def _signed_out(page) -> None:
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    expect(page.get_by_text("Signed in as")).to_have_count(0)


def _cookie(context) -> dict | None:
    """The sign-in cookie, once the page has written it (None if there is none)."""
    return next((c for c in context.cookies() if c["name"] == COOKIE), None)


def _until(condition, seconds: float = 15, what=lambda: None) -> None:
    """Wait until ``condition()`` holds (polling); fail with ``what()`` if it does not in time."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert condition(), what()


def _wait_cookie(context, present: bool) -> dict | None:
    _until(lambda: (_cookie(context) is not None) == present, seconds=10, what=lambda: context.cookies())
    return _cookie(context)


def _reload(page) -> None:
    page.reload()
    wait_idle(page)


def test_a_sign_in_survives_a_reload_and_signing_out_ends_it(page, served):
    url, store, ann = served
    _sign_in(page, url)
    _signed_in(page)
    cookie = _wait_cookie(page.context, True)
    assert cookie["sameSite"] == "Strict" and cookie["path"] == "/" and not cookie["secure"]
    # It lasts as long as the app's sign_in_hours setting says, and the token inside says the same.
    assert abs(cookie["expires"] - (time.time() + HOURS * 3600)) < 120
    assert abs(int(cookie["value"].split(".")[3]) - cookie["expires"]) < 5
    assert store.user_for_token(cookie["value"]) == store.user("ann")
    _reload(page)
    _signed_in(page)
    page.goto(f"{url}/map-editor")  # a new browser session on another page: still signed in
    wait_idle(page)
    _signed_in(page)
    page.get_by_role("button", name="Sign out").click()
    wait_idle(page)
    _signed_out(page)
    _wait_cookie(page.context, False)
    _reload(page)
    _signed_out(page)
    # A copy of the cookie taken before signing out is refused too: signing out revoked its token.
    assert store.user_for_token(cookie["value"]) is None
    _refused(page, url, cookie["value"])


def _refused(page, url: str, value: str) -> None:
    page.context.add_cookies([{"name": COOKIE, "value": value, "url": url, "sameSite": "Strict"}])
    page.goto(f"{url}/code")
    wait_idle(page)
    _signed_out(page)
    _wait_cookie(page.context, False)  # the page drops the cookie it refused


def test_a_tampered_or_expired_cookie_is_refused(page, served):
    url, store, ann = served
    lead = store.user("lead")
    good = store.issue_token(ann)
    uid, key, epoch, expires, signature = good.split(".")
    _refused(page, url, f"{lead.id}.{key}.{epoch}.{expires}.{signature}")  # another account, same signature
    _refused(page, url, f"{uid}.{key}.{epoch}.{int(expires) + 3600}.{signature}")  # a later expiry
    _refused(page, url, good[:-2] + ("AA" if not good.endswith("AA") else "BB"))  # a changed signature
    _refused(page, url, store.issue_token(ann, ttl=timedelta(seconds=-1)))  # expired
    _refused(page, url, "not a token")
    _refused(page, url, good[:-1] + "é")  # once a TypeError traceback on every Annotate page
    expect_no_error(page)
    # The genuine token signs in (the refusals above were about the token, not the page).
    page.context.add_cookies([{"name": COOKIE, "value": good, "url": url, "sameSite": "Strict"}])
    page.goto(f"{url}/code")
    wait_idle(page)
    _signed_in(page)


def test_a_changed_password_voids_the_cookie(page, served):
    url, store, ann = served
    store.create_user("cy", "cy-password", "coder")
    _sign_in(page, url, "cy", "cy-password")
    _wait_cookie(page.context, True)
    store.change_password(store.user("cy"), "cy-password", "cy-password-2")
    _reload(page)
    _signed_out(page)


def _form_error(page):
    return page.get_by_test_id("stForm").get_by_test_id("stAlertContentError")


def _failures(store, name: str) -> list[str]:
    """The clients of the failed sign-ins the store has counted against a name."""
    with store.engine.connect() as c:
        return (
            c.execute(
                sa.select(signin_failures.c.client)
                .where(signin_failures.c.account == name)
                .order_by(signin_failures.c.id)
            )
            .scalars()
            .all()
        )


def _proof_notice(page):
    return page.get_by_test_id("stAlertContentInfo").filter(has_text="your browser proves it waited")


def test_past_the_free_attempts_the_browser_proves_work_with_the_same_words_for_any_name(page, served):
    """Five wrong passwords from this browser (which never signed in to the name), then each attempt
    is checked only after the browser has proved work on the server's challenge, by itself: the form
    says why, and then the answer, in the same words whether the account exists or not. Nothing
    waits for good: the right password from here gets in."""
    url, store, ann = served
    store.create_user("dee", "dee-password", "coder")
    said = {}
    free = store.policy.free_attempts
    page.goto(f"{url}/code")
    wait_idle(page)
    for name in ("dee", "nobody-by-this-name"):
        words = []
        for k in range(1, free + 2):
            submit_sign_in(page, name, "wrong password")  # again in the form that said no
            if k > free:
                expect(_proof_notice(page)).to_be_visible()
            _until(lambda k=k, name=name: len(_failures(store, name)) == k, seconds=60)  # checked and counted
            expect(_form_error(page)).to_have_text(WRONG)
            words.append(_form_error(page).inner_text())
        said[name] = words
    assert said["dee"] == said["nobody-by-this-name"] == [WRONG] * (free + 1)
    _sign_in(page, url, "dee", "dee-password")
    expect(_proof_notice(page)).to_be_visible()
    _signed_in(page)
    expect_no_error(page)


def test_six_wrong_guesses_from_one_browser_never_keep_the_owner_out_of_another_at_the_same_address(
    page, served, browser, browser_context_args
):
    """The lead's own browser (signed in there before) and a guesser's behind the same address: six
    wrong guesses from the guesser's, and the lead's right password from hers gets in at once (before:
    refused for 30 s); from a third browser that never signed in to the account, it gets in after the
    browser's proof of work, never refused."""
    url, store, ann = served
    store.create_user("fay", "fay-password", "lead")
    own = browser.new_context(**browser_context_args)
    fresh = browser.new_context(**browser_context_args)
    try:
        mine = own.new_page()
        _sign_in(mine, url, "fay", "fay-password")
        _signed_in(mine)
        _until(lambda: any(c["name"] == DEVICE_COOKIE for c in own.cookies()), what=own.cookies)
        mine.get_by_role("button", name="Sign out").click()
        _signed_out(mine)
        page.goto(f"{url}/code")
        wait_idle(page)
        for k in range(1, 7):  # the guesser, in the suite's own browser, from the same address
            submit_sign_in(page, "fay", f"guess number {k}")
            _until(lambda k=k: len(_failures(store, "fay")) == k, seconds=60)
        assert store.proof_level("fay", "127.0.0.1") == 2
        _sign_in(mine, url, "fay", "fay-password")
        _signed_in(mine)
        expect(_proof_notice(mine)).to_have_count(0)  # known: no proof asked
        other = fresh.new_page()
        _sign_in(other, url, "fay", "fay-password")
        expect(_proof_notice(other)).to_be_visible()  # unknown: a proof, then in
        _signed_in(other)
        expect_no_error(other)
    finally:
        own.close()
        fresh.close()


def test_a_forged_forwarded_for_header_is_not_believed(page, served):
    """With no trusted proxy, X-Forwarded-For changes nothing: the client is the connection's own
    address, so a guesser cannot make up a new client for each guess (nor be counted as another)."""
    url, store, ann = served
    store.create_user("eli", "eli-password", "coder")
    try:
        for k, forged in enumerate(["203.0.113.7", "198.51.100.8, 203.0.113.9", "10.0.0.1"], start=1):
            page.set_extra_http_headers({"X-Forwarded-For": forged})  # sent again by each new page load
            _sign_in(page, url, "eli", "wrong password")
            _until(lambda k=k: len(_failures(store, "eli")) == k)
    finally:
        page.set_extra_http_headers({})
    assert _failures(store, "eli") == ["127.0.0.1"] * 3  # one client, whatever the header said
    for _ in range(store.policy.free_attempts - 3):
        store.authenticate("eli", "wrong password", client="127.0.0.1")
    assert store.authenticate("eli", "eli-password", client="127.0.0.1") is None  # that client needs a proof now
    assert store.authenticate("eli", "eli-password", client="198.51.100.8").username == "eli"
