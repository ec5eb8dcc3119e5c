"""The design table on the sidebar's upload form: a lead uploads the real platform export with a
table of each session's condition and split, the import (in the worker, as every upload) sets them;
a table with a row that names no session is refused with the problem in the import's report and the
sidebar, and nothing is kept."""

from __future__ import annotations

import json

import pytest
from real_data import PLATFORM, needs_platform
from test_upload_failures import IMPORT_JOB, LABEL, _app, _kept, _until_done, _zipped, lead  # noqa: F401 - a fixture

from corpus.escape import md_line
from corpus.loading.dataset import load_dir
from services.datasets import REPORT_KEY

pytestmark = pytest.mark.long

GUIDE_LOG = "c7259e8b-49ea-4f31-b039-fe25fa2fcd12.guide_Jack.jsonl"
OLDER_LOG = "older_schema_3998d45e.follower_David.stripped.jsonl"


def _session_id(log: str) -> str:
    return json.loads((PLATFORM / log).read_text(encoding="utf-8").splitlines()[0])["session_id"]


def _upload(at, archive: bytes, table: str):  # noqa: ANN001, ANN202 - an AppTest
    (box,) = [w for w in at.get("file_uploader") if w.key == "dataset_zip"]
    box.set_value(("export.zip", archive, "application/zip"))
    at.run()
    at.selectbox(key="dataset_zip_format").set_value(LABEL["platform"]).run()
    (design,) = [w for w in at.get("file_uploader") if w.key == "dataset_zip_design"]
    design.set_value(("design.csv", table.encode(), "text/csv"))
    at.run()
    at.button(key="import_zip").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return _until_done(at, IMPORT_JOB)


@needs_platform
def test_the_upload_form_takes_a_design_table(lead, tmp_path):  # noqa: F811 - the fixture
    first, second = _session_id(GUIDE_LOG), _session_id(OLDER_LOG)
    archive = _zipped(PLATFORM, {})
    at = _app(lead)
    at = _upload(at, archive, f"session,condition,split\n{first},visible,test\n{second},not_visible,val\n")
    outcome = at.session_state[REPORT_KEY]
    assert outcome.imported, outcome.report.errors
    (kept,) = _kept(tmp_path / "data")["datasets"]
    corpus = load_dir(tmp_path / "data" / "datasets" / kept)
    got = {
        corpus.meta(s).notes.split("(", 1)[1].split(")", 1)[0]: (corpus.meta(s).condition, corpus.meta(s).split)
        for s in corpus.sessions
    }
    assert got == {first: ("visible", "test"), second: ("not_visible", "val")}
    assert at.sidebar.selectbox(key="dataset_pick").value == str(tmp_path / "data" / "datasets" / kept)

    # The same export with a table that names a session it does not hold: refused, said, nothing kept.
    at = _upload(
        at, archive, f"session,condition,split\n{first},visible,test\n{second},not_visible,val\nstudy99,visible,\n"
    )
    outcome = at.session_state[REPORT_KEY]
    assert not outcome.imported
    (issue,) = outcome.report.errors
    assert (issue.file, issue.record, issue.field) == ("design.csv", "row 4", "session")
    assert issue.message.startswith("'study99' matches no imported session")
    (shown,) = [e.value for e in at.sidebar.error]
    assert f"{md_line(issue.file)}, {md_line(issue.record)}, {md_line(issue.field)}: {md_line(issue.message)}" in shown
    assert _kept(tmp_path / "data")["datasets"] == [kept]
