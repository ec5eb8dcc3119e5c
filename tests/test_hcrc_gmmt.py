"""HCRC Map Task as distributed (the archive's moves/ and transcripts/ folders), the eye-contact
condition from the dialogue id, and GMMT's landmark reference expressions as the ``gmmt`` scheme:
its labels, the expressions' details (labels/gmmt_expressions.jsonl), the Replay panel and the
label source of the analysis pages.

The real samples (HCRC q1ec1, CC BY-NC-SA; GMMT q1ec1, CC BY 4.0) are read from
../shared/real_data through tests/real_data.py and copied into tmp_path only; every other fixture
is built here in the exact shapes of the two releases."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_run import run_cli
from real_data import HCRC, REAL, absent, needs_hcrc
from streamlit.testing.v1 import AppTest

from analysis import alignment
from analysis.label_sources import mental_model_labels, mental_model_sources, with_mental_models
from analysis.progress import COLUMNS, progress_table
from components.replay.expressions import expression_text, session_expressions
from corpus import schema
from corpus.escape import md_text
from corpus.importers import import_source, run_import
from corpus.importers.gmmt import words_of
from corpus.importers.hcrc import condition_of
from corpus.loading.catalog import key_of
from corpus.loading.dataset import load_dir
from corpus.loading.validate import DatasetError, read_dataset

GMMT = REAL / "gmmt_sample"
needs_gmmt = pytest.mark.skipif(not GMMT.is_dir(), reason=absent(GMMT, "GMMT sample"))

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
NS = 'xmlns:nite="http://nite.sourceforge.net/"'


# ---------------------------------------------------------------------------------------------
# Fixtures in the exact shapes of the releases
# ---------------------------------------------------------------------------------------------


def archive(tmp_path: Path, transcript: bool = True) -> Path:
    """The real q1ec1 laid out as the HCRC archive is distributed: maptask_archive/moves/ and
    maptask_archive/transcripts/q1ec1.txt (the NXT query transcript under the dialogue's id)."""
    top = tmp_path / "src"
    (top / "maptask_archive" / "moves").mkdir(parents=True)
    (top / "maptask_archive" / "transcripts").mkdir()
    for side in ("g", "f"):
        shutil.copy(HCRC / f"q1ec1.{side}.moves.xml", top / "maptask_archive" / "moves" / f"q1ec1.{side}.moves.xml")
    if transcript:
        shutil.copy(HCRC / "q1ec1.nxt_query_transcript.txt", top / "maptask_archive" / "transcripts" / "q1ec1.txt")
    return top


def pipe(folder: Path, dialogue: str, lines: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{dialogue}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def gmmt_files(folder: Path, dialogue: str, refs: list[dict]) -> None:
    """``<dialogue>.annotated.json`` and ``<dialogue>.reference_expressions.json`` as GMMT releases
    them. ``refs``: speaker (giver/follower), expression, utt, status, subtype, giver, follower,
    reason, start."""
    folder.mkdir(parents=True, exist_ok=True)
    annotated, timed = [], []
    for k, r in enumerate(refs):
        ref_id = f"{dialogue}.ref.{k}"
        addressee = "follower" if r["speaker"] == "giver" else "giver"
        grounded = r["status"] != "pending"
        annotated.append(
            {
                "ref_id_unif": ref_id,
                "is_quantificational": False,
                "is_specified": True,
                "interpretations": {
                    "is_accommodated": True,
                    "is_grounded": grounded,
                    "is_imagined": False if grounded else None,
                    "giver": r["giver"],
                    "follower": r["follower"],
                },
                "reason": r.get("reason", "F acknowledges the landmark."),
                "extra": {"status": r["status"], "subtype": r["subtype"]},
                "info": {
                    "concept_id": r["giver"].split("@")[0].split("#")[0],
                    "speaker": r["speaker"],
                    "addressee": addressee,
                    "expression": r["expression"],
                    "utt_id": r["utt"],
                },
            }
        )
        timed.append(
            {
                "ref_id_orig": f"{dialogue}.{r['speaker'][0]}.ref.{k + 1}",
                "ref_id_unif": ref_id,
                "utt_id": r["utt"],
                "start_time": r["start"],
                "end_time": r["start"] + 0.5,
                "speaker": r["speaker"],
                "addressee": addressee,
                "reference expression": r["expression"],
                "lm_id_orig": r["giver"].split("@")[0].split("#")[0],
                "timed_unit_ids": [f"{dialogue}.tu.{3 * k}", f"{dialogue}.tu.{3 * k + 1}"],
            }
        )
    doc = {"dialogue_id": dialogue, "landmark_reference_expressions": annotated}
    (folder / f"{dialogue}.annotated.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    doc = {"dialogue_id": dialogue, "landmark_reference_expressions": timed}
    (folder / f"{dialogue}.reference_expressions.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")


def _ref(speaker, expression, utt, status, start, giver, follower=None, subtype=None, **kw):
    follower = follower if follower is not None else ("" if status == "pending" else giver.replace("@g", "@f"))
    subtype = subtype or {"aligned": "grounded", "pending": "ungrounded", "misunderstood": "misunderstood"}[status]
    return {
        "speaker": speaker,
        "expression": expression,
        "utt": utt,
        "status": status,
        "start": start,
        "giver": giver,
        "follower": follower,
        "subtype": subtype,
        **kw,
    }


HOSTILE_REASON = "G says [click](http://evil.example) *now* <b>bold</b> $x$"

# Two dialogues, one with eye contact, one without; the states by action (hand-checked below):
# q1ec1 (eye contact): action 1 aligned, action 3 misunderstood (and aligned), action 4 aligned.
# q3nc1 (no eye contact): action 0 pending, action 2 aligned, action 4 misunderstood (and aligned).
Q1EC1 = [
    "g|okay|ready",
    "g|start above the caravan park|instruct",
    "f|mmhmm|acknowledge",
    "g|go round the old mill and then past it|instruct",
    "f|past the mill okay|check",
]
Q3NC1 = [
    "g|we start at the stone creek|instruct",
    "f|okay|acknowledge",
    "g|pass the white water on its left|instruct",
    "f|right|acknowledge",
    "g|and that's the finish by the white water|instruct",
]
Q1EC1_REFS = [
    _ref("giver", "the caravan park", 1, "aligned", 2.0, "m12_caravan_park@g"),
    _ref("giver", "the old mill", 3, "misunderstood", 9.0, "m12_old_mill@g", "m12_mill_wheel@f", reason=HOSTILE_REASON),
    _ref("giver", "it", 3, "aligned", 10.5, "m12_old_mill@g"),
    _ref("follower", "the mill", 4, "aligned", 12.0, "m12_old_mill@g"),
    _ref("giver", "the windmill", 5, "aligned", 14.0, "m12_windmill@g"),  # not said: left out
]
Q3NC1_REFS = [
    _ref("giver", "the stone creek", 0, "pending", 1.0, "m2_stone_creek#1@g"),
    _ref("giver", "the white water", 2, "aligned", 5.0, "m2_white_water@g", "m2_rapids@f"),
    _ref("giver", "the finish", 4, "misunderstood", 11.0, "m2_finish@g", "m2_start@f"),
    _ref("giver", "the white water", 4, "aligned", 12.0, "m2_white_water@g", "m2_rapids@f"),
]


def two_dialogues(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    pipe(src, "q1ec1", Q1EC1)
    pipe(src, "q3nc1", Q3NC1)
    gmmt_files(src / "gmmt", "q1ec1", Q1EC1_REFS)
    gmmt_files(src / "gmmt", "q3nc1", Q3NC1_REFS)
    return src


@pytest.fixture()
def built(tmp_path) -> Path:
    """The two built dialogues imported with their GMMT annotations."""
    return run_import("hcrc", two_dialogues(tmp_path), tmp_path / "datasets" / "hcrc")


# ---------------------------------------------------------------------------------------------
# HCRC as distributed
# ---------------------------------------------------------------------------------------------


@needs_hcrc
def test_the_archive_layout_imports_with_the_transcript_found_by_dialogue_id(tmp_path):
    top = archive(tmp_path)
    pipe_import = import_source("hcrc", HCRC / "q1ec1.pipe.txt")
    for src in (top, top / "maptask_archive"):
        r = import_source("hcrc", src)
        assert r.report.ok and not r.report.issues, r.report.format()
        (s,) = r.sessions
        assert s.id == "q1ec1" and len(s.actions) == 77
        assert [lab["code"] for lab in r.labels] == [lab["code"] for lab in pipe_import.labels]
        assert [a.role for a in s.actions] == [a.role for a in pipe_import.sessions[0].actions]
    # One file of the dialogue is enough: its moves and transcript are found in the sibling folders.
    for one in ("moves/q1ec1.g.moves.xml", "transcripts/q1ec1.txt"):
        r = import_source("hcrc", top / "maptask_archive" / one)
        assert r.report.ok and [s.id for s in r.sessions] == ["q1ec1"], r.report.format()
    dest = run_import("hcrc", top, tmp_path / "ds")
    corpus = load_dir(dest)
    assert corpus.session("q1ec1").condition == "eye_contact"
    assert corpus.info.conditions == ["no_eye_contact", "eye_contact"]


@needs_hcrc
def test_moves_without_words_name_what_was_found_and_what_was_expected(tmp_path):
    top = archive(tmp_path, transcript=False)
    r = import_source("hcrc", top)
    (issue,) = r.report.errors
    assert issue.file == "maptask_archive/moves/q1ec1.g.moves.xml" and issue.record == "dialogue q1ec1"
    assert issue.message == (
        "moves of q1ec1 found (maptask_archive/moves/q1ec1.g.moves.xml, maptask_archive/moves/q1ec1.f.moves.xml) "
        "but no words: expected maptask_archive/transcripts/q1ec1.txt (an NXT query transcript) or "
        "q1ec1.g.timed-units.xml and q1ec1.f.timed-units.xml"
    )
    # One speaker's moves only: the other is named as expected, beside the one found.
    (top / "maptask_archive" / "moves" / "q1ec1.f.moves.xml").unlink()
    (issue,) = import_source("hcrc", top).report.errors
    assert issue.file == "maptask_archive/moves/q1ec1.f.moves.xml"
    assert "found maptask_archive/moves/q1ec1.g.moves.xml; expected maptask_archive/moves/q1ec1.f.moves.xml" in (
        issue.message
    )


@needs_hcrc
def test_a_transcript_is_told_by_its_content_not_its_name(tmp_path):
    top = archive(tmp_path)
    # The query transcript under any name is found by content; a pipe transcript named like a
    # transcript is still a pipe transcript.
    moved = top / "maptask_archive" / "transcripts" / "q1ec1.txt"
    moved.rename(top / "maptask_archive" / "moves" / "q1ec1.words.txt")
    r = import_source("hcrc", top)
    assert r.report.ok and len(r.sessions[0].actions) == 77, r.report.format()
    pipe(tmp_path / "p", "d1.transcript", ["g|go left|instruct", "f|okay|acknowledge"])
    r = import_source("hcrc", tmp_path / "p")
    assert r.report.ok and [a.content for a in r.sessions[0].actions] == ["go left", "okay"]


def test_a_file_named_as_a_transcript_that_is_not_one_says_what_it_holds(tmp_path):
    moves = tmp_path / "maptask_archive" / "moves"
    moves.mkdir(parents=True)
    for side, label in (("g", "instruct"), ("f", "acknowledge")):
        (moves / f"q3nc1.{side}.moves.xml").write_text(
            f'<nite:root {NS}><move id="q3nc1.{side}.move.1" label="{label}">'
            f'<nite:child href="q3nc1.{side}.timed-units.xml#id(q3nc1{side}.1)"/></move></nite:root>'
        )
    (tmp_path / "maptask_archive" / "transcripts").mkdir()
    (tmp_path / "maptask_archive" / "transcripts" / "q3nc1.txt").write_text("g go left\nf okay\n")
    (issue,) = import_source("hcrc", tmp_path).report.errors
    assert (issue.file, issue.field) == ("maptask_archive/transcripts/q3nc1.txt", "(file)")
    assert issue.message.startswith("not an NXT query transcript: found 'g go left' first")
    assert "expected lines such as 'Found 2 args.'" in issue.message
    # In the NXT query shape it imports.
    (tmp_path / "maptask_archive" / "transcripts" / "q3nc1.txt").write_text(
        "Found 2 args.\nObservation: q3nc1; Result size: 2; atts: 2\nwho\t$m\t\ng\tgo left \t\nf\tokay \t\n"
    )
    r = import_source("hcrc", tmp_path)
    assert r.report.ok, r.report.format()
    assert [(a.role, a.content) for a in r.sessions[0].actions] == [("guide", "go left"), ("follower", "okay")]
    assert r.sessions[0].condition == "no_eye_contact"


def test_a_folder_without_dialogues_says_what_it_looked_at(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing here\n")
    gmmt_files(tmp_path, "q1ec1", Q1EC1_REFS[:1])
    (issue,) = import_source("hcrc", tmp_path).report.errors
    assert issue.message.startswith("no HCRC dialogues found: looked at 3 file(s) (2 GMMT file(s)); expected ")


# ---------------------------------------------------------------------------------------------
# The condition
# ---------------------------------------------------------------------------------------------


def test_the_condition_is_read_from_the_dialogue_id():
    assert condition_of("q1ec1") == "eye_contact"
    assert condition_of("q3nc1") == "no_eye_contact"
    assert condition_of("Q8NC12") == "no_eye_contact"
    assert condition_of("d1") == condition_of("q1xc1") == condition_of("q1ec") == schema.NOT_RECORDED


def test_two_dialogues_give_the_eye_contact_design(tmp_path):
    src = tmp_path / "src"
    pipe(src, "q1ec1", Q1EC1)
    pipe(src, "q3nc1", Q3NC1)
    corpus = load_dir(run_import("hcrc", src, tmp_path / "ds"))
    assert {s.id: s.condition for s in corpus.sessions.values()} == {
        "q1ec1": "eye_contact",
        "q3nc1": "no_eye_contact",
    }
    assert corpus.info.conditions == ["no_eye_contact", "eye_contact"] == list(schema.EYE_CONTACT)
    assert corpus.design == schema.EYE_CONTACT
    # The option still overrides, and the dataset then names the design of the condition given.
    corpus = load_dir(run_import("hcrc", src, tmp_path / "ds2", condition="not_visible"))
    assert {s.condition for s in corpus.sessions.values()} == {"not_visible"}
    assert corpus.info.conditions == list(schema.CANVAS)
    # An id that records no condition says so.
    pipe(tmp_path / "d", "d1", ["g|go|instruct"])
    corpus = load_dir(run_import("hcrc", tmp_path / "d", tmp_path / "ds3"))
    assert corpus.session("d1").condition == schema.NOT_RECORDED
    assert corpus.info.conditions == list(schema.EYE_CONTACT)


# ---------------------------------------------------------------------------------------------
# GMMT: the scheme and the details
# ---------------------------------------------------------------------------------------------


@needs_hcrc
@needs_gmmt
def test_gmmt_on_the_real_sample_places_every_expression_in_the_move_that_says_it(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for name in ("q1ec1.pipe.txt", "q1ec1.g.moves.xml", "q1ec1.f.moves.xml", "q1ec1.nxt_query_transcript.txt"):
        shutil.copy(HCRC / name, src / name)
    for path in GMMT.iterdir():
        shutil.copy(path, src / path.name)
    report_dest = run_import("hcrc", src, tmp_path / "ds")
    corpus = load_dir(report_dest)
    s = corpus.session("q1ec1")
    assert s.map_id == "hcrc-m12"  # from GMMT's dialogue_map_images.csv
    refs = json.loads((GMMT / "q1ec1.reference_expressions.json").read_text())["landmark_reference_expressions"]
    notes = json.loads((GMMT / "q1ec1.annotated.json").read_text())["landmark_reference_expressions"]
    ex = corpus.expressions
    assert len(ex) == len(refs) == len(notes) == 28
    assert ex["ref_id"].tolist() == [r["ref_id_unif"] for r in refs]
    # The rule, checked: every expression's words are in the message of the action it is placed at,
    # said by its speaker, and the speaker's expressions come in the order said.
    for row in ex.itertuples():
        action = s.actions[row.action_index]
        text = " ".join(words_of(action.text))
        assert f" {' '.join(words_of(row.expression))} " in f" {text} ", (row.ref_id, action.text)
        assert action.role == row.speaker
    for role in ("guide", "follower"):
        mine = ex[ex["speaker"] == role]["action_index"].tolist()
        assert mine == sorted(mine)
    at = dict(zip(ex["ref_id"], ex["action_index"]))
    assert at["q1ec1.ref.0"] == 1  # "starting off we are above a caravan park"
    # Utterance 13: "a fenced meadow" ends one move, "that" is in the next ("avoiding that").
    assert (at["q1ec1.ref.4"], at["q1ec1.ref.5"]) == (18, 19)
    # Utterance 27 ("that", "it", "a fenced meadow", "that"): the stretch that ends first and is
    # shortest, not the "that" of the move before it ("in that sort of s shape").
    assert [at[f"q1ec1.ref.{k}"] for k in (8, 9, 10, 11)] == [33, 33, 33, 34]
    assert at["q1ec1.ref.21"] == 64  # the follower's "the monument"
    # The details of one expression, as GMMT gives them.
    row = ex[ex["ref_id"] == "q1ec1.ref.22"].iloc[0]
    assert (row["expression"], row["giver_landmark"], row["follower_landmark"]) == (
        "a nuclear test site",
        "m12_nuclear_test_site@g",
        "m12_golf_course@f",
    )
    assert (row["status"], row["subtype"], row["coder"], row["utt_id"]) == (
        "misunderstood",
        "misunderstood",
        "gmmt",
        55,
    )
    assert row["start_s"] == 238.4778 and row["reason"] == notes[22]["reason"]
    # The scheme: one label per action holding expressions, the most severe of their states.
    labels = corpus.coded("gmmt")
    assert set(labels["coder"]) == {"gmmt"} and set(labels["coder_kind"]) == {schema.MODEL}
    by_action = dict(zip(labels["action_index"], labels["code"]))
    assert sorted(by_action) == sorted(set(ex["action_index"]))
    for index, rows in ex.groupby("action_index"):
        worst = next(c for c in schema.GMMT_SEVERITY if c in set(rows["status"]))
        assert by_action[index] == worst
    assert by_action[69] == "misunderstood"  # a nuclear test site, that
    assert by_action[71] == "misunderstood"  # "that there's" (misunderstood), "an east lake" (aligned)
    assert by_action[74] == "pending"  # "that's" (aligned), "the finish" (pending)
    assert labels["code"].value_counts().to_dict() == {"aligned": 12, "pending": 6, "misunderstood": 2}


@needs_hcrc
@needs_gmmt
def test_gmmt_given_as_an_option_and_on_the_command_line(tmp_path):
    top = archive(tmp_path)
    r = import_source("hcrc", top, gmmt=GMMT)
    assert r.report.ok and not r.report.issues, r.report.format()
    assert len(r.expressions) == 28 and {lab["scheme"] for lab in r.labels} == {"hcrc_moves", "gmmt"}
    assert r.sessions[0].map_id == "hcrc-m12"
    ok = run_cli("import", "--from", "hcrc", "--gmmt", str(GMMT), str(top), str(tmp_path / "ds"))
    assert ok.returncode == 0, ok.stderr
    corpus = load_dir(tmp_path / "ds")
    assert len(corpus.expressions) == 28 and len(corpus.coded("gmmt")) == 20
    # The NXT transcript and the speaker|text|move transcript place the expressions alike.
    pipe_src = tmp_path / "pipe"
    pipe_src.mkdir()
    shutil.copy(HCRC / "q1ec1.pipe.txt", pipe_src / "q1ec1.txt")
    r2 = import_source("hcrc", pipe_src, gmmt=GMMT / "q1ec1.annotated.json")
    assert [e["action_index"] for e in r2.expressions] == [e["action_index"] for e in r.expressions]
    bad = run_cli("import", "--from", "hcrc", "--gmmt", str(tmp_path / "nowhere"), str(top), str(tmp_path / "ds2"))
    assert bad.returncode == 1 and "gmmt" in bad.stderr and "not found" in bad.stderr


def test_gmmt_labels_and_details_on_a_built_fixture(built):
    corpus = load_dir(built)
    labels = corpus.coded("gmmt")
    got = {(r.session_id, r.action_index): r.code for r in labels.itertuples()}
    assert got == {
        ("q1ec1", 1): "aligned",
        ("q1ec1", 3): "misunderstood",
        ("q1ec1", 4): "aligned",
        ("q3nc1", 0): "pending",
        ("q3nc1", 2): "aligned",
        ("q3nc1", 4): "misunderstood",
    }
    ex = corpus.expressions
    assert len(ex) == 8  # "the windmill" is not said: left out
    row = ex[(ex["session_id"] == "q1ec1") & (ex["expression"] == "the old mill")].iloc[0]
    assert row.to_dict() == {
        "session_id": "q1ec1",
        "action_index": 3,
        "coder": "gmmt",
        "ref_id": "q1ec1.ref.1",
        "expression": "the old mill",
        "speaker": "guide",
        "giver_landmark": "m12_old_mill@g",
        "follower_landmark": "m12_mill_wheel@f",
        "status": "misunderstood",
        "subtype": "misunderstood",
        "reason": HOSTILE_REASON,
        "utt_id": 3,
        "start_s": 9.0,
        "end_s": 9.5,
    }
    follower = ex[ex["speaker"] == "follower"]
    assert follower[["action_index", "expression"]].values.tolist() == [[4, "the mill"]]
    # The same words said twice in one session: each expression in its own move.
    white = ex[(ex["session_id"] == "q3nc1") & (ex["expression"] == "the white water")]
    assert white["action_index"].tolist() == [2, 4]
    assert "GMMT landmark reference expressions: 4 in labels/gmmt_expressions.jsonl" in corpus.session("q1ec1").notes
    lines = (built / "labels" / "gmmt_expressions.jsonl").read_text().splitlines()
    assert len(lines) == 8 and json.loads(lines[0])["ref_id"] == "q1ec1.ref.0"


def test_an_expression_not_found_is_a_warning_naming_file_ref_and_field(tmp_path):
    r = import_source("hcrc", two_dialogues(tmp_path))
    assert r.report.ok
    (warning,) = r.report.warnings
    assert (warning.file, warning.record, warning.field) == (
        "gmmt/q1ec1.annotated.json",
        "ref q1ec1.ref.4",
        "info.expression",
    )
    assert warning.message.startswith(
        "'the windmill' (utterance 5) was not found in the giver's moves of dialogue q1ec1"
    )


def test_gmmt_files_with_errors_name_file_record_and_field(tmp_path):
    src = tmp_path / "src"
    pipe(src, "q1ec1", Q1EC1)
    gmmt_files(src, "q1ec1", Q1EC1_REFS[:3])
    doc = json.loads((src / "q1ec1.annotated.json").read_text())
    items = doc["landmark_reference_expressions"]
    items[0]["extra"]["status"] = "confused"
    items[1]["info"]["speaker"] = "narrator"
    items[2]["info"]["utt_id"] = "3"
    (src / "q1ec1.annotated.json").write_text(json.dumps(doc))
    timed = json.loads((src / "q1ec1.reference_expressions.json").read_text())
    timed["landmark_reference_expressions"][0]["start_time"] = -1
    (src / "q1ec1.reference_expressions.json").write_text(json.dumps(timed))
    with pytest.raises(DatasetError) as exc:
        run_import("hcrc", src, tmp_path / "out")
    got = [(i.file, i.record, i.field) for i in exc.value.report.errors]
    assert got == [
        ("q1ec1.reference_expressions.json", "ref q1ec1.ref.0", "start_time"),
        ("q1ec1.annotated.json", "ref q1ec1.ref.0", "extra.status"),
        ("q1ec1.annotated.json", "ref q1ec1.ref.1", "info.speaker"),
        ("q1ec1.annotated.json", "ref q1ec1.ref.2", "info.utt_id"),
    ]
    assert "unknown status 'confused' (expected one of aligned, pending, misunderstood)" in (
        exc.value.report.errors[1].message
    )
    assert not (tmp_path / "out").exists()
    # A file naming another dialogue than its name says.
    doc = json.loads((src / "q1ec1.annotated.json").read_text())
    doc["dialogue_id"] = "q2ec1"
    (src / "q1ec1.annotated.json").write_text(json.dumps(doc))
    r = import_source("hcrc", src)
    assert ("q1ec1.annotated.json", "dialogue_id") in [(i.file, i.field) for i in r.report.errors]


def test_the_human_verified_subset_is_a_coder_of_its_own(tmp_path):
    src = tmp_path / "src"
    pipe(src, "q1ec1", Q1EC1)
    gmmt_files(src / "annotations" / "dialogues", "q1ec1", Q1EC1_REFS[:2])
    verified = [dict(r) for r in Q1EC1_REFS[:2]]
    verified[1] = {**verified[1], "status": "aligned", "subtype": "grounded", "follower": "m12_old_mill@f"}
    gmmt_files(src / "annotations" / "human_verified_subset", "q1ec1", verified)
    corpus = load_dir(run_import("hcrc", src, tmp_path / "ds"))
    labels = corpus.coded("gmmt")
    kinds = dict(zip(labels["coder"], labels["coder_kind"]))
    assert kinds == {"gmmt": schema.MODEL, "gmmt_verified": schema.HUMAN}
    codes = {(r.coder, r.action_index): r.code for r in labels.itertuples()}
    assert codes[("gmmt", 3)] == "misunderstood" and codes[("gmmt_verified", 3)] == "aligned"
    assert set(mental_model_sources(corpus)) == {"participants", "gmmt:gmmt", "gmmt:gmmt_verified"}


# ---------------------------------------------------------------------------------------------
# The details file in the dataset format
# ---------------------------------------------------------------------------------------------


def test_the_details_file_is_validated_line_by_line(built):
    path = built / "labels" / "gmmt_expressions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0]["speaker"] = "follower"  # action 1 of q1ec1 is the guide's
    rows[1]["action_index"] = 99
    rows[2]["status"] = "confused"
    rows[3]["colour"] = "red"
    rows[4] = dict(rows[5])  # the same reference twice
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (built / "labels" / "notes.jsonl").write_text("{}\n")
    _, report = read_dataset(built)
    got = {(i.file, i.record, i.field) for i in report.errors}
    assert got == {
        ("labels/gmmt_expressions.jsonl", "line 1", "speaker"),
        ("labels/gmmt_expressions.jsonl", "line 2", "action_index"),
        ("labels/gmmt_expressions.jsonl", "line 3", "status"),
        ("labels/gmmt_expressions.jsonl", "line 4", "colour"),
        ("labels/gmmt_expressions.jsonl", "line 6", "ref_id"),
        ("labels/notes.jsonl", "-", "(file)"),
    }
    by_line = {i.record: i.message for i in report.errors if i.file.endswith("gmmt_expressions.jsonl")}
    assert "said by the follower, but action 1 of session 'q1ec1' is the guide's" in by_line["line 1"]
    assert "has no action 99" in by_line["line 2"]


# ---------------------------------------------------------------------------------------------
# Replay
# ---------------------------------------------------------------------------------------------


def test_the_panel_text_for_an_action_with_and_without_expressions(built):
    corpus = load_dir(built)
    ex = session_expressions(corpus, "q1ec1")
    text = expression_text(ex, 3)
    assert text.startswith(
        "**Landmark reference expressions in action 3** (GMMT, coder gmmt; said by the Guide (giver)): "
        "2 expressions, the action's state **misunderstood** (the most severe)"
    )
    assert f"\u201cthe old mill\u201d: **misunderstood** · Giver's landmark {md_text('m12_old_mill@g')}" in text
    assert f"Follower's landmark {md_text('m12_mill_wheel@f')}" in text
    assert f"Reason: {md_text(HOSTILE_REASON)}" in text and "[click](http" not in text
    assert "\u201cit\u201d: **aligned** (grounded)" in text
    assert expression_text(ex, 2) == (
        "**Landmark reference expressions (GMMT)**: none in action 2 (the next in action 3; the last before in action 1)."
    )
    pending = expression_text(session_expressions(corpus, "q3nc1"), 0)
    assert (
        "**pending** (ungrounded) · Giver's landmark" in pending
        and "Follower's landmark none (not grounded)" in pending
    )
    assert expression_text(session_expressions(corpus, "nope"), 0) is None


def _open(tmp_path, monkeypatch, page: str, dataset: Path, query: dict | None = None) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(dataset.parent))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = key_of(dataset)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _panel(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown if "Landmark reference expressions" in m.value]


def test_replay_shows_the_expressions_of_the_current_action(built, tmp_path, monkeypatch):
    at = _open(tmp_path, monkeypatch, "pages/replay.py", built, {"session": "q1ec1", "step": "3"})
    (panel,) = _panel(at)
    assert panel == expression_text(session_expressions(load_dir(built), "q1ec1"), 3)
    assert md_text(HOSTILE_REASON) in panel
    # The player reports another position: the panel follows it.
    (element,) = [e for e in at.get("bidi_component") if e.proto.component_name == "groundwork_replay_player"]
    key = element.proto.id.rsplit("-", 1)[-1]
    at.session_state[key] = {"position": {"step": 4, "view": "guide", "route": False}}
    at.run()
    (panel,) = _panel(at)
    assert panel.startswith("**Landmark reference expressions in action 4** (GMMT, coder gmmt; said by the Follower)")
    assert "\u201cthe mill\u201d: **aligned**" in panel


def test_replay_of_a_dataset_without_expressions_shows_no_panel(tmp_path, monkeypatch):
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page("pages/replay.py").run()
    assert not at.exception and not _panel(at)


# ---------------------------------------------------------------------------------------------
# The label source of the analysis pages
# ---------------------------------------------------------------------------------------------


def test_gmmt_as_a_label_source_gives_the_hand_checked_shares(built):
    corpus = load_dir(built)
    assert mental_model_sources(corpus) == {
        "participants": "The participants' own annotations",
        "gmmt:gmmt": "GMMT reference expressions: gmmt (model), aligned = grounded",
    }
    labels = mental_model_labels(corpus, "gmmt:gmmt")
    assert "on 6 actions of 2 sessions (3 aligned, 1 pending, 2 misunderstood;" in labels.description
    base = corpus.actions_df.merge(progress_table(corpus), on=["session_id", "index"], how="left")
    df = with_mental_models(base, labels)
    assert len(df) == 6
    curves = alignment.progress_curves(df, COLUMNS["index"], bins=2)
    got = {(r.condition, r.bin): (r.k, r.n) for r in curves.itertuples()}
    # Action position: 0, .25, .5, .75, 1 in each five-move session; two bins, [0, .5] and (.5, 1].
    # q1ec1: action 1 aligned | actions 3 misunderstood, 4 aligned.
    # q3nc1: actions 0 pending, 2 aligned | action 4 misunderstood.
    assert got == {
        ("eye_contact", 0): (1, 1),
        ("eye_contact", 1): (1, 2),
        ("no_eye_contact", 0): (1, 2),
        ("no_eye_contact", 1): (0, 1),
    }
    assert set(curves["measure"]) == {"aligned"}  # GMMT has no team goal, partner intent or self-reasoning


def test_a_dataset_without_the_scheme_does_not_offer_it(tmp_path):
    src = tmp_path / "src"
    pipe(src, "q1ec1", Q1EC1)
    corpus = load_dir(run_import("hcrc", src, tmp_path / "ds"))
    assert list(mental_model_sources(corpus)) == ["participants"]


def test_the_alignment_page_charts_gmmt_by_condition(built, tmp_path, monkeypatch):
    from services import alignment as svc

    at = _open(tmp_path, monkeypatch, "pages/alignment.py", built)
    picker = at.selectbox(key="an_mm")
    assert picker.options == [
        "The participants' own annotations",
        "GMMT reference expressions: gmmt (model), aligned = grounded",
    ]
    picker.set_value("gmmt:gmmt").run()
    assert not at.exception, [e.value for e in at.exception]
    captions = "\n".join(c.value for c in at.caption)
    assert (
        "GMMT's understanding state of the landmark reference expressions (coder gmmt, model) on 6 actions" in captions
    )
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = {t.get("name") for t in spec["data"] if t.get("name") and t.get("legendgroup") != "interval"}
    assert names == {"eye contact", "no eye contact"}
    # The same numbers through the page's cached computation, keyed by the source.
    scope = svc.Scope(load_dir(built), mm="gmmt:gmmt")
    curves = svc.progress_curves(scope, "index", 2)
    assert curves[["condition", "bin", "k", "n"]].values.tolist() == [
        ["eye_contact", 0, 1, 1],
        ["eye_contact", 1, 1, 2],
        ["no_eye_contact", 0, 1, 2],
        ["no_eye_contact", 1, 0, 1],
    ]
    assert scope.key() != svc.Scope(scope.corpus).key()
    for page in ("pages/outcomes.py", "pages/misalignment.py"):
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
