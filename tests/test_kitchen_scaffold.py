"""The scaffold is part of the pairing everywhere (analysis.kitchen.metrics, ``analysis kitchen``, the
Kitchen screen, the report), the paper's Table 4 view, and the intervals and warnings of the kitchen
metrics: success as a share of runs with its Wilson interval, a warning where an estimate rests on
fewer than 10 units or its interval has no width."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from statsmodels.stats.proportion import proportion_confint
from test_tgco import ASSISTANT, FIXED_WINDOW, ask, done, kitchen

from analysis.cli import main as analysis_cli
from analysis.kitchen.metrics import (
    MIN_UNITS,
    kitchen_metrics,
    metric_table,
    outcome_composition,
    scaffold_table,
)
from corpus.settings import SAMPLES
from tests.real_data import REAL, absent

FORK = REAL / "collab_overcooked_tgco_fork"
RUNS = FORK / "src" / "data"  # three real runs of the TGCO paper's repository
needs_fork = pytest.mark.skipif(not RUNS.is_dir(), reason=absent(FORK, "the TGCO paper's runs"))


def _json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert analysis_cli(["kitchen", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _rows(out: dict, key: str, metric: str) -> dict:
    return {r[key]: r for r in out["metrics"] if r["metric"] == metric}


@needs_fork
def test_the_three_real_runs_show_their_scaffolds_apart(capsys):
    """The proagent run and the reflexion run are both gpt-4o -> claude-sonnet-4: apart in the pairing
    rows, together only when grouped by models; the cross-play run records no scaffold."""
    out = _json(capsys, str(RUNS))
    proagent = "proagent gpt-4o -> baseline claude-sonnet-4-20250514"
    reflexion = "reflexion gpt-4o -> reflexion claude-sonnet-4-20250514"
    plain = "claude-sonnet-4-20250514 -> gpt-4o"
    assert out["pairings"] == [plain, proagent, reflexion]
    assert out["scaffolds"] == ["none", "proagent -> baseline", "reflexion"]
    follow = _rows(out, "pairing", "follow_rate")
    assert set(follow) == {plain, proagent, reflexion}
    assert follow[proagent]["n"] == follow[reflexion]["n"] == 1
    assert follow[proagent]["estimate"] != follow[reflexion]["estimate"]  # not averaged together
    by_models = _json(capsys, str(RUNS), "--by", "models")
    assert _rows(by_models, "models", "follow_rate")["gpt-4o -> claude-sonnet-4-20250514"]["n"] == 2
    # the Table 4 view: success and ADR per model pairing, scaffold and level
    table4 = {(r["models"], r["scaffold"], r["level"], r["metric"]) for r in out["table4"]}
    assert ("gpt-4o -> claude-sonnet-4-20250514", "proagent -> baseline", 1, "adr") in table4
    assert ("gpt-4o -> claude-sonnet-4-20250514", "reflexion", 1, "success") in table4
    assert ("claude-sonnet-4-20250514 -> gpt-4o", "(not recorded)", 2, "success") in table4
    # the filter keeps the runs where an agent has the scaffold
    only = _json(capsys, str(RUNS), "--scaffold", "baseline")
    assert only["runs"] == 1 and only["pairings"] == [proagent]
    # the messages no unit was read from are counted and listed with their text
    assert out["unstructured"]["count"] == len(out["unstructured"]["messages"]) > 0
    assert all(m["text"] for m in out["unstructured"]["messages"])


def _scaffolded(run_id: str, scaffold: str, effective: int, level: int = 1):
    run = kitchen(
        [ask(2 * k, f"pickup(bell_pepper, {p})") for k, p in enumerate(["ingredient_dispenser", "counter"][:effective])]
        + [ask(9, "cook(pot0)")],
        [
            done(2 * k + 1, ASSISTANT, f"pickup(bell_pepper, {p})")
            for k, p in enumerate(["ingredient_dispenser", "counter"][:effective])
        ],
        run_id=run_id,
        level=level,
    )
    return replace(run, scaffold=scaffold)


def test_an_a_tom_run_is_never_pooled_with_a_baseline_run_of_the_same_models():
    runs = [_scaffolded("t1", "a-tom", 2), _scaffolded("t2", "a-tom", 2), _scaffolded("b1", "baseline", 0)]
    assert [r.pairing for r in runs] == ["a-tom gpt-4o -> a-tom claude"] * 2 + ["baseline gpt-4o -> baseline claude"]
    assert {r.model_pairing for r in runs} == {"gpt-4o -> claude"}
    metrics = kitchen_metrics(runs, FIXED_WINDOW)
    rows = {r["pairing"]: r for r in metric_table(metrics, keys=("follow_rate",)).rows}
    assert rows["a-tom gpt-4o -> a-tom claude"]["estimate"] == pytest.approx(2 / 3)
    assert rows["baseline gpt-4o -> baseline claude"]["estimate"] == 0
    both = scaffold_table(metrics, keys=("success",))
    assert [(r["models"], r["scaffold"], r["level"]) for r in both.rows] == [
        ("gpt-4o -> claude", "a-tom", 1),
        ("gpt-4o -> claude", "baseline", 1),
    ]
    mixed = replace(runs[0], scaffold="proagent -> ?")
    assert mixed.scaffolds == ("proagent", "") and mixed.pairing == "proagent gpt-4o -> ? claude"


def test_success_is_a_share_of_runs_with_its_wilson_interval():
    from corpus.kitchen.dataset import load_kitchen

    sample = load_kitchen(SAMPLES / "kitchen-synthetic")
    metrics = kitchen_metrics(sample.runs)
    table = metric_table(metrics, keys=("success",))
    for r in table.rows:
        mine = [m for m in metrics if m.pairing == r["pairing"]]
        k, n = sum(m.success for m in mine), len(mine)
        lo, hi = proportion_confint(k, n, method="wilson")
        assert r["estimate"] == pytest.approx(k / n) and (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi))
        assert r["interval_method"] == "Wilson score interval" and r["n"] == n == 12
    # 12 of 12 is no longer [1.000, 1.000]: its Wilson interval has width
    all_won = kitchen_metrics([_scaffolded(f"w{k}", "baseline", 1) for k in range(12)], FIXED_WINDOW)
    (row,) = metric_table(all_won, keys=("success",)).rows
    assert row["estimate"] == 1.0 and row["ci_low"] == pytest.approx(proportion_confint(12, 12, method="wilson")[0])
    assert row["ci_low"] < 1.0 and row["note"] == ""


def test_few_units_and_zero_width_intervals_are_warned_about():
    runs = [_scaffolded(f"r{k}", "baseline", 1) for k in range(3)]  # 2 request units each, ADR undefined
    metrics = kitchen_metrics(runs, FIXED_WINDOW)
    rows = {r["metric"]: r for r in metric_table(metrics, keys=("follow_rate", "success", "requests")).rows}
    follow = rows["follow_rate"]
    assert follow["estimate"] == 0.5 and f"rests on 6 request units (fewer than {MIN_UNITS})" in follow["note"]
    assert "zero-width interval" in follow["note"]  # every run 1 of 2
    assert "rests on 3 runs (fewer than 10)" in rows["success"]["note"]
    assert "zero-width interval" in rows["requests"]["note"]  # every run sent 2
    comp = {r["outcome"]: r for r in outcome_composition(metrics).rows}
    assert "rests on 6 request units (fewer than 10)" in comp["Effective"]["note"]


def test_the_command_line_marks_warned_estimates(capsys):
    sample = SAMPLES / "kitchen-synthetic"
    capsys.readouterr()
    assert analysis_cli(["kitchen", str(sample), "--by", "scaffold"]) == 0
    text = capsys.readouterr().out
    assert "scaffold=baseline, metric=follow_rate" in text
    assert "Success and ADR by task level under each scaffold (Table 4)" in text
    success = next(line for line in text.splitlines() if "scaffold=baseline, metric=success" in line)
    assert "Success 0." in success and "[" in success and "(n=48)" in success
    assert " ! " not in success  # 48 runs, an interval with width: no warning


def test_the_kitchen_screen_keeps_scaffolds_apart_and_filters_them(tmp_path, monkeypatch):
    from test_analysis_pages import open_page
    from test_overcooked_import import fork_run, write

    from corpus.importers import run_import

    src = tmp_path / "runs"
    write(src / "proagent_gpt-4o__baseline_claude-sonnet-4" / "boiled_egg" / "run1.json", fork_run())
    other = fork_run()
    for agent in other["agents"]:
        agent["agent_type"] = "a-tom"
    for step in other["content"]:
        for agent in step["agent_models"]:
            agent["agent_type"] = "a-tom"
    write(src / "a-tom_gpt-4o__a-tom_claude-sonnet-4" / "boiled_egg" / "run2.json", other)
    dataset = run_import("overcooked", src, tmp_path / "datasets" / "kitchen")
    at = open_page(tmp_path, monkeypatch, "pages/kitchen.py", dataset=dataset)
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "pairing" in d.value.columns)
    assert sorted(table["pairing"]) == [
        "a-tom gpt-4o -> a-tom claude-sonnet-4-20250514",
        "proagent gpt-4o -> baseline claude-sonnet-4-20250514",
    ]
    assert table["Success"].str.endswith("(n = 1) !").all() and table["warnings"].str.contains("fewer than 10").all()
    table4 = next(d.value for d in at.dataframe if "level 1 ADR" in d.value.columns)
    assert sorted(table4["scaffold"]) == ["a-tom", "proagent -> baseline"]
    assert {m.label: m.value for m in at.metric}["Scaffolds"] == "3"
    at.multiselect(key="kitchen_scaffolds").set_value(["a-tom"]).run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "pairing" in d.value.columns)
    assert table["pairing"].tolist() == ["a-tom gpt-4o -> a-tom claude-sonnet-4-20250514"]
    assert {m.label: m.value for m in at.metric}["Runs"] == "1"
    at.segmented_control(key="kitchen_by").set_value("scaffold").run()
    table = next(d.value for d in at.dataframe if "scaffold" in d.value.columns and "FollowRate" in d.value.columns)
    assert table["scaffold"].tolist() == ["a-tom"]


def test_the_report_has_the_scaffold_rows_and_table_4():
    from corpus.kitchen.dataset import load_kitchen
    from reports.reproduction import build_kitchen

    report = build_kitchen(load_kitchen(SAMPLES / "kitchen-synthetic"))
    tables = {t.name: t for s in report.sections for t in s.tables}
    assert {"kitchen_metrics_by_pairing", "kitchen_metrics_by_scaffold", "kitchen_table4"} <= set(tables)
    assert tables["kitchen_metrics_by_pairing"].view["pairing"].str.startswith("baseline ").all()
    assert "level 1 success" in tables["kitchen_table4"].view.columns
