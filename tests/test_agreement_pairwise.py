"""Percent agreement, Cohen's kappa per pair (against scikit-learn) and Gwet's AC1 (against
hand-computed values)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from agreement_data import long_from_matrix, random_labels
from sklearn.metrics import cohen_kappa_score

from analysis import agreement as ag


def test_percent_agreement_by_hand():
    df = long_from_matrix(
        [["x", "x", "x"], ["x", "x", "y"], ["y", "y", "y"], ["x", "y", "-"], ["z", "-", "-"]], missing="-"
    )
    # per item: 1, 1/3, 1, 0; the last item has one label and does not count
    res = ag.percent_agreement(ag.LabelTable(df))
    assert res.estimate == pytest.approx((1 + 1 / 3 + 1 + 0) / 4) and res.n == 4


@pytest.mark.parametrize("seed", range(4))
def test_pairwise_cohen_equals_sklearn(seed):
    df = random_labels(seed, n_coders=5, p_missing=0.2)
    res = ag.pairwise_cohen(ag.LabelTable(df))
    assert len(res.pairs) == 10
    matrix = res.matrix([f"coder{c}" for c in range(5)])
    for a, b, est in res.pairs:
        la = df[df["coder"] == a].set_index("item")["label"]
        lb = df[df["coder"] == b].set_index("item")["label"]
        both = la.index.intersection(lb.index)
        assert est.n == len(both) and est.key == f"cohen_kappa[{a},{b}]"
        expected = cohen_kappa_score(la.loc[both], lb.loc[both])
        assert est.estimate == pytest.approx(expected, abs=1e-12)
        assert matrix.loc[a, b] == pytest.approx(expected, abs=1e-12)
    assert res.mean.estimate == pytest.approx(np.mean([e.estimate for _, _, e in res.pairs]))


def test_gwet_ac1_hand_computed():
    df = long_from_matrix([["x", "x", "x"], ["x", "x", "y"], ["y", "y", "y"], ["x", "y", "-"]], missing="-")
    # pa = (1 + 1/3 + 1 + 0) / 4 = 7/12; pi_x = (1 + 2/3 + 0 + 1/2) / 4 = 13/24, pi_y = 11/24;
    # pe = (pi_x (1 - pi_x) + pi_y (1 - pi_y)) / (2 - 1) = 143/288; AC1 = (7/12 - 143/288) / (145/288) = 5/29
    pa, pe = Fraction(7, 12), 2 * Fraction(13, 24) * Fraction(11, 24)
    assert (pa - pe) / (1 - pe) == Fraction(5, 29)
    assert ag.gwet_ac1(ag.LabelTable(df)).estimate == pytest.approx(5 / 29, abs=1e-12)


def test_gwet_ac1_two_raters_direct_formula_and_kappa_paradox():
    # Two raters, two categories: 118 items both "+", 5 and 2 discordant, none both "-": 94 %
    # agreement, kappa below zero (the kappa paradox), AC1 near 0.94.
    a = ["+"] * 118 + ["+"] * 5 + ["-"] * 2
    b = ["+"] * 118 + ["-"] * 5 + ["+"] * 2
    t = ag.LabelTable(pd.DataFrame({"item": list(range(125)) * 2, "coder": ["A"] * 125 + ["B"] * 125, "label": a + b}))
    n = 125
    pa = 118 / n
    pi_plus = ((118 + 5) / n + (118 + 2) / n) / 2
    pe = 2 * pi_plus * (1 - pi_plus)
    ac1 = ag.gwet_ac1(t).estimate
    assert ac1 == pytest.approx((pa - pe) / (1 - pe), abs=1e-12) and ac1 == pytest.approx(0.9408, abs=5e-4)
    kappa = ag.fleiss(t, n_boot=0).estimate
    assert kappa < 0.1
    diag = ag.diagnostics(t, kappa, ag.percent_agreement(t).estimate)
    assert diag.kappa_paradox is True
    assert diag.prevalence_category == "+" and diag.prevalence_share == pytest.approx(243 / 250)
    assert any("kappa paradox" in w for w in diag.warnings)


def test_gwet_uses_given_categories_for_q():
    df = long_from_matrix([["x", "x"], ["x", "y"], ["y", "y"]])
    q2 = ag.gwet_ac1(ag.LabelTable(df)).estimate
    q4 = ag.gwet_ac1(ag.LabelTable(df, categories=["x", "y", "z", "w"])).estimate
    pa = 2 / 3
    pe4 = (0.5 * 0.5 * 2) / 3
    assert q4 == pytest.approx((pa - pe4) / (1 - pe4)) and q4 != q2


def test_undefined_pairwise_statistics_say_why():
    same = ag.LabelTable(long_from_matrix([["a"] * 3] * 10))
    assert all(isinstance(e.estimate, ag.Undefined) for _, _, e in ag.pairwise_cohen(same).pairs)
    assert isinstance(ag.pairwise_cohen(same).mean.estimate, ag.Undefined)
    assert ag.gwet_ac1(same).estimate == ag.Undefined(ag.ALL_SAME)
    assert ag.percent_agreement(same).estimate == 1.0
    apart = ag.LabelTable(pd.DataFrame({"item": ["a", "b", "c"], "coder": ["x", "y", "x"], "label": ["p", "q", "p"]}))
    assert ag.percent_agreement(apart).estimate == ag.Undefined(ag.NO_PAIRS)
    assert ag.gwet_ac1(apart).estimate == ag.Undefined(ag.NO_PAIRS)
    assert ag.pairwise_cohen(apart).pairs[0][2].estimate == ag.Undefined("no item was coded by both coders")
    one = ag.LabelTable(pd.DataFrame({"item": ["a", "b"], "coder": ["x", "x"], "label": ["p", "q"]}))
    assert ag.pairwise_cohen(one).mean.estimate == ag.Undefined("Cohen's kappa needs two or more coders")


def test_confusion_matrix():
    df = long_from_matrix([["a", "a", "a"], ["a", "b", "a"], ["a", "b", "c"], ["b", "b", "-"]], missing="-")
    cm = ag.confusion_matrix(ag.LabelTable(df), "c0", "c1")
    assert cm.loc["a", "a"] == 1 and cm.loc["a", "b"] == 2 and cm.loc["b", "b"] == 1 and cm.to_numpy().sum() == 4
