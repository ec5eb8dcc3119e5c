"""A fourth domain in headless chromium, added as a lab adds one: the toy domain's package
(tests/toy_domain.py: a reader, a replay hook and one Domain) installed where the server's Python
finds it, its one entry point in the group ``groundwork.domains``, and a toy dataset in the data
directory. Nothing else changes: the dataset is offered in the sidebar's picker, the menu shows the
screens its entry names, Home speaks of four kinds of data, and the Replay screen steps through an
episode in the tile player, in the browser."""

from __future__ import annotations

import os

import pytest
import toy_domain
from conftest import expect_no_error, open_from_menu, pick_dataset, served_app, wait_idle
from playwright.sync_api import expect

from corpus.loading.catalog import key_of

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def toy_app(tmp_path_factory):
    """A served app whose Python has the toy domain installed (its folder on PYTHONPATH, as pip would
    put it in site-packages), with a toy dataset among its datasets."""
    data = tmp_path_factory.mktemp("toy_app")
    site = toy_domain.install(tmp_path_factory.mktemp("site"))
    dataset = toy_domain.write_toy_dataset(data / "datasets" / "toy")
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    with served_app(data, {"PYTHONPATH": path}) as url:
        yield url, key_of(dataset)


def _menu(page) -> list[str]:
    """The menu's screens, by title (each link's last line: the icon's name comes first)."""
    return [
        t.strip().splitlines()[-1] for t in page.get_by_test_id("stSidebarNav").get_by_role("link").all_inner_texts()
    ]


def test_a_fourth_domain_is_offered_and_replays_in_the_browser(page, toy_app, artifacts):
    url, key = toy_app
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(url)
    wait_idle(page)
    assert "Alignment" in _menu(page)  # the sample corpus: every Map Task screen
    pick_dataset(page, "Toy walks")
    expect_no_error(page)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Groundwork", exact=True)).to_be_visible()
    expect(
        main.get_by_text("four kinds of data: Map Task sessions, kitchen runs, theory-of-mind benchmarks and toy")
    ).to_be_visible()
    expect(main.get_by_text("Dataset in use: Toy walks: 2 episodes")).to_be_visible()
    expect(main.get_by_text("Toy walks is synthetic", exact=False)).to_be_visible()
    assert _menu(page) == ["Home", "Replay"]
    page.screenshot(path=str(artifacts / "toy_home.png"), full_page=True)

    open_from_menu(page, "Replay")
    expect_no_error(page)
    root = page.locator(".tp-root")
    expect(root).to_have_attribute("data-step", "0", timeout=30_000)
    assert "unit=e1" in page.url
    page.get_by_role("heading", name="Replay").click()  # the keys go to the player, as on Map Task's
    page.keyboard.press("End")
    expect(root).to_have_attribute("data-step", "3")
    expect(root.locator(".tp-messages")).to_contain_text("arrived at the well")
    expect(root.locator(".tp-caption")).to_contain_text("Step 3")
    page.keyboard.press("ArrowLeft")
    expect(root).to_have_attribute("data-step", "2")
    expect(root.locator(".tp-messages")).to_contain_text("half way")
    page.screenshot(path=str(artifacts / "toy_replay.png"), full_page=True)

    # Another episode, picked: its first step; a link to it opens it again.
    picker = main.get_by_role("combobox", name="Episode")
    picker.click()
    page.get_by_role("option", name="e2", exact=True).click()
    wait_idle(page)
    expect(root).to_have_count(1)  # the first episode's player gone once the page's run has ended
    expect(root).to_have_attribute("data-step", "0")
    expect(root.locator(".tp-messages")).to_contain_text("here")
    assert "unit=e2" in page.url
    page.goto(page.url)
    wait_idle(page)
    expect(page.get_by_role("combobox", name="Episode")).to_have_value("e2")
    expect(page.locator(".tp-root")).to_have_attribute("data-step", "0", timeout=30_000)

    # A Map Task screen at its address says what it reads, and where this dataset is shown.
    page.goto(f"{url}/alignment?dataset={key}")
    wait_idle(page)
    expect(main.get_by_text("holds toy episodes. This screen reads Map Task sessions")).to_be_visible()
    expect_no_error(page)
