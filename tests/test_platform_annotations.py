"""The collaboration platform's annotations, checkpoints and export files, in the shapes its code
writes them.

The fixtures are built here in the platform's shapes: the JSON-lines action logs
(``logs/<session_id>/<participant_id>.jsonl``), the post-session payload files
(``post_annotations_<participant_id>.json``: {action_id: {q1, q1LabelId, q1OtherText, ..., q4,
q4Reasons as the reason texts, q4OtherText, momentExplanationTranscript}}), the in-session
checkpoint rows as the platform's database returns them (participant_id, checkpoint_index from 0,
transcription, created_at, elapsed_seconds; no session_id), and the export script's two files
(``<name>_<id8>_user_actions.json`` and ``<name>_<id8>_actions_and_annotations.json``).
"""

from __future__ import annotations

import json
import logging
import shutil
import uuid
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_run import run_cli

from analysis.progress import progress_table
from analysis.reasons import checkpoints_beside_labels
from analysis.replay import build_frames
from analysis.replay_payload import player_payload
from corpus import schema
from corpus.importers import import_source, run_import
from corpus.importers.platform.annotations import mental_model_of, reason_code
from corpus.loading.dataset import load_dir
from corpus.loading.validate import DatasetError, Report
from corpus.model import Checkpoint

SESSION_ID = "5f0c2a9e-1b7d-4c3e-9a21-7d4e8b6f0a13"
SESSION_NAME = "pilot"
GUIDE = "1c9e6f2a-0b8d-4e57-a3c1-2f6d9b7e4a10"
FOLLOWER = "8b2d4f61-7a3c-4d9e-b5f0-6e1a2c3d4b77"
NAMES = {GUIDE: "Ada", FOLLOWER: "Ben"}
START = datetime(2026, 4, 10, 10, 0, 0, tzinfo=UTC)  # the first row; the platform's clock started 5 s before
CLOCK_LEAD = 5

ASCII_MAP = "\n".join(["S..   ", "  .## ", "  .## ", "  ...F"]) + "\n"

# The reasons of a "no" as the platform's annotation view words them, with their codes.
REASON_TEXTS = {
    "Different understanding of the task goal": "n1",
    "Different understanding of the current state": "n2",
    "One of us was missing key information": "n3",
    "Communication was unclear or ambiguous": "n4",
    "Technical or interface issue got in the way": "n5",
    "Other": "other",
}
# q1-q3 as the view words them (its getLabelText), by code.
VIEW_TEXTS = {
    "t1": "Still figuring out what we needed to do",
    "t3": "Clear on what to do and working on it",
    "t4": "Something was unclear and we were working it out",
    "p1": "Understood the situation and we were on the same page",
    "p2": "Probably understood our situation but I was not fully sure",
    "p4": "Misunderstood and we were not aligned",
    "r1": "Executing a plan we already agreed on",
    "r3": "Confirming the situation with my partner",
    "r4": "Grounding by sharing or requesting information to align",
    "r5": "Repairing a mistake or misunderstanding",
}


def _action_id(name: str, session_id: str = SESSION_ID) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{session_id}/{name}"))


def _stamp(t: float) -> str:
    """A browser's ISO time (toISOString): milliseconds and Z."""
    return (START + timedelta(seconds=t)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _row(
    name: str,
    pid: str,
    t: float,
    action_type: str,
    content: str,
    metadata: dict | None = None,
    session_id: str = SESSION_ID,
    session_name: str = SESSION_NAME,
) -> dict:
    """One action row as the platform logs it."""
    return {
        "action_id": _action_id(name, session_id),
        "timestamp": _stamp(t),
        "session_id": session_id,
        "session_name": session_name,
        "participant_id": pid,
        "participant_name": NAMES.get(pid, "someone"),
        "is_human": True,
        "action_type": action_type,
        "action_content": content,
        "result": "success",
        "metadata": metadata or {},
        "page": "map_task",
        "experiment_type": "maptask",
        "session_elapsed_seconds": t + CLOCK_LEAD,
        "screenshot": f"files/{_action_id(name, session_id)}_screenshot.png",
        "html_snapshot": None,
    }


def _cells(*cells: str) -> dict:
    return {"stroke_tool": "brush", "filledCells": list(cells)}


ROUTE_TOP = ("0,0", "0,1", "0,2")
ROUTE_DOWN = (*ROUTE_TOP, "1,2", "2,2")
ROUTE_ALL = (*ROUTE_DOWN, "3,2", "3,3", "3,4", "3,5")


def session_rows(session_id: str = SESSION_ID, guide: str = GUIDE, follower: str = FOLLOWER) -> dict[str, list[dict]]:
    """Each participant's log rows: messages, grid strokes with metadata.filledCells, a tool
    selection, an undo."""
    msg = {"receiver": follower}
    back = {"receiver": guide}
    g = [
        _row("g1", guide, 0, "send_message", "start at S and go right", msg, session_id),
        _row("g2", guide, 10, "send_message", "now down past the block", msg, session_id),
        _row("g3", guide, 24, "send_message", "yes, then right to F", msg, session_id),
        _row("g4", guide, 36, "send_message", "done", msg, session_id),
    ]
    f = [
        _row("f1", follower, 6, "map_draw_stop", "brush_release", _cells(*ROUTE_TOP), session_id),
        _row("f2", follower, 14, "map_tool_click", "brush", None, session_id),
        _row("f3", follower, 16, "map_draw_stop", "brush_release", _cells(*ROUTE_DOWN), session_id),
        _row("f4", follower, 20, "send_message", "like this?", back, session_id),
        _row("f5", follower, 28, "map_draw_stop", "brush_release", _cells(*ROUTE_ALL), session_id),
        _row("f6", follower, 30, "map_tool_click", "undo", {"filledCells": list(ROUTE_DOWN)}, session_id),
        _row("f7", follower, 33, "map_draw_stop", "brush_release", _cells(*ROUTE_ALL), session_id),
    ]
    return {guide: g, follower: f}


def _answer(q1: str, q2: str, q3: str, q4: str, reasons=(), other4: str = "", why: str = "", other1: str = "") -> dict:
    """One action's answers as the annotation view saves them."""
    out: dict = {"momentExplanationTranscript": why}
    for q, code, other in (("q1", q1, other1), ("q2", q2, ""), ("q3", q3, "")):
        out[q] = "Other" if code == "other" else VIEW_TEXTS[code]
        out[f"{q}LabelId"] = code
        out[f"{q}OtherText"] = other
    out.update(q4=q4, q4Reasons=list(reasons), q4OtherText=other4)
    return out


def payloads() -> dict[str, dict]:
    """participant_id -> the post-session payload (action_id -> answers) the platform saves."""
    a = _action_id
    return {
        GUIDE: {
            a("g1"): _answer("t3", "p1", "r1", "yes", why="I gave the start"),
            a("g2"): _answer(
                "t4",
                "p4",
                "r4",
                "no",
                ["Different understanding of the current state", "Other"],
                "their map shows the block elsewhere",
                why="they went the wrong way",
            ),
            a("g3"): _answer("other", "p2", "r3", "yes", other1="checking the corner", why="checking"),
            a("g4"): {},  # opened, not answered
        },
        FOLLOWER: {
            a("f1"): _answer("t1", "p2", "r1", "no", ["Communication was unclear or ambiguous"], why="unsure"),
            a("f3"): _answer("t3", "p1", "r1", "yes", why="following"),
            a("f4"): _answer(
                "t4",
                "p4",
                "r5",
                "no",
                ["One of us was missing key information", "Technical or interface issue got in the way"],
                why="asking",
            ),
            a("f7"): _answer("t3", "p1", "r1", "yes", why="finished"),
        },
    }


def checkpoint_rows() -> list[dict]:
    """The in-session checkpoint rows as the platform's database returns them (by created_at)."""
    out = []
    for k, elapsed in enumerate((12, 22, 34)):  # on the platform's session clock
        for pid in (GUIDE, FOLLOWER):
            created = START + timedelta(seconds=elapsed - CLOCK_LEAD)
            out.append(
                {
                    "participant_id": pid,
                    "checkpoint_index": k,
                    "transcription": f"{NAMES[pid]} at checkpoint {k}",
                    "created_at": created.isoformat(),
                    "elapsed_seconds": elapsed,
                }
            )
    return out


def write_logs(folder: Path) -> Path:
    """The session folder as the platform's logs hold it, with the payload files beside the logs
    and a dump of the checkpoint rows."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "map.txt").write_text(ASCII_MAP, encoding="utf-8")
    for pid, rows in session_rows().items():
        (folder / f"{pid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for pid, payload in payloads().items():
        (folder / f"post_annotations_{pid}.json").write_text(
            json.dumps(payload, ensure_ascii=False, indent=2), encoding="utf-8"
        )
    (folder / "in_session_annotations.json").write_text(json.dumps(checkpoint_rows(), indent=2), encoding="utf-8")
    return folder


def _export_text(answers: dict, q: str) -> str:
    """q1-q3 as the export gives them: the answer's text, or the participant's words for Other."""
    text = (answers.get(q) or "").strip()
    if answers.get(f"{q}LabelId") == "other" or text.lower() == "other":
        return (answers.get(f"{q}OtherText") or "").strip() or text
    return text


def _timeline(actions: list[dict], payload: dict) -> list[dict]:
    out = []
    for a in actions:
        answers = payload.get(a["action_id"], {})
        out.append(
            {
                "action_timestamp": a["timestamp"],
                "action_type": a["action_type"],
                "action_content": a["action_content"],
                "annotation": {
                    "explanation_transcription": answers.get("momentExplanationTranscript") or "",
                    "task_model_q1": _export_text(answers, "q1"),
                    "partner_model_q2": _export_text(answers, "q2"),
                    "self_model_q3": _export_text(answers, "q3"),
                    "alignment_q4": answers.get("q4") or "",
                },
            }
        )
    return out


def export_files(folder: Path, user_actions: bool = True, checkpoints_as_rows: bool = True) -> Path:
    """The export script's two files for the session (and the ASCII map beside them)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "map.txt").write_text(ASCII_MAP, encoding="utf-8")
    human = sorted((r for rows in session_rows().values() for r in rows), key=lambda r: r["timestamp"])
    pids = sorted(NAMES)
    cps = checkpoint_rows()
    by_participant = {
        NAMES[pid]: {
            "human_actions": [a for a in human if a["participant_id"] == pid],
            "in_session_annotations": [r for r in cps if r["participant_id"] == pid] if checkpoints_as_rows else [],
            "post_session_annotations_timeline": _timeline(
                [a for a in human if a["participant_id"] == pid], payloads()[pid]
            ),
        }
        for pid in pids
    }
    answers_all: dict = {}
    for r in cps:
        answers_all.setdefault(NAMES[r["participant_id"]], {})[f"checkpoint {r['checkpoint_index']}"] = r[
            "transcription"
        ]
    bundle = {
        "session_name": SESSION_NAME,
        "session_id": SESSION_ID,
        "participant_ids": pids,
        "participant_names": [NAMES[p] for p in pids],
        "participant_name_by_id": {p: NAMES[p] for p in pids},
        "human_actions_all": human,
        "in_session_annotations_all": answers_all,
        "post_session_annotations": {
            NAMES[p]: by_participant[NAMES[p]]["post_session_annotations_timeline"] for p in pids
        },
        "by_participant": by_participant,
    }
    prefix = f"{SESSION_NAME}_{SESSION_ID[:8]}"
    (folder / f"{prefix}_actions_and_annotations.json").write_text(
        json.dumps(bundle, ensure_ascii=False, indent=2), encoding="utf-8"
    )
    if user_actions:
        (folder / f"{prefix}_user_actions.json").write_text(
            json.dumps(
                {"session_name": SESSION_NAME, "session_id": SESSION_ID, "count": len(human), "human_actions": human},
                ensure_ascii=False,
                indent=2,
            ),
            encoding="utf-8",
        )
    return folder


BUNDLE = f"{SESSION_NAME}_{SESSION_ID[:8]}_actions_and_annotations.json"


def _edit_bundle(folder: Path, change) -> None:
    path = folder / BUNDLE
    obj = json.loads(path.read_text(encoding="utf-8"))
    change(obj)
    path.write_text(json.dumps(obj), encoding="utf-8")


def _session(result):
    (s,) = result.sessions
    return s


def _by_action_id(session) -> dict:
    """action_id -> action, through the order of the rows (the importer keeps time order)."""
    rows = sorted((r for rows in session_rows().values() for r in rows), key=lambda r: r["timestamp"])
    kept = [r for r in rows if not (r["action_type"] == "map_tool_click" and r["action_content"] == "brush")]
    assert len(kept) == len(session.actions)
    return {r["action_id"]: a for r, a in zip(kept, session.actions)}


# ---------------------------------------------------------------------------------------------
# Reasons and labels as texts
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "code"), REASON_TEXTS.items())
def test_every_reason_text_of_the_view_is_its_code(text, code):
    assert reason_code(text) == code
    assert reason_code(f"  {text.upper()}  ") == code
    assert reason_code(text.replace(" ", " \t  ")) == code
    assert schema.MISALIGNMENT_REASON.get(code, "Other") == text


def test_reason_texts_in_a_payload_become_codes_with_the_other_text():
    report = Report()
    answers = _answer(
        "t4",
        "p4",
        "r5",
        "no",
        ["  communication WAS unclear   or ambiguous", "Different understanding of the TASK goal", "other"],
        "  the map was blurry ",
    )
    mm = mental_model_of(answers, report, "post_annotations_x.json", "action a")
    assert report.ok, report.format()
    assert [r.code for r in mm.misalignment_reasons] == ["n4", "n1", "other"]
    assert mm.misalignment_reasons[2].other_text == "the map was blurry"
    assert mm.misalignment_reasons[0].text == schema.MISALIGNMENT_REASON["n4"]


def test_an_unknown_reason_text_is_named_with_the_known_texts():
    report = Report()
    answers = _answer("t4", "p4", "r5", "no", ["Communication was unclear", "One of us was missing key information"])
    assert mental_model_of(answers, report, "post_annotations_x.json", "action a") is None
    (issue,) = report.errors
    assert (issue.file, issue.record, issue.field) == ("post_annotations_x.json", "action a", "q4Reasons")
    assert "'Communication was unclear'" in issue.message
    for text in REASON_TEXTS:
        assert f"'{text}'" in issue.message


def test_the_older_shape_with_reason_codes_still_reads():
    report = Report()
    answers = {"q1LabelId": "t4", "q2LabelId": "p4", "q3LabelId": "r5", "q4": "no", "q4Reasons": ["n2", "N5", "other"]}
    answers["q4OtherText"] = "lag"
    mm = mental_model_of(answers, report, "f.json", "action a")
    assert report.ok and [r.code for r in mm.misalignment_reasons] == ["n2", "n5", "other"]
    assert mm.misalignment_reasons[2].other_text == "lag"
    spaced = mental_model_of({**answers, "q4Reasons": "n1 n3; n4"}, report, "f.json", "action a")
    assert report.ok and [r.code for r in spaced.misalignment_reasons] == ["n1", "n3", "n4"]


def test_labels_given_only_as_texts_become_codes():
    report = Report()
    answers = {
        "q1": "clear on what to do  and working on it",
        "q2": "Understood the situation and we were on the same page",  # the view's wording
        "q3": "Grounding - sharing/requesting info to align",  # Table 5's wording
        "q4": "yes",
    }
    mm = mental_model_of(answers, report, "f.json", "action a")
    assert report.ok, report.format()
    assert (mm.team_goal.code, mm.partner_intent.code, mm.self_reasoning.code) == ("t3", "p1", "r4")
    other = mental_model_of({**answers, "q1": "Other", "q1OtherText": "lost"}, report, "f.json", "action a")
    assert other.team_goal.code == "other" and other.team_goal.other_text == "lost"
    assert mental_model_of({**answers, "q2": "Roughly aligned"}, report, "f.json", "action b") is None
    (issue,) = report.errors
    assert issue.field == "q2" and "'Roughly aligned'" in issue.message
    assert "'Understood the situation and we were on the same page'" in issue.message


# ---------------------------------------------------------------------------------------------
# The session folder: payload files and checkpoint rows as the platform writes them
# ---------------------------------------------------------------------------------------------


def test_payload_files_and_checkpoints_from_0_without_session_id(tmp_path):
    report = Report()
    dest = run_import("platform", write_logs(tmp_path / "logs"), tmp_path / "ds", report=report)
    assert report.ok and not report.warnings, report.format()
    corpus = load_dir(dest)
    (s,) = corpus.sessions.values()
    assert s.id == f"pilot-{SESSION_ID[:8]}"
    acts = _by_action_id(s)
    g2 = acts[_action_id("g2")].mental_model
    assert (g2.aligned, [r.code for r in g2.misalignment_reasons]) == (False, ["n2", "other"])
    assert g2.misalignment_reasons[1].other_text == "their map shows the block elsewhere"
    assert acts[_action_id("g3")].mental_model.team_goal.other_text == "checking the corner"
    assert [r.code for r in acts[_action_id("f4")].mental_model.misalignment_reasons] == ["n3", "n5"]
    assert acts[_action_id("g4")].mental_model is None  # saved as {}: not answered
    assert sum(a.mental_model is not None for a in s.actions) == 7
    # Checkpoints keep the platform's numbers (0, 1, 2), each after the last action before its time.
    got = sorted((c.role, c.index, c.elapsed_s, c.action_index, c.team_goal) for c in s.checkpoints)
    t = {a.index: a.timestamp for a in s.actions}
    assert [g[:3] for g in got] == [
        ("follower", 0, 12.0),
        ("follower", 1, 22.0),
        ("follower", 2, 34.0),
        ("guide", 0, 12.0),
        ("guide", 1, 22.0),
        ("guide", 2, 34.0),
    ]
    for _role, _index, elapsed, action_index, _text in got:
        assert t[action_index] <= elapsed < (t.get(action_index + 1) or 1e9)
    assert got[0][4] == "Ben at checkpoint 0"


def test_checkpoint_rows_without_elapsed_seconds_are_placed_by_created_at(tmp_path):
    folder = write_logs(tmp_path / "logs")
    rows = checkpoint_rows()
    for r in rows:
        r["elapsed_seconds"] = None  # the platform stores null when the browser sent no timer value
    (folder / "in_session_annotations.json").write_text(json.dumps(rows), encoding="utf-8")
    s = _session(import_source("platform", folder))
    assert sorted({c.elapsed_s for c in s.checkpoints}) == [12.0, 22.0, 34.0]


def test_checkpoint_rows_with_a_session_id_are_matched_by_it(tmp_path):
    folder = write_logs(tmp_path / "logs")
    other_sid, g2, f2 = "0b7e0c55-8d2e-4f7a-9c3b-1a2b3c4d5e6f", "aa11aa11-0000", "bb22bb22-0000"
    for pid, rows in session_rows(other_sid, g2, f2).items():
        (folder / f"{pid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rows = [
        *checkpoint_rows(),
        {"participant_id": g2, "checkpoint_index": 0, "transcription": "b", "elapsed_seconds": 3},  # by participant
        {
            "session_id": other_sid,
            "participant_id": f2,
            "checkpoint_index": 1,
            "transcription": "c",
            "elapsed_seconds": 20,
        },
        {
            "session_id": "no-such-session",
            "participant_id": f2,
            "checkpoint_index": 2,
            "transcription": "d",
            "elapsed_seconds": 30,
        },
    ]
    (folder / "in_session_annotations.json").write_text(json.dumps(rows), encoding="utf-8")
    result = import_source("platform", folder)
    assert result.report.ok, result.report.format()
    by_id = {s.id: s for s in result.sessions}
    assert len(by_id[f"pilot-{SESSION_ID[:8]}"].checkpoints) == 6
    other = by_id[f"pilot-{other_sid.replace('-', '')[:8]}"]
    assert sorted((c.role, c.index, c.team_goal) for c in other.checkpoints) == [
        ("follower", 1, "c"),
        ("guide", 0, "b"),
    ]
    (warning,) = result.report.warnings
    assert (warning.record, warning.field) == ("[8]", "session_id") and "'no-such-session'" in warning.message
    # A participant of no session is an error naming the row.
    rows.append({"participant_id": "stranger", "checkpoint_index": 0, "transcription": "e", "elapsed_seconds": 3})
    (folder / "in_session_annotations.json").write_text(json.dumps(rows), encoding="utf-8")
    (issue,) = import_source("platform", folder).report.errors
    assert (issue.file, issue.record, issue.field) == ("in_session_annotations.json", "[9]", "participant_id")


def test_people_are_shown_checkpoint_1_2_3_for_the_platforms_0_1_2(tmp_path):
    corpus = load_dir(run_import("platform", write_logs(tmp_path / "logs"), tmp_path / "ds"))
    (s,) = corpus.sessions.values()
    numbers = dict(zip(((c.role, c.index) for c in s.checkpoints), Checkpoint.numbers(s.checkpoints)))
    assert numbers == {(r, k): k + 1 for r in ("guide", "follower") for k in (0, 1, 2)}
    # The replay player's memory anchor and timeline read "checkpoint N" from ``number``.
    payload = player_payload(build_frames(s, corpus.maps[s.map_id]))
    assert {(cp["role"], cp["index"], cp["number"]) for cp in payload["checkpoints"]} == {
        (r, k, k + 1) for r in ("guide", "follower") for k in (0, 1, 2)
    }
    # The Why-not-aligned page's table of checkpoint answers.
    actions = corpus.actions_df.merge(progress_table(corpus), on=["session_id", "index"])
    table = checkpoints_beside_labels(corpus, actions)
    assert sorted(table["checkpoint"].tolist()) == [1, 1, 2, 2, 3, 3]
    # The sample corpus numbers its checkpoints 1, 2, 3 and reads the same.
    sample = [
        Checkpoint(role=role, index=k, progress=0.25 * k, action_index=k, elapsed_s=10.0 * k)
        for k in (1, 2, 3)
        for role in ("guide", "follower")
    ]
    assert Checkpoint.numbers(sample) == [1, 1, 2, 2, 3, 3]
    assert Checkpoint.numbers(list(reversed(sample))) == [3, 3, 2, 2, 1, 1]


# ---------------------------------------------------------------------------------------------
# The export script's files
# ---------------------------------------------------------------------------------------------


def _no_reasons_warning(report: Report) -> list:
    return [i for i in report.warnings if i.field == "q4Reasons"]


@pytest.mark.parametrize("with_user_actions", [False, True])
def test_the_export_reads_as_the_same_session(tmp_path, with_user_actions):
    logs = _session(import_source("platform", write_logs(tmp_path / "logs")))
    result = import_source("platform", export_files(tmp_path / "export", user_actions=with_user_actions))
    s = _session(result)
    assert s.id == logs.id and s.map_id == logs.map_id
    assert [(a.role, a.type, a.content, a.timestamp) for a in s.actions] == [
        (a.role, a.type, a.content, a.timestamp) for a in logs.actions
    ]
    assert [p.id for p in s.participants] == [p.id for p in logs.participants]
    assert s.checkpoints == logs.checkpoints  # from by_participant's rows, with their elapsed_seconds
    # The same answers, but a "no" has no reasons: the export leaves q4Reasons out.
    for a, b in zip(s.actions, logs.actions):
        if b.mental_model is None:
            assert a.mental_model is None
            continue
        assert a.mental_model == b.mental_model.model_copy(update={"misalignment_reasons": []})
    acts = _by_action_id(s)
    assert acts[_action_id("g3")].mental_model.team_goal.other_text == "checking the corner"
    assert acts[_action_id("g2")].mental_model.partner_intent.code == "p4"
    # Said once for the import, with the count, never per record.
    (warning,) = _no_reasons_warning(result.report)
    assert warning.message.startswith(
        "3 'not on the same page' answers have no reasons: the export does not carry q4Reasons"
    )
    assert (warning.file, warning.record) == (BUNDLE, "-")
    assert result.report.ok and len(result.report.warnings) == 1, result.report.format()


def test_the_bundle_file_alone_is_a_source(tmp_path):
    folder = export_files(tmp_path / "export", user_actions=False)
    report = Report()
    dest = run_import("platform", folder / BUNDLE, tmp_path / "ds", report=report)
    (s,) = load_dir(dest).sessions.values()
    assert len(s.actions) == 10 and len(s.checkpoints) == 6
    assert len(_no_reasons_warning(report)) == 1


def test_payload_files_beside_the_export_give_the_reasons(tmp_path):
    folder = export_files(tmp_path / "export")
    for pid, payload in payloads().items():
        (folder / f"post_annotations_{pid}.json").write_text(json.dumps(payload), encoding="utf-8")
    result = import_source("platform", folder)
    assert result.report.ok and not result.report.warnings, result.report.format()
    acts = _by_action_id(_session(result))
    assert [r.code for r in acts[_action_id("g2")].mental_model.misalignment_reasons] == ["n2", "other"]


def test_export_and_logs_together_read_each_action_once(tmp_path):
    folder = export_files(write_logs(tmp_path / "both"))
    result = import_source("platform", folder)
    assert result.report.ok and not result.report.warnings, result.report.format()
    assert len(_session(result).actions) == 10


def test_the_no_reasons_warning_is_one_for_many_answers(tmp_path):
    folder = export_files(tmp_path / "export")

    def every_answer_no(obj):
        for entry in obj["by_participant"].values():
            for item in entry["post_session_annotations_timeline"]:
                if item["annotation"]["alignment_q4"]:
                    item["annotation"]["alignment_q4"] = "no"

    _edit_bundle(folder, every_answer_no)
    report = import_source("platform", folder).report
    (warning,) = _no_reasons_warning(report)
    assert warning.message.startswith("7 'not on the same page' answers have no reasons")


def test_checkpoints_from_the_answers_by_name_when_the_rows_are_absent(tmp_path):
    folder = export_files(tmp_path / "export", checkpoints_as_rows=False)
    result = import_source("platform", folder)
    s = _session(result)
    assert sorted((c.role, c.index, c.team_goal) for c in s.checkpoints)[:3] == [
        ("follower", 0, "Ben at checkpoint 0"),
        ("follower", 1, "Ben at checkpoint 1"),
        ("follower", 2, "Ben at checkpoint 2"),
    ]
    # No times in that part of the export: placed where the platform's schedule asks them.
    assert s.duration_s == 41.0
    assert sorted({c.elapsed_s for c in s.checkpoints}) == pytest.approx([0.2 * 41, 0.45 * 41, 0.7 * 41])
    (said,) = [i for i in result.report.warnings if i.field == "in_session_annotations_all"]
    assert said.file == BUNDLE and said.message.startswith("6 checkpoint answers taken from in_session_annotations_all")


def test_a_timeline_entry_that_does_not_match_its_action_is_an_error_naming_both(tmp_path):
    folder = export_files(tmp_path / "export")

    def edited(obj):
        obj["by_participant"]["Ben"]["post_session_annotations_timeline"][3]["action_content"] = "like that?"

    _edit_bundle(folder, edited)
    with pytest.raises(DatasetError) as exc:
        run_import("platform", folder, tmp_path / "ds")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field) == (
        BUNDLE,
        "by_participant.Ben.post_session_annotations_timeline[3]",
        "action_content",
    )
    assert "'like that?'" in issue.message and "'like this?'" in issue.message
    assert _action_id("f4") in issue.message
    assert not (tmp_path / "ds").exists()


def test_a_bad_record_in_the_export_imports_nothing(tmp_path):
    folder = export_files(tmp_path / "export")

    def broken(obj):
        obj["human_actions_all"][4]["metadata"]["filledCells"] = "0,0 0,1"
        obj["by_participant"]["Ada"]["in_session_annotations"][1]["checkpoint_index"] = -1

    _edit_bundle(folder, broken)
    with pytest.raises(DatasetError) as exc:
        run_import("platform", folder, tmp_path / "ds")
    got = {(i.file, i.record, i.field) for i in exc.value.report.errors}
    assert got == {
        (BUNDLE, "human_actions_all[4]", "metadata.filledCells"),
        (BUNDLE, "by_participant.Ada.in_session_annotations[1]", "checkpoint_index"),
    }
    assert not (tmp_path / "ds").exists()


def test_a_bad_payload_record_imports_nothing(tmp_path):
    folder = write_logs(tmp_path / "logs")
    path = folder / f"post_annotations_{FOLLOWER}.json"
    payload = json.loads(path.read_text(encoding="utf-8"))
    payload[_action_id("f4")]["q4Reasons"] = ["The map was wrong"]
    path.write_text(json.dumps(payload), encoding="utf-8")
    with pytest.raises(DatasetError) as exc:
        run_import("platform", folder, tmp_path / "ds")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field) == (path.name, f"action {_action_id('f4')}", "q4Reasons")
    assert not (tmp_path / "ds").exists()


def test_strokes_on_an_image_map_without_their_ink_keep_their_annotations(tmp_path):
    """The export does not carry the ink images: an annotated stroke is imported as an action with no
    cell change ("ink_missing"), its annotation kept; a stroke without one is left out, counted once
    for the import, and so is the undo of it."""
    folder = export_files(tmp_path / "export", user_actions=False)
    (folder / "map.txt").unlink()

    def image_map(obj):
        for a in obj["human_actions_all"]:
            if a["action_type"] == "map_draw_stop":
                a["metadata"] = {"stroke_tool": "brush"}
                a["map_image"] = f"files/{a['action_id']}_map_image.png"
            if a["action_content"] == "undo":
                a["metadata"] = {}

    _edit_bundle(folder, image_map)
    result = import_source("platform", folder)
    s = _session(result)
    strokes = [a for a in s.actions if a.type == "draw"]
    assert [(a.content, a.no_cell_change) for a in strokes] == [(None, "ink_missing")] * 3
    expected = payloads()[FOLLOWER]
    assert [a.mental_model.rationale for a in strokes] == [
        expected[_action_id(k)]["momentExplanationTranscript"] for k in ("f1", "f3", "f7")
    ]
    assert len(s.actions) == 8 and "undo" not in [a.type for a in s.actions]  # (f5 and the undo of it: no annotation)
    said = sorted((i.field, i.message) for i in result.report.warnings if i.record == "-")
    assert [field for field, _ in said] == ["(annotations)", "map_image", "map_image", "q4Reasons"]
    assert said[0][1] == "7 annotations in the source, 7 imported (3 of them on actions with no cell change)"
    assert said[1][1].startswith("1 stroke on an image map left out (without an annotation): the export does not")
    assert said[2][1].startswith("3 strokes on an image map have no ink image (files/<action_id>_map_image.png")
    assert "their annotations kept" in said[2][1]
    (undo,) = [i for i in result.report.warnings if i.record != "-" and i.field == "action_content"]
    assert undo.message == "undo of a stroke that has no ink image changes no known cell either; left out"
    assert "left out: 1 stroke whose ink image the export does not carry" in s.notes
    assert not [i for i in result.report.warnings if i.field == "action_id"]


# ---------------------------------------------------------------------------------------------
# The command line and the app's upload
# ---------------------------------------------------------------------------------------------


def test_command_line_import_of_the_export(tmp_path, caplog):
    folder = export_files(tmp_path / "export")
    with caplog.at_level(logging.WARNING, logger="corpus.importers"):
        ok = run_cli("import", "--from", "platform", str(folder), str(tmp_path / "ds"))
    assert ok.returncode == 0, ok.stderr
    said = [r.getMessage() for r in caplog.records if "q4Reasons" in r.getMessage()]
    assert len(said) == 1 and "3 'not on the same page' answers have no reasons" in said[0]
    (s,) = load_dir(tmp_path / "ds").sessions.values()
    assert {c.index for c in s.checkpoints} == {0, 1, 2}

    _edit_bundle(folder, lambda obj: obj["by_participant"]["Ada"]["post_session_annotations_timeline"].pop())
    bad = run_cli("import", "--from", "platform", str(folder), str(tmp_path / "ds2"))
    assert bad.returncode == 1
    assert BUNDLE in bad.stderr and "by_participant.Ada.post_session_annotations_timeline" in bad.stderr
    assert not (tmp_path / "ds2").exists()


def test_upload_of_the_export_goes_through_the_importer(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from corpus.store import Store

    folder = export_files(tmp_path / "export")
    good = tmp_path / "good.zip"
    with zipfile.ZipFile(good, "w") as zf:
        for p in folder.iterdir():
            zf.write(p, f"export/{p.name}")
    bad_folder = tmp_path / "bad"
    shutil.copytree(folder, bad_folder)
    _edit_bundle(bad_folder, lambda obj: obj["by_participant"]["Ben"].update(post_session_annotations_timeline={}))
    bad = tmp_path / "bad.zip"
    with zipfile.ZipFile(bad, "w") as zf:
        for p in bad_folder.iterdir():
            zf.write(p, p.name)
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    Store.open(tmp_path / "data").create_user("lead", "lead-password", "lead")

    def script(path: str) -> None:
        from pathlib import Path

        import streamlit as st

        from services import datasets, uploads
        from services.store import get_store

        if "done" not in st.session_state:
            st.session_state.done = True
            uploads.upload(Path(path).name, Path(path).read_bytes(), "platform", get_store().user("lead"))
        last = datasets.last_outcome()
        st.write(f"imported={last.imported} errors={len(last.report.errors)}")
        for i in last.report.issues:
            st.write(f"{i.severity}|{i.file}|{i.record}|{i.field}|{i.message}")

    at = AppTest.from_function(script, args=(str(good),), default_timeout=30).run()
    texts = [m.value for m in at.markdown]
    assert texts[0] == "imported=True errors=0"
    (said,) = [t for t in texts if "|q4Reasons|" in t]
    assert said.startswith("warning|") and "3 'not on the same page' answers have no reasons" in said

    at = AppTest.from_function(script, args=(str(bad),), default_timeout=30).run()
    texts = [m.value for m in at.markdown]
    assert texts[0] == "imported=False errors=1"
    assert texts[1].startswith(f"error|{BUNDLE}|by_participant.Ben.post_session_annotations_timeline|(timeline)|")


def test_a_moment_answered_part_way_is_left_out_with_a_warning(tmp_path):
    # The view saves each answer as it is given: a participant who stopped after q2 leaves q3 and
    # q4 unanswered; a "no" whose reasons were not yet chosen has none.
    folder = write_logs(tmp_path / "pilot")
    path = folder / f"post_annotations_{GUIDE}.json"
    payload = json.loads(path.read_text(encoding="utf-8"))
    for key in ("q3", "q3LabelId", "q3OtherText", "q4", "q4Reasons", "q4OtherText"):
        payload[_action_id("g1")].pop(key)
    payload[_action_id("g2")]["q4Reasons"] = []
    path.write_text(json.dumps(payload), encoding="utf-8")
    result = import_source("platform", folder)
    assert result.report.ok
    partial = {
        i.record: (i.field, i.message)
        for i in result.report.warnings
        if "part-way" in i.message and i.field != "(annotations)"
    }
    assert partial == {
        f"action {_action_id('g1')}": (
            "q3",
            "answered part-way (q3, q4 not answered): this action's mental model is left out",
        ),
        f"action {_action_id('g2')}": (
            "q4Reasons",
            "answered part-way (q4Reasons not answered): this action's mental model is left out",
        ),
    }
    by_id = _by_action_id(_session(result))
    assert by_id[_action_id("g1")].mental_model is None and by_id[_action_id("g2")].mental_model is None
    assert by_id[_action_id("g3")].mental_model is not None


# ---------------------------------------------------------------------------------------------
# The newer export's shape (the ALMANAC release's), and no annotation dropped
# ---------------------------------------------------------------------------------------------


def _newer_shape(obj, answers: bool = False) -> None:
    """The bundle as the newer export writes it: by_participant.<name> carries participant_id, and
    in_session_annotations is an object, the answers by checkpoint ({} for none)."""
    by_name = {name: pid for pid, name in obj["participant_name_by_id"].items()}
    for name, entry in obj["by_participant"].items():
        entry["participant_id"] = by_name[name]
        entry["in_session_annotations"] = obj["in_session_annotations_all"].get(name, {}) if answers else {}
    if not answers:
        obj["in_session_annotations_all"] = {}


def test_the_newer_export_shape_reads_as_the_same_session(tmp_path):
    old = _session(import_source("platform", export_files(tmp_path / "old", checkpoints_as_rows=False)))
    folder = export_files(tmp_path / "new", checkpoints_as_rows=False)
    _edit_bundle(folder, _newer_shape)
    result = import_source("platform", folder)
    assert result.report.ok, result.report.format()
    s = _session(result)
    assert [(a.type, a.content, a.timestamp, a.mental_model) for a in s.actions] == [
        (a.type, a.content, a.timestamp, a.mental_model) for a in old.actions
    ]
    assert s.checkpoints == [] and not [i for i in result.report.warnings if "checkpoint" in i.message]
    # Its answers by checkpoint, where a participant has any, are read as in_session_annotations_all's.
    answered = export_files(tmp_path / "answered", checkpoints_as_rows=False)
    _edit_bundle(answered, lambda obj: _newer_shape(obj, answers=True))
    result = import_source("platform", answered)
    assert _session(result).checkpoints == old.checkpoints
    (said,) = [i for i in result.report.warnings if i.field == "in_session_annotations"]
    assert said.message.startswith("6 checkpoint answers taken from by_participant.<name>.in_session_annotations")


def test_a_participant_id_that_disagrees_with_participant_name_by_id_is_an_error(tmp_path):
    folder = export_files(tmp_path / "export")

    def edited(obj):
        _newer_shape(obj)
        obj["by_participant"]["Ben"]["participant_id"] = GUIDE

    _edit_bundle(folder, edited)
    with pytest.raises(DatasetError) as exc:
        run_import("platform", folder, tmp_path / "ds")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field) == (BUNDLE, "by_participant.Ben", "participant_id")
    assert issue.message == f"'{GUIDE}' is not the id participant_name_by_id gives 'Ben' ('{FOLLOWER}')"
    # Without participant_name_by_id, the ids by_participant gives are the participants'.
    folder = export_files(tmp_path / "ids")

    def only_ids(obj):
        _newer_shape(obj)
        del obj["participant_name_by_id"]

    _edit_bundle(folder, only_ids)
    result = import_source("platform", folder)
    assert result.report.ok and sum(a.mental_model is not None for a in _session(result).actions) == 7


def test_an_annotated_stroke_that_changed_no_cell_is_imported_and_undo_passes_it_by(tmp_path):
    """On a grid map: the stroke's annotation is kept on an action with no cell change; the
    platform's undo (whose stack on grid maps keeps only strokes that changed a cell) reverts the
    stroke before it, and the replay shows the canvas the undo logged."""
    folder = write_logs(tmp_path / "logs")
    log = folder / f"{FOLLOWER}.jsonl"
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    touch_up = _row("f5b", FOLLOWER, 29, "map_draw_stop", "brush_release", _cells(*ROUTE_ALL))
    touch_up["metadata"]["route_pixel_ratio"] = 0.0212
    rows.insert(next(k for k, r in enumerate(rows) if r["action_id"] == _action_id("f6")), touch_up)
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    payload_path = folder / f"post_annotations_{FOLLOWER}.json"
    payload = json.loads(payload_path.read_text(encoding="utf-8"))
    payload[_action_id("f5b")] = _answer("t3", "p2", "r5", "yes", why="tidying the corner")
    payload_path.write_text(json.dumps(payload), encoding="utf-8")
    report = Report()
    dest = run_import("platform", folder, tmp_path / "ds", report=report)
    corpus = load_dir(dest)
    (s,) = corpus.sessions.values()
    (flagged,) = [a for a in s.actions if a.no_cell_change is not None]
    assert (flagged.type, flagged.no_cell_change, flagged.content) == ("draw", "changed_no_cell", None)
    assert flagged.mental_model.rationale == "tidying the corner" and flagged.route_pixel_ratio == 0.0212
    undo = next(a for a in s.actions if a.type == "undo")
    assert undo.no_cell_change is None and undo.index == flagged.index + 1
    history = corpus.history(s.id)
    after_undo = {tuple(c) for c in history.cells(undo.index).tolist()}
    assert after_undo == {tuple(map(int, c.split(","))) for c in ROUTE_DOWN}  # what the undo row logged
    said = [(i.field, i.message) for i in report.warnings if i.record == "-"]
    assert said == [
        (
            "action_content",
            "1 stroke changed no grid cell: imported as draw or erase actions with no cell change "
            "(no_cell_change 'changed_no_cell'), their annotations kept",
        ),
        ("(annotations)", "8 annotations in the source, 8 imported (1 of them on actions with no cell change)"),
    ]


def test_an_annotation_on_a_tool_selection_is_named_and_counted(tmp_path):
    folder = write_logs(tmp_path / "logs")
    payload_path = folder / f"post_annotations_{FOLLOWER}.json"
    payload = json.loads(payload_path.read_text(encoding="utf-8"))
    payload[_action_id("f2")] = _answer("t3", "p1", "r1", "yes", why="picked the brush")
    payload_path.write_text(json.dumps(payload), encoding="utf-8")
    result = import_source("platform", folder)
    assert result.report.ok
    (named,) = [i for i in result.report.warnings if i.field == "action_id"]
    assert (named.file, named.record) == (payload_path.name, f"action {_action_id('f2')}")
    assert named.message.startswith("the action is a tool selection (the brush or the eraser chosen)")
    (counted,) = [i for i in result.report.warnings if i.field == "(annotations)"]
    assert counted.message == (
        "8 annotations in the source, 7 imported; not imported: 1 on tool selections (not edits of the canvas), "
        "each named above"
    )


def test_a_route_pixel_ratio_that_is_not_a_share_is_an_error_naming_the_row(tmp_path):
    folder = export_files(tmp_path / "export")

    def edited(obj):
        obj["human_actions_all"][4]["metadata"]["route_pixel_ratio"] = 12

    _edit_bundle(folder, edited)
    with pytest.raises(DatasetError) as exc:
        run_import("platform", folder, tmp_path / "ds")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field) == (BUNDLE, "human_actions_all[4]", "metadata.route_pixel_ratio")
    assert issue.message == "expected the share of the canvas the drawing covers, a number from 0 to 1, got 12"
