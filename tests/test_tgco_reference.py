"""The TGCO authors' own audit as a reference (analysis.kitchen.reference, ``analysis kitchen
--reference-audit``): on the three real runs of the paper's repository with the authors' audit of them,
our request units and theirs matched and compared (kappa 0.348 with the audit's level-normalized
window, 0.392 with their 5-step window); their table checked row by row; the rules that match runs
and units; every disagreement with both decisions and why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

from analysis.cli import main as analysis_cli
from analysis.kitchen.metrics import kitchen_metrics
from analysis.kitchen.reference import (
    REQUIRED,
    cohen_kappa,
    compare,
    read_csv_bytes,
    read_reference,
    related,
    run_of,
)
from analysis.kitchen.tgco import OUTCOMES, Window
from corpus.importers.overcooked import load_runs
from tests.real_data import REAL, absent

FORK = REAL / "collab_overcooked_tgco_fork"
RUNS = FORK / "src" / "data"
AUDIT = FORK / "analysis_out" / "trace_token_metrics" / "tgco_request_units.subset.csv"
needs_fork = pytest.mark.skipif(not AUDIT.is_file(), reason=absent(FORK, "the TGCO paper's runs and audit"))
CLAUDE = "claude-sonnet-4-20250514__gpt-4o/baked_potato_slices/experiment_2026-04-23_08-22-19_baked_potato_slices"
PROAGENT = "proagent_gpt-4o__baseline_claude-sonnet-4-20250514/boiled_egg/experiment_2026-04-23_09-07-25_boiled_egg"
REFLEXION = "reflexion_gpt-4o__reflexion_claude-sonnet-4-20250514/boiled_egg/experiment_2026-04-23_09-18-41_boiled_egg"


def _agreement(window: Window | None = None):
    runs = load_runs(RUNS)
    metrics = kitchen_metrics(runs, window) if window else kitchen_metrics(runs)
    frame, report = read_csv_bytes(AUDIT.read_bytes(), AUDIT.name)
    assert frame is not None and report.ok
    rows, report = read_reference(frame, AUDIT.name)
    assert report.ok, report.format()
    by_id = {m.run_id: m for m in metrics}
    return rows, compare([(r, by_id[r.id].audit.units) for r in runs], rows)


@needs_fork
def test_our_units_and_theirs_on_the_three_real_runs():
    rows, agreement = _agreement()
    assert len(rows) == 67  # the authors' 67 request units of these three runs
    assert agreement.runs == (CLAUDE, PROAGENT, REFLEXION) and agreement.other_runs == {}
    # every row of theirs is matched to one of ours or left as theirs only; ours likewise
    assert agreement.matched + len(agreement.only_theirs) == 67
    assert (agreement.matched, len(agreement.only_ours), len(agreement.only_theirs)) == (50, 34, 17)
    ours = [p.ours.outcome for p in agreement.pairs]
    theirs = [p.theirs.label for p in agreement.pairs]
    confusion = agreement.confusion()
    assert int(confusion.to_numpy().sum()) == 50 and int(confusion.to_numpy().trace()) == agreement.agreeing == 26
    # Cohen's kappa over the matched: statsmodels' with its interval, scikit-learn's the same number
    k = agreement.kappa
    assert k.estimate == pytest.approx(cohen_kappa_score(ours, theirs, labels=list(OUTCOMES)))
    assert k.estimate == pytest.approx(0.3478, abs=5e-4)
    res = cohens_kappa(confusion.to_numpy())
    assert k.interval == pytest.approx((res["kappa_low"], res["kappa_upp"])) and k.se == pytest.approx(res["std_kappa"])
    assert k.interval[0] < k.estimate < k.interval[1] and k.n == 50
    # the pairs: same step, sender and action, the object equal or related
    for p in agreement.pairs:
        assert (p.ours.unit.step, p.ours.unit.sender) == (p.theirs.step, p.theirs.speaker)
        assert p.ours.unit.action.verb == p.theirs.action and related(p.ours.unit.object, p.theirs.object)
    # the authors' own script reads no plan and knows no cut: such units are ours only
    only = agreement.only_ours_frame()
    assert {"plan", "say"} <= set(only["shape"]) and any(r.startswith("cut(") for r in only["request"])


@needs_fork
def test_with_their_window_the_audits_agree_more():
    """Their script looks 5 steps after the message; the same window here (--window-steps 5)."""
    _, agreement = _agreement(Window("fixed", steps=5))
    assert agreement.matched == 50 and agreement.agreeing == 27
    assert agreement.kappa.estimate == pytest.approx(0.3922, abs=5e-4)


@needs_fork
def test_every_disagreement_says_both_decisions_and_why():
    _, agreement = _agreement()
    dis = agreement.disagreements()
    assert len(dis) == agreement.matched - agreement.agreeing == 24
    assert (dis["ours"] != dis["theirs"]).all()
    assert dis["why ours"].str.len().min() > 0 and dis["why theirs"].str.len().min() > 0
    # the Chef's request at step 1 for the hand-over the Assistant made at step 5: effective here,
    # redundant there, where step 5's hand-over was credited to the Chef's request at step 0
    row = dis[(dis["run"] == CLAUDE) & (dis["step"] == 1) & (dis["request"] == "place_obj_on_counter()")].iloc[0]
    assert (row["ours"], row["theirs"]) == ("effective", "redundant")
    assert row["why ours"] == "Assistant completed place_obj_on_counter() at step 5, 4 steps after the request"
    assert "already credited to an earlier request" in row["why theirs"]
    assert row["rule that differs"].startswith("one completion, one request")
    # the proagent run's request at step 12 to deliver: done at 16, after this audit's window of 3 steps
    late = dis[(dis["run"] == PROAGENT) & (dis["step"] == 12)].iloc[0]
    assert (late["ours"], late["theirs"], late["our check"]) == ("ineffective", "effective", "trace")
    assert "1 step after the window closed" in late["why ours"] and late["rule that differs"].startswith("window")


@needs_fork
def test_the_command_line_reports_the_reference_agreement(capsys):
    capsys.readouterr()
    assert analysis_cli(["kitchen", str(RUNS), "--reference-audit", str(AUDIT), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    ref = out["reference_agreement"]
    assert ref["matched"] == 50 and ref["kappa"] == pytest.approx(0.3478, abs=5e-4)
    assert ref["only_ours"] == 34 and ref["only_theirs"] == 17 and len(ref["kappa_interval"]) == 2
    assert sum(sum(row.values()) for row in ref["confusion"].values()) == 50
    assert len(ref["disagreements"]) == 24 and {"why ours", "why theirs"} <= set(ref["disagreements"][0])
    # as text: the agreement and the disagreements listed
    assert analysis_cli(["kitchen", str(RUNS), "--reference-audit", str(AUDIT)]) == 0
    text = capsys.readouterr().out
    assert "Reference audit: 50 request unit(s) matched on 3 run(s); 34 only ours, 17 only theirs" in text
    assert "Cohen's kappa, this audit against the authors': 0.348" in text and "24 disagreement(s):" in text


def _table(tmp_path: Path, rows: list[dict], name: str = "audit.csv") -> Path:
    import pandas as pd

    path = tmp_path / name
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _row(**kw) -> dict:
    base = {
        "source_file": "src/data/a/boiled_egg/run.json",
        "message_timestep": "0",
        "speaker": "0",
        "target_agent": "1",
        "request_action": "pickup",
        "request_object": "egg",
        "request_location": "ingredient_dispenser",
        "request_text": "Please pick up an egg.",
        "tgco_label": "Effective",
    }
    return {**base, **kw}


def test_their_table_is_checked_row_by_row(tmp_path, capsys):
    from pandas import read_csv

    bad = _table(
        tmp_path,
        [_row(), _row(speaker="2"), _row(message_timestep="soon"), _row(tgco_label="Great"), _row(request_action="")],
    )
    rows, report = read_reference(read_csv(bad, dtype=str, keep_default_na=False), bad.name)
    assert [(i.file, i.record, i.field) for i in report.errors] == [
        ("audit.csv", "row 3", "speaker"),
        ("audit.csv", "row 4", "message_timestep"),
        ("audit.csv", "row 5", "tgco_label"),
        ("audit.csv", "row 6", "request_action"),
    ]
    assert (
        report.errors[2].message
        == "expected one of Effective, Assisted, Redundant, Ineffective, got the string 'Great'"
    )
    assert len(rows) == 1  # the good row
    # a missing column is named; a file that is no text is said so; the command line compares nothing
    header = _table(tmp_path, [{k: v for k, v in _row().items() if k != "tgco_label"}], "no_label.csv")
    _, report = read_reference(read_csv(header, dtype=str, keep_default_na=False), header.name)
    assert [(i.record, i.field) for i in report.errors] == [("header", "tgco_label")]
    assert set(REQUIRED) <= set(_row())
    frame, report = read_csv_bytes(b"\xff\xfe\x00bad", "binary.csv")
    assert frame is None and report.errors[0].message.startswith("not UTF-8 text")
    sample = Path(__file__).resolve().parent.parent / "samples" / "kitchen-synthetic"
    capsys.readouterr()
    assert analysis_cli(["kitchen", str(sample), "--reference-audit", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "audit.csv" in err and "row 3" in err and "speaker" in err and "nothing was compared" in err


def test_runs_are_matched_by_their_path_and_rows_of_other_runs_are_set_apart():
    from dataclasses import replace

    from corpus.kitchen.dataset import load_kitchen
    from corpus.settings import SAMPLES

    sample = load_kitchen(SAMPLES / "kitchen-synthetic")
    a, b = sample.runs[0], sample.runs[1]
    a = replace(a, source="gpt-4o/boiled_egg/run.json")
    b = replace(b, source="claude/boiled_egg/run.json")
    assert run_of("src/data/gpt-4o/boiled_egg/run.json", [a, b]) is a  # the end of their path, folder by folder
    assert run_of("elsewhere/run.json", [a, b]) is None  # two runs of that file name: not guessed
    assert run_of("elsewhere/run.json", [a]) is a  # one run of that name
    units = kitchen_metrics([a])[0].audit.units
    unit = units[0].unit
    rows = [
        _reference_row(unit, "src/data/gpt-4o/boiled_egg/run.json"),
        _reference_row(unit, "src/data/other/boiled_egg/x.json"),
    ]
    agreement = compare([(a, units)], rows)
    assert agreement.other_runs == {"src/data/other/boiled_egg/x.json": 1}
    assert agreement.matched == 1 and len(agreement.only_theirs) == 0


def _reference_row(unit, source):
    from analysis.kitchen.reference import ReferenceUnit

    return ReferenceUnit(
        row=2,
        source_file=source,
        step=unit.step,
        speaker=unit.sender,
        target=1 - unit.sender,
        action=unit.action.verb,
        object=unit.object,
        location="",
        text="",
        label="effective",
    )


def test_related_objects_and_the_kappa_of_few_units():
    assert related("potato", "potato_slices") and related("", "egg") and related("egg", "boiled_egg")
    assert not related("egg", "potato") and not related("sweet_potato", "potato_slices")
    few = cohen_kappa(["effective", "redundant", "effective"], ["effective", "redundant", "ineffective"])
    assert few.defined and any("fewer than 10" in w for w in few.warnings)
    none = cohen_kappa([], [])
    assert not none.defined and "no request unit" in str(none.estimate)
    same = cohen_kappa(["effective"] * 3, ["effective"] * 3)
    assert not same.defined


@needs_fork
def test_each_disagreement_on_the_kitchen_screen_links_to_its_step(tmp_path):
    """What the Kitchen screen lists for an uploaded reference: every disagreement, each with the link
    that opens its run at its step in the replay; a broken file gives its problems, nothing compared."""
    from urllib.parse import parse_qs, urlparse

    from corpus.importers import run_import
    from corpus.kitchen.dataset import load_kitchen
    from corpus.loading.catalog import key_of
    from corpus.loading.report import Report
    from services import kitchen as svc

    kitchen = load_kitchen(run_import("overcooked", RUNS, tmp_path / "datasets" / "tgco"))
    found = svc.reference(kitchen, "level", AUDIT.read_bytes(), AUDIT.name)
    assert found.matched == 50 and found.kappa.estimate == pytest.approx(0.3478, abs=5e-4)
    rows = svc.reference_disagreements(kitchen, found)
    assert len(rows) == 24
    runs = {r.id: r for r in kitchen.runs}
    for row in rows.itertuples():
        q = parse_qs(urlparse(row.replay).query)
        assert q["dataset"] == [key_of(kitchen.root)] and q["run"] == [row.run]
        assert runs[row.run].steps[int(q["step"][0])].step == row.step
    broken = svc.reference(kitchen, "level", b"source_file,speaker\nx,0\n", "broken.csv")
    assert isinstance(broken, Report) and broken.errors[0].field == "message_timestep"
