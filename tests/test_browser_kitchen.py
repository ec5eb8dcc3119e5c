"""The real Collab-Overcooked run in headless chromium: imported into a folder the served app offers,
opened from a link on the Kitchen screen, replayed step by step with Next, the grid and the step's
requests following; a Map Task screen on that dataset says what it reads."""

from __future__ import annotations

import shutil

import pytest
from conftest import expect_no_error, wait_idle
from playwright.sync_api import expect
from test_overcooked_import import COLLAB, REAL_RUN

from corpus.catalog import key_of

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def kitchen(app_server, tmp_path_factory):
    if not (COLLAB / REAL_RUN).is_file():
        pytest.skip(f"real Collab-Overcooked run not available at {COLLAB}")
    from corpus.importers import run_import

    src = tmp_path_factory.mktemp("runs") / "azure-gpt-4o" / "json" / "baked_bell_pepper"
    src.mkdir(parents=True)
    shutil.copy(COLLAB / REAL_RUN, src / REAL_RUN)
    return run_import("overcooked", src.parents[2], app_server.datasets / "kitchen", name="Collab-Overcooked run")


def test_the_real_run_replays_step_by_step(page, app_url, kitchen, artifacts):
    from corpus.kitchen_dataset import load_kitchen

    (run,) = load_kitchen(kitchen).runs
    page.goto(f"{app_url}/kitchen?dataset={key_of(kitchen)}&run={run.id}&step=0")
    wait_idle(page)
    expect_no_error(page)
    expect(page.get_by_role("heading", name="Kitchen", exact=True)).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="Request units")).to_contain_text("4")
    grid = page.locator(".st-key-kitchen_grid")
    grid.scroll_into_view_if_needed()
    expect(grid.get_by_text("Step 0: score 0", exact=True)).to_be_visible()
    page.screenshot(path=str(artifacts / "kitchen_replay_step0.png"), full_page=True)
    for step in range(1, 6):
        page.get_by_role("button", name="Next", exact=True).click()
        wait_idle(page)
        expect(grid.get_by_text(f"Step {step}: score 0", exact=True)).to_be_visible()
    # Step 5: the Chef's third request for the hand-over, already done at this step: redundant.
    units = page.get_by_test_id("stDataFrame").filter(has=page.get_by_text("outcome"))
    expect(page.get_by_text("Request units sent")).to_be_visible()
    expect(units.first).to_be_visible()
    assert "step=5" in page.url
    page.screenshot(path=str(artifacts / "kitchen_replay_step5.png"), full_page=True)
    # The last step delivers the order.
    page.goto(f"{app_url}/kitchen?dataset={key_of(kitchen)}&run={run.id}&step={run.n_steps - 1}")
    wait_idle(page)
    expect(page.locator(".st-key-kitchen_grid").get_by_text(f"Step {run.steps[-1].step}: score 20")).to_be_visible()
    # A Map Task screen on this dataset says what it reads.
    page.goto(f"{app_url}/alignment?dataset={key_of(kitchen)}")
    wait_idle(page)
    expect(page.get_by_text("holds kitchen runs")).to_be_visible()
    expect_no_error(page)
