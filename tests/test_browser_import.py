"""The imported platform sample in headless chromium: opened from a directory on the server and
replayed to its last action (the Follower's drawing complete, the chat interleaved with it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import ROOT, wait_idle

pytestmark = pytest.mark.browser

PLATFORM = ROOT.parent / "shared" / "real_data" / "neuhai_platform_sample"


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    if not PLATFORM.is_dir():
        pytest.skip(f"real platform sample not available at {PLATFORM} (shared/real_data is not part of this clone)")
    from corpus.dataset import load_dir
    from corpus.importers import run_import

    dest = run_import("platform", PLATFORM, tmp_path_factory.mktemp("imported") / "platform",
                      name="Platform sample (imported)")
    corpus = load_dir(dest)
    session = next(s for s in corpus.sessions.values() if len(s.actions) == 33)
    return dest, session


def _open_directory(page, url: str, dest: Path) -> None:
    page.goto(url)
    wait_idle(page)
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Directory on the server").click()
    wait_idle(page)
    sidebar.get_by_label("Dataset directory").fill(str(dest))
    sidebar.get_by_label("Dataset directory").press("Enter")
    wait_idle(page)
    sidebar.get_by_role("button", name="Open directory").click()
    wait_idle(page)
    expect(sidebar.get_by_text(f"Showing: {dest}")).to_be_visible()


def test_imported_platform_session_replays(page, app_url, imported, artifacts):
    dest, session = imported
    _open_directory(page, app_url, dest)
    expect(page.get_by_role("heading", name="Data: Platform sample (imported)")).to_be_visible()
    # Real data: no synthetic-corpus banner.
    expect(page.get_by_text("is a synthetic corpus")).to_have_count(0)

    if not (ROOT / "pages" / "replay.py").is_file():
        page.screenshot(path=str(artifacts / "import_platform.png"), full_page=True)
        return

    page.get_by_test_id("stSidebarNavLink").filter(has_text="Replay").click()
    wait_idle(page)
    expect(page.get_by_role("heading", name="Replay")).to_be_visible()
    picker = page.get_by_role("combobox", name="Session")
    if session.id not in picker.input_value():
        picker.click()
        page.get_by_role("option").filter(has_text=session.id).click()
        wait_idle(page)
    expect(picker).to_have_value(re.compile(re.escape(session.id)))

    # To the last action: the whole drawing, and the chat that came with it.
    page.get_by_role("heading", name="Replay").click()  # focus on the page, not the session picker
    page.keyboard.press("End")
    n = len(session.actions)
    expect(page.get_by_text(f"Action {n} of {n}").first).to_be_visible()
    first_follower = next(a.content for a in session.actions if a.type == "message" and a.role == "follower")
    expect(page.get_by_text(first_follower).first).to_be_attached()
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(artifacts / "import_platform.png"), full_page=True)
