"""The lead's live panel in a real browser, on a task with labels: a new label reaches the numbers at
once, read from the agreement sums the store keeps; the details (kappa's interval, diagnostics, drift)
say what they were computed on, that labels came in since, and catch up on request."""

from __future__ import annotations

import random

import pytest
from coding_team import people
from conftest import served_app, submit_sign_in, wait_idle
from playwright.sync_api import expect

from analysis import agreement as ag
from analysis import coding as ac
from corpus import codebook as cbm
from corpus.loading.dataset import load_sample
from corpus.store import Store

pytestmark = pytest.mark.browser
CODES = ["initiate", "continue", "acknowledge", "repair"]


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    data = tmp_path_factory.mktemp("live_panel")
    corpus = load_sample()
    store = Store.open(data)
    lead, ann, bob, cat = people(store, lead="lead", ann="coder", bob="coder", cat="coder")
    items = ac.assign_partitions(ac.sample_items(corpus.actions_df, 30, seed=4), 0, seed=4)
    task = store.create_task(
        lead, "panel", corpus.info.name, cbm.default(), items, [ann, bob, cat], seed=4, dataset_hash=corpus.content_hash
    )
    rng = random.Random(4)
    for item in store.items(task.id)["item_id"][:20]:
        truth = rng.choice(CODES)
        for coder in (ann, bob, cat):
            store.add_label(coder, task.id, item, truth if rng.random() < 0.75 else rng.choice(CODES))
    # The details' schedule set long: the test sees them stale until it asks (the default is 30 s).
    with served_app(data, {"GROUNDWORK_PANEL_DETAILS_SECONDS": "600"}) as url:
        yield store, task, (lead, ann, bob, cat), url


def _tile(page, label: str):
    return page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")


def test_a_label_reaches_the_numbers_and_the_details_say_when_they_were_computed(page, team):
    store, task, (lead, ann, bob, cat), url = team
    page.goto(f"{url}/tasks")
    wait_idle(page)
    submit_sign_in(page, "lead", "lead-password")
    expect(page.get_by_role("heading", name="Live agreement")).to_be_visible()
    expect(page.get_by_text("60 labels from 3 coders on 20 items")).to_be_visible()
    expect(page.get_by_text("as computed at", exact=False)).to_contain_text("on 60 labels.")
    expect(page.get_by_text("95% CI", exact=False).first).to_be_visible()

    item = store.items(task.id)["item_id"].iloc[25]
    store.add_label(ann, task.id, item, "repair")
    store.add_label(bob, task.id, item, "repair")
    expected = ag.panel(ag.LabelTable(store.labels(lead, task.id), item="item_id", label="code"), min_items=10)
    expect(page.get_by_text("62 labels from 3 coders on 21 items")).to_be_visible(timeout=10_000)
    expect(_tile(page, "Percent agreement")).to_have_text(ag.fmt_short(expected.percent_agreement.estimate, 3))
    expect(_tile(page, "Krippendorff's alpha")).to_have_text(ag.fmt_short(expected.alpha.estimate, 3))
    # The details still rest on the 60 labels, and say so beside the numbers that count the new ones.
    stale = page.get_by_text("2 labels came in since the details below were computed", exact=False)
    expect(stale).to_contain_text("the details follow within 600 s")
    expect(page.get_by_text("as computed at", exact=False)).to_contain_text("on 60 labels.")
    page.get_by_role("button", name="Recompute now").click()
    expect(page.get_by_text("as computed at", exact=False)).to_contain_text("on 62 labels.", timeout=30_000)
    expect(page.get_by_text("came in since the details", exact=False)).to_have_count(0, timeout=10_000)
    expect(page.get_by_text("95% CI", exact=False).first).to_be_visible()
