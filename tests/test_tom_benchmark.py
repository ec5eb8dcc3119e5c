"""Theory-of-mind benchmarks as released: DynToM trial folders read as items and runs, scored as the
authors' evaluation code scores them, imported all or nothing, and compared from the command line.

The DynToM repository has no licence, so none of its files is kept here: the real trials are read at
test time from a mirror of GAIR-NLP/DynToM (``GROUNDWORK_DYNTOM_REPO``, else found as
:func:`real_data.mirror` says), and skipped with the reason where there is none. The other tests
build trials in exactly the released shape (:mod:`corpus.generate.tom`, or by hand below).
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from real_data import DYNTOM_REPO, no_mirror
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

from analysis.benchmark import MIN_CLUSTERS, _weights, accuracy_table, compare_benchmark, paired_test
from analysis.cli import main as analysis_cli
from corpus.benchmark.dataset import load_benchmark, write_benchmark_dataset
from corpus.cli import main as corpus_cli
from corpus.generate.tom import write_dyntom_trials
from corpus.importers import run_import
from corpus.importers.detect import detect
from corpus.importers.tom import load_dyntom, read_dyntom
from corpus.importers.tom.dyntom import question_slices
from corpus.loading.report import DatasetError

DYNTOM_COMMIT = "f0d81d12"  # the commit whose history holds the trials with answers and evaluations
TRIALS = "synthesize_data/script/data"


def real_trials(dest: Path, names: list[str]) -> Path:
    """The named trial folders of the DynToM release, as released, under ``dest``."""
    if not (DYNTOM_REPO / "HEAD").exists() and not (DYNTOM_REPO / ".git").exists():
        pytest.skip(no_mirror(DYNTOM_REPO, "GAIR-NLP/DynToM", "GROUNDWORK_DYNTOM_REPO"))
    paths = [f"{TRIALS}/{n}" for n in names]
    try:
        tar = subprocess.run(
            ["git", "--git-dir", str(DYNTOM_REPO), "archive", DYNTOM_COMMIT, *paths],
            check=True,
            capture_output=True,
        ).stdout
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        pytest.skip(f"the DynToM mirror at {DYNTOM_REPO} does not hold {DYNTOM_COMMIT}: {exc}")
    with tarfile.open(fileobj=io.BytesIO(tar)) as tf:
        tf.extractall(dest, filter="data")
    return dest / TRIALS


# -- the authors' evaluation, to 3 decimals ------------------------------------------------------

SECTIONS = {
    "question_type": "question_type_accuracy",
    "mental_state": "mental_type",
    "time_span": "time",
    "reasoning": "reason_or_not",
}


def test_real_trials_score_as_the_authors_evaluation_files_say(tmp_path):
    """Two released trials, ten models each: accuracy by question type, mental state (each state
    and each transition), time span (each span and each scenario), reason / not reason, and every
    state:span cell, equal to the authors' own ``level1_q_a_<model>.json`` in the same folder."""
    root = real_trials(tmp_path, ["trial100", "trial1000"])
    bench = load_dyntom(root)
    assert len(bench.items) == 142 and len(bench.runs) == 10 and not bench.refused
    long = compare_benchmark(bench).long
    checked = 0
    for folder in sorted(root.iterdir()):
        for qa in sorted(folder.glob("level1_q_a_*.json")):
            model = qa.name[len("level1_q_a_") : -len(".json")]
            ref = json.loads(qa.read_text(encoding="utf-8"))
            mine = long[(long["group"] == folder.name) & (long["run"] == f"{model} (level1)")]
            assert len(mine) == 71
            for field, section in SECTIONS.items():
                for value, acc in mine[mine[field] != ""].groupby(field, observed=True)["correct"].mean().items():
                    want = ref[section][value]
                    assert round(acc, 3) == round(want["accuracy"] if isinstance(want, dict) else want, 3)
                    checked += 1
            cells = mine[mine["mental_state"] != ""]
            keys = cells["mental_state"].astype(str) + ":" + cells["time_span"].astype(str)
            for key, acc in cells.groupby(keys)["correct"].mean().items():
                assert round(acc, 3) == round(ref["question_all"][key]["accuracy"], 3)
                checked += 1
    assert checked == 2 * 10 * (3 + 7 + 9 + 2 + 51)


def test_real_trials_from_the_command_line(tmp_path, capsys):
    """``compare TRIALS --json`` takes the folder of trials as the benchmark and scores every answer
    file as a run; the pooled accuracy is the authors' counts summed over the two trials."""
    root = real_trials(tmp_path, ["trial100", "trial1000"])
    assert analysis_cli(["compare", str(root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["items"] == 142 and out["trials"] == 2 and len(out["runs"]) == 10
    by_type = {(r["run"], r["value"]): r for r in out["accuracy"]["question_type"]}
    for model in ("gpt-4o-2024-05-13", "Qwen2-72B-Instruct"):
        refs = [json.loads((root / t / f"level1_q_a_{model}.json").read_text()) for t in ("trial100", "trial1000")]
        for qtype in ("type_a", "type_c", "type_d"):
            correct = sum(
                round(r["question_type_accuracy"][qtype] * r["question_type_accuracy"][f"{qtype}_count"]) for r in refs
            )
            count = sum(r["question_type_accuracy"][f"{qtype}_count"] for r in refs)
            cell = by_type[(f"{model} (level1)", qtype)]
            assert (cell["correct"], cell["n"]) == (correct, count)


# -- the authors' rules ---------------------------------------------------------------------------


def test_question_slices_follow_the_authors_mapping():
    assert question_slices("type_a_what_7") == {
        "question_type": "type_a",
        "form": "what",
        "mental_state": "emotion",
        "time_span": "2",
        "reasoning": "not_reason",
    }
    assert question_slices("type_d_why_12") == {
        "question_type": "type_d",
        "form": "why",
        "mental_state": "intention",
        "time_span": "4->5",
        "reasoning": "reason",
    }
    assert question_slices("type_d_whether_13")["time_span"] == "1->2"
    assert question_slices("type_c_how_6")["mental_state"] == "belief&emotion->intention"
    assert question_slices("type_c_how_15")["time_span"] == "5"
    how = question_slices("type_d_how_3")
    assert how["question_type"] == "type_d" and how["mental_state"] == how["time_span"] == how["reasoning"] == ""


def _trial(folder: Path, answers: dict[str, dict], questions: dict | None = None) -> None:
    folder.mkdir(parents=True)
    qs = questions or {
        "type_a_what_1": {"question": "What is the belief of A in scenario 1?", "true answer": "a",
                          "options": ["a. yes", "b. no", "c. maybe"], "question type": "type_a",
                          "option reasons": [{"option": "no", "short": "type_a_what_time_stage"}]},
        "type_a_what_6": {"question": "What is the emotion of A in scenario 1?", "true answer": "b",
                          "options": ["a. joy", "b. fear"], "question type": "type_a"},
        "type_d_why_1": {"question": "Why does the belief change from 1 to 2?", "true answer": "c",
                         "options": ["a. x", "b. y", "c. z"], "question type": "type_d"},
        "type_d_how_1": {"question": "How does the belief change?", "true answer": "a",
                         "options": ["a. p", "b. q"], "question type": "type_d"},
    }  # fmt: skip
    (folder / "question_new.json").write_text(json.dumps(qs), encoding="utf-8")
    for name, ans in answers.items():
        (folder / name).write_text(json.dumps(ans), encoding="utf-8")


def test_a_hand_counted_trial(tmp_path):
    """One trial of four questions, two runs. m1 answers all four, right on what_1, why_1 and
    how_1: 3/4; by state, belief 2/2 (what_1, why_1) and emotion 0/1; how_1 has no state. m2's file
    leaves why_1 out (wrong, counted as no answer), answers an id the trial lacks (unmatched), and
    carries the file's own summary keys (ignored): right on what_6 only, 1/4."""
    _trial(
        tmp_path / "trial7",
        {
            "level1_answer_m1.json": {"type_a_what_1": "a", "type_a_what_6": "a", "type_d_why_1": "c", "type_d_how_1": "a"},
            "level1_answer_m2.json": {"type_a_what_1": "b", "type_a_what_6": "b", "type_d_how_1": "b",
                                      "type_c_how_99": "a", "accuracy": 0.25, "question_count": 4,
                                      "error_list": [], "error_analysis": {}},
        },
    )  # fmt: skip
    bench = load_dyntom(tmp_path / "trial7")
    cmp = compare_benchmark(bench)
    overall = cmp.accuracy(None).set_index("run")
    assert overall.loc["m1 (level1)", ["correct", "n"]].tolist() == [3, 4]
    assert overall.loc["m2 (level1)", ["correct", "n"]].tolist() == [1, 4]
    state = cmp.accuracy("mental_state").set_index(["run", "value"])
    assert state.loc[("m1 (level1)", "belief"), ["correct", "n"]].tolist() == [2, 2]
    assert state.loc[("m1 (level1)", "emotion"), ["correct", "n"]].tolist() == [0, 1]
    cov = cmp.coverage().set_index("run")
    assert cov.loc["m2 (level1)", ["no_answer", "unmatched"]].tolist() == [1, 1]
    # One trial: the Wilson interval over items, as statsmodels gives it.
    lo, hi = proportion_confint(3, 4, method="wilson")
    assert overall.loc["m1 (level1)", "ci_low"] == pytest.approx(lo)
    assert overall.loc["m1 (level1)", "ci_high"] == pytest.approx(hi)
    # What each run chose: m1's wrong answer on what_6 is an unnamed distractor; m2's on what_1 the
    # one the option reasons name.
    assert cmp.confusion("m2 (level1)").loc["type_a_what_time_stage", "type_a"] == 1
    assert cmp.confusion("m2 (level1)").loc["no answer", "type_d"] == 1
    item = cmp.item("trial7/type_d_why_1")
    assert item["answers"] == {"m1 (level1)": "c", "m2 (level1)": ""}


def test_a_bad_answer_refuses_its_run_whole_and_the_import(tmp_path):
    """A non-letter answer in one file of a run refuses the run (named by file, question and field),
    the other runs are scored; the import of the trials is refused whole, writing nothing."""
    _trial(tmp_path / "src" / "trial1", {"level1_answer_ok.json": {"type_a_what_1": "a"},
                                         "level1_answer_bad.json": {"type_a_what_1": "a"}})  # fmt: skip
    _trial(tmp_path / "src" / "trial2", {"level1_answer_ok.json": {"type_a_what_1": "a"},
                                         "level1_answer_bad.json": {"type_a_what_6": 2}})  # fmt: skip
    bench, report = read_dyntom(tmp_path / "src")
    assert report.ok
    assert [r.run_id for r in bench.ok_runs] == ["ok (level1)"]
    (issue,) = bench.refused[0].report.errors
    assert (issue.file, issue.record, issue.field) == ("trial2/level1_answer_bad.json", "type_a_what_6", "answer")
    assert "expected an option letter, got the integer 2" in issue.message
    with pytest.raises(DatasetError) as err:
        run_import("dyntom", tmp_path / "src", tmp_path / "dest")
    assert "trial2/level1_answer_bad.json type_a_what_6 answer" in str(err.value)
    assert not (tmp_path / "dest").exists()


def test_a_bad_question_file_names_file_question_and_field(tmp_path):
    qs = {"type_a_what_1": {"question": "Q?", "true answer": "z", "options": ["a. x", "b. y"]},
          "type_a_what_2": {"question": "Q?", "true answer": "a", "options": "a. x"}}  # fmt: skip
    _trial(tmp_path / "trial1", {}, questions=qs)
    bench, report = read_dyntom(tmp_path / "trial1")
    got = [(i.file, i.record, i.field) for i in report.errors]
    assert got == [
        ("question_new.json", "type_a_what_1", "true answer"),
        ("question_new.json", "type_a_what_2", "options"),
    ]
    assert "'z' is not one of the options (a, b)" in report.errors[0].message


# -- the dataset, the intervals, the tests --------------------------------------------------------


def test_generated_trials_import_detected_and_read_back_exactly(tmp_path, capsys):
    raw = write_dyntom_trials(tmp_path / "raw", n_trials=3, seed=4)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(raw.rglob("*.json")):
            zf.write(p, p.relative_to(raw.parent).as_posix())
    assert detect(zipfile.ZipFile(io.BytesIO(buf.getvalue())).namelist()).fmt == "dyntom"
    (tmp_path / "trials.zip").write_bytes(buf.getvalue())
    assert corpus_cli(["import", str(tmp_path / "trials.zip"), str(tmp_path / "ds")]) == 0
    assert capsys.readouterr().out.startswith("Read as DynToM theory-of-mind trials")
    direct = load_dyntom(raw)
    loaded = load_benchmark(tmp_path / "ds")
    assert loaded.kind == "dyntom" and len(loaded.items) == 3 * 71 and len(loaded.runs) == 6
    pd.testing.assert_frame_equal(loaded.items, direct.items, check_dtype=False)
    for a, b in zip(loaded.runs, direct.runs):
        assert a.run_id == b.run_id
        pd.testing.assert_frame_equal(a.answers, b.answers)
    pd.testing.assert_frame_equal(
        compare_benchmark(loaded).accuracy("time_span"), compare_benchmark(direct).accuracy("time_span")
    )
    assert loaded.contexts["trial1"]["scenarios"][0]["scenario"] == "scenario 1"


def test_the_cluster_bootstrap_equals_a_loop_over_resampled_trials(tmp_path):
    """With 12 trials the interval resamples trials: the vectorised version equals recomputing the
    pooled accuracy on each resample of trials one by one."""
    bench = load_dyntom(write_dyntom_trials(tmp_path / "raw", n_trials=MIN_CLUSTERS + 2, seed=1))
    long = compare_benchmark(bench).long
    run = bench.ok_runs[0].run_id
    table = accuracy_table(long, "question_type", n_boot=200, seed=3)
    row = table[(table["run"] == run) & (table["value"] == "type_c")].iloc[0]
    d = long[(long["run"] == run) & (long["question_type"] == "type_c")]
    groups = sorted(long["group"].unique())
    per = d.groupby("group")["correct"].agg(["sum", "size"]).reindex(groups, fill_value=0)
    w = _weights(len(groups), 200, 3)
    reps = [(w[b] * per["sum"]).sum() / (w[b] * per["size"]).sum() for b in range(200)]
    lo, hi = np.quantile(reps, [0.025, 0.975])
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi))
    assert "over 12 trials" in row["interval_method"]


def test_paired_test_is_mcnemars_on_the_shared_items(tmp_path):
    bench = load_dyntom(write_dyntom_trials(tmp_path / "raw", n_trials=2, seed=2))
    long = compare_benchmark(bench).long
    a, b = bench.ok_runs[0].run_id, bench.ok_runs[1].run_id
    res = paired_test(long, a, b)
    x = long[long["run"] == a].set_index("item_id")["correct"]
    y = long[long["run"] == b].set_index("item_id")["correct"].reindex(x.index)
    table = [[int((x & y).sum()), int((x & ~y).sum())], [int((~x & y).sum()), int((~x & ~y).sum())]]
    assert res["p_value"] == pytest.approx(mcnemar(table, exact=True).pvalue)
    assert res["difference"] == pytest.approx(x.mean() - y.mean())
    assert res["n"] == 142


def test_every_run_refused_ends_in_a_message_not_a_traceback(tmp_path, capsys):
    _trial(tmp_path / "trial1", {"level1_answer_m.json": {"type_a_what_1": ["a"]}})
    assert analysis_cli(["compare", str(tmp_path / "trial1"), "--json"]) == 1
    err = capsys.readouterr().err
    assert "no run to score (1 refused, none valid)" in err and "Traceback" not in err
    assert "level1_answer_m.json" in err


def test_almanac_runs_all_refused_end_in_a_message(tmp_path, capsys):
    """Before, a run set with no valid run crashed with KeyError: 'estimate' in the leaderboard."""
    sample_path = Path(__file__).resolve().parent.parent / "sample_data"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"session_id": "trial99", "action_index": 1}\n', encoding="utf-8")
    assert analysis_cli(["compare", str(sample_path), str(bad), "--json"]) == 1
    err = capsys.readouterr().err
    assert "no run to compare" in err and "Traceback" not in err


def test_the_bundled_sample_benchmark_is_the_generator_s(tmp_path):
    """samples/dyntom-synthetic is what ``corpus generate-tom`` writes (so the sample is never edited
    by hand), marked synthetic."""
    here = Path(__file__).resolve().parent.parent / "samples" / "dyntom-synthetic"
    assert corpus_cli(["generate-tom", str(tmp_path / "again")]) == 0
    for name in ("items.csv", "answers.csv", "runs.json", "contexts.json", "dataset.json"):
        assert (tmp_path / "again" / name).read_bytes() == (here / name).read_bytes(), name
    bench = load_benchmark(here)
    assert bench.synthetic and "synthetic" in bench.name.lower()


def test_write_refuses_nothing_silently(tmp_path):
    bench = load_dyntom(write_dyntom_trials(tmp_path / "raw", n_trials=1))
    write_benchmark_dataset(tmp_path / "ds", bench)
    with pytest.raises(FileExistsError):
        write_benchmark_dataset(tmp_path / "ds", bench)
    (tmp_path / "ds" / "items.csv").write_text('"item_id","group"\n"a","b"\n', encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        load_benchmark(tmp_path / "ds")
    assert "items.csv header question_id: missing column" in str(err.value)
    shutil.rmtree(tmp_path / "ds")


# -- ALMANAC's two tasks as benchmarks of the same kind -------------------------------------------


@pytest.mark.parametrize("task", ["mental_model", "next_action"])
def test_almanac_tasks_as_benchmarks_give_the_leaderboard_s_accuracies(task):
    """The sample's runs on the ALMANAC task, read as a general benchmark (an item per action and
    dimension, gold the person's label): accuracy per run and dimension, and per role, equals the
    Compare page's score table cell for cell (counts and estimates)."""
    from analysis.compare.comparison import compare
    from analysis.compare.scores import ALL
    from corpus.loading.dataset import load

    corpus = load(Path(__file__).resolve().parent.parent / "sample_data")
    cmp = compare(corpus, corpus.predictions.values(), similarity=False)
    bench = cmp.as_benchmark(task)
    assert bench.kind == "almanac" and [r.run_id for r in bench.runs] == cmp.run_ids
    general = compare_benchmark(bench)
    scores = cmp.score_frame
    acc = scores[scores["metric"] == "accuracy"]
    checked = 0
    for field in ("dimension", "role"):
        table = general.accuracy(field)
        for _, row in table.iterrows():
            if field == "dimension":
                want = acc[(acc["run"] == row["run"]) & (acc["dimension"] == row["value"])]
                want = want[(want["condition"] == ALL) & (want["role"] == ALL)]
            else:
                if len(bench.items["dimension"].unique()) > 1:
                    continue  # the score table has no cell pooling the three dimensions
                dim = bench.items["dimension"].iloc[0]
                want = acc[(acc["run"] == row["run"]) & (acc["role"] == row["value"]) & (acc["dimension"] == dim)]
                want = want[want["condition"] == ALL]
            (cell,) = want.to_dict("records")
            assert row["n"] == cell["n"]
            assert row["estimate"] == pytest.approx(cell["estimate"])
            checked += 1
    assert checked >= 2 * (3 if task == "mental_model" else 1)


def test_an_uploaded_zip_of_trials_is_kept_as_a_benchmark_dataset(tmp_path):
    """The upload detects DynToM trials, offers them as a format of their own, and keeps them as a
    benchmark dataset (what Compare reads), through the same code the worker runs."""
    from corpus.benchmark.dataset import is_benchmark
    from corpus.server.uploads import ImportChoices, Quota, add_upload
    from services.uploads import FORMATS, detected

    raw = write_dyntom_trials(tmp_path / "raw", n_trials=2, seed=9)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for p in sorted(raw.rglob("*.json")):
            zf.write(p, p.relative_to(raw).as_posix())
    found = detected(buf.getvalue())
    assert not isinstance(found, str) and found.fmt == "dyntom" and found.fmt in FORMATS.values()
    quota = Quota(2**30, 10_000, 2**31, 100_000, None)
    up, new, report = add_upload(
        str(tmp_path / "data"), "Trials.zip", buf.getvalue(), quota, "dyntom", ImportChoices(), "lead"
    )
    assert up is not None and new and report.ok, report.format()
    kept = next((tmp_path / "data" / "datasets").iterdir())
    assert is_benchmark(kept)
    bench = load_benchmark(kept)
    assert len(bench.items) == 142 and len(bench.runs) == 6
    assert bench.description.startswith("Imported from 'Trials.zip': 2 DynToM trial(s), 142 questions, 6 run(s).")


def test_generated_trials_read_raw_are_synthetic(tmp_path):
    """Trials of Groundwork's generator read as released trials (no dataset.json) make a benchmark marked
    synthetic, on the command line too; a trial whose meta.json names a real generating model does not."""
    import json as _json

    from analysis.cli import main
    from corpus.generate.tom import write_dyntom_trials
    from corpus.importers.tom import load_dyntom

    trials = write_dyntom_trials(tmp_path / "trials", n_trials=2, seed=1)
    assert load_dyntom(trials).synthetic is True
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["compare", str(trials), "--json"]) == 0
    assert _json.loads(out.getvalue())["synthetic"] is True
    (trials / "trial1" / "meta.json").write_text(_json.dumps({"generate_model": "gpt-4-turbo"}), encoding="utf-8")
    assert load_dyntom(trials).synthetic is False


def _by_hand(trials, model: str, setting: str, qids=None) -> dict[str, tuple[int, int]]:
    """Per trial, (right, questions) read straight from the release-format files: an answer is right when
    it is the question's ``true answer`` letter (a question the file leaves out is wrong)."""
    import json as _json

    out = {}
    for folder in sorted(trials.iterdir()):
        questions = _json.loads((folder / "question_new.json").read_text(encoding="utf-8"))
        answers = _json.loads((folder / f"{setting}_answer_{model}.json").read_text(encoding="utf-8"))
        asked = [q for q in questions if qids is None or q in qids]
        right = sum(
            str(answers.get(q, "")).strip().lower() == questions[q]["true answer"].strip().lower() for q in asked
        )
        out[folder.name] = (right, len(asked))
    return out


def test_per_trial_accuracy_and_crossed_slices_are_the_files_own_counts(tmp_path):
    """Per-trial accuracy is each trial's right answers over its questions, read from the files by hand;
    a crossed cell (mental state x time span) counts the questions of that cell: belief in scenario 1 is
    type_a_what_1, one per trial. Both come with intervals and are in the command line's JSON."""
    from analysis.benchmark import compare_benchmark
    from corpus.generate.tom import write_dyntom_trials
    from corpus.importers.tom import load_dyntom

    trials = write_dyntom_trials(tmp_path / "trials", n_trials=12, seed=4)
    cmp = compare_benchmark(load_dyntom(trials))
    run = "synth-medium (level1)"
    mine = cmp.per_trial()[lambda d: d["run"] == run].set_index("trial")
    hand = _by_hand(trials, "synth-medium", "level1")
    assert {t: (int(r.correct), int(r.n)) for t, r in mine.iterrows()} == hand
    assert (mine["ci_low"] <= mine["estimate"]).all() and (mine["estimate"] <= mine["ci_high"]).all()
    spread = cmp.trial_spread().set_index("run").loc[run]
    shares = [r / n for r, n in hand.values()]
    assert spread["trials"] == 12 and spread["mean"] == pytest.approx(sum(shares) / 12)
    assert spread["min"] == pytest.approx(min(shares)) and spread["max"] == pytest.approx(max(shares))
    crossed = cmp.crossed("mental_state", "time_span")
    cell = crossed[(crossed["run"] == run) & (crossed["mental_state"] == "belief") & (crossed["time_span"] == "1")]
    right = sum(r for r, _ in _by_hand(trials, "synth-medium", "level1", {"type_a_what_1"}).values())
    assert cell[["correct", "n"]].values.tolist() == [[right, 12]]
    assert cell["interval_method"].iloc[0].startswith("percentile bootstrap over 12 trials")
    out = cmp.to_json()
    assert len(out["per_trial"]) == 12 * len(cmp.run_ids)
    assert "mental_state × time_span" in out["crossed"] and len(out["crossed"]) == 10
