"""The app in headless chromium: the Data page shows the sample corpus tables."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import wait_idle

pytestmark = pytest.mark.browser


def test_data_page_shows_the_session_table(page, app_url, artifacts):
    page.goto(app_url)
    wait_idle(page)
    expect(page.get_by_role("heading", name="Data: ")).to_be_visible()
    expect(page.get_by_text("synthetic corpus").first).to_be_visible()
    frames = page.get_by_test_id("stDataFrame")
    expect(frames.first).to_be_visible()
    assert frames.count() >= 2
    expect(page.get_by_role("heading", name="Sessions")).to_be_visible()
    page.screenshot(path=str(artifacts / "data_page.png"), full_page=True)


def test_a_deep_link_is_the_first_visit_of_a_fresh_server(page, tmp_path):
    """A shared link to a page must open with the app's sidebar, even as the server's first visit."""
    from conftest import served_app

    with served_app(tmp_path / "data") as url:
        page.goto(f"{url}/alignment")
        wait_idle(page)
        expect(page.get_by_role("heading", name="Alignment over task progress")).to_be_visible()
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar.get_by_role("heading", name="Dataset")).to_be_visible()
        expect(sidebar.get_by_role("link", name="Data")).to_be_visible()
        # Not the folder's automatic menu (which would list the bare file names).
        expect(sidebar.get_by_role("link", name="app", exact=True)).to_have_count(0)
