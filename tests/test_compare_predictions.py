"""Predictions are validated like datasets (every problem with file, line and field, all or nothing
per run), read from folders, .zip and .jsonl; extra fields become slices; the benchmark instances
round-trip through a model runner's output."""

from __future__ import annotations

import io
import json
import shutil
import zipfile

import pandas as pd
import pytest

from analysis.compare.comparison import compare
from analysis.compare.instances import iter_instances, write_instances
from analysis.compare.slices import slice_fields, slice_table, slice_wide
from corpus.loading.dataset import SAMPLE_DATA, load_dir, load_sample
from corpus.loading.validate import read_dataset
from corpus.predictions import read_run_dir
from corpus.predictions.sources import read_upload

pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def sample():
    return load_sample()


def _lines(rows) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows)


def test_a_malformed_predictions_file_gets_its_per_line_error_table(sample, tmp_path):
    s = next(x for x in sample.sessions.values() if x.split == "test")
    guide_at = next(a.index for a in s.actions if a.role == "guide" and a.index > 0)
    ok = {"session_id": s.id, "action_index": 1, "team_goal": "t3", "partner_intent": "p1", "self_reasoning": "r1"}
    rows = [
        ok,
        {**ok, "session_id": "nope"},  # line 2: unknown session
        {**ok, "action_index": 10_000},  # line 3: unknown action
        {**ok, "action_index": 2, "team_goal": "t9"},  # line 4: unknown label
        {**ok, "action_index": "3"},  # line 5: wrong type
        ok,  # line 6: duplicate of line 1
        {**ok, "action_index": guide_at, "role": "follower"},  # line 7: role that did not act
        "{not json",  # line 8: bad JSON
        {**ok, "action_index": 4, "rationale": 5},  # line 9: wrong type
        {**ok, "action_index": 5, "partner_intent": None},  # line 10: missing
    ]
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "mental_model.jsonl").write_text(_lines(rows))
    run = read_run_dir(folder, sample.sessions, sample.maps)
    assert not run.ok and run.tables == {}  # all or nothing
    got = {(i.record, i.field) for i in run.report.errors}
    assert got == {
        ("line 2", "session_id"),
        ("line 3", "action_index"),
        ("line 4", "team_goal"),
        ("line 5", "action_index"),
        ("line 6", "action_index"),
        ("line 7", "role"),
        ("line 8", "(json)"),
        ("line 9", "rationale"),
        ("line 10", "partner_intent"),
    }
    assert all(i.file == "bad/mental_model.jsonl" for i in run.report.errors)
    msgs = {i.record: i.message for i in run.report.errors}
    assert "unknown session 'nope'" in msgs["line 2"]
    assert "also line 1" in msgs["line 6"]
    assert f"the follower did not act at {s.id}:{guide_at}" in msgs["line 7"]
    assert "unknown team_goal label 't9'" in msgs["line 4"]


def test_next_action_lines_are_checked_against_the_grid(sample, tmp_path):
    s = next(x for x in sample.sessions.values() if x.split == "test")
    rows, _, grid = [], None, sample.maps[s.map_id].grid_size
    fol = [a.index for a in s.actions if a.role == "follower"][:4]
    rows = [
        {"session_id": s.id, "action_index": fol[0], "action_type": "draw", "content": [[grid[0], 0]]},
        {"session_id": s.id, "action_index": fol[1], "action_type": "jump", "content": None},
        {"session_id": s.id, "action_index": fol[2], "action_type": "message", "content": ["a"]},
        {"session_id": s.id, "action_index": fol[3], "action_type": "undo", "content": [[1, 1]]},
    ]
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "next_action.jsonl").write_text(_lines(rows))
    run = read_run_dir(tmp_path / "r", sample.sessions, sample.maps)
    assert [(i.record, i.field) for i in run.report.errors] == [
        ("line 1", "content[0]"),
        ("line 2", "action_type"),
        ("line 3", "content"),
        ("line 4", "content"),
    ]


def test_labels_as_codes_or_wording_and_extra_fields_as_slices(sample, tmp_path):
    s = next(x for x in sample.sessions.values() if x.split == "test")
    base = {"session_id": s.id, "partner_intent": "p1", "self_reasoning": "r1"}
    rows = [
        {
            **base,
            "action_index": 1,
            "team_goal": "Clear on what to do and working on it",
            "question_type": "GA",
            "time_span": "1-2",
        },
        {
            **base,
            "action_index": 2,
            "team_goal": {"code": "T2"},
            "partner_intent": "Understood the situation and we were on the same page",
            "question_type": "GT",
            "time_span": "2-3",
        },
        {
            **base,
            "action_index": 3,
            "team_goal": "working toward shared understanding",
            "self_reasoning": "Grounding - sharing/requesting info to align",
            "question_type": "GT",
            "time_span": "10-11",
        },
    ]
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "mental_model.jsonl").write_text(_lines(rows))
    run = read_run_dir(tmp_path / "w", sample.sessions, sample.maps)
    assert run.ok, run.report.format()
    t = run.table("mental_model")
    assert t["team_goal"].tolist() == ["t3", "t2", "t2"]
    assert t["partner_intent"].tolist() == ["p1", "p1", "p1"]
    assert t["self_reasoning"].tolist() == ["r1", "r1", "r4"]
    assert run.extra_fields("mental_model") == ["question_type", "time_span"]


def test_the_socialmindchange_layout_from_a_predictions_file(sample, tmp_path):
    """Accuracy by question type and by time span, from fields on the prediction lines."""
    s = next(x for x in sample.sessions.values() if x.split == "test")
    layout = [
        ("GA", "1-2", True),
        ("GA", "1-2", True),
        ("GA", "2-3", False),
        ("GT", "2-3", True),
        ("GT", "10-11", False),
        ("GT", "10-11", False),
        ("GT", "2-3", True),
        ("GA", "10-11", True),
    ]
    rows = []
    for i, (qt, span, right) in enumerate(layout, start=1):
        truth = s.actions[i].mental_model.team_goal.code
        rows.append(
            {
                "session_id": s.id,
                "action_index": i,
                "team_goal": truth if right else ("t1" if truth != "t1" else "t2"),
                "partner_intent": "p1",
                "self_reasoning": "r1",
                "question_type": qt,
                "time_span": span,
            }
        )
    (tmp_path / "smc").mkdir()
    (tmp_path / "smc" / "mental_model.jsonl").write_text(_lines(rows))
    run = read_run_dir(tmp_path / "smc", sample.sessions, sample.maps)
    cmp = compare(sample, [run], similarity=False)
    assert {"question_type", "time_span"} <= set(slice_fields(cmp.cat))
    by_type = slice_table(cmp.cat, "question_type", "team_goal").set_index("value")
    assert by_type.at["GA", "accuracy"] == pytest.approx(3 / 4) and by_type.at["GA", "n"] == 4
    assert by_type.at["GT", "accuracy"] == pytest.approx(2 / 4)
    by_span = slice_table(cmp.cat, "time_span", "team_goal")
    assert by_span["value"].tolist() == ["1-2", "2-3", "10-11"]  # spans in numeric order
    assert by_span["accuracy"].tolist() == pytest.approx([1.0, 2 / 3, 1 / 3])
    wide = slice_wide(by_span)
    assert wide.loc["smc"].tolist() == ["1.00 (2)", "0.67 (3)", "0.33 (3)"]


def test_a_dataset_with_a_broken_run_loads_and_leaves_the_run_out(tmp_path):
    root = shutil.copytree(SAMPLE_DATA, tmp_path / "ds")
    bad = root / "predictions" / "sim-llm-persona" / "mental_model.jsonl"
    lines = bad.read_text().splitlines()
    lines[4] = lines[4].replace('"team_goal":"', '"team_goal":"zz')
    bad.write_text("\n".join(lines) + "\n")
    _, report = read_dataset(root)
    assert report.ok  # the dataset itself is fine
    assert any(
        i.file == "predictions/sim-llm-persona/mental_model.jsonl" and i.record == "line 5" and i.field == "team_goal"
        for i in report.warnings
    )
    corpus = load_dir(root)
    assert not corpus.predictions["sim-llm-persona"].ok
    assert corpus.predictions["sim-llm-mental-model"].ok
    cmp = compare(corpus, corpus.predictions.values(), similarity=False)
    assert cmp.run_ids == ["sim-llm-mental-model"]
    assert [r.run_id for r in cmp.refused] == ["sim-llm-persona"]


def test_runs_from_a_zip_and_a_jsonl_upload(sample):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for run_dir in sorted((SAMPLE_DATA / "predictions").iterdir()):
            for f in run_dir.iterdir():
                zf.write(f, f"{run_dir.name}/{f.name}")
    runs = read_upload("runs.zip", buf.getvalue(), sample.sessions, sample.maps)
    assert sorted(r.run_id for r in runs) == ["sim-llm-mental-model", "sim-llm-persona"]
    assert all(r.ok for r in runs)
    data = (SAMPLE_DATA / "predictions" / "sim-llm-persona" / "next_action.jsonl").read_bytes()
    (one,) = read_upload("gpt.next_action.jsonl", data, sample.sessions, sample.maps)
    assert one.run_id == "gpt" and one.ok and len(one.table("next_action")) == _test_instances(sample)
    (bad,) = read_upload("notes.txt", b"hello", sample.sessions, sample.maps)
    assert not bad.ok and bad.report.errors[0].file == "notes.txt"
    (bomb,) = read_upload("x.zip", b"not a zip", sample.sessions, sample.maps)
    assert not bomb.ok and "not a zip" in bomb.report.errors[0].message


def _test_instances(corpus) -> int:
    """Benchmark instances of the test split: every action of a test session but its first (no history)."""
    return sum(len(s.actions) - 1 for s in corpus.sessions.values() if s.split == "test")


@pytest.mark.parametrize("task", ["mental_model", "next_action"])
def test_instances_round_trip_export_predict_import_score(sample, tmp_path, task):
    """Export the test split's instances, answer them with a sample run's predictions (keyed by the
    instance ids), import the answers as a run and score: the same numbers as the sample run."""
    out = tmp_path / "inst.jsonl"
    n = write_instances(sample, out, task, "test", "mental_model")
    instances = [json.loads(line) for line in out.read_text().splitlines()]
    assert n == len(instances) == _test_instances(sample)
    src = sample.predictions["sim-llm-persona"].table(task).set_index(["session_id", "action_index"])
    answers = []
    for inst in instances:
        p = src.loc[(inst["session_id"], inst["action_index"])]
        row = {k: inst["answer"][k] for k in ("session_id", "action_index", "role")}
        if task == "mental_model":
            row.update({d: p[d] for d in ("team_goal", "partner_intent", "self_reasoning")}, rationale=p["rationale"])
        else:
            content = p["cells"] if isinstance(p["cells"], list) else p["content"]
            row.update(action_type=p["action_type"], content=content if isinstance(content, (list, str)) else None)
        answers.append(row)
    (tmp_path / "runner").mkdir()
    (tmp_path / "runner" / f"{task}.jsonl").write_text(_lines(answers))
    runner = read_run_dir(tmp_path / "runner", sample.sessions, sample.maps)
    assert runner.ok, runner.report.format()
    cmp = compare(sample, [sample.predictions["sim-llm-persona"], runner], similarity=False)
    s = cmp.score_frame
    a = s[(s["run"] == "sim-llm-persona") & (s["task"] == task)].drop(columns="run").reset_index(drop=True)
    b = s[(s["run"] == "runner") & (s["task"] == task)].drop(columns="run").reset_index(drop=True)
    pd.testing.assert_frame_equal(a.astype(str), b.astype(str))
    assert cmp.coverage().set_index(["run", "task"]).at[("runner", task), "missing"] == 0


def test_instances_carry_history_persona_map_and_earlier_mental_models(sample):
    inst = next(i for i in iter_instances(sample, "next_action", "test", "mental_model") if i["action_index"] == 5)
    s = sample.session(inst["session_id"])
    assert [h["index"] for h in inst["history"]] == [0, 1, 2, 3, 4]
    assert all("mental_model" not in h for h in inst["history"])
    assert [m["action_index"] for m in inst["mental_model_history"]] == [
        a.index for a in s.actions[:5] if a.role == inst["role"]
    ]
    assert inst["participant"]["role"] == inst["role"]
    if inst["role"] == "follower":
        assert "route" not in inst["map"]
    else:
        assert inst["map"]["route"]
    base = next(i for i in iter_instances(sample, "mental_model", "test", "base") if i["action_index"] == 5)
    assert "mental_model_history" not in base and base["current_action"]["index"] == 5
