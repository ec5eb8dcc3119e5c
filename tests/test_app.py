"""Every page runs under Streamlit's AppTest without an exception, on the sample corpus."""

from __future__ import annotations

from pathlib import Path

import inspect
import textwrap

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")

# Every page registered in app.py (kept in step by test_every_page_is_listed).
PAGES = ["pages/data.py", "pages/replay.py", "pages/alignment.py", "pages/acts.py", "pages/misalignment.py",
         "pages/outcomes.py", "pages/split.py", "pages/agreement.py", "pages/compare.py", "pages/code.py",
         "pages/adjudicate.py", "pages/tasks.py", "pages/map-editor.py"]


def run_app(tmp_path, monkeypatch) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    return AppTest.from_file(APP, default_timeout=60).run()


def test_every_page_is_listed():
    text = (ROOT / "app.py").read_text()
    listed = {p for p in PAGES}
    in_app = {f"pages/{p.name}" for p in (ROOT / "pages").glob("*.py") if f'"{p.name}"' in text}
    assert in_app == listed


def test_every_url_path_is_its_file_name():
    """A deep link that is a fresh server's first visit is resolved against the pages/ folder's file
    names before app.py runs (components.router); a different url_path shows "Page not found"."""
    import re

    pages = re.findall(r'st\.Page\(HERE / "pages" / "([^"]+)\.py".*?url_path="([^"]+)"', (ROOT / "app.py").read_text())
    assert len(pages) == len(PAGES)
    assert [stem for stem, _ in pages] == [path for _, path in pages]


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_without_exceptions(page, tmp_path, monkeypatch):
    at = run_app(tmp_path, monkeypatch)
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_data_page_shows_the_sample_tables(tmp_path, monkeypatch):
    at = run_app(tmp_path, monkeypatch)
    assert not at.exception
    assert "synthetic" in at.info[0].value
    assert at.title[0].value.startswith("Data: ")
    frames = at.dataframe
    assert len(frames) >= 3
    sessions = frames[-1].value
    assert len(sessions) == 25
    assert set(sessions["condition"]) == {"visible", "not_visible"}
    assert sessions["final_accuracy"].between(0, 1).all()
    table1 = frames[0].value
    assert "# message/session" in table1.index


def _sidebar_and_data_page():
    import runpy

    from components.dataset import sidebar

    sidebar()
    runpy.run_path("/ROOT/pages/data.py")


def open_directory(tmp_path, monkeypatch, path) -> AppTest:
    """Choose "Directory on the server", type the path and press Open.

    Streamlit 1.67's AppTest reruns only the current page of an st.navigation app (not the
    entrypoint), so the sidebar is exercised here together with the Data page as one script; the
    browser test drives the real app.
    """
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    src = inspect.getsource(_sidebar_and_data_page).replace("/ROOT", str(ROOT))
    script = tmp_path / "sidebar_and_data.py"
    script.write_text(textwrap.dedent(src) + "\n_sidebar_and_data_page()\n")
    at = AppTest.from_file(str(script), default_timeout=60).run()
    at.sidebar.radio(key="dataset_choice").set_value("Directory on the server").run()
    at.sidebar.text_input(key="dataset_dir").input(str(path)).run()
    at.sidebar.button(key="open_dir").click().run()
    return at


def test_a_broken_directory_is_reported_and_the_app_stays_up(tmp_path, monkeypatch):
    from helpers import write_tiny

    ds = write_tiny(tmp_path / "ds")
    (ds / "sessions" / "s1" / "session.json").write_text("{ not json")
    at = open_directory(tmp_path, monkeypatch, ds)
    assert not at.exception
    assert at.session_state["import_report"]["imported"] is False
    # The sample corpus is still shown, and the report names the broken file, record and field.
    assert at.title[0].value.startswith("Data: ")
    report = at.dataframe[0].value
    row = report[report["file"] == "sessions/s1/session.json"].iloc[0]
    assert (row["record"], row["field"]) == ("line 1", "(json)")
    assert row["message"].startswith("bad JSON")
    assert any("Nothing was imported" in e.value for e in at.error)
    assert any("was not imported" in e.value for e in at.sidebar.error)


def test_a_valid_directory_is_opened(tmp_path, monkeypatch):
    from helpers import write_tiny

    ds = write_tiny(tmp_path / "ds")
    at = open_directory(tmp_path, monkeypatch, ds)
    assert not at.exception
    assert at.title[0].value == "Data: tiny"
    assert len(at.dataframe[-1].value) == 2
