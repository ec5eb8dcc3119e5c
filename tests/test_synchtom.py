"""SynchToM's per-instance LLM-judge scores read as its ``evaluate.py`` writes them, checked record
by record (all or nothing per file), and scored by the judge-agreement code.

No score file is released (THUNLP-MT/SynchToM has only the code that writes them), so the files are
built here by hand in exactly the shape of ``evaluate.py``: ``evaluation_results/evaluation_<inference
name>_<timestamp>.json``, a JSON array of scored instances, and ``evaluation_summary.json`` beside
``evaluation_results/``, whose entries name each score file's judge model.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pandas as pd
import pytest
from real_data import SYNCHTOM_REPO, no_mirror
from sklearn.metrics import cohen_kappa_score

from analysis.compare.judges import judge_agreement
from corpus.importers.tom.synchtom import COLUMNS, DIMENSIONS, read_synchtom, to_judge_scores

LB, UP, CR = DIMENSIONS
QWEN, GPT = "Qwen/Qwen3-32B", "gpt-5.2"
INFERENCE = "swe-benchmark_claude_step10"  # the inference file's stem without "inference_"


def dimension(met: list[int], n_criteria: int | None = None) -> dict[str, Any]:
    """One dimension of the judge's reply after evaluate.py's normalisation: total_score is the sum
    of criterion_scores, max_score the number of rubric criteria."""
    return {
        "criterion_scores": {f"criterion_{k}": v for k, v in enumerate(met, start=1)},
        "total_score": sum(v for v in met if isinstance(v, int)),
        "max_score": n_criteria if n_criteria is not None else len(met),
        "feedback": "Criteria 1 met; criterion 2 missed.",
    }


def record(iid: str, lb: list[int], up: list[int], cr: list[int], **evaluation: Any) -> dict[str, Any]:
    """One scored instance, with every field evaluate.py writes."""
    dims = {LB: dimension(lb), UP: dimension(up), CR: dimension(cr), **evaluation}
    total = sum(d["total_score"] for d in dims.values() if isinstance(d, dict))
    top = sum(d["max_score"] for d in dims.values() if isinstance(d, dict))
    return {
        "instance_id": iid,
        "domain": "Software Engineering",
        "evaluated_at": "2026-01-13T09:40:02.123456",
        "ground_truth": {
            "user_profile": "A backend engineer.",
            "user_latent_belief": "The cache is stale.",
            "true_latent_state": "The index is missing.",
            "root_cause_of_misconception": "Slow queries look like stale reads.",
        },
        "inference": {
            "latent_belief_explanation": "The user thinks the cache is stale.",
            "user_profile_modeling": "An engineer used to caching bugs.",
            "correct_resolution": "Add the missing index.",
        },
        "rubrics": {
            dim: [{"criterion": f"The response states fact {k}."} for k in range(1, len(v) + 1)]
            for dim, v in ((LB, lb), (UP, up), (CR, cr))
        },
        "evaluation": {
            **dims,
            "overall_summary": {
                "total_score": total,
                "max_score": top,
                "percentage": total / top * 100,
                "strengths": "Names the index.",
                "weaknesses": "Misses the profile.",
                "overall_assessment": "Partly right.",
            },
            "raw_response": "Criterion 1 is met because ...\n```json\n{...}\n```",
        },
    }


def write_run(root: Path, runs: list[tuple[str, str, list[dict[str, Any]]]]) -> dict[str, Path]:
    """evaluate.py's output for several runs from one working folder: the score files under
    evaluation_results/ and one summary entry per run (timestamp -> judge, records)."""
    out = root / "evaluation_results"
    out.mkdir(parents=True, exist_ok=True)
    paths, summary = {}, []
    for stamp, judge, records in runs:
        name = f"evaluation_{INFERENCE}_{stamp}.json"
        (out / name).write_text(json.dumps(records, indent=2, ensure_ascii=False), encoding="utf-8")
        paths[judge] = out / name
        summary.append(
            {
                "timestamp": "2026-01-13T10:02:11.000001",
                "input_file": f"inference/inference_{INFERENCE}.json",
                "output_file": f"evaluation_results/{name}",
                "judge_model": judge,
                "evaluation_method": "rubric_based",
                "total_instances": len(records),
                "successful_evaluations": len(records),
                "failed_evaluations": 0,
                "scores": {d: {"average_score": 0.5, "percentage": 50.0} for d in (*DIMENSIONS, "overall")},
            }
        )
    (root / "evaluation_summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return paths


def two_judges(root: Path, qwen: list[dict[str, Any]], gpt: list[dict[str, Any]]) -> dict[str, Path]:
    return write_run(root, [("20260113_093402", QWEN, qwen), ("20260114_101500", GPT, gpt)])


GOOD_QWEN = [
    record("swe_0001", [1, 0, 1], [1, 1, 1, 0], [1, 1, 0, 0, 1]),
    record("swe_0002", [0, 0, 0], [0, 1, 0], [1, 1, 1, 1, 1, 0]),
]
GOOD_GPT = [
    record("swe_0002", [1, 0, 0], [0, 1, 1], [1, 1, 1, 1, 0, 0]),
    record("swe_0001", [1, 1, 1], [1, 0, 1, 0], [1, 0, 0, 0, 1]),
]


def test_scores_are_read_with_the_judge_the_summary_names(tmp_path):
    two_judges(tmp_path, GOOD_QWEN, GOOD_GPT)
    df, report = read_synchtom(tmp_path)
    assert report.ok and report.issues == []
    assert list(df.columns) == COLUMNS
    got = {(r.judge, r.instance_id, r.dimension): (r.score, r.criteria) for r in df.itertuples()}
    assert got == {
        (QWEN, "swe_0001", LB): (2, 2),
        (QWEN, "swe_0001", UP): (3, 3),
        (QWEN, "swe_0001", CR): (3, 3),
        (QWEN, "swe_0002", LB): (0, 0),
        (QWEN, "swe_0002", UP): (1, 1),
        (QWEN, "swe_0002", CR): (5, 5),  # 5 of the rubric's 6 criteria
        (GPT, "swe_0001", LB): (3, 3),
        (GPT, "swe_0001", UP): (2, 2),
        (GPT, "swe_0001", CR): (2, 2),
        (GPT, "swe_0002", LB): (1, 1),
        (GPT, "swe_0002", UP): (2, 2),
        (GPT, "swe_0002", CR): (4, 4),
    }
    assert df["score"].dtype == np.int64 and df["criteria"].dtype == np.int64
    assert all(isinstance(v, str) for c in ("instance_id", "judge", "dimension") for v in df[c])

    # One score file given alone: its judge from the summary beside evaluation_results/.
    one, report = read_synchtom(next((tmp_path / "evaluation_results").glob("*093402.json")))
    assert report.ok and set(one["judge"]) == {QWEN} and len(one) == 6

    mapped = to_judge_scores(df)
    assert list(mapped.columns) == ["session_id", "action_index", "task", "criterion", "judge", "score"]
    assert set(df["inference"]) == {INFERENCE}
    item = f"{INFERENCE}/swe_0002"  # an item is an instance of one inference file
    row = mapped[(mapped["judge"] == GPT) & (mapped["session_id"] == item) & (mapped["criterion"] == CR)]
    assert row[["action_index", "task", "score"]].values.tolist() == [[0, "synchtom", 4]]


def test_a_bad_record_names_file_record_and_field_and_refuses_its_file_whole(tmp_path):
    bad = [
        GOOD_QWEN[0],
        record("swe_0002", [0, 2, 0], [0, 1, 0], [1, 1, 1, 1, 1, 0]),  # a criterion scored 2
        {**record("swe_0003", [1, 1, 1], [1, 1, 1], [1, 1, 1, 1, 1])},
    ]
    del bad[2]["instance_id"]
    two_judges(tmp_path, bad, GOOD_GPT)
    df, report = read_synchtom(tmp_path)
    qwen_file = f"evaluation_results/evaluation_{INFERENCE}_20260113_093402.json"
    assert [(i.file, i.record, i.field, i.message) for i in report.errors] == [
        (
            qwen_file,
            "instance 'swe_0002'",
            f"evaluation.{LB}.criterion_scores.criterion_2",
            "expected 0 or 1, got the integer 2",
        ),
        (qwen_file, "record 3", "instance_id", "required field is missing"),
    ]
    assert set(df["judge"]) == {GPT} and len(df) == 6  # the qwen file's good record is not kept either


def test_other_refusals_each_name_their_field(tmp_path):
    qwen = [
        record("swe_0001", [1, 0, 1], [True, 1, 1], [1, 1, 0, 0, 1]),  # JSON true is not 0/1
        record("swe_0002", [0, 0, 0], [0, 1, 0], [1, 1, 1, 1, 1, 1]),  # 6 of 6 criteria: a valid 6
    ]
    qwen[1]["evaluation"][CR]["max_score"] = 5  # ... but the rubric is said to have 5
    gpt = [record("swe_0001", [1, 1, 1], [1, 0, 1, 0], [1, 0, 0, 0, 1])]
    gpt[0]["evaluation"][LB]["total_score"] = 2  # evaluate.py always writes the criteria's sum (3)
    two_judges(tmp_path, qwen, gpt)
    df, report = read_synchtom(tmp_path)
    assert df.empty and list(df.columns) == COLUMNS
    assert [(i.record, i.field, i.message) for i in report.errors] == [
        (
            "instance 'swe_0001'",
            f"evaluation.{UP}.criterion_scores.criterion_1",
            "expected 0 or 1, got the boolean true",
        ),
        (
            "instance 'swe_0002'",
            f"evaluation.{CR}.total_score",
            "score 6 is outside 0-5 (the rubric's criteria)",
        ),
        (
            "instance 'swe_0001'",
            f"evaluation.{LB}.total_score",
            "is 2 but 3 criteria are met (evaluate.py writes their sum)",
        ),
    ]


def test_a_file_no_summary_names_is_refused_unless_its_judge_is_given(tmp_path):
    paths = two_judges(tmp_path, GOOD_QWEN, GOOD_GPT)
    (tmp_path / "evaluation_summary.json").unlink()
    df, report = read_synchtom(tmp_path)
    assert df.empty
    assert {(i.file, i.field) for i in report.errors} == {
        (f"evaluation_results/{p.name}", "judge_model") for p in paths.values()
    }
    df, report = read_synchtom(tmp_path, judges={p.name: j for j, p in paths.items()})
    assert report.ok and len(df) == 12 and set(df["judge"]) == {QWEN, GPT}


def test_two_files_of_one_judge_scoring_the_same_instance_are_both_refused(tmp_path):
    write_run(tmp_path, [("20260113_093402", QWEN, GOOD_QWEN), ("20260114_101500", GPT, GOOD_GPT)])
    rerun = tmp_path / "rerun"
    write_run(rerun, [("20260115_080000", QWEN, GOOD_QWEN[:1])])
    df, report = read_synchtom(tmp_path)
    assert set(df["judge"]) == {GPT}
    assert sorted(i.file for i in report.errors) == [
        f"evaluation_results/evaluation_{INFERENCE}_20260113_093402.json",
        f"rerun/evaluation_results/evaluation_{INFERENCE}_20260115_080000.json",
    ]
    assert all(i.field == "instance_id" and i.record == "instance 'swe_0001'" for i in report.errors)


def test_a_missing_dimension_and_a_criterion_count_unlike_the_rubric_warn(tmp_path):
    qwen = [record("swe_0001", [1, 0, 1], [1, 1, 1, 0], [1, 1, 0, 0, 1])]
    del qwen[0]["evaluation"][UP]
    qwen[0]["evaluation"][LB]["max_score"] = 4  # the rubric has 4 criteria, the judge scored 3
    write_run(tmp_path, [("20260113_093402", QWEN, qwen)])
    df, report = read_synchtom(tmp_path)
    assert report.ok and sorted(df["dimension"]) == sorted([LB, CR])
    assert [(i.field, i.message) for i in report.warnings] == [
        (f"evaluation.{LB}.criterion_scores", "the judge scored 3 criteria; the rubric has 4 (max_score)"),
        (f"evaluation.{UP}", "missing: the judge gave no score for it"),
    ]


# Two judges' scores of eight instances on each dimension (hand-made; scores 0-5, with gaps).
AGREEMENT = {
    LB: ([0, 1, 3, 3, 5, 2, 4, 1], [0, 2, 3, 5, 4, 2, 4, 0]),
    UP: ([2, 2, 3, 1, 0, 4, 4, 5], [2, 3, 3, 1, 1, 4, 2, 5]),
    CR: ([5, 4, 0, 1, 2, 3, 3, 4], [5, 3, 0, 0, 2, 5, 3, 4]),
}


def met(score: int, n_criteria: int = 5) -> list[int]:
    return [1] * score + [0] * (n_criteria - score)


def test_judge_agreement_on_two_judges_equals_sklearn_and_krippendorff(tmp_path):
    ids = [f"culture_{k:04d}" for k in range(10, 18)]
    qwen = [record(i, *(met(AGREEMENT[d][0][k]) for d in DIMENSIONS)) for k, i in enumerate(ids)]
    gpt = [record(i, *(met(AGREEMENT[d][1][k]) for d in DIMENSIONS)) for k, i in reversed(list(enumerate(ids)))]
    two_judges(tmp_path, qwen, gpt)
    df, report = read_synchtom(tmp_path)
    assert report.ok and len(df) == 48
    table, matrices = judge_agreement(to_judge_scores(df), "synchtom")
    t = table.to_frame()
    scale = list(range(6))
    for dim, (a, b) in AGREEMENT.items():
        x, y = np.array(a), np.array(b)  # judges sorted: "Qwen/Qwen3-32B" < "gpt-5.2"
        rows = t[(t["criterion"] == dim) & (t["judge_a"] == QWEN) & (t["judge_b"] == GPT)].set_index("metric")
        assert rows.at["exact", "estimate"] == pytest.approx(np.mean(x == y))
        assert rows.at["within_1", "estimate"] == pytest.approx(np.mean(np.abs(x - y) <= 1))
        assert rows.at["weighted_kappa", "estimate"] == pytest.approx(
            cohen_kappa_score(x, y, labels=scale, weights="quadratic")
        )
        assert rows.at["linear_weighted_kappa", "estimate"] == pytest.approx(
            cohen_kappa_score(x, y, labels=scale, weights="linear")
        )
        assert rows.at["linear_weighted_kappa", "name"] == "linear-weighted kappa"
        assert rows.at["weighted_kappa", "name"] == "quadratic-weighted kappa"
        alpha = t[(t["criterion"] == dim) & (t["metric"] == "alpha")]["estimate"].item()
        assert alpha == pytest.approx(
            krippendorff.alpha(np.vstack([x, y]).astype(float), level_of_measurement="ordinal")
        )
        m = matrices[("synchtom", dim, QWEN, GPT)]
        assert m.to_numpy().sum() == 8 and np.trace(m.to_numpy()) == int(np.sum(x == y))
    # The numbers themselves, for the first dimension (differences 0 1 0 2 1 0 0 1).
    lb = t[(t["criterion"] == LB) & (t["judge_a"] == QWEN)].set_index("metric")["estimate"]
    assert (lb["exact"], lb["within_1"]) == (pytest.approx(4 / 8), pytest.approx(7 / 8))
    assert lb["linear_weighted_kappa"] < lb["weighted_kappa"]


def test_a_missing_source_and_a_folder_without_score_files_are_errors(tmp_path):
    df, report = read_synchtom(tmp_path / "nowhere")
    assert df.empty and report.errors[0].field == "(source)"
    (tmp_path / "empty").mkdir()
    df, report = read_synchtom(tmp_path / "empty")
    assert df.empty and "no evaluation_*.json" in report.errors[0].message


def test_the_agreement_table_keeps_its_earlier_rows(tmp_path):
    """The linear-weighted kappa comes after the quadratic one; the other rows are as before."""
    two_judges(tmp_path, GOOD_QWEN, GOOD_GPT)
    df, _ = read_synchtom(tmp_path)
    t = judge_agreement(to_judge_scores(df))[0].to_frame()
    per_dim = t[t["criterion"] == LB]["metric"].tolist()
    assert per_dim == ["exact", "within_1", "weighted_kappa", "linear_weighted_kappa", "alpha"]
    assert isinstance(t, pd.DataFrame)


SYNCHTOM_COMMIT = "ca35c11"  # the commit whose evaluate.py writes the score files
# Runs the authors' evaluate.py once per judge, with a stand-in for the openai package whose
# "judge" replies, per instance, the criterion scores of replies.json (and a wrong total_score,
# which evaluate.py replaces by the sum of the criterion scores).
DRIVER = """
import json, re, runpy, sys, time, types

REPLIES = json.loads(open("replies.json").read())


class _Completions:
    def create(self, model, messages, temperature):
        iid = re.search(r"\\[(\\w+_\\d+)\\]", messages[0]["content"]).group(1)
        reply = {
            dim: {"criterion_scores": {f"criterion_{k}": v for k, v in enumerate(met, 1)}, "total_score": 99,
                  "max_score": 5, "feedback": "..."}
            for dim, met in REPLIES[model][iid].items()
        }
        reply["overall_summary"] = {"total_score": 0, "max_score": 0, "percentage": 0}
        text = "Criterion 1 is met because ...\\n```json\\n" + json.dumps(reply) + "\\n```"
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=types.SimpleNamespace(content=text))])


class OpenAI:
    def __init__(self, api_key=None, base_url=None):
        self.chat = types.SimpleNamespace(completions=_Completions())


sys.modules["openai"] = types.SimpleNamespace(OpenAI=OpenAI)
finished = None  # the second the last run ended in
for judge in sys.argv[1:]:
    # evaluate.py names its output file by the second it ends in: a run starts in a later second than
    # the last one ended in, so that each writes a file of its own.
    deadline = time.monotonic() + 5
    while time.strftime("%Y%m%d_%H%M%S") == finished and time.monotonic() < deadline:
        time.sleep(0.01)
    sys.argv = ["evaluate.py", "-i", "inference/inference_swe-benchmark_claude_step10.json", "-j", judge, "-w", "1"]
    runpy.run_path("evaluate.py", run_name="__main__")
    finished = time.strftime("%Y%m%d_%H%M%S")
"""


def test_the_files_the_authors_evaluate_py_writes_are_read(tmp_path):
    """The authors' evaluate.py, from a mirror of THUNLP-MT/SynchToM (``GROUNDWORK_SYNCHTOM_REPO``),
    judges two instances with two stand-in judges; the files it writes are read as they are."""
    try:
        code = subprocess.run(
            ["git", "--git-dir", str(SYNCHTOM_REPO), "show", f"{SYNCHTOM_COMMIT}:evaluate.py"],
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"{no_mirror(SYNCHTOM_REPO, 'THUNLP-MT/SynchToM', 'GROUNDWORK_SYNCHTOM_REPO')}: {exc}")
    (tmp_path / "evaluate.py").write_bytes(code)
    (tmp_path / "drive.py").write_text(DRIVER)
    sizes = dict(zip(DIMENSIONS, (3, 4, 6)))
    replies = {
        QWEN: {"swe_0001": ([1, 0, 1], [1, 1, 1, 0], [1, 1, 0, 0, 1, 0]), "swe_0002": ([0, 0, 0], [0, 1, 0, 0], [1] * 5 + [0])},
        GPT: {"swe_0001": ([1, 1, 1], [1, 0, 1, 0], [1, 0, 0, 0, 1, 0]), "swe_0002": ([1, 0, 0], [0, 1, 1, 0], [1] * 4 + [0, 0])},
    }  # fmt: skip
    (tmp_path / "replies.json").write_text(
        json.dumps({j: {i: dict(zip(DIMENSIONS, m)) for i, m in r.items()} for j, r in replies.items()})
    )
    (tmp_path / "inference").mkdir()
    instances = [
        {
            "instance_id": iid,
            "domain": "Software Engineering",
            "ground_truth": {"user_profile": "A backend engineer."},
            "rubrics": {d: [{"criterion": f"fact {k}"} for k in range(n)] for d, n in sizes.items()},
            "inference": {d: f"[{iid}] the inference" for d in DIMENSIONS},
        }
        for iid in ("swe_0001", "swe_0002")
    ]
    (tmp_path / "inference" / f"inference_{INFERENCE}.json").write_text(json.dumps(instances))
    subprocess.run([sys.executable, "drive.py", QWEN, GPT], cwd=tmp_path, check=True, capture_output=True)
    written = sorted(p.name for p in (tmp_path / "evaluation_results").iterdir())
    assert len(written) == 2 and all(n.startswith(f"evaluation_{INFERENCE}_") for n in written)

    df, report = read_synchtom(tmp_path)
    assert report.ok and report.issues == []
    got = {(r.judge, r.instance_id, r.dimension): r.score for r in df.itertuples()}
    assert got == {(j, i, d): sum(m) for j, r in replies.items() for i, ms in r.items() for d, m in zip(DIMENSIONS, ms)}
    table, _ = judge_agreement(to_judge_scores(df))
    t = table.to_frame().set_index(["criterion", "statistic"])
    assert t.loc[(CR, "exact"), "estimate"] == 0.0 and t.loc[(CR, "within_1"), "estimate"] == 1.0


def test_a_rubric_of_seven_criteria_scores_on_0_to_7(tmp_path):
    """SynchToM's correct_resolution has up to 7 criteria: a 7 is read, and the agreement's scale
    widens to 0-7 (kappa as scikit-learn gives it with those labels)."""
    from sklearn.metrics import cohen_kappa_score

    from analysis.compare.judges import judge_agreement

    qwen = [record("swe_0001", [1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1]),
            record("swe_0002", [0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0, 0, 0, 0])]  # fmt: skip
    gpt = [record("swe_0001", [1, 1, 0], [1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 0]),
           record("swe_0002", [0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0, 0, 0, 0])]  # fmt: skip
    two_judges(tmp_path, qwen, gpt)
    df, report = read_synchtom(tmp_path)
    assert report.ok, report.format()
    assert sorted(df.loc[df["dimension"] == CR, "score"]) == [1, 2, 6, 7]
    table, matrices = judge_agreement(to_judge_scores(df), "r")
    rows = {(r["criterion"], r["metric"]): r for r in table.rows}
    a = df[(df["judge"] == sorted({QWEN, GPT})[0]) & (df["dimension"] == CR)].sort_values("instance_id")["score"]
    b = df[(df["judge"] == sorted({QWEN, GPT})[1]) & (df["dimension"] == CR)].sort_values("instance_id")["score"]
    for metric, weights in (("weighted_kappa", "quadratic"), ("linear_weighted_kappa", "linear")):
        want = cohen_kappa_score(a, b, labels=list(range(8)), weights=weights)
        assert rows[(CR, metric)]["estimate"] == pytest.approx(want)
    assert list(next(m for k, m in matrices.items() if k[1] == CR).index) == list(range(8))


def test_the_judges_command_prints_the_agreement(tmp_path, capsys):
    from analysis.cli import main as analysis_cli

    two_judges(tmp_path, GOOD_QWEN, GOOD_GPT)
    assert analysis_cli(["judges", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["judges"] == sorted({QWEN, GPT})
    metrics = {(r["criterion"], r["metric"]) for r in out["agreement"]}
    assert {(CR, "weighted_kappa"), (CR, "linear_weighted_kappa"), (CR, "alpha"), (LB, "exact")} <= metrics
    (tmp_path / "evaluation_summary.json").unlink()
    assert analysis_cli(["judges", str(tmp_path)]) == 1
    assert "no judge scores were read" in capsys.readouterr().err
