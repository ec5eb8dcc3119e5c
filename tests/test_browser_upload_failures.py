"""A broken DynToM upload in headless chromium: a lead uploads, in the sidebar, a .zip of DynToM trials
whose question files are cut short. The sidebar says the archive was not opened and names the file,
the record and the field; nothing is kept, the dataset shown stays, and the app stays up (the next,
valid upload of the same trials is imported)."""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from conftest import expect_no_error, served_app, sign_in, wait_idle
from playwright.sync_api import expect

from corpus.generate.tom import write_dyntom_trials
from corpus.store import Store

pytestmark = pytest.mark.browser


def _zipped(folder, damage: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                rel = p.relative_to(folder).as_posix()
                zf.writestr(f"{folder.name}/{rel}", damage.get(rel, p.read_bytes()))
    return buf.getvalue()


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """A served app with a lead account, and two archives of the same two trials: one whose question
    files are cut off after their first bytes, and the whole one."""
    root = tmp_path_factory.mktemp("tom")
    trials = write_dyntom_trials(root / "trials", n_trials=2, seed=5)
    broken, whole = root / "broken" / "trials.zip", root / "whole" / "trials.zip"
    broken.parent.mkdir()
    whole.parent.mkdir()
    cut = b'{"type_a_what_1": {"question": '
    broken.write_bytes(_zipped(trials, {f"trial{k}/question_new.json": cut for k in (1, 2)}))
    whole.write_bytes(_zipped(trials, {}))
    data = root / "data"
    Store.open(data).create_user("lead", "lead-password", "lead")
    with served_app(data) as url:
        yield url, broken, whole, data


def _upload(page, archive) -> None:
    """Choose ``archive`` in the sidebar's upload box (opened if it is closed) and import it."""
    sidebar = page.get_by_test_id("stSidebar")
    box = sidebar.get_by_test_id("stExpander").filter(has_text="Upload a .zip")
    if box.locator("details[open]").count() == 0:
        box.get_by_text("Upload a .zip").click()
    said = sidebar.get_by_text("Read as DynToM theory-of-mind trials")
    chosen = sidebar.get_by_test_id("stFileUploaderDeleteBtn")
    if chosen.count():  # the archive chosen before: removed first, so what is said next is this one's
        chosen.first.click()
        expect(said).to_have_count(0)
    sidebar.get_by_test_id("stFileUploaderDropzoneInput").first.set_input_files(str(archive))
    wait_idle(page)
    expect(said).to_be_visible()
    sidebar.get_by_role("button", name="Validate and import").click()


def test_a_broken_dyntom_upload_is_named_in_the_sidebar(page, lab, artifacts):
    url, broken, whole, data = lab
    sign_in(page, url, "tasks", "lead", "lead-password")
    sidebar = page.get_by_test_id("stSidebar")
    picker = sidebar.get_by_test_id("stSelectbox").first.get_by_role("combobox")
    before = picker.input_value()
    _upload(page, broken)

    alert = sidebar.get_by_test_id("stAlertContentError").filter(has_text="trials.zip was not opened")
    expect(alert).to_be_visible(timeout=90_000)
    expect(alert).to_contain_text("trials.zip was not opened: 2 error(s).")
    expect(alert).to_contain_text("trial1/question_new.json, line 1, (json): bad JSON:")
    # Both problems, each with its file, record and field, below the message.
    problems = sidebar.get_by_test_id("stExpander").filter(has_text="Every problem (2)")
    wait_idle(page)  # opened during the upload's last run, the expander is drawn again closed by it
    problems.get_by_text("Every problem (2)").click()
    expect(problems.locator("details")).to_have_attribute("open", "")
    for trial in ("trial1", "trial2"):
        line = problems.get_by_role("listitem").filter(has_text=f"{trial}/question_new.json, line 1, (json): bad JSON:")
        expect(line).to_be_visible()
    wait_idle(page)
    expect_no_error(page)
    expect(picker).to_have_value(before)
    assert not (data / "datasets").is_dir() or not any((data / "datasets").iterdir())
    page.screenshot(path=str(artifacts / "upload_broken_dyntom.png"), full_page=True)

    # The app stays up: the whole archive is imported and opened.
    _upload(page, whole)
    expect(picker).to_have_value(re.compile(r"trials \(imported\)"), timeout=90_000)
    wait_idle(page)
    expect(alert).to_have_count(0)
    expect_no_error(page)
