"""The imported platform sample in headless chromium: picked in the sidebar among the datasets the
server offers and replayed to its last action (the Follower's drawing complete, the chat interleaved
with it)."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT, expect_no_error, open_from_menu, pick_dataset, wait_idle
from playwright.sync_api import expect
from real_data import PLATFORM, absent

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def imported(app_server):
    """The platform sample imported into a folder the served app offers (its datasets root)."""
    if not PLATFORM.is_dir():
        pytest.skip(absent(PLATFORM, "real platform sample"))
    from corpus.importers import run_import
    from corpus.loading.dataset import load_dir

    dest = run_import("platform", PLATFORM, app_server.datasets / "platform", name="Platform sample (imported)")
    corpus = load_dir(dest)
    session = next(s for s in corpus.sessions.values() if len(s.actions) == 33)
    return dest, session


def open_dataset(page, url: str, name: str) -> None:
    """Open the app's Data page and pick the dataset ``name`` in the sidebar."""
    page.goto(f"{url}/data")
    wait_idle(page)
    pick_dataset(page, name)
    expect(page.get_by_role("heading", name=f"Data: {name}")).to_be_visible()


def test_imported_platform_session_replays(page, app_url, imported, artifacts):
    dest, session = imported
    open_dataset(page, app_url, "Platform sample (imported)")
    # Real data: no synthetic-corpus banner.
    expect(page.get_by_text("is a synthetic corpus")).to_have_count(0)

    if not (ROOT / "pages" / "replay.py").is_file():
        page.screenshot(path=str(artifacts / "import_platform.png"), full_page=True)
        return

    open_from_menu(page, "Replay")
    expect(page.get_by_role("heading", name="Replay")).to_be_visible()
    picker = page.get_by_role("combobox", name="Session")
    if session.id not in picker.input_value():
        picker.click()
        page.get_by_role("option").filter(has_text=session.id).click()
        wait_idle(page)
    expect(picker).to_have_value(re.compile(re.escape(session.id)))

    # To the last action: the whole drawing, and the chat that came with it (once the player holds
    # the session, so that the key reaches it).
    expect(page.locator(".rp-root")).not_to_have_attribute("data-step", "", timeout=20_000)
    page.get_by_role("heading", name="Replay").click()  # focus on the page, not the session picker
    page.keyboard.press("End")
    n = len(session.actions)
    expect(page.get_by_text(f"Action {n} of {n}").first).to_be_visible()
    first_follower = next(a.content for a in session.actions if a.type == "message" and a.role == "follower")
    expect(page.get_by_text(first_follower).first).to_be_attached()
    expect_no_error(page)
    page.screenshot(path=str(artifacts / "import_platform.png"), full_page=True)
