"""Map Task VLM predictions (KamyabAbedi/maptask-vlm) read as a benchmark whose items are moments of
HCRC dialogues imported by :mod:`corpus.importers.hcrc`.

The repository has no licence, so none of its files is kept here: the prediction files are built in
exactly the released shape (``results/predictions/vlm_predictions_<model>.jsonl``: case_id, model,
experiment_type, prompt, raw_response), their utterances read at test time from the real HCRC
dialogue q1ec1 (../shared/real_data, CC BY-NC-SA, through tests/real_data.py), which is also imported
to give the sessions. ``q1ec1_34_fenced_meadow`` and ``q1ec1_19_fenced_meadow`` are real case ids of
the release; the gold of a second test is GMMT's real landmark catalogue of map m12 (CC BY 4.0)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
from real_data import HCRC, REAL, absent, needs_hcrc

from analysis.benchmark import compare_benchmark
from analysis.drilldown import replay_link
from corpus.benchmark.dataset import NO_ANSWER, load_benchmark, write_benchmark_dataset
from corpus.importers import import_source
from corpus.importers.maptask_vlm import (
    UNREAD,
    load_maptask_vlm,
    moments,
    parse_case_id,
    read_answer,
    read_maptask_vlm,
)
from corpus.loading.report import DatasetError

GMMT = REAL / "gmmt_sample"
needs_gmmt = pytest.mark.skipif(not GMMT.is_dir(), reason=absent(GMMT, "GMMT sample"))
PRED = "results/predictions"

# The prompts as scripts/run_vlm_inference.py writes them (src/maptask_vlm/prompts.py).
FOLLOWER_PROMPT = (
    "You are looking at a hand-drawn map. Someone is guiding you along a route and just said:\n\n"
    '"{utterance}"\n\n'
    "Based on what you can see on your map, how do you respond?\n\n"
    "A) I can see it and understand -- proceed\n"
    "B) I don't see that landmark on my map\n"
    "C) I see more than one possible match -- ask which one\n\n"
    "Answer with just the letter, then a one-sentence explanation."
)
GIVER_PROMPT = (
    "You are looking at a hand-drawn map that you'll use to give someone directions. You're about to "
    'refer to "{landmark}" in your instructions.\n\n'
    "Is this landmark name ambiguous on your own map (i.e., does it appear more than once)?\n\n"
    "Answer Yes or No, then a one-sentence explanation."
)
A = "A) I can see it and understand -- proceed"
B = "B) I don't see that landmark on my map."
C = "C) I see more than one possible match -- ask which one"

# (experiment, case id, gold status as the authors' cases table holds it, qwen's answer, llava's answer)
CASES = [
    ("follower_grounding", "q1ec1_34_fenced_meadow", "unique", A, "B "),
    ("follower_grounding", "q1ec1_19_fenced_meadow", "unique", B, "B "),
    ("follower_grounding", "q1ec1_2_caravan_park", "unique", A, "B "),
    ("follower_grounding", "q1ec1_28_abandoned_cottage", "unique", C, "I cannot tell from this map."),
    ("follower_grounding", "q1ec1_4_old_mill", "missing", B, "B "),
    # unmatched: beyond q1ec1's 77 rows; a row that does not say the landmark; a dialogue not imported
    ("follower_grounding", "q1ec1_120_fenced_meadow", "unique", A, "B "),
    ("follower_grounding", "q1ec1_20_caravan_park", "unique", B, "B "),
    ("follower_grounding", "q7nc8_88_crane_bay", "unique", A, "B "),
    (
        "giver_ambiguity",
        "q1ec1_19_fenced_meadow",
        "ambiguous",
        "Yes. The fenced meadow appears twice on the map.",
        "Yes",
    ),
    ("giver_ambiguity", "q1ec1_34_fenced_meadow", "ambiguous", " No. It appears only once.", None),
]
GOLD = {"unique": "A", "missing": "B", "ambiguous": "Yes"}


def transcript_rows() -> list[str]:
    """The words of each row of the real q1ec1 query transcript, row 1 first."""
    lines = (HCRC / "q1ec1.nxt_query_transcript.txt").read_text(encoding="utf-8").splitlines()
    start = next(k for k, line in enumerate(lines) if line.split("\t", 1)[0].strip() == "who") + 1
    return [line.split("\t")[1].strip() for line in lines[start:] if line.strip()]


def record(model: str, experiment: str, case_id: str, response: str | None, rows: list[str]) -> dict:
    dialogue, turn, landmark = parse_case_id(case_id) or ("", 0, "")
    utterance = rows[turn - 1] if dialogue == "q1ec1" and turn <= len(rows) else f"is there a {landmark} there"
    prompt = (
        FOLLOWER_PROMPT.format(utterance=utterance)
        if experiment == "follower_grounding"
        else GIVER_PROMPT.format(landmark=landmark)
    )
    return {
        "case_id": case_id,
        "model": model,
        "experiment_type": experiment,
        "prompt": prompt,
        "raw_response": response,
    }


def write_jsonl(path: Path, records: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def release(tmp_path: Path, cases_table: bool = True) -> Path:
    """The repository's layout: the two prediction files and, as gold, the authors' cases table."""
    top = tmp_path / "maptask-vlm"
    rows = transcript_rows()
    for k, model in ((3, "qwen2.5-vl-7b"), (4, "llava-next-7b")):
        write_jsonl(
            top / PRED / f"vlm_predictions_{model}.jsonl",
            [record(model, c[0], c[1], c[k], rows) for c in CASES],
        )
    if cases_table:
        table = pd.DataFrame(
            [
                {
                    "case_id": cid,
                    "dialogue_id": cid.split("_")[0],
                    "turn_id": int(cid.split("_")[1]),
                    "landmark": parse_case_id(cid)[2],  # type: ignore[index]
                    "referent_status": status if exp == "follower_grounding" else "unique",
                    "giver_referent_status": status if exp == "giver_ambiguity" else "unique",
                    "experiment_type": exp,
                }
                for exp, cid, status, *_ in CASES
            ]
        )
        (top / "data" / "interim").mkdir(parents=True)
        table.to_parquet(top / "data" / "interim" / "pilot_cases.parquet")
    return top


def q1ec1_sessions(tmp_path: Path, layout: str = "pipe") -> dict:
    """The real q1ec1 imported as the project imports it: the speaker|text|move file, or the archive's
    NXT moves with the query transcript (the file the case ids number)."""
    if layout == "pipe":
        r = import_source("hcrc", HCRC / "q1ec1.pipe.txt")
    else:
        top = tmp_path / "hcrc" / "maptask_archive"
        (top / "moves").mkdir(parents=True)
        (top / "transcripts").mkdir()
        for side in ("g", "f"):
            shutil.copy(HCRC / f"q1ec1.{side}.moves.xml", top / "moves" / f"q1ec1.{side}.moves.xml")
        shutil.copy(HCRC / "q1ec1.nxt_query_transcript.txt", top / "transcripts" / "q1ec1.txt")
        r = import_source("hcrc", top)
    assert r.report.ok, r.report.format()
    return {s.id: s for s in r.sessions}


# ---------------------------------------------------------------------------------------------
# Format
# ---------------------------------------------------------------------------------------------


def test_case_ids_and_answers_are_read_as_the_authors_read_them():
    assert parse_case_id("q1ec1_34_fenced_meadow") == ("q1ec1", 34, "fenced meadow")
    assert parse_case_id("q1nc3_271_carved_wooden_pole") == ("q1nc3", 271, "carved wooden pole")
    assert parse_case_id("q1ec1_0_start") is None  # turns are numbered from 1
    assert parse_case_id("q1ec1_fenced_meadow") is None
    abc = "ABC"
    assert read_answer("follower_grounding", A, abc) == "A"
    assert read_answer("follower_grounding", "B ", abc) == "B"  # LLaVA-NeXT's answers
    assert read_answer("follower_grounding", " C) I see more", abc) == "C"  # Molmo's leading space
    assert read_answer("follower_grounding", "Answer: B", abc) == UNREAD  # not the letter A
    assert read_answer("follower_grounding", "I think so", abc) == UNREAD
    assert read_answer("follower_grounding", "D) none of these", abc) is None  # not an option
    assert read_answer("giver_ambiguity", " Yes. Stone Creek appears twice", ["Yes", "No"]) == "Yes"
    assert read_answer("giver_ambiguity", "no, once", ["Yes", "No"]) == "No"
    assert read_answer("giver_ambiguity", "maybe", ["Yes", "No"]) == UNREAD


# ---------------------------------------------------------------------------------------------
# Moments of the imported HCRC sessions
# ---------------------------------------------------------------------------------------------


@needs_hcrc
@pytest.mark.parametrize("layout", ["pipe", "nxt"])
def test_a_case_is_the_action_of_its_transcript_row(tmp_path, layout):
    sessions = q1ec1_sessions(tmp_path, layout)
    rows = transcript_rows()
    bench, report = read_maptask_vlm(release(tmp_path), sessions=sessions)
    assert report.ok, report.format()
    ctx = bench.contexts["q1ec1"]
    assert ctx["session_id"] == "q1ec1" and ctx["checked"] is True
    s = sessions["q1ec1"]
    assert len(s.actions) == len(rows) == 77
    expected = {
        "follower_grounding__q1ec1_34_fenced_meadow": 33,
        "giver_ambiguity__q1ec1_34_fenced_meadow": 33,
        "follower_grounding__q1ec1_19_fenced_meadow": 18,
        "giver_ambiguity__q1ec1_19_fenced_meadow": 18,
        "follower_grounding__q1ec1_2_caravan_park": 1,
        "follower_grounding__q1ec1_28_abandoned_cottage": 27,
        "follower_grounding__q1ec1_4_old_mill": 3,
    }
    assert ctx["moments"] == expected
    for item, index in expected.items():
        text = s.actions[index].content
        _, turn, landmark = parse_case_id(item.split("__")[1]) or ("", 0, "")
        assert turn == index + 1 and isinstance(text, str) and landmark in text
    # The action holds the words of the row the case id numbers (the pipe file drops cut-off words).
    assert (
        s.actions[33].content == "and on the sort of mmhmm top erm left of that again below it there's a fenced meadow"
    )
    assert rows[33] == s.actions[33].content and s.actions[33].role == "guide"
    assert s.actions[18].content.endswith("there's a fenced meadow")
    assert replay_link(ctx["session_id"], ctx["moments"]["follower_grounding__q1ec1_34_fenced_meadow"]) == (
        "replay?session=q1ec1&step=33"
    )
    links = moments(bench)
    assert len(links) == 7 and set(links["session_id"]) == {"q1ec1"}


@needs_hcrc
def test_unmatched_cases_are_counted_once_each_with_file_case_and_field(tmp_path):
    bench, report = read_maptask_vlm(release(tmp_path), sessions=q1ec1_sessions(tmp_path))
    assert report.ok
    unmatched = [w for w in report.warnings if w.message.startswith("unmatched")]
    assert len(unmatched) == 3  # once per case, though two files answer each
    first_file = f"{PRED}/vlm_predictions_llava-next-7b.jsonl"  # files are read in name order
    by_case = {w.record: w for w in unmatched}
    assert set(by_case) == {"q1ec1_120_fenced_meadow", "q1ec1_20_caravan_park", "q7nc8_88_crane_bay"}
    assert all(w.file == first_file and w.field == "case_id" for w in unmatched)
    assert "turn 120 is beyond session q1ec1's 77 actions" in by_case["q1ec1_120_fenced_meadow"].message
    assert "does not say 'caravan park'" in by_case["q1ec1_20_caravan_park"].message
    assert "dialogue q7nc8 is not a session" in by_case["q7nc8_88_crane_bay"].message
    assert bench.contexts["q1ec1"]["unmatched"].keys() == {
        "follower_grounding__q1ec1_120_fenced_meadow",
        "follower_grounding__q1ec1_20_caravan_park",
    }
    assert bench.contexts["q7nc8"] | {"unmatched": None} == {
        "dialogue": "q7nc8",
        "session_id": None,
        "checked": True,
        "moments": {},
        "unmatched": None,
    }
    # Unmatched cases stay items and are scored; only their moment is missing.
    assert len(bench.items) == 10
    assert "7 linked to a session moment, 3 unmatched" in bench.description


@needs_hcrc
def test_without_sessions_the_moments_follow_the_rule_unchecked(tmp_path):
    bench, report = read_maptask_vlm(release(tmp_path))
    assert report.ok and not [w for w in report.warnings if w.message.startswith("unmatched")]
    assert bench.contexts["q1ec1"]["checked"] is False
    assert bench.contexts["q1ec1"]["moments"]["follower_grounding__q1ec1_120_fenced_meadow"] == 119
    assert bench.contexts["q7nc8"]["moments"] == {"follower_grounding__q7nc8_88_crane_bay": 87}


# ---------------------------------------------------------------------------------------------
# Items, runs and scores
# ---------------------------------------------------------------------------------------------


@needs_hcrc
def test_items_runs_and_accuracy_equal_a_hand_count(tmp_path):
    bench, report = read_maptask_vlm(release(tmp_path), sessions=q1ec1_sessions(tmp_path))
    assert report.ok
    items = bench.items.set_index("item_id")
    it = items.loc["follower_grounding__q1ec1_34_fenced_meadow"]
    assert it["group"] == "q1ec1" and it["question_id"] == "34_fenced_meadow"
    assert it["options"] == [
        "A. I can see it and understand -- proceed",
        "B. I don't see that landmark on my map",
        "C. I see more than one possible match -- ask which one",
    ]
    assert it["option_kinds"] == ["true_answer", "missing", "ambiguous"] and it["gold"] == "A"
    assert (it["question_type"], it["status"], it["condition"], it["landmark"]) == (
        "follower_grounding",
        "unique",
        "eye_contact",
        "fenced meadow",
    )
    assert "there's a fenced meadow" in it["question"]
    giver = items.loc["giver_ambiguity__q1ec1_34_fenced_meadow"]
    assert [o.split(".")[0] for o in giver["options"]] == ["Yes", "No"] and giver["gold"] == "Yes"
    assert giver["option_kinds"] == ["true_answer", "unique"]
    assert items.loc["follower_grounding__q1ec1_4_old_mill", "gold"] == "B"
    assert items.loc["follower_grounding__q7nc8_88_crane_bay", "condition"] == "no_eye_contact"

    assert [r.run_id for r in bench.runs] == ["llava-next-7b", "qwen2.5-vl-7b"] and all(r.ok for r in bench.runs)
    llava = {r.run_id: r for r in bench.runs}["llava-next-7b"]
    answers = dict(zip(llava.answers["item_id"], llava.answers["answer"], strict=True))
    assert answers["giver_ambiguity__q1ec1_34_fenced_meadow"] == NO_ANSWER  # raw_response null
    assert answers["follower_grounding__q1ec1_28_abandoned_cottage"] == UNREAD
    assert llava.no_answer == 1 and llava.unmatched == 0 and llava.groups == 2
    (unread,) = [w for w in llava.report.warnings if w.field == "raw_response"]
    assert unread.record == "q1ec1_28_abandoned_cottage" and "1 response name no option" in unread.message

    # By hand: qwen is right on 34, 2, old mill, 120, crane bay and giver 19 (6 of 10); llava on old
    # mill and giver 19 (2 of 10): its null and its unread answer count as wrong.
    hand = {}
    for model, k in (("qwen2.5-vl-7b", 3), ("llava-next-7b", 4)):
        right = 0
        for _exp, _cid, status, *resp in CASES:
            said = resp[k - 3]
            if said is None:
                continue
            letter = said.strip()[:3].split(")")[0].split(".")[0].strip()
            right += letter == GOLD[status]
        hand[model] = right
    assert hand == {"qwen2.5-vl-7b": 6, "llava-next-7b": 2}
    acc = compare_benchmark(bench).accuracy(None).set_index("run")
    for model, right in hand.items():
        assert (acc.loc[model, "correct"], acc.loc[model, "n"]) == (right, 10)
        assert acc.loc[model, "estimate"] == pytest.approx(right / 10)
    by_type = compare_benchmark(bench).accuracy("question_type")
    qwen_giver = by_type[(by_type["run"] == "qwen2.5-vl-7b") & (by_type["value"] == "giver_ambiguity")].iloc[0]
    assert (qwen_giver["correct"], qwen_giver["n"]) == (1, 2)


@needs_hcrc
def test_the_benchmark_and_its_moments_survive_a_round_trip(tmp_path):
    bench, report = read_maptask_vlm(release(tmp_path), sessions=q1ec1_sessions(tmp_path))
    assert report.ok
    back = load_benchmark(write_benchmark_dataset(tmp_path / "ds", bench))
    assert back.contexts == bench.contexts and back.slices == bench.slices and back.kind == "maptask_vlm"
    assert back.items["item_id"].tolist() == bench.items["item_id"].tolist()
    acc = compare_benchmark(back).accuracy(None).set_index("run")
    assert acc.loc["qwen2.5-vl-7b", "correct"] == 6 and acc.loc["llava-next-7b", "correct"] == 2


@needs_hcrc
@needs_gmmt
def test_gold_from_the_real_landmark_catalogue_of_map_m12(tmp_path):
    """GMMT's catalogue rows (maptask-landmarks.xml's giver_map_appears / follower_map_appears) and
    its dialogue-to-map table give the statuses the authors derive: fenced meadow is on m12's
    giver map twice and the follower's once (giver ambiguous, follower unique); old mill is missing
    from the follower's. q7nc8's map is not in the m9/m12 subset: no gold, said so, not an item."""
    top = release(tmp_path, cases_table=False)
    gold = tmp_path / "gold"
    gold.mkdir()
    for name in ("landmarks_configuration.m9_m12_subset.csv", "dialogue_map_images.csv"):
        shutil.copy(GMMT / name, gold / name)
    bench, report = read_maptask_vlm(top, sessions=q1ec1_sessions(tmp_path), gold=gold)
    assert report.ok, report.format()
    items = bench.items.set_index("item_id")
    assert items.loc["follower_grounding__q1ec1_34_fenced_meadow", "gold"] == "A"
    assert items.loc["giver_ambiguity__q1ec1_34_fenced_meadow", "gold"] == "Yes"
    assert items.loc["follower_grounding__q1ec1_4_old_mill", ["gold", "status"]].tolist() == ["B", "missing"]
    assert "follower_grounding__q7nc8_88_crane_bay" not in items.index
    (no_gold,) = [w for w in report.warnings if "no gold" in w.message]
    assert (no_gold.record, no_gold.field) == ("q7nc8_88_crane_bay", "case_id")
    runs = {r.run_id: r for r in bench.runs}
    assert runs["qwen2.5-vl-7b"].unmatched == 1  # its answer to the case without gold
    acc = compare_benchmark(bench).accuracy(None).set_index("run")
    assert (acc.loc["qwen2.5-vl-7b", "correct"], acc.loc["qwen2.5-vl-7b", "n"]) == (5, 9)


# ---------------------------------------------------------------------------------------------
# Refusals
# ---------------------------------------------------------------------------------------------


@needs_hcrc
def test_a_malformed_record_refuses_its_run_whole_naming_file_record_and_field(tmp_path):
    top = release(tmp_path)
    rows = transcript_rows()
    good = record("molmo-7b-d", "follower_grounding", "q1ec1_34_fenced_meadow", " A) I can see it", rows)
    no_id = {k: v for k, v in record("molmo-7b-d", "follower_grounding", "q1ec1_2_caravan_park", A, rows).items()}
    del no_id["case_id"]
    write_jsonl(top / PRED / "vlm_predictions_molmo-7b-d.jsonl", [good, no_id])
    bad_letter = record("internvl", "follower_grounding", "q1ec1_4_old_mill", "D) somewhere else", rows)
    write_jsonl(top / PRED / "vlm_predictions_internvl.jsonl", [good | {"model": "internvl"}, bad_letter])
    bench, report = read_maptask_vlm(top, sessions=q1ec1_sessions(tmp_path))
    assert report.ok  # the gold and the items are fine: only the two runs are refused
    runs = {r.run_id: r for r in bench.runs}
    assert not runs["molmo-7b-d"].ok and not runs["internvl"].ok
    assert runs["qwen2.5-vl-7b"].ok and runs["llava-next-7b"].ok
    (e,) = runs["molmo-7b-d"].report.errors
    assert (e.file, e.record, e.field) == (f"{PRED}/vlm_predictions_molmo-7b-d.jsonl", "line 2", "case_id")
    (e,) = runs["internvl"].report.errors
    assert (e.file, e.record, e.field) == (f"{PRED}/vlm_predictions_internvl.jsonl", "q1ec1_4_old_mill", "raw_response")
    assert "not one of the options (A, B, C)" in e.message
    # A refused run is not scored.
    assert set(compare_benchmark(bench).accuracy(None)["run"]) == {"qwen2.5-vl-7b", "llava-next-7b"}


@needs_hcrc
@pytest.mark.parametrize(
    "change, field",
    [
        ({"experiment_type": "listener"}, "experiment_type"),
        ({"raw_response": ["A"]}, "raw_response"),
        ({"model": "other-model"}, "model"),
        ({"case_id": "q1ec1-34-fenced-meadow"}, "case_id"),
    ],
)
def test_each_malformed_field_is_named(tmp_path, change, field):
    top = release(tmp_path)
    rows = transcript_rows()
    first = record("m", "follower_grounding", "q1ec1_34_fenced_meadow", A, rows)
    second = record("m", "follower_grounding", "q1ec1_2_caravan_park", A, rows) | change
    write_jsonl(top / PRED / "vlm_predictions_m.jsonl", [first, second])
    bench, _ = read_maptask_vlm(top)
    run = {r.run_id: r for r in bench.runs}["m"]
    assert not run.ok and [e.field for e in run.report.errors] == [field]


@needs_hcrc
def test_without_gold_the_import_is_refused_saying_what_to_give(tmp_path):
    top = release(tmp_path, cases_table=False)
    bench, report = read_maptask_vlm(top)
    (e,) = report.errors
    assert e.field == "(gold)" and "cases table" in e.message and "maptask-landmarks.xml" in e.message
    with pytest.raises(DatasetError):
        load_maptask_vlm(top)
    _, report = read_maptask_vlm(tmp_path / "nowhere")
    assert not report.ok and "not found" in report.errors[0].message


@needs_hcrc
def test_imported_from_the_command_line_an_instance_opens_its_moment_in_replay(tmp_path, monkeypatch, capsys):
    """q1ec1 imported as a dataset, the release imported against it (format told from the file
    names): the Compare page's instance of case q1ec1_34 links Replay at action 33 of q1ec1, on the
    HCRC dataset."""
    from streamlit.testing.v1 import AppTest

    from corpus.cli import main as corpus_cli
    from corpus.loading.catalog import key_of

    roots = tmp_path / "datasets"
    assert corpus_cli(["import", "--from", "hcrc", str(HCRC / "q1ec1.pipe.txt"), str(roots / "q1ec1")]) == 0
    src = release(tmp_path)
    assert corpus_cli(["import", str(src), str(roots / "vlm"), "--sessions", str(roots / "q1ec1")]) == 0
    assert "Read as Map Task VLM predictions (found 2 VLM prediction file(s)" in capsys.readouterr().out
    bench = load_benchmark(roots / "vlm")
    assert bench.contexts["q1ec1"]["dataset"] == key_of(roots / "q1ec1")
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(roots))
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=120)
    at.query_params["dataset"] = key_of(roots / "vlm")  # the link that names the benchmark
    at.run()
    at.switch_page("pages/compare.py").run()
    assert at.title[0].value == "Models on a benchmark"
    at.session_state["bench_tab"] = "Instances"
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.exception]
    at.toggle(key="bench_inst_wrong").set_value(False).run()
    at.selectbox(key="bench_inst_item").set_value("follower_grounding__q1ec1_34_fenced_meadow").run()
    assert not at.exception, [e.value for e in at.exception]
    (link,) = [b for b in at.get("link_button")]
    assert link.proto.url == f"replay?session=q1ec1&step=33&dataset={key_of(roots / 'q1ec1')}"
    assert link.proto.label == "Open action 34 of q1ec1 in Replay"
