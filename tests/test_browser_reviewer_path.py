"""The reviewer's path at 1280x720: Home's "The alignment figure" lands on the figure (the filters
folded into one line that says what they are set to, and open to change)."""

from __future__ import annotations

import pytest
from conftest import expect_no_error, wait_idle, wait_plotly_drawn
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)])
def test_the_alignment_figure_link_lands_on_the_figure(browser, app_url, artifacts, size):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = context.new_page()
    try:
        page.goto(app_url)
        wait_idle(page)
        page.get_by_role("link", name="2. The alignment figure").click()
        wait_idle(page, 60_000)
        expect(page.get_by_role("heading", name="Alignment over task progress")).to_be_visible()
        assert "view=figure" in page.url
        wait_plotly_drawn(page, ".st-key-align_progress_block")
        chart = page.locator(".st-key-align_progress .js-plotly-plot").first
        box = chart.bounding_box()
        assert box is not None and box["y"] + box["height"] / 2 < size[1], box  # in view without scrolling
        folded = page.get_by_test_id("stExpander").filter(has_text="Filters: both roles")
        expect(folded).to_be_visible()
        folded.get_by_text("Filters: both roles").click()  # open to change
        expect(page.get_by_text("Condition", exact=True).first).to_be_visible()
        expect_no_error(page)
        page.screenshot(path=str(artifacts / f"reviewer_alignment_figure_{size[0]}.png"))
    finally:
        context.close()
