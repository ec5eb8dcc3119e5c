"""The bundled synthetic ToM benchmark in headless chromium, as a reviewer meets it: chosen in the
sidebar, Compare opened from the menu, its leaderboard, a slice chart and an instance with its story."""

from __future__ import annotations

import pytest
from conftest import expect_no_error, open_from_menu, pick_dataset, wait_idle, wait_plotly_drawn
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_a_tom_benchmark_leaderboard_slices_and_an_instance(page, app_url, artifacts):
    page.goto(app_url)
    wait_idle(page)
    pick_dataset(page, "ToM benchmark (synthetic")
    open_from_menu(page, "Compare")
    expect_no_error(page)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Models on a benchmark")).to_be_visible()
    expect(main.get_by_text("is synthetic", exact=False).first).to_be_visible()
    table = main.get_by_test_id("stTable").first
    expect(table.locator("tbody tr")).to_have_count(6)
    expect(table).to_contain_text("synth-large (level1CoT)")
    expect(table.locator("th").nth(1)).to_contain_text("overall (n 852)")
    page.screenshot(path=str(artifacts / "tom_leaderboard.png"))

    main.get_by_role("tab", name="Slices").click()
    wait_idle(page)
    wait_plotly_drawn(page, ".st-key-bench_slice_chart")
    expect(main.get_by_text("Accuracy by mental state", exact=False)).to_be_visible()
    page.screenshot(path=str(artifacts / "tom_slices.png"))

    main.get_by_role("tab", name="Instances").click()
    wait_idle(page)
    expect(main.get_by_text("Choose one below the table", exact=False)).to_be_visible()
    main.get_by_text("Only questions some run got wrong").click()  # every question, not only the missed ones
    wait_idle(page)
    question = main.locator(".st-key-bench_inst_item")
    question.click()
    page.keyboard.type("trial1/type_a_what_7")  # the list is long: typed, as a reader finds one
    page.get_by_role("option", name="trial1/type_a_what_7", exact=True).click()
    wait_idle(page)
    expect(main.get_by_role("heading", name="trial1/type_a_what_7")).to_be_visible()
    expect(main.get_by_text("What is the emotion of", exact=False)).to_be_visible()
    expect(main.get_by_text("Main character:", exact=False)).to_be_visible()
    # The scenario the question asks about is open: scenario 2 (what_7: emotion in scenario 2).
    expect(main.get_by_text("scenario 2 (asked about)")).to_be_visible()
    expect_no_error(page)
    page.screenshot(path=str(artifacts / "tom_instance.png"))
