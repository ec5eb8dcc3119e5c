"""The real Collab-Overcooked run in headless chromium: imported into a folder the served app offers,
opened from a link on the Kitchen screen, replayed step by step with Next, the grid and the step's
requests following; a Map Task screen on that dataset says what it reads."""

from __future__ import annotations

import re
import shutil
import time

import pytest
from conftest import expect_no_error, wait_idle
from playwright.sync_api import expect
from test_overcooked_import import COLLAB, REAL_RUN

from corpus.loading.catalog import key_of

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
    from corpus.kitchen.dataset import load_kitchen

    (run,) = load_kitchen(kitchen).runs
    page.goto(f"{app_url}/kitchen?dataset={key_of(kitchen)}&run={run.id}&step=0")
    wait_idle(page)
    expect_no_error(page)
    expect(page.get_by_role("heading", name="Kitchen", exact=True)).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="Request units")).to_contain_text("4")
    player = page.locator(".tp-root")
    player.scroll_into_view_if_needed()
    expect(player.locator(".tp-caption")).to_have_text("Step 0: score 0")
    page.screenshot(path=str(artifacts / "kitchen_replay_step0.png"), full_page=True)
    for step in range(1, 6):
        player.locator("[data-act=next]").click()
        expect(player.locator(".tp-caption")).to_have_text(f"Step {step}: score 0")
    # Step 5: the Chef's third request for the hand-over, already done at this step: redundant.
    units = player.locator(".tp-group[data-kind=request]")
    expect(units.locator(".tp-kind")).to_have_text("Request units sent")
    expect(units.locator(".tp-detail").filter(has_text="Redundant").first).to_be_visible()
    expect(page).to_have_url(re.compile(r"step=5(&|$)"))  # reported once the clicks stopped
    wait_idle(page)
    page.screenshot(path=str(artifacts / "kitchen_replay_step5.png"), full_page=True)
    # The last step delivers the order.
    page.goto(f"{app_url}/kitchen?dataset={key_of(kitchen)}&run={run.id}&step={run.n_steps - 1}")
    wait_idle(page)
    expect(page.locator(".tp-root .tp-caption")).to_have_text(f"Step {run.steps[-1].step}: score 20")
    # A Map Task screen on this dataset says what it reads.
    page.goto(f"{app_url}/alignment?dataset={key_of(kitchen)}")
    wait_idle(page)
    expect(page.get_by_text("holds kitchen runs")).to_be_visible()
    expect_no_error(page)


def test_the_kitchen_replay_keys_and_exports_on_the_sample(page, app_url, tmp_path):
    """On the bundled synthetic runs: Right and Left step, End and Home jump to the last and the first
    step, as in the Map Task replay, and the link follows; the step downloads as PNG and the run as an
    animated GIF with one frame per step."""
    from PIL import Image

    from corpus.kitchen.dataset import load_kitchen
    from corpus.settings import SAMPLES

    sample = SAMPLES / "kitchen-synthetic"
    run = load_kitchen(sample).runs[0]
    page.goto(f"{app_url}/kitchen?dataset={key_of(sample)}&run={run.id}&step=0")
    wait_idle(page)
    expect_no_error(page)
    player = page.locator(".tp-root")
    player.scroll_into_view_if_needed()
    expect(player.locator(".tp-caption")).to_have_text("Step 0: score 0")
    page.get_by_text("Replay a run", exact=True).click()  # the keys go to the page, not a widget
    for key, step in (("ArrowRight", 1), ("ArrowRight", 2), ("ArrowLeft", 1), ("End", run.n_steps - 1), ("Home", 0)):
        page.keyboard.press(key)
        expect(player.locator(".tp-caption")).to_have_text(re.compile(rf"^Step {run.steps[step].step}: score"))
        expect(page).to_have_url(re.compile(rf"step={step}(&|$)"))  # reported once the key is the last
        wait_idle(page)
    got = {}
    for label in ("Step (PNG)", "Run (GIF)"):
        with page.expect_download(timeout=60_000) as download:
            page.get_by_role("button", name=label).click()
        path = tmp_path / download.value.suggested_filename
        download.value.save_as(path)
        got[label] = path
    assert got["Step (PNG)"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(got["Run (GIF)"]) as gif:
        assert gif.format == "GIF" and gif.n_frames == run.n_steps


def test_the_html_player_opens_offline_at_the_step_shown_and_plays(page, app_url, browser, tmp_path):
    """The run as one HTML file: it opens with nothing fetched, at the step the page showed when it was
    downloaded, says the runs are synthetic, and steps and plays by the same keys."""
    from corpus.kitchen.dataset import load_kitchen
    from corpus.settings import SAMPLES

    sample = SAMPLES / "kitchen-synthetic"
    run = max(load_kitchen(sample).runs, key=lambda r: r.n_steps)
    page.goto(f"{app_url}/kitchen?dataset={key_of(sample)}&run={run.id}&step=4")
    wait_idle(page)
    expect_no_error(page)
    player = page.locator(".tp-root")
    player.scroll_into_view_if_needed()
    expect(player).to_have_attribute("data-step", "4")
    player.locator("[data-act=next]").click()
    expect(page).to_have_url(re.compile(r"step=5(&|$)"))  # reported: the export starts here
    wait_idle(page)
    with page.expect_download(timeout=60_000) as download:
        page.get_by_role("button", name="HTML player").click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    offline = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    offline.on("request", lambda r: requests.append(r.url))
    other = offline.new_page()
    other.goto(saved.as_uri())
    exported = other.locator(".tp-root")
    expect(exported).to_have_attribute("data-step", "5")
    expect(exported.locator(".tp-caption")).to_have_text(re.compile(rf"^Step {run.steps[5].step}: score"))
    expect(exported.locator(".rp-title")).to_contain_text(run.id)
    expect(exported.locator(".rp-note")).to_contain_text("Synthetic data")
    other.keyboard.press("End")
    expect(exported).to_have_attribute("data-step", str(run.n_steps - 1))
    other.keyboard.press("Home")
    other.keyboard.press("Space")
    # Playing, offline: it passes step 3 (a poll may fall between two steps, so not "is at step 3").
    other.wait_for_function("() => Number(document.querySelector('.tp-root').dataset.step) >= 3", timeout=10_000)
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
    offline.close()


# Each replay button, and every element in it, whose text is wider than the box it has (cut or
# hidden): the player's own buttons (in its shadow root) and the page's download buttons.
CUT = """([inPlayer, onPage]) => {
    const host = [...document.querySelectorAll('*')].find((e) => e.shadowRoot && e.shadowRoot.querySelector('.tp-root'));
    const buttons = [
        ...inPlayer.map((sel) => [sel, host && host.shadowRoot.querySelector(`.tp-root ${sel}`)]),
        ...onPage.map((key) => [key, document.querySelector(`.st-key-${key} button`)]),
    ];
    const out = [];
    for (const [name, button] of buttons) {
        if (!button) { out.push([name, 'missing']); continue; }
        for (const el of [button, ...button.querySelectorAll('*')]) {
            if (el.scrollWidth > el.clientWidth + 1) out.push([name, el.tagName, el.scrollWidth, el.clientWidth]);
        }
    }
    return out;
}"""
PLAYER_BUTTONS = {
    "[data-act=first]": "First",
    "[data-act=prev]": "Previous",
    "[data-act=next]": "Next",
    "[data-act=last]": "Last",
    "[data-act=png]": "Step (PNG)",
}
PAGE_BUTTONS = {"kitchen_replay_gif": "Run (GIF)", "kitchen_replay_html": "HTML player"}


@pytest.mark.parametrize("width,height", [(1280, 720), (1440, 900)])
def test_the_replay_buttons_show_their_full_labels(browser, app_url, width, height):
    """At 1280 and 1440 wide, First / Previous / Next / Last and the downloads read in full: no
    label is cut or scrolled out of its button, and each shows its whole word."""
    from corpus.settings import SAMPLES

    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    try:
        page.goto(f"{app_url}/kitchen?dataset={key_of(SAMPLES / 'kitchen-synthetic')}&step=0")
        wait_idle(page, 60_000)
        expect_no_error(page)
        player = page.locator(".tp-root")
        player.scroll_into_view_if_needed()
        for selector, label in PLAYER_BUTTONS.items():
            expect(player.locator(selector)).to_contain_text(label)
        for key, label in PAGE_BUTTONS.items():
            expect(page.locator(f".st-key-{key} button").first).to_contain_text(label)  # (and its copy for the help)
        assert page.evaluate(CUT, [list(PLAYER_BUTTONS), list(PAGE_BUTTONS)]) == [], width
    finally:
        context.close()


def test_a_coder_codes_request_units_by_keyboard(tmp_path_factory, page, artifacts):
    """A TGCO task on the bundled kitchen sample, the rule coding it too: a coder opens the Code page
    from the dataset's link, sees the unit, the trace and the kitchen, and codes five units by key."""
    from coding_team import people
    from conftest import served_app, submit_sign_in
    from test_kitchen_coding import KITCHEN

    from analysis import coding as ac
    from analysis.kitchen import coding as kc
    from analysis.kitchen.agreement import RULE
    from analysis.kitchen.metrics import kitchen_metrics
    from corpus import codebook as cbm
    from corpus.kitchen.dataset import load_kitchen
    from corpus.store import Store

    kitchen = load_kitchen(KITCHEN)
    units = kc.unit_table(kitchen_metrics(kitchen.runs))
    items = ac.assign_partitions(ac.sample_items(units, 5, seed=2), 0, seed=2)
    data = tmp_path_factory.mktemp("kitchen_coding")
    store = Store.open(data)
    lead, ann = people(store, lead="lead", ann="coder")
    task = store.create_task(
        lead,
        "TGCO pilot",
        kitchen.name,
        cbm.bundled()["tgco"],
        items,
        [ann],
        seed=2,
        dataset_hash=kitchen.content_hash,
        model_labels={RULE: kc.rule_codes(units, items)},
    )
    keys = ["1", "3", "4", "1", "2"]
    codes = {"1": "effective", "2": "assisted", "3": "redundant", "4": "ineffective"}
    with served_app(data) as url:
        page.goto(f"{url}/code?dataset={key_of(KITCHEN)}")
        wait_idle(page)
        submit_sign_in(page, "ann", "ann-password")
        expect_no_error(page)
        expect(page.get_by_text("request unit", exact=False).first).to_be_visible()
        expect(page.get_by_text("What the run recorded")).to_be_visible()
        expect(page.locator(f".st-key-code_item_{task.id}_grid .js-plotly-plot")).to_be_visible()
        page.screenshot(path=str(artifacts / "kitchen_code_unit.png"), full_page=True)
        order = store.coder_order(task.id, ann)
        for k, key in enumerate(keys):
            page.evaluate("() => document.activeElement && document.activeElement.blur()")
            page.keyboard.press(key)
            wait_idle(page)
            expect(page.get_by_text(f"Item {min(k + 2, len(keys))} of {len(keys)}", exact=False)).to_be_visible()
        # The last key's item is already on screen before its label is saved: wait for the store.
        deadline = time.monotonic() + 20
        while len(store.my_labels(ann, task.id)) < len(keys) and time.monotonic() < deadline:
            time.sleep(0.2)
        mine = store.my_labels(ann, task.id)
        assert dict(zip(mine["item_id"], mine["code"])) == {order[k]: codes[key] for k, key in enumerate(keys)}
        assert set(store.labels(lead, task.id)["coder"]) == {"ann", RULE}


def test_the_authors_audit_uploaded_is_set_against_this_one(tmp_path_factory, page, artifacts):
    """The three real runs of the TGCO paper's repository on the Kitchen screen, the authors' own audit
    of them uploaded: the agreement (matched units, Cohen's kappa with its interval) and the list of
    disagreements, whose first row opens its step in the kitchen replay in a new tab."""
    from conftest import point_at_first_link, served_app

    from corpus.importers import run_import
    from tests.real_data import REAL

    fork = REAL / "collab_overcooked_tgco_fork"
    RUNS, AUDIT = fork / "src" / "data", fork / "analysis_out" / "trace_token_metrics" / "tgco_request_units.subset.csv"
    CLAUDE = "claude-sonnet-4-20250514__gpt-4o/baked_potato_slices/experiment_2026-04-23_08-22-19_baked_potato_slices"

    if not AUDIT.is_file():
        pytest.skip(f"the TGCO paper's runs and audit not available at {AUDIT.parent}")
    data = tmp_path_factory.mktemp("kitchen_reference")
    dataset = run_import("overcooked", RUNS, data / "datasets" / "tgco", name="TGCO runs")
    with served_app(data, {"GROUNDWORK_UPLOAD_POLICY": "anyone"}) as url:
        page.goto(f"{url}/kitchen?dataset={key_of(dataset)}")
        wait_idle(page, 60_000)
        expect_no_error(page)
        expect(page.get_by_test_id("stMetric").filter(has_text="Pairings")).to_contain_text("3")
        upload = page.locator(".st-key-kitchen_reference_csv")
        upload.scroll_into_view_if_needed()
        upload.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(AUDIT))
        wait_idle(page, 60_000)
        expect_no_error(page)
        expect(page.get_by_test_id("stMetric").filter(has_text="Matched units")).to_contain_text("50")
        expect(page.get_by_test_id("stMetric").filter(has_text="Cohen's kappa")).to_contain_text("0.35")
        expect(page.get_by_text(re.compile(r"Cohen's kappa 0\.348, 95% interval \[0\.192, 0\.504\]"))).to_be_visible()
        heading = page.get_by_text("Disagreements: 24", exact=True)
        heading.scroll_into_view_if_needed()
        expect(heading).to_be_visible()
        listing = page.locator(".st-key-kitchen_reference_disagreements_box").get_by_test_id("stDataFrame")
        listing.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "kitchen_reference_agreement.png"), full_page=True)
        # The first disagreement: the Chef's request at step 0 of the cross-play run; its link opens that
        # step in the replay.
        x, y = point_at_first_link(listing)
        with page.context.expect_page(timeout=30_000) as opened:
            page.mouse.click(x, y)
        replay = opened.value
        replay.set_viewport_size({"width": 1440, "height": 900})
        wait_idle(replay, 60_000)
        expect(replay).to_have_url(re.compile(r"/kitchen\?dataset=.*&run=.*&step=0(&|$)"))
        assert f"run={CLAUDE}".replace("/", "%2F") in replay.url
        player = replay.locator(".tp-root")
        player.scroll_into_view_if_needed()
        expect(player.locator(".tp-caption")).to_have_text("Step 0: score 0", timeout=30_000)
        expect(player.get_by_text("Request units sent")).to_be_visible()
        replay.screenshot(path=str(artifacts / "kitchen_reference_replay.png"), full_page=True)
        replay.close()
