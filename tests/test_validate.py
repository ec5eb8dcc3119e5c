"""Malformed inputs: every problem is reported with its file, record and field, and nothing loads.

The single-input cases are the bad-input corpus (tests/bad_inputs, run by test_bad_inputs.py);
here are the behaviours around them: all problems collected, a root cause reported once, damaged
archives through every reader, the command line.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from bad_inputs.recipes import damage_zip, zip_dataset
from cli_run import run_cli
from helpers import write_tiny

from analysis.replay import build_frames, time_label
from corpus import schema
from corpus.importers import import_source
from corpus.loading.dataset import load, load_dir, validate
from corpus.loading.validate import MAX_SECONDS, DatasetError, read_dataset
from corpus.server.archive import ArchiveError, extract_to


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


def test_valid_dataset_has_no_errors(ds):
    _, report = read_dataset(ds)
    assert report.ok, report.format()
    corpus = load_dir(ds)
    assert len(corpus.sessions) == 2 and len(corpus.actions_df) == 12


A = "sessions/s1/actions.jsonl"
S = "sessions/s1/session.json"


def mutate_mm(key, value):
    return lambda o: o["mental_model"].__setitem__(key, value)


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


def test_valid_zip_loads(ds, tmp_path):
    corpus = load(zip_dataset(ds, tmp_path / "ds.zip"))
    assert len(corpus.sessions) == 2


DAMAGE = {
    "flipped byte": (
        {"flip": {"member": "ds/sessions/s1/actions.jsonl", "at": 10}},
        "ds/sessions/s1/actions.jsonl",
        "corrupt member: its compressed data does not decompress",
    ),
    "lying size header": (
        {"declare_size": {"member": "ds/sessions/s1/actions.jsonl", "size": 100}},
        "ds/sessions/s1/actions.jsonl",
        "corrupt member: Bad CRC-32",
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_corrupt_zip_is_an_archive_error_naming_the_member_in_every_reader(ds, tmp_path, damage):
    how, member, message = DAMAGE[damage]
    archive = damage_zip(zip_dataset(ds, tmp_path / "ds.zip"), how)
    expected = ("ds.zip", member, "(archive)")

    report = validate(archive)  # python -m corpus validate
    assert [(i.file, i.record, i.field) for i in report.errors] == [expected]
    assert report.errors[0].message.startswith(message)

    with pytest.raises(DatasetError) as err:  # loading (python -m corpus stats, the app)
        load(archive)
    assert isinstance(err.value, ArchiveError) and message in str(err.value)

    result = import_source("hcrc", archive)  # the importers
    assert [(i.file, i.record, i.field) for i in result.report.errors] == [expected]

    staging = tmp_path / "staging"  # the upload extracts with extract_to into a staging folder
    with pytest.raises(ArchiveError, match=message):
        extract_to(archive, staging)
    assert not staging.exists()


def test_a_corrupt_zip_on_the_command_line_is_a_message_not_a_traceback(ds, tmp_path):
    archive = damage_zip(zip_dataset(ds, tmp_path / "ds.zip"), DAMAGE["flipped byte"][0])
    for command in ("validate", "stats"):
        out = run_cli(command, str(archive))
        assert out.returncode == 1
        assert "Traceback" not in out.stderr
        assert "corrupt member: its compressed data does not decompress" in out.stdout + out.stderr


# --- one root cause, reported once --------------------------------------------------------------


def test_a_bad_session_is_reported_once_with_the_number_of_records_that_refer_to_it(ds):
    """One bad condition used to bury itself under an 'unknown session' error per label."""
    rows = [f"s1,{i},coder{c},human,initiate," for c in range(200) for i in range(6)]
    (ds / "labels/grounding_acts.csv").write_text(
        "session_id,action_index,coder,coder_kind,code,partition\n" + "\n".join(rows) + "\ns2,0,a,human,initiate,\n"
    )
    edit_json(ds / S, lambda o: o.__setitem__("condition", "visable"))
    _, report = read_dataset(ds)
    assert [(i.file, i.record, i.field) for i in report.errors] == [(S, "session s1", "condition")]
    assert report.errors[0].message == (
        "unknown condition 'visable' (expected one of not_visible, visible, no_eye_contact, eye_contact, not_recorded) "
        "(and 1200 records in labels/grounding_acts.csv refer to this session)"
    )


def test_a_label_error_on_another_session_is_still_reported(ds):
    (ds / "labels/grounding_acts.csv").write_text("session_id,action_index,coder,code\ns1,0,a,initiate\ns2,0,a,greet\n")
    edit_json(ds / S, lambda o: o.__setitem__("condition", "visable"))
    _, report = read_dataset(ds)
    assert [(i.file, i.record, i.field) for i in report.errors] == [
        (S, "session s1", "condition"),
        ("labels/grounding_acts.csv", "line 3", "code"),
    ]


# --- numbers ----------------------------------------------------------------------------------


def test_timestamps_up_to_the_stated_limit_load_and_replay(ds):
    """Seconds are bounded so that every screen can show them (an infinite timestamp crashed the
    replay's m:ss label); the limit itself is accepted."""
    edit_action(ds, 6, lambda o: o.__setitem__("timestamp", MAX_SECONDS))
    edit_json(ds / S, lambda o: o.__setitem__("duration_s", MAX_SECONDS))
    corpus = load_dir(ds)
    session = corpus.session("s1")
    frames = build_frames(session, corpus.map_of("s1"))
    assert frames.n_steps == 6
    assert time_label(session.actions[-1].timestamp) == "10080:00"
    edit_action(ds, 6, lambda o: o.__setitem__("timestamp", MAX_SECONDS + 1))
    with pytest.raises(DatasetError, match="604801 s is beyond the limit of 604800 s"):
        load_dir(ds)


# --- command line -----------------------------------------------------------------------------


def test_cli_validate_exits_1_and_names_file_record_and_field(ds):
    edit_action(ds, 2, lambda o: o.__setitem__("content", [[0, 0], [10, 3]]))
    out = run_cli("validate", str(ds))
    assert out.returncode == 1
    line = next(ln for ln in out.stdout.splitlines() if "content[1]" in ln)
    assert "sessions/s1/actions.jsonl" in line and "line 2 (action 1)" in line and "outside the 10x12 grid" in line


def test_cli_validate_exits_0_on_good_data(ds):
    out = run_cli("validate", str(ds))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "no problems found" in out.stdout


def test_coder_kind_is_read_from_the_label_file(ds):
    (ds / "labels/grounding_acts.csv").write_text(
        "session_id,action_index,coder,coder_kind,code\ns1,0,a,,initiate\ns1,0,gpt,model,initiate\n"
    )
    corpus = load_dir(ds)
    assert corpus.coded()[["coder", "coder_kind"]].values.tolist() == [["a", "human"], ["gpt", "model"]]
    assert corpus.model_coders() == ["gpt"]


def test_content_hash_identifies_the_data_not_the_folder(ds, tmp_path):
    import shutil

    from corpus.loading.dataset import content_hash

    copy = tmp_path / "elsewhere"
    shutil.copytree(ds, copy)
    assert content_hash(ds) == content_hash(copy) == load_dir(copy).content_hash
    # SHA-256 of every file's relative path and bytes, in path order, each followed by a zero byte;
    # a file larger than the reading buffer (1 MiB) included.
    (copy / "notes").mkdir()
    (copy / "notes" / "big.bin").write_bytes(bytes(range(256)) * 5000)
    files = sorted(p for p in copy.rglob("*") if p.is_file())
    whole = b"".join(
        "/".join(p.relative_to(copy).parts).encode() + b"\0" + p.read_bytes() + b"\0"
        for p in sorted(files, key=lambda p: p.relative_to(copy).parts)
    )
    assert content_hash(copy) == hashlib.sha256(whole).hexdigest()
    (copy / "notes" / "big.bin").unlink()
    (copy / "maps/m1.json").write_text((copy / "maps/m1.json").read_text().replace('"m1"', '"m1" '))
    assert content_hash(copy) != content_hash(ds)
