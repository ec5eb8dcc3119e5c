"""Fleiss' kappa: its one formula against statsmodels, textbook examples, per-category kappas,
the bootstrap interval and kappa's drift."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from agreement_data import DIAGNOSES, WIKIPEDIA, long_from_counts, long_from_matrix, random_labels
from statsmodels.stats.inter_rater import fleiss_kappa

from analysis import agreement as ag


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_equals_statsmodels_on_random_tables(seed):
    df = random_labels(seed, accuracy=0.3 + 0.1 * seed)
    t = ag.LabelTable(df)
    res = ag.fleiss(t, n_boot=0)
    counts = t.count_table(t.complete)
    assert res.n == len(counts) and res.n + res.n_dropped == df["item"].nunique()
    assert res.n_dropped > 0  # some items lack a label and are left out
    assert res.estimate == pytest.approx(fleiss_kappa(counts, method="fleiss"), abs=1e-12)
    assert res.package == "groundwork" and res.checked_against == "statsmodels.stats.inter_rater.fleiss_kappa"


@pytest.mark.parametrize("seed", range(3))
def test_the_one_formula_on_weighted_sums_equals_statsmodels_on_repeated_items(seed):
    # The bootstrap and the drift call kappa_from_sums on weighted or cumulative sums: with item
    # weights w it must equal statsmodels on the table with each item repeated w times.
    t = ag.LabelTable(random_labels(seed, p_missing=0))
    counts = t.count_table()
    m = t.n_coders
    w = np.random.default_rng(seed).integers(0, 4, len(counts))
    p_i = ((counts**2).sum(axis=1) - m) / (m * (m - 1))
    totals = w @ counts
    mine = ag.kappa_from_sums(w @ p_i, totals @ totals, w.sum(), m)
    assert float(mine) == pytest.approx(fleiss_kappa(np.repeat(counts, w, axis=0)), abs=1e-12)


def test_fleiss_1971_psychiatric_diagnoses():
    res = ag.fleiss(ag.LabelTable(long_from_matrix(DIAGNOSES)), n_boot=0)
    assert res.n == 30 and res.n_coders == 6 and res.n_dropped == 0
    assert res.estimate == pytest.approx(0.4302445, abs=1e-7)  # R irr::kappam.fleiss, statsmodels
    # Per-category kappas as printed by Fleiss (1971).
    expected = {"1": 0.245, "2": 0.245, "3": 0.520, "4": 0.471, "5": 0.566}
    for cat, k in expected.items():
        assert res.per_category[cat] == pytest.approx(k, abs=5e-4)


def test_per_category_kappa_is_kappa_of_that_category_against_the_rest():
    t = ag.LabelTable(random_labels(11, n_items=80, p_missing=0))
    res = ag.fleiss(t, n_boot=0)
    counts = t.count_table()
    for j, cat in enumerate(t.categories):
        binary = np.column_stack([counts[:, j], counts.sum(axis=1) - counts[:, j]])
        assert res.per_category[str(cat)] == pytest.approx(fleiss_kappa(binary), abs=1e-12)
    rows = {e.key: e.estimate for e in res.category_estimates()}
    assert rows[f"fleiss_kappa[{t.categories[0]}]"] == res.per_category[str(t.categories[0])]


def test_fleiss_wikipedia_example():
    res = ag.fleiss(ag.LabelTable(long_from_counts(WIKIPEDIA)), n_boot=0)
    assert res.n == 10 and res.n_coders == 14
    assert round(res.estimate, 3) == 0.210
    assert res.estimate == pytest.approx(fleiss_kappa(WIKIPEDIA), abs=1e-12)
    assert res.p_observed == pytest.approx(0.378, abs=5e-4)  # P-bar in the worked example
    assert res.p_expected == pytest.approx(0.213, abs=5e-4)  # P-bar_e


def test_fleiss_bootstrap_interval_is_seeded_and_matches_the_sampling_spread():
    t = ag.LabelTable(random_labels(3, n_items=150, n_coders=3, p_missing=0))
    a = ag.fleiss(t, n_boot=400, seed=1)
    b = ag.fleiss(t, n_boot=400, seed=1)
    c = ag.fleiss(t, n_boot=400, seed=2)
    assert (a.se, a.interval) == (b.se, b.interval)
    assert a.se != c.se
    assert a.interval[0] < a.estimate < a.interval[1]
    assert a.se > 0
    assert a.interval_method.startswith("percentile bootstrap over items (400 resamples, seed 1)")

    # The bootstrap standard error estimates the spread of kappa over fresh samples of items from
    # the same coders: compare with that spread over 300 simulated data sets.
    kappas = [
        ag.fleiss(ag.LabelTable(random_labels(1000 + s, n_items=150, n_coders=3, p_missing=0)), n_boot=0).estimate
        for s in range(300)
    ]
    assert a.se == pytest.approx(float(np.std(kappas, ddof=1)), rel=0.3)


def test_every_label_the_same_category_is_undefined_not_zero():
    f = ag.fleiss(ag.LabelTable(long_from_matrix([["a"] * 3] * 10)))
    assert isinstance(f.estimate, ag.Undefined) and f.estimate.reason == ag.ALL_SAME
    assert str(f.estimate) == "undefined, because every label is the same category"
    assert isinstance(f.se, ag.Undefined) and isinstance(f.interval, ag.Undefined)


def test_kappa_drift_prefixes_equal_fleiss_of_each_prefix():
    df = random_labels(8, n_items=70, n_coders=3, p_missing=0.05)
    t = ag.LabelTable(df)
    drift = ag.kappa_drift(t, step=20)
    complete = [i for i in t.items if t.complete[t.items.get_loc(i)]]
    assert drift["n_items"].tolist() == [20, 40, 60, len(complete)]

    def kappa_of(items):
        return ag.fleiss(ag.LabelTable(df[df["item"].isin(items)]), n_boot=0).estimate

    for n, k in zip(drift["n_items"], drift["kappa"]):
        assert k == pytest.approx(kappa_of(complete[:n]), abs=1e-12)
    assert drift["kappa"].iloc[-1] == pytest.approx(ag.fleiss(t, n_boot=0).estimate, abs=1e-12)

    # ordered by a timestamp column: an item counts when its last label came in
    stamped = ag.LabelTable(df.assign(t=-df.index.to_numpy()))  # reverse order
    rev = ag.kappa_drift(stamped, order="t", step=20)
    assert rev["kappa"].iloc[0] == pytest.approx(kappa_of(complete[::-1][:20]), abs=1e-12)
    explicit = ag.kappa_drift(t, order=complete[::-1], step=20)
    np.testing.assert_allclose(explicit["kappa"], rev["kappa"])
    # a subset (no longer the frame's own table) orders by the same column
    sub = stamped.subset(coders=list(stamped.coders))
    np.testing.assert_allclose(ag.kappa_drift(sub, order="t", step=20)["kappa"], rev["kappa"])


def test_kappa_drift_says_why_a_prefix_is_undefined():
    df = long_from_matrix([["a", "a"]] * 5 + [["a", "b"], ["b", "b"]])
    drift = ag.kappa_drift(ag.LabelTable(df), step=5)
    assert np.isnan(drift["kappa"].iloc[0]) and drift["reason"].iloc[0] == ag.ALL_SAME
    assert pd.isna(drift["reason"].iloc[1]) and not np.isnan(drift["kappa"].iloc[1])
