"""The Report screen in headless chromium: a visitor gets the server's own report of the sample, which
downloads and opens with the network cut off, fetching nothing, its figures drawn from inside it; a
signed-in user's build waits for its turn in the server's queue, its place shown, then runs."""

from __future__ import annotations

import time
import zipfile

import pytest
from conftest import expect_no_error, open_from_menu, served_app, sign_in, wait_idle
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def prebuilding(tmp_path_factory):
    """A server as `make run` starts it: it builds its own report of the sample once it has warmed up."""
    data = tmp_path_factory.mktemp("report_prebuilt")
    with served_app(data, {"GROUNDWORK_PREBUILD_REPORT": "true"}) as url:
        yield url, data


def test_the_report_downloads_and_opens_offline(page, prebuilding, browser, artifacts, tmp_path):
    """A visitor who is not signed in (a reviewer) gets the server's own report of the sample: the one
    the server builds in the background from its start; asked for while it is being built, that same
    build (one, for everyone)."""
    url, data = prebuilding
    page.goto(f"{url}/report")
    wait_idle(page)
    expect_no_error(page)
    expect(page.get_by_role("heading", name="Reproduction report")).to_be_visible()
    expect(page.get_by_role("button", name="Build the report")).to_have_count(0)  # visitors never build
    # The server began its build once it had warmed up: the page says it is coming, and shows it
    # when it is done. (Asked for before the build began, the visitor's click starts it instead.)
    ask = page.get_by_role("button", name="Get the server's report")
    coming = page.get_by_text("The server is building its own report of this dataset now")
    done = page.get_by_text("The HTML file opens in any browser with no network")
    expect(ask.or_(coming).or_(done).first).to_be_visible()
    if ask.count():
        ask.click()
    # The click's rerun may not have begun when an idle check runs: wait for the build's own result.
    expect(page.get_by_text("The HTML file opens in any browser with no network")).to_be_visible(timeout=240_000)
    wait_idle(page)
    expect(page.get_by_text("The server's report, built", exact=False)).to_be_visible()
    log = "".join(p.read_text(errors="replace") for p in data.glob("server-*.log"))
    assert log.count("building the server's report of sample_data in the background") == 1
    said = "the server's report of Groundwork sample corpus (synthetic) is kept"
    deadline = time.monotonic() + 30  # the build's own last line, written as its process ends
    while said not in (data / "reports" / "prebuild.log").read_text(errors="replace") and time.monotonic() < deadline:
        time.sleep(0.2)
    assert said in (data / "reports" / "prebuild.log").read_text(errors="replace")
    assert len(list((data / "reports").glob("*.json"))) == 1  # one build, whoever asked
    with page.expect_download() as dl:
        page.get_by_role("button", name="Report (HTML)").click()
    report = tmp_path / dl.value.suggested_filename
    dl.value.save_as(report)
    assert dl.value.suggested_filename == "Groundwork_sample_corpus_synthetic_report.html"
    with page.expect_download() as dl:
        page.get_by_role("button", name="Tables (CSV, zip)").click()
    assert "table1_actions_per_session.csv" in zipfile.ZipFile(dl.value.path()).namelist()

    offline = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    tab = offline.new_page()
    tab.on("request", lambda r: requests.append(r.url))
    tab.goto(report.as_uri())
    expect(tab.get_by_role("heading", name="Reproduction report: Groundwork sample corpus (synthetic)")).to_be_visible()
    expect(tab.locator("p.synthetic")).to_contain_text("This dataset is synthetic")
    assert tab.locator("figure svg").count() >= 7
    expect(tab.get_by_role("heading", name="Provenance")).to_be_attached()
    tab.screenshot(path=str(artifacts / "report_offline.png"))
    assert [u for u in requests if not u.startswith("file:")] == []
    offline.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    from corpus.store import Store

    data = tmp_path_factory.mktemp("report_queue")
    store = Store.open(data)
    store.create_user("lead", "lead-password", "lead")
    store.engine.dispose()
    with served_app(data) as url:
        yield url, data


def test_a_build_waits_for_its_turn_with_its_place_shown(page, lab):
    from corpus.server.workqueue import WorkQueue

    url, data = lab
    queue = WorkQueue(data / "queue")
    others = [queue.join(f"user:{900 + i}", "an import of someone else") for i in range(3)]  # two run, one waits
    try:
        sign_in(page, url, "tasks", "lead", "lead-password")
        expect(page.get_by_text("Signed in as")).to_be_visible()
        open_from_menu(page, "Report")  # the same session: still signed in
        page.get_by_role("button", name="Build the report").click()
        expect(
            page.get_by_text("Waiting for a turn: 1 task before it (2 heavy tasks running on the server).")
        ).to_be_visible()
        queue.leave(others[0].id)  # the other's waiting task starts; this one is next
        expect(
            page.get_by_text("Waiting for a turn: next in line (2 heavy tasks running on the server).")
        ).to_be_visible()
        queue.leave(others[1].id)
        expect(page.get_by_text("The HTML file opens in any browser with no network")).to_be_visible(timeout=180_000)
        expect_no_error(page)
    finally:
        for t in others:
            queue.leave(t.id)
