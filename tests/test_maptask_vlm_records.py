"""Map Task VLM predictions and their gold sources go through typed models
(:mod:`corpus.importers.maptask_vlm_records`): a bad value in any field of a prediction record, a
cases table's row or a landmark catalogue's row is refused, naming the file, the record and the field.

The files are built in the release's shape (the prompts of ``scripts/run_vlm_inference.py``, the
authors' cases table), on made-up cases: no transcript is needed to read them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_maptask_vlm import FOLLOWER_PROMPT, GIVER_PROMPT

from corpus.importers.maptask_vlm import read_maptask_vlm

PREDICTIONS = "results/predictions/vlm_predictions_m.jsonl"
CASES = "data/cases.csv"
FIRST, SECOND = "q1ec1_34_fenced_meadow", "q1ec1_2_caravan_park"


def prediction(case_id: str, response: Any = "A) I can see it", experiment: str = "follower_grounding") -> dict:
    landmark = case_id.split("_", 2)[-1].replace("_", " ")
    prompt = (
        FOLLOWER_PROMPT.format(utterance=f"go past the {landmark}")
        if experiment == "follower_grounding"
        else GIVER_PROMPT.format(landmark=landmark)
    )
    return {"case_id": case_id, "model": "m", "experiment_type": experiment, "prompt": prompt, "raw_response": response}


def release(root: Path, records: list[Any], cases: list[dict] | None = None) -> Path:
    """A prediction file of ``records`` and, as gold, a cases table (every case unique by default)."""
    (root / PREDICTIONS).parent.mkdir(parents=True)
    (root / PREDICTIONS).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (root / "data").mkdir()
    rows = cases or [
        {"case_id": c, "experiment_type": "follower_grounding", "referent_status": "unique"} for c in (FIRST, SECOND)
    ]
    pd.DataFrame(rows).to_csv(root / CASES, index=False)
    return root


def _second(change: Callable[[dict], Any]) -> list[Any]:
    record = prediction(SECOND)
    change(record)
    return [prediction(FIRST), record]


PREDICTION_CASES: list[tuple[str, list[Any], tuple[str, str], str]] = [
    ("no case_id", _second(lambda r: r.pop("case_id")), ("line 2", "case_id"), "expected the case's id, got null"),
    ("case_id", _second(lambda r: r.update(case_id=12)), ("line 2", "case_id"), "expected the case's id, got the integer 12"),
    ("case_id form", _second(lambda r: r.update(case_id="q1ec1-2-caravan")), ("q1ec1-2-caravan", "case_id"), "expected <dialogue>_<turn>_<landmark> (e.g. q1ec1_34_fenced_meadow; turns from 1)"),
    ("turn 0", _second(lambda r: r.update(case_id="q1ec1_0_caravan_park")), ("q1ec1_0_caravan_park", "case_id"), "expected <dialogue>_<turn>_<landmark> (e.g. q1ec1_34_fenced_meadow; turns from 1)"),
    ("experiment_type", _second(lambda r: r.update(experiment_type="listener")), (SECOND, "experiment_type"), "expected one of follower_grounding, giver_ambiguity, got the string 'listener'"),
    ("prompt", _second(lambda r: r.update(prompt=None)), (SECOND, "prompt"), "expected the prompt's text, got null"),
    ("prompt without options", _second(lambda r: r.update(prompt="Where is it?")), (SECOND, "prompt"), "no options in the prompt (expected lines 'A) ...', 'B) ...')"),
    ("raw_response", _second(lambda r: r.update(raw_response=["A"])), (SECOND, "raw_response"), "expected the model's text or null, got a list of 1 item"),
    ("raw_response no option", _second(lambda r: r.update(raw_response="D) elsewhere")), (SECOND, "raw_response"), "answers 'D)', not one of the options (A, B, C)"),
    ("model", _second(lambda r: r.update(model=" ")), (SECOND, "model"), "expected the model's name, got the string ' '"),
    ("model of another record", _second(lambda r: r.update(model="n")), (SECOND, "model"), "'n', but the file's first record says 'm'"),
    ("a second answer", [prediction(FIRST), prediction(FIRST, "B) no")], (FIRST, "raw_response"), "a second answer to this case: 'B' after 'A'"),
    ("not an object", [prediction(FIRST), [SECOND]], ("line 2", "(json)"), "expected a JSON object, got a list of 1 item"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "records", "place", "message"), PREDICTION_CASES, ids=[c[0] for c in PREDICTION_CASES]
)
def test_a_bad_value_in_a_prediction_refuses_its_run_naming_the_field(tmp_path, case, records, place, message):
    bench, report = read_maptask_vlm(release(tmp_path / "vlm", records))
    assert report.ok, report.format()
    (run,) = bench.runs
    assert [(i.file, i.record, i.field) for i in run.report.errors] == [(PREDICTIONS, *place)], run.report.format()
    assert run.report.errors[0].message == message and not run.ok


def test_the_records_as_released_are_read(tmp_path):
    records = [prediction(FIRST), prediction(SECOND, None), prediction(FIRST, "Yes.", "giver_ambiguity")]
    cases = [
        {"case_id": FIRST, "experiment_type": "", "referent_status": "unique", "giver_referent_status": "ambiguous"},
        {"case_id": SECOND, "experiment_type": "follower_grounding", "referent_status": "missing"},
    ]
    bench, report = read_maptask_vlm(release(tmp_path / "vlm", records, cases))
    assert report.ok and bench.runs[0].ok, report.format()
    assert bench.items["gold"].tolist() == ["A", "B", "Yes"]
    assert bench.runs[0].answers["answer"].tolist() == ["A", "", "Yes"]


GOLD_CASES: list[tuple[str, list[dict], tuple[str, str, str], str]] = [
    ("case_id", [{"case_id": "", "referent_status": "unique"}], (CASES, "row 2", "case_id"), "empty: every case needs its id"),
    ("experiment_type", [{"case_id": FIRST, "experiment_type": "listener", "referent_status": "unique"}], (CASES, FIRST, "experiment_type"), "expected one of follower_grounding, giver_ambiguity, got 'listener'"),
    ("referent_status", [{"case_id": FIRST, "referent_status": "lots"}], (CASES, FIRST, "referent_status"), "expected one of unique, missing, ambiguous, got 'lots'"),
    ("follower_referent_status", [{"case_id": FIRST, "follower_referent_status": "some"}], (CASES, FIRST, "follower_referent_status"), "expected one of unique, missing, ambiguous, got 'some'"),
    ("giver_referent_status", [{"case_id": FIRST, "referent_status": "unique", "giver_referent_status": "2"}], (CASES, FIRST, "giver_referent_status"), "expected one of unique, missing, ambiguous, got '2'"),
    ("other statuses", [{"case_id": FIRST, "referent_status": "unique"}, {"case_id": FIRST, "referent_status": "missing"}], (CASES, FIRST, "referent_status"), "a second row with other statuses"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "rows", "place", "message"), GOLD_CASES, ids=[c[0] for c in GOLD_CASES])
def test_a_bad_value_in_a_cases_table_is_named(tmp_path, case, rows, place, message):
    _, report = read_maptask_vlm(release(tmp_path / "vlm", [prediction(FIRST)], rows))
    assert [(i.file, i.record, i.field) for i in report.errors] == [place], report.format()
    assert report.errors[0].message == message


LANDMARK_CASES: list[tuple[str, dict, str, str]] = [
    ("giver_map_appears", {"giver_map_appears": "x"}, "giver_map_appears", "expected a count (0, 1, 2, ...), got 'x'"),
    ("negative", {"giver_map_appears": "-1"}, "giver_map_appears", "expected a count (0, 1, 2, ...), got '-1'"),
    ("follower_map_appears", {"follower_map_appears": "1.5"}, "follower_map_appears", "expected a count (0, 1, 2, ...), got '1.5'"),
]  # fmt: skip


@pytest.mark.parametrize(("case", "change", "field", "message"), LANDMARK_CASES, ids=[c[0] for c in LANDMARK_CASES])
def test_a_bad_count_in_a_landmark_catalogue_is_named(tmp_path, case, change, field, message):
    """A table (GMMT's landmarks_configuration.csv) and maptask-landmarks.xml alike."""
    root = release(tmp_path / "vlm", [prediction(FIRST)], [{"case_id": SECOND, "referent_status": "unique"}])
    row = {"map_id": "m1", "landmark_name": "fenced meadow", "giver_map_appears": "1", "follower_map_appears": "1.0"}
    pd.DataFrame([{**row, **change}]).to_csv(root / "data" / "landmarks.csv", index=False)
    attrs = " ".join(f'{k}="{v}"' for k, v in {**row, **change}.items() if k.endswith("appears"))
    xml = f'<maps><map id="m2"><landmark id="l4" name="old mill" {attrs}/></map></maps>'
    (root / "data" / "maptask-landmarks.xml").write_text(xml, encoding="utf-8")
    (root / "data" / "maptask-corpus.xml").write_text('<c><conv id="q1ec1" map="m1"/></c>', encoding="utf-8")
    _, report = read_maptask_vlm(root)
    assert [(i.file, i.record, i.field, i.message) for i in report.errors] == [
        ("data/landmarks.csv", "row 2", field, message),
        ("data/maptask-landmarks.xml", "landmark l4", field, message),
    ]


def test_every_bad_field_of_a_row_is_named_not_only_the_first(tmp_path):
    rows = [{"case_id": FIRST, "experiment_type": "listener", "referent_status": "lots"}]
    records = [prediction(FIRST), {**prediction(SECOND), "prompt": 3, "raw_response": 4}]
    bench, report = read_maptask_vlm(release(tmp_path / "vlm", records, rows))
    assert [(i.record, i.field) for i in report.errors] == [(FIRST, "experiment_type"), (FIRST, "referent_status")]
    assert [(i.record, i.field) for i in bench.runs[0].report.errors] == [(SECOND, "prompt"), (SECOND, "raw_response")]
