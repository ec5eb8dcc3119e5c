"""The app's front door in headless chromium: Home with its ways in, the Data page at its own URL
with a row that opens its session in Replay, the one URL path that is not a plain word, and no
developer menu or Deploy button. (A fresh server's first visit at a page's own URL:
test_browser_coding; that every page's URL path is its file's name: test_app.)"""

from __future__ import annotations

import re

import pytest
from conftest import expect_no_error, open_from_menu, point_at_first_link, wait_idle
from playwright.sync_api import expect

pytestmark = pytest.mark.browser

SCREEN = {"width": 1440, "height": 900}
HEADINGS = {
    "data": "Data: Groundwork sample corpus (synthetic)",
    "alignment": "Alignment over task progress",
    "agreement": "Inter-coder agreement",
    "map-editor": "Map editor",
}


def test_home_says_what_groundwork_is_and_where_each_user_starts(page, app_url, artifacts):
    page.set_viewport_size(SCREEN)
    page.goto(app_url)
    wait_idle(page)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Groundwork", exact=True)).to_be_visible()
    expect(main.get_by_text("Dataset in use: Groundwork sample corpus (synthetic): 25 sessions")).to_be_visible()
    expect(main.get_by_text("is a synthetic corpus")).to_be_visible()
    for heading in ("Reviewing the demo", "Annotating", "Leading a coding round"):
        expect(main.get_by_role("heading", name=heading)).to_be_visible()
    for name, href in (("Code", "code"), ("Tasks", "tasks"), ("Adjudicate", "adjudicate")):
        expect(main.get_by_role("link", name=name, exact=True)).to_have_attribute("href", href)
    # No developer options: no Deploy button, and the menu has no rerun or cache entries.
    expect(page.get_by_role("button", name="Deploy")).to_have_count(0)
    page.get_by_test_id("stMainMenu").click()
    expect(page.get_by_test_id("stMainMenuList")).to_be_visible()
    expect(page.get_by_test_id("stMainMenuList").get_by_text(re.compile("Rerun|Clear cache|Deploy"))).to_have_count(0)
    page.keyboard.press("Escape")
    page.mouse.move(0, 0)
    page.screenshot(path=str(artifacts / "home.png"))

    # The reviewer's path: one replay, the alignment figure, the agreement report.
    tour = main.get_by_role("link", name=re.compile(r"^1\. Replay session "))
    session = tour.inner_text().rsplit(" ", 1)[-1]
    tour.click()
    wait_idle(page)
    expect(page).to_have_url(re.compile(f"/replay\\?session={session}"))
    expect(page.locator(".rp-root")).to_have_attribute("data-step", "0")
    for step, heading in (
        ("2. The alignment figure", HEADINGS["alignment"]),
        ("3. The agreement report", HEADINGS["agreement"]),
    ):
        open_from_menu(page, "Home")
        page.get_by_role("link", name=step).click()
        wait_idle(page)
        expect(page.get_by_role("heading", name=heading)).to_be_visible()
        expect_no_error(page)


def test_data_page_at_its_own_url_and_a_row_opens_replay(page, app_url, artifacts):
    page.set_viewport_size(SCREEN)
    page.goto(f"{app_url}/data")
    wait_idle(page)
    expect(page.get_by_role("heading", name=HEADINGS["data"])).to_be_visible()
    expect(page.get_by_text("synthetic corpus").first).to_be_visible()
    frames = page.get_by_test_id("stDataFrame")
    expect(frames.first).to_be_visible()
    assert frames.count() >= 2
    page.screenshot(path=str(artifacts / "data.png"))
    expect(page.get_by_role("heading", name="Sessions")).to_be_visible()
    sessions = frames.last
    sessions.scroll_into_view_if_needed()
    wait_idle(page)
    # The first row's "Replay" link, where the table draws it; a click there opens a tab.
    x, y = point_at_first_link(sessions)
    with page.context.expect_page(timeout=15_000) as opened:
        page.mouse.click(x, y)
    replay = opened.value
    replay.wait_for_load_state()
    wait_idle(replay)
    expect(replay).to_have_url(re.compile(r"/replay\?session=S01"))
    expect(replay.get_by_role("combobox", name="Session")).to_have_value(re.compile("^S01"))
    replay.close()
    # The one URL path that is not a plain word answers too, with the app's sidebar.
    page.goto(f"{app_url}/map-editor")
    wait_idle(page)
    expect(page.get_by_role("heading", name=HEADINGS["map-editor"]).first).to_be_visible()
    expect(page.get_by_test_id("stSidebar").get_by_role("heading", name="Dataset")).to_be_visible()
