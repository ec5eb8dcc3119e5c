"""The agreement command line: JSON and text, options, bad files, label spellings pandas would
read as missing, all four levels, and 10,000 categories in seconds."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from agreement_data import grounding_csv, random_labels, reliability_data
from statsmodels.stats.inter_rater import fleiss_kappa

from analysis import agreement as ag
from analysis.cli import main as cli_main
from corpus import codebook
from corpus.loading.dataset import SAMPLE_DATA

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parent.parent


def test_cli_json_detects_grounding_layout(tmp_path, capsys):
    path = grounding_csv(tmp_path / "grounding_acts.csv")
    code = cli_main(
        [
            "agreement",
            str(path),
            "--json",
            "--bootstrap",
            "100",
            "--seed",
            "3",
            "--partition",
            "validation",
            "--exclude-coder",
            "llm_coder",
        ]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["item_col"] == "session_id,action_index" and out["label_col"] == "code"
    assert out["n_items"] == 56 and out["n_coders"] == 3 and out["coders"] == ["coder_a", "coder_b", "coder_c"]
    df = pd.read_csv(path)
    df = df[(df["partition"] == "validation") & (df["coder"] != "llm_coder")]
    t = ag.LabelTable(df, item=["session_id", "action_index"], label="code")
    # AC1's Q: the bundled codebook that holds every label (grounding acts, 8 codes), as Gwet defines Q.
    expected = ag.report(t, n_boot=100, seed=3, scale=codebook.default().code_ids).to_json()
    assert out["statistics"] == expected["statistics"]
    assert out["statistics"]["gwet_ac1"]["method"].endswith("Q = 8 categories (the codebook's)")
    assert out["pairwise_cohen_kappa"] == expected["pairwise_cohen_kappa"]
    assert out["statistics"]["fleiss_kappa"]["estimate"] == pytest.approx(fleiss_kappa(t.count_table()))


def test_cli_options_and_text_table(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    df = random_labels(4).rename(columns={"item": "unit", "coder": "rater", "label": "score"})
    df.to_csv(path, index=False)
    args = ["agreement", str(path), "--item-col", "unit", "--coder-col", "rater", "--label-col", "score"]
    assert cli_main([*args, "--level", "interval", "--bootstrap", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    t = ag.LabelTable(df, "unit", "rater", "score")
    alpha = out["statistics"]["krippendorff_alpha"]
    assert alpha["level"] == "interval"
    assert alpha["estimate"] == pytest.approx(krippendorff.alpha(reliability_data(t), level_of_measurement="interval"))
    assert out["statistics"]["fleiss_kappa"]["interval"] == {"undefined": "no bootstrap was run"}
    assert cli_main([*args, "--bootstrap", "50"]) == 0
    text = capsys.readouterr().out
    assert "Fleiss' kappa" in text and "Krippendorff's alpha (nominal)" in text and "Gwet's AC1" in text
    assert f"{out['statistics']['fleiss_kappa']['estimate']:.3f}" in text
    assert "(0 missing)" in text and "Computed by" in text


@pytest.mark.parametrize("level", ["ordinal", "ratio"])
def test_cli_levels_ordinal_with_an_order_and_ratio(tmp_path, capsys, level):
    path = tmp_path / "scores.csv"
    df = random_labels(6)
    df.assign(label=df["label"] + 1).to_csv(path, index=False)
    assert (
        cli_main(["agreement", str(path), "--level", level, "--categories", "5,4,3,2,1", "--bootstrap", "0", "--json"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    t = ag.LabelTable(df.assign(label=df["label"] + 1), categories=[5, 4, 3, 2, 1])
    assert out["categories"] == ["5", "4", "3", "2", "1"]
    assert out["statistics"]["krippendorff_alpha"]["estimate"] == pytest.approx(
        ag.krippendorff_alpha(t, level=level, n_boot=0).estimate
    )


def test_label_spellings_that_pandas_reads_as_missing_are_labels(tmp_path, capsys):
    path = tmp_path / "na.csv"
    spellings = ["None", "NA", "NaN", "nan", "null", "N/A"]
    lines = ["item,coder,label"] + [f"{i},{c},{spellings[i % 6]}" for i in range(30) for c in ("a", "b")]
    lines += ["30,a,", "30,b,none"]
    path.write_text("\n".join(lines) + "\n")
    assert cli_main(["agreement", str(path), "--json", "--bootstrap", "0"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert sorted(out["categories"]) == sorted(spellings + ["none"])
    assert out["n_labels"] == 61 and out["n_missing_labels"] == 1
    assert out["statistics"]["percent_agreement"]["estimate"] == 1.0
    assert cli_main(["agreement", str(path), "--bootstrap", "0"]) == 0
    assert "61 labels (1 missing)" in capsys.readouterr().out


def test_cli_bad_files_exit_2_naming_file_and_column(tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert cli_main(["agreement", str(empty), "--json"]) == 2
    err = capsys.readouterr().err
    assert str(empty) in err and "empty" in err

    nolabel = tmp_path / "nolabel.csv"
    nolabel.write_text("item,coder\n1,a\n1,b\n")
    assert cli_main(["agreement", str(nolabel)]) == 2
    err = capsys.readouterr().err
    assert str(nolabel) in err and "'label'" in err

    assert cli_main(["agreement", str(nolabel), "--item-col", "session_id,action_index"]) == 2
    assert "'session_id'" in capsys.readouterr().err

    header_only = tmp_path / "header.csv"
    header_only.write_text("item,coder,label\n")
    assert cli_main(["agreement", str(header_only)]) == 2
    assert "no label rows" in capsys.readouterr().err

    blank_item = tmp_path / "blank.csv"
    blank_item.write_text("item,coder,label\n1,a,x\n,b,y\n")
    assert cli_main(["agreement", str(blank_item)]) == 2
    err = capsys.readouterr().err
    assert str(blank_item) in err and "'item'" in err and "row 2" in err

    words = tmp_path / "words.csv"
    words.write_text("item,coder,label\n1,a,x\n1,b,y\n")
    assert cli_main(["agreement", str(words), "--level", "interval"]) == 2
    assert "interval level needs numeric labels" in capsys.readouterr().err

    missing = tmp_path / "absent.csv"
    assert cli_main(["agreement", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err


def test_cli_as_a_module(tmp_path):
    path = grounding_csv(tmp_path / "grounding_acts.csv")
    proc = subprocess.run(
        [sys.executable, "-m", "analysis", "agreement", str(path), "--json", "--bootstrap", "50"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["n_coders"] == 4 and out["n_items"] == 60
    bad = subprocess.run(
        [sys.executable, "-m", "analysis", "agreement", str(tmp_path / "nope.csv")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "nope.csv" in bad.stderr


def test_ten_thousand_categories_over_4000_items_run_in_seconds(tmp_path):
    # The dense arrays this once built (items x categories x categories) would take 1.4 TiB;
    # under a 4 GiB address-space limit the command must still finish, and quickly.
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 10_000, 4000)
    codes = np.where(rng.random((4000, 3)) < 0.7, truth[:, None], rng.integers(0, 10_000, (4000, 3)))
    path = tmp_path / "many.csv"
    pd.DataFrame(
        {"item": np.repeat(np.arange(4000), 3), "coder": np.tile(["a", "b", "c"], 4000), "label": codes.ravel()}
    ).to_csv(path, index=False)
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30)); "
    run = f"{limit}from analysis.cli import main; raise SystemExit(main())"
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", run, "agreement", str(path), "--json", "--bootstrap", "200"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert time.perf_counter() - t0 < 60
    out = json.loads(proc.stdout)
    assert out["n_items"] == 4000 and len(out["categories"]) > 5000
    assert 0.3 < out["statistics"]["fleiss_kappa"]["estimate"] < 0.7
    assert out["statistics"]["krippendorff_alpha"]["computed_by"].startswith("analysis.agreement")
    ratio = subprocess.run(
        [sys.executable, "-c", run, "agreement", str(path), "--level", "ratio"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ratio.returncode == 2
    assert "the ratio level's distance matrix would have" in ratio.stderr and "at most 2,000 categories" in ratio.stderr


SAMPLE_LABELS = ROOT / "sample_data" / "labels" / "grounding_acts.csv"


def _fleiss_of(df: pd.DataFrame) -> float:
    wide = df.pivot_table(index=["session_id", "action_index"], columns="code", values="coder", aggfunc="count")
    return float(fleiss_kappa(wide.fillna(0).to_numpy()))


def test_the_sample_pools_people_only_and_compares_the_model_coder_separately(capsys):
    """The sample's labels hold three people and a model coder (coder_kind): the pooled numbers are
    the people's, as on the Agreement page, and the output says so."""
    labels = pd.read_csv(SAMPLE_LABELS)
    people = labels[labels["coder_kind"] == "human"]
    complete = people.groupby(["session_id", "action_index"])["coder"].transform("nunique") == 3
    assert cli_main(["agreement", str(SAMPLE_LABELS), "--bootstrap", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["coders"] == ["coder_a", "coder_b", "coder_c"]
    assert out["statistics"]["fleiss_kappa"]["n"] == 180
    assert out["statistics"]["fleiss_kappa"]["estimate"] == pytest.approx(_fleiss_of(people[complete]), rel=1e-12)
    assert out["pooled"].startswith("Coders pooled: coder_a, coder_b, coder_c (people only;")
    [model] = out["model_coders"]
    assert model["coder"] == "llm_coder" and model["against"] == "majority of coder_a, coder_b, coder_c"
    assert 0 < model["cohen_kappa"]["estimate"] < 1
    # Pooling the model is a choice the command line makes only when asked, and says so.
    assert cli_main(["agreement", str(SAMPLE_LABELS), "--bootstrap", "0", "--json", "--pool-models"]) == 0
    pooled = json.loads(capsys.readouterr().out)
    assert pooled["coders"] == ["coder_a", "coder_b", "coder_c", "llm_coder"] and pooled["model_coders"] == []
    everyone = labels.groupby(["session_id", "action_index"])["coder"].transform("nunique") == 4
    assert pooled["statistics"]["fleiss_kappa"]["estimate"] == pytest.approx(_fleiss_of(labels[everyone]), rel=1e-12)
    assert cli_main(["agreement", str(SAMPLE_LABELS), "--bootstrap", "0"]) == 0
    text = capsys.readouterr().out
    assert "Coders pooled: coder_a, coder_b, coder_c (people only;" in text and "llm_coder: Cohen's kappa" in text


def test_ordinal_word_labels_take_the_codebook_order_or_are_refused(tmp_path, capsys):
    from corpus.codebook import default

    assert cli_main(["agreement", str(SAMPLE_LABELS), "--bootstrap", "0", "--json", "--level", "ordinal"]) == 0
    out = json.loads(capsys.readouterr().out)
    order = default().code_ids
    assert out["ordinal_order"].startswith("Ordinal order: the codebook Grounding acts")
    people = pd.read_csv(SAMPLE_LABELS).query("coder_kind == 'human'")
    t = ag.LabelTable(people, item="session_id,action_index", label="code", categories=order)
    expected = krippendorff.alpha(reliability_data(t), level_of_measurement="ordinal")
    assert out["statistics"]["krippendorff_alpha"]["estimate"] == pytest.approx(expected, rel=1e-9)
    # Words no codebook holds: refused, asking for the order.
    path = tmp_path / "words.csv"
    pd.DataFrame({"item": [1, 1, 2, 2], "coder": ["a", "b"] * 2, "label": ["lo", "hi", "mid", "mid"]}).to_csv(
        path, index=False
    )
    assert cli_main(["agreement", str(path), "--level", "ordinal", "--bootstrap", "0"]) == 2
    assert "ordinal alpha needs the categories' order" in capsys.readouterr().err


def test_ac1_counts_the_codebooks_categories_unless_told_the_observed(capsys):
    """By default the CLI's AC1 counts the codebook's 8 grounding acts (Gwet's Q: the scale's
    categories) on the sample's labels, whose people use 7 of them; --ac1-categories observed counts
    those 7, and the method says which."""
    path = SAMPLE_DATA / "labels" / "grounding_acts.csv"
    df = pd.read_csv(path)
    df = df[df["coder_kind"] == "human"]
    used = df["code"].nunique()
    assert used == 7
    args = [
        "agreement",
        str(path),
        "--item-col",
        "session_id,action_index",
        "--label-col",
        "code",
        "--bootstrap",
        "0",
        "--json",
    ]
    assert cli_main(args) == 0
    scale = json.loads(capsys.readouterr().out)["statistics"]["gwet_ac1"]
    assert cli_main([*args, "--ac1-categories", "observed"]) == 0
    observed = json.loads(capsys.readouterr().out)["statistics"]["gwet_ac1"]
    assert scale["method"].endswith("Q = 8 categories (the codebook's)")
    assert observed["method"].endswith(f"Q = {used} categories (those observed)")
    t = ag.LabelTable(df, item=["session_id", "action_index"], label="code")
    assert scale["estimate"] == pytest.approx(ag.gwet_ac1(t, scale=codebook.default().code_ids).estimate, abs=1e-12)
    assert observed["estimate"] == pytest.approx(ag.gwet_ac1(t).estimate, abs=1e-12)
    assert (round(observed["estimate"], 4), round(scale["estimate"], 4)) == (0.8345, 0.8383)
