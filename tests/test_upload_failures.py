"""Every uploader says why an upload failed: the sidebar's dataset upload in each format it offers
(services.uploads.FORMATS) and the predictions upload on the Compare page, each with a broken file.

A broken file is an importer's expected problem: the user sees it named by file, record and field,
nothing is kept, and nothing goes to the error log. A failure nobody expected (here the worker
process killed while it holds the job) is told with an error id, and the server log
(``groundwork.errors``) has a line with the same id. The app stays up either way.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import signal
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import write_tiny
from streamlit.testing.v1 import AppTest
from test_overcooked_import import cookpandar_run
from test_platform_annotations import GUIDE, write_logs

from corpus.benchmark.dataset import load_benchmark
from corpus.escape import md_line, md_text
from corpus.generate.tom import write_dyntom_trials
from corpus.importers import run_import
from corpus.loading.dataset import SAMPLE_DATA
from corpus.loading.report import Report, grouped
from corpus.store import Store
from services import jobs
from services.datasets import REPORT_KEY
from services.uploads import DETECT, FORMATS

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parent.parent
LABEL = {fmt: label for label, fmt in FORMATS.items()}  # importer format -> its label in the sidebar
IMPORT_JOB = "dataset_upload_job"
COMPARE_JOB = "compare_upload_job"
ERROR_ID = re.compile(r"\(error ([0-9a-f]{8})\)")


@pytest.fixture
def lead(tmp_path, monkeypatch):
    data = tmp_path / "data"
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(data))
    monkeypatch.delenv("GROUNDWORK_DB_URL", raising=False)
    monkeypatch.delenv("GROUNDWORK_UPLOAD_POLICY", raising=False)
    monkeypatch.delenv("GROUNDWORK_DATASET_ROOTS", raising=False)
    store = Store.open(data)
    store.create_user("lead", "lead-password", "lead")
    return store


def _app(store: Store, page: str | None = None) -> AppTest:
    """The app as the signed-in lead sees it (on ``page``, else Home)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["auth_user"] = store.user("lead")
    at.session_state["auth_token"] = store.issue_token(store.user("lead"))
    at.run()
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _until_done(at: AppTest, job_key: str, timeout: float = 120) -> AppTest:
    """Run the page until its job is taken (the page's own poll, as AppTest runs it)."""
    deadline = time.monotonic() + timeout
    while job_key in at.session_state and time.monotonic() < deadline:
        time.sleep(0.2)
        at.run()
    assert job_key not in at.session_state, "the job did not finish"
    assert not at.exception, [e.value for e in at.exception]
    return at


def _zipped(folder: Path, damage: dict[str, bytes]) -> bytes:
    """``folder`` zipped under its own name, with the files ``damage`` names (paths under it) replaced."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                rel = p.relative_to(folder).as_posix()
                zf.writestr(f"{folder.name}/{rel}", damage.get(rel, p.read_bytes()))
    return buf.getvalue()


def _kept(store_dir: Path) -> dict[str, list[str]]:
    return {
        d: sorted(p.name for p in (store_dir / d).iterdir()) if (store_dir / d).is_dir() else []
        for d in ("datasets", "staging")
    }


# -- broken files, one source of each format -----------------------------------------------------


def _dataset(tmp: Path) -> tuple[Path, dict[str, bytes]]:
    return write_tiny(tmp / "tiny"), {"sessions/s1/session.json": b'{"id": "s1", '}


def _platform(tmp: Path) -> tuple[Path, dict[str, bytes]]:
    folder = write_logs(tmp / "pilot")
    lines = (folder / f"{GUIDE}.jsonl").read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1][:20]  # a line cut short
    return folder, {f"{GUIDE}.jsonl": ("\n".join(lines) + "\n").encode()}


def _hcrc(tmp: Path) -> tuple[Path, dict[str, bytes]]:
    folder = tmp / "dialogues"
    folder.mkdir(parents=True)
    (folder / "q1ec1.txt").write_text("g|go left|instruct\nf|ok|acknowledge\n", encoding="utf-8")
    return folder, {"q1ec1.txt": b"g|go left|instruct\nx|hello|ready\n"}


def _kitchen(tmp: Path) -> tuple[Path, dict[str, bytes]]:
    folder = tmp / "runs"
    folder.mkdir(parents=True)
    run = cookpandar_run()
    (folder / "run1.json").write_text(json.dumps(run), encoding="utf-8")
    run["content"][1]["statistical_data"]["score"] = "0"
    return folder, {"run1.json": json.dumps(run).encode()}


def _questions(tmp: Path) -> tuple[Path, bytes]:
    folder = write_dyntom_trials(tmp / "trials", n_trials=1, seed=3)
    return folder, (folder / "trial1" / "question_new.json").read_bytes()


def _dyntom(damage: Callable[[bytes], bytes]) -> Callable[[Path], tuple[Path, dict[str, bytes]]]:
    def make(tmp: Path) -> tuple[Path, dict[str, bytes]]:
        folder, questions = _questions(tmp)
        return folder, {"trial1/question_new.json": damage(questions)}

    return make


def _options_as_a_number(questions: bytes) -> bytes:
    return json.dumps({qid: {**q, "options": 5} for qid, q in json.loads(questions).items()}).encode()


QUESTIONS = "trial1/question_new.json"
# (case, the format chosen in the sidebar, the source and its damage, (file, record, field, message))
BROKEN = [
    ("Groundwork dataset", None, _dataset, ("sessions/s1/session.json", "line 1", "(json)", "bad JSON: ")),
    ("platform", "platform", _platform, (f"{GUIDE}.jsonl", "line 2", "(json)", "bad JSON: Unterminated string")),
    ("HCRC", "hcrc", _hcrc, ("q1ec1.txt", "line 2", "speaker", "unknown speaker 'x' (expected g or f)")),
    (
        "kitchen runs",
        "overcooked",
        _kitchen,
        ("run1.json", "content[1]", "statistical_data.score", "expected a number, got the string '0'"),
    ),
    ("DynToM, not JSON", "dyntom", _dyntom(lambda q: b"{ not json"), (QUESTIONS, "line 1", "(json)", "bad JSON: ")),
    ("DynToM, truncated", "dyntom", _dyntom(lambda q: q[: len(q) // 2]), (QUESTIONS, "line ", "(json)", "bad JSON: ")),
    (
        "DynToM, UTF-16",
        "dyntom",
        _dyntom(lambda q: q.decode("utf-8").encode("utf-16")),
        (QUESTIONS, "line 1", "(encoding)", "not UTF-8: byte 0xff at offset 0"),
    ),
    (
        "DynToM, options a number",
        "dyntom",
        _dyntom(_options_as_a_number),
        (QUESTIONS, "type_", "options", "expected a list of options, got the integer 5"),
    ),
    # As most uploads come: the format told from the file names.
    ("DynToM, detected", DETECT, _dyntom(lambda q: b"{ not json"), (QUESTIONS, "line 1", "(json)", "bad JSON: ")),
]


def test_a_story_of_the_wrong_shape_is_a_warning_and_the_trials_import(tmp_path):
    """The story is context for the questions: a scenario whose dialogue is not a list is shown without
    it, and the report says so with file, record and field (the trial itself imports)."""
    folder, _ = _questions(tmp_path)
    story = json.loads((folder / "trial1" / "story.json").read_text(encoding="utf-8"))
    scenario = next(iter(story["story"]))
    story["story"][scenario]["dialogue"] = 5
    (folder / "trial1" / "story.json").write_text(json.dumps(story), encoding="utf-8")
    report = Report()
    dest = run_import("dyntom", folder, tmp_path / "dataset", report=report)
    (warning,) = report.warnings
    assert (warning.file, warning.record, warning.field) == ("trial1/story.json", scenario, "dialogue")
    assert warning.message == "expected a list of turns, got the integer 5; the scenario is shown without its dialogue"
    shown = load_benchmark(dest).contexts["trial1"]["scenarios"]
    assert [s["dialogue"] for s in shown if s["scenario"] == scenario] == [[]]


def _upload_in_sidebar(at: AppTest, name: str, data: bytes, label: str) -> AppTest:
    (box,) = [w for w in at.get("file_uploader") if w.key == "dataset_zip"]
    box.set_value((name, data, "application/zip"))
    at.run()
    at.selectbox(key="dataset_zip_format").set_value(label).run()
    at.button(key="import_zip").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return _until_done(at, IMPORT_JOB)


def test_every_format_the_sidebar_offers_is_walked():
    assert {fmt for _, fmt, _, _ in BROKEN} == set(FORMATS.values())


@pytest.mark.parametrize("case, fmt, source, expect", BROKEN, ids=[c[0] for c in BROKEN])
def test_a_broken_file_in_a_sidebar_upload_is_named_to_the_user(lead, tmp_path, caplog, case, fmt, source, expect):
    caplog.set_level(logging.ERROR, logger="groundwork.errors")
    folder, damage = source(tmp_path / "src")
    name = f"{folder.name}.zip"
    at = _app(lead)
    before = at.sidebar.selectbox(key="dataset_pick").value
    at = _upload_in_sidebar(at, name, _zipped(folder, damage), LABEL[fmt] if fmt != DETECT else "Detect from the files")

    file, record, field, message = expect
    outcome = at.session_state[REPORT_KEY]
    assert not outcome.imported and outcome.name == name
    first = outcome.report.errors[0]
    assert (first.file, first.field) == (file, field) and first.record.startswith(record), first
    assert message in first.message, first.message
    # The sidebar says it, with the file, the record and the field of the first problem.
    (shown,) = [e.value for e in at.sidebar.error]
    assert shown.startswith(f"{md_text(name)} was not opened: {outcome.report.error_count} error(s).")
    assert f"{md_line(first.file)}, {md_line(first.record)}, {md_line(first.field)}: {md_line(first.message)}" in shown
    # More than one problem: every one below the message, a line each (one repeated on many records once).
    if outcome.report.error_count > 1:
        (listed,) = [m.value for m in at.sidebar.markdown if m.value.startswith("- ")]
        rows = grouped(outcome.report.errors)
        assert listed.count("\n- ") == len(rows) - 1
        for row in rows:
            assert f"- {md_line(row['file'])}, {md_line(row['record'])}, {md_line(row['field'])}: " in listed
    # Nothing was kept, the dataset shown is the one before, and the error log has nothing: the
    # importer knew the problem.
    assert _kept(tmp_path / "data") == {"datasets": [], "staging": []}
    assert at.sidebar.selectbox(key="dataset_pick").value == before
    assert not [r for r in caplog.records if r.name == "groundwork.errors"]


# -- the unexpected: the worker killed while it holds the job -------------------------------------


@pytest.fixture
def stopped_worker():
    """The jobs' worker, started afresh and stopped (SIGSTOP): a job sent to it waits until the test
    kills it (``kill()``), which fails the job as a worker killed by the system would."""
    if jobs._pool is not None:  # a fresh pool: its one worker is the one stopped here
        jobs._pool.shutdown(wait=True)
        jobs._pool = None
    jobs.take(jobs.submit("test:start", "starting the worker", time.sleep, 0).id)
    (pid,) = list(jobs._executor()._processes)
    os.kill(pid, signal.SIGSTOP)

    def kill() -> None:
        os.kill(pid, signal.SIGKILL)

    try:
        yield kill
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _logged(caplog, error_id: str) -> logging.LogRecord:
    (record,) = [r for r in caplog.records if r.name == "groundwork.errors"]
    assert record.getMessage().startswith(f"error {error_id} in "), record.getMessage()
    assert record.exc_info is not None and record.exc_info[0].__name__ == "BrokenProcessPool"
    return record


def test_a_sidebar_import_that_fails_unexpectedly_is_told_with_an_error_id(lead, tmp_path, caplog, stopped_worker):
    caplog.set_level(logging.ERROR, logger="groundwork.errors")
    folder = write_dyntom_trials(tmp_path / "trials", n_trials=1, seed=3)
    at = _app(lead)
    (box,) = [w for w in at.get("file_uploader") if w.key == "dataset_zip"]
    box.set_value(("trials.zip", _zipped(folder, {}), "application/zip"))
    at.run()
    at.button(key="import_zip").click().run()
    assert IMPORT_JOB in at.session_state
    stopped_worker()
    at = _until_done(at, IMPORT_JOB)

    (issue,) = at.session_state[REPORT_KEY].report.errors
    assert (issue.file, issue.record, issue.field) == ("trials.zip", "-", "(upload)")
    error_id = ERROR_ID.search(issue.message).group(1)
    assert issue.message.startswith(f"the import failed unexpectedly (error {error_id}).")
    assert "BrokenProcessPool" not in issue.message and "Traceback" not in issue.message
    (shown,) = [e.value for e in at.sidebar.error]
    assert f"(error {error_id})" in shown
    record = _logged(caplog, error_id)
    assert "the upload of 'trials.zip'" in record.getMessage()
    # The app stays up: the next upload of the same archive goes through.
    at.button(key="import_zip").click().run()
    at = _until_done(at, IMPORT_JOB)
    assert at.session_state[REPORT_KEY].imported
    (kept,) = _kept(tmp_path / "data")["datasets"]
    assert at.sidebar.selectbox(key="dataset_pick").value == str(tmp_path / "data" / "datasets" / kept)


# -- the predictions upload on the Compare page -----------------------------------------------------

RUN = (SAMPLE_DATA / "predictions" / "sim-llm-persona" / "mental_model.jsonl").read_text(encoding="utf-8")
LINES = RUN.splitlines()


def _second_line(text: str) -> bytes:
    return ("\n".join([LINES[0], text, *LINES[2:]]) + "\n").encode()


PREDICTIONS = [
    (
        "not JSON",
        "a.mental_model.jsonl",
        _second_line("{ not json"),
        ("a.mental_model.jsonl: mental_model.jsonl", "line 2", "(json)", "bad JSON: "),
    ),
    (
        "UTF-16",
        "b.mental_model.jsonl",
        RUN.encode("utf-16"),
        ("b.mental_model.jsonl: mental_model.jsonl", "line 1", "(encoding)", "not UTF-8: byte 0xff at offset 0"),
    ),
    (
        "a wrong type in a field",
        "c.mental_model.jsonl",
        _second_line(json.dumps({**json.loads(LINES[1]), "action_index": "3"})),
        (
            "c.mental_model.jsonl: mental_model.jsonl",
            "line 2",
            "action_index",
            "expected an integer, got the string '3'",
        ),
    ),
    ("not a zip", "runs.zip", b"PK\x03\x04 not a zip", ("runs.zip", "-", "(archive)", "File is not a zip file")),
]


def _upload_on_compare(at: AppTest, name: str, data: bytes) -> AppTest:
    (box,) = [w for w in at.get("file_uploader") if w.key == "compare_upload"]
    box.set_value((name, data, "application/octet-stream"))
    at.button(key="compare_add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("case, name, data, expect", PREDICTIONS, ids=[c[0] for c in PREDICTIONS])
def test_a_broken_predictions_file_on_compare_is_named_to_the_user(lead, caplog, case, name, data, expect):
    caplog.set_level(logging.ERROR, logger="groundwork.errors")
    at = _until_done(_upload_on_compare(_app(lead, "pages/compare.py"), name, data), COMPARE_JOB)
    assert any(e.value.startswith("1 run(s) refused") for e in at.error), [e.value for e in at.error]
    (table,) = [
        d.value for d in at.dataframe if list(d.value.columns[:5]) == ["run", "file", "record", "field", "message"]
    ]
    file, record, field, message = expect
    first = table.iloc[0]
    assert (first["file"], first["record"], first["field"]) == (file, record, field)
    assert first["message"].startswith(message)
    assert not [r for r in caplog.records if r.name == "groundwork.errors"]


def test_a_predictions_upload_that_fails_unexpectedly_is_told_with_an_error_id(lead, caplog, stopped_worker):
    caplog.set_level(logging.ERROR, logger="groundwork.errors")
    at = _upload_on_compare(_app(lead, "pages/compare.py"), "mine.mental_model.jsonl", RUN.encode())
    assert COMPARE_JOB in at.session_state
    stopped_worker()
    at = _until_done(at, COMPARE_JOB)
    (shown,) = [e.value for e in at.error if "failed unexpectedly" in e.value]
    error_id = ERROR_ID.search(shown).group(1)
    assert shown.startswith(f"The validation of the uploaded runs failed unexpectedly (error {error_id}).")
    record = _logged(caplog, error_id)
    assert "Validating mine.mental_model.jsonl" in record.getMessage()
    # The page goes on: the same file again is validated and added.
    at = _until_done(_upload_on_compare(at, "mine.mental_model.jsonl", RUN.encode()), COMPARE_JOB)
    assert "mine" in at.multiselect(key="compare_runs").value
