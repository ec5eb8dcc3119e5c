"""The benchmark's prompts as the ALMANAC paper's Appendix H lays them out: one instance per task,
setting and role checked section by section against the appendix's template; every label a
mental-model prompt offers reads back as its code; a next-action reply in the prompt's own fields
reads back as the action it names; data never fills a placeholder; and the round trip (prompts out,
a run's answers in, read as a run of the dataset) on the command line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis.compare.instances import iter_instances
from analysis.compare.prompts import SECTIONS, prompt, prompt_records, template
from corpus import schema
from corpus.loading.dataset import load_sample
from corpus.predictions import label_code, read_run_dir

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def sample():
    return load_sample()


def _first(sample, task: str, setting: str, role: str) -> dict:
    return next(i for i in iter_instances(sample, task, "test", setting) if i["role"] == role and i["action_index"] > 3)


@pytest.mark.parametrize("task", ["next_action", "mental_model"])
@pytest.mark.parametrize("setting", ["base", "mental_model"])
@pytest.mark.parametrize("role", ["guide", "follower"])
def test_a_prompt_is_appendix_hs_template_filled(sample, task, setting, role):
    inst = _first(sample, task, setting, role)
    text = prompt(inst)
    # The appendix's sections, each once, in its order.
    headings = [h.replace("{role}", role) for h in SECTIONS[task]]
    found = [text.index(h) for h in headings]
    assert found == sorted(found) and all(text.count(h) == 1 for h in headings)
    # Every line of the template that is not a placeholder is there, in the template's order.
    at = 0
    for line in template(task, role).splitlines():
        if not line.strip() or re.search(r"PARTICIPANT_|\{[A-Z_]+\}", line):
            continue
        at = text.index(line, at) + len(line)
    assert not re.search(
        r"PARTICIPANT_ROLE|PARTICIPANT_NAME|\{(COLLABORATION_PROFILE|CURRENT_MAP|CURRENT_ACTION|INTERACTION_HISTORY)\}",
        text,
    )
    assert f"Participant role: {role}\nParticipant name: {inst['participant']['id']}" in text
    # The history: one line per earlier action; the actor's earlier mental models in that setting.
    history = text.split("<Interaction History>\n\n", 1)[1]
    assert len(re.findall(r"^\[\d\d:\d\d\] (guide|follower) ", history, re.M)) == inst["action_index"]
    n_models = history.count("(my mental model then: ")
    assert n_models == (len(inst["mental_model_history"]) if setting == "mental_model" else 0)
    if setting == "mental_model":
        assert n_models > 0
    # The map is the actor's own; the drawing only where the actor sees it.
    assert json.dumps(inst["map"], ensure_ascii=False) in text
    sees = role == "follower" or inst["condition"] == "visible"
    assert ("The follower's drawing: not visible to you." in text) is (not sees)
    if task == "mental_model":
        current = text.split("(you are simulating the mental model behind this action)>\n\n", 1)[1].splitlines()[0]
        assert current.startswith("[") and f" {role} " in current


def test_the_persona_is_the_collaboration_profile(sample):
    inst = _first(sample, "next_action", "base", "guide")
    persona = inst["participant"]["persona"]
    text = prompt(inst)
    for (area, item), v in zip(schema.TEAMQ_ITEMS, persona["teamq"]):
        assert f"- {area}: {item} {v} ({schema.TEAMQ_SCALE[v]})" in text
    assert f"gender: {persona['gender']}" in text


def test_every_label_a_prompt_offers_reads_back_as_its_code(sample):
    for role in ("guide", "follower"):
        text = prompt(_first(sample, "mental_model", "base", role))
        for dim in schema.DIMENSIONS:
            block = text.split(f"{dim}\n", 1)[1].split("\n\n", 2)[1]
            options = re.findall(r'"([^"]+)"', block)
            codes = [label_code(dim, o) for o in options]
            assert len(codes) == len(set(codes)) == len(schema.DIMENSIONS[dim]) + 1, (dim, options, codes)
            assert set(codes) == {*schema.DIMENSIONS[dim], schema.OTHER}, (dim, options, codes)


def test_a_next_action_reply_in_the_prompts_fields_reads_back(sample, tmp_path):
    records: dict[str, list[dict]] = {"guide": [], "follower": []}
    for r in prompt_records(sample, "next_action"):
        if r["action_index"] > 3 and len(records[r["role"]]) < 2:
            records[r["role"]].append(r)
    cells = [[12, 8], [12, 9], [13, 9]]
    wanted = [
        (records["guide"][0], "message", "go left of the bakery, then down"),
        (records["follower"][0], "draw", cells),
        (records["follower"][1], "undo", ""),
    ]
    lines = []
    for r, action_type, content in wanted:
        text = r["prompt"]
        assert "map image" not in text and "plus the map, given below as JSON text, to locate" in text
        # The reply a model writes as the prompt asks: the fields of its response format, by their names.
        fields = re.findall(r'"(\w+)":', text.split("<Response Format>", 1)[1].split("```")[1])
        assert fields == ["action_type", "action_content", "rationale"]
        reply = dict(zip(fields, (action_type, content, "as the history suggests")))
        ids = {k: r["answer"][k] for k in ("session_id", "action_index", "role")}
        lines.append(json.dumps({**ids, **reply}))
    run = tmp_path / "run"
    run.mkdir()
    (run / "next_action.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = read_run_dir(run, sample.sessions, sample.maps)
    assert got.report.ok, got.report.format()
    table = got.tables["next_action"].set_index(["session_id", "action_index"])
    assert len(table) == len(wanted)
    for r, action_type, content in wanted:
        row = table.loc[(r["session_id"], r["action_index"])]
        assert (row["action_type"], row["role"]) == (action_type, r["role"])
        assert row["rationale"] == "as the history suggests"
        if action_type == "message":
            assert row["content"] == content and pd.isna(row["cells"])
        elif action_type == "draw":
            assert row["cells"] == content and pd.isna(row["content"])
        else:
            assert pd.isna(row["content"]) and pd.isna(row["cells"])


def test_data_never_fills_a_placeholder(sample):
    inst = _first(sample, "next_action", "base", "follower")
    inst = {
        **inst,
        "history": [
            *inst["history"][:-1],
            {**inst["history"][-1], "type": "message", "content": "{CURRENT_MAP} PARTICIPANT_ROLE"},
        ],
    }
    text = prompt(inst)
    assert text.count('"{CURRENT_MAP} PARTICIPANT_ROLE"') == 1
    assert text.count(json.dumps(inst["map"], ensure_ascii=False)) == 1


def test_prompts_out_answers_in(sample, tmp_path):
    out = tmp_path / "prompts.jsonl"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "analysis",
            "instances",
            str(ROOT / "sample_data"),
            str(out),
            "--task",
            "mental_model",
            "--prompts",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == sum(1 for _ in iter_instances(sample, "mental_model", "test", "base"))
    assert records == list(prompt_records(sample, "mental_model"))
    # A model answers with the prompt's own wording; the lines go back as a run of the dataset.
    run = tmp_path / "run"
    run.mkdir()
    (run / "model.json").write_text(json.dumps({"name": "echo", "setting": "base"}), encoding="utf-8")
    lines = []
    for r in records:
        truth = sample.session(r["session_id"]).actions[r["action_index"]].mental_model
        answer = {k: r["answer"][k] for k in ("session_id", "action_index", "role")}
        for dim in schema.DIMENSIONS:
            code = getattr(truth, dim).code
            answer[dim] = schema.DIMENSIONS[dim].get(code, code)
        answer["rationale"] = "as I recall"
        lines.append(json.dumps(answer))
    (run / "mental_model.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = read_run_dir(run, sample.sessions, sample.maps)
    assert got.report.ok, got.report.format()
    assert len(got.tables["mental_model"]) == len(records)


def test_a_reply_giving_the_content_twice_is_refused_by_field(sample, tmp_path):
    r = next(r for r in prompt_records(sample, "next_action") if r["role"] == "guide")
    ids = {k: r["answer"][k] for k in ("session_id", "action_index", "role")}
    run = tmp_path / "run"
    run.mkdir()
    line = {**ids, "action_type": "message", "content": "left", "action_content": "right", "rationale": ""}
    (run / "next_action.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    got = read_run_dir(run, sample.sessions, sample.maps)
    assert not got.report.ok
    assert 'give the content once, as "content" or as "action_content", not both' in got.report.format()
    assert "action_content" in got.report.format()
