"""Every record of a benchmark dataset goes through its typed model (:mod:`corpus.benchmark.records`):
a bad value in any field is refused, naming the file, the record and the field, in the same report
shape as the other domains (a kitchen run with ``"score": "lots"`` too); the benchmarks read before
the models came still read to the same frames. (The releases' records: tests/test_tom_records.py.)

The cases build each file as Groundwork writes it (a DynToM dataset of two generated trials, SynchToM's
fixture items with judged runs) and change one value.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from cli_run import run_cli
from test_overcooked_import import fork_run, write
from test_synchtom_items import copy_fixture, two_runs

from corpus.benchmark.dataset import Benchmark, load_benchmark, write_benchmark_dataset
from corpus.generate.tom import write_dyntom_trials
from corpus.importers import run_import
from corpus.importers.tom import load_dyntom, read_dyntom, read_release, read_synchtom_items
from corpus.kitchen.dataset import load_kitchen
from corpus.loading.report import DatasetError, Issue, Report
from corpus.settings import SAMPLES

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "synchtom"
Edit = Callable[[Path], Any]


def where(issues: list[Issue]) -> list[tuple[str, str, str]]:
    return [(i.file, i.record, i.field) for i in issues]


class New:
    """What an edit gives to write instead of the value it was given."""

    def __init__(self, value: Any):
        self.value = value


def edit_json(path: Path, change: Callable[[Any], Any]) -> None:
    """Rewrite a JSON file with ``change`` applied: it edits the value in place, or gives a
    :class:`New` value to write instead."""
    data = json.loads(path.read_text(encoding="utf-8"))
    out = change(data)
    path.write_text(json.dumps(out.value if isinstance(out, New) else data, ensure_ascii=False), encoding="utf-8")


def edit_cell(path: Path, row: int, column: str, value: str) -> None:
    """Set one cell of a CSV table (``row`` as the file numbers it: 2 is the first after the header)."""
    frame = pd.read_csv(path, dtype=object, keep_default_na=False, na_filter=False)
    frame.at[row - 2, column] = value
    path.write_text(frame.to_csv(index=False, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC), encoding="utf-8")


def rename_column(path: Path, old: str, new: str) -> None:
    lines = path.read_text(encoding="utf-8").split("\n", 1)
    path.write_text(lines[0].replace(f'"{old}"', f'"{new}"') + "\n" + lines[1], encoding="utf-8")


# -- a benchmark dataset's own files --------------------------------------------------------------


@pytest.fixture(scope="module")
def datasets(tmp_path_factory) -> dict[str, Path]:
    """A DynToM dataset (two generated trials, six runs) and a SynchToM one with two judged runs."""
    tmp = tmp_path_factory.mktemp("datasets")
    dyntom = write_benchmark_dataset(tmp / "dyntom", load_dyntom(write_dyntom_trials(tmp / "raw", n_trials=2, seed=4)))
    release = copy_fixture(tmp / "release")
    two_runs(release)
    return {"dyntom": dyntom, "synchtom": run_import("synchtom", release, tmp / "synchtom")}


def _first_item(root: Path) -> str:
    return pd.read_csv(root / "items.csv", dtype=object)["item_id"].iloc[0]


DATASET_CASES: list[tuple[str, str, Edit, tuple[str, str, str], str]] = [
    # dataset.json's benchmark
    (
        "dyntom",
        "format",
        lambda d: edit_json(d / "dataset.json", lambda x: x["benchmark"].update(format=3)),
        ("dataset.json", "-", "benchmark.format"),
        "expected a string, got the integer 3",
    ),
    (
        "dyntom",
        "slices",
        lambda d: edit_json(d / "dataset.json", lambda x: x["benchmark"]["slices"].append(7)),
        ("dataset.json", "-", "benchmark.slices[5]"),
        "expected a string, got the integer 7",
    ),
    (
        "dyntom",
        "cluster",
        lambda d: edit_json(d / "dataset.json", lambda x: x["benchmark"].update(cluster=None)),
        ("dataset.json", "-", "benchmark.cluster"),
        "expected a string, got null",
    ),
    (
        "dyntom",
        "benchmark unknown field",
        lambda d: edit_json(d / "dataset.json", lambda x: x["benchmark"].update(colour="red")),
        ("dataset.json", "-", "benchmark.colour"),
        "unknown field",
    ),
    (
        "dyntom",
        "benchmark not an object",
        lambda d: edit_json(d / "dataset.json", lambda x: x.update(benchmark="dyntom")),
        ("dataset.json", "-", "benchmark"),
        "expected an object, got the string 'dyntom'",
    ),
    # items.csv
    (
        "dyntom",
        "options",
        lambda d: edit_cell(d / "items.csv", 3, "options", '["a. yes", "b. no"'),
        ("items.csv", "row 3", "options"),
        'expected a JSON array of strings, got the string \'["a. yes", "b. no"\'',
    ),
    (
        "dyntom",
        "option_kinds",
        lambda d: edit_cell(d / "items.csv", 4, "option_kinds", '["true_answer", 2]'),
        ("items.csv", "row 4", "option_kinds"),
        "expected a JSON array of strings, got the string '[\"true_answer\", 2]'",
    ),
    (
        "dyntom",
        "item_id twice",
        lambda d: edit_cell(d / "items.csv", 5, "item_id", _first_item(d)),
        ("items.csv", "row 5", "item_id"),
        "the same item id twice",
    ),
    (
        "dyntom",
        "a column missing",
        lambda d: rename_column(d / "items.csv", "gold", "golden"),
        ("items.csv", "header", "gold"),
        "missing column (the header has item_id, group, question_id, question, options, option_kinds, golden, "
        "question_type, form, mental_state, time_span, reasoning)",
    ),
    (
        "dyntom",
        "a slice column missing",
        lambda d: rename_column(d / "items.csv", "time_span", "span"),
        ("items.csv", "header", "time_span"),
        "missing column (the header has item_id, group, question_id, question, options, option_kinds, gold, "
        "question_type, form, mental_state, span, reasoning)",
    ),
    # answers.csv
    (
        "dyntom",
        "answer to no item",
        lambda d: edit_cell(d / "answers.csv", 6, "item_id", "trial9/type_a_what_1"),
        ("answers.csv", "row 6", "item_id"),
        "no such item in items.csv: the string 'trial9/type_a_what_1'",
    ),
    (
        "dyntom",
        "answers column missing",
        lambda d: rename_column(d / "answers.csv", "answer", "choice"),
        ("answers.csv", "header", "answer"),
        "missing column (the header has run, item_id, choice)",
    ),
    # runs.json
    (
        "dyntom",
        "runs not an array",
        lambda d: edit_json(d / "runs.json", lambda x: New({"runs": x})),
        ("runs.json", "-", "(file)"),
        "expected a JSON array of runs, got an object",
    ),
    (
        "dyntom",
        "run not an object",
        lambda d: edit_json(d / "runs.json", lambda x: x.__setitem__(1, "synth-large (level1CoT)")),
        ("runs.json", "[1]", "(record)"),
        "expected an object, got the string 'synth-large (level1CoT)'",
    ),
    (
        "dyntom",
        "run",
        lambda d: edit_json(d / "runs.json", lambda x: x[0].pop("run")),
        ("runs.json", "[0]", "run"),
        "required field is missing",
    ),
    *[
        (
            "dyntom",
            f"runs.json {field}",
            (lambda f, v: lambda d: edit_json(d / "runs.json", lambda x: x[2].update({f: v})))(field, value),
            ("runs.json", "[2]", field),
            message,
        )
        for field, value, message in [
            ("model", ["synth-large"], "expected a string, got a list of 1 item"),
            ("setting", 1, "expected a string, got the integer 1"),
            ("source", None, "expected a string, got null"),
            ("groups", -1, "must be greater than or equal to 0 (got -1)"),
            ("answered", "842", "expected an integer, got the string '842'"),
            ("no_answer", 1.5, "expected an integer, got the number 1.5"),
            ("unmatched", True, "expected an integer, got the boolean true"),
            ("colour", "red", "unknown field"),
        ]
    ],
    # contexts.json
    (
        "dyntom",
        "contexts not an object",
        lambda d: edit_json(d / "contexts.json", lambda x: New(list(x.values()))),
        ("contexts.json", "-", "(file)"),
        "expected an object of contexts by group, got a list of 2 items",
    ),
    (
        "dyntom",
        "a context not an object",
        lambda d: edit_json(d / "contexts.json", lambda x: x.update(trial1="a story")),
        ("contexts.json", "-", "trial1"),
        "expected an object, got the string 'a story'",
    ),
    # judged.csv and judged_runs.json
    (
        "synchtom",
        "score",
        lambda d: edit_cell(d / "judged.csv", 2, "score", "two"),
        ("judged.csv", "row 2", "score"),
        "expected a whole number, got the string 'two'",
    ),
    (
        "synchtom",
        "criteria",
        lambda d: edit_cell(d / "judged.csv", 7, "criteria", "-1"),
        ("judged.csv", "row 7", "criteria"),
        "expected a whole number, got the string '-1'",
    ),
    (
        "synchtom",
        "judged item",
        lambda d: edit_cell(d / "judged.csv", 3, "item_id", "swe_9999"),
        ("judged.csv", "row 3", "item_id"),
        "no such item in items.csv: the string 'swe_9999'",
    ),
    *[
        (
            "synchtom",
            f"judged_runs.json {field}",
            (lambda f, v: lambda d: edit_json(d / "judged_runs.json", lambda x: x[1].update({f: v})))(field, value),
            ("judged_runs.json", "[1]", field),
            message,
        )
        for field, value, message in [
            ("run", 10, "expected a string, got the integer 10"),
            ("judge", None, "expected a string, got null"),
            ("scored", -2, "must be greater than or equal to 0 (got -2)"),
            ("missing", "culture_0106", "expected a list, got the string 'culture_0106'"),
        ]
    ],
    (
        "synchtom",
        "judged_runs.json missing[0]",
        lambda d: edit_json(d / "judged_runs.json", lambda x: x[1].update(missing=[106])),
        ("judged_runs.json", "[1]", "missing[0]"),
        "expected a string, got the integer 106",
    ),
]


@pytest.mark.parametrize(
    ("which", "case", "edit", "place", "message"), DATASET_CASES, ids=[c[1] for c in DATASET_CASES]
)
def test_a_bad_value_in_a_benchmark_dataset_is_named(datasets, tmp_path, which, case, edit, place, message):
    root = shutil.copytree(datasets[which], tmp_path / which)
    edit(root)
    with pytest.raises(DatasetError) as err:
        load_benchmark(root)
    errors = err.value.report.errors
    assert where(errors) == [place], err.value.report.format()
    assert errors[0].message == message


def test_the_datasets_as_written_load(datasets):
    assert len(load_benchmark(datasets["dyntom"]).runs) == 6
    assert len(load_benchmark(datasets["synchtom"]).judged) == 2


def test_the_command_line_prints_a_benchmark_s_problems_in_the_one_table(datasets, tmp_path):
    """``corpus validate``: the table of every domain (severity, file, record, field, message), exit 1."""
    root = shutil.copytree(datasets["dyntom"], tmp_path / "bench")

    def two_bad_values(runs: list[dict]) -> None:
        runs[0]["groups"], runs[3]["setting"] = -1, 2

    edit_json(root / "runs.json", two_bad_values)
    out = run_cli("validate", str(root))
    assert out.returncode == 1 and "Traceback" not in out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["severity", "file", "record", "field", "message"]
    assert [line.split(None, 4) for line in lines[1:]] == [
        ["error", "runs.json", "[0]", "groups", "must be greater than or equal to 0 (got -1)"],
        ["error", "runs.json", "[3]", "setting", "expected a string, got the integer 2"],
    ]
    issues = json.loads(run_cli("validate", str(root), "--json").stdout)["issues"]
    assert [(i["file"], i["record"], i["field"]) for i in issues] == [
        ("runs.json", "[0]", "groups"),
        ("runs.json", "[3]", "setting"),
    ]


# -- one report shape for every domain ---------------------------------------------------------------


def test_a_kitchen_run_s_bad_value_is_reported_in_the_same_shape(tmp_path):
    """A kitchen run with ``"score": "lots"`` is refused on load with file, record and field, as
    :class:`corpus.loading.report.Issue` like a benchmark's, and ``corpus validate --json`` gives the same keys
    for a kitchen dataset and a benchmark."""
    src = tmp_path / "runs"
    write(src / "gpt-4o__claude-sonnet-4" / "boiled_egg" / "experiment_2_boiled_egg.json", fork_run(with_agents=False))
    kitchen = run_import("overcooked", src, tmp_path / "kitchen")
    (path,) = (kitchen / "runs").iterdir()
    data = json.loads(path.read_text(encoding="utf-8"))
    data["score"] = "lots"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DatasetError) as err:
        load_kitchen(kitchen)
    (issue,) = err.value.report.errors
    assert isinstance(issue, Issue)
    assert (issue.file, issue.record, issue.field, issue.message) == (
        f"runs/{path.name}",
        f"run {data['id']}",
        "score",
        "expected a number, got the string 'lots'",
    )
    bench = shutil.copytree(SAMPLES / "dyntom-synthetic", tmp_path / "bench")
    edit_json(bench / "runs.json", lambda x: x[0].update(groups="12"))
    shapes = [json.loads(run_cli("validate", str(p), "--json").stdout) for p in (kitchen, bench)]
    assert [s["domain"] for s in shapes] == ["kitchen", "benchmark"]
    assert [list(s["issues"][0]) for s in shapes] == [["file", "record", "field", "message", "severity"]] * 2
    assert (shapes[1]["issues"][0]["record"], shapes[1]["issues"][0]["field"]) == ("[0]", "groups")


# -- the benchmarks read as before ------------------------------------------------------------------


def _digest(bench: Benchmark, report: Report | None = None) -> str:
    """A hash of everything a benchmark holds (items with their types, runs and their answers and
    reports, judged runs, contexts) and of the problems read with it."""

    def frame(df: pd.DataFrame) -> list[Any]:
        return [list(df.columns), [str(t) for t in df.dtypes], df.to_dict("records")]

    def issues(r: Report) -> list[Any]:
        return [list(i.as_dict().values()) for i in r.issues]

    content = {
        "meta": [bench.name, bench.kind, list(bench.slices), bench.cluster, bench.synthetic, bench.description],
        "items": frame(bench.items),
        "runs": [[r.as_dict(), frame(r.answers), issues(r.report)] for r in bench.runs],
        "judged": [[j.as_dict(), frame(j.scores)] for j in bench.judged],
        "contexts": bench.contexts,
        "report": issues(report or Report()),
    }
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()[:16]


# Computed with the readers of commit 5b0c2bc, which checked each record by hand (a digest changes
# only when what a benchmark reads to changes: recompute it then, saying why).
BEFORE = {
    "sample": "d70f3a69cd39933c",
    # Recomputed when generated raw trials came to read as synthetic (their meta.json marks them): the
    # test below checks that undoing that mark gives the digests of 5b0c2bc again.
    "generated trials": "b42423edb821c7b2",
    "generated dataset": "ffbde8faf8c74db5",
    "synchtom items": "cbcebf8c9a5b719c",
    "synchtom release": "46d13f9dec6bdfb0",
    "synchtom dataset": "581a8906393f3755",
}


def test_the_benchmarks_read_to_the_same_frames_as_before(tmp_path):
    got = {"sample": _digest(load_benchmark(SAMPLES / "dyntom-synthetic"))}
    trials = write_dyntom_trials(tmp_path / "raw", n_trials=3, seed=4)
    bench, report = read_dyntom(trials)
    got["generated trials"] = _digest(bench, report)
    got["generated dataset"] = _digest(load_benchmark(write_benchmark_dataset(tmp_path / "ds", bench)))
    unmarked = replace(bench, synthetic=False, description=bench.description.split(" Synthetic:")[0])
    assert _digest(unmarked, report) == "d4e7059e826b6ea8"  # the reading itself is 5b0c2bc's
    assert _digest(load_benchmark(write_benchmark_dataset(tmp_path / "ds0", unmarked))) == "1be65282bac47780"
    got["synchtom items"] = _digest(*read_synchtom_items(FIXTURE))
    release = copy_fixture(tmp_path / "release")
    two_runs(release)
    bench, report, _ = read_release(release)
    got["synchtom release"] = _digest(bench, report)
    got["synchtom dataset"] = _digest(load_benchmark(run_import("synchtom", release, tmp_path / "synchtom")))
    assert got == BEFORE
