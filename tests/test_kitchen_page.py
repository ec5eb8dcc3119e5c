"""The Kitchen screen on a kitchen dataset (AppTest): the runs, the metrics per pairing as the
command line computes them, the outcome composition per level with the units behind a bar; and
the Map Task screens saying what they read instead of failing on kitchen runs."""

from __future__ import annotations

import json

import pytest
from test_analysis_pages import open_page
from test_overcooked_import import failed_run, fork_run, write

from analysis.kitchen_metrics import kitchen_metrics, metric_table
from corpus.importers import run_import
from corpus.kitchen_dataset import load_kitchen


@pytest.fixture
def kitchen(tmp_path):
    src = tmp_path / "runs"
    write(src / "gpt-4o__claude-sonnet-4" / "boiled_egg" / "run1.json", fork_run())
    write(src / "gpt-4o__claude-sonnet-4" / "boiled_egg" / "run2.json", fork_run())
    write(src / "llama" / "boiled_egg" / "experiment_boiled_egg.json", failed_run())
    return run_import("overcooked", src, tmp_path / "datasets" / "kitchen")


def test_the_kitchen_screen_shows_the_runs_metrics_and_composition(tmp_path, monkeypatch, kitchen):
    at = open_page(tmp_path, monkeypatch, "pages/kitchen.py", dataset=kitchen)
    assert not at.error and not at.exception
    metrics = {m.label: m.value for m in at.metric}
    runs = load_kitchen(kitchen).runs
    assert metrics["Runs"] == "3" and metrics["Pairings"] == "2" and metrics["Success"] == "2 of 3"
    table = next(d.value for d in at.dataframe if "pairing" in d.value.columns)
    expected = metric_table(kitchen_metrics(runs), by=("pairing",))
    for r in expected.rows:
        if r["metric"] == "success":
            shown = table.loc[table["pairing"] == r["pairing"], "Success"].iloc[0]
            assert shown.startswith(f"{r['estimate']:.2f}") and shown.endswith(f"(n = {r['n']})")
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in chart["data"]] == ["Effective", "Assisted", "Redundant", "Ineffective"]
    # Switching the window recomputes with the fixed 20 steps.
    at.segmented_control(key="kitchen_window").set_value("fixed").run()
    assert not at.exception
    assert any("Window: fixed window of 20 steps." in c.value for c in at.caption), [c.value for c in at.caption]


def test_map_task_screens_say_what_they_read_on_a_kitchen_dataset(tmp_path, monkeypatch, kitchen):
    for page in ("pages/alignment.py", "pages/replay.py", "pages/data.py"):
        at = open_page(tmp_path, monkeypatch, page, dataset=kitchen)
        assert not at.exception and not at.error, page
        assert any("holds kitchen runs" in i.value for i in at.info), page


def test_the_kitchen_screen_on_the_sample_says_how_to_get_runs(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/kitchen.py")
    assert not at.exception
    assert any("This screen reads kitchen runs" in i.value for i in at.info)
