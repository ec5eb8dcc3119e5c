"""An upload as a lab makes it: the format told from the files (and said), the options the command
line offers, the allowance charged what the archive unpacked to, the description naming the file
uploaded, a problem repeated on many records reported once, the import done in the worker with
its progress readable from the page's process."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from real_data import HCRC, PLATFORM, absent
from streamlit.testing.v1 import AppTest
from test_uploads import settings, tiny_zip, zipped  # noqa: F401 - settings: the uploads' fixture

from corpus.cli import main
from corpus.importers import import_source
from corpus.importers.detect import DATASET, NotRecognised, detect, detect_path, detect_zip
from corpus.loading.dataset import load_dir
from corpus.loading.report import Report, grouped
from corpus.server.uploads import ImportChoices, Quota, Uploads
from corpus.settings import SAMPLE_DATA, Settings
from corpus.store import Store

needs_platform = pytest.mark.skipif(not PLATFORM.is_dir(), reason=absent(PLATFORM, "real platform sample"))


def platform_zip() -> bytes:
    """The real platform sample as a lab zips it: one top folder."""
    return zipped(PLATFORM)


# -- the format, told from the file names ------------------------------------------------------------


def test_each_format_is_told_from_its_file_names():
    assert detect(["tiny/dataset.json", "tiny/sessions/S1/actions.jsonl"]).kind == DATASET
    logs = detect(["export/c7259e8b.guide_Jack.jsonl", "export/ascii_grid_map_7e106fb1.txt", "export/files/a.png"])
    assert (logs.kind, logs.fmt) == ("platform-logs", "platform")
    assert logs.sentence() == (
        "Read as collaboration platform session logs (found 1 action log(s): c7259e8b.guide_Jack.jsonl)."
    )
    bundle = detect(["out/pilot_3f2a9c1e_user_actions.json", "out/pilot_3f2a9c1e_actions_and_annotations.json"])
    assert (bundle.kind, bundle.fmt) == ("platform-bundle", "platform")
    assert "2 export file(s): pilot_3f2a9c1e_user_actions.json, pilot_3f2a9c1e_actions_and_annotations.json" in (
        bundle.evidence
    )
    # HCRC as distributed: moves/ beside transcripts/.
    hcrc = detect(
        ["maptask/moves/q3nc1.g.moves.xml", "maptask/moves/q3nc1.f.moves.xml", "maptask/transcripts/q3nc1.txt"]
    )
    assert (hcrc.kind, hcrc.fmt) == ("hcrc", "hcrc")
    assert hcrc.evidence == "2 NXT move file(s): q3nc1.g.moves.xml, q3nc1.f.moves.xml"
    assert detect(["q1ec1.txt", "q2nc3.txt"]).fmt == "hcrc"
    # Hidden files and a Mac's resource forks are not evidence.
    with pytest.raises(NotRecognised) as exc:
        detect(["__MACOSX/x/._a.jsonl", ".DS_Store", "notes/readme.md", "notes/plan.docx"])
    assert str(exc.value) == (
        "cannot tell what these files are (found 2 file(s): readme.md, plan.docx); expected dataset.json "
        "(a Groundwork dataset); *.jsonl action logs (the platform's session logs); *_user_actions.json or "
        "*_actions_and_annotations.json (the platform's export bundle); *.moves.xml, or files named by a "
        "dialogue id such as q1ec1.txt (HCRC Map Task); question_new.json (DynToM trials); "
        "vlm_predictions_<model>.jsonl (Map Task VLM predictions); other *.json files (Collab-Overcooked run logs, "
        "Overcooked-AI trajectories)"
    )


def test_a_dataset_is_told_before_its_own_jsonl_files(tmp_path):
    # The sample corpus holds .jsonl files of its own (actions, predictions): still a dataset.
    assert detect_path(SAMPLE_DATA).kind == DATASET
    assert detect_zip(tiny_zip(tmp_path)).kind == DATASET


@needs_platform
def test_the_real_platform_sample_and_hcrc_files_are_told(tmp_path):
    found = detect_zip(platform_zip())
    assert found.kind == "platform-logs" and found.evidence.startswith("3 action log(s): ")
    if HCRC.is_dir():
        assert detect_path(HCRC).fmt == "hcrc"


@needs_platform
def test_cli_import_says_what_it_read_the_source_as(tmp_path, capsys):
    assert main(["import", str(PLATFORM), str(tmp_path / "ds")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Read as collaboration platform session logs (found 3 action log(s): ")
    assert "Name the format with --from if that is wrong." in out
    assert len(load_dir(tmp_path / "ds").sessions) >= 1


def test_cli_import_of_a_dataset_or_unknown_files_says_why_not(tmp_path, capsys):
    assert main(["import", str(SAMPLE_DATA), str(tmp_path / "ds")]) == 1
    assert "is a Groundwork dataset already (found dataset.json): nothing to import" in capsys.readouterr().err
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "plan.md").write_text("x")
    assert main(["import", str(tmp_path / "notes"), str(tmp_path / "ds")]) == 1
    err = capsys.readouterr().err
    assert "cannot tell what these files are (found 1 file(s): plan.md)" in err
    assert "or name the format with --from platform|hcrc" in err
    assert not (tmp_path / "ds").exists()


# -- what an upload keeps and charges ----------------------------------------------------------------


@needs_platform
def test_upload_choices_reach_the_importer_and_the_description_names_the_file(settings):
    quota = Quota.from_settings(settings)
    data = platform_zip()
    up, new = Uploads(settings.data_dir).add(
        "Lab pilot, April.zip", data, quota, fmt="platform", choices=ImportChoices(condition="visible", split="test")
    )
    corpus = load_dir(Uploads(settings.data_dir).path(up))
    assert new and {s.condition for s in corpus.sessions.values()} == {"visible"}
    assert {s.split for s in corpus.sessions.values()} == {"test"}
    assert corpus.info.description.startswith("Imported from 'Lab pilot, April.zip'. Sessions recorded on")
    assert "platform-export" not in corpus.info.description and "staging" not in corpus.info.description
    # What it unpacked to: the archive's declared sizes (not the imported dataset's size).
    declared = sum(i.file_size for i in zipfile.ZipFile(io.BytesIO(data)).infolist())
    assert up.extracted == declared != up.bytes
    # The same bytes with other choices are another dataset; with the same, the one kept.
    other, new_other = Uploads(settings.data_dir).add("Lab pilot, April.zip", data, quota, fmt="platform")
    assert new_other and other.key != up.key
    assert {s.condition for s in load_dir(Uploads(settings.data_dir).path(other)).sessions.values()} == {"not_recorded"}
    assert Uploads(settings.data_dir).add(
        "again.zip", data, quota, fmt="platform", choices=ImportChoices(condition="visible", split="test")
    ) == (up, False)


@needs_platform
def test_a_visitors_allowance_is_charged_the_extracted_bytes(settings, monkeypatch, tmp_path):
    monkeypatch.setenv("GROUNDWORK_UPLOAD_POLICY", "anyone")
    archive = tmp_path / "export.zip"
    archive.write_bytes(platform_zip())
    declared = sum(i.file_size for i in zipfile.ZipFile(archive).infolist())

    def script(path: str) -> None:
        from pathlib import Path

        import streamlit as st

        from services import datasets, uploads

        if "done" not in st.session_state:
            st.session_state.done = True
            uploads.upload("export.zip", Path(path).read_bytes(), "platform", None)
        last = datasets.last_outcome()
        st.write(f"{last.imported}|{st.session_state[uploads.SESSION_KEY]}")
        st.write(uploads.session_allowance_text(None))

    at = AppTest.from_function(script, args=(str(archive),), default_timeout=60).run()
    assert at.markdown[0].value == f"True|(1, {declared})"
    kept = Uploads(Settings.load({}).data_dir).list()
    assert len(kept) == 1 and kept[0].bytes != declared


# -- the report -------------------------------------------------------------------------------------


def test_a_problem_repeated_on_many_records_is_one_row_with_its_count():
    report = Report()
    for line in range(3, 74):
        report.add("predictions/run-a/mental_model.jsonl", f"line {line}", "session_id", "unknown session 'S99'")
    report.add("predictions/run-a/mental_model.jsonl", "line 80", "action_index", "expected an integer, got null")
    rows = grouped(report.issues)
    assert len(rows) == 2
    assert rows[0] == {
        "severity": "error",
        "file": "predictions/run-a/mental_model.jsonl",
        "record": "line 3, line 4, line 5, line 6, line 7 and 66 more (71 records)",
        "field": "session_id",
        "message": "unknown session 'S99'",
        "count": "71",
    }
    assert rows[1]["record"] == "line 80" and rows[1]["count"] == "1"
    text = report.format().splitlines()
    assert len(text) == 3 and "and 66 more (71 records)" in text[1]


# -- in the worker -----------------------------------------------------------------------------------


@needs_platform
def test_an_import_in_the_worker_opens_the_dataset_and_reports_progress(settings, tmp_path):
    Store.open(settings.data_dir).create_user("lead", "lead-password", "lead")
    archive = tmp_path / "export.zip"
    archive.write_bytes(platform_zip())

    def script(path: str) -> None:
        import time
        from pathlib import Path

        import streamlit as st

        from corpus.server.uploads import ImportChoices
        from services import datasets, uploads
        from services.store import get_store

        lead = get_store().user("lead")
        if "pending" not in st.session_state:
            data = Path(path).read_bytes()
            found = uploads.detected(data)
            st.session_state.pending = uploads.start_import(
                "export.zip",
                data,
                found.fmt,
                lead,
                uploads.job_owner(lead),
                ImportChoices(split="train"),
                found.sentence(),
            )
        seen = []
        deadline = time.monotonic() + 120
        while (state := uploads.import_progress(st.session_state.pending)) is not None and time.monotonic() < deadline:
            if state.strokes is not None:
                seen.append(state.strokes)
            time.sleep(0.05)
        uploads.finish_import(st.session_state.pending, lead)
        last = datasets.last_outcome()
        st.write(f"{last.imported}|{last.note}|{last.report.format()}")
        st.write(str(datasets.current_source().path))
        st.write(f"{seen[-1] if seen else None}")

    at = AppTest.from_function(script, args=(str(archive),), default_timeout=180).run()
    assert not at.exception, at.exception
    imported, note, problems = at.markdown[0].value.split("|", 2)
    assert imported == "True", problems
    assert imported == "True" and note.startswith("Read as collaboration platform session logs")
    corpus = load_dir(Path(at.markdown[1].value))
    assert {s.split for s in corpus.sessions.values()} == {"train"}
    assert not list(settings.data_dir.glob(".progress-*"))


def main_file_in_worker() -> str | None:
    """The file the worker ran as its main module (None: none)."""
    import sys

    return getattr(sys.modules["__main__"], "__file__", None)


def test_the_worker_does_not_run_the_page_it_was_started_from():
    # Streamlit installs the page it runs as __main__; a spawned worker would run that file again.
    def script() -> None:
        import streamlit as st
        from test_upload_hygiene import main_file_in_worker

        from services import jobs

        job = jobs.submit("session:main-check", "Checking", main_file_in_worker)
        st.write(repr(job.future.result(timeout=60)))

    at = AppTest.from_function(script, default_timeout=90).run()
    assert not at.exception, at.exception
    assert at.markdown[0].value == "None"


def test_a_dataset_reader_does_not_run_the_page_it_was_started_from():
    # The readers are forked from a fork server, which is told of the main module as a spawned
    # worker is: neither may run the page again.
    def script() -> None:
        import streamlit as st
        from test_upload_hygiene import main_file_in_worker

        from corpus.server.processes import ReaderContext, Workers

        with Workers() as workers:
            pool = workers.start(1)
            st.write(repr(pool.submit(main_file_in_worker).result(timeout=60)))
            st.write(type(pool._mp_context).__name__ if isinstance(pool._mp_context, ReaderContext) else "spawned")

    at = AppTest.from_function(script, default_timeout=90).run()
    assert not at.exception, at.exception
    assert [m.value for m in at.markdown] == ["None", "ReaderContext"]


def test_the_report_table_wraps_groups_and_keeps_data_as_text():
    def script() -> None:
        from components.dataset import show_report
        from corpus.loading.report import Report

        report = Report()
        for line in range(1, 72):
            report.add("predictions/run-a/mental_model.jsonl", f"line {line}", "session_id", "unknown session 'S99'")
        report.add("x.jsonl", "line 1", "note", "expected text, got '[click](https://example.org) **bold**'")
        show_report(report)

    at = AppTest.from_function(script, default_timeout=30).run()
    assert not at.exception, at.exception
    table = at.table[0].value
    assert list(table.columns) == ["severity", "file", "record", "field", "message", "count"]
    assert len(table) == 2 and table["count"].tolist() == ["71", "1"]
    assert table["record"][0] == "line 1, line 2, line 3, line 4, line 5 and 66 more (71 records)"
    # st.table reads Markdown in its cells: the link and the emphasis stay text.
    assert table["message"][1] == "expected text, got '\\[click\\](https\u2060://example.org) \\*\\*bold\\*\\*'"


@needs_platform
def test_a_grid_beyond_what_a_map_may_have_is_an_error_not_a_crash(tmp_path, capsys):
    assert main(["import", "--grid", "2360", "1620", str(PLATFORM), str(tmp_path / "ds")]) == 1
    err = capsys.readouterr().err
    assert "(options)" in err and "grid: expected rows and columns, each from 1 to 1000, got [2360, 1620]" in err
    assert not (tmp_path / "ds").exists()


# -- every source, through the app's upload ----------------------------------------------------------


def _lab_source(kind: str, tmp_path: Path) -> Path:
    from test_hcrc_gmmt import archive, two_dialogues
    from test_platform_annotations import export_files, write_logs

    if kind == "platform-logs":
        return write_logs(tmp_path / "logs" / "pilot")
    if kind == "platform-bundle":
        return export_files(tmp_path / "bundle" / "export")
    if kind == "hcrc-distributed":
        if not HCRC.is_dir():
            pytest.skip(absent(HCRC, "real HCRC sample"))
        return archive(tmp_path / "distributed") / "maptask_archive"
    return two_dialogues(tmp_path / "hcrc")


@pytest.mark.parametrize("kind", ["platform-logs", "platform-bundle", "hcrc", "hcrc-distributed"])
def test_each_source_uploads_as_detected(kind, settings, tmp_path):
    Store.open(settings.data_dir).create_user("lead", "lead-password", "lead")
    archive = tmp_path / f"{kind}.zip"
    archive.write_bytes(zipped(_lab_source(kind, tmp_path)))

    def script(path: str) -> None:
        from pathlib import Path

        import streamlit as st

        from services import datasets, uploads
        from services.store import get_store

        if "done" not in st.session_state:
            st.session_state.done = True
            data = Path(path).read_bytes()
            found = uploads.detected(data)
            uploads.upload(Path(path).name, data, found.fmt, get_store().user("lead"), note=found.sentence())
        last = datasets.last_outcome()
        st.write(f"{last.imported}|{last.note}|{last.report.format()}")
        st.write(str(datasets.current_source().path))

    at = AppTest.from_function(script, args=(str(archive),), default_timeout=60).run()
    assert not at.exception, at.exception
    imported, note, problems = at.markdown[0].value.split("|", 2)
    assert imported == "True", problems
    corpus = load_dir(Path(at.markdown[1].value))
    assert corpus.info.description.startswith(f"Imported from '{kind}.zip'.")
    if kind == "hcrc-distributed":  # moves/ beside transcripts/<id>.txt, as the archive is distributed
        assert note.startswith("Read as HCRC Map Task dialogues (found 2 NXT move file(s): q1ec1.")
        [session] = corpus.sessions.values()
        direct = import_source("hcrc", _lab_source(kind, tmp_path / "again")).sessions[0]
        assert session.id == "q1ec1" and session.condition == "eye_contact"
        assert [a.content for a in session.actions] == [a.content for a in direct.actions] and len(direct.actions) == 77
        return
    if kind == "hcrc":
        assert note.startswith("Read as HCRC Map Task dialogues (found 6 file(s) named by an HCRC dialogue id")
        assert {s.id: s.condition for s in corpus.sessions.values()} == {
            "q1ec1": "eye_contact",
            "q3nc1": "no_eye_contact",
        }
        assert len(corpus.expressions) > 0 and not corpus.coded("gmmt").empty
        return
    assert note.startswith(
        f"Read as {'collaboration platform session logs' if kind == 'platform-logs' else 'a collaboration platform export bundle'}"
    )
    [session] = corpus.sessions.values()
    annotated = [a for a in session.actions if a.mental_model is not None]
    assert len(annotated) == 7
    assert sorted(c.index for c in session.checkpoints) == [0, 0, 1, 1, 2, 2]
    reasons = {r.code for a in annotated for r in a.mental_model.misalignment_reasons}
    # The export bundle does not carry q4Reasons (the import report says so); the logs' payloads do.
    assert reasons == (set() if kind == "platform-bundle" else {"n1", "n2", "n3", "n4", "n5", "other"} - {"n1"})


def test_progress_written_by_the_worker_is_read_by_the_page(tmp_path, monkeypatch):
    from corpus.server import uploads as corpus_uploads
    from corpus.server.uploads import _ProgressFile, read_progress

    path = tmp_path / "p.json"
    assert read_progress(path) is None  # before the importer's first report
    clock = iter([100.0, 100.1, 100.2, 100.4, 100.5])
    monkeypatch.setattr(corpus_uploads.time, "monotonic", lambda: next(clock))
    progress = _ProgressFile(path)
    progress(0, 36)
    assert read_progress(path) == (0, 36)
    progress(1, 36)  # a tenth of a second later: not written
    assert read_progress(path) == (0, 36)
    progress(2, 36)  # still within the quarter second
    assert read_progress(path) == (0, 36)
    progress(3, 36)
    assert read_progress(path) == (3, 36)
    progress(36, 36)  # the last is always written
    assert read_progress(path) == (36, 36)
