"""Malformed inputs: every problem is reported with its file, record and field, and nothing loads."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from corpus.archive import ArchiveError, extract_to
from corpus.dataset import load, load_dir, validate
from corpus import schema
from corpus.validate import DatasetError, read_dataset
from helpers import write_tiny

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def ds(tmp_path) -> Path:
    return write_tiny(tmp_path / "ds")


def actions_path(ds: Path, sid: str = "s1") -> Path:
    return ds / "sessions" / sid / "actions.jsonl"


def edit_action(ds: Path, line: int, fn, sid: str = "s1") -> None:
    p = actions_path(ds, sid)
    rows = p.read_text().splitlines()
    obj = json.loads(rows[line - 1])
    fn(obj)
    rows[line - 1] = json.dumps(obj)
    p.write_text("\n".join(rows) + "\n")


def edit_json(path: Path, fn) -> None:
    obj = json.loads(path.read_text())
    fn(obj)
    path.write_text(json.dumps(obj))


def issue(ds: Path, file: str, record: str | None, field: str, text: str):
    _, report = read_dataset(ds)
    matches = [
        i for i in report.errors
        if i.file == file and (record is None or i.record.startswith(record)) and i.field == field and text in i.message
    ]
    assert matches, f"no error {file} {record} {field} '{text}' in:\n{report.format()}"
    return matches[0]


def test_valid_dataset_has_no_errors(ds):
    _, report = read_dataset(ds)
    assert report.ok, report.format()
    corpus = load_dir(ds)
    assert len(corpus.sessions) == 2 and len(corpus.actions_df) == 12


A = "sessions/s1/actions.jsonl"
S = "sessions/s1/session.json"


def mutate_mm(key, value):
    return lambda o: o["mental_model"].__setitem__(key, value)


CASES = {
    "unknown label code": (
        lambda ds: edit_action(ds, 1, mutate_mm("team_goal", {"code": "t9"})),
        A, "line 1", "mental_model.team_goal", "unknown team_goal code 't9' (expected one of t1, t2, t3, t4, other)"),
    "label wording does not match its code": (
        lambda ds: edit_action(ds, 1, mutate_mm("partner_intent", {"code": "p1", "text": "Misunderstood; not aligned"})),
        A, "line 1", "mental_model.partner_intent", "does not match partner_intent code 'p1'"),
    "other without its text": (
        lambda ds: edit_action(ds, 1, mutate_mm("self_reasoning", {"code": "other"})),
        A, "line 1", "mental_model.self_reasoning", "self_reasoning is 'other' but other_text is empty"),
    "unknown misalignment reason": (
        lambda ds: edit_action(ds, 3, mutate_mm("misalignment_reasons", [{"code": "n7"}])),
        A, "line 3", "mental_model.misalignment_reasons.0", "unknown misalignment_reason code 'n7'"),
    "reason although aligned": (
        lambda ds: edit_action(ds, 1, mutate_mm("misalignment_reasons", ["n1"])),
        A, "line 1", "mental_model.misalignment_reasons", "given although aligned is true"),
    "cell outside the grid": (
        lambda ds: edit_action(ds, 2, lambda o: o.__setitem__("content", [[0, 0], [10, 3]])),
        A, "line 2", "content[1]", "cell [10, 3] is outside the 10x12 grid of map 'm1'"),
    "draw with no cells": (
        lambda ds: edit_action(ds, 2, lambda o: o.__setitem__("content", [])),
        A, "line 2", "content", "a draw action needs a non-empty list of [row, col] cells"),
    "message with no text": (
        lambda ds: edit_action(ds, 1, lambda o: o.__setitem__("content", "  ")),
        A, "line 1", "content", "a message needs non-empty text"),
    "unknown action type": (
        lambda ds: edit_action(ds, 2, lambda o: o.__setitem__("type", "paint")),
        A, "line 2", "type", "'paint'"),
    "duplicate action index": (
        lambda ds: edit_action(ds, 3, lambda o: o.__setitem__("index", 1)),
        A, "line 3", "index", "duplicate action index 1 (also on line 2)"),
    "timestamps going backwards": (
        lambda ds: edit_action(ds, 4, lambda o: o.__setitem__("timestamp", 1.0)),
        A, "line 4", "timestamp", "timestamp goes backwards: 1 s after 9 s"),
    "bad JSON": (
        lambda ds: actions_path(ds).write_text(actions_path(ds).read_text().replace('"role":"follower"', '"role":follower', 1)),
        A, "line 2", "(json)", "bad JSON"),
    "not UTF-8": (
        lambda ds: actions_path(ds).write_bytes(actions_path(ds).read_bytes().replace(b"lake", b"l\xe4ke")),
        A, "line 4", "(encoding)", "not UTF-8: byte 0xe4"),
    "missing map": (
        lambda ds: edit_json(ds / S, lambda o: o.__setitem__("map_id", "m404")),
        S, "session s1", "map_id", "map 'm404' not found in maps/ (known: m1)"),
    "wrong condition name": (
        lambda ds: edit_json(ds / S, lambda o: o.__setitem__("condition", "visable")),
        S, "session s1", "condition", "unknown condition 'visable' (expected one of not_visible, visible)"),
    "unknown split": (
        lambda ds: edit_json(ds / S, lambda o: o.__setitem__("split", "dev")),
        S, "session s1", "split", "unknown split 'dev'"),
    "two guides": (
        lambda ds: edit_json(ds / S, lambda o: o["participants"][1].__setitem__("role", "guide")),
        S, "session s1", "participants", "exactly one guide and one follower"),
    "TeamQ with the wrong number of items": (
        lambda ds: edit_json(ds / S, lambda o: o["participants"][0]["persona"].__setitem__("teamq", [1, 2, 3])),
        S, "session s1", "participants.0.persona.teamq", "teamq has 3 items; the TeamQ instrument has 14"),
    "TeamQ score out of range": (
        lambda ds: edit_json(ds / S, lambda o: o["participants"][0]["persona"].__setitem__("teamq", [5] * 14)),
        S, "session s1", "participants.0.persona.teamq.0", "less than or equal to 4"),
    "checkpoint after the last action": (
        lambda ds: edit_json(ds / S, lambda o: o.__setitem__("checkpoints", [{"role": "guide", "index": 1, "progress": 0.25, "action_index": 99, "elapsed_s": 3}])),
        S, "session s1", "checkpoints[0].action_index", "checkpoint at action 99, but the session has 6 actions"),
    "session id does not match its folder": (
        lambda ds: edit_json(ds / S, lambda o: o.__setitem__("id", "s9")),
        S, "session s9", "id", "session id 's9' does not match its folder 's1'"),
    "route with a gap": (
        lambda ds: edit_json(ds / "maps/m1.json", lambda o: o.__setitem__("route", [[0, 0], [0, 1], [0, 5]])),
        "maps/m1.json", "map m1", "route", "not a connected path: route[1] [0, 1] and route[2] [0, 5] are not neighbours"),
    "landmark outside the grid": (
        lambda ds: edit_json(ds / "maps/m1.json", lambda o: o["landmarks"].__setitem__("lake", {"cells": [[40, 40]]})),
        "maps/m1.json", "map m1", "landmarks.lake.cells", "[40, 40] is outside the 10x12 grid"),
    "unknown label-schema version": (
        lambda ds: edit_json(ds / "dataset.json", lambda o: o.__setitem__("label_schema_version", "almanac-9")),
        "dataset.json", "-", "label_schema_version", "unknown label_schema_version 'almanac-9'"),
    "missing dataset.json": (
        lambda ds: (ds / "dataset.json").unlink(),
        "dataset.json", "-", "(file)", "missing: a dataset directory needs dataset.json"),
    "unknown grounding act": (
        lambda ds: (ds / "labels/grounding_acts.csv").write_text(
            "session_id,action_index,coder,code,partition\ns1,0,a,initiate,validation\ns1,0,b,greet,validation\n"),
        "labels/grounding_acts.csv", "line 3", "code", "unknown grounding_acts code 'greet'"),
    "label for an action that does not exist": (
        lambda ds: (ds / "labels/grounding_acts.csv").write_text(
            "session_id,action_index,coder,code,partition\ns1,42,a,initiate,validation\n"),
        "labels/grounding_acts.csv", "line 2", "action_index", "session 's1' has no action 42"),
    "unknown coder kind": (
        lambda ds: (ds / "labels/grounding_acts.csv").write_text(
            "session_id,action_index,coder,coder_kind,code\ns1,0,a,human,initiate\ns1,0,gpt,robot,initiate\n"),
        "labels/grounding_acts.csv", "line 3", "coder_kind", "unknown coder kind 'robot'"),
    "a coder of two kinds": (
        lambda ds: (ds / "labels/grounding_acts.csv").write_text(
            "session_id,action_index,coder,coder_kind,code\ns1,0,gpt,model,initiate\ns1,1,gpt,human,initiate\n"),
        "labels/grounding_acts.csv", "line 3", "coder_kind", "coder 'gpt' is 'human' here but 'model' on line 2"),
    "a file of 200 MB": (
        lambda ds: _sparse(actions_path(ds, "s2"), 200 * 1024 * 1024),
        "sessions/s2/actions.jsonl", "-", "(file)", "file is 200.0 MiB; files over 64 MiB are refused"),
}


def _sparse(path: Path, size: int) -> None:
    with open(path, "r+b") as f:
        f.truncate(size)


@pytest.mark.parametrize("name", list(CASES))
def test_malformed_input_names_file_record_and_field(ds, name):
    mutate, file, record, field, text = CASES[name]
    mutate(ds)
    issue(ds, file, record, field, text)
    with pytest.raises(DatasetError):
        load_dir(ds)


def test_every_problem_is_collected_not_just_the_first(ds):
    edit_action(ds, 1, mutate_mm("team_goal", {"code": "t9"}))
    edit_action(ds, 4, lambda o: o.__setitem__("timestamp", 1.0))
    edit_json(ds / S, lambda o: o.__setitem__("condition", "visable"))
    _, report = read_dataset(ds)
    fields = {(i.file, i.field) for i in report.errors}
    assert {(A, "mental_model.team_goal"), (A, "timestamp"), (S, "condition")} <= fields


def test_labels_checked_once_per_distinct_value_still_report_every_bad_one(ds):
    """Distinct labels are checked once and remembered; only valid ones are, so the same bad
    label on two lines is reported twice, and a good code with an extra field is still refused."""
    read_dataset(ds)  # the valid labels of the dataset are now remembered
    edit_action(ds, 1, mutate_mm("team_goal", {"code": "t9"}))
    edit_action(ds, 3, mutate_mm("team_goal", {"code": "t9"}))
    good = {"code": "p1", "text": schema.wording("partner_intent", "p1")}
    edit_action(ds, 4, mutate_mm("partner_intent", {**good, "colour": "red"}))
    _, report = read_dataset(ds)
    bad = sorted((i.record, i.field) for i in report.errors if i.field.startswith("mental_model"))
    assert bad[:2] == [("line 1", "mental_model.team_goal"), ("line 3", "mental_model.team_goal")]
    assert bad[2][0] == "line 4" and bad[2][1].startswith("mental_model.partner_intent")


def test_guide_drawing_is_a_warning_not_an_error(ds):
    edit_action(ds, 2, lambda o: o.__setitem__("role", "guide"))
    _, report = read_dataset(ds)
    assert report.ok
    assert any(w.field == "role" and "only the follower draws" in w.message for w in report.warnings)


# --- archives -------------------------------------------------------------------------------


def _zip_dir(src: Path, dest: Path) -> Path:
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                zf.write(p, Path("ds") / p.relative_to(src))
    return dest


def test_valid_zip_loads(ds, tmp_path):
    corpus = load(_zip_dir(ds, tmp_path / "ds.zip"))
    assert len(corpus.sessions) == 2


def test_invalid_zip_reports_the_inner_file(ds, tmp_path):
    edit_json(ds / S, lambda o: o.__setitem__("condition", "visable"))
    report = validate(_zip_dir(ds, tmp_path / "bad.zip"))
    assert any(i.file == S and i.field == "condition" for i in report.errors)


def test_zip_bomb_is_refused(tmp_path):
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        with zf.open("ds/sessions/s1/actions.jsonl", "w", force_zip64=True) as f:
            chunk = b"\0" * (1 << 20)
            for _ in range(60):
                f.write(chunk)
    with pytest.raises(ArchiveError, match=r"compression ratio \d+:1 is beyond 200:1 \(zip bomb\?\)"):
        extract_to(bomb, tmp_path / "out")
    report = validate(bomb)
    assert report.errors[0].file == "bomb.zip" and report.errors[0].record == "ds/sessions/s1/actions.jsonl"


def test_zip_with_a_path_leaving_the_folder_is_refused(tmp_path):
    evil = tmp_path / "evil.zip"
    with zipfile.ZipFile(evil, "w") as zf:
        zf.writestr("../../etc/passwd", "x")
    with pytest.raises(ArchiveError, match="member path leaves the archive folder"):
        extract_to(evil, tmp_path / "out")
    assert not (tmp_path / "etc").exists()


def test_not_a_zip_is_refused(tmp_path):
    fake = tmp_path / "fake.zip"
    fake.write_text("hello")
    assert validate(fake).errors[0].message == "not a zip archive"


# --- command line -----------------------------------------------------------------------------


def test_cli_validate_exits_1_and_names_file_record_and_field(ds):
    edit_action(ds, 2, lambda o: o.__setitem__("content", [[0, 0], [10, 3]]))
    out = subprocess.run([sys.executable, "-m", "corpus", "validate", str(ds)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1
    line = next(l for l in out.stdout.splitlines() if "content[1]" in l)
    assert "sessions/s1/actions.jsonl" in line and "line 2 (action 1)" in line and "outside the 10x12 grid" in line


def test_cli_validate_exits_0_on_good_data(ds):
    out = subprocess.run([sys.executable, "-m", "corpus", "validate", str(ds)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no problems found" in out.stdout


def test_coder_kind_is_read_from_the_label_file(ds):
    (ds / "labels/grounding_acts.csv").write_text(
        "session_id,action_index,coder,coder_kind,code\ns1,0,a,,initiate\ns1,0,gpt,model,initiate\n")
    corpus = load_dir(ds)
    assert corpus.coded()[["coder", "coder_kind"]].values.tolist() == [["a", "human"], ["gpt", "model"]]
    assert corpus.model_coders() == ["gpt"]


def test_content_hash_identifies_the_data_not_the_folder(ds, tmp_path):
    import shutil

    from corpus.dataset import content_hash

    copy = tmp_path / "elsewhere"
    shutil.copytree(ds, copy)
    assert content_hash(ds) == content_hash(copy) == load_dir(copy).content_hash
    (copy / "maps/m1.json").write_text((copy / "maps/m1.json").read_text().replace('"m1"', '"m1" '))
    assert content_hash(copy) != content_hash(ds)
