"""Uploading model predictions on the Compare page: the server's upload policy and per-session
allowance apply as to datasets; a file's size, its lines and the problems listed are bounded; the
validation runs in a worker process when it is the visitor's turn in the server's queue (two tasks per
person, a bounded queue), while the page stays usable."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from corpus import limits
from corpus.loading.dataset import SAMPLE_DATA, load_sample
from corpus.predictions.sources import read_upload
from corpus.store import Store
from services import jobs

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parent.parent
RUN = (SAMPLE_DATA / "predictions" / "sim-llm-persona" / "mental_model.jsonl").read_bytes()


@pytest.fixture
def data(tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(data))
    monkeypatch.delenv("GROUNDWORK_DB_URL", raising=False)
    monkeypatch.delenv("GROUNDWORK_UPLOAD_POLICY", raising=False)
    store = Store.open(data)
    store.create_user("lead", "lead-password", "lead")
    return store


def _compare(store: Store | None = None, user: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if user is not None:
        at.session_state["auth_user"] = store.user(user)
        at.session_state["auth_token"] = store.issue_token(store.user(user))
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _uploaders(at: AppTest) -> list:
    return [w for w in at.get("file_uploader") if w.key == "compare_upload"]


def _validated(at: AppTest, timeout: float = 120) -> AppTest:
    """Run the page until the upload's validation has finished (the page's own poll, as AppTest runs it)."""
    deadline = time.monotonic() + timeout
    while "compare_upload_job" in at.session_state and time.monotonic() < deadline:
        time.sleep(0.2)
        at.run()
    assert "compare_upload_job" not in at.session_state, "the validation did not finish"
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_visitor_cannot_upload_predictions_under_the_default_policy(data):
    at = _compare()
    assert not _uploaders(at)
    assert any("Uploading needs a signed-in lead" in c.value for c in at.caption)


def test_a_lead_uploads_a_run_validated_in_the_worker(data):
    at = _compare(data, "lead")
    _uploaders(at)[0].set_value(("mine.mental_model.jsonl", RUN, "application/jsonl"))
    at.button(key="compare_add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    started = at.session_state["compare_upload_job"]
    assert jobs.get(started[0]).what == "Validating mine.mental_model.jsonl"
    at = _validated(at)
    assert "mine" in at.multiselect(key="compare_runs").value  # scored beside the dataset's runs
    assert at.metric[0].value == "3"


def test_a_visitor_uploads_within_the_session_allowance_when_the_policy_lets_anyone(data, monkeypatch):
    monkeypatch.setenv("GROUNDWORK_UPLOAD_POLICY", "anyone")
    monkeypatch.setenv("GROUNDWORK_UPLOAD_SESSION_COUNT", "1")
    at = _compare()
    _uploaders(at)[0].set_value(("one.mental_model.jsonl", RUN, "application/jsonl"))
    at.button(key="compare_add").click().run()
    at = _validated(at)
    assert "one" in at.multiselect(key="compare_runs").value
    assert not _uploaders(at)  # the allowance is used up
    assert any("This session has made 1 uploads, the most one session may make (1)" in c.value for c in at.caption)


def test_a_predictions_file_has_a_line_limit_and_reading_stops_at_the_problems_limit(monkeypatch):
    sample = load_sample()
    monkeypatch.setattr(limits, "PREDICTION_LINES", 100)
    lines = RUN.decode().splitlines()
    (long,) = read_upload("long.mental_model.jsonl", "\n".join(lines[:101]).encode(), sample.sessions, sample.maps)
    assert [(i.record, i.field, i.message) for i in long.report.errors] == [
        ("-", "(file)", "101 lines; a predictions file has at most 100")
    ]
    (ok,) = read_upload("ok.mental_model.jsonl", "\n".join(lines[:100]).encode(), sample.sessions, sample.maps)
    assert ok.ok and len(ok.table("mental_model")) == 100
    bad = "\n".join(['{"session_id": "nope", "action_index": 1}'] * 90).encode()
    (run,) = read_upload("bad.mental_model.jsonl", bad, sample.sessions, sample.maps)
    errors = run.report.errors
    assert len(errors) == limits.PREDICTION_ERRORS + 1
    assert (errors[-1].record, errors[-1].message) == (
        f"line {limits.PREDICTION_ERRORS + 1}",
        f"reading stopped after {limits.PREDICTION_ERRORS} problems; the lines from here on were not checked",
    )


def test_an_upload_over_the_size_limit_is_refused_unread(monkeypatch):
    import io
    import zipfile

    sample = load_sample()
    monkeypatch.setattr("corpus.predictions.sources.PREDICTION_UPLOAD_BYTES", 1000)
    (big,) = read_upload("big.mental_model.jsonl", RUN[:2000], sample.sessions, sample.maps)
    assert big.report.errors[0].message == "0.0 MiB; an upload of predictions is at most 0 MiB"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("run/mental_model.jsonl", b"\n" * 5000)  # 5,000 bytes held in a few dozen
    (held,) = read_upload("runs.zip", buf.getvalue(), sample.sessions, sample.maps)
    assert held.report.errors[0].message == "holds 0.0 MiB; an upload of predictions is at most 0 MiB"


def test_a_visitor_holds_their_share_of_the_servers_queue_and_the_queue_is_bounded(data, monkeypatch):
    """Each person holds at most two heavy tasks (running or waiting): a third is refused with the
    reason; a full queue refuses anyone; a finished task frees its place for the next."""
    monkeypatch.setattr(jobs, "WAITING", 1)
    first = jobs.submit("client:203.0.113.9", "Validating a.zip", time.sleep, 1.5)
    second = jobs.submit("client:203.0.113.9", "Validating b.zip", time.sleep, 0)
    with pytest.raises(jobs.Busy, match=r"you have 2 heavy tasks running or waiting already \(Validating a.zip; "):
        jobs.submit("client:203.0.113.9", "Validating c.zip", time.sleep, 0)
    third = jobs.submit("user:7", "Validating d.zip", time.sleep, 0)  # waits: two run already
    assert third.place().place == 1
    with pytest.raises(jobs.Busy, match="the server has 1 heavy tasks of other people waiting"):
        jobs.submit("user:8", "Validating e.zip", time.sleep, 0)
    assert jobs.take(first.id) is None and jobs.take(second.id) is None and jobs.take(third.id) is None
    jobs.take(jobs.submit("client:203.0.113.9", "Validating f.zip", time.sleep, 0).id)  # done: the next may start
    assert jobs.queue().tickets() == []
