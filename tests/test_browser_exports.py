"""The Tasks page's exports in a real browser while coders are coding: labels keep arriving on the
lead's page, and every click on an export still yields its file (before, about one click in 25 got
nothing: the page had replaced the file the button pointed at). The files are those built: as of
the labels at the moment the lead built them."""

from __future__ import annotations

import threading
import time

import pandas as pd
import pytest
from coding_team import people
from conftest import served_app, submit_sign_in, wait_idle
from playwright.sync_api import expect

from analysis import coding as ac
from corpus import codebook as cbm
from corpus.loading.dataset import load_sample
from corpus.store import Store

pytestmark = pytest.mark.browser

BUTTONS = (
    "Labels, long (CSV)",
    "Labels, long (JSONL)",
    "Labels, wide (CSV)",
    "Gold (CSV)",
    "Agreement report (Markdown)",
    "Agreement report (CSV)",
)
ROUNDS = 3
# Chromium drops a page's downloads past ten in about a second (a burst no person clicks); the clicks
# come at a brisk human pace instead, so a missing file is the page's doing, never the browser's.
CLICK_GAP_SECONDS = 0.15


def test_every_export_click_yields_its_file_while_labels_arrive(tmp_path, page, artifacts):
    corpus = load_sample()
    store = Store.open(tmp_path / "data")
    lead, ann, bob = people(store, lead="lead", ann="coder", bob="coder")
    items = ac.assign_partitions(ac.sample_items(corpus.actions_df, 60, seed=1), 4, seed=1)
    task = store.create_task(
        lead, "round", corpus.info.name, cbm.default(), items, [ann, bob], seed=1, dataset_hash=corpus.content_hash
    )
    ids = list(store.items(task.id)["item_id"])
    codes = ["initiate", "continue", "acknowledge", "repair"]
    for k, item in enumerate(ids[:20]):
        store.add_label(ann, task.id, item, codes[k % 4])
        store.add_label(bob, task.id, item, codes[(k // 3) % 4])
    stop = threading.Event()

    def coding() -> None:  # a coder at a brisk pace: a label every 0.3 s, each redrawing the lead's panel
        k = 20
        while not stop.is_set():
            store.add_label(ann, task.id, ids[k % len(ids)], codes[k % 4])
            k += 1
            time.sleep(0.3)

    with served_app(tmp_path / "data") as url:
        page.goto(f"{url}/tasks")
        wait_idle(page)
        submit_sign_in(page, "lead", "lead-password")
        page.get_by_role("button", name="Build the exports").click()
        wait_idle(page)
        expect(page.get_by_text("from 40 labels", exact=False)).to_be_visible()
        worker = threading.Thread(target=coding)
        worker.start()
        got: list[tuple[str, int]] = []
        try:
            for _ in range(ROUNDS):
                for name in BUTTONS:
                    with page.expect_download(timeout=20_000) as dl:
                        page.get_by_role("button", name=name).click()
                    assert dl.value.failure() is None, (name, dl.value.failure())
                    got.append((name, len(open(dl.value.path(), encoding="utf-8").read())))
                    time.sleep(CLICK_GAP_SECONDS)
        finally:
            stop.set()
            worker.join()
        assert store.labels_version(task.id)[0] > 40  # labels did arrive meanwhile
        assert len(got) == ROUNDS * len(BUTTONS)
        # Each file is the one built: the same bytes on every click, the labels as of the build.
        for name in BUTTONS:
            assert len({size for n, size in got if n == name}) == 1, name
        with page.expect_download() as dl:
            page.get_by_role("button", name="Labels, long (CSV)").click()
        assert len(pd.read_csv(dl.value.path())) == 40
        expect(page.get_by_text("Labels have changed since", exact=False)).to_be_visible()
        page.get_by_role("button", name="Agreement report (CSV)").scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / "tasks_exports.png"))
