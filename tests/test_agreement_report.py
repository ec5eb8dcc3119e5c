"""The agreement report and the results objects: every statistic with n, interval, procedure and
what computed it; summary(), to_frame(), to_json(); the one formatter; the live panel's minimum."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from agreement_data import long_from_matrix, random_labels, reliability_data
from statsmodels.stats.inter_rater import fleiss_kappa

from analysis import agreement as ag


def test_report_values_and_json():
    t = ag.LabelTable(random_labels(9))
    r = ag.report(t, n_boot=100, seed=4)
    out = r.to_json()
    assert json.loads(json.dumps(out)) == out
    stats = out["statistics"]
    assert list(stats) == [
        "fleiss_kappa",
        "krippendorff_alpha",
        "percent_agreement",
        "mean_pairwise_cohen_kappa",
        "gwet_ac1",
    ]
    assert stats["fleiss_kappa"]["estimate"] == pytest.approx(fleiss_kappa(t.count_table(t.complete)))
    assert stats["krippendorff_alpha"]["estimate"] == pytest.approx(
        krippendorff.alpha(reliability_data(t), level_of_measurement="nominal")
    )
    assert out["n_items"] == 120 and out["n_coders"] == 4
    lo, hi = stats["fleiss_kappa"]["interval"]
    assert lo < stats["fleiss_kappa"]["estimate"] < hi
    for key in ("n", "n_of", "method", "interval_method", "computed_by", "package", "warnings", "se"):
        assert key in stats["fleiss_kappa"], key
    assert {"pairwise_cohen_kappa", "diagnostics", "coincidences", "most_disagreed", "packages"} <= set(out)
    p = ag.panel(t)
    for est, full in zip(p.statistics, r.statistics):
        assert est.estimate == pytest.approx(full.estimate)


def test_each_number_names_what_computed_it():
    r = ag.report(ag.LabelTable(random_labels(2)), n_boot=0)
    by_key = {e.key: e for e in r.statistics}
    assert by_key["fleiss_kappa"].checked_against == "statsmodels.stats.inter_rater.fleiss_kappa"
    assert by_key["krippendorff_alpha"].computed_by == "krippendorff.alpha"
    assert by_key["mean_pairwise_cohen_kappa"].checked_against.startswith("sklearn.metrics.cohen_kappa_score")
    assert r.diagnostics.coder_bias.test.computed_by == "scipy.stats.chi2_contingency"
    assert set(r.packages()) == {"groundwork", "krippendorff", "scipy", "numpy", "pandas"}  # no statsmodels, no sklearn
    text = r.summary("labels.csv")
    assert "krippendorff.alpha (krippendorff " in text and "tested equal to statsmodels" in text


def test_results_objects_summary_frame_and_json():
    f = ag.fleiss(ag.LabelTable(random_labels(5, n_items=150)), n_boot=200, seed=1)
    row = f.to_frame().iloc[0]
    assert row["statistic"] == "fleiss_kappa" and row["estimate"] == f.estimate and row["n"] == f.n
    assert (row["ci_low"], row["ci_high"]) == f.interval and row["se"] == f.se
    assert f.to_json()["interval"] == list(f.interval)
    text = f.summary()
    assert text.startswith(f"Fleiss' kappa: {f.estimate:.3f}  (95% CI [{f.interval[0]:.3f}, {f.interval[1]:.3f}])")
    assert "percentile bootstrap over items (200 resamples, seed 1)" in text
    frame = ag.report(ag.LabelTable(random_labels(5)), n_boot=0).to_frame()
    assert frame.set_index("statistic").loc["n_items", "estimate"] == 120
    assert "fleiss_kappa[0]" in set(frame["statistic"]) and "coder_bias_chi2" in set(frame["statistic"])


def test_the_formatter():
    assert ag.fmt(0.78271) == "0.783" and ag.fmt(0.78271, 2) == "0.78" and ag.fmt(172) == "172"
    assert (
        ag.fmt(ag.Undefined("no item was coded by both coders"))
        == "undefined, because no item was coded by both coders"
    )
    assert ag.fmt_short(ag.Undefined("x")) == "undefined"
    assert ag.fmt_p(0.0) == "< 0.001" and ag.fmt_p(1e-9) == "< 0.001" and ag.fmt_p(0.0123) == "0.012"
    assert ag.p_clause(1e-5) == "p < 0.001" and ag.p_clause(0.5) == "p = 0.500"
    assert (
        ag.fmt_interval((0.1, 0.25)) == "[0.100, 0.250]"
        and ag.fmt_interval(ag.Undefined("no bootstrap was run")) == "undefined, because no bootstrap was run"
    )
    assert ag.to_json({"a": np.float64("nan"), "b": ag.Undefined("r"), "c": np.int64(3)}) == {
        "a": None,
        "b": {"undefined": "r"},
        "c": 3,
    }


def test_undefined_statistics_in_the_report():
    r = ag.report(ag.LabelTable(long_from_matrix([["a"] * 3] * 10)), n_boot=50)
    out = r.to_json()
    assert out["statistics"]["fleiss_kappa"]["estimate"] == {"undefined": ag.ALL_SAME}
    assert out["statistics"]["krippendorff_alpha"]["estimate"] == {"undefined": ag.ALL_SAME}
    json.dumps(out)
    one = ag.report(ag.LabelTable(pd.DataFrame({"item": ["a", "b"], "coder": ["x", "x"], "label": ["p", "q"]})))
    assert one.n_coders == 1 and "undefined" in one.to_json()["statistics"]["fleiss_kappa"]["estimate"]
    assert "undefined, because Fleiss' kappa needs two or more coders" in one.summary()


def test_report_excluding_a_coder():
    df = random_labels(10, n_coders=4, p_missing=0)
    r = ag.report(ag.LabelTable(df), exclude_coders=["coder3"], n_boot=0)
    assert r.coders == ["coder0", "coder1", "coder2"] and r.excluded_coders == ["coder3"]
    assert r.fleiss.estimate == pytest.approx(ag.fleiss(ag.LabelTable(df[df["coder"] != "coder3"]), n_boot=0).estimate)


def test_the_panel_minimum_of_complete_items():
    one = long_from_matrix([["a", "b"], ["a", "-"], ["b", "-"]], missing="-")
    raw = ag.panel(ag.LabelTable(one))
    assert raw.fleiss.estimate == pytest.approx(-1.0)  # what one complete item gives: no number to show
    shown = ag.panel(ag.LabelTable(one), min_items=ag.PANEL_MIN_ITEMS)
    # Fleiss' kappa counts the items coded by every coder; the others, the items with two labels.
    assert shown.fleiss.estimate == ag.Undefined("too few items (1 complete)")
    for est in shown.statistics[1:]:
        assert est.estimate == ag.Undefined("too few items (1 with two or more labels)")
    enough = random_labels(3, n_items=ag.PANEL_MIN_ITEMS, p_missing=0)
    assert ag.panel(ag.LabelTable(enough), min_items=ag.PANEL_MIN_ITEMS).fleiss.defined


def test_ordinal_alpha_on_word_labels_needs_their_order():
    """Word labels have no order of their own: the ordinal level is refused without one (alphabetical
    order would give another alpha), and computed in the order given."""
    df = pd.DataFrame(
        {"item": [1, 1, 2, 2, 3, 3], "coder": ["a", "b"] * 3, "label": ["lo", "hi", "mid", "mid", "hi", "hi"]}
    )
    with pytest.raises(ag.LabelTableError, match="ordinal alpha needs the categories' order") as exc:
        ag.report(ag.LabelTable(df), level="ordinal", n_boot=0)
    assert exc.value.column == "label" and "hi, lo, mid" in str(exc.value)
    ordered = ag.report(ag.LabelTable(df, categories=["lo", "mid", "hi"]), level="ordinal", n_boot=0)
    assert ordered.alpha.statistic == "Krippendorff's alpha (ordinal)"
    # The order matters: the same labels in alphabetical order give another alpha.
    alphabetical = ag.report(ag.LabelTable(df, categories=["hi", "lo", "mid"]), level="ordinal", n_boot=0)
    assert ordered.alpha.estimate != pytest.approx(alphabetical.alpha.estimate)
    # Numbers order themselves.
    numbers = df.assign(label=df["label"].map({"lo": 1, "mid": 2, "hi": 3}))
    assert ag.report(ag.LabelTable(numbers), level="ordinal", n_boot=0).alpha.estimate == pytest.approx(
        ordered.alpha.estimate
    )
