"""The app asks nothing of the internet: a reviewer's demo on a machine without network draws every
screen it opens, and no page, icon or font is fetched from elsewhere."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest
from conftest import expect_no_error, wait_idle
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

LOCAL = {"127.0.0.1", "localhost", ""}


@pytest.mark.parametrize("path,heading", [("", "Groundwork"), ("data", "Data"), ("alignment", "Alignment")])
def test_a_page_fetches_nothing_from_outside(app_url, browser, path, heading):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    outside: list[str] = []
    context.on("request", lambda r: outside.append(r.url) if urlparse(r.url).hostname not in LOCAL else None)
    page = context.new_page()
    page.goto(f"{app_url}/{path}")
    wait_idle(page)
    expect_no_error(page)
    expect(page.locator("h1").first).to_contain_text(heading, timeout=30_000)
    page.wait_for_load_state("networkidle")
    context.close()
    assert outside == []
