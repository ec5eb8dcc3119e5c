"""Uploads under the policy `anyone`, in headless chromium, as a person with several tabs meets them:
the tabs of one person share one share of the server's queue (two tasks), and what a tab holds of its
uploads (the runs read from its files, the files' bytes) is released soon after the tab is closed,
not minutes later (the server's log says so)."""

from __future__ import annotations

import time

import pytest
from conftest import served_app, wait_idle
from playwright.sync_api import expect

from corpus.loading.dataset import SAMPLE_DATA
from corpus.server.workqueue import WorkQueue

pytestmark = pytest.mark.browser

RUN = SAMPLE_DATA / "predictions" / "sim-llm-persona" / "mental_model.jsonl"
RELEASED = "released what a closed session held for its uploads: compare_uploads"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    data = tmp_path_factory.mktemp("upload_sessions")
    with served_app(data, {"GROUNDWORK_UPLOAD_POLICY": "anyone"}) as url:
        yield url, data


def _log(data) -> str:
    return "".join(p.read_text(encoding="utf-8", errors="replace") for p in data.glob("server-*.log"))


def _upload_run(tab, url: str, path) -> None:
    tab.goto(f"{url}/compare")
    wait_idle(tab)
    tab.get_by_text("Add runs: a .zip of run folders").click()
    tab.get_by_test_id("stMain").get_by_test_id("stFileUploaderDropzoneInput").first.set_input_files(str(path))
    # As a person sees it: the file listed under the box once its bytes reached the server (a click
    # before that validates nothing: "Choose one or more ... files first").
    main = tab.get_by_test_id("stMain")
    expect(main.get_by_role("button", name=f"Remove {path.name}")).to_be_visible()  # (the chip shortens the name)
    expect(main.get_by_test_id("stFileChipIconSpinner")).to_have_count(0)
    tab.get_by_role("button", name="Validate and add").click()


def test_a_closed_tabs_uploads_are_released_soon_after(served, context, tmp_path):
    url, data = served
    mine = tmp_path / "mine.mental_model.jsonl"
    mine.write_bytes(RUN.read_bytes())
    tab = context.new_page()
    _upload_run(tab, url, mine)
    expect(tab.get_by_text("mine · no setting (mine)")).to_be_visible(timeout=60_000)  # validated, among the runs
    wait_idle(tab)
    assert RELEASED not in _log(data)
    tab.close()
    deadline = time.monotonic() + 45  # the grace for a reconnect (10 s) and a check every 2 s, on a busy machine
    while RELEASED not in _log(data) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert RELEASED in _log(data)


def test_the_tabs_of_one_person_share_one_share_of_the_queue(served, context, tmp_path):
    """Two tasks of this address wait already (the queue's two places are someone else's): a third
    tab's upload is refused with the reason, whoever's tab it is; another person still gets a place."""
    url, data = served
    queue = WorkQueue(data / "queue")
    others = [queue.join(f"user:{900 + i}", "an import of someone else") for i in range(2)]
    mine = [queue.join("client:127.0.0.1", f"an upload in tab {i}") for i in range(2)]
    try:
        run = tmp_path / "third.mental_model.jsonl"
        run.write_bytes(RUN.read_bytes())
        tab = context.new_page()
        _upload_run(tab, url, run)
        expect(tab.get_by_text("you have 2 heavy tasks running or waiting already", exact=False)).to_be_visible()
        assert queue.place(mine[1].id).place == 2 and len(queue.tickets()) == 4
    finally:
        for t in others + mine:
            queue.leave(t.id)
