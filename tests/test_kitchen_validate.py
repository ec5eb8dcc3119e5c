"""``python -m corpus validate`` and ``python -m corpus stats`` on every dataset Groundwork writes (Map
Task sessions, kitchen runs, a benchmark), with the same report shape; the kitchen reader checks every
value's type and names the file, run, step and field of a bad one."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import pytest
from cli_run import run_cli
from helpers import write_tiny
from test_overcooked_import import fork_run, write

from corpus.importers import run_import
from corpus.kitchen.dataset import load_kitchen
from corpus.loading.report import DatasetError
from corpus.settings import SAMPLES
from tests.real_data import REAL, absent

FORK = REAL / "collab_overcooked_tgco_fork"
RUNS = FORK / "src" / "data"  # three real runs of the TGCO paper's repository
needs_fork = pytest.mark.skipif(not RUNS.is_dir(), reason=absent(FORK, "the TGCO paper's runs"))


@pytest.fixture
def kitchen(tmp_path) -> Path:
    src = tmp_path / "runs"
    write(src / "proagent_gpt-4o__baseline_claude-sonnet-4" / "boiled_egg" / "run1.json", fork_run())
    write(src / "gpt-4o__claude-sonnet-4" / "boiled_egg" / "experiment_2_boiled_egg.json", fork_run(with_agents=False))
    return run_import("overcooked", src, tmp_path / "kitchen")


def test_validate_passes_on_an_imported_kitchen_dataset(kitchen):
    out = run_cli("validate", str(kitchen))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no problems found" in out.stdout and "kitchen, 0 error(s), 0 warning(s)" in out.stderr
    out = run_cli("validate", str(kitchen), "--json")
    assert json.loads(out.stdout) == {"ok": True, "domain": "kitchen", "issues": []}


@needs_fork
def test_validate_passes_on_the_real_runs_imported(tmp_path):
    dest = run_import("overcooked", RUNS, tmp_path / "fork")
    out = run_cli("validate", str(dest))
    assert out.returncode == 0 and "no problems found" in out.stdout, out.stdout + out.stderr
    assert len(load_kitchen(dest).runs) == 3


def _damage(kitchen: Path, edit) -> tuple[Path, str]:
    path = sorted((kitchen / "runs").iterdir())[0]
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path, data["id"]


def test_validate_names_the_file_run_step_and_field_of_a_bad_value(kitchen):
    def edit(data):
        data["score"] = "lots"
        data["steps"][1]["reward"] = "high"
        data["completed"][0]["agent"] = 5
        data["turns"][0]["step"] = 1.5

    path, run_id = _damage(kitchen, edit)
    rel = f"runs/{path.name}"
    out = run_cli("validate", str(kitchen))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    issues = json.loads(run_cli("validate", str(kitchen), "--json").stdout)["issues"]
    found = {(i["file"], i["record"], i["field"]): i["message"] for i in issues}
    assert found == {
        (rel, f"run {run_id}", "score"): "expected a number, got the string 'lots'",
        (rel, f"run {run_id}, steps[1] (step 1)", "reward"): "expected a number, got the string 'high'",
        (rel, f"run {run_id}, turns[0]", "step"): "expected a whole number, got the number 1.5",
    }
    # once the types are right, the agent out of range is named too
    path.write_text(path.read_text().replace('"lots"', "20").replace('"high"', "0").replace("1.5", "0"))
    issues = json.loads(run_cli("validate", str(kitchen), "--json").stdout)["issues"]
    assert [(i["record"], i["field"], i["message"]) for i in issues] == [
        (f"run {run_id}, completed[0] (step 1)", "agent", "expected 0 or 1 (the two agents), got 5")
    ]


def test_a_bad_value_is_refused_on_load_not_found_by_the_metrics(kitchen):
    """A run with "score": "lots" used to load, and the metrics raised TypeError."""
    _damage(kitchen, lambda d: d.__setitem__("score", "lots"))
    with pytest.raises(DatasetError, match="score: expected a number, got the string 'lots'"):
        load_kitchen(kitchen)
    out = run_cli("kitchen", str(kitchen), module="analysis")
    assert out.returncode == 1 and "expected a number" in out.stderr and "TypeError" not in out.stderr


def test_a_run_whose_recipe_is_not_the_benchmarks_is_a_warning(kitchen):
    _damage(kitchen, lambda d: (d.__setitem__("recipe", "apple"), d.__setitem__("level", None)))
    out = json.loads(run_cli("validate", str(kitchen), "--json").stdout)
    assert out["ok"] and [(i["severity"], i["field"]) for i in out["issues"]] == [("warning", "level")]
    assert "its recipe 'apple' is not among the benchmark's recipes" in out["issues"][0]["message"]


def test_validate_takes_a_zip_of_a_kitchen_dataset_and_a_benchmark(kitchen, tmp_path):
    archive = tmp_path / "kitchen.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in kitchen.rglob("*"):
            zf.write(p, p.relative_to(kitchen))
    out = run_cli("validate", str(archive), "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["domain"] == "kitchen"
    bench = SAMPLES / "dyntom-synthetic"
    out = run_cli("validate", str(bench), "--json")
    assert out.returncode == 0 and json.loads(out.stdout) == {"ok": True, "domain": "benchmark", "issues": []}
    broken = shutil.copytree(bench, tmp_path / "bench")
    items = broken / "items.csv"
    items.write_text(items.read_text().replace("gold", "golden", 1))
    out = run_cli("validate", str(broken), "--json")
    assert out.returncode == 1
    (issue,) = json.loads(out.stdout)["issues"]
    assert (issue["file"], issue["record"], issue["field"]) == ("items.csv", "header", "gold")


def test_stats_has_one_shape_for_every_domain(kitchen, tmp_path):
    tiny = write_tiny(tmp_path / "tiny", n_sessions=2)
    shapes = {}
    for name, path in (("map_task", tiny), ("kitchen", kitchen), ("benchmark", SAMPLES / "dyntom-synthetic")):
        out = run_cli("stats", str(path), "--json")
        assert out.returncode == 0, out.stderr
        stats = json.loads(out.stdout)
        assert stats["domain"] == name and set(stats["dataset"]) == {"name", "synthetic"}
        assert "overall" in stats and any(k.startswith("by_") for k in stats)
        shapes[name] = stats
    k = shapes["kitchen"]
    assert k["overall"]["n_runs"] == 2 and k["overall"]["n_succeeded"] == 2
    assert set(k["by_pairing"]) == {"gpt-4o -> claude-sonnet-4", "proagent gpt-4o -> baseline claude-sonnet-4-20250514"}
    assert set(k["by_scaffold"]) == {"(not recorded)", "proagent -> baseline"} and set(k["by_level"]) == {"1"}
    assert k["overall"]["n_request_units"] == sum(g["n_request_units"] for g in k["by_pairing"].values())
    assert shapes["benchmark"]["overall"]["n_items"] == 852 and len(shapes["benchmark"]["by_run"]) == 6
    assert shapes["map_task"]["overall"]["n_sessions"] == 2
    text = run_cli("stats", str(kitchen)).stdout
    assert text.startswith("kitchen (imported) (kitchen)") and "By scaffold" in text and "proagent -> baseline" in text
    # a broken kitchen dataset: stats says what is wrong, exit 1
    _damage(kitchen, lambda d: d.__setitem__("score", "lots"))
    out = run_cli("stats", str(kitchen))
    assert out.returncode == 1 and "score" in out.stderr and "expected a number" in out.stderr
