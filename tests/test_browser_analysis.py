"""The analysis pages in headless chromium at 1440 x 900: every figure is drawn with its download
buttons, reads right (no axis label runs into the legend, error bars and bands say what they are in
the legend, bars carry their n, no p-value prints as 0.000) and is saved as a screenshot
(tests/artifacts/analysis_*.png); clicking a point lists the actions behind it, whose link opens
that moment in Replay; a chart downloads as PNG, SVG and CSV."""

from __future__ import annotations

import re

import pytest
from conftest import expect_no_error, module_tab, open_from_menu, point_at_first_link, wait_idle, wait_plotly_drawn
from playwright.sync_api import expect

import app
from components.alignment_charts import SESSION_BANDS
from components.chart import WILSON_BANDS, WILSON_BARS, WILSON_BARS_K

pytestmark = pytest.mark.browser

# page -> its figures: (chart key, what its interval legend entry says; None: a chart without
# intervals, "" a chart without a legend)
PAGES = {
    "alignment": [("align_progress", WILSON_BANDS), ("align_dyads", SESSION_BANDS)],
    "acts": [("acts_shares", None), ("acts_alignment", WILSON_BARS)],
    "misalignment": [("why_reasons", WILSON_BARS_K), ("why_curves", WILSON_BANDS), ("why_before", WILSON_BARS_K)],
    "outcomes": [("out_figure", None)],
    "split": [("split_objective", "")],
}

TITLES = {s.file: s.title for screens in app.PAGES.values() for s in screens}


def _boxes(locator) -> list[dict]:
    return [locator.nth(i).bounding_box() for i in range(locator.count())]


def _overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


def _reads_right(plot, key: str, interval: str | None) -> None:
    """No tick label or axis title overlaps a legend entry; an interval chart names its interval."""
    ticks = _boxes(plot.locator(".xtick text"))
    titles = _boxes(plot.locator(".g-xtitle text, .g-x2title text, .g-x3title text"))
    legend = plot.locator(".legend .traces")
    assert ticks and legend.count(), key
    for entry in _boxes(legend):
        clash = [t for t in ticks + titles if _overlap(t, entry)]
        assert not clash, f"{key}: an axis label overlaps the legend"
    entries = [legend.nth(i).text_content() for i in range(legend.count())]
    if interval:
        assert interval in entries, entries


def _act_bar_counts() -> list[int]:
    """What the act chart's bars must print: one n per act and condition, 0 where a condition has
    no such act, computed here from the same data."""
    from analysis.filters import Filters
    from corpus.loading.dataset import load_sample
    from services.alignment import Scope, acts_by_condition

    shares, _, _ = acts_by_condition(Scope(load_sample(), Filters(), acts="majority"))
    expected = shares.pivot(index="code", columns="condition", values="n").fillna(0).astype(int).to_numpy().ravel()
    return sorted(expected.tolist())


def expected_first_action() -> dict:
    """The first action behind that point, computed here from the same data."""
    from analysis.filters import Filters
    from corpus.loading.dataset import load_sample
    from services.alignment import Scope, curve_actions

    rows = curve_actions(Scope(load_sample(), Filters()), "coverage", 5, "team_goal", "not_visible", 2)
    return rows.iloc[0].to_dict()


@pytest.fixture(scope="module")
def tab(shared_context, app_url):
    """One tab for the module, at 1440 x 900 on the sample corpus, which goes from page to page through
    the menu as a reader does (one session of the app)."""
    with module_tab(shared_context) as page:
        page.goto(app_url)
        wait_idle(page, 60_000)
        yield page


@pytest.mark.parametrize("name", list(PAGES))
def test_every_figure_is_drawn_with_its_downloads(tab, artifacts, name):
    page = tab
    open_from_menu(page, TITLES[name], 60_000)
    expect_no_error(page)
    expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
    for key, interval in PAGES[name]:
        block = page.locator(f".st-key-{key}_block")
        block.scroll_into_view_if_needed()
        plot = block.locator(".js-plotly-plot")
        expect(plot).to_be_visible(timeout=30_000)
        assert plot.locator(".trace").count() > 0  # not an empty chart
        for label in ("PNG", "SVG", "CSV"):
            expect(block.get_by_role("button", name=label)).to_be_visible()
        expect(block.locator(".g-ytitle")).not_to_have_count(0)  # axis titles drawn
        wait_plotly_drawn(page, f".st-key-{key}_block")  # nothing moves any more
        if interval != "":
            _reads_right(plot, key, interval)
        block.screenshot(path=str(artifacts / f"analysis_{name}_{key}.png"))
    main_text = page.get_by_test_id("stMain").inner_text()
    assert "0.000" not in main_text.replace("0.0000", "")  # p-values print as "< 0.001"
    if name == "acts":
        bars = page.locator(".st-key-acts_shares_block .js-plotly-plot .bartext")
        assert sorted(int(t) for t in bars.all_text_contents() if t.strip()) == _act_bar_counts()


def test_clicking_a_point_lists_its_actions_and_a_link_opens_replay_there(tab, artifacts):
    page = tab
    open_from_menu(page, TITLES["alignment"], 60_000)
    chart = page.locator(".st-key-align_progress .js-plotly-plot")
    chart.scroll_into_view_if_needed()
    wait_plotly_drawn(page, ".st-key-align_progress_block")  # the points stay where they are
    # The third point of the first line: the team-goal share of not-visible sessions at 40-60 % of the route.
    chart.locator(".scatterlayer .trace path.point").nth(2).click(force=True)
    wait_idle(page, 60_000)
    box = page.locator(".st-key-align_progress_rows_box")
    expect(box).to_be_visible(timeout=30_000)
    expect(
        box.get_by_text(re.compile(r"Actions behind: Team goal clear \(t3\), not visible, route coverage 40% to 60%"))
    ).to_be_visible()
    box.scroll_into_view_if_needed()
    box.screenshot(path=str(artifacts / "analysis_alignment_actions_behind_a_point.png"))
    first = expected_first_action()
    # The first row's "open" link, where the table draws it; a click opens a new tab on Replay.
    x, y = point_at_first_link(box.get_by_test_id("stDataFrame"))
    with page.context.expect_page(timeout=15_000) as opened:
        page.mouse.click(x, y)
    replay = opened.value
    replay.set_viewport_size({"width": 1440, "height": 900})
    wait_idle(replay, 60_000)
    sid, step = first["session_id"], int(first["action no."]) - 1  # the link's step counts from 0
    expect(replay).to_have_url(re.compile(rf"/replay\?session={sid}&step={step}(&|$)"))
    expect(replay.locator(".rp-root")).to_have_attribute("data-step", str(step), timeout=30_000)
    expect(replay.locator(".rp-root")).to_have_attribute("data-step", str(step))
    replay.screenshot(path=str(artifacts / "analysis_click_through_replay.png"))
    replay.close()


def test_a_chart_downloads_as_png_svg_and_csv(tab, tmp_path, app_url):
    page = tab
    page.goto(f"{app_url}/outcomes")  # by its link: the shared tab may show Outcomes already
    wait_idle(page, 60_000)
    block = page.locator(".st-key-out_figure_block")
    expect(block.locator(".js-plotly-plot")).to_be_visible(timeout=30_000)
    got = {}
    for label in ("PNG", "SVG", "CSV"):
        with page.expect_download(timeout=90_000) as download:
            block.get_by_role("button", name=label).click()
        path = tmp_path / download.value.suggested_filename
        download.value.save_as(path)
        got[label] = path
    assert got["PNG"].name == "session_outcomes.png" and got["PNG"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert got["SVG"].read_text().lstrip().startswith("<svg")
    csv = got["CSV"].read_text().splitlines()
    assert csv[0].startswith("session_id,condition,split,final_accuracy") and len(csv) == 26
