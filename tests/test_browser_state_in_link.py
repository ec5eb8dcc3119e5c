"""State in the link, in headless chromium: the analysis filters set on a page are in its address, a
reload keeps them, and a filtered figure's downloads say the filter in their file name and, for the
CSV, in a first line."""

from __future__ import annotations

import pytest
from conftest import expect_no_error, wait_idle
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_filters_survive_a_reload_and_name_the_downloads(page, app_url, tmp_path):
    page.goto(f"{app_url}/outcomes?conditions=visible&roles=guide")
    wait_idle(page, 60_000)
    expect_no_error(page)
    page.locator(".st-key-an_filters [data-tag]").first.wait_for()
    chips = page.evaluate("() => [...document.querySelectorAll('[data-tag] > span[title]')].map(e => e.title)")
    assert set(chips) == {"Guide", "visible"}, chips
    page.reload()
    wait_idle(page, 60_000)
    assert "conditions=visible" in page.url and "roles=guide" in page.url
    expect(page.locator(".st-key-an_filters").get_by_text("Guide", exact=True).first).to_be_visible()
    block = page.locator(".st-key-out_figure_block")
    expect(block.locator(".js-plotly-plot")).to_be_visible(timeout=30_000)
    with page.expect_download(timeout=90_000) as download:
        block.get_by_role("button", name="CSV").click()
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name == "session_outcomes_roles-guide_conditions-visible.csv"
    lines = path.read_text().splitlines()
    assert lines[0] == "# Filters: roles = guide; conditions = visible"
    assert lines[1].startswith("session_id,condition,split,final_accuracy")
    assert {line.split(",")[1] for line in lines[2:]} == {"visible"}
