"""Many coders, a few per item: Fleiss' kappa generalized to a varying number of coders per item
(checked against Gwet's worked example and statsmodels), and a live panel that shows numbers as
soon as items have two labels, not only once every coder has coded them."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from agreement_data import random_labels
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from analysis import agreement as ag
from analysis.agreement.bootstrap import weights
from analysis.live_panel import lead_refresh

# Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed.: 4 raters, 12 subjects, 5 categories,
# none of the raters scored every subject (irrCAC's cac.raw4raters).
GWET_4_RATERS = {
    "Rater1": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "Rater2": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, None],
    "Rater3": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    "Rater4": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


def _gwet_table() -> ag.LabelTable:
    rows = [(u, r, v) for r, vals in GWET_4_RATERS.items() for u, v in enumerate(vals, 1) if v is not None]
    return ag.LabelTable(pd.DataFrame(rows, columns=["item", "coder", "label"]).astype({"label": int}))


def test_generalized_kappa_on_gwets_worked_example():
    """The published values: p_a 0.818, p_e 0.239, Fleiss' generalized kappa 0.761 (and, on the
    same data, Gwet's AC1 0.775 and Krippendorff's alpha 0.743)."""
    import krippendorff

    table = _gwet_table()
    g = ag.fleiss_generalized(table)
    assert (round(g.estimate, 3), round(g.p_observed, 3), round(g.p_expected, 3)) == (0.761, 0.818, 0.239)
    assert g.n == 11 and g.n_of == "items with two or more labels" and g.n_dropped == 1
    assert g.statistic == "Fleiss' kappa, generalized (coders vary by item)"
    assert round(ag.gwet_ac1(table).estimate, 3) == 0.775
    alpha = ag.krippendorff_alpha(table, n_boot=0).estimate
    data = np.array([[np.nan if v is None else v for v in vals] for vals in GWET_4_RATERS.values()], dtype=float)
    assert alpha == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-12)
    assert round(alpha, 3) == 0.743


@pytest.mark.parametrize("seed", range(5))
def test_generalized_kappa_is_fleiss_kappa_when_every_item_has_every_coder(seed):
    df = random_labels(seed, n_items=60, n_coders=3 + seed, p_missing=0)
    table = ag.LabelTable(df)
    wide = df.pivot(index="item", columns="coder", values="label").to_numpy()
    assert ag.fleiss_generalized(table).estimate == pytest.approx(fleiss_kappa(aggregate_raters(wide)[0]), abs=1e-12)
    assert ag.fleiss_generalized(table).estimate == pytest.approx(ag.fleiss(table, n_boot=0).estimate, abs=1e-12)


def test_generalized_kappas_bootstrap_is_the_statistic_on_each_resample():
    """The vectorized interval equals the statistic computed again on each resampled table (the
    items repeated as often as the resample draws them)."""
    df = random_labels(3, n_items=40, n_coders=6, p_missing=0.5)
    table = ag.LabelTable(df)
    got = ag.fleiss_generalized(table, n_boot=60, seed=4)
    items = list(table.items)
    reps = []
    for block in weights(4, len(items), 60):
        for w in block:
            parts = [
                df[df["item"] == item].assign(item=f"{item}#{k}")
                for item, times in zip(items, w.astype(int))
                for k in range(times)
            ]
            reps.append(ag.fleiss_generalized(ag.LabelTable(pd.concat(parts))).estimate)
    reps = np.array([r for r in reps if isinstance(r, float)])
    assert got.interval == pytest.approx(tuple(np.percentile(reps, [2.5, 97.5])), abs=1e-12)
    assert got.se == pytest.approx(reps.std(ddof=1), abs=1e-12)


def _many_coders(n_items: int = 40, n_coders: int = 50, per_item: int = 3, seed: int = 0) -> pd.DataFrame:
    """Each item coded by ``per_item`` of ``n_coders`` coders, as a lab splits a large task."""
    rng = np.random.default_rng(seed)
    codes = ["initiate", "continue", "acknowledge", "repair"]
    rows = []
    for i in range(n_items):
        truth = codes[i % 4]
        for coder in rng.choice(n_coders, size=per_item, replace=False):
            code = truth if rng.random() < 0.8 else codes[int(rng.integers(4))]
            rows.append(
                {
                    "item_id": f"S01:{i}",
                    "coder": f"coder{coder:02d}",
                    "coder_kind": "human",
                    "code": code,
                    "created_at": pd.Timestamp("2026-01-01") + pd.Timedelta(seconds=len(rows)),
                    "codebook_version": "1.0",
                }
            )
    return pd.DataFrame(rows)


def test_the_live_panel_shows_numbers_for_fifty_coders_three_per_item():
    """No item is coded by every one of 50 coders: the panel shows Fleiss' kappa generalized to a
    varying number of coders per item, named as such, and alpha, percent agreement and AC1 on the
    40 items with two or more labels, instead of "undefined" everywhere."""
    import krippendorff

    labels = _many_coders()
    head = lead_refresh(labels, 40).headline
    table = ag.LabelTable(labels, item="item_id", coder="coder", label="code")
    assert head.n_coders == labels["coder"].nunique() >= 45
    assert head.n_items_complete == 0 and head.n_items_pairable == 40
    assert head.fleiss.key == "fleiss_kappa_generalized" and head.fleiss.n == 40
    assert head.fleiss.estimate == pytest.approx(ag.fleiss_generalized(table).estimate, abs=1e-12)
    assert ag.is_defined(head.fleiss.interval)  # the panel's bootstrap, as for Fleiss' kappa
    wide = labels.pivot(index="coder", columns="item_id", values="code")
    codes = {c: k for k, c in enumerate(sorted(labels["code"].unique()))}
    data = wide.apply(lambda col: col.map(codes)).to_numpy(dtype=float)
    assert head.alpha.estimate == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-12
    )
    for est in (head.alpha, head.percent_agreement, head.ac1):
        assert ag.is_defined(est.estimate), est
    # Few items with two labels: each statistic says how few, on its own count.
    few = lead_refresh(_many_coders(n_items=6), 6).headline
    assert str(few.alpha.estimate) == "undefined, because too few items (6 with two or more labels)"
    assert str(few.fleiss.estimate) == "undefined, because no item was coded by every coder"


def test_fleiss_kappa_keeps_its_place_where_enough_items_are_coded_by_every_coder():
    df = random_labels(1, n_items=30, n_coders=3, p_missing=0.2).rename(columns={"item": "item_id", "label": "code"})
    df = df.assign(coder_kind="human", created_at=pd.Timestamp("2026-01-01"), codebook_version="1.0")
    head = lead_refresh(df, 30).headline
    assert head.n_items_complete >= ag.PANEL_MIN_ITEMS
    assert head.fleiss.key == "fleiss_kappa" and head.fleiss.statistic == "Fleiss' kappa"
    # A snapshot shared with coders reads back with its counts, the pairable one included.
    again = ag.Headline.from_json(head.to_json())
    assert again.n_items_pairable == head.n_items_pairable and again.fleiss.key == "fleiss_kappa"
    old = head.to_json()
    del old["n_items_pairable"]
    assert ag.Headline.from_json(old).n_items_pairable == head.n_items_complete


def test_the_panels_diagnostics_speak_of_the_kappa_it_shows():
    live = lead_refresh(_many_coders(), 40)
    warnings = live.report.diagnostics.warnings
    assert "too few items: 40 with two or more labels (fewer than 30)" not in " ".join(warnings)
    assert not any("no item was coded by every coder" in w for w in warnings), warnings
    few = lead_refresh(_many_coders(n_items=20), 20).report.diagnostics.warnings
    assert "too few items: 20 with two or more labels (fewer than 30); intervals are wide" in few


def test_the_panels_mean_cohen_kappa_leaves_out_pairs_that_share_few_items():
    """50 coders, 3 per item: no pair shares 10 items, so the mean pairwise kappa says so instead of
    averaging over a thousand kappas on one or two items each; with 3 coders on every item it is the
    mean of the three pairs' kappas (scikit-learn's)."""
    from sklearn.metrics import cohen_kappa_score

    many = lead_refresh(_many_coders(), 40).headline
    assert str(many.mean_cohen.estimate) == "undefined, because no pair of coders shares 10 items"
    df = random_labels(2, n_items=30, n_coders=3, p_missing=0).rename(columns={"item": "item_id", "label": "code"})
    df = df.assign(coder_kind="human", created_at=pd.Timestamp("2026-01-01"), codebook_version="1.0")
    head = lead_refresh(df, 30).headline
    wide = df.pivot(index="item_id", columns="coder", values="code")
    pairs = [("coder0", "coder1"), ("coder0", "coder2"), ("coder1", "coder2")]
    expected = np.mean([cohen_kappa_score(wide[a], wide[b]) for a, b in pairs])
    assert head.mean_cohen.estimate == pytest.approx(expected, abs=1e-12) and head.mean_cohen.n == 3


def _ac1_by_hand(ratings: dict[str, list], q: int) -> float:
    """Gwet's AC1 written out from his formulas (Gwet 2014, ch. 4; irrCAC's ``gwet.ac1.raw``): p_a over
    the subjects with two or more ratings, pi_k averaged over the subjects rated, p_e = sum_k pi_k
    (1 - pi_k) / (q - 1), q the number of categories of the scale (``categ.labels``)."""
    subjects = list(zip(*ratings.values()))
    cats = sorted({v for s in subjects for v in s if v is not None})
    p_a, n_pair, pi, n_rated = 0.0, 0, np.zeros(len(cats)), 0
    for s in subjects:
        r = [v for v in s if v is not None]
        counts = np.array([r.count(c) for c in cats], dtype=float)
        if len(r) >= 2:
            p_a += float((counts * (counts - 1)).sum()) / (len(r) * (len(r) - 1))
            n_pair += 1
        if r:
            pi += counts / len(r)
            n_rated += 1
    p_a, pi = p_a / n_pair, pi / n_rated
    p_e = float((pi * (1 - pi)).sum()) / (q - 1)
    return (p_a - p_e) / (1 - p_e)


def test_ac1_counts_the_scales_categories_as_gwet_defines_q():
    """Q is the number of categories of the scale, not of those used: on Gwet's example (5 categories,
    all used) AC1 is the published 0.775 either way; on a scale of 6 categories (one no rater used,
    as irrCAC's ``categ.labels = 1:6``) p_e shrinks and AC1 is the value his formula gives with q = 6."""
    table = _gwet_table()
    assert round(_ac1_by_hand(GWET_4_RATERS, 5), 3) == 0.775  # the written-out formula gives the published value
    observed = ag.gwet_ac1(table)
    assert observed.estimate == pytest.approx(_ac1_by_hand(GWET_4_RATERS, 5), abs=1e-12)
    assert observed.method.endswith("Q = 5 categories (those observed)")
    six = ag.gwet_ac1(table, scale=[1, 2, 3, 4, 5, 6])
    assert six.estimate == pytest.approx(_ac1_by_hand(GWET_4_RATERS, 6), abs=1e-12)
    assert round(six.estimate, 4) == 0.7855 and six.method.endswith("Q = 6 categories (the codebook's)")
    # The live panel's sums and the full report give the same AC1 with the same scale.
    assert ag.panel(table, scale=[1, 2, 3, 4, 5, 6]).ac1.estimate == pytest.approx(six.estimate, abs=1e-12)
    assert ag.report(table, n_boot=0, scale=[1, 2, 3, 4, 5, 6]).ac1.estimate == pytest.approx(six.estimate, abs=1e-12)
