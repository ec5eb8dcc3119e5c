"""Chosen filter values are read in full at 1280 and 1440 wide: on every analysis page, with both
conditions and both roles chosen, no chip is cut ("visible (..." before) and none is scrolled out of
its box."""

from __future__ import annotations

import pytest
from conftest import expect_no_error, wait_idle

pytestmark = pytest.mark.browser

PAGES = ("alignment", "acts", "misalignment", "outcomes")
CUT = """() => {
    const out = [];
    for (const el of document.querySelectorAll('[data-tag] > span[title], [data-testid=stMultiSelectTagsContainer]')) {
        if (el.closest('[data-testid=stSidebar]')) continue;
        if (el.scrollWidth > el.clientWidth + 1) out.push(el.getAttribute('title') || el.innerText.slice(0, 60));
    }
    return out;
}"""


@pytest.mark.parametrize("width,height", [(1280, 720), (1440, 900)])
def test_chosen_filters_are_not_cut(browser, app_url, width, height):
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        for name in PAGES:
            page.goto(f"{app_url}/{name}?conditions=visible&conditions=not_visible&roles=guide&roles=follower")
            wait_idle(page, 60_000)
            expect_no_error(page)
            page.locator(".st-key-an_filters [data-tag]").first.wait_for()
            chips = page.evaluate("() => [...document.querySelectorAll('[data-tag] > span[title]')].map(e => e.title)")
            assert {"Guide", "Follower", "visible", "not visible"} <= set(chips), (name, chips)
            assert page.evaluate(CUT) == [], (name, width)
    finally:
        context.close()


ELLIPSIS = """() => {
    const out = [];
    for (const el of document.querySelectorAll('[data-testid=stMain] *')) {
        if (el.children.length === 0 && el.innerText && el.scrollWidth > el.clientWidth + 1
            && getComputedStyle(el).textOverflow === 'ellipsis') out.push(el.innerText.slice(0, 60));
    }
    return out;
}"""


def test_no_page_cuts_its_text_at_1280(browser, app_url):
    """Every page of the menu at 1280 x 720 (the narrower width users have): no text the page draws
    in the page itself is cut with an ellipsis (tables drawn on a canvas aside)."""
    import app

    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    try:
        for s in [s for group in app.PAGES.values() for s in group]:
            page.goto(f"{app_url}/{'' if s is app.DEFAULT else s.file}")
            wait_idle(page, 60_000)
            expect_no_error(page)
            assert page.evaluate(ELLIPSIS) == [], s.file
    finally:
        context.close()
