"""The real ALMANAC session (study13) as the release ships it, uploaded by a lead from the sidebar with
a table of the study's design, in headless chromium: the export read as published, the session's
condition and split from the table, every annotation kept; then Alignment shows the session's labels
under its condition, and Replay shows a stroke that changed no grid cell, flagged as such."""

from __future__ import annotations

import json
import re
import zipfile

import pytest
from conftest import expect_no_error, open_from_menu, served_app, sign_in, wait_idle
from playwright.sync_api import expect
from real_data import REAL, absent

from corpus.loading.catalog import key_of
from corpus.loading.dataset import load_dir
from corpus.store import Store

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not (REAL / "almanac_release_study13").is_dir(),
        reason=absent(REAL / "almanac_release_study13", "the real ALMANAC release session"),
    ),
]

SOURCE = REAL / "almanac_release_study13"
ARCHIVE = "study13 release.zip"
DATASET = "study13 release (imported)"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A served app with a lead account; the export zipped as published (with its files/), and the
    design table a lab writes for it."""
    root = tmp_path_factory.mktemp("almanac")
    archive = root / ARCHIVE
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(SOURCE.rglob("*")):
            if p.is_file():
                zf.write(p, f"study13/{p.relative_to(SOURCE).as_posix()}")
    design = root / "design.csv"
    design.write_text("session,condition,split\nstudy13,visible,test\n", encoding="utf-8")
    data = root / "data"
    Store.open(data).create_user("lead", "lead-password", "lead")
    with served_app(data) as url:
        yield url, archive, design, data


def _annotations() -> int:
    export = json.loads((SOURCE / "study13_actions_and_annotations.json").read_text(encoding="utf-8"))
    return sum(len(entries) for entries in export["post_session_annotations"].values())


def test_the_release_and_its_design_table_uploaded_show_on_alignment_and_replay(page, lab, artifacts):
    url, archive, design, data = lab
    sign_in(page, url, "tasks", "lead", "lead-password")
    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Upload a .zip").click()
    sidebar.get_by_test_id("stFileUploaderDropzoneInput").first.set_input_files(str(archive))
    wait_idle(page)
    expect(sidebar.get_by_text("Read as a collaboration platform export bundle", exact=False)).to_be_visible()
    sidebar.get_by_test_id("stFileUploaderDropzoneInput").nth(1).set_input_files(str(design))
    wait_idle(page)
    page.screenshot(path=str(artifacts / "almanac_upload_form.png"), full_page=True)
    sidebar.get_by_role("button", name="Validate and import").click()
    expect(sidebar.get_by_test_id("stSelectbox").first.get_by_role("combobox")).to_have_value(
        re.compile(re.escape(DATASET)), timeout=180_000
    )
    wait_idle(page)

    folder = next(p for p in (data / "datasets").iterdir() if p.is_dir() and (p / "dataset.json").is_file())
    corpus = load_dir(folder)
    (session,) = corpus.sessions.values()
    assert (session.condition, session.split) == ("visible", "test")  # from the design table
    annotated = sum(a.mental_model is not None for a in session.actions)
    assert annotated == _annotations()  # none dropped with its stroke
    flagged = [a.index for a in session.actions if a.no_cell_change]
    assert flagged

    open_from_menu(page, "Alignment")
    chart = page.get_by_test_id("stMain").locator(".js-plotly-plot").first
    expect(chart).to_be_visible(timeout=30_000)
    expect(
        page.get_by_text(f"Mental models as the participants annotated them ({annotated} annotated actions).").first
    ).to_be_visible()
    expect(chart).to_contain_text("visible")
    expect_no_error(page)
    page.screenshot(path=str(artifacts / "almanac_alignment.png"), full_page=True)

    page.goto(f"{url}/replay?dataset={key_of(folder)}&session={session.id}&step={flagged[0]}")
    wait_idle(page)
    expect(page.locator(".rp-root")).to_have_attribute("data-step", str(flagged[0]), timeout=30_000)
    expect(page.locator(".rp-root").get_by_text("No cell change", exact=False).first).to_be_visible()
    expect_no_error(page)
    page.screenshot(path=str(artifacts / "almanac_replay_no_cell_change.png"), full_page=True)
