"""Diagnostics (coder bias through scipy, sparse categories, too few items, missing and
duplicate labels) and the items the coders disagree on."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from agreement_data import long_from_matrix, random_labels
from scipy.stats import chi2_contingency

from analysis import agreement as ag


def diag_of(t: ag.LabelTable) -> ag.Diagnostics:
    return ag.diagnostics(t, ag.fleiss(t, n_boot=0).estimate, ag.percent_agreement(t).estimate)


def test_coder_bias_chi_square_is_scipys_and_flags_a_biased_coder():
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 3, 300)
    rows = []
    for i, t in enumerate(truth):
        rows += [(i, "fair1", int(t)), (i, "fair2", int(t) if rng.random() < 0.8 else int(rng.integers(0, 3)))]
        rows.append((i, "biased", 0 if rng.random() < 0.6 else int(t)))  # says "0" far too often
    t = ag.LabelTable(pd.DataFrame(rows, columns=["item", "coder", "label"]))
    bias = ag.coder_bias(t)
    res = chi2_contingency(bias.counts.to_numpy(), correction=False)
    assert bias.test.estimate == pytest.approx(res.statistic) and bias.test.dof == res.dof
    assert bias.test.p_value == pytest.approx(res.pvalue, rel=1e-9, abs=1e-300)
    assert bias.test.p_value < 1e-6 and bias.test.computed_by == "scipy.stats.chi2_contingency"
    assert bias.shares.loc["biased", "0"] > 0.6
    warning = next(w for w in diag_of(t).warnings if "coder bias" in w)
    assert warning.endswith("(chi-square p < 0.001)")


def test_diagnostics_sparse_categories_and_too_few_items():
    d = diag_of(ag.LabelTable(long_from_matrix([["a", "a"], ["a", "b"], ["b", "b"], ["c", "a"]] * 3)))
    assert d.sparse_categories == {"c": 3}
    assert d.too_few_items is True and d.n_items_complete == 12
    assert any("too few items" in w for w in d.warnings) and any("sparse" in w for w in d.warnings)
    big = diag_of(ag.LabelTable(random_labels(1, n_items=100, p_missing=0)))
    assert big.too_few_items is False and big.sparse_categories == {}


def test_many_sparse_categories_are_named_up_to_ten():
    df = pd.DataFrame(
        {"item": np.repeat(np.arange(40), 2), "coder": ["a", "b"] * 40, "label": np.repeat(np.arange(40), 2)}
    )
    warning = next(w for w in diag_of(ag.LabelTable(df)).warnings if w.startswith("sparse"))
    assert warning.endswith("and 30 more") and warning.count("(2)") == 10


def test_missing_and_duplicate_labels_are_counted_and_said():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 2], "coder": ["a", "b", "a", "b", "b"], "label": ["x", " ", "y", "x", "y"]})
    t = ag.LabelTable(df)
    d = diag_of(t)
    assert (d.n_missing, d.n_duplicates) == (1, 1) and t.n_labels == 3
    assert any("1 row(s) have an empty label" in w for w in d.warnings)
    assert any("given twice" in w for w in d.warnings)


def test_most_disagreed_and_item_agreement():
    df = long_from_matrix([["a", "a", "a"], ["a", "b", "a"], ["a", "b", "c"], ["b", "b", "-"]], missing="-")
    top = ag.most_disagreed(ag.LabelTable(df), n=3)
    assert top["item"].tolist() == ["i2", "i1"]  # i0 and i3 have no disagreement
    assert top.iloc[0]["agreement"] == 0 and top.iloc[0]["n_distinct"] == 3
    assert top.iloc[1]["modal_label"] == "a" and top.iloc[1]["modal_share"] == pytest.approx(2 / 3)
    assert top.iloc[0]["labels"] == "c0=a; c1=b; c2=c"

    items = pd.DataFrame(
        {
            "item": ["a", "a", "b", "b", "c", "d", "d", "d"],
            "coder": ["x", "y", "x", "y", "x", "x", "y", "z"],
            "label": ["c", "c", "d", "c", "d", "e", "e", "c"],
        }
    )
    got = ag.item_agreement(ag.LabelTable(items)).set_index("item_id")
    assert got["n_labels"].tolist() == [2, 2, 1, 3]
    assert got["agreement"].tolist()[:2] == [1.0, 0.0] and np.isnan(got.loc["c", "agreement"])
    assert got.loc["d", "agreement"] == pytest.approx(1 / 3)  # one agreeing pair of three
    assert got["modal_code"].tolist() == ["c", "c", "d", "e"]  # a tie goes to the first code in order
    assert ag.item_agreement(ag.LabelTable(items.iloc[:0])).empty
