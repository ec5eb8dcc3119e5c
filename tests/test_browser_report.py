"""The Report screen in headless chromium: the report is built on the sample, downloaded, and the
downloaded HTML opens with the network cut off, fetching nothing, its figures drawn from inside it."""

from __future__ import annotations

import zipfile

import pytest
from conftest import expect_no_error, wait_idle
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_report_downloads_and_opens_offline(page, app_url, browser, artifacts, tmp_path):
    page.goto(f"{app_url}/report")
    wait_idle(page)
    expect_no_error(page)
    expect(page.get_by_role("heading", name="Reproduction report")).to_be_visible()
    page.get_by_role("button", name="Build the report").click()
    # The click's rerun may not have begun when an idle check runs: wait for the build's own result.
    expect(page.get_by_text("The HTML file opens in any browser with no network")).to_be_visible(timeout=180_000)
    wait_idle(page)  # the build ends by drawing the page again
    # A pause between two builds by one visitor.
    page.get_by_role("button", name="Build the report").click()
    wait_idle(page)
    expect(page.get_by_text("the next can start in", exact=False)).to_be_visible(timeout=30_000)
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
