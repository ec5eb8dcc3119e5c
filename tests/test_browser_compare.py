"""The Compare page in headless chromium: the sample corpus's two runs on the leaderboard, the
overlay, the confusions and the ablation (screenshots at 1440x900), and a click on the overlay
opens Replay at that action."""

from __future__ import annotations

import re

import pytest
from conftest import expect_no_error, open_from_menu, wait_idle
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

RUN_NAMES = ["Simulated LLM (persona prompt)", "Simulated LLM (persona + mental model)"]


def _tab(page, name: str) -> None:
    page.get_by_role("tab", name=name).click()
    wait_idle(page, timeout=120_000)
    page.wait_for_timeout(600)  # plotly finishes drawing


def _panel(page):
    """The open tab's panel (the other panels keep their last content, hidden)."""
    return page.locator("[role=tabpanel]:not([hidden])")


def _no_error_boxes(page) -> None:
    expect_no_error(page)
    expect(page.locator("[data-testid=stAlertContentError]")).to_have_count(0)


def _open_compare(page, app_url: str) -> None:
    """Open Replay first (its session and step live in the session), then Compare from the sidebar."""
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{app_url}/replay?session=S01&step=3")
    wait_idle(page, timeout=60_000)
    open_from_menu(page, "Compare", timeout=240_000)
    expect(page.get_by_role("heading", name="Models against people")).to_be_visible(timeout=60_000)


def test_the_two_runs_on_every_view_and_a_click_opens_replay(page, app_url, artifacts):
    _open_compare(page, app_url)
    tables = page.get_by_test_id("stTable")
    # The first load scores both runs; then the paper's five score groups of next-action prediction.
    expect(tables).to_have_count(5, timeout=240_000)
    for name, setting in zip(RUN_NAMES, ["persona", "persona+mental_model"]):
        expect(tables.first.get_by_text(f"{name} · {setting}", exact=True)).to_be_visible()
    expect(page.get_by_text("synthetic corpus", exact=False).first).to_be_visible()
    _no_error_boxes(page)
    page.get_by_role("tab", name="Leaderboard").evaluate("el => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts / "compare_leaderboard.png"))

    _tab(page, "Confusions")
    expect(_panel(page).get_by_test_id("stPlotlyChart")).to_have_count(
        3, timeout=60_000
    )  # a matrix per run, the recall bars
    charts = _panel(page).locator(".js-plotly-plot")
    titles = [re.sub("<[^>]+>", "", c.evaluate("el => el.layout.title.text")) for c in charts.all()[:2]]
    assert [t.split(" · ")[0] for t in titles] == RUN_NAMES[::-1]  # leaderboard order: by model, then setting
    _no_error_boxes(page)
    charts.first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_confusions.png"))

    _tab(page, "Ablation")
    expect(_panel(page).get_by_test_id("stPlotlyChart")).to_have_count(1, timeout=60_000)
    expect(_panel(page).get_by_test_id("stDataFrame")).to_have_count(1, timeout=60_000)
    _no_error_boxes(page)
    _panel(page).locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_ablation.png"))

    _tab(page, "Slices")
    _no_error_boxes(page)
    _panel(page).locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_slices.png"))

    _tab(page, "Instances")
    _no_error_boxes(page)
    expect(_panel(page).get_by_test_id("stDataFrame")).to_be_visible()
    _panel(page).get_by_test_id("stDataFrame").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_instances.png"))

    _tab(page, "Overlay")
    plot = _panel(page).locator(".js-plotly-plot").first
    expect(plot).to_be_visible(timeout=60_000)
    names = plot.evaluate("el => el.data.map(t => t.name)")
    assert {"person", *[f"{n} · {s}" for n, s in zip(RUN_NAMES, ["persona", "persona+mental_model"])]} == set(names)
    _no_error_boxes(page)
    plot.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_overlay.png"))

    # Hover a point of the first run's team-goal track, read which action plotly shows, click there:
    # Replay opens at that action.
    session_id = plot.evaluate("el => el.data[1].customdata[0][0]")
    point = plot.locator(".scatterlayer .trace").nth(1).locator("path.point").nth(7)
    box = point.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    label = page.locator(".hoverlayer .hovertext").first
    expect(label).to_be_visible(timeout=15_000)
    step = int(re.search(r"Action (\d+)", label.text_content()).group(1))
    page.mouse.click(x, y)
    expect(page).to_have_url(re.compile(rf"/replay\?session={session_id}&step={step}(&|$)"), timeout=60_000)
    wait_idle(page, timeout=60_000)
    expect(page.locator(".rp-root")).to_have_attribute("data-step", str(step), timeout=30_000)
    page.screenshot(path=str(artifacts / "compare_overlay_to_replay.png"))
