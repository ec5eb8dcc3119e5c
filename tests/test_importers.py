"""Importers: the collaboration platform's raw logs and the HCRC Map Task corpus.

The real samples are read from shared/real_data beside the checkout or a folder above it (or the
folder GROUNDWORK_REAL_DATA names; see tests/real_data.py) at test time, never copied into the
repository; tests that need them skip with the reason when that folder is absent. Expected values
are recomputed here from the raw files (log rows, ink PNGs, transcript lines), not typed in.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli
from PIL import Image, ImageDraw
from real_data import HCRC, PLATFORM, needs_hcrc, needs_platform

from corpus import schema
from corpus.importers import import_source, run_import
from corpus.importers.asciimap import (
    DEFAULT_INK_SHARE,
    parse_ascii_map,
    rasterize_ink,
    read_ascii_map,
)
from corpus.importers.hcrc import normalise_move
from corpus.importers.platform import parse_time
from corpus.loading.dataset import load_dir
from corpus.loading.validate import DatasetError, Report

GUIDE_LOG = "c7259e8b-49ea-4f31-b039-fe25fa2fcd12.guide_Jack.jsonl"
FOLLOWER_LOG = "cfc8ed53-40a6-4c79-a735-bb5fc0d21b15.follower_Alice.jsonl"
OLDER_LOG = "older_schema_3998d45e.follower_David.stripped.jsonl"
ASCII_MAP = "ascii_grid_map_7e106fb1.txt"


def raw_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def utc(ts: str) -> float:
    t = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t.timestamp()


# ---------------------------------------------------------------------------------------------
# The platform sample (session "test1": Guide Jack, Follower Alice)
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def platform_dataset(tmp_path_factory):
    if not PLATFORM.is_dir():
        pytest.skip(f"real platform sample not available at {PLATFORM}")
    report = Report()
    dest = run_import("platform", PLATFORM, tmp_path_factory.mktemp("imp") / "platform", report=report)
    return load_dir(dest), report


def _main_session(corpus):
    sid = raw_rows(PLATFORM / GUIDE_LOG)[0]["session_id"]
    return next(s for s in corpus.sessions.values() if sid[:8] in s.id)


@needs_platform
def test_platform_sample_merges_both_logs_into_33_actions_in_time_order(platform_dataset):
    corpus, _ = platform_dataset
    s = _main_session(corpus)
    guide, follower = raw_rows(PLATFORM / GUIDE_LOG), raw_rows(PLATFORM / FOLLOWER_LOG)
    rows = sorted(guide + follower, key=lambda r: utc(r["timestamp"]))
    assert len(rows) == 33
    assert len(s.actions) == 33
    stamps = [a.timestamp for a in s.actions]
    assert stamps == sorted(stamps)
    # Time zero is the first row (the Guide's reset precedes the platform's session clock).
    t0 = utc(rows[0]["timestamp"])
    assert stamps == pytest.approx([utc(r["timestamp"]) - t0 for r in rows], abs=1e-3)
    # Roles come from the participants: every Jack row is the guide's, every Alice row the follower's.
    guide_id = guide[0]["participant_id"]
    assert [a.role for a in s.actions] == ["guide" if r["participant_id"] == guide_id else "follower" for r in rows]
    # Messages in the order they were sent, with their text.
    sent = [r["action_content"] for r in rows if r["action_type"] == "send_message"]
    assert [a.content for a in s.actions if a.type == "message"] == sent
    counts = {t: sum(a.type == t for a in s.actions) for t in schema.ACTION_TYPES}
    assert counts == {"message": 24, "draw": 7, "erase": 0, "undo": 0, "reset": 2}
    assert corpus.synthetic is False
    assert s.condition == "not_recorded" and s.split == "not_recorded"  # the logs record neither
    assert sorted(p.role for p in s.participants) == ["follower", "guide"]
    # Participant names are not imported; ids are the platform's participant ids, shortened.
    assert {p.id for p in s.participants} == {guide_id[:8], follower[0]["participant_id"][:8]}
    assert "Jack" not in json.dumps(s.model_dump(exclude={"actions"}))
    assert all(a.mental_model is None for a in s.actions)


@needs_platform
def test_platform_strokes_follow_the_ink_pngs(platform_dataset):
    corpus, _ = platform_dataset
    s = _main_session(corpus)
    gm = corpus.maps[s.map_id]
    follower = raw_rows(PLATFORM / FOLLOWER_LOG)
    strokes = [r for r in follower if r["action_type"] == "map_draw_stop"]
    draws = [a for a in s.actions if a.type == "draw"]
    assert len(strokes) == len(draws) == 7
    assert all(a.role == "follower" and len(a.cells) > 0 for a in draws)
    # The grid keeps the ink's shape: 60 cells on the long side of the portrait 1620x2360 PNG.
    with Image.open(PLATFORM / strokes[0]["map_image"]) as im:
        w, h = im.size
    assert tuple(gm.grid_size) == (60, round(60 * w / h))
    history = corpus.history(s.id)
    union: set = set()
    sizes = []
    for row, a in zip(strokes, draws):
        expected = rasterize_ink(PLATFORM / row["map_image"], tuple(gm.grid_size), DEFAULT_INK_SHARE)
        union |= set(a.cells)
        # The canvas after each stroke is exactly what its PNG shows on the grid.
        assert {tuple(c) for c in history.cells(a.index).tolist()} == expected
        assert union == expected
        assert len(set(a.cells)) == len(a.cells)
        sizes.append(len(union))
    assert all(b > a for a, b in zip(sizes, sizes[1:])), f"the drawing must grow stroke by stroke: {sizes}"
    # Strokes are placed at their own times between the messages.
    assert [a.timestamp for a in draws] == sorted(a.timestamp for a in draws)
    # The session loads into the tables the pages read.
    row = corpus.sessions_df.set_index("session_id").loc[s.id]
    assert row["n_draw"] == 7 and row["n_actions"] == 33


@needs_platform
def test_ink_share_is_a_parameter(tmp_path):
    follower = raw_rows(PLATFORM / FOLLOWER_LOG)
    last = PLATFORM / [r for r in follower if r.get("map_image")][-1]["map_image"]
    grid = (60, 41)
    cells = {share: rasterize_ink(last, grid, share) for share in (0.05, 0.1, 0.2, 0.4)}
    sizes = [len(cells[s]) for s in (0.05, 0.1, 0.2, 0.4)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1] > 0
    assert cells[0.4] <= cells[0.2] <= cells[0.1] <= cells[0.05]
    # At a fifth of a cell the Follower's last touch-up stroke turns no new cell on: it is left
    # out with a warning naming its file, line and field, and the other actions stay.
    result = import_source("platform", PLATFORM, ink_share=0.2)
    s = next(x for x in result.sessions if x.id.endswith(follower[0]["session_id"][:8]))
    assert sum(a.type == "draw" for a in s.actions) == 6
    assert len(s.actions) == 32
    line = next(k for k, r in enumerate(follower, start=1) if r["action_id"] == "fe0b9b18-3fb2-4d50-b6f1-f512028c8667")
    assert any(
        i.file == FOLLOWER_LOG and i.record == f"line {line}" and "changed no grid cell" in i.message
        for i in result.report.warnings
    )


@needs_platform
def test_older_schema_log_imports(tmp_path):
    """Times without Z and without session_elapsed_seconds, no stroke_tool, no partner log."""
    rows = raw_rows(PLATFORM / OLDER_LOG)
    assert not any(r["timestamp"].endswith("Z") for r in rows)
    assert not any("session_elapsed_seconds" in r for r in rows)
    report = Report()
    dest = run_import("platform", PLATFORM / OLDER_LOG, tmp_path / "older", report=report)
    corpus = load_dir(dest)
    (s,) = corpus.sessions.values()
    messages = [r for r in rows if r["action_type"] == "send_message"]
    assert [a.content for a in s.actions] == [r["action_content"] for r in messages]
    t0 = utc(rows[0]["timestamp"])
    assert [a.timestamp for a in s.actions] == pytest.approx([utc(r["timestamp"]) - t0 for r in messages], abs=1e-3)
    # The Guide has no log here: they are known from the receiver of the Follower's messages.
    receiver = messages[0]["metadata"]["receiver"]
    roles = {p.role: p.id for p in s.participants}
    assert roles == {"guide": receiver[:8], "follower": rows[0]["participant_id"][:8]}
    # Its ink PNGs are not in the sample: each stroke is reported (file, line, field) and left out.
    strokes = [k for k, r in enumerate(rows, start=1) if r["action_type"] == "map_draw_stop"]
    missing = [i for i in report.warnings if i.field == "map_image"]
    assert [i.record for i in missing] == [f"line {k}" for k in strokes]
    assert all(i.file == OLDER_LOG and "not found" in i.message for i in missing)
    tools = [r["action_content"] for r in rows if r["action_type"] == "map_tool_click"]
    assert f"brush {tools.count('brush')}, eraser {tools.count('eraser')}" in s.notes


def _simulate_ink(rows: list[dict], folder: Path, size=(400, 300)) -> list[tuple[str, set]]:
    """Write an ink PNG for every row of an older-schema log that names one, as the platform would.

    Brush strokes draw a new horizontal line; eraser strokes rub out the left half of the newest
    line still visible; a mouse_leave right after a release saves the canvas unchanged. Returns
    the expected (action type, cells) of every stroke that changes the 30 x 40 grid.
    """
    w, h = size
    canvas = Image.new("RGBA", size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(canvas)
    tool, n_lines, visible, expected = "brush", 0, [], []
    for r in rows:
        if r["action_type"] == "map_tool_click" and r["action_content"] in ("brush", "eraser"):
            tool = r["action_content"]
        elif r["action_type"] == "map_draw_stop" and r["action_content"] != "mouse_leave":
            if tool == "brush":
                row = n_lines
                n_lines += 1
                assert row < 30, "more brush strokes than grid rows"
                draw.rectangle([0, row * 10 + 3, w - 1, row * 10 + 6], fill=(0, 0, 0, 255))
                visible.append(row)
                expected.append(("draw", {(row, c) for c in range(40)}))
            elif visible:
                row = visible.pop()
                draw.rectangle([0, row * 10, w // 2 - 1, row * 10 + 9], fill=(0, 0, 0, 0))
                expected.append(("erase", {(row, c) for c in range(20)}))
        if r.get("map_image"):
            target = folder / r["map_image"]
            target.parent.mkdir(parents=True, exist_ok=True)
            canvas.save(target)
    return expected


@needs_platform
def test_older_schema_eraser_strokes_become_erase_actions(tmp_path):
    """With ink images present, the older log's strokes after an eraser selection are erasures."""
    rows = raw_rows(PLATFORM / OLDER_LOG)
    shutil.copy(PLATFORM / OLDER_LOG, tmp_path / OLDER_LOG)
    expected = _simulate_ink(rows, tmp_path)
    assert {t for t, _ in expected} == {"draw", "erase"}
    result = import_source("platform", tmp_path, grid=(30, 40))
    assert result.report.ok, result.report.format()
    (s,) = result.sessions
    edits = [(a.type, set(a.cells)) for a in s.actions if a.type in ("draw", "erase")]
    assert edits == expected
    # mouse_leave rows straight after a release change nothing and are reported, not imported.
    leaves = [k for k, r in enumerate(rows, start=1) if r["action_content"] == "mouse_leave"]
    no_change = {i.record for i in result.report.warnings if "changed no grid cell" in i.message}
    assert {f"line {k}" for k in leaves} <= no_change


# ---------------------------------------------------------------------------------------------
# Grid-map sessions with filledCells, undo, annotations and checkpoints (the platform's shape)
# ---------------------------------------------------------------------------------------------

SMALL_MAP = "\n".join(
    [
        "S..   ",
        "  .## ",
        "  .## ",
        "  ...F",
    ]
)


def _row(pid: str, t: str, kind: str, content, **extra) -> dict:
    row = {
        "action_id": extra.pop("action_id", f"{pid}-{t}"),
        "timestamp": t,
        "session_id": "sess-0001",
        "session_name": "pilot",
        "participant_id": pid,
        "participant_name": "someone",
        "is_human": True,
        "action_type": kind,
        "action_content": content,
        "result": "success",
        "metadata": extra.pop("metadata", {}),
        "page": "map_task",
        "experiment_type": "maptask",
    }
    row.update(extra)
    return row


def _grid_export(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "map.txt").write_text(SMALL_MAP + "\n", encoding="utf-8")
    g = [
        _row(
            "gggggggg-1",
            "2026-04-10T10:00:00Z",
            "send_message",
            "start at S and go right",
            session_elapsed_seconds=5,
            metadata={"receiver": "ffffffff-2"},
        ),
        _row(
            "gggggggg-1",
            "2026-04-10T10:00:30Z",
            "send_message",
            "now down past the block",
            session_elapsed_seconds=35,
            metadata={"receiver": "ffffffff-2"},
        ),
    ]
    f = [
        _row(
            "ffffffff-2",
            "2026-04-10T10:00:10Z",
            "map_draw_stop",
            "brush_release",
            metadata={"stroke_tool": "brush", "filledCells": ["0,0", "0,1", "0,2"]},
            action_id="a-draw1",
        ),
        _row(
            "ffffffff-2",
            "2026-04-10T10:00:20Z",
            "map_draw_stop",
            "brush_release",
            metadata={"stroke_tool": "brush", "filledCells": ["0,0", "0,1", "0,2", "1,2", "1,3"]},
            action_id="a-draw2",
        ),
        _row("ffffffff-2", "2026-04-10T10:00:25Z", "map_tool_click", "eraser"),
        _row(
            "ffffffff-2",
            "2026-04-10T10:00:28Z",
            "map_draw_stop",
            "eraser_release",
            metadata={"stroke_tool": "eraser", "filledCells": ["0,0", "0,1", "0,2", "1,2"]},
            action_id="a-erase",
        ),
        _row(
            "ffffffff-2",
            "2026-04-10T10:00:40Z",
            "map_tool_click",
            "undo",
            metadata={"filledCells": ["0,0", "0,1", "0,2", "1,2", "1,3"]},
        ),
        _row("ffffffff-2", "2026-04-10T10:00:50Z", "send_message", "like this?", metadata={"receiver": "gggggggg-1"}),
        _row("ffffffff-2", "2026-04-10T10:01:00Z", "map_tool_click", "reset"),
        _row(
            "ffffffff-2",
            "2026-04-10T10:01:05Z",
            "map_draw_stop",
            "brush_release",
            metadata={"stroke_tool": "brush", "filledCells": ["2,2", "1,2", "0,2"]},
            action_id="a-draw3",
        ),
    ]
    # Plain participant-id file names, as the platform writes them: roles come from who draws.
    for name, rows in (("gggggggg-1.jsonl", g), ("ffffffff-2.jsonl", f)):
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    annotations = {
        "participant_id": "ffffffff-2",
        "payload": {
            "a-draw1": {
                "q1LabelId": "t3",
                "q2LabelId": "p1",
                "q3LabelId": "r1",
                "q4": "yes",
                "momentExplanationTranscript": "following",
            },
            "a-erase": {
                "q1LabelId": "t4",
                "q2LabelId": "p4",
                "q3LabelId": "r5",
                "q4": "no",
                "q4Reasons": ["n2", "other"],
                "q4OtherText": "the map differs",
                "momentExplanationTranscript": "went wrong",
            },
            "a-draw3": {
                "q1LabelId": "other",
                "q1OtherText": "starting over",
                "q2LabelId": "p2",
                "q3LabelId": "r2",
                "q4": "yes",
            },
        },
    }
    (folder / "post_session_annotations.json").write_text(json.dumps(annotations), encoding="utf-8")
    (folder / "in_session_checkpoints.csv").write_text(
        "session_id,participant_id,checkpoint_index,transcription,elapsed_seconds\n"
        "sess-0001,ffffffff-2,1,we are on track,27\n",
        encoding="utf-8",
    )


def test_grid_map_session_with_filled_cells_undo_annotations_and_checkpoints(tmp_path):
    _grid_export(tmp_path / "export")
    report = Report()
    dest = run_import(
        "platform", tmp_path / "export", tmp_path / "ds", report=report, condition="visible", split="test"
    )
    corpus = load_dir(dest)
    (s,) = corpus.sessions.values()
    assert s.id == "pilot-sess0001" and s.condition == "visible" and s.split == "test"
    gm = corpus.maps[s.map_id]
    assert s.map_id == "map" and gm.start_cell == (0, 0) and gm.finish_cell == (3, 5)
    assert [(a.role, a.type) for a in s.actions] == [
        ("guide", "message"),
        ("follower", "draw"),
        ("follower", "draw"),
        ("follower", "erase"),
        ("guide", "message"),
        ("follower", "undo"),
        ("follower", "message"),
        ("follower", "reset"),
        ("follower", "draw"),
    ]
    assert s.actions[1].cells == [(0, 0), (0, 1), (0, 2)]
    assert s.actions[2].cells == [(1, 2), (1, 3)]
    assert s.actions[3].cells == [(1, 3)]
    # The platform's own cell order is the drawing order.
    assert s.actions[8].cells == [(2, 2), (1, 2), (0, 2)]
    h = corpus.history(s.id)
    assert {tuple(c) for c in h.cells(5).tolist()} == {(0, 0), (0, 1), (0, 2), (1, 2), (1, 3)}
    assert {tuple(c) for c in h.cells(8).tolist()} == {(2, 2), (1, 2), (0, 2)}
    # Post-session annotations become the actions' mental models.
    mm = s.actions[3].mental_model
    assert (mm.team_goal.code, mm.partner_intent.code, mm.self_reasoning.code, mm.aligned) == ("t4", "p4", "r5", False)
    assert [r.code for r in mm.misalignment_reasons] == ["n2", "other"]
    assert mm.misalignment_reasons[1].other_text == "the map differs" and mm.rationale == "went wrong"
    assert s.actions[8].mental_model.team_goal.other_text == "starting over"
    assert s.actions[1].mental_model.aligned is True
    assert sum(a.mental_model is not None for a in s.actions) == 3
    # Time zero is the platform's session start, 5 s before the first row.
    assert [a.timestamp for a in s.actions[:3]] == [5.0, 15.0, 25.0]
    # The checkpoint at 27 s of the platform's clock: after the second stroke (25 s).
    (cp,) = s.checkpoints
    assert cp.role == "follower" and cp.index == 1 and cp.team_goal == "we are on track"
    assert cp.elapsed_s == pytest.approx(27)
    assert cp.action_index == 2
    assert "eraser 1" in s.notes


def test_bad_annotation_labels_are_reported_with_file_record_and_field(tmp_path):
    _grid_export(tmp_path)
    path = tmp_path / "post_session_annotations.json"
    obj = json.loads(path.read_text())
    obj["payload"]["a-draw1"]["q2LabelId"] = "p9"
    del obj["payload"]["a-erase"]["q4"]
    path.write_text(json.dumps(obj))
    with pytest.raises(DatasetError) as exc:
        run_import("platform", tmp_path, tmp_path.parent / f"{tmp_path.name}-out")
    got = {(i.file, i.record, i.field) for i in exc.value.report.errors}
    assert got == {("post_session_annotations.json", "action a-draw1", "q2LabelId")}
    # A moment answered part-way (the view saves each answer as it is given) is a warning: its
    # model is left out, the rest imports.
    [partial] = [i for i in exc.value.report.warnings if i.record == "action a-erase"]
    assert (partial.file, partial.field, partial.message) == (
        "post_session_annotations.json",
        "q4",
        "answered part-way (q4 not answered): this action's mental model is left out",
    )
    assert not (tmp_path.parent / f"{tmp_path.name}-out").exists()


# ---------------------------------------------------------------------------------------------
# Error reporting: every problem with file, line and field; nothing written
# ---------------------------------------------------------------------------------------------


@needs_platform
def test_malformed_log_lines_name_file_line_and_field_and_nothing_is_written(tmp_path):
    src = tmp_path / "export"
    src.mkdir()
    shutil.copy(PLATFORM / GUIDE_LOG, src / GUIDE_LOG)
    lines = (PLATFORM / FOLLOWER_LOG).read_text(encoding="utf-8").splitlines()
    bad_time = json.loads(lines[4])
    bad_time["timestamp"] = "yesterday at noon"
    lines[4] = json.dumps(bad_time)
    lines[8] = lines[8][:-5]  # truncated JSON
    no_type = json.loads(lines[11])
    del no_type["action_type"]
    lines[11] = json.dumps(no_type)
    bad_cells = json.loads(lines[14])
    bad_cells["metadata"]["filledCells"] = ["3;4"]
    lines[14] = json.dumps(bad_cells)
    (src / FOLLOWER_LOG).write_text("\n".join(lines) + "\n", encoding="utf-8")
    dest = tmp_path / "out" / "dataset"
    with pytest.raises(DatasetError) as exc:
        run_import("platform", src, dest)
    errors = {(i.file, i.record, i.field) for i in exc.value.report.errors}
    assert errors == {
        (FOLLOWER_LOG, "line 5", "timestamp"),
        (FOLLOWER_LOG, "line 9", "(json)"),
        (FOLLOWER_LOG, "line 12", "action_type"),
        (FOLLOWER_LOG, "line 15", "metadata.filledCells"),
    }
    assert "yesterday at noon" in next(i.message for i in exc.value.report.errors if i.field == "timestamp")
    assert not dest.exists()
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


DEEP = "[" * 100_000 + "]" * 100_000
LONG_INT = "9" * 5001


def _hostile(kind: str) -> str:
    """One JSON text the standard parser would crash on: RecursionError (deep) or ValueError (long)."""
    return (
        '{"action_type": "send_message", "metadata": ' + DEEP + "}"
        if kind == "deep"
        else '{"action_type": "send_message", "session_elapsed_seconds": ' + LONG_INT + "}"
    )


def _json_refusal(kind: str) -> str:
    return "nested deeper than 200 levels" if kind == "deep" else "an integer of 5001 digits is too long"


@needs_platform
@pytest.mark.parametrize("kind", ["deep", "long_int"])
def test_hostile_json_in_a_real_platform_log_names_file_and_line(tmp_path, kind):
    src = tmp_path / "export"
    shutil.copytree(PLATFORM, src)
    lines = (src / GUIDE_LOG).read_text(encoding="utf-8").splitlines()
    lines.insert(3, _hostile(kind))
    (src / GUIDE_LOG).write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as exc:
        run_import("platform", src, tmp_path / "out")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field) == (GUIDE_LOG, "line 4", "(json)")
    assert _json_refusal(kind) in issue.message
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", ["deep", "long_int"])
@pytest.mark.parametrize(
    "target",
    ["ffffffff-2.jsonl", "post_session_annotations.json", "in_session_checkpoints.json", "landmark_names.json"],
)
def test_hostile_json_in_any_platform_file_is_an_error_not_a_crash(tmp_path, kind, target):
    _grid_export(tmp_path / "export")
    path = tmp_path / "export" / target
    if target.endswith(".jsonl"):
        lines = path.read_text(encoding="utf-8").splitlines()
        path.write_text("\n".join([*lines[:2], _hostile(kind), *lines[2:]]) + "\n", encoding="utf-8")
        record = "line 3"
    else:
        path.write_text("\n" + _hostile(kind), encoding="utf-8")
        record = "line 2"
    with pytest.raises(DatasetError) as exc:
        run_import("platform", tmp_path / "export", tmp_path / "out")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.field) == (target, "(json)")
    # The line where the parser locates the refusal; "-" where it gives none.
    assert issue.record in (record, "-")
    assert _json_refusal(kind) in issue.message
    assert not (tmp_path / "out").exists()


def test_huge_field_values_are_quoted_short(tmp_path):
    _grid_export(tmp_path / "export")
    log = tmp_path / "export" / "gggggggg-1.jsonl"
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    rows[0]["timestamp"] = "x" * 200_000
    rows[1]["action_type"] = [[[[[[["send_message"]]]]]]] * 1000
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with pytest.raises(DatasetError) as exc:
        run_import("platform", tmp_path / "export", tmp_path / "out")
    got = {(i.record, i.field): i.message for i in exc.value.report.errors}
    assert set(got) == {("line 1", "timestamp"), ("line 2", "action_type")}
    assert got[("line 1", "timestamp")].startswith("not an ISO-8601 time: 'xxxx")
    assert all(len(m) < 200 for m in got.values()), got


def test_existing_destination_is_kept_unless_overwrite(tmp_path):
    _grid_export(tmp_path / "export")
    dest = tmp_path / "ds"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    with pytest.raises(DatasetError) as exc:
        run_import("platform", tmp_path / "export", dest)
    assert exc.value.report.errors[0].field == "(path)"
    assert (dest / "keep.txt").read_text() == "mine"
    run_import("platform", tmp_path / "export", dest, overwrite=True)
    assert not (dest / "keep.txt").exists() and (dest / "dataset.json").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_unknown_options_and_roles_are_errors(tmp_path):
    _grid_export(tmp_path)
    r = import_source("platform", tmp_path, colour="blue")
    assert [(i.file, i.field) for i in r.report.errors] == [("(options)", "colour")]
    r = import_source("platform", tmp_path, condition="sometimes")
    assert any(i.field == "condition" for i in r.report.errors)
    # Two drawers and no hint: the roles cannot be told apart.
    log = tmp_path / "gggggggg-1.jsonl"
    rows = raw_rows(log)
    rows.append(
        _row(
            "gggggggg-1",
            "2026-04-10T10:02:00Z",
            "map_draw_stop",
            "brush_release",
            metadata={"stroke_tool": "brush", "filledCells": ["3,0"]},
        )
    )
    log.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = import_source("platform", tmp_path)
    assert any(i.field == "participant_id" and "exactly one guide" in i.message for i in r.report.errors)
    r = import_source("platform", tmp_path, roles={"gggggggg": "guide"})
    assert r.report.ok, r.report.format()


def test_parse_time_accepts_both_variants():
    a = parse_time("2026-04-10T21:44:11.831000Z")
    b = parse_time("2026-04-10T21:44:11.831000")
    assert a == b and a.tzinfo is not None
    assert parse_time("2026-04-10T23:44:11.831+02:00") == a
    assert parse_time("noon") is None and parse_time(17) is None


# ---------------------------------------------------------------------------------------------
# ASCII grid maps
# ---------------------------------------------------------------------------------------------


@needs_platform
def test_ascii_map_landmarks_and_route():
    from scipy import ndimage

    text = (PLATFORM / ASCII_MAP).read_text(encoding="utf-8")
    lines = text.split("\n")
    report = Report()
    gm = read_ascii_map(PLATFORM / ASCII_MAP, report, ASCII_MAP)
    assert report.ok
    assert tuple(gm.grid_size) == (len(lines), max(len(x) for x in lines))
    where = {ch: [(r, c) for r, line in enumerate(lines) for c, x in enumerate(line) if x == ch] for ch in "#.SF"}
    assert [gm.start_cell] == where["S"] and [gm.finish_cell] == where["F"]
    # The route runs S -> F through the route cells, each step to a neighbouring cell, diagonal
    # only where the drawn line has no side neighbour.
    assert gm.route[0] == gm.start_cell and gm.route[-1] == gm.finish_cell
    assert len(gm.route) == len(set(gm.route))
    steps = list(zip(gm.route, gm.route[1:]))
    assert all(max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1 for a, b in steps)
    assert sum(a[0] != b[0] and a[1] != b[1] for a, b in steps) < len(steps) / 4
    # One '.' hangs below a corner (a dead end): it is reported and left out; all others are on it.
    off = set(where["."]) - set(gm.route)
    assert set(gm.route[1:-1]) <= set(where["."]) and len(off) == 1
    (r, c) = off.pop()
    (warning,) = report.warnings
    assert (warning.record, warning.field) == (f"line {r + 1}", "route") and f"column {c + 1}" in warning.message
    assert sum((r + dr, c + dc) in set(gm.route) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc) >= 1
    # Landmarks are the 8-connected components of '#', named in reading order.
    mask = np.zeros(gm.grid_size, dtype=bool)
    for r, c in where["#"]:
        mask[r, c] = True
    _, n = ndimage.label(mask, structure=np.ones((3, 3)))
    assert list(gm.landmarks) == [f"landmark_{k}" for k in range(1, n + 1)]
    assert sorted(c for lm in gm.landmarks.values() for c in lm.cells) == sorted(where["#"])
    firsts = [min(lm.cells) for lm in gm.landmarks.values()]
    assert firsts == sorted(firsts)


def test_ascii_map_names_spurs_and_errors(tmp_path):
    report = Report()
    text = "S...  \n  . ##\n  .. #\n   F  \n"
    gm = parse_ascii_map(text, "m", report, "m.txt", names={"landmark_1": "old mill"})
    assert list(gm.landmarks) == ["old mill"] and sorted(gm.landmarks["old mill"].cells) == [(1, 4), (1, 5), (2, 5)]
    assert gm.route == [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 3), (3, 3)]
    spur = [i for i in report.warnings if i.field == "route"]
    assert len(spur) == 1 and "1 route cell" in spur[0].message and spur[0].record == "line 1"

    names = tmp_path / "landmark_names.txt"
    names.write_text("old mill\n")
    (tmp_path / "m.txt").write_text(text)
    assert list(read_ascii_map(tmp_path / "m.txt", Report(), "m.txt", names_path=names).landmarks) == ["old mill"]

    report = Report()
    assert parse_ascii_map("S.x\n..F\n", "m", report, "bad.txt") is None
    assert [(i.record, i.field) for i in report.errors] == [("line 1", "column 3")]
    report = Report()
    assert parse_ascii_map("S.S\n..F\n", "m", report, "two.txt") is None
    assert [i.field for i in report.errors] == ["S (start)"]
    report = Report()
    assert parse_ascii_map("S.  \n   F\n", "m", report, "gap.txt") is None
    assert [i.field for i in report.errors] == ["route"]
    report = Report()
    assert parse_ascii_map("S.F\n", "m", report, "n.txt", names={"landmark_7": "x"}) is None
    assert [i.field for i in report.errors] == ["names.landmark_7"]


# ---------------------------------------------------------------------------------------------
# HCRC Map Task
# ---------------------------------------------------------------------------------------------


def test_move_labels_are_normalised():
    assert normalise_move("query-yn") == "query_yn"
    assert normalise_move(" Reply-W ") == "reply_w"
    assert normalise_move("UNCODABLE") == "uncodable"
    assert normalise_move("Yes-Reply") == "reply_y"
    assert normalise_move("Check Attention") == "align"
    assert normalise_move("Non Yes-No-Question") == "query_w"
    assert normalise_move("greeting") is None
    assert {normalise_move(k.replace("_", "-")) for k in schema.HCRC_MOVES} == set(schema.HCRC_MOVES)


@needs_hcrc
def test_hcrc_dialogue_imports_with_every_move_label_mapped(tmp_path):
    lines = [x.split("|") for x in (HCRC / "q1ec1.pipe.txt").read_text(encoding="utf-8").splitlines() if x.strip()]
    dest = run_import("hcrc", HCRC, tmp_path / "hcrc", map_id="m12")
    corpus = load_dir(dest)
    assert corpus.synthetic is False
    s = corpus.session("q1ec1")
    assert len(s.actions) == len(lines) == 77
    assert all(a.type == "message" for a in s.actions)
    assert [a.role for a in s.actions] == [{"g": "guide", "f": "follower"}[x[0]] for x in lines]
    assert [a.content for a in s.actions] == [x[1] for x in lines]
    assert s.condition == "eye_contact" and s.map_id == "hcrc-m12"  # q1ec1: eye contact
    moves = corpus.coded("hcrc_moves")
    assert len(moves) == 77
    assert set(moves["coder"]) == {"hcrc"} and set(moves["partition"]) == {"validation"}
    by_index = dict(zip(moves["action_index"], moves["code"]))
    assert [by_index[k] for k in range(77)] == [normalise_move(x[2]) for x in lines]
    assert set(by_index.values()) <= set(schema.HCRC_MOVES)
    # Every label of the corpus's own label map maps onto the codebook.
    for line in (HCRC / "label_map.txt").read_text(encoding="utf-8").splitlines():
        long_name, short = line.split("|")
        assert normalise_move(long_name) == normalise_move(short) == short
    _ = corpus.sessions_df  # message-only sessions on a placeholder map still give the tables


@needs_hcrc
def test_hcrc_nxt_move_files_give_the_same_moves(tmp_path):
    for name in ("q1ec1.g.moves.xml", "q1ec1.f.moves.xml", "q1ec1.nxt_query_transcript.txt"):
        shutil.copy(HCRC / name, tmp_path / name)
    nxt = import_source("hcrc", tmp_path)
    pipe = import_source("hcrc", HCRC / "q1ec1.pipe.txt")
    assert nxt.report.ok and pipe.report.ok
    assert [lab["code"] for lab in nxt.labels] == [lab["code"] for lab in pipe.labels]
    assert [a.role for a in nxt.sessions[0].actions] == [a.role for a in pipe.sessions[0].actions]
    import xml.etree.ElementTree as ET

    n_moves = sum(1 for f in ("g", "f") for el in ET.parse(HCRC / f"q1ec1.{f}.moves.xml").iter() if el.tag == "move")
    assert len(nxt.labels) == n_moves == 77
    # Without the words the moves cannot be placed: a clear error, nothing imported.
    (tmp_path / "q1ec1.nxt_query_transcript.txt").unlink()
    r = import_source("hcrc", tmp_path)
    assert not r.report.ok and "but no words: expected" in r.report.errors[0].message


def test_hcrc_nxt_with_timed_units(tmp_path):
    ns = 'xmlns:nite="http://nite.sourceforge.net/"'
    (tmp_path / "d1.g.moves.xml").write_text(
        f'<nite:root {ns}><move id="d1.g.move.1" label="instruct"><nite:child href="d1.g.timed-units.xml#id(d1g.1)..id(d1g.2)"/></move>'
        f'<move id="d1.g.move.2" label="query-yn"><nite:child href="d1.g.timed-units.xml#id(d1g.3)"/></move></nite:root>'
    )
    (tmp_path / "d1.f.moves.xml").write_text(
        f'<nite:root {ns}><move id="d1.f.move.1" label="acknowledge"><nite:child href="d1.f.timed-units.xml#id(d1f.1)"/></move></nite:root>'
    )
    (tmp_path / "d1.g.timed-units.xml").write_text(
        f'<nite:root {ns}><tu id="d1g.1" start="1.5" end="1.8">go</tu><tu id="d1g.2" start="1.8" end="2.1">left</tu>'
        f'<tu id="d1g.3" start="4.0" end="4.3">okay</tu></nite:root>'
    )
    (tmp_path / "d1.f.timed-units.xml").write_text(
        f'<nite:root {ns}><tu id="d1f.1" start="2.5" end="2.9">mmhmm</tu></nite:root>'
    )
    r = import_source("hcrc", tmp_path)
    assert r.report.ok, r.report.format()
    (s,) = r.sessions
    assert [(a.role, a.content, a.timestamp) for a in s.actions] == [
        ("guide", "go left", 0.0),
        ("follower", "mmhmm", 1.0),
        ("guide", "okay", 2.5),
    ]
    assert [lab["code"] for lab in r.labels] == ["instruct", "acknowledge", "query_yn"]


def _nxt_dialogue(folder: Path, g_start: str = "1.5", nested: str = "") -> None:
    """One two-move NXT dialogue with timed words; ``nested`` goes inside the giver's moves file."""
    ns = 'xmlns:nite="http://nite.sourceforge.net/"'
    (folder / "d3.g.moves.xml").write_text(
        f'<nite:root {ns}>{nested}<move id="d3.g.move.1" label="instruct"><nite:child href="d3.g.timed-units.xml#id(d3g.1)"/>'
        "</move></nite:root>"
    )
    (folder / "d3.f.moves.xml").write_text(
        f'<nite:root {ns}><move id="d3.f.move.1" label="acknowledge"><nite:child href="d3.f.timed-units.xml#id(d3f.1)"/>'
        "</move></nite:root>"
    )
    (folder / "d3.g.timed-units.xml").write_text(
        f'<nite:root {ns}><tu id="d3g.1" start="{g_start}">go</tu></nite:root>'
    )
    (folder / "d3.f.timed-units.xml").write_text(f'<nite:root {ns}><tu id="d3f.1" start="2.5">mmhmm</tu></nite:root>')


def test_hcrc_deeply_nested_xml_is_read_without_a_crash(tmp_path):
    _nxt_dialogue(tmp_path, nested="<x>" * 100_000 + "</x>" * 100_000)
    r = import_source("hcrc", tmp_path)
    assert r.report.ok, r.report.format()
    assert [(a.role, a.content, a.timestamp) for a in r.sessions[0].actions] == [
        ("guide", "go", 0.0),
        ("follower", "mmhmm", 1.0),
    ]


@pytest.mark.parametrize("start", [LONG_INT, "1e999", "nan", "-inf"])
def test_hcrc_word_time_that_is_not_a_finite_number_names_file_and_word(tmp_path, start):
    _nxt_dialogue(tmp_path, g_start=start)
    with pytest.raises(DatasetError) as exc:
        run_import("hcrc", tmp_path, tmp_path / "out")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field) == ("d3.g.timed-units.xml", "word d3g.1", "start")
    assert "not a time" in issue.message
    assert not (tmp_path / "out").exists()


@needs_hcrc
@pytest.mark.parametrize("kind", ["deep", "long_int"])
def test_hostile_text_in_a_real_hcrc_transcript_is_an_error_not_a_crash(tmp_path, kind):
    """Brackets and digits are plain words in a transcript: a line of them with an unknown move
    is reported by line and field like any other."""
    lines = (HCRC / "q1ec1.pipe.txt").read_text(encoding="utf-8").splitlines()
    hostile = DEEP if kind == "deep" else LONG_INT
    lines.insert(2, f"g|{hostile}|{hostile}")
    (tmp_path / "q1ec1.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as exc:
        run_import("hcrc", tmp_path, tmp_path / "out")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field) == ("q1ec1.txt", "line 3", "move")
    assert len(issue.message) < 400  # the hostile text is quoted shortened, not whole


def test_hcrc_bad_lines_are_reported(tmp_path):
    (tmp_path / "d2.txt").write_text("g|go left|instruct\nx|hello|ready\nf|mmhmm|nodding\ng||check\nf|ok\n")
    with pytest.raises(DatasetError) as exc:
        run_import("hcrc", tmp_path, tmp_path / "out")
    got = [(i.file, i.record, i.field) for i in exc.value.report.errors]
    assert got == [
        ("d2.txt", "line 2", "speaker"),
        ("d2.txt", "line 3", "move"),
        ("d2.txt", "line 4", "text"),
        ("d2.txt", "line 5", "(line)"),
    ]
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------------
# The command line and the upload
# ---------------------------------------------------------------------------------------------


@needs_hcrc
def test_cli_import(tmp_path):
    ok = run_cli("import", "--from", "hcrc", str(HCRC), str(tmp_path / "ds"))
    assert ok.returncode == 0, ok.stderr
    assert load_dir(tmp_path / "ds").session("q1ec1")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "d.txt").write_text("g|go|instruct\nf|ok|grunt\n")
    bad = run_cli("import", "--from", "hcrc", str(tmp_path / "bad"), str(tmp_path / "ds2"))
    assert bad.returncode == 1
    assert "d.txt" in bad.stderr and "line 2" in bad.stderr and "move" in bad.stderr and "grunt" in bad.stderr
    assert not (tmp_path / "ds2").exists()


def test_zip_source(tmp_path):
    _grid_export(tmp_path / "export")
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in (tmp_path / "export").iterdir():
            zf.write(p, f"export/{p.name}")
    dest = run_import("platform", archive, tmp_path / "ds")
    assert len(load_dir(dest).sessions) == 1


def test_upload_of_a_platform_zip_goes_through_the_importer(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from corpus.store import Store

    _grid_export(tmp_path / "export")
    good, bad = tmp_path / "good.zip", tmp_path / "bad.zip"
    for archive, broken in ((good, False), (bad, True)):
        with zipfile.ZipFile(archive, "w") as zf:
            for p in (tmp_path / "export").iterdir():
                data = p.read_bytes()
                if broken and p.name == "ffffffff-2.jsonl":
                    data = data.replace(b'"brush_release"', b'"brush_lift"', 1)
                zf.writestr(f"export/{p.name}", data)
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    Store.open(tmp_path / "data").create_user("lead", "lead-password", "lead")

    def script(path: str, fmt: str) -> None:
        from pathlib import Path

        import streamlit as st

        from services import datasets, uploads
        from services.store import get_store

        if "done" not in st.session_state:
            st.session_state.done = True
            uploads.upload(Path(path).name, Path(path).read_bytes(), fmt, get_store().user("lead"))
        last = datasets.last_outcome()
        st.write(f"imported={last.imported} errors={len(last.report.errors)}")
        for i in last.report.errors:
            st.write(f"{i.file}|{i.record}|{i.field}")
        st.write(f"path={datasets.current_source().path if last.imported else ''}")

    at = AppTest.from_function(script, args=(str(good), "platform"), default_timeout=30).run()
    texts = [m.value for m in at.markdown]
    assert texts[0] == "imported=True errors=0"
    path = Path(texts[-1].removeprefix("path="))
    assert path.parent == tmp_path / "data" / "datasets" and len(load_dir(path).sessions) == 1

    at = AppTest.from_function(script, args=(str(bad), "platform"), default_timeout=30).run()
    texts = [m.value for m in at.markdown]
    assert texts[0] == "imported=False errors=1"
    assert texts[1] == "ffffffff-2.jsonl|line 1|action_content"
    assert texts[-1] == "path="
    assert sorted(p.name for p in (tmp_path / "data" / "datasets").iterdir()) == [path.name]
    assert not any((tmp_path / "data" / "staging").iterdir())


@needs_platform
def test_cli_import_options_reach_the_importer(tmp_path):
    run = run_cli(
        "import", "--from", "platform", "--condition", "visible", "--split", "test", str(PLATFORM), str(tmp_path / "ds")
    )
    assert run.returncode == 0, run.stderr
    sessions = load_dir(tmp_path / "ds").sessions_df
    assert set(sessions["condition"]) == {"visible"} and set(sessions["split"]) == {"test"}
