"""HCRC Map Task as its releases distribute it: the NXT timed units with silences and noises
where moves start and end, the corpus's split lists (train/val/test), its sets of dialogues in one
file (refused), and the route deviation per dialogue as a session outcome on the Outcomes page.

The real q1ec1 moves and transcript (CC BY-NC-SA) are read from ../shared/real_data and copied
into tmp_path only; every other file is built by tests/hcrc_release.py in the shape of the released
one it names, with made-up words and numbers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hcrc_release import (
    Q1EC1_NON_WORD_ENDS,
    made_up_lines,
    q1ec1_rows,
    write_deviation,
    write_pipe,
    write_q1ec1_timed_units,
    write_split_list,
)
from real_data import HCRC, REAL, absent, needs_hcrc
from scipy import stats
from streamlit.testing.v1 import AppTest

from analysis.format import fmt_mean_sd
from corpus import schema
from corpus.importers import import_source, run_import
from corpus.importers.gmmt import words_of
from corpus.importers.hcrc import normalise_move
from corpus.loading.catalog import key_of
from corpus.loading.dataset import load_dir
from corpus.loading.validate import DatasetError

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
NS = 'xmlns:nite="http://nite.sourceforge.net/"'

needs_val = pytest.mark.skipif(
    "val" not in schema.SPLITS,
    reason="the val split is not in corpus.schema.SPLITS yet (the splits change of issue 49 adds it)",
)
GMMT_SAMPLE = REAL / "gmmt_sample"
needs_gmmt = pytest.mark.skipif(not GMMT_SAMPLE.is_dir(), reason=absent(GMMT_SAMPLE, "GMMT sample"))


def _archive(tmp_path: Path, transcript: bool = True) -> tuple[Path, dict[str, str]]:
    """The real q1ec1 moves (and its query transcript) with timed units of the release's shape
    beside them; move id -> its words."""
    src = tmp_path / "src"
    src.mkdir()
    for side in ("g", "f"):
        shutil.copy(HCRC / f"q1ec1.{side}.moves.xml", src / f"q1ec1.{side}.moves.xml")
    if transcript:
        shutil.copy(HCRC / "q1ec1.nxt_query_transcript.txt", src / "q1ec1.nxt_query_transcript.txt")
    return src, write_q1ec1_timed_units(src)


# ---------------------------------------------------------------------------------------------
# Timed units with silences and noises
# ---------------------------------------------------------------------------------------------


@needs_hcrc
def test_q1ec1_with_timed_units_of_the_release_s_shape_imports_every_move(tmp_path):
    """Moves that start or end on a noise (15 of q1ec1's 77 in the release) are imported: the text
    holds the words and the marks of the silences and noises, in file order; the words alone are
    the transcript's; the moves, speakers and labels are those of the speaker|text|move file."""
    src, words = _archive(tmp_path)
    result = import_source("hcrc", src)
    assert result.report.ok, result.report.format()
    (s,) = result.sessions
    assert len(s.actions) == 77
    pipe = [line.split("|") for line in (HCRC / "q1ec1.pipe.txt").read_text(encoding="utf-8").splitlines() if line]
    assert [a.role for a in s.actions] == [{"g": "guide", "f": "follower"}[p[0]] for p in pipe]
    assert [lab["code"] for lab in result.labels if lab["scheme"] == "hcrc_moves"] == [
        normalise_move(p[2]) for p in pipe
    ]
    # Words alone (the marks taken out) are the transcript's, move by move, in dialogue order.
    spoken = [" ".join(w for w in a.content.split() if not w.startswith("(")) for a in s.actions]
    assert spoken == [w for _, w in q1ec1_rows()]
    # The moves that begin or end on a noise show it there; silences inside a move are marks too.
    texts = {a.content for a in s.actions}
    assert "(phongesture) right okay" in texts  # q1ec1.g.move.39
    assert '(lipsmack) half "u" shape to the southeast' in texts  # q1ec1.f.move.52
    assert sum(t in texts for t in ("mmhmm (sil) (lowamp)", "okay (lowamp)", "mmhmm (lowamp)")) == 3
    ends = [a.content for a in s.actions if a.content.startswith("(") or a.content.endswith(")")]
    assert len(ends) == len(Q1EC1_NON_WORD_ENDS) == 15
    assert s.actions[1].content == "starting off we are above a caravan (sil) (sil) (sil) park"
    assert "(sil)" in s.actions[3].content  # a long instruction with silences between its words
    assert [a.timestamp for a in s.actions] == sorted(a.timestamp for a in s.actions)
    assert "move start times from the NXT timed units" in s.notes


@needs_hcrc
def test_the_archive_with_its_transcript_and_the_timed_units_imports_and_writes(tmp_path):
    """With the query transcript and the timed units both beside the moves, the timed units are
    read: the import that had 15 errors ("expected word ids of q1ec1.f.timed-units.xml") is written."""
    src, _ = _archive(tmp_path)
    try:
        dest = run_import("hcrc", src, tmp_path / "ds")
    except DatasetError as exc:
        pytest.fail(exc.report.format())
    corpus = load_dir(dest)
    actions = corpus.session("q1ec1").actions
    assert len(actions) == 77 and actions[0].content == "okay" and actions[0].timestamp == 0.0
    assert len(corpus.coded("hcrc_moves")) == 77


@needs_hcrc
@needs_gmmt
def test_gmmt_expressions_are_placed_on_the_words_whatever_the_marks(tmp_path):
    """GMMT's expressions are found among a move's words: the silences inside a landmark's name
    ("a (sil) caravan park") do not hide it, and every expression lands where the transcript puts it."""
    src, _ = _archive(tmp_path)
    timed = import_source("hcrc", src, gmmt=GMMT_SAMPLE)
    (src / "q1ec1.g.timed-units.xml").unlink()
    (src / "q1ec1.f.timed-units.xml").unlink()
    plain = import_source("hcrc", src, gmmt=GMMT_SAMPLE)
    assert timed.report.ok and plain.report.ok, timed.report.format() + plain.report.format()
    assert len(timed.expressions) == len(plain.expressions) == 28
    assert [(e["ref_id"], e["action_index"]) for e in timed.expressions] == [
        (e["ref_id"], e["action_index"]) for e in plain.expressions
    ]
    for e in timed.expressions:  # each one's words are in the move it is placed on
        move = " ".join(words_of(timed.sessions[0].actions[e["action_index"]].content))
        assert " ".join(words_of(e["expression"])) in move.replace("sil ", "")


def test_the_marks_are_not_words_where_words_are_looked_for():
    """A landmark said across a silence is still said: linking a Map Task VLM case to its move
    reads the words alone."""
    from corpus.importers.hcrc import without_marks
    from corpus.importers.maptask_vlm import says_landmark

    assert without_marks("(lipsmack) above a caravan (sil) (sil) park (lowamp)") == "above a caravan park"
    assert without_marks('half "u" shape') == 'half "u" shape'
    assert says_landmark("we are above a caravan (sil) park", "Caravan park")
    assert not says_landmark("we are above a caravan (sil) park", "sil park")


def _nxt(folder: Path, g_units: str, g_moves: str, f_units: str = "", f_moves: str = "") -> None:
    """One NXT dialogue d5 of the given timed units and moves (the follower's: one word, one move)."""
    folder.mkdir(parents=True, exist_ok=True)
    f_units = f_units or '<tu id="d5f.1" start="9.0" end="9.2">okay</tu>'
    f_moves = (
        f_moves
        or '<move id="d5.f.move.1" label="acknowledge"><nite:child href="d5.f.timed-units.xml#id(d5f.1)"/></move>'
    )
    for spk, units, moves in (("g", g_units, g_moves), ("f", f_units, f_moves)):
        (folder / f"d5.{spk}.timed-units.xml").write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<nite:root {NS} id="tu.d5.{spk}">\n{units}\n</nite:root>\n'
        )
        (folder / f"d5.{spk}.moves.xml").write_text(f"<nite:root {NS}>{moves}</nite:root>")


def _move(n: int, first: str, last: str, label: str = "instruct") -> str:
    return (
        f'<move id="d5.g.move.{n}" label="{label}"><nite:child href="d5.g.timed-units.xml#id({first})..id({last})"/>'
        "</move>"
    )


def test_every_element_kind_of_the_timed_units_is_a_place_a_move_can_start_or_end(tmp_path):
    """Any element with an id, in document order: noises by their type, silences, an element of
    another name, a noise whose type is not a plain name, an element holding others (its words in
    it), a later-numbered id (q1ec1g.280.1); a move of noises alone keeps them as its text."""
    units = "\n".join(
        [
            '<noi id="d5g.1" start="0.0" end="0.4" type="inbreath"/>',
            '<tu id="d5g.2" start="0.4" end="0.6" utt="1">go</tu>',
            '<sil id="d5g.3" start="0.6" end="0.9"/>',
            '<tu id="d5g.3.1" start="0.9" end="1.1" utt="1">left</tu>',
            '<noi id="d5g.4" start="1.1" end="1.3" type="laugh"/>',
            '<vocal id="d5g.5" start="2.0" end="2.2"/>',
            '<tu id="d5g.6" start="2.2" end="2.5" utt="2">round</tu>',
            '<noi id="d5g.7" start="2.5" end="2.7" type="a) (b"/>',
            '<noi id="d5g.8" start="3.0" end="3.2" type="cough"/>',
            '<segment id="d5g.9" start="4.0"><tu id="d5g.10" start="4.0" end="4.3">the</tu>'
            '<tu id="d5g.11" start="4.3" end="4.6">pond</tu></segment>',
        ]
    )
    moves = (
        _move(1, "d5g.1", "d5g.4")
        + _move(2, "d5g.5", "d5g.7")
        + _move(3, "d5g.8", "d5g.8", "uncodable")
        + _move(4, "d5g.9", "d5g.9")
    )
    _nxt(tmp_path, units, moves)
    result = import_source("hcrc", tmp_path)
    assert result.report.ok, result.report.format()
    assert [(a.role, a.content, a.timestamp) for a in result.sessions[0].actions] == [
        ("guide", "(inbreath) go (sil) left (laugh)", 0.0),
        ("guide", "(vocal) round (noi)", 2.0),
        ("guide", "(cough)", 3.0),
        ("guide", "the pond", 4.0),
        ("follower", "okay", 9.0),
    ]


def test_a_reference_the_timed_units_do_not_hold_names_what_they_hold(tmp_path):
    units = (
        '<tu id="d5g.1" start="0.0">go</tu>\n<sil id="d5g.2" start="0.2"/>\n<noi id="d5g.3" start="0.4" type="breath"/>'
    )
    _nxt(tmp_path, units, _move(1, "d5g.1", "d5g.9") + _move(2, "d5g.3", "d5g.1"))
    with pytest.raises(DatasetError) as exc:
        run_import("hcrc", tmp_path, tmp_path / "out")
    first, second = exc.value.report.errors
    assert (first.file, first.record, first.field) == ("d5.g.moves.xml", "move d5.g.move.1", "nite:child")
    assert first.message == (
        "elements d5g.1 to d5g.9: expected ids of d5.g.timed-units.xml (1 word, 2 other elements (sil 1, noi 1) there)"
    )
    assert second.record == "move d5.g.move.2" and "run backwards: d5g.1 comes before d5g.3" in second.message
    assert not (tmp_path / "out").exists()


def test_a_noise_s_time_that_is_not_a_number_names_the_element(tmp_path):
    units = '<tu id="d5g.1" start="0.0">go</tu>\n<noi id="d5g.2" start="soon" type="breath"/>'
    _nxt(tmp_path, units, _move(1, "d5g.1", "d5g.2"))
    with pytest.raises(DatasetError) as exc:
        run_import("hcrc", tmp_path, tmp_path / "out")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field) == ("d5.g.timed-units.xml", "noi d5g.2", "start")
    assert "not a time: 'soon'" in issue.message


# ---------------------------------------------------------------------------------------------
# The corpus's split lists
# ---------------------------------------------------------------------------------------------


def _maptask_data(tmp_path: Path, val: bool = True) -> Path:
    """A maptask_data/ folder as NathanDuran/Maptask-Corpus lays it out: dialogues in train/, val/
    and test/ (its val/ also holding a dialogue its lists put in test, as the repository's does),
    the lists in metadata/ (``val``: with val_split.txt), and a dialogue of train/ that no list
    names."""
    top = tmp_path / "maptask_data"
    for folder, dlg, shift in (
        ("train", "q1nc2", 0),
        ("train", "q2ec1", 1),
        ("val", "q1ec6", 2),
        ("val", "q1nc4", 3),
        ("test", "q5nc5", 4),
        ("train", "q9ec9", 5),
    ):
        write_pipe(top / folder, f"{dlg}.txt", made_up_lines(8, shift))
    write_split_list(top / "metadata", "train", ["q1nc2", "q2ec1"])
    if val:
        write_split_list(top / "metadata", "val", ["q1ec6"])
    write_split_list(top / "metadata", "test", ["q5nc5", "q1nc4"])
    return top


def test_the_split_lists_give_each_dialogue_its_split_and_name_the_ones_they_miss(tmp_path):
    top = _maptask_data(tmp_path, val=False)
    result = import_source("hcrc", top)
    assert result.report.ok, result.report.format()
    assert {s.id: s.split for s in result.sessions} == {
        "q1nc2": "train",
        "q2ec1": "train",
        "q1ec6": schema.NOT_RECORDED,
        "q1nc4": "test",  # in val/, but the lists put it in test
        "q5nc5": "test",
        "q9ec9": schema.NOT_RECORDED,
    }
    warned = {(w.file, w.record, w.field): w.message for w in result.report.warnings}
    assert warned[("train/q9ec9.txt", "dialogue q9ec9", "split")] == (
        "q9ec9 is in none of the split lists (metadata/test_split.txt, metadata/train_split.txt): its split is "
        "not_recorded"
    )
    assert ("val/q1ec6.txt", "dialogue q1ec6", "split") in warned
    notes = {s.id: s.notes for s in result.sessions}
    assert "split test (from metadata/test_split.txt)" in notes["q5nc5"]
    # Written and read back.
    corpus = load_dir(run_import("hcrc", top, tmp_path / "ds"))
    assert corpus.session("q1nc4").split == "test"
    assert corpus.sessions_df.set_index("session_id")["split"].to_dict() == {s.id: s.split for s in result.sessions}


@needs_val
def test_the_val_list_and_a_val_folder_give_val(tmp_path):
    top = _maptask_data(tmp_path)
    result = import_source("hcrc", top)
    assert result.report.ok, result.report.format()
    splits = {s.id: s.split for s in result.sessions}
    assert (splits["q1ec6"], splits["q1nc4"], splits["q9ec9"]) == ("val", "test", schema.NOT_RECORDED)
    warned = {(w.file, w.record, w.field): w.message for w in result.report.warnings}
    assert warned[("val/q1nc4.txt", "dialogue q1nc4", "split")] == (
        "q1nc4 is in a val/ folder but metadata/test_split.txt lists it: its split is test (the lists are used)"
    )
    assert "split val (from metadata/val_split.txt)" in {s.id: s.notes for s in result.sessions}["q1ec6"]
    corpus = load_dir(run_import("hcrc", top, tmp_path / "ds"))
    assert corpus.session("q1ec6").split == "val"
    assert set(corpus.sessions_df["split"]) == {"train", "val", "test", schema.NOT_RECORDED}
    # Without the lists, the folder says it.
    shutil.rmtree(top / "metadata")
    result = import_source("hcrc", top)
    assert {s.id: s.split for s in result.sessions}["q1ec6"] == "val"
    assert "split val (from its folder val/)" in {s.id: s.notes for s in result.sessions}["q1ec6"]
    assert import_source("hcrc", top, split="val").sessions[0].split == "val"


def test_without_lists_the_folder_names_the_split_and_the_options_override(tmp_path):
    top = _maptask_data(tmp_path)
    shutil.rmtree(top / "metadata")
    result = import_source("hcrc", top)
    assert result.report.ok and not result.report.warnings, result.report.format()
    splits = {s.id: s.split for s in result.sessions}
    assert (splits["q5nc5"], splits["q1nc2"]) == ("test", "train")
    assert "split test (from its folder test/)" in {s.id: s.notes for s in result.sessions}["q5nc5"]
    # A folder of no split's name: train, as before.
    write_pipe(tmp_path / "other", "q3ec3.txt", made_up_lines(4))
    assert import_source("hcrc", tmp_path / "other").sessions[0].split == "train"
    # The lists given as an option (a folder of them, or one list) for a source without them.
    lists = tmp_path / "lists"
    write_split_list(lists, "test", ["q1nc2"])
    given = import_source("hcrc", top, split_lists=lists)
    assert {s.id: s.split for s in given.sessions}["q1nc2"] == "test"
    assert {s.id: s.split for s in given.sessions}["q5nc5"] == schema.NOT_RECORDED
    one = import_source("hcrc", top, split_lists=lists / "test_split.txt")
    assert {s.id: s.split for s in one.sessions}["q1nc2"] == "test"
    # The split option sets every dialogue's split, and says the lists are not used.
    write_split_list(top / "metadata", "test", ["q1nc2"])
    forced = import_source("hcrc", top, split="test")
    assert {s.split for s in forced.sessions} == {"test"}
    (w,) = [w for w in forced.report.warnings if w.field == "split"]
    assert (
        w.message == "the split lists (metadata/test_split.txt) are not used: split 'test' is given for every dialogue"
    )


def test_split_lists_that_contradict_themselves_are_errors_naming_file_and_line(tmp_path):
    top = tmp_path / "src"
    write_pipe(top, "q1nc2.txt", made_up_lines(3))
    write_split_list(top / "metadata", "train", ["q1nc2", "q2ec1"])
    write_split_list(top / "metadata", "test", ["q5nc5", "", "q2ec1", "two words"])
    with pytest.raises(DatasetError) as exc:
        run_import("hcrc", top, tmp_path / "out")
    errors = [(i.file, i.record, i.field, i.message) for i in exc.value.report.errors]
    assert errors == [  # (the lists are read in order of their paths)
        (
            "metadata/test_split.txt",
            "line 4",
            "dialogue",
            "expected one dialogue id a line (such as q1ec1), got 'two words'",
        ),
        (
            "metadata/train_split.txt",
            "line 2",
            "dialogue",
            "q2ec1 is in two split lists: metadata/test_split.txt (test) and this one (train)",
        ),
    ]
    assert not (tmp_path / "out").exists()
    for bad, message in (
        (tmp_path / "nowhere", "not found: expected a folder holding train_split.txt, val_split.txt, test_split.txt"),
        (top / "q1nc2.txt", "not a split list: expected a file named train_split.txt, val_split.txt or test_split.txt"),
    ):
        r = import_source("hcrc", top, split_lists=bad)
        assert not r.report.ok and r.report.errors[0].field == "split_lists"
        assert r.report.errors[0].message.startswith(message)


# ---------------------------------------------------------------------------------------------
# Several dialogues in one file
# ---------------------------------------------------------------------------------------------


def test_a_set_of_dialogues_in_one_file_is_refused_saying_what_it_is(tmp_path):
    """test_set.txt as Maptask-Corpus writes it: 13 dialogues' moves one after another (2,762 in the
    release), nothing between one dialogue and the next. Alone it is an error; nothing is written."""
    src = tmp_path / "maptask_data"
    write_pipe(src, "test_set.txt", made_up_lines(2762))
    with pytest.raises(DatasetError) as exc:
        run_import("hcrc", src, tmp_path / "out")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field) == ("test_set.txt", "-", "(file)")
    assert issue.message == (
        "several dialogues concatenated with nothing between one and the next (2,762 moves, where the longest "
        "HCRC dialogue, q1nc1, has 686; named test_set.txt, as Maptask-Corpus names its sets of dialogues in one "
        "file): they cannot be told apart, so the file is not imported; import each dialogue's own file instead "
        "(such as maptask_data/test/<dialogue>.txt)"
    )
    assert not (tmp_path / "out").exists()
    # Given as the file itself, the same.
    r = import_source("hcrc", src / "test_set.txt")
    assert [i.message for i in r.report.errors] == [issue.message] and not r.sessions


def test_concatenation_is_told_by_its_length_or_its_name_and_the_other_dialogues_are_imported(tmp_path):
    src = tmp_path / "src"
    write_pipe(src, "q1nc1.txt", made_up_lines(686))  # as long as the longest dialogue: one dialogue
    write_pipe(src, "q9ec9.txt", made_up_lines(1001))  # longer than any: several
    write_pipe(src, "val_set.txt", made_up_lines(12))  # a short set, told by its name
    result = import_source("hcrc", src)
    assert result.report.ok, result.report.format()
    assert [(s.id, len(s.actions)) for s in result.sessions] == [("q1nc1", 686)]
    warned = {w.file: w.message for w in result.report.warnings}
    assert warned["q9ec9.txt"].startswith(
        "several dialogues concatenated with nothing between one and the next (1,001 moves, where the longest"
    )
    assert "(named val_set.txt, as Maptask-Corpus names" in warned["val_set.txt"]
    assert all(m.endswith("; the source's other dialogues are imported") for m in warned.values())


# ---------------------------------------------------------------------------------------------
# Route deviation
# ---------------------------------------------------------------------------------------------

SCORES = {"q1ec2": "227", "q1ec3": "74", "q1nc2": "105", "q1nc3": "53.5"}


def _with_deviation(tmp_path: Path, scores: dict[str, str] = SCORES) -> Path:
    src = tmp_path / "src"
    for k, dlg in enumerate(["q1ec2", "q1ec3", "q1ec4", "q1nc2", "q1nc3"]):
        write_pipe(src, f"{dlg}.txt", made_up_lines(6 + k, k))
    write_deviation(src, scores)
    return src


def test_route_deviation_is_read_written_and_read_back(tmp_path):
    src = _with_deviation(tmp_path)
    result = import_source("hcrc", src)
    assert result.report.ok, result.report.format()
    assert {s.id: s.route_deviation for s in result.sessions} == {
        "q1ec2": 227.0,
        "q1ec3": 74.0,
        "q1ec4": None,
        "q1nc2": 105.0,
        "q1nc3": 53.5,
    }
    (w,) = result.report.warnings
    assert (w.file, w.record, w.field) == ("moves_and_deviation.csv", "dialogue q1ec4", "path dev")
    assert w.message == "no route deviation score of q1ec4 there: the session has none"
    dest = run_import("hcrc", src, tmp_path / "ds")
    assert json.loads((dest / "sessions" / "q1ec2" / "session.json").read_text())["route_deviation"] == 227.0
    assert "route_deviation" not in json.loads((dest / "sessions" / "q1ec4" / "session.json").read_text())
    corpus = load_dir(dest)
    assert corpus.session("q1nc3").route_deviation == 53.5
    table = corpus.sessions_df.set_index("session_id")["route_deviation"]
    assert table["q1ec3"] == 74.0 and table.isna()["q1ec4"]
    # Given as an option instead (a table elsewhere).
    (src / "moves_and_deviation.csv").rename(tmp_path / "scores.csv")
    given = import_source("hcrc", src, route_deviation=tmp_path / "scores.csv")
    assert {s.id: s.route_deviation for s in given.sessions}["q1ec2"] == 227.0


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("far", "not a route deviation score: 'far' (expected a number of 0 or more)"),
        ("-3", "not a route deviation score: '-3' (expected a number of 0 or more)"),
        ("inf", "not a route deviation score: 'inf' (expected a number of 0 or more)"),
    ],
)
def test_a_bad_route_deviation_names_file_dialogue_and_column(tmp_path, score, message):
    src = _with_deviation(tmp_path, {**SCORES, "q1ec3": score})
    with pytest.raises(DatasetError) as exc:
        run_import("hcrc", src, tmp_path / "out")
    (issue,) = exc.value.report.errors
    assert (issue.file, issue.record, issue.field, issue.message) == (
        "moves_and_deviation.csv",
        "dialogue q1ec3",
        "path dev",
        message,
    )
    assert not (tmp_path / "out").exists()


def test_a_hand_edited_session_json_with_a_bad_route_deviation_is_refused(tmp_path):
    dest = run_import("hcrc", _with_deviation(tmp_path), tmp_path / "ds")
    meta = dest / "sessions" / "q1ec2" / "session.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "route_deviation": 40}))
    assert load_dir(dest).session("q1ec2").route_deviation == 40.0  # (a whole number is a number)
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "route_deviation": -1}))
    with pytest.raises(DatasetError) as exc:
        load_dir(dest)
    (issue,) = exc.value.report.errors
    assert issue.file == "sessions/q1ec2/session.json" and issue.field == "route_deviation"


def _outcomes_page(tmp_path, monkeypatch, dataset: Path) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(dataset.parent))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = key_of(dataset)
    at.run()
    at.switch_page("pages/outcomes.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_outcomes_page_compares_route_deviation_by_condition(tmp_path, monkeypatch):
    """Route deviation is a panel of the figure and a row of the tests, by eye contact, as the
    drawing's scores are for the canvas conditions; not where no session has one."""
    scores = {"q1ec2": "40", "q1ec3": "60", "q1ec5": "80", "q1nc2": "100", "q1nc3": "150", "q1nc5": "200"}
    src = tmp_path / "src"
    for k, dlg in enumerate(scores):
        write_pipe(src, f"{dlg}.txt", made_up_lines(5 + k, k))
    write_deviation(src, scores)
    dest = run_import("hcrc", src, tmp_path / "roots" / "hcrc")
    at = _outcomes_page(tmp_path, monkeypatch, dest)
    (chart,) = at.get("plotly_chart")
    spec = json.loads(chart.proto.spec)
    assert "route deviation" in [a["text"] for a in spec["layout"]["annotations"]]
    points = {
        t["name"]: sorted(t["y"])
        for t in spec["data"]
        if t["type"] == "scatter" and [c[1] for c in t["customdata"]] == ["route_deviation"] * len(t["y"])
    }
    assert sorted(points.values()) == [[40.0, 60.0, 80.0], [100.0, 150.0, 200.0]]
    table = at.dataframe[0].value.set_index("outcome")
    row = table.loc["route deviation (HCRC deviation score: area between the routes)"]
    assert row["eye contact: mean (SD), n"] == f"{fmt_mean_sd(60.0, 20.0, 3, significant=True)}, 3"
    assert row["no eye contact: mean (SD), n"] == f"{fmt_mean_sd(150.0, 50.0, 3, significant=True)}, 3"
    assert row["difference (eye contact - no eye contact)"].startswith("-90")
    welch = stats.ttest_ind([40.0, 60.0, 80.0], [100.0, 150.0, 200.0], equal_var=False)
    assert row["test"].startswith(f"t({welch.df:.1f}) = {welch.statistic:.2f}, p = ")  # t(2.6) = -2.89
    captions = " ".join(c.value for c in at.caption)
    assert "Route deviation: the deviation score the source records" in captions
    assert "higher in eye contact sessions" in captions
    # A dataset whose source records no route deviation has no such panel or row.
    (src / "moves_and_deviation.csv").unlink()
    other = run_import("hcrc", src, tmp_path / "roots" / "plain")
    at = _outcomes_page(tmp_path, monkeypatch, other)
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "route deviation" not in [a["text"] for a in spec["layout"]["annotations"]]
    assert "final accuracy" in [a["text"] for a in spec["layout"]["annotations"]]
    assert not any("route deviation" in o for o in at.dataframe[0].value["outcome"])
