"""SynchToM's released items as a benchmark: items, rubrics and trajectories read field for field,
imported as a benchmark dataset the app opens (Compare shows it), exported as instances with the
prompt SynchToM's inference.py builds, and a run's judge score files read back against the items.

The items are real: ``tests/fixtures/synchtom/`` holds 14 items of the four benchmark files and 15
trajectory files copied from THUNLP-MT/SynchToM (Apache-2.0; LICENSE and NOTICE beside them). The
whole release, and the authors' inference.py and evaluate.py, are read from a mirror of the
repository (``GROUNDWORK_SYNCHTOM_REPO``) where there is one, and those tests are skipped, saying
why, where there is none. No score file is released: the score files here are built in exactly the
shape evaluate.py writes (tests/test_synchtom.py), or written by evaluate.py itself.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from real_data import SYNCHTOM_REPO, no_mirror
from test_analysis_pages import open_page

from analysis.cli import main as analysis_cli
from analysis.compare.instances import iter_synchtom_instances
from analysis.compare.judges import dimension_scores, paper_table
from corpus.benchmark.dataset import load_benchmark
from corpus.cli import main as corpus_cli
from corpus.importers import run_import
from corpus.importers.tom.synchtom import read_judged_runs, read_release
from corpus.importers.tom.synchtom_items import (
    DIMENSIONS,
    read_synchtom_items,
    release_item,
    release_trajectory,
    rubric_sizes,
)
from corpus.loading.report import DatasetError

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "synchtom"
FILES = {
    "culture-benchmark.json": "Culture",
    "education-benchmark.json": "Education",
    "pref-benchmark.json": "Preference",
    "swe-benchmark.json": "SWE",
}
ORPHAN = "trajectories/culture-benchmark/culture_0099.json"
SYNCHTOM_COMMIT = "ca35c1194f3763596832c5e0b545d3996a13518b"
JUDGE = "Qwen/Qwen3-32B"
LB, UP, CR = DIMENSIONS


def released() -> dict[str, list[dict[str, Any]]]:
    """The fixture's benchmark files as JSON: file name -> its items."""
    return {name: json.loads((FIXTURE / name).read_text(encoding="utf-8")) for name in FILES}


def copy_fixture(dest: Path) -> Path:
    shutil.copytree(FIXTURE, dest)
    return dest


def mirror_file(path: str) -> bytes:
    try:
        return subprocess.run(
            ["git", "--git-dir", str(SYNCHTOM_REPO), "show", f"{SYNCHTOM_COMMIT}:{path}"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"{no_mirror(SYNCHTOM_REPO, 'THUNLP-MT/SynchToM', 'GROUNDWORK_SYNCHTOM_REPO')}: {exc}")


# -- the items ------------------------------------------------------------------------------------


def test_the_released_items_are_read_field_for_field():
    bench, report = read_synchtom_items(FIXTURE)
    assert report.ok, report.format()
    assert [(i.severity, i.file, i.field, i.message) for i in report.issues] == [
        ("warning", ORPHAN, "(file)", "no item points to this trajectory file: not read")
    ]
    assert bench.kind == "synchtom" and bench.slices == ("benchmark", "domain")
    assert bench.items["benchmark"].value_counts().to_dict() == {
        "Preference": 4,
        "Education": 4,
        "Culture": 3,
        "SWE": 3,
    }
    files = released()
    want_ids = [it["id"] for name in sorted(files) for it in files[name]]
    assert bench.items["item_id"].tolist() == want_ids
    for name, items in files.items():
        for it in items:
            # Every field as the release writes it, the item and its trajectory file.
            assert release_item(bench, it["id"]) == it
            traj = json.loads((FIXTURE / it["trajectory"]).read_text(encoding="utf-8"))
            assert release_trajectory(bench, it["id"]) == traj
            assert bench.contexts[it["id"]]["file"] == name
            row = bench.items.set_index("item_id").loc[it["id"]]
            assert (row["group"], row["question_id"], row["question"]) == (
                it["id"],
                it["id"],
                it["explicit_instruction"],
            )
            assert (row["benchmark"], row["domain"], row["misconception_type"]) == (
                FILES[name],
                it["domain"],
                it["misconception_type"],
            )
            assert (row["options"], row["option_kinds"], row["gold"]) == ([], [], "")
    # The fields the release writes beside the turns, and a turn without an observation, are kept.
    pref19 = release_trajectory(bench, "pref_0019")["trajectory"]
    assert all("interpretation" in t for t in pref19)
    assert (
        release_trajectory(bench, "pref_0065")["trajectory"][5]["observation_hidden_context"]
        == "The banner is the direct clue to S*."
    )
    assert "observation" not in release_trajectory(bench, "pref_0005")["trajectory"][9]
    assert [t["red_herring"] for t in release_trajectory(bench, "edu_0022")["trajectory"] if "red_herring" in t] == [
        True,
        True,
        True,
    ]
    assert rubric_sizes(bench)["culture_0341"] == {LB: 4, UP: 3, CR: 7}
    assert rubric_sizes(bench)["edu_00102"] == {LB: 2, UP: 2, CR: 5}


def test_the_whole_release_reads_as_its_four_files_say(tmp_path):
    """The release as the repository holds it (from the mirror): 391 items, 70 Culture, 100
    Education, 120 Preference and 101 SWE; 392 trajectory files, one of them no item's."""
    mirror_file("README.md")  # skips without a mirror
    with tarfile.open(
        fileobj=io.BytesIO(
            subprocess.run(
                ["git", "--git-dir", str(SYNCHTOM_REPO), "archive", SYNCHTOM_COMMIT], capture_output=True, check=True
            ).stdout
        )
    ) as tf:
        members = [m for m in tf.getmembers() if m.name.endswith(".json")]
        trajectories = [m for m in members if m.name.startswith("trajectories/")]
        tf.extractall(tmp_path, members=members, filter="data")
    bench, report = read_synchtom_items(tmp_path)
    assert report.ok and [i.file for i in report.warnings] == [ORPHAN]
    assert len(trajectories) == 392 and len(bench.items) == 391
    assert bench.items["benchmark"].value_counts().to_dict() == {
        "Preference": 120,
        "SWE": 101,
        "Education": 100,
        "Culture": 70,
    }
    turns = {i: c["trajectory"]["trajectory"] for i, c in bench.contexts.items()}
    assert {len(t) for t in turns.values()} == {10}
    flagged = sorted(i for i, ts in turns.items() if any(set(t) - {"turn", "action", "observation"} for t in ts))
    assert flagged == ["edu_0022", "pref_0014", "pref_0019", "pref_0064", "pref_0065"]
    unobserved = sorted(i for i, ts in turns.items() if any("observation" not in t for t in ts))
    assert unobserved == ["pref_0005", "pref_0094", "swe_0023", "swe_0046", "swe_0047"]  # and the orphan
    sizes = rubric_sizes(bench)
    assert sum(s[CR] >= 6 for s in sizes.values()) == 63
    assert {n for s in sizes.values() for n in s.values()} == {2, 3, 4, 5, 6, 7}


def test_import_writes_a_benchmark_dataset_read_back_exactly(tmp_path, capsys):
    assert corpus_cli(["import", "--from", "synchtom", str(FIXTURE), str(tmp_path / "ds")]) == 0
    bench, _ = read_synchtom_items(FIXTURE)
    back = load_benchmark(tmp_path / "ds")
    assert back.kind == "synchtom" and back.slices == bench.slices and back.judged == ()
    assert back.contexts == bench.contexts
    assert back.items.to_dict("records") == bench.items.to_dict("records")
    assert "14 SynchToM items (Preference 4, Culture 3, SWE 3, Education 4)" in back.description
    # A zip of the release (a top folder, as GitHub's download has) imports the same.
    archive = tmp_path / "SynchToM-main.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in sorted(FIXTURE.rglob("*")):
            if p.is_file():
                zf.write(p, f"SynchToM-main/{p.relative_to(FIXTURE).as_posix()}")
    run_import("synchtom", archive, tmp_path / "from_zip")
    assert load_benchmark(tmp_path / "from_zip").contexts == bench.contexts


def _break(root: Path, name: str, change) -> None:
    path = root / name
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")


def test_broken_items_are_named_by_file_record_and_field_and_refuse_the_import(tmp_path):
    root = copy_fixture(tmp_path / "release")
    _break(root, "swe-benchmark.json", lambda d: d[0].pop("observation"))
    _break(root, "swe-benchmark.json", lambda d: d[1]["rubrics"].pop("user_profile_modeling"))
    _break(root, "culture-benchmark.json", lambda d: d[1]["rubrics"]["correct_resolution"][2].update(criterion=3))
    _break(root, "pref-benchmark.json", lambda d: d[0].update(trajectory="trajectories/pref-benchmark/gone.json"))
    _break(root, "pref-benchmark.json", lambda d: d[1].update(trajectory="../../outside.json"))
    _break(root, "education-benchmark.json", lambda d: d[0].update(id="swe_0070"))
    _break(root, "trajectories/education-benchmark/edu_0022.json", lambda d: d["trajectory"][2].update(action=None))
    _break(root, "trajectories/education-benchmark/edu_0025.json", lambda d: d["trajectory"][0].update(turn="1"))
    bench, report = read_synchtom_items(root)
    assert [(i.file, i.record, i.field, i.message) for i in report.errors] == [
        (
            "culture-benchmark.json",
            "item 'culture_0106'",
            "rubrics.correct_resolution[2].criterion",
            "expected the criterion's text, got the integer 3",
        ),
        (
            "trajectories/education-benchmark/edu_0022.json",
            "turn 3",
            "action",
            "expected text, got null",
        ),
        (
            "trajectories/education-benchmark/edu_0025.json",
            "turn 1",
            "turn",
            "expected an integer, got the string '1'",
        ),
        (
            "pref-benchmark.json",
            "item 'pref_0005'",
            "trajectory",
            "no such file: 'trajectories/pref-benchmark/gone.json' (relative to the folder of pref-benchmark.json; "
            "inference.py skips an item whose trajectory file is missing)",
        ),
        (
            "pref-benchmark.json",
            "item 'pref_0019'",
            "trajectory",
            "not a path inside the source folder: '../../outside.json'",
        ),
        ("swe-benchmark.json", "item 'swe_0001'", "observation", "required field is missing"),
        (
            "swe-benchmark.json",
            "item 'swe_0046'",
            "rubrics.user_profile_modeling",
            "missing: an item has criteria for each of the three dimensions (evaluate.py would tell the judge a "
            "maximum of 5 for a dimension the rubric lacks)",
        ),
        (
            "swe-benchmark.json",
            "item 'swe_0070'",
            "id",
            "the same id as record 1 of education-benchmark.json",
        ),
    ]
    with pytest.raises(DatasetError) as exc:
        run_import("synchtom", root, tmp_path / "ds")
    assert exc.value.report.error_count == 8
    assert not (tmp_path / "ds").exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".ds")]


def test_a_folder_without_benchmark_files_and_a_file_that_is_not_an_array(tmp_path):
    (tmp_path / "empty").mkdir()
    _, report = read_synchtom_items(tmp_path / "empty")
    assert [(i.field, i.message) for i in report.errors] == [
        ("(source)", "no SynchToM benchmark file (*-benchmark.json) found")
    ]
    (tmp_path / "x-benchmark.json").write_text('{"id": "x"}', encoding="utf-8")
    _, report = read_synchtom_items(tmp_path / "x-benchmark.json")
    assert [(i.file, i.field, i.message) for i in report.errors] == [
        ("x-benchmark.json", "(file)", "expected a JSON array of items, got an object")
    ]


# -- instances and the prompt of inference.py -------------------------------------------------------


def authors_load_trajectory(full_path: Path, step_num: int | None) -> list[dict[str, Any]] | None:
    """``load_trajectory`` of SynchToM's inference.py (ca35c11), literally, without its logging."""
    if not full_path.exists():
        return None
    with open(full_path, encoding="utf-8") as f:
        data = json.load(f)
    trajectory = data.get("trajectory", data)
    filtered_trajectory = []
    for turn in trajectory:
        filtered_turn = {"turn": turn["turn"], "action": turn["action"], "observation": turn.get("observation", "")}
        filtered_trajectory.append(filtered_turn)
    if step_num is not None and step_num > 0:
        filtered_trajectory = filtered_trajectory[:step_num]
    if step_num == 0:
        filtered_trajectory = []
    return filtered_trajectory


def authors_prompt(observation: str, explicit_instruction: str, trajectory: list[dict[str, Any]]) -> str:
    """``inference_prompt`` of ``infer_three_dimensions`` in SynchToM's inference.py (ca35c11), literally."""
    inference_prompt = f"""# Task: 
You need to infer three key aspects about a user based on their observation, explicit instruction, and behavioral trajectory.

## Given Information

### User's Observation:
{observation}

### User's Explicit Instruction:
{explicit_instruction}

### User's Behavioral Trajectory:
{json.dumps(trajectory, indent=2, ensure_ascii=False)}

---

## Your Task

Based on the above information, infer and provide:

### 1. Latent Belief Explanation
What does the user believe is the root cause of the problem? Explain their mental model and why they have this belief.

### 2. User Profile Modeling
What underlying preference, bias, experience level, or worldview does this user have that led them to form this belief? Why did they develop this conception?

### 3. Correct Resolution
What is the actual root cause of the problem, and what is the correct solution? Explain what the user should do to truly fix the issue.

## Requirements
- Be specific and concrete in your answers
- The latent belief should explain the user's observable actions
- The user profile should explain WHY they have this latent belief
- The correct resolution should address the true root cause

## Output Format

Return a JSON object with exactly these fields:
{{
  "latent_belief_explanation": "The user's belief about the problem and why they think their approach works",
  "user_profile_modeling": "The user's background, preferences, and biases that led to this belief",
  "correct_resolution": "The root cause and the correct solution to fix it"
}}
"""  # noqa: W291 (the script's first line ends in a space)
    return inference_prompt


@pytest.mark.parametrize("steps", [0, 5, 10, -1])
def test_instances_carry_the_prompt_inference_py_builds(tmp_path, steps):
    out = tmp_path / "instances.jsonl"
    assert analysis_cli(["instances", str(FIXTURE), str(out), "--steps", str(steps)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    items = {it["id"]: it for its in released().values() for it in its}
    assert [line["id"] for line in lines] == list(read_synchtom_items(FIXTURE)[0].items["item_id"])
    for line in lines:
        it = items[line["id"]]
        turns = authors_load_trajectory(FIXTURE / it["trajectory"], steps)
        assert line["trajectory"] == turns
        assert line["prompt"] == authors_prompt(it["observation"], it["explicit_instruction"], turns)
        assert line["setting"] == f"step{steps}"
        assert line["answer"] == {
            "instance_id": it["id"],
            "latent_belief_explanation": "text",
            "user_profile_modeling": "text",
            "correct_resolution": "text",
        }
        assert line["inference_record"]["rubrics"] == it["rubrics"]
        assert line["inference_record"]["ground_truth"]["true_latent_state"] == it["true_latent_state"]
        assert "red_herring" not in line["prompt"] and "observation_hidden_context" not in line["prompt"]
    by_id = {line["id"]: line for line in lines}
    # A turn with no observation is given an empty one; a non-ASCII item is written as it is.
    if steps in (10, -1):
        assert by_id["pref_0005"]["trajectory"][9]["observation"] == ""
        assert '"observation": ""' in by_id["pref_0005"]["prompt"]
    assert len(by_id["culture_0341"]["trajectory"]) == {0: 0, 5: 5, 10: 10, -1: 10}[steps]
    assert "甲" in by_id["culture_0341"]["prompt"]


def test_the_imported_dataset_exports_the_same_instances(tmp_path):
    run_import("synchtom", FIXTURE, tmp_path / "ds")
    from_release = list(iter_synchtom_instances(read_release(FIXTURE)[0], 5))
    from_dataset = list(iter_synchtom_instances(load_benchmark(tmp_path / "ds"), 5))
    assert from_dataset == from_release
    assert analysis_cli(["instances", str(tmp_path / "ds"), str(tmp_path / "i.jsonl")]) == 2  # --steps is required


STUB_OPENAI = """
import json, sys, types

SENT = []


class _Completions:
    def create(self, model, messages, temperature, timeout=None):
        SENT.append(messages[0]["content"])
        with open("sent.json", "w", encoding="utf-8") as f:
            json.dump(SENT, f, ensure_ascii=False)
        reply = {k: f"{model} on item {len(SENT)}" for k in
                 ("latent_belief_explanation", "user_profile_modeling", "correct_resolution")}
        return types.SimpleNamespace(
            choices=[types.SimpleNamespace(message=types.SimpleNamespace(content=json.dumps(reply)))])


class OpenAI:
    def __init__(self, api_key=None, base_url=None):
        self.chat = types.SimpleNamespace(completions=_Completions())


sys.modules["openai"] = types.SimpleNamespace(OpenAI=OpenAI)
import runpy
sys.argv = ["inference.py", "-i", sys.argv[1], "-m", "stub-model", "-s", sys.argv[2]]
runpy.run_path("inference.py", run_name="__main__")
"""


def test_the_prompts_are_those_the_authors_inference_py_sends(tmp_path):
    """SynchToM's own inference.py (from the mirror), run in a copy of the fixture's release with a
    stand-in for the openai package that keeps every message: the prompts it sends, and the records
    it writes, are the exported instances' ``prompt`` and ``inference_record``."""
    code = mirror_file("inference.py")
    root = copy_fixture(tmp_path / "release")
    (root / "inference.py").write_bytes(code)
    (root / "drive.py").write_text(STUB_OPENAI, encoding="utf-8")
    subprocess.run([sys.executable, "drive.py", "swe-benchmark.json", "5"], cwd=root, check=True, capture_output=True)
    sent = json.loads((root / "sent.json").read_text(encoding="utf-8"))
    written = json.loads(
        next((root / "inference_results").glob("inference_swe-benchmark_stub-model_step5_*.json")).read_text()
    )
    ours = [i for i in iter_synchtom_instances(read_release(FIXTURE)[0], 5) if i["file"] == "swe-benchmark.json"]
    assert [i["prompt"] for i in ours] == sent and len(sent) == 3
    for inst, rec in zip(ours, written):
        assert {k: v for k, v in rec.items() if k not in ("inference", "inferred_at")} == inst["inference_record"]


# -- judge score files read back against the items ---------------------------------------------------


def evaluated(item: dict[str, Any], met: dict[str, list[int]], judge_max: bool = True) -> dict[str, Any]:
    """The record evaluate.py writes for ``item`` when its judge finds the criteria ``met``."""
    dims = {
        d: {
            "criterion_scores": {f"criterion_{k}": v for k, v in enumerate(met[d], start=1)},
            "total_score": sum(met[d]),
            "max_score": len(item["rubrics"][d]),
            "feedback": "...",
        }
        for d in DIMENSIONS
    }
    total, top = sum(sum(m) for m in met.values()), sum(len(item["rubrics"][d]) for d in DIMENSIONS)
    return {
        "instance_id": item["id"],
        "domain": item["domain"],
        "evaluated_at": "2026-02-24T10:00:00.000001",
        "ground_truth": {k: item[k] for k in ("user_profile", "user_latent_belief", "true_latent_state")},
        "inference": {d: "..." for d in DIMENSIONS},
        "rubrics": item["rubrics"],
        "evaluation": {
            **dims,
            "overall_summary": {"total_score": total, "max_score": top, "percentage": total / top * 100},
            "raw_response": "...",
        },
    }


def met_for(item: dict[str, Any], k: int, shift: int) -> dict[str, list[int]]:
    """A judge's verdicts made up for the k-th item: the first (k + shift + j) mod (n + 1) of each
    dimension's n criteria met."""
    out = {}
    for j, d in enumerate(DIMENSIONS):
        n = len(item["rubrics"][d])
        m = (k + shift + j) % (n + 1)
        out[d] = [1] * m + [0] * (n - m)
    return out


def write_scores(root: Path, runs: list[tuple[str, int, str, dict[str, list[dict[str, Any]]]]]) -> None:
    """evaluate.py's output in ``root``: one score file per run and benchmark file
    (``evaluation_<file stem>_<model>_step<N>_<stamp>.json``), one summary entry each."""
    out = root / "evaluation_results"
    out.mkdir(parents=True, exist_ok=True)
    summary = []
    for k, (model, steps, judge, by_file) in enumerate(runs):
        for j, (name, records) in enumerate(by_file.items()):
            stem = name.removesuffix(".json")
            fname = f"evaluation_{stem}_{model}_step{steps}_20260224_1{k}{j}000.json"
            (out / fname).write_text(json.dumps(records, indent=2, ensure_ascii=False), encoding="utf-8")
            summary.append(
                {
                    "input_file": f"inference_results/inference_{stem}_{model}_step{steps}_20260223_090000.json",
                    "output_file": f"evaluation_results/{fname}",
                    "judge_model": judge,
                }
            )
    (root / "evaluation_summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")


def two_runs(root: Path) -> dict[tuple[str, int], dict[str, dict[str, list[int]]]]:
    """Runs step0 and step10 of model 'stub' judged by Qwen3-32B over every fixture item but the
    step10 run's culture_0106 (a judging that failed); returns the verdicts by run and item."""
    verdicts: dict[tuple[str, int], dict[str, dict[str, list[int]]]] = {}
    runs = []
    for steps, shift in ((0, 0), (10, 2)):
        by_file = {}
        mine = verdicts.setdefault(("stub", steps), {})
        for name, items in released().items():
            records = []
            for k, it in enumerate(items):
                if steps == 10 and it["id"] == "culture_0106":
                    continue
                mine[it["id"]] = met_for(it, k, shift)
                records.append(evaluated(it, mine[it["id"]]))
            by_file[name] = records
        runs.append(("stub", steps, JUDGE, by_file))
    write_scores(root, runs)
    return verdicts


def expected_cells(verdicts) -> dict[tuple[str, str, str], float]:
    """(setting, benchmark, dimension) -> percent, counted by hand from the verdicts."""
    items = {it["id"]: (FILES[name], it) for name, its in released().items() for it in its}
    names = {LB: "Belief", UP: "Profile", CR: "Solution"}
    out: dict[tuple[str, str, str], float] = {}
    for (_, steps), by_item in verdicts.items():
        for bench in set(FILES.values()):
            means = []
            for d in DIMENSIONS:
                ratios = [sum(m[d]) / len(m[d]) for iid, m in by_item.items() if items[iid][0] == bench]
                means.append(sum(ratios) / len(ratios))
                out[(f"step{steps}", bench, names[d])] = 100 * means[-1]
            out[(f"step{steps}", bench, "AVG")] = 100 * sum(means) / 3
    return out


def test_a_run_s_scores_are_joined_to_the_items_and_shown_per_dimension(tmp_path):
    root = copy_fixture(tmp_path / "release")
    verdicts = two_runs(root)
    bench, report, said = read_release(root)
    assert report.ok, report.format()
    assert said == "14 SynchToM items (Preference 4, Culture 3, SWE 3, Education 4), 2 judged run(s)"
    assert [r.run_id for r in bench.judged] == ["stub (step0; Qwen/Qwen3-32B)", "stub (step10; Qwen/Qwen3-32B)"]
    step0, step10 = bench.judged
    assert step0.missing == () and step10.missing == ("culture_0106",)
    assert [(i.severity, i.field) for i in report.warnings if "has no score" in i.message] == [
        ("warning", "instance_id")
    ]
    warning = next(i.message for i in report.warnings if "has no score" in i.message)
    assert "has no score for 1 of the 3 items of Culture (culture_0106)" in warning
    # Joined: every score row is an item's, with the item's own rubric size.
    sizes = rubric_sizes(bench)
    row = step10.scores.set_index(["item_id", "dimension"]).loc[("culture_0341", CR)]
    assert (row["score"], row["criteria"]) == (
        sum(verdicts[("stub", 10)]["culture_0341"][CR]),
        sizes["culture_0341"][CR],
    )
    assert len(step0.scores) == 14 * 3 and len(step10.scores) == 13 * 3
    cells = dimension_scores(bench)
    want = expected_cells(verdicts)
    got = {(r.setting, r.benchmark, r.dimension): r.estimate for r in cells.itertuples()}
    assert got.keys() == want.keys()
    for key, value in want.items():
        assert got[key] == pytest.approx(value), key
    culture10 = cells[(cells["setting"] == "step10") & (cells["benchmark"] == "Culture")]
    assert set(culture10["n"]) == {2} and set(culture10["items"]) == {3}
    assert (cells["ci_low"] <= cells["estimate"] + 1e-9).all() and (cells["estimate"] <= cells["ci_high"] + 1e-9).all()
    # The paper's layout: a row per model and dimension, a column per benchmark and setting.
    table = paper_table(cells)
    assert list(table.columns) == [
        (b, c) for b in ("Preference", "Culture", "SWE", "Education") for c in ("vanilla", "10-Turn")
    ]
    assert [k[2] for k in table.index] == ["Belief", "Profile", "Solution", "AVG"]
    assert table.loc[(JUDGE, "stub", "AVG"), ("SWE", "10-Turn")] == f"{want[('step10', 'SWE', 'AVG')]:.2f}"


def test_an_unknown_instance_and_another_rubric_are_named_and_refuse_their_file(tmp_path):
    root = copy_fixture(tmp_path / "release")
    files = released()
    swe = [evaluated(it, met_for(it, k, 0)) for k, it in enumerate(files["swe-benchmark.json"])]
    ghost = evaluated(files["swe-benchmark.json"][0], met_for(files["swe-benchmark.json"][0], 0, 0))
    ghost["instance_id"] = "swe_9999"
    culture = [evaluated(it, met_for(it, k, 0)) for k, it in enumerate(files["culture-benchmark.json"])]
    culture[1]["rubrics"][CR] = culture[1]["rubrics"][CR][:-1]  # judged on a rubric of one criterion fewer
    culture[1]["evaluation"][CR] = {
        **culture[1]["evaluation"][CR],
        "criterion_scores": {"criterion_1": 1},
        "total_score": 1,
    }
    pref = [evaluated(it, met_for(it, k, 0)) for k, it in enumerate(files["pref-benchmark.json"])]
    write_scores(
        root,
        [
            (
                "stub",
                5,
                JUDGE,
                {"swe-benchmark.json": [*swe, ghost], "culture-benchmark.json": culture, "pref-benchmark.json": pref},
            )
        ],
    )
    bench, _ = read_synchtom_items(root)
    runs, report = read_judged_runs(root, bench)
    swe_file = "evaluation_results/evaluation_swe-benchmark_stub_step5_20260224_100000.json"
    culture_file = "evaluation_results/evaluation_culture-benchmark_stub_step5_20260224_101000.json"
    assert [(i.file, i.record, i.field, i.message) for i in report.errors] == [
        (
            culture_file,
            "instance 'culture_0106'",
            "rubrics.correct_resolution",
            "4 criteria here; the item's rubric has 5: judged against other items?",
        ),
        (
            swe_file,
            "instance 'swe_9999'",
            "instance_id",
            "no such item in the benchmark (14 items from culture-benchmark.json, education-benchmark.json, "
            "pref-benchmark.json, swe-benchmark.json)",
        ),
    ]
    # The preference file is read; the two refused files' items are not.
    assert [r.run_id for r in runs] == ["stub (step5; Qwen/Qwen3-32B)"]
    assert sorted(set(runs[0].scores["item_id"])) == ["pref_0005", "pref_0019", "pref_0064", "pref_0065"]
    # The import is all or nothing.
    with pytest.raises(DatasetError) as exc:
        run_import("synchtom", root, tmp_path / "ds")
    assert {i.record for i in exc.value.report.errors} == {"instance 'swe_9999'", "instance 'culture_0106'"}
    # From the command line: the problems on stderr, exit status 1, the scores of what was read.
    assert analysis_cli(["judges", str(root / "evaluation_results"), "--items", str(root), "--json"]) == 1


def test_two_files_of_one_run_scoring_one_item_are_both_refused(tmp_path):
    root = copy_fixture(tmp_path / "release")
    swe = released()["swe-benchmark.json"]
    write_scores(
        root,
        [
            ("stub", 5, JUDGE, {"swe-benchmark.json": [evaluated(it, met_for(it, k, 0)) for k, it in enumerate(swe)]}),
            ("stub", 5, JUDGE, {"swe-benchmark.json": [evaluated(swe[0], met_for(swe[0], 0, 1))]}),
        ],
    )
    # The second is of another inference file of the same model and setting (inference.py stamps its
    # output; evaluate.py keeps the stamp in its own file's name).
    old = "evaluation_swe-benchmark_stub_step5_20260224_110000.json"
    new = "evaluation_swe-benchmark_stub_step5_20260223_090000_20260224_110000.json"
    (root / "evaluation_results" / old).rename(root / "evaluation_results" / new)
    summary = (root / "evaluation_summary.json").read_text(encoding="utf-8")
    (root / "evaluation_summary.json").write_text(summary.replace(old, new), encoding="utf-8")
    bench, _ = read_synchtom_items(root)
    runs, report = read_judged_runs(root, bench)
    assert runs == ()
    first = "evaluation_results/evaluation_swe-benchmark_stub_step5_20260224_100000.json"
    said = "stub (step5) judged by 'Qwen/Qwen3-32B' also has 1 of these instances in {}: keep one of the two files"
    assert [(i.file, i.record, i.field, i.message) for i in report.errors] == [
        (f"evaluation_results/{new}", "instance 'swe_0001'", "instance_id", said.format(first)),
        (first, "instance 'swe_0001'", "instance_id", said.format(f"evaluation_results/{new}")),
    ]


def test_the_import_keeps_the_judged_runs_and_the_judges_command_prints_table_3(tmp_path, capsys):
    root = copy_fixture(tmp_path / "release")
    verdicts = two_runs(root)
    assert corpus_cli(["import", "--from", "synchtom", str(root), str(tmp_path / "ds")]) == 0
    back = load_benchmark(tmp_path / "ds")
    fresh = read_release(root)[0]
    assert [r.as_dict() for r in back.judged] == [r.as_dict() for r in fresh.judged]
    for a, b in zip(back.judged, fresh.judged):
        assert a.scores.to_dict("records") == b.scores.to_dict("records")
    capsys.readouterr()
    # The release's working folder as evaluate.py leaves it: items and score files together.
    assert analysis_cli(["judges", str(root)]) == 0
    out = capsys.readouterr().out
    want = expected_cells(verdicts)
    assert "2 run(s) of 1 judge(s) on 14 SynchToM items" in out
    assert f"{want[('step0', 'Preference', 'Belief')]:.2f}" in out and "10-Turn" in out and "vanilla" in out
    # The imported dataset as the items; JSON with every cell.
    assert analysis_cli(["judges", str(root / "evaluation_results"), "--items", str(tmp_path / "ds"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["judges"] == [JUDGE] and [r["missing"] for r in data["runs"]] == [[], ["culture_0106"]]
    cell = next(
        c for c in data["scores"] if (c["setting"], c["benchmark"], c["dimension"]) == ("step10", "SWE", "Solution")
    )
    assert cell["estimate"] == pytest.approx(want[("step10", "SWE", "Solution")]) and cell["n"] == 3


EVALUATE_DRIVER = """
import json, re, runpy, sys, time, types

VERDICTS = json.loads(open("verdicts.json").read())


class _Completions:
    def create(self, model, messages, temperature):
        iid = re.search(r"\\[(\\w+)\\]", messages[0]["content"]).group(1)
        reply = {d: {"criterion_scores": {f"criterion_{k}": v for k, v in enumerate(m, 1)}, "total_score": 0,
                     "max_score": 0, "feedback": "..."} for d, m in VERDICTS[iid].items()}
        reply["overall_summary"] = {"total_score": 0, "max_score": 0, "percentage": 0}
        text = "Criterion 1 is met because ...\\n```json\\n" + json.dumps(reply) + "\\n```"
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=types.SimpleNamespace(content=text))])


class OpenAI:
    def __init__(self, api_key=None, base_url=None):
        self.chat = types.SimpleNamespace(completions=_Completions())


sys.modules["openai"] = types.SimpleNamespace(OpenAI=OpenAI)
sys.argv = ["evaluate.py", "-i", sys.argv[1], "-j", "Qwen/Qwen3-32B", "-w", "1"]
runpy.run_path("evaluate.py", run_name="__main__")
"""


def test_exported_instances_judged_by_the_authors_evaluate_py_read_back(tmp_path):
    """The whole loop on real items: instances exported, a model's replies added to their
    ``inference_record`` as inference.py would, the authors' evaluate.py (with a stand-in judge)
    scoring them, and the release folder it leaves imported with the run's scores."""
    code = mirror_file("evaluate.py")
    root = copy_fixture(tmp_path / "release")
    (root / "evaluate.py").write_bytes(code)
    (root / "drive.py").write_text(EVALUATE_DRIVER, encoding="utf-8")
    bench = read_release(root)[0]
    records, verdicts = [], {}
    for k, inst in enumerate(i for i in iter_synchtom_instances(bench, 5) if i["file"] == "education-benchmark.json"):
        reply = {d: f"[{inst['id']}] the model's {d}" for d in DIMENSIONS}
        records.append({**inst["inference_record"], "inference": reply, "inferred_at": "2026-02-24T09:00:00"})
        verdicts[inst["id"]] = met_for(release_item(bench, inst["id"]), k, 1)
    (root / "inference_results").mkdir()
    name = "inference_education-benchmark_stub-model_step5_20260224_090000.json"
    (root / "inference_results" / name).write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    (root / "verdicts.json").write_text(json.dumps(verdicts), encoding="utf-8")
    subprocess.run([sys.executable, "drive.py", f"inference_results/{name}"], cwd=root, check=True, capture_output=True)
    back, report, _ = read_release(root)
    assert report.ok, report.format()
    (run,) = back.judged
    assert (run.model, run.setting, run.judge, run.missing) == ("stub-model", "step5", JUDGE, ())
    got = {(r.item_id, r.dimension): (r.score, r.criteria) for r in run.scores.itertuples()}
    assert got == {(i, d): (sum(m[d]), len(m[d])) for i, m in verdicts.items() for d in DIMENSIONS}


# -- the Compare screen ---------------------------------------------------------------------------


def frame_with(at, column: str):
    """The first table on the screen with this column."""
    return next(d.value for d in at.dataframe if column in d.value.columns)


def test_compare_shows_the_items_and_the_judged_runs_scores(tmp_path, monkeypatch):
    root = copy_fixture(tmp_path / "release")
    verdicts = two_runs(root)
    dataset = tmp_path / "datasets" / "synchtom"
    run_import("synchtom", root, dataset)
    at = open_page(tmp_path, monkeypatch, "pages/compare.py", dataset=dataset)
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == "Models on a benchmark"
    captions = "\n".join(c.value for c in at.caption)
    assert "14 items (Preference 4, Culture 3, SWE 3, Education 4); 2 judged run(s)" in captions
    assert not any("could be scored" in i.value for i in at.info)
    table = frame_with(at, "Culture · 10-Turn")
    want = expected_cells(verdicts)
    avg = table[(table["model"] == "stub") & (table["dimension"] == "AVG")]
    assert avg["Culture · 10-Turn"].item() == f"{want[('step10', 'Culture', 'AVG')]:.2f}"
    assert avg["Education · vanilla"].item() == f"{want[('step0', 'Education', 'AVG')]:.2f}"
    assert list(table["dimension"]) == ["Belief", "Profile", "Solution", "AVG"]
    # Items: one item with its scenario, rubric, trajectory (flags the model is not shown) and scores.
    at.session_state["synchtom_tab"] = "Items"
    at.run()
    at.selectbox(key="synchtom_item").set_value("edu_0022").run()
    assert not at.exception and not at.error
    text = "\n".join(m.value for m in (*at.markdown, *at.caption))
    item = release_item(load_benchmark(dataset), "edu_0022")
    assert item["rubrics"][CR][0]["criterion"][:30] in text.replace("\\", "")
    assert "**Turn 3.**" in text and "Not shown to the model: red herring: True" in text
    scores = frame_with(at, CR)
    assert list(scores["run"]) == ["stub (step0; Qwen/Qwen3-32B)", "stub (step10; Qwen/Qwen3-32B)"]
    assert scores[CR].iloc[0] == f"{sum(verdicts[('stub', 0)]['edu_0022'][CR])} / {len(item['rubrics'][CR])}"


def test_compare_on_items_without_runs_shows_the_items(tmp_path, monkeypatch):
    dataset = tmp_path / "datasets" / "synchtom"
    run_import("synchtom", FIXTURE, dataset)
    at = open_page(tmp_path, monkeypatch, "pages/compare.py", dataset=dataset)
    assert not at.error and not at.exception
    assert len(frame_with(at, "misconception_type")) == 14
    at.selectbox(key="synchtom_bench").set_value("SWE").run()
    assert frame_with(at, "misconception_type")["item_id"].tolist() == ["swe_0001", "swe_0046", "swe_0070"]


def test_the_report_of_the_dataset_holds_table_3(tmp_path, capsys):
    root = copy_fixture(tmp_path / "release")
    verdicts = two_runs(root)
    run_import("synchtom", root, tmp_path / "ds")
    assert analysis_cli(["report", str(tmp_path / "ds"), str(tmp_path / "out" / "report")]) == 0
    with zipfile.ZipFile(tmp_path / "out" / "report_tables.zip") as zf:
        name = next(n for n in zf.namelist() if "synchtom_scores_1" in n)
        rows = zf.read(name).decode("utf-8")
    want = expected_cells(verdicts)
    table = pd.read_csv(io.StringIO(rows))
    got = {(r.setting, r.benchmark, r.dimension): r.estimate for r in table.itertuples()}
    assert got == pytest.approx(want)
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "Scores per dimension, judge Qwen/Qwen3-32B" in html and "Culture · 10-Turn" in html


def test_text_from_the_items_reaches_the_screen_escaped(tmp_path, monkeypatch):
    """Markup in an item's fields and its trajectory is shown as written, not acted on."""
    from corpus.escape import md_line, md_text

    hostile = "**bold** [a link](https://example.com) <b>tag</b> :smile: $x$"
    root = copy_fixture(tmp_path / "release")
    _break(root, "swe-benchmark.json", lambda d: d[0].update(observation=hostile, domain=hostile))
    _break(root, "trajectories/swe-benchmark/swe_0001.json", lambda d: d["trajectory"][0].update(action=hostile))
    dataset = tmp_path / "datasets" / "synchtom"
    run_import("synchtom", root, dataset)
    at = open_page(tmp_path, monkeypatch, "pages/compare.py", dataset=dataset)
    at.selectbox(key="synchtom_item").set_value("swe_0001").run()
    assert not at.exception and not at.error
    shown = [m.value for m in (*at.markdown, *at.caption)]
    assert f"**Observation:** {md_text(hostile)}" in shown
    assert f"**Turn 1.** {md_text(hostile)}" in shown
    assert any(md_line(hostile) in c for c in shown)  # the domain, in the item's caption
    assert not any(hostile in s for s in shown)
