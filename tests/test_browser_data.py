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
