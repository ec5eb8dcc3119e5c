"""Krippendorff's alpha at four levels: against the krippendorff package (its own call and our
per-item sums), textbook values, the category order, the bootstrap, coincidences, and a table
with 10,000 categories that no dense category x category array could hold."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from agreement_data import random_labels, reliability_data
from krippendorff.krippendorff import _coincidences as package_coincidences

from analysis import agreement as ag
from analysis.agreement import alpha as alpha_module


def positive_labels(seed: int, **kw) -> pd.DataFrame:
    """Random labels 1..5 (the ratio level needs values of zero or more; 0 and 0 are distance 0)."""
    df = random_labels(seed, **kw)
    return df.assign(label=df["label"] + 1)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("level", ag.LEVELS)
def test_alpha_equals_krippendorff_package(seed, level):
    t = ag.LabelTable(positive_labels(seed, p_missing=0.25))
    res = ag.krippendorff_alpha(t, level=level, n_boot=0)
    data = np.where(t.codes >= 0, t.values(level)[np.maximum(t.codes, 0)], np.nan).T
    assert res.estimate == pytest.approx(krippendorff.alpha(data, level_of_measurement=level), abs=1e-12)
    assert res.n == int((t.n_per_item >= 2).sum())
    assert res.computed_by == "krippendorff.alpha" and res.package == "krippendorff"


@pytest.mark.parametrize("level", ag.LEVELS)
def test_our_per_item_sums_equal_the_package(level, monkeypatch):
    # Above PACKAGE_MAX_CELLS the number is ours: it must be the package's.
    t = ag.LabelTable(positive_labels(4, p_missing=0.3))
    theirs = ag.krippendorff_alpha(t, level=level, n_boot=0)
    monkeypatch.setattr(alpha_module, "PACKAGE_MAX_CELLS", 0)
    mine = ag.krippendorff_alpha(t, level=level, n_boot=0)
    assert mine.package == "groundwork" and mine.checked_against == "krippendorff.alpha"
    assert mine.estimate == pytest.approx(theirs.estimate, abs=1e-12)


@pytest.mark.parametrize("level", ag.LEVELS)
def test_alpha_of_a_resample_equals_the_package_on_repeated_items(level):
    # The bootstrap recomputes alpha from item weights (how often each item is drawn): with
    # weights w it must equal the package on the table with each item repeated w times.
    t = ag.LabelTable(positive_labels(7, p_missing=0.2))
    pairable = t.n_per_item >= 2
    counts = t.count_table(pairable)
    w = np.random.default_rng(0).integers(0, 4, len(counts))
    mine = alpha_module.resampler(t, pairable, level, t.values(level), counts)(w[None, :].astype(float))[0]
    used = counts.sum(axis=0) > 0
    theirs = krippendorff.alpha(
        value_counts=np.repeat(counts, w, axis=0)[:, used],
        value_domain=t.values(level)[used],
        level_of_measurement=level,
    )
    assert mine == pytest.approx(theirs, abs=1e-12)


def test_alpha_krippendorff_textbook_example_with_missing_labels():
    # Krippendorff's reliability data with missing values (the package's documented example).
    data = [
        [np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
        [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
        [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4],
    ]
    rows = [(f"u{u}", f"c{c}", int(v)) for c, row in enumerate(data) for u, v in enumerate(row) if not np.isnan(v)]
    t = ag.LabelTable(pd.DataFrame(rows, columns=["item", "coder", "label"]))
    assert ag.krippendorff_alpha(t, n_boot=0).estimate == pytest.approx(0.691358, abs=1e-6)
    assert ag.krippendorff_alpha(t, level="interval", n_boot=0).estimate == pytest.approx(0.810845, abs=1e-6)


ORDER = ["very low", "low", "mid", "high", "very high"]
ORDINAL = [
    ["very low", "low", "mid", "mid", "low", "very low", "high", "very low", "low", None, None, None],
    ["very low", "low", "mid", "mid", "low", "low", "high", "very low", "low", "very high", None, "mid"],
    [None, "mid", "mid", "mid", "low", "mid", "high", "low", "low", "very high", "very low", None],
    ["very low", "low", "mid", "mid", "low", "high", "high", "very low", "low", "very high", "very low", None],
]


def ordinal_frame() -> pd.DataFrame:
    rows = [(f"u{u}", f"c{c}", v) for c, row in enumerate(ORDINAL) for u, v in enumerate(row) if v is not None]
    return pd.DataFrame(rows, columns=["item", "coder", "label"])


def test_alpha_ordinal_uses_the_given_category_order():
    t = ag.LabelTable(ordinal_frame(), categories=ORDER)
    res = ag.krippendorff_alpha(t, level="ordinal", n_boot=200, seed=0)
    assert round(res.estimate, 3) == 0.815  # the package's documented value
    assert res.interval[0] <= res.estimate <= res.interval[1]
    alphabetical = ag.krippendorff_alpha(ag.LabelTable(ordinal_frame()), level="ordinal", n_boot=0)
    assert alphabetical.estimate != pytest.approx(res.estimate)
    with pytest.raises(ag.LabelTableError, match="numeric"):
        ag.krippendorff_alpha(t, level="interval", n_boot=0)
    with pytest.raises(ag.LabelTableError, match="numeric"):
        ag.krippendorff_alpha(t, level="ratio", n_boot=0)


def test_ratio_level_by_hand_and_its_limits():
    # Two items, two coders: (1, 2) and (2, 4); ratio distance ((a - b) / (a + b))^2 = 1/9 for both
    # pairs. D_o = 2 * 2 * (1/9) / 1 = 4/9; values 1, 2, 2, 4: D_e = sum over ordered pairs.
    df = pd.DataFrame({"item": [1, 1, 2, 2], "coder": ["a", "b", "a", "b"], "label": [1, 2, 2, 4]})
    v = np.array([1, 2, 2, 4], dtype=float)
    d = ((v[:, None] - v[None, :]) / (v[:, None] + v[None, :])) ** 2
    expected = 1 - (4 - 1) * (4 / 9) / d.sum()
    assert ag.krippendorff_alpha(ag.LabelTable(df), level="ratio", n_boot=0).estimate == pytest.approx(expected)
    with pytest.raises(ag.LabelTableError, match="zero or more"):
        ag.krippendorff_alpha(ag.LabelTable(df.assign(label=[-1, 2, 2, 4])), level="ratio", n_boot=0)


def test_alpha_bootstrap_interval():
    t = ag.LabelTable(random_labels(5, n_items=200))
    res = ag.krippendorff_alpha(t, n_boot=300, seed=3)
    again = ag.krippendorff_alpha(t, n_boot=300, seed=3)
    assert res.interval == again.interval and res.interval[0] < res.estimate < res.interval[1]
    assert 0 < res.se < 0.1


def test_undefined_alpha_says_why():
    same = ag.LabelTable(pd.DataFrame({"item": [1, 1, 2, 2], "coder": ["a", "b"] * 2, "label": ["x"] * 4}))
    assert ag.krippendorff_alpha(same).estimate == ag.Undefined(ag.ALL_SAME)
    apart = ag.LabelTable(pd.DataFrame({"item": ["a", "b"], "coder": ["x", "y"], "label": ["p", "q"]}))
    assert ag.krippendorff_alpha(apart).estimate == ag.Undefined(ag.NO_PAIRS)
    one_value = ag.LabelTable(pd.DataFrame({"item": [1, 1, 2, 2], "coder": ["a", "b"] * 2, "label": [3, 3, 3, 3.0]}))
    assert "undefined" in str(ag.krippendorff_alpha(one_value, level="interval").estimate)


def test_coincidences_by_hand_and_against_package():
    df = pd.DataFrame(
        [
            ("i0", "c0", "a"),
            ("i0", "c1", "a"),
            ("i0", "c2", "b"),
            ("i1", "c0", "b"),
            ("i1", "c1", "b"),
            ("i2", "c0", "a"),
        ],
        columns=["item", "coder", "label"],
    )
    o = ag.coincidence_matrix(ag.LabelTable(df))
    # item 0: pairs (a,a) x2, (a,b) x2 of 6 ordered pairs, each weighted 1/(3-1); item 1: (b,b) x2 weighted 1
    assert o.loc["a", "a"] == pytest.approx(1.0) and o.loc["a", "b"] == pytest.approx(1.0)
    assert o.loc["b", "a"] == pytest.approx(1.0) and o.loc["b", "b"] == pytest.approx(2.0)
    assert o.to_numpy().sum() == pytest.approx(5)  # the pairable labels
    t = ag.LabelTable(random_labels(2, p_missing=0.3))
    expected = package_coincidences(t.count_table(t.n_per_item >= 2))
    np.testing.assert_allclose(ag.coincidence_matrix(t).to_numpy(), expected, atol=1e-9)


def scale_frame(n_items: int = 4000, n_cats: int = 10_000, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_cats, n_items)
    codes = np.where(rng.random((n_items, 3)) < 0.7, truth[:, None], rng.integers(0, n_cats, (n_items, 3)))
    return pd.DataFrame(
        {"item": np.repeat(np.arange(n_items), 3), "coder": np.tile(["a", "b", "c"], n_items), "label": codes.ravel()}
    )


def test_ten_thousand_categories_need_no_category_by_category_array():
    # 4,000 items x 3 coders over 10,000 categories: a dense items x categories^2 array would be
    # 4e11 cells. The numbers come from per-item sums; the count table is sparse.
    t = ag.LabelTable(scale_frame())
    assert t.n_categories > 5000 and not isinstance(t.count_table(), np.ndarray)
    for level in ("nominal", "ordinal", "interval"):
        res = ag.krippendorff_alpha(t, level=level, n_boot=20)
        assert res.package == "groundwork" and 0.3 < res.estimate < 0.7, level
        assert res.interval[0] < res.estimate < res.interval[1]
    with pytest.raises(ag.MatrixTooLarge, match="ratio level's distance matrix"):
        ag.krippendorff_alpha(t, level="ratio", n_boot=0)
    with pytest.raises(ag.MatrixTooLarge, match="at most 200 categories"):
        ag.coincidence_matrix(t)
    long = ag.coincidences(t)
    assert long["value"].sum() == pytest.approx(t.n_labels)
    # The same per-item sums on a small slice equal the package.
    small = ag.LabelTable(scale_frame(300, 40, seed=2))
    for level in ("nominal", "ordinal", "interval"):
        data = np.where(small.codes >= 0, small.values(level)[np.maximum(small.codes, 0)], np.nan).T
        assert alpha_module._alpha_of(
            small, small.n_per_item >= 2, level, small.values(level), small.per_category(small.cell_count.astype(float))
        ) == pytest.approx(krippendorff.alpha(data, level_of_measurement=level), abs=1e-12)


def test_reliability_data_helper_matches_codes():
    t = ag.LabelTable(random_labels(1))
    assert reliability_data(t).shape == (t.n_coders, t.n_items)
