"""Compare's Overlay tab on runs that predict only one of the two tasks: the sample corpus with every
run's next_action.jsonl removed (mental models only), and with every mental_model.jsonl removed
(next actions only). The tab shows the tracks the runs have and says which task they lack."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from analysis.compare.comparison import compare
from analysis.compare.items import ACTION_TYPE
from corpus.loading.catalog import key_of
from corpus.loading.dataset import load_dir
from corpus.schema import DIMENSION_TITLES

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parent.parent
RUNS = {
    "sim-llm-mental-model": "Simulated LLM (persona + mental model) · persona+mental_model",
    "sim-llm-persona": "Simulated LLM (persona prompt) · persona",
}


def _one_task(tmp_path: Path, dropped: str) -> Path:
    """A copy of the sample corpus whose runs hold no ``dropped`` file (next_action.jsonl or
    mental_model.jsonl)."""
    dataset = tmp_path / "roots" / "one-task"
    shutil.copytree(ROOT / "sample_data", dataset)
    gone = sorted((dataset / "predictions").rglob(dropped))
    assert [p.parent.name for p in gone] == sorted(RUNS)
    for path in gone:
        path.unlink()
    return dataset


def _overlay_tab(dataset: Path, monkeypatch, tmp_path: Path) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(dataset.parent))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params["dataset"] = key_of(dataset)
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    at.session_state["compare_tab"] = "Overlay"
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _figure(at: AppTest) -> dict:
    (chart,) = [c for c in at.get("plotly_chart") if c.proto.id and "compare_overlay" in c.proto.id]
    return json.loads(chart.proto.spec)


def _xs(trace: dict) -> list:
    """A trace's x values, as a list (the figure JSON holds numbers as a typed array in base64)."""
    x = trace["x"]
    if isinstance(x, dict):
        return np.frombuffer(base64.b64decode(x["bdata"]), dtype=np.dtype(x["dtype"])).tolist()
    return list(x)


def _tracks(spec: dict) -> dict[str, int]:
    """Points drawn per track (the colour key's legend entries aside)."""
    out: dict[str, int] = {}
    for t in spec["data"]:
        if not t.get("legendgroup"):
            out[t["name"]] = out.get(t["name"], 0) + len(_xs(t))
    return out


def test_runs_of_mental_models_only_show_their_mental_model_tracks(tmp_path, monkeypatch):
    dataset = _one_task(tmp_path, "next_action.jsonl")
    at = _overlay_tab(dataset, monkeypatch, tmp_path)
    spec = _figure(at)
    titles = [a["text"] for a in spec["layout"]["annotations"]]
    assert titles == list(DIMENSION_TITLES.values())  # every mental-model dimension, no next-action row
    tracks = _tracks(spec)
    assert set(tracks) == {"person", *RUNS.values()}
    assert all(n > 0 for n in tracks.values()), tracks
    # Each run's points are its predictions of this session's actions, dimension by dimension.
    corpus = load_dir(dataset)
    session = at.selectbox(key="compare_overlay_session").value
    window = [s.value for s in at.slider if s.key == f"compare_overlay_window_{session}"]
    lo, hi = window[0] if window else (1, 10**9)  # a long session is shown a window of actions at a time
    for run_id, name in RUNS.items():
        predicted = corpus.predictions[run_id].table("mental_model")
        shown = predicted[(predicted["session_id"] == session) & predicted["action_index"].between(lo - 1, hi - 1)]
        assert tracks[name] == len(shown) * len(DIMENSION_TITLES) > 0
    assert any(
        c.value.startswith("The chosen runs have no next-action predictions in this session") for c in at.caption
    )


def test_runs_of_next_actions_only_show_the_next_action_track(tmp_path, monkeypatch):
    dataset = _one_task(tmp_path, "mental_model.jsonl")
    at = _overlay_tab(dataset, monkeypatch, tmp_path)
    spec = _figure(at)
    assert [a["text"] for a in spec["layout"]["annotations"]] == ["Next action type"]
    tracks = _tracks(spec)
    assert set(tracks) == {"person", *RUNS.values()} and all(n > 0 for n in tracks.values()), tracks
    assert any(
        c.value.startswith("The chosen runs have no mental-model predictions in this session") for c in at.caption
    )


def test_the_overlay_table_has_the_same_columns_whatever_the_runs_predict(tmp_path):
    """The predicted content is a column of every overlay, empty where no run predicted a message."""
    corpus = load_dir(_one_task(tmp_path, "next_action.jsonl"))
    cmp = compare(corpus, corpus.predictions.values(), similarity=False)
    data = cmp.overlay(cmp.sessions()[0])
    assert ACTION_TYPE not in set(data["dimension"])
    assert set(data["dimension"]) == set(DIMENSION_TITLES)
    assert "p_content" in data.columns and data["p_content"].isna().all()
    assert data["p_rationale"].notna().any()
