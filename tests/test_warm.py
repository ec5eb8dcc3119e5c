"""The server is warmed at start (deploy/serve.py, and services/warm.py for the dataset): the pages' modules
are imported and the default dataset is loaded before the first visitor asks, and a dataset that
does not open is left to the pages to report, the server up."""

from __future__ import annotations

import json
import shutil
import sys
import time
import urllib.request
from pathlib import Path

import serve as warm  # deploy/serve.py (deploy/ is on the tests' path: conftest)
from conftest import served_app

from corpus.loading.dataset import SAMPLE_DATA

WARMED = "Groundwork: warmed up in "


def _warm_line(data_dir: Path, timeout_s: float = 60) -> str:
    """The warm-up's line in the served app's log, once written."""
    log = next(data_dir.glob("server-*.log"))
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith(WARMED) or "warm-up failed" in line:
                return line
        time.sleep(0.1)
    raise AssertionError(f"no warm-up line in {log}:\n{log.read_text(errors='replace')}")


def test_the_modules_warmed_are_those_the_pages_import():
    modules = warm.page_modules()
    assert {"streamlit", "components.alignment_charts", "components.dataset", "services.alignment"} <= set(modules)
    assert list(modules) == sorted(set(modules))
    for name in modules:  # every one of them imports (the warm-up imports them all)
        __import__(name)
        assert name in sys.modules


def test_warm_opens_the_default_dataset_with_its_tables():
    done = warm.warm()
    assert done.dataset == "Groundwork sample corpus (synthetic)"
    assert done.problem == ""
    assert done.modules == warm.page_modules()
    assert done.seconds > 0


def test_the_served_app_is_warm_before_its_first_visitor(tmp_path):
    data = tmp_path / "data"
    with served_app(data) as url:
        line = _warm_line(data)
        assert f"{len(warm.page_modules())} modules imported" in line, line
        assert "dataset 'Groundwork sample corpus (synthetic)' loaded" in line, line
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as r:
            assert r.status == 200
    assert "missing ScriptRunContext" not in next(data.glob("server-*.log")).read_text()


def test_a_default_dataset_that_does_not_open_leaves_the_server_up(tmp_path):
    root = tmp_path / "datasets"
    broken = root / "broken"
    shutil.copytree(SAMPLE_DATA, broken)
    info = json.loads((broken / "dataset.json").read_text())
    info["label_schema_version"] = "no-such-version"
    (broken / "dataset.json").write_text(json.dumps(info))
    data = tmp_path / "data"
    with served_app(data, {"GROUNDWORK_DATASET_ROOTS": str(root)}) as url:
        line = _warm_line(data)
        assert "no dataset loaded (DatasetError" in line, line
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as r:
            assert r.status == 200
