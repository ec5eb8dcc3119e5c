"""Table 1 / Table 8 statistics and the `python -m corpus stats` command."""

from __future__ import annotations

import json

import pytest
from cli_run import run_cli
from helpers import write_tiny

from analysis.descriptive import dataset_stats, label_shares, table1, table8
from corpus.loading.dataset import load_dir


@pytest.fixture
def corpus(tmp_path):
    return load_dir(write_tiny(tmp_path / "ds", n_sessions=3))


def test_counts_means_and_sds(corpus):
    stats = dataset_stats(corpus.sessions_df, corpus.actions_df)
    overall = stats["overall"]
    assert overall["n_sessions"] == 3 and overall["n_actions"] == 18
    # Every tiny session: 2 messages, 2 draws, 1 erase, 1 undo.
    assert overall["per_session"]["message"] == {"mean": 2.0, "sd": 0.0}
    assert overall["per_session"]["draw"] == {"mean": 2.0, "sd": 0.0}
    assert overall["per_session"]["reset"] == {"mean": 0.0, "sd": 0.0}
    vis = stats["by_condition"]["visible"]
    assert vis["n_sessions"] == 2 and vis["n_actions"] == 12
    nv = stats["by_condition"]["not_visible"]
    assert nv["n_sessions"] == 1 and nv["per_session"]["actions"] == {"mean": 6.0, "sd": None}
    assert set(stats["by_split"]) == {"train"}
    assert set(stats["by_condition_split"]) == {"visible/train", "not_visible/train"}


def test_label_distribution_in_percent(corpus):
    stats = dataset_stats(corpus.sessions_df, corpus.actions_df)
    tg = stats["overall"]["mental_model_pct"]["team_goal"]
    # 4 of 6 actions t3 and 2 of 6 t4 in every session.
    assert tg["t3"]["mean"] == pytest.approx(66.6667, abs=1e-3)
    assert tg["t4"]["mean"] == pytest.approx(33.3333, abs=1e-3)
    assert tg["t1"]["mean"] == 0.0
    shares = label_shares(corpus.actions_df)
    per_session = shares.groupby(["session_id", "dimension"])["share"].sum()
    assert per_session.round(6).eq(100.0).all()


def test_final_accuracy_from_the_drawing(corpus):
    # After undo of the erase: cells (0,0),(0,1),(0,2),(1,2),(2,2); route has the first three.
    row = corpus.sessions_df.iloc[0]
    assert row["final_accuracy"] == pytest.approx(3 / 5)
    assert row["route_coverage"] == pytest.approx(3 / 6)


def test_tables_render(corpus):
    stats = dataset_stats(corpus.sessions_df, corpus.actions_df)
    t1 = table1(stats)
    assert t1.loc["# message/session", "All"] == "2.0 (0.0)"
    assert t1.loc["sessions", "visible"] == "2"
    t8 = table8(stats)
    assert t8.loc[("Team goal", "t3 Clear on what to do"), "All"] == "66.7 (0.0)"


def test_cli_stats_json(tmp_path):
    ds = write_tiny(tmp_path / "ds", n_sessions=3)
    out = run_cli("stats", str(ds), "--json")
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stdout)
    for level in ("overall",):
        assert stats[level]["n_sessions"] == 3 and stats[level]["n_actions"] == 18
    for group in ("by_condition", "by_split", "by_condition_split"):
        for name, g in stats[group].items():
            assert {"n_sessions", "n_actions", "per_session", "mental_model_pct"} <= set(g), name
    assert stats["by_condition"]["visible"]["n_sessions"] == 2
    assert stats["dataset"] == {"name": "tiny", "synthetic": True}


def test_cli_stats_on_a_broken_dataset_exits_1(tmp_path):
    ds = write_tiny(tmp_path / "ds")
    (ds / "maps" / "m1.json").write_text("[")
    out = run_cli("stats", str(ds))
    assert out.returncode == 1
    assert "maps/m1.json" in out.stderr and "bad JSON" in out.stderr
