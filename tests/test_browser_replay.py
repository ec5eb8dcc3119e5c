"""The Replay page in headless chromium: the canvas renders, the right arrow steps one action, and
a mid-session frame of each condition is saved as a screenshot."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import wait_idle

pytestmark = pytest.mark.browser


def _sessions() -> dict[str, tuple[str, int]]:
    """The first session of each condition in the sample corpus, and its number of actions."""
    from corpus.dataset import load_sample

    corpus = load_sample()
    out: dict[str, tuple[str, int]] = {}
    for s in corpus.sessions.values():
        out.setdefault(s.condition, (s.id, len(s.actions)))
    return out


def _open(page, app_url: str, session_id: str, step: int) -> None:
    page.goto(f"{app_url}/replay?session={session_id}&step={step}")
    wait_idle(page)
    canvas = page.locator(".st-key-replay_canvas_guide .js-plotly-plot")
    expect(canvas).to_be_visible(timeout=30_000)
    # The grid is one heatmap trace (drawn as an image inside the plot's SVG).
    expect(canvas.locator(".heatmaplayer image")).to_have_count(1)
    expect(page.locator("#rp-transcript")).to_have_attribute("data-current", str(step))


def test_replay_renders_the_canvas_and_the_right_arrow_steps_one_action(page, app_url):
    session_id, n = _sessions()["visible"]
    _open(page, app_url, session_id, 5)
    expect(page.get_by_role("heading", name="Replay")).to_be_visible()
    expect(page.get_by_text("Condition: visible.")).to_be_visible()
    expect(page.locator(".st-key-replay_timeline .js-plotly-plot")).to_be_visible()
    current = page.locator("#rp-transcript .rp-cur")
    expect(current).to_have_count(1)
    expect(current).to_have_attribute("data-pos", "5")

    page.get_by_role("heading", name="Replay").click()  # keyboard focus on the page, not a widget
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(rf"session={session_id}&step=6$"))
    wait_idle(page)
    expect(page.locator("#rp-transcript")).to_have_attribute("data-current", "6")
    expect(page.locator("#rp-transcript .rp-cur")).to_have_attribute("data-pos", "6")

    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"step=5$"))
    wait_idle(page)
    expect(page.locator("#rp-transcript .rp-cur")).to_have_attribute("data-pos", "5")


@pytest.mark.parametrize("condition", ["visible", "not_visible"])
def test_mid_session_screenshot(page, app_url, artifacts, condition):
    session_id, n = _sessions()[condition]
    page.set_viewport_size({"width": 1440, "height": 1700})
    _open(page, app_url, session_id, n // 2)
    expect(page.get_by_text(f"Condition: {condition.replace('_', ' ')}.")).to_be_visible()
    expect(page.locator("#rp-transcript .rp-cur")).to_be_visible()
    page.wait_for_timeout(500)  # let plotly finish drawing
    page.screenshot(path=str(artifacts / f"replay_{condition}.png"))
