"""The Compare page in headless chromium: the sample corpus's two runs on the leaderboard, the
overlay, the confusions and the ablation (screenshots at 1440x900), and a click on the overlay
opens Replay at that action."""

from __future__ import annotations

import re

import pytest
from conftest import expect_no_error, open_from_menu, wait_idle, wait_plotly_drawn
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

RUN_NAMES = ["Simulated LLM (persona prompt)", "Simulated LLM (persona + mental model)"]
PANEL = "[role=tabpanel]:not([hidden])"  # the open tab's panel

# Where a Plotly chart draws point ``index`` of trace ``trace``, in page coordinates: its data mapped
# through the trace's own axes (whose offsets are from the chart's top left); and its customdata.
POINT_ON_PAGE = """(gd, [trace, index]) => {
    const t = gd._fullData[trace];
    const xa = gd._fullLayout[t.xaxis.replace('x', 'xaxis')];
    const ya = gd._fullLayout[t.yaxis.replace('y', 'yaxis')];
    const box = gd.getBoundingClientRect();
    return [box.left + xa._offset + xa.d2p(t.x[index]), box.top + ya._offset + ya.d2p(t.y[index]), t.customdata[index]];
}"""


def _tab(page, name: str, charts: int = 0) -> None:
    """Open a tab and wait for its run; with ``charts``, until that many Plotly charts (at least)
    in its panel have drawn and nothing in them moves any more."""
    page.get_by_role("tab", name=name).click()
    wait_idle(page, timeout=120_000)
    if charts:
        wait_plotly_drawn(page, PANEL, charts, timeout=60_000)


def _panel(page):
    """The open tab's panel (the other panels keep their last content, hidden)."""
    return page.locator(PANEL)


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
    # The first load scores both runs; then the paper's five score groups of next-action prediction,
    # but SBERT similarity when it is undefined for every run (without the similarity extra): that
    # group is one line saying so.
    expect(tables.nth(3)).to_be_visible(timeout=240_000)
    wait_idle(page, timeout=60_000)
    hidden = page.get_by_text("Not shown, undefined for every run: SBERT (message)").count()
    expect(tables).to_have_count(5 - hidden)
    for name, setting in zip(RUN_NAMES, ["persona", "persona+mental_model"]):
        expect(tables.first.get_by_text(f"{name} · {setting}", exact=True)).to_be_visible()
    expect(page.get_by_text("synthetic corpus", exact=False).first).to_be_visible()
    _no_error_boxes(page)
    leaderboard = page.get_by_role("tab", name="Leaderboard")
    leaderboard.evaluate("el => el.scrollIntoView({block: 'start'})")
    expect(leaderboard).to_be_in_viewport()
    expect(tables.first).to_be_in_viewport()
    page.screenshot(path=str(artifacts / "compare_leaderboard.png"))

    _tab(page, "Confusions", charts=3)
    expect(_panel(page).get_by_test_id("stPlotlyChart")).to_have_count(
        3, timeout=60_000
    )  # a matrix per run, the recall bars
    charts = _panel(page).locator(".js-plotly-plot")
    titles = [re.sub("<[^>]+>", "", c.evaluate("el => el.layout.title.text")) for c in charts.all()[:2]]
    assert [t.split(" · ")[0] for t in titles] == RUN_NAMES[::-1]  # leaderboard order: by model, then setting
    _no_error_boxes(page)
    charts.first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_confusions.png"))

    _tab(page, "Ablation", charts=1)
    expect(_panel(page).get_by_test_id("stPlotlyChart")).to_have_count(1, timeout=60_000)
    expect(_panel(page).get_by_test_id("stDataFrame")).to_have_count(1, timeout=60_000)
    _no_error_boxes(page)
    _panel(page).locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_ablation.png"))

    _tab(page, "Slices", charts=1)
    _no_error_boxes(page)
    _panel(page).locator(".js-plotly-plot").first.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_slices.png"))

    _tab(page, "Instances")
    _no_error_boxes(page)
    expect(_panel(page).get_by_test_id("stDataFrame")).to_be_visible()
    _panel(page).get_by_test_id("stDataFrame").scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_instances.png"))

    _tab(page, "Overlay", charts=1)
    plot = _panel(page).locator(".js-plotly-plot").first
    expect(plot).to_be_visible(timeout=60_000)
    names = plot.evaluate("el => el.data.filter(t => !t.legendgroup).map(t => t.name)")
    assert {"person", *[f"{n} · {s}" for n, s in zip(RUN_NAMES, ["persona", "persona+mental_model"])]} == set(names)
    # The colour key: each label's colour in the legend, grouped by dimension.
    key = plot.evaluate("el => el.data.filter(t => t.legendgroup).map(t => [t.legendgroup, t.name])")
    assert {g for g, _ in key} >= {"team_goal"} and len(key) >= 3
    _no_error_boxes(page)
    plot.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "compare_overlay.png"))

    # The eighth point of the first run's team-goal track, placed by the chart's own axes (and drawn
    # there); with the mouse on it plotly shows that action, and a click opens Replay at it.
    x, y, (session_id, step) = plot.evaluate(POINT_ON_PAGE, [1, 7])
    step = int(step)
    drawn = plot.locator(".scatterlayer .trace").nth(1).locator("path.point").nth(7).bounding_box()
    assert (x, y) == (
        pytest.approx(drawn["x"] + drawn["width"] / 2, abs=1),
        pytest.approx(drawn["y"] + drawn["height"] / 2, abs=1),
    )
    page.mouse.move(x, y)
    label = page.locator(".hoverlayer .hovertext").first
    expect(label).to_be_visible(timeout=15_000)
    expect(label).to_have_text(re.compile(rf"^Action {step + 1} · "))
    page.mouse.click(x, y)
    # The click offers the moment as a link that opens Replay in a new tab, as every drill-down does;
    # Compare stays where it was.
    link = page.get_by_role("link", name=f"Open {session_id}, action {step + 1}, in Replay")
    expect(link).to_be_visible(timeout=60_000)
    with page.context.expect_page() as opened:
        link.click()
    replay = opened.value
    expect(replay).to_have_url(re.compile(rf"/replay\?session={session_id}&step={step}(&|$)"), timeout=60_000)
    wait_idle(replay, timeout=60_000)
    expect(replay.locator(".rp-root")).to_have_attribute("data-step", str(step), timeout=30_000)
    replay.screenshot(path=str(artifacts / "compare_overlay_to_replay.png"))
    replay.close()
    assert "/compare" in page.url
