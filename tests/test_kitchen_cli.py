"""Kitchen runs from the command line, end to end: ``python -m corpus import`` tells run files from
the other formats, writes a kitchen dataset all or nothing, and ``python -m analysis kitchen`` audits
its request units and prints the metrics per directed pairing; the app's upload says where such
runs go."""

from __future__ import annotations

import io
import json
import shutil
import zipfile

import pytest
from test_overcooked_import import COLLAB, REAL_RUN, failed_run, fork_run, needs_collab, write

from analysis.cli import main as analysis_cli
from analysis.kitchen.metrics import kitchen_metrics
from corpus.cli import main as corpus_cli
from corpus.importers.overcooked import load_runs
from corpus.kitchen.dataset import is_kitchen, load_kitchen


def _kitchen_json(capsys, *args: str) -> dict:
    capsys.readouterr()
    assert analysis_cli(["kitchen", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _metric(out: dict, metric: str, **keys) -> dict:
    rows = [r for r in out["metrics"] if r["metric"] == metric and all(r[k] == v for k, v in keys.items())]
    assert len(rows) == 1, (metric, keys, rows)
    return rows[0]


@needs_collab
def test_the_real_run_imports_as_detected_and_its_requests_are_audited(tmp_path, capsys):
    """The benchmark's layout (model / json / recipe / run): the pairing is read from the path. The
    run's four request units, all the Chef's to the Assistant (window ceil(0.15 x 17) = 3 steps):
    step 0 pickup(bell_pepper, ingredient_dispenser), done at 3: effective; step 0
    place_obj_on_counter(), done at 5, after the window: ineffective; step 3 place_obj_on_counter(),
    done at 5: effective; step 5 the same, done at 5 already: redundant. FollowRate = 2 / 4."""
    runs = tmp_path / "batch_results" / "azure-gpt-4o" / "json" / "baked_bell_pepper"
    runs.mkdir(parents=True)
    shutil.copy(COLLAB / REAL_RUN, runs / REAL_RUN)
    dest = tmp_path / "kitchen"
    assert corpus_cli(["import", str(tmp_path / "batch_results"), str(dest)]) == 0
    said = capsys.readouterr().out
    assert said.startswith("Read as kitchen runs (Collab-Overcooked run logs or Overcooked-AI trajectories)")
    assert is_kitchen(dest) and load_kitchen(dest).info.description.startswith("Imported from 'batch_results': 1 ")
    out = _kitchen_json(capsys, str(dest), "--units")
    assert out["runs"] == 1
    pairing = "azure-gpt-4o -> azure-gpt-4o"
    assert _metric(out, "follow_rate", pairing=pairing)["estimate"] == 2 / 4
    assert _metric(out, "requests", pairing=pairing)["estimate"] == 4
    assert _metric(out, "success", pairing=pairing)["estimate"] == 1
    assert [(u["step"], u["action"], u["outcome"]) for u in out["units"]] == [
        (0, "pickup(bell_pepper, ingredient_dispenser)", "effective"),
        (0, "place_obj_on_counter()", "ineffective"),
        (3, "place_obj_on_counter()", "effective"),
        (5, "place_obj_on_counter()", "redundant"),
    ]
    # The same numbers from the run file itself, without a dataset; a fixed window of 20 steps finds
    # the second request done in time (Table 5's fixed-window reading).
    direct = _kitchen_json(capsys, str(runs / REAL_RUN), "--window", "fixed")
    assert _metric(direct, "follow_rate", pairing=pairing)["estimate"] == 3 / 4


def test_runs_of_two_pairings_give_a_row_each_and_a_failed_run_counts(tmp_path, capsys):
    """A fork's cross-pairing folder (models named in the run) and the benchmark's own failed run
    (models from its folder): one row per directed pairing, each mean over its runs."""
    src = tmp_path / "runs"
    write(src / "gpt-4o__claude-sonnet-4" / "boiled_egg" / "run1.json", fork_run())
    write(src / "gpt-4o__claude-sonnet-4" / "boiled_egg" / "run2.json", fork_run())
    write(src / "llama" / "boiled_egg" / "experiment_2025_boiled_egg.json", failed_run())
    dest = tmp_path / "k"
    assert corpus_cli(["import", "--from", "overcooked", str(src), str(dest)]) == 0
    runs = load_kitchen(dest).runs
    assert sorted(runs, key=lambda r: r.id) == sorted(load_runs(src), key=lambda r: r.id)  # as read from the files
    pairings = sorted({r.pairing for r in runs})
    assert len(pairings) == 2 and len(runs) == 3
    out = _kitchen_json(capsys, str(dest))
    for pairing in pairings:
        mine = [m for m in kitchen_metrics(runs) if m.pairing == pairing]
        row = _metric(out, "success", pairing=pairing)
        assert row["n"] == len(mine) and row["estimate"] == sum(m.success for m in mine) / len(mine)
    failed = next(r for r in runs if not r.success)
    assert _metric(out, "success", pairing=failed.pairing)["estimate"] == 0
    assert _metric(out, "format_corrections", pairing=failed.pairing)["estimate"] == 5  # 2 + 3 counted errors


def test_a_broken_run_stops_the_whole_import_and_says_where(tmp_path, capsys):
    src = tmp_path / "runs"
    write(src / "gpt-4o" / "boiled_egg" / "good.json", fork_run())
    bad = fork_run()
    bad["total_score"] = "twenty"
    write(src / "gpt-4o" / "boiled_egg" / "bad.json", bad)
    dest = tmp_path / "k"
    assert corpus_cli(["import", "--from", "overcooked", str(src), str(dest)]) == 1
    err = capsys.readouterr().err
    assert "gpt-4o/boiled_egg/bad.json" in err and "total_score" in err and "the string 'twenty'" in err
    assert not dest.exists() and [p.name for p in tmp_path.iterdir()] == ["runs"]
    # The analysis reads nothing from a broken source either.
    assert analysis_cli(["kitchen", str(src)]) == 1


def test_an_uploaded_zip_of_runs_is_kept_as_a_kitchen_dataset(tmp_path):
    """The upload detects the runs, offers them as a format of its own, and keeps them as a kitchen
    dataset (what the Kitchen screen reads), through the same code the worker runs."""
    from corpus.server.uploads import ImportChoices, Quota, add_upload
    from services.uploads import FORMATS, detected

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("gpt-4o/json/boiled_egg/worker0_boiled_egg.json", json.dumps(fork_run()))
    found = detected(buf.getvalue())
    assert not isinstance(found, str) and found.fmt == "overcooked" and found.fmt in FORMATS.values()
    quota = Quota(2**30, 10_000, 2**31, 100_000, None)
    up, new, report = add_upload(
        str(tmp_path), "runs.zip", buf.getvalue(), quota, "overcooked", ImportChoices(), "lead"
    )
    assert up is not None and new and report.ok, report.format()
    kept = next((tmp_path / "datasets").iterdir())
    assert is_kitchen(kept) and len(load_kitchen(kept).runs) == 1


@pytest.mark.parametrize("option", [["--condition", "visible"], ["--split", "test"]])
def test_map_task_options_are_refused_for_kitchen_runs(tmp_path, capsys, option):
    write(tmp_path / "runs" / "a.json", fork_run())
    assert corpus_cli(["import", "--from", "overcooked", *option, str(tmp_path / "runs"), str(tmp_path / "k")]) == 1
    assert "not an option of the kitchen run import" in capsys.readouterr().err


def test_the_rule_as_a_coder_against_people(tmp_path, capsys):
    """Two people code 40 request units of the bundled synthetic runs: one gives every unit the rule's
    outcome, the other the same but for 8 units coded 'effective' where the rule said otherwise. The
    rule's Cohen's kappa against each is scikit-learn's on the same codes; a row naming no unit is an
    error with its row and field, and nothing is compared."""
    from pathlib import Path

    import pandas as pd
    from sklearn.metrics import cohen_kappa_score

    sample = Path(__file__).resolve().parent.parent / "samples" / "kitchen-synthetic"
    assert analysis_cli(["kitchen", str(sample), "--units", "--csv"]) == 0
    units = pd.read_csv(io.StringIO(capsys.readouterr().out))
    some = units.head(40)
    rows = []
    changed = 0
    for u in some.itertuples():
        rows.append((u.run_id, u.turn, u.unit, "ann", u.outcome))
        other = u.outcome
        if u.outcome != "effective" and changed < 8:
            other, changed = "effective", changed + 1
        rows.append((u.run_id, u.turn, u.unit, "ben", other))
    codes = pd.DataFrame(rows, columns=["run_id", "turn", "unit", "coder", "code"])
    codes.to_csv(tmp_path / "codes.csv", index=False)
    assert analysis_cli(["kitchen", str(sample), "--codes", str(tmp_path / "codes.csv"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["units"] == 40 and out["coders"] == ["ann", "ben"] and changed == 8
    labels = ["effective", "assisted", "redundant", "ineffective"]
    ann = codes[codes["coder"] == "ann"]["code"].tolist()
    ben = codes[codes["coder"] == "ben"]["code"].tolist()
    rule = some["outcome"].tolist()
    assert out["rule_vs_each"]["ann"]["estimate"] == pytest.approx(1.0)
    assert out["rule_vs_each"]["ben"]["estimate"] == pytest.approx(cohen_kappa_score(rule, ben, labels=labels))
    assert out["people"]["statistics"]["fleiss_kappa"]["estimate"] < 1
    assert ann == rule
    codes.loc[3, "unit"] = 99
    codes.to_csv(tmp_path / "bad.csv", index=False)
    assert analysis_cli(["kitchen", str(sample), "--codes", str(tmp_path / "bad.csv")]) == 1
    err = capsys.readouterr().err
    assert "bad.csv" in err and "row 5" in err and "no such request unit" in err and "nothing was compared" in err
