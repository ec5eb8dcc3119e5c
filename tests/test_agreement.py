"""Inter-coder agreement: values against statsmodels, krippendorff and scikit-learn, textbook
examples, undefined cases, diagnostics, the command line and the sample corpus."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2_contingency
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

from analysis import agreement as ag
from analysis.cli import main as cli_main

ROOT = Path(__file__).resolve().parent.parent

# Fleiss (1971): 30 patients, 6 psychiatrists each, 5 diagnoses (1 depression, 2 personality
# disorder, 3 schizophrenia, 4 neurosis, 5 other); the same data as statsmodels' and R irr's tests.
DIAGNOSES = np.array([
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4],
    [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5],
    [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5],
    [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5],
    [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
])

# Wikipedia "Fleiss' kappa" worked example: 10 items, 14 raters, 5 categories, kappa 0.210.
WIKIPEDIA = np.array([
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
])


def long_from_matrix(matrix, missing=None) -> pd.DataFrame:
    """items x coders matrix -> long table (``missing`` marks an absent label)."""
    rows = [(f"i{i}", f"c{c}", v) for i, row in enumerate(matrix) for c, v in enumerate(row)
            if not (missing is not None and v == missing)]
    return pd.DataFrame(rows, columns=["item", "coder", "label"])


def long_from_counts(table) -> pd.DataFrame:
    """items x categories count table -> long table (the k-th rating of an item by coder k)."""
    rows = []
    for i, row in enumerate(np.asarray(table, dtype=int)):
        k = 0
        for cat, n in enumerate(row):
            for _ in range(n):
                rows.append((f"i{i}", f"r{k}", cat + 1))
                k += 1
    return pd.DataFrame(rows, columns=["item", "coder", "label"])


def random_labels(seed: int, n_items: int = 120, n_coders: int = 4, n_cats: int = 5, accuracy: float = 0.7,
                  p_missing: float = 0.1) -> pd.DataFrame:
    """Coders who give a latent category with probability ``accuracy``, some labels missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_cats, n_items)
    rows = []
    for i in range(n_items):
        for c in range(n_coders):
            if rng.random() < p_missing:
                continue
            v = truth[i] if rng.random() < accuracy else rng.integers(0, n_cats)
            rows.append((f"item{i}", f"coder{c}", int(v)))
    return pd.DataFrame(rows, columns=["item", "coder", "label"])


def reliability_data(lab: ag.Labels) -> np.ndarray:
    """coders x items with NaN for missing, as krippendorff.alpha takes it (category codes)."""
    return np.where(lab.codes >= 0, lab.codes, np.nan).T.astype(float)


# -- Fleiss' kappa ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_equals_statsmodels_on_random_tables(seed):
    df = random_labels(seed, accuracy=0.3 + 0.1 * seed)
    lab = ag.labels_from_frame(df)
    res = ag.fleiss(df, n_boot=0)
    table = lab.counts[lab.complete]
    assert res.n_items == len(table) and res.n_items + res.n_dropped == df["item"].nunique()
    assert res.n_dropped > 0  # some items lack a label and are left out
    assert res.kappa == pytest.approx(fleiss_kappa(table, method="fleiss"), abs=1e-12)
    assert ag.fleiss_kappa_table(table) == pytest.approx(res.kappa, abs=1e-12)


def test_fleiss_1971_psychiatric_diagnoses():
    res = ag.fleiss(long_from_matrix(DIAGNOSES), n_boot=0)
    assert res.n_items == 30 and res.n_coders == 6 and res.n_dropped == 0
    assert res.kappa == pytest.approx(0.4302445, abs=1e-7)  # R irr::kappam.fleiss, statsmodels
    # Per-category kappas as printed by Fleiss (1971).
    expected = {"1": 0.245, "2": 0.245, "3": 0.520, "4": 0.471, "5": 0.566}
    for cat, k in expected.items():
        assert res.per_category[cat] == pytest.approx(k, abs=5e-4)


def test_per_category_kappa_is_kappa_of_that_category_against_the_rest():
    lab = ag.labels_from_frame(random_labels(11, n_items=80, p_missing=0))
    res = ag.fleiss(lab, n_boot=0)
    t = lab.counts
    for j, cat in enumerate(lab.categories):
        binary = np.column_stack([t[:, j], t.sum(axis=1) - t[:, j]])
        assert res.per_category[str(cat)] == pytest.approx(fleiss_kappa(binary), abs=1e-12)


def test_fleiss_wikipedia_example():
    res = ag.fleiss(long_from_counts(WIKIPEDIA), n_boot=0)
    assert res.n_items == 10 and res.n_coders == 14
    assert round(res.kappa, 3) == 0.210
    assert res.kappa == pytest.approx(fleiss_kappa(WIKIPEDIA), abs=1e-12)
    assert res.p_observed == pytest.approx(0.378, abs=5e-4)  # P-bar in the worked example
    assert res.p_expected == pytest.approx(0.213, abs=5e-4)  # P-bar_e


def test_fleiss_bootstrap_interval_is_seeded_and_matches_the_sampling_spread():
    df = random_labels(3, n_items=150, n_coders=3, p_missing=0)
    a = ag.fleiss(df, n_boot=400, seed=1)
    b = ag.fleiss(df, n_boot=400, seed=1)
    c = ag.fleiss(df, n_boot=400, seed=2)
    assert (a.se, a.ci) == (b.se, b.ci)
    assert a.se != c.se
    assert a.ci[0] < a.kappa < a.ci[1]
    assert a.se > 0

    # The bootstrap standard error estimates the spread of kappa over fresh samples of items from
    # the same coders: compare with that spread over 300 simulated data sets.
    kappas = [ag.fleiss(random_labels(1000 + s, n_items=150, n_coders=3, p_missing=0), n_boot=0).kappa
              for s in range(300)]
    spread = float(np.std(kappas, ddof=1))
    assert a.se == pytest.approx(spread, rel=0.3)


# -- Krippendorff's alpha --------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", ag.LEVELS)
def test_alpha_equals_krippendorff_package(seed, level):
    df = random_labels(seed, p_missing=0.25)
    lab = ag.labels_from_frame(df)
    res = ag.krippendorff_alpha(df, level=level, n_boot=0)
    # Category codes are 0..4 in the order of the numeric labels 0..4, so they serve as values.
    assert res.alpha == pytest.approx(krippendorff.alpha(reliability_data(lab), level_of_measurement=level), abs=1e-12)
    assert res.n_items == int((lab.n_per_item >= 2).sum())


@pytest.mark.parametrize("level", ag.LEVELS)
def test_alpha_from_resampled_coincidences_equals_package(level):
    # The bootstrap computes alpha from weighted coincidences; a weight is how often an item is
    # drawn, so it must equal the package on the table with items repeated that often.
    lab = ag.labels_from_frame(random_labels(7, p_missing=0.2))
    t = lab.counts[lab.n_per_item >= 2]
    w = np.random.default_rng(0).integers(0, 4, len(t))
    mine = ag.alpha_from_coincidences(ag._coincidences(t, w.astype(float)), level, np.arange(t.shape[1]))
    theirs = krippendorff.alpha(value_counts=np.repeat(t, w, axis=0), level_of_measurement=level)
    assert mine == pytest.approx(theirs, abs=1e-12)


def test_alpha_krippendorff_textbook_example_with_missing_labels():
    # Krippendorff's reliability data with missing values (the package's documented example).
    data = [[np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
            [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
            [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4]]
    rows = [(f"u{u}", f"c{c}", int(v)) for c, row in enumerate(data) for u, v in enumerate(row) if not np.isnan(v)]
    df = pd.DataFrame(rows, columns=["item", "coder", "label"])
    assert ag.krippendorff_alpha(df, n_boot=0).alpha == pytest.approx(0.691358, abs=1e-6)
    assert ag.krippendorff_alpha(df, level="interval", n_boot=0).alpha == pytest.approx(0.810845, abs=1e-6)


def test_alpha_ordinal_uses_the_given_category_order():
    order = ["very low", "low", "mid", "high", "very high"]
    data = [["very low", "low", "mid", "mid", "low", "very low", "high", "very low", "low", None, None, None],
            ["very low", "low", "mid", "mid", "low", "low", "high", "very low", "low", "very high", None, "mid"],
            [None, "mid", "mid", "mid", "low", "mid", "high", "low", "low", "very high", "very low", None],
            ["very low", "low", "mid", "mid", "low", "high", "high", "very low", "low", "very high", "very low", None]]
    rows = [(f"u{u}", f"c{c}", v) for c, row in enumerate(data) for u, v in enumerate(row) if v is not None]
    df = pd.DataFrame(rows, columns=["item", "coder", "label"])
    res = ag.krippendorff_alpha(df, level="ordinal", categories=order, n_boot=200, seed=0)
    assert round(res.alpha, 3) == 0.815  # the package's documented value
    assert res.ci[0] <= res.alpha <= res.ci[1]
    with pytest.raises(ag.LabelTableError, match="numeric"):
        ag.krippendorff_alpha(df, level="interval", n_boot=0)


def test_alpha_bootstrap_interval():
    df = random_labels(5, n_items=200)
    res = ag.krippendorff_alpha(df, n_boot=300, seed=3)
    again = ag.krippendorff_alpha(df, n_boot=300, seed=3)
    assert res.ci == again.ci and res.ci[0] < res.alpha < res.ci[1]
    assert 0 < res.se < 0.1


# -- percent agreement, Cohen, AC1 -----------------------------------------------------------------


def test_percent_agreement_by_hand():
    df = long_from_matrix([["x", "x", "x"], ["x", "x", "y"], ["y", "y", "y"], ["x", "y", "-"], ["z", "-", "-"]],
                          missing="-")
    # per item: 1, 1/3, 1, 0; the last item has one label and does not count
    assert ag.percent_agreement(df) == pytest.approx((1 + 1 / 3 + 1 + 0) / 4)


@pytest.mark.parametrize("seed", range(4))
def test_pairwise_cohen_equals_sklearn(seed):
    df = random_labels(seed, n_coders=5, p_missing=0.2)
    res = ag.pairwise_cohen(df)
    assert len(res.pairs) == 10
    for p in res.pairs:
        a = df[df["coder"] == p["coder_a"]].set_index("item")["label"]
        b = df[df["coder"] == p["coder_b"]].set_index("item")["label"]
        both = a.index.intersection(b.index)
        assert p["n_items"] == len(both)
        expected = cohen_kappa_score(a.loc[both], b.loc[both])
        assert p["kappa"] == pytest.approx(expected, abs=1e-12)
        assert res.matrix.loc[p["coder_a"], p["coder_b"]] == pytest.approx(expected, abs=1e-12)
    assert res.mean == pytest.approx(np.mean([p["kappa"] for p in res.pairs]))


def test_gwet_ac1_hand_computed():
    df = long_from_matrix([["x", "x", "x"], ["x", "x", "y"], ["y", "y", "y"], ["x", "y", "-"]], missing="-")
    # pa = (1 + 1/3 + 1 + 0) / 4 = 7/12; pi_x = (1 + 2/3 + 0 + 1/2) / 4 = 13/24, pi_y = 11/24;
    # pe = (pi_x (1 - pi_x) + pi_y (1 - pi_y)) / (2 - 1) = 143/288; AC1 = (7/12 - 143/288) / (145/288) = 5/29
    pa, pe = Fraction(7, 12), 2 * Fraction(13, 24) * Fraction(11, 24)
    assert (pa - pe) / (1 - pe) == Fraction(5, 29)
    assert ag.gwet_ac1(df) == pytest.approx(5 / 29, abs=1e-12)


def test_gwet_ac1_two_raters_direct_formula_and_kappa_paradox():
    # Two raters, two categories: 118 items both "+", 5 and 2 discordant, none both "-": 94 %
    # agreement, kappa below zero (the kappa paradox), AC1 near 0.94.
    a = ["+"] * 118 + ["+"] * 5 + ["-"] * 2
    b = ["+"] * 118 + ["-"] * 5 + ["+"] * 2
    df = pd.DataFrame({"item": list(range(125)) * 2, "coder": ["A"] * 125 + ["B"] * 125, "label": a + b})
    n = 125
    pa = 118 / n
    pi_plus = ((118 + 5) / n + (118 + 2) / n) / 2
    pe = 2 * pi_plus * (1 - pi_plus)
    assert ag.gwet_ac1(df) == pytest.approx((pa - pe) / (1 - pe), abs=1e-12)
    assert ag.gwet_ac1(df) == pytest.approx(0.9408, abs=5e-4)
    kappa = ag.fleiss(df, n_boot=0).kappa
    assert kappa < 0.1
    diag = ag.diagnostics(df)
    assert diag["kappa_paradox"] is True
    assert diag["prevalence"]["category"] == "+" and diag["prevalence"]["share"] == pytest.approx(243 / 250)
    assert any("kappa paradox" in w for w in diag["warnings"])


def test_gwet_uses_given_categories_for_q():
    df = long_from_matrix([["x", "x"], ["x", "y"], ["y", "y"]])
    q2 = ag.gwet_ac1(df)
    q4 = ag.gwet_ac1(df, categories=["x", "y", "z", "w"])
    pa = 2 / 3
    pe4 = (0.5 * 0.5 * 2) / 3
    assert q4 == pytest.approx((pa - pe4) / (1 - pe4)) and q4 != q2


# -- undefined values ------------------------------------------------------------------------------


def test_every_label_the_same_category_is_undefined_not_zero():
    df = long_from_matrix([["a"] * 3] * 10)
    f = ag.fleiss(df)
    assert isinstance(f.kappa, ag.Undefined) and f.kappa.reason == "every label is the same category"
    assert str(f.kappa) == "undefined, because every label is the same category"
    assert isinstance(f.se, ag.Undefined) and isinstance(f.ci, ag.Undefined)
    assert isinstance(ag.krippendorff_alpha(df).alpha, ag.Undefined)
    assert all(isinstance(p["kappa"], ag.Undefined) for p in ag.pairwise_cohen(df).pairs)
    assert isinstance(ag.pairwise_cohen(df).mean, ag.Undefined)
    assert isinstance(ag.gwet_ac1(df), ag.Undefined)
    assert ag.percent_agreement(df) == 1.0
    r = ag.report(df, n_boot=50)
    assert r["fleiss_kappa"] == {"undefined": "every label is the same category"}
    assert r["krippendorff_alpha"] == {"undefined": "every label is the same category"}
    json.dumps(r)


def test_no_shared_items_and_single_coder_are_undefined():
    df = pd.DataFrame({"item": ["a", "b", "c"], "coder": ["x", "y", "x"], "label": ["p", "q", "p"]})
    assert ag.fleiss(df).kappa == ag.Undefined("no item was coded by every coder")
    assert ag.krippendorff_alpha(df).alpha == ag.Undefined(ag.NO_PAIRS)
    assert ag.percent_agreement(df) == ag.Undefined(ag.NO_PAIRS)
    assert ag.gwet_ac1(df) == ag.Undefined(ag.NO_PAIRS)
    assert ag.pairwise_cohen(df).pairs[0]["kappa"] == ag.Undefined("no item was coded by both coders")
    one = df[df["coder"] == "x"]
    assert ag.fleiss(one).kappa == ag.Undefined("Fleiss' kappa needs two or more coders")
    assert isinstance(ag.pairwise_cohen(one).mean, ag.Undefined)
    r = ag.report(one)
    assert r["n_coders"] == 1 and "undefined" in r["fleiss_kappa"]
    json.dumps(r)


# -- tables, diagnostics ---------------------------------------------------------------------------


def test_coincidence_matrix_by_hand_and_against_package():
    df = long_from_matrix([["a", "a", "b"], ["b", "b", "-"], ["a", "-", "-"]], missing="-")
    o = ag.coincidence_matrix(df)
    # item 1: pairs (a,a) x2, (a,b) x2 of 6 ordered pairs, each weighted 1/(3-1); item 2: (b,b) x2 weighted 1
    assert o.loc["a", "a"] == pytest.approx(1.0) and o.loc["a", "b"] == pytest.approx(1.0)
    assert o.loc["b", "a"] == pytest.approx(1.0) and o.loc["b", "b"] == pytest.approx(2.0)
    assert o.to_numpy().sum() == pytest.approx(5)  # the pairable labels
    lab = ag.labels_from_frame(random_labels(2, p_missing=0.3))
    from krippendorff.krippendorff import _coincidences as package_coincidences

    np.testing.assert_allclose(ag.coincidence_matrix(lab).to_numpy(), package_coincidences(lab.counts), atol=1e-9)


def test_confusion_matrix_and_most_disagreed():
    df = long_from_matrix([["a", "a", "a"], ["a", "b", "a"], ["a", "b", "c"], ["b", "b", "-"]], missing="-")
    cm = ag.confusion_matrix(df, "c0", "c1")
    assert cm.loc["a", "a"] == 1 and cm.loc["a", "b"] == 2 and cm.loc["b", "b"] == 1 and cm.to_numpy().sum() == 4
    top = ag.most_disagreed(df, n=3)
    assert top["item"].tolist() == ["i2", "i1"]  # i0 and i3 have no disagreement
    assert top.iloc[0]["agreement"] == 0 and top.iloc[0]["n_distinct"] == 3
    assert top.iloc[1]["modal_label"] == "a" and top.iloc[1]["modal_share"] == pytest.approx(2 / 3)
    assert top.iloc[0]["labels"] == "c0=a; c1=b; c2=c"


def test_coder_bias_chi_square_equals_scipy_and_flags_a_biased_coder():
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 3, 300)
    rows = []
    for i, t in enumerate(truth):
        rows += [(i, "fair1", int(t)), (i, "fair2", int(t) if rng.random() < 0.8 else int(rng.integers(0, 3)))]
        rows.append((i, "biased", 0 if rng.random() < 0.6 else int(t)))  # says "0" far too often
    df = pd.DataFrame(rows, columns=["item", "coder", "label"])
    bias = ag.coder_bias(df)
    res = chi2_contingency(bias["counts"].to_numpy(), correction=False)
    assert bias["test"]["chi2"] == pytest.approx(res.statistic) and bias["test"]["dof"] == res.dof
    assert bias["test"]["p_value"] == pytest.approx(res.pvalue, rel=1e-9, abs=1e-300)
    assert bias["test"]["p_value"] < 1e-6
    assert bias["shares"].loc["biased", "0"] > 0.6
    assert any("coder bias" in w for w in ag.diagnostics(df)["warnings"])


def test_diagnostics_sparse_categories_and_too_few_items():
    df = long_from_matrix([["a", "a"], ["a", "b"], ["b", "b"], ["c", "a"]] * 3)
    d = ag.diagnostics(df)
    assert d["sparse_categories"] == {"c": 3}
    assert d["too_few_items"] is True and d["n_items_complete"] == 12
    assert any("too few items" in w for w in d["warnings"]) and any("sparse" in w for w in d["warnings"])
    big = ag.diagnostics(random_labels(1, n_items=100, p_missing=0))
    assert big["too_few_items"] is False and big["sparse_categories"] == {}


# -- label table -----------------------------------------------------------------------------------


def test_composite_item_key_and_duplicates():
    df = pd.DataFrame({
        "session_id": ["S1", "S1", "S1", "S1", "S2", "S2", "S1"],
        "action_index": [0, 0, 1, 1, 0, 0, 0],
        "coder": ["a", "b", "a", "b", "a", "b", "a"],
        "code": ["x", "y", "x", "x", "y", "y", "y"],  # the last row corrects a's label of S1:0
    })
    lab = ag.labels_from_frame(df, item_col="session_id,action_index", label_col="code")
    assert list(lab.items) == ["S1:0", "S1:1", "S2:0"]
    assert lab.n_duplicates == 1
    assert lab.codes[0].tolist() == [1, 1]  # a's last label for S1:0 is y
    assert ag.percent_agreement(lab) == 1.0
    with pytest.raises(ag.LabelTableError, match="missing column 'label'") as exc:
        ag.labels_from_frame(df, item_col=["session_id", "action_index"])
    assert exc.value.column == "label"


def test_empty_labels_are_ignored_and_unknown_categories_rejected():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "coder": ["a", "b", "a", "b"], "label": ["x", "", "y", None]})
    lab = ag.labels_from_frame(df)
    assert lab.coded.sum() == 2
    with pytest.raises(ag.LabelTableError, match="not one of the categories"):
        ag.labels_from_frame(df, categories=["x"])


# -- drift and gold --------------------------------------------------------------------------------


def test_kappa_drift_prefixes_equal_fleiss_of_each_prefix():
    df = random_labels(8, n_items=70, n_coders=3, p_missing=0.05)
    drift = ag.kappa_drift(df, step=20)
    lab = ag.labels_from_frame(df)
    complete = [i for i in lab.items if lab.complete[lab.items.get_loc(i)]]
    assert drift["n_items"].tolist() == [20, 40, 60, len(complete)]
    for n, k in zip(drift["n_items"], drift["kappa"]):
        sub = df[df["item"].isin(complete[:n])]
        assert k == pytest.approx(ag.fleiss(sub, n_boot=0).kappa, abs=1e-12)
    assert drift["kappa"].iloc[-1] == pytest.approx(ag.fleiss(df, n_boot=0).kappa, abs=1e-12)

    # ordered by a timestamp column: an item counts when its last label came in
    stamped = df.assign(t=-df.index.to_numpy())  # reverse order
    rev = ag.kappa_drift(stamped, order="t", step=20)
    first20 = complete[::-1][:20]
    assert rev["kappa"].iloc[0] == pytest.approx(ag.fleiss(df[df["item"].isin(first20)], n_boot=0).kappa)
    explicit = ag.kappa_drift(df, order=complete[::-1], step=20)
    np.testing.assert_allclose(explicit["kappa"], rev["kappa"])


def test_coder_vs_gold_majority_and_named_coder():
    df = pd.DataFrame({
        "item": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5],
        "coder": ["a", "b", "c", "llm"] * 3 + ["a", "b", "llm", "a", "b", "llm"],
        "label": ["x", "x", "y", "x", "y", "y", "y", "x", "z", "x", "z", "z", "x", "y", "x", "y", "y", "y"],
        "partition": ["validation"] * 15 + ["few_shot"] * 3,
    })
    res = ag.coder_vs_gold(df, "llm", "majority", partition="validation")
    # majorities: 1 x, 2 y, 3 z; item 4 is a tie (x, y) and left out; item 5 is few-shot
    assert res["n_items"] == 3 and res["n_unmatched"] == 1
    assert res["cohen_kappa"] == pytest.approx(cohen_kappa_score(["x", "x", "z"], ["x", "y", "z"]))
    assert res["percent_agreement"] == pytest.approx(2 / 3)
    assert res["confusion"].loc["x", "y"] == 1
    named = ag.coder_vs_gold(df, "llm", "a")
    assert named["n_items"] == 5
    assert named["cohen_kappa"] == pytest.approx(cohen_kappa_score(["x", "x", "z", "x", "y"], ["x", "y", "z", "x", "y"]))


# -- report and panel ------------------------------------------------------------------------------


def test_report_keys_values_and_json():
    df = random_labels(9)
    r = ag.report(df, n_boot=100, seed=4)
    for key in ("n_items", "n_coders", "fleiss_kappa", "fleiss_se", "fleiss_ci", "per_category",
                "krippendorff_alpha", "percent_agreement", "mean_pairwise_cohen_kappa", "gwet_ac1", "diagnostics"):
        assert key in r
    assert json.loads(json.dumps(r)) == r
    lab = ag.labels_from_frame(df)
    assert r["fleiss_kappa"] == pytest.approx(fleiss_kappa(lab.counts[lab.complete]))
    assert r["krippendorff_alpha"] == pytest.approx(krippendorff.alpha(reliability_data(lab), level_of_measurement="nominal"))
    assert r["n_items"] == 120 and r["n_coders"] == 4
    assert r["fleiss_ci"][0] < r["fleiss_kappa"] < r["fleiss_ci"][1]
    p = ag.panel(df)
    for key in ("fleiss_kappa", "krippendorff_alpha", "percent_agreement", "mean_pairwise_cohen_kappa", "gwet_ac1"):
        assert p[key] == pytest.approx(r[key])


def test_report_excluding_a_coder():
    df = random_labels(10, n_coders=4, p_missing=0)
    r = ag.report(df, exclude_coders=["coder3"], n_boot=0)
    assert r["coders"] == ["coder0", "coder1", "coder2"]
    assert r["fleiss_kappa"] == pytest.approx(ag.fleiss(df[df["coder"] != "coder3"], n_boot=0).kappa)


# -- command line ----------------------------------------------------------------------------------


def grounding_csv(path: Path) -> Path:
    """A labels/grounding_acts.csv-like file: composite item key, 'code' labels, an LLM coder."""
    rng = np.random.default_rng(12)
    codes = ["initiate", "continue", "acknowledge", "repair", "request_repair", "request_ack", "cancel", "other"]
    rows = []
    for s in range(4):
        for a in range(15):
            t = codes[rng.integers(0, 8)]
            part = "few_shot" if a == 0 else "validation"
            for c in ("coder_a", "coder_b", "coder_c", "llm_coder"):
                rows.append((f"S{s}", a, c, t if rng.random() < 0.85 else codes[rng.integers(0, 8)], part))
    pd.DataFrame(rows, columns=["session_id", "action_index", "coder", "code", "partition"]).to_csv(path, index=False)
    return path


def test_cli_json_detects_grounding_layout(tmp_path, capsys):
    path = grounding_csv(tmp_path / "grounding_acts.csv")
    code = cli_main(["agreement", str(path), "--json", "--bootstrap", "100", "--seed", "3",
                     "--partition", "validation", "--exclude-coder", "llm_coder"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["item_col"] == "session_id,action_index" and out["label_col"] == "code"
    assert out["n_items"] == 56 and out["n_coders"] == 3 and out["coders"] == ["coder_a", "coder_b", "coder_c"]
    df = pd.read_csv(path)
    df = df[(df["partition"] == "validation") & (df["coder"] != "llm_coder")]
    expected = ag.report(df, item_col=["session_id", "action_index"], label_col="code", n_boot=100, seed=3)
    for key in ("fleiss_kappa", "fleiss_se", "fleiss_ci", "krippendorff_alpha", "percent_agreement",
                "mean_pairwise_cohen_kappa", "gwet_ac1", "per_category"):
        assert out[key] == expected[key], key
    lab = ag.labels_from_frame(df, item_col="session_id,action_index", label_col="code")
    assert out["fleiss_kappa"] == pytest.approx(fleiss_kappa(lab.counts))


def test_cli_options_and_text_table(tmp_path, capsys):
    path = tmp_path / "ratings.csv"
    df = random_labels(4).rename(columns={"item": "unit", "coder": "rater", "label": "score"})
    df.to_csv(path, index=False)
    assert cli_main(["agreement", str(path), "--item-col", "unit", "--coder-col", "rater", "--label-col", "score",
                     "--level", "interval", "--bootstrap", "0", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    lab = ag.labels_from_frame(df, "unit", "rater", "score")
    assert out["krippendorff_level"] == "interval"
    assert out["krippendorff_alpha"] == pytest.approx(
        krippendorff.alpha(reliability_data(lab), level_of_measurement="interval"))
    assert out["fleiss_ci"] == {"undefined": "no bootstrap was run"}
    assert cli_main(["agreement", str(path), "--item-col", "unit", "--coder-col", "rater", "--label-col", "score",
                     "--bootstrap", "50"]) == 0
    text = capsys.readouterr().out
    assert "Fleiss' kappa" in text and "Krippendorff's alpha (nominal)" in text and "Gwet's AC1" in text
    assert f"{out['fleiss_kappa']:.3f}" in text


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
    assert str(blank_item) in err and "'item'" in err

    missing = tmp_path / "absent.csv"
    assert cli_main(["agreement", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err


def test_cli_as_a_module(tmp_path):
    path = grounding_csv(tmp_path / "grounding_acts.csv")
    proc = subprocess.run([sys.executable, "-m", "analysis", "agreement", str(path), "--json", "--bootstrap", "50"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["n_coders"] == 4 and out["n_items"] == 60
    bad = subprocess.run([sys.executable, "-m", "analysis", "agreement", str(tmp_path / "nope.csv")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "nope.csv" in bad.stderr


# -- the sample corpus -----------------------------------------------------------------------------


def test_sample_corpus_human_coders_agree_near_the_paper():
    from corpus.dataset import SAMPLE_DATA, load_sample

    if not (SAMPLE_DATA / "dataset.json").exists():
        pytest.skip("sample_data/ not generated yet")
    labels = load_sample().coded("grounding_acts")
    llm = [c for c in labels["coder"].unique() if c.startswith("llm")]
    assert llm, "the sample corpus has an LLM coder"
    human = labels[~labels["coder"].isin(llm) & (labels["partition"] == "validation")]
    res = ag.fleiss(human, item_col="item_id", label_col="code", n_boot=500)
    assert res.n_coders == 3 and res.n_items == human["item_id"].nunique() and res.n_dropped == 0
    assert res.kappa == pytest.approx(0.8, abs=0.05)
    assert res.ci[0] < res.kappa < res.ci[1]
    table = ag.labels_from_frame(human, "item_id", "coder", "code").counts
    assert res.kappa == pytest.approx(fleiss_kappa(table))
    gold = ag.coder_vs_gold(labels, llm[0], "majority", "validation", exclude_coders=llm, item_col="item_id",
                            label_col="code")
    assert gold["n_items"] > 150
    assert gold["cohen_kappa"] == pytest.approx(0.76, abs=0.08)


def test_item_agreement_per_item():
    df = pd.DataFrame({"item": ["a", "a", "b", "b", "c", "d", "d", "d"],
                       "coder": ["x", "y", "x", "y", "x", "x", "y", "z"],
                       "label": ["c", "c", "d", "c", "d", "e", "e", "c"]})
    got = ag.item_agreement(df).set_index("item_id")
    assert got["n_labels"].tolist() == [2, 2, 1, 3]
    assert got["agreement"].tolist()[:2] == [1.0, 0.0] and np.isnan(got.loc["c", "agreement"])
    assert got.loc["d", "agreement"] == pytest.approx(1 / 3)  # one agreeing pair of three
    assert got["modal_code"].tolist() == ["c", "c", "d", "e"]  # a tie goes to the first code in order
    assert ag.item_agreement(df.iloc[:0]).empty
