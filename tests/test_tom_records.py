"""The records of the theory-of-mind releases go through their typed models
(:mod:`corpus.importers.tom.records`): a bad value in any field of a DynToM question or answer file,
a SynchToM item, trajectory or judge score file is refused, naming the file, the record and the field,
in the words the importers used before the models (the cases pass on the hand checks they replace).

The cases build each file in the shape the release writes it (tests/test_tom_benchmark.py's trial,
SynchToM's fixture items, tests/test_synchtom.py's score files) and change one value.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest
from test_benchmark_records import Edit, New, edit_json, where
from test_synchtom import LB, record, write_run
from test_synchtom_items import copy_fixture
from test_tom_benchmark import _trial

from corpus.importers.tom import read_dyntom, read_synchtom, read_synchtom_items

# -- DynToM's trial files -------------------------------------------------------------------------

QUESTION = "type_a_what_1"


def _question(change: Callable[[dict], Any]) -> Edit:
    return lambda d: edit_json(d / "question_new.json", lambda qs: change(qs[QUESTION]))


DYNTOM_CASES: list[tuple[str, Edit, tuple[str, str, str], str]] = [
    (
        "questions not an object",
        lambda d: edit_json(d / "question_new.json", lambda qs: New(list(qs))),
        ("question_new.json", "-", "(file)"),
        "expected an object of questions by id, got a list of 4 items",
    ),
    (
        "question not an object",
        lambda d: edit_json(d / "question_new.json", lambda qs: qs.update({QUESTION: "What?"})),
        ("question_new.json", QUESTION, "(record)"),
        "expected a question object, got the string 'What?'",
    ),
    ("question", _question(lambda q: q.update(question=3)), ("question_new.json", QUESTION, "question"), "expected a string, got the integer 3"),
    ("options", _question(lambda q: q.update(options="a. yes")), ("question_new.json", QUESTION, "options"), "expected a list of options, got the string 'a. yes'"),
    ("no options", _question(lambda q: q.update(options=[])), ("question_new.json", QUESTION, "options"), "expected a list of options, got a list of 0 items"),
    ("an option", _question(lambda q: q["options"].__setitem__(1, "no")), ("question_new.json", QUESTION, "options[1]"), "expected 'a. text', got the string 'no'"),
    ("true answer", _question(lambda q: q.update({"true answer": None})), ("question_new.json", QUESTION, "true answer"), "expected an option letter, got null"),
    ("blank true answer", _question(lambda q: q.update({"true answer": " "})), ("question_new.json", QUESTION, "true answer"), "expected an option letter, got the string ' '"),
    ("true answer no option", _question(lambda q: q.update({"true answer": "d"})), ("question_new.json", QUESTION, "true answer"), "'d' is not one of the options (a, b, c)"),
    (
        "answers not an object",
        lambda d: edit_json(d / "level1_answer_m.json", lambda a: New([a])),
        ("level1_answer_m.json", "-", "(file)"),
        "expected an object of answers by question id, got a list of 1 item",
    ),
    (
        "answer",
        lambda d: edit_json(d / "level1_answer_m.json", lambda a: a.update({QUESTION: ["a"]})),
        ("level1_answer_m.json", QUESTION, "answer"),
        "expected an option letter, got a list of 1 item",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "place", "message"), DYNTOM_CASES, ids=[c[0] for c in DYNTOM_CASES])
def test_a_bad_value_in_a_dyntom_trial_is_named(tmp_path, case, edit, place, message):
    _trial(tmp_path / "trial1", {"level1_answer_m.json": {QUESTION: "a", "type_a_what_6": "b"}})
    edit(tmp_path / "trial1")
    bench, report = read_dyntom(tmp_path / "trial1")
    errors = report.errors or [i for r in bench.runs for i in r.report.errors]
    assert where(errors) == [place], report.format()
    assert errors[0].message == message


def test_a_story_s_problems_are_warnings_and_its_trial_is_scored(tmp_path):
    _trial(tmp_path / "trial1", {"level1_answer_m.json": {QUESTION: "a"}})
    story = {
        "main character": "Ana",
        "characters information": None,
        "story": {"scenario 1": {"background": "A kitchen.", "dialogue": "Ana: hi"}, "scenario 2": 7},
    }
    (tmp_path / "trial1" / "story.json").write_text(json.dumps(story), encoding="utf-8")
    bench, report = read_dyntom(tmp_path / "trial1")
    assert report.ok and [(i.severity, i.record, i.field, i.message) for i in report.issues] == [
        (
            "warning",
            "scenario 1",
            "dialogue",
            "expected a list of turns, got the string 'Ana: hi'; the scenario is shown without its dialogue",
        )
    ]
    assert bench.contexts["trial1"] == {
        "main_character": "Ana",
        "characters": "None",
        "scenarios": [{"scenario": "scenario 1", "background": "A kitchen.", "dialogue": []}],
    }
    (tmp_path / "trial1" / "story.json").write_text("[]", encoding="utf-8")
    bench, report = read_dyntom(tmp_path / "trial1")
    assert [(i.severity, i.field) for i in report.issues] == [("warning", "(file)")] and len(bench.items) == 4


# -- SynchToM's items and trajectories --------------------------------------------------------------

ITEM = "item 'swe_0001'"
SWE = "swe-benchmark.json"
TRAJECTORY = "trajectories/swe-benchmark/swe_0001.json"
TEXT_FIELDS = [
    "domain",
    "true_latent_state",
    "user_latent_belief",
    "misconception_type",
    "root_cause_of_misconception",
    "observation",
    "explicit_instruction",
    "trajectory",
    "user_profile",
]


def _item(change: Callable[[dict], Any]) -> Edit:
    return lambda d: edit_json(d / SWE, lambda items: change(items[0]))


def _set(field: str, value: Any) -> Callable[[dict], Any]:
    return lambda record: record.update({field: value})


def _turn(k: int, change: Callable[[dict], Any]) -> Edit:
    return lambda d: edit_json(d / TRAJECTORY, lambda t: change(t["trajectory"][k]))


SYNCHTOM_CASES: list[tuple[str, Edit, tuple[str, str, str], str]] = [
    ("file not an array", lambda d: edit_json(d / SWE, lambda items: New({"items": items})), (SWE, "-", "(file)"), "expected a JSON array of items, got an object"),
    ("item not an object", lambda d: edit_json(d / SWE, lambda items: items.__setitem__(0, "swe_0001")), (SWE, "record 1", "(record)"), "expected a JSON object, got the string 'swe_0001'"),
    ("id", _item(lambda it: it.update(id=1)), (SWE, "record 1", "id"), "expected a non-empty string, got the integer 1"),
    ("no id", _item(lambda it: it.pop("id")), (SWE, "record 1", "id"), "required field is missing"),
    *[
        (field, _item(_set(field, 7)), (SWE, ITEM, field), "expected text, got the integer 7")
        for field in TEXT_FIELDS
    ],
    ("no domain", _item(lambda it: it.pop("domain")), (SWE, ITEM, "domain"), "required field is missing"),
    ("trajectory blank", _item(lambda it: it.update(trajectory="")), (SWE, ITEM, "trajectory"), "expected the path of the item's trajectory file, got the string ''"),
    ("rubrics", _item(lambda it: it.update(rubrics=["a"])), (SWE, ITEM, "rubrics"), "expected an object, got a list of 1 item"),
    ("rubrics no criteria", _item(lambda it: it["rubrics"].update(user_profile_modeling=[])), (SWE, ITEM, "rubrics.user_profile_modeling"), "expected a non-empty list of criteria, got a list of 0 items"),
    ("rubrics criterion", _item(lambda it: it["rubrics"]["correct_resolution"][1].update(criterion=" ")), (SWE, ITEM, "rubrics.correct_resolution[1].criterion"), "expected the criterion's text, got the string ' '"),
    ("rubrics criterion not an object", _item(lambda it: it["rubrics"]["correct_resolution"].__setitem__(0, "x")), (SWE, ITEM, "rubrics.correct_resolution[0].criterion"), "expected the criterion's text, got the string 'x'"),
    ("rubrics another dimension", _item(lambda it: it["rubrics"].update(empathy=[{"criterion": "Kind."}])), (SWE, ITEM, "rubrics.empathy"), "not one of SynchToM's three dimensions (latent_belief_explanation, user_profile_modeling, correct_resolution)"),
    ("trajectory file not an object", lambda d: edit_json(d / TRAJECTORY, lambda t: New(t["trajectory"])), (TRAJECTORY, "-", "(file)"), "expected an object with a 'trajectory' list, got a list of 10 items"),
    ("trajectory not a list", lambda d: edit_json(d / TRAJECTORY, lambda t: t.update(trajectory="10 turns")), (TRAJECTORY, "-", "trajectory"), "expected a list of turns, got the string '10 turns'"),
    ("turn not an object", lambda d: edit_json(d / TRAJECTORY, lambda t: t["trajectory"].__setitem__(1, [2])), (TRAJECTORY, "turn 2", "(turn)"), "expected an object, got a list of 1 item"),
    ("turn", _turn(0, lambda t: t.update(turn=True)), (TRAJECTORY, "turn 1", "turn"), "expected an integer, got the boolean true"),
    ("action", _turn(3, lambda t: t.pop("action")), (TRAJECTORY, "turn 4", "action"), "required field is missing"),
    ("observation", _turn(4, lambda t: t.update(observation=None)), (TRAJECTORY, "turn 5", "observation"), "expected text, got null"),
    ("red_herring", _turn(5, lambda t: t.update(red_herring="yes")), (TRAJECTORY, "turn 6", "red_herring"), "expected a boolean, got the string 'yes'"),
    ("interpretation", _turn(6, lambda t: t.update(interpretation=1)), (TRAJECTORY, "turn 7", "interpretation"), "expected text, got the integer 1"),
    ("observation_hidden_context", _turn(7, lambda t: t.update(observation_hidden_context=[])), (TRAJECTORY, "turn 8", "observation_hidden_context"), "expected text, got a list of 0 items"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "place", "message"), SYNCHTOM_CASES, ids=[c[0] for c in SYNCHTOM_CASES])
def test_a_bad_value_in_a_synchtom_item_or_trajectory_is_named(tmp_path, case, edit, place, message):
    root = copy_fixture(tmp_path / "release")
    edit(root)
    _, report = read_synchtom_items(root)
    assert where(report.errors) == [place], report.format()
    assert report.errors[0].message == message


# -- SynchToM's judge score files -----------------------------------------------------------------

SCORES = "evaluation_results/evaluation_swe-benchmark_claude_step10_20260113_093402.json"


def _scored(change: Callable[[dict], Any]) -> Callable[[list[dict]], Any]:
    def edit(records: list[dict]) -> None:
        change(records[0])

    return edit


def _lb(change: Callable[[dict], Any]) -> Callable[[list[dict]], Any]:
    return _scored(lambda r: change(r["evaluation"][LB]))


INSTANCE = "instance 'swe_0001'"
SCORE_CASES: list[tuple[str, Callable[[list[dict]], Any], tuple[str, str, str], str]] = [
    ("file not an array", lambda rs: New({"records": rs}), (SCORES, "-", "(file)"), "expected a JSON array of scored instances, got an object"),
    ("record not an object", lambda rs: rs.__setitem__(0, 1), (SCORES, "record 1", "(record)"), "expected a JSON object, got the integer 1"),
    ("instance_id", _scored(lambda r: r.update(instance_id=1)), (SCORES, "record 1", "instance_id"), "expected a non-empty string, got the integer 1"),
    ("evaluation", _scored(lambda r: r.pop("evaluation")), (SCORES, INSTANCE, "evaluation"), "required field is missing"),
    ("evaluation not an object", _scored(lambda r: r.update(evaluation="good")), (SCORES, INSTANCE, "evaluation"), "expected an object, got the string 'good'"),
    ("dimension null", _scored(lambda r: r["evaluation"].update({LB: None})), (SCORES, INSTANCE, f"evaluation.{LB}"), "expected an object, got null"),
    ("criterion_scores", _lb(lambda d: d.update(criterion_scores=[1, 0, 1])), (SCORES, INSTANCE, f"evaluation.{LB}.criterion_scores"), "expected an object, got a list of 3 items"),
    ("a criterion score", _lb(lambda d: d["criterion_scores"].update(criterion_2=0.5)), (SCORES, INSTANCE, f"evaluation.{LB}.criterion_scores.criterion_2"), "expected 0 or 1, got the number 0.5"),
    ("total_score", _lb(lambda d: d.update(total_score="2")), (SCORES, INSTANCE, f"evaluation.{LB}.total_score"), "expected an integer, got the string '2'"),
    ("total_score not the sum", _lb(lambda d: d.update(total_score=3)), (SCORES, INSTANCE, f"evaluation.{LB}.total_score"), "is 3 but 2 criteria are met (evaluate.py writes their sum)"),
    ("total_score alone", _lb(lambda d: (d.pop("criterion_scores"), d.update(total_score=4))), (SCORES, INSTANCE, f"evaluation.{LB}.total_score"), "score 4 is outside 0-3 (the rubric's criteria)"),
    ("neither", _lb(lambda d: (d.pop("criterion_scores"), d.pop("total_score"))), (SCORES, INSTANCE, f"evaluation.{LB}.total_score"), "required field is missing (and there are no criterion_scores)"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "edit", "place", "message"), SCORE_CASES, ids=[c[0] for c in SCORE_CASES])
def test_a_bad_value_in_a_score_file_is_named_and_refuses_the_file(tmp_path, case, edit, place, message):
    write_run(tmp_path, [("20260113_093402", "Qwen/Qwen3-32B", [record("swe_0001", [1, 0, 1], [1, 1], [0, 1, 1])])])
    edit_json(tmp_path / SCORES, edit)
    df, report = read_synchtom(tmp_path)
    assert where(report.errors) == [place], report.format()
    assert report.errors[0].message == message and df.empty


def test_a_summary_entry_without_a_judge_is_skipped_with_a_warning(tmp_path):
    write_run(tmp_path, [("20260113_093402", "Qwen/Qwen3-32B", [record("swe_0001", [1, 0, 1], [1, 1], [0, 1, 1])])])
    edit_json(tmp_path / "evaluation_summary.json", lambda s: s[0].update(judge_model=None))
    df, report = read_synchtom(tmp_path)
    assert [(i.severity, i.file, i.record, i.field) for i in report.issues] == [
        ("warning", "evaluation_summary.json", "entry 1", "output_file, judge_model"),
        ("error", SCORES, "-", "judge_model"),
    ]
    assert df.empty


def test_a_refused_question_or_answer_leaves_the_others_as_they_read_alone(tmp_path):
    """A question file or an answer file is validated in one call; where a record is refused, each is
    validated on its own to name it, and the others read as they would in the one call."""
    answers = {"level1_answer_m.json": {QUESTION: "a", "type_a_what_6": "b", "type_d_why_1": "c"}}
    _trial(tmp_path / "good" / "trial1", answers)
    _trial(tmp_path / "bad" / "trial1", answers)
    edit_json(tmp_path / "bad" / "trial1" / "question_new.json", lambda qs: qs["type_d_how_1"].pop("options"))
    edit_json(tmp_path / "bad" / "trial1" / "level1_answer_m.json", lambda a: a.update(type_a_what_6=None))
    good, _ = read_dyntom(tmp_path / "good" / "trial1")
    bad, report = read_dyntom(tmp_path / "bad" / "trial1")
    assert where(report.errors) == [("question_new.json", "type_d_how_1", "options")]
    assert where(bad.runs[0].report.errors) == [("level1_answer_m.json", "type_a_what_6", "answer")]
    kept = good.items["question_id"] != "type_d_how_1"
    pd.testing.assert_frame_equal(bad.items, good.items[kept].reset_index(drop=True))
    want = good.runs[0].answers[kept.to_numpy()].reset_index(drop=True)
    want.loc[want["item_id"] == "trial1/type_a_what_6", "answer"] = ""
    pd.testing.assert_frame_equal(bad.runs[0].answers, want)
