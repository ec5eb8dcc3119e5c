"""The analysis charts read right at 1440x900 in headless chromium: no axis label runs into the
legend, bars carry their n, error bars and bands say what they are, and no p-value prints as
0.000 (screenshots in tests/artifacts/charts_*.png)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from components.chart import WILSON_BANDS, WILSON_BARS, WILSON_BARS_K
from conftest import wait_idle

pytestmark = pytest.mark.browser

# page -> (chart key, what its interval legend entry says, or None for a chart without intervals)
CHARTS = {
    "acts": [("acts_shares", None), ("acts_alignment", WILSON_BARS)],
    "alignment": [("align_progress", WILSON_BANDS), ("align_dyads", WILSON_BANDS)],
    "misalignment": [("why_reasons", WILSON_BARS_K), ("why_curves", WILSON_BANDS), ("why_before", WILSON_BARS_K)],
    "outcomes": [("out_figure", None)],
}


def _boxes(locator) -> list[dict]:
    return [locator.nth(i).bounding_box() for i in range(locator.count())]


def _overlap(a: dict, b: dict) -> bool:
    return a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"] and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"]


@pytest.mark.parametrize("name", list(CHARTS))
def test_axis_labels_clear_the_legend_and_intervals_are_named(page, app_url, artifacts, name):
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{app_url}/{name}")
    wait_idle(page, 60_000)
    main_text = page.get_by_test_id("stMain").inner_text()
    assert "0.000" not in main_text.replace("0.0000", "")  # p-values print as "< 0.001"
    for key, interval in CHARTS[name]:
        block = page.locator(f".st-key-{key}_block")
        block.scroll_into_view_if_needed()
        plot = block.locator(".js-plotly-plot")
        expect(plot).to_be_visible(timeout=30_000)
        page.wait_for_timeout(400)
        ticks = _boxes(plot.locator(".xtick text"))
        titles = _boxes(plot.locator(".g-xtitle text, .g-x2title text, .g-x3title text"))
        legend = plot.locator(".legend .traces")
        assert ticks and legend.count()
        for entry in _boxes(legend):
            clash = [t for t in ticks + titles if _overlap(t, entry)]
            assert not clash, f"{key}: an axis label overlaps the legend"
        entries = [legend.nth(i).text_content() for i in range(legend.count())]
        if interval:
            assert interval in entries, entries
        block.screenshot(path=str(artifacts / f"charts_{name}_{key}.png"))


def test_the_act_chart_prints_n_on_every_bar(page, app_url):
    from analysis.filters import Filters
    from corpus.dataset import load_sample
    from services.alignment import Scope, acts_by_condition

    shares, _, _ = acts_by_condition(Scope(load_sample(), Filters(), acts="majority"))
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{app_url}/acts")
    wait_idle(page, 60_000)
    plot = page.locator(".st-key-acts_shares_block .js-plotly-plot")
    expect(plot).to_be_visible(timeout=30_000)
    shown = sorted(int(t) for t in plot.locator(".bartext").all_text_contents() if t.strip())
    # One number per act and condition: its n, 0 where the condition has no such act.
    expected = shares.pivot(index="code", columns="condition", values="n").fillna(0).astype(int).to_numpy().ravel()
    assert shown == sorted(expected.tolist())
