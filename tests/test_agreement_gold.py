"""One coder against gold (another coder, given labels, or the majority), and the sample corpus:
its simulated coders agree near the paper's numbers."""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from analysis import agreement as ag


def labelled() -> ag.LabelTable:
    return ag.LabelTable(
        pd.DataFrame(
            {
                "item": [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5],
                "coder": ["a", "b", "c", "llm"] * 3 + ["a", "b", "llm", "a", "b", "llm"],
                "label": ["x", "x", "y", "x", "y", "y", "y", "x", "z", "x", "z", "z", "x", "y", "x", "y", "y", "y"],
                "partition": ["validation"] * 15 + ["few_shot"] * 3,
            }
        )
    )


def test_coder_vs_gold_majority_named_coder_and_given_labels():
    t = labelled()
    res = ag.coder_vs_gold(t, "llm", "majority", partition="validation")
    # majorities: 1 x, 2 y, 3 z; item 4 is a tie (x, y) and left out; item 5 is few-shot
    assert res.cohen.n == 3 and res.n_unmatched == 1 and res.gold == "majority of a, b, c"
    assert res.cohen.estimate == pytest.approx(cohen_kappa_score(["x", "x", "z"], ["x", "y", "z"]))
    assert res.percent_agreement.estimate == pytest.approx(2 / 3)
    assert res.confusion_matrix().loc["x", "y"] == 1
    assert res.to_json()["cohen_kappa"]["checked_against"] == "sklearn.metrics.cohen_kappa_score"
    named = ag.coder_vs_gold(t, "llm", "a")
    assert named.cohen.n == 5
    assert named.cohen.estimate == pytest.approx(
        cohen_kappa_score(["x", "x", "z", "x", "y"], ["x", "y", "z", "x", "y"])
    )
    given = ag.coder_vs_gold(t, "llm", {1: "x", 2: "y", 3: "z"})
    assert given.gold == "given labels" and given.percent_agreement.estimate == pytest.approx(2 / 3)
    with pytest.raises(KeyError, match="coder 'nobody' has no labels"):
        ag.coder_vs_gold(t, "nobody")


def _majority(codes: pd.Series):
    """The label most coders gave an item, or None when the top labels tie."""
    counts = codes.value_counts()
    return counts.index[0] if len(counts) == 1 or counts.iloc[0] > counts.iloc[1] else None


def _bootstrap_fleiss(counts: np.ndarray, n_boot: int, seed: int) -> np.ndarray:
    """Fleiss' kappa of ``n_boot`` resamples of the rows (items) of an items x categories count
    table, by the procedure the interval documents: a numpy generator (``default_rng``) seeded with
    ``seed`` draws n item positions per resample, uniform with replacement, as one resamples x items
    array of integers (a few thousand resamples of a few hundred items are one such draw), and
    statsmodels scores each resample; undefined resamples are left out."""
    n = len(counts)
    rows = np.random.default_rng(seed).integers(0, n, (n_boot, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        reps = np.array([fleiss_kappa(counts[r]) for r in rows])
    return reps[~np.isnan(reps)]


def test_sample_corpus_human_coders_agree_near_the_paper():
    from corpus.loading.dataset import load_sample

    labels = load_sample().coded("grounding_acts")
    models = labels.loc[labels["coder_kind"] == "model", "coder"].unique().tolist()
    assert models, "the sample corpus has a model coder"
    human = labels[(labels["coder_kind"] == "human") & (labels["partition"] == "validation")]
    t = ag.LabelTable(human, item="item_id", label="code")
    res = ag.fleiss(t, n_boot=1000)
    assert res.n_coders == 3 and res.n == human["item_id"].nunique() == 172 and res.n_dropped == 0
    # The numbers of the committed sample (regenerate it and these change: they pin the generator's
    # output and the bootstrap's seed), near the paper's 0.81 and 0.76. Each pinned number is also
    # computed here without the package's code.
    assert res.estimate == pytest.approx(0.8243559718969554, abs=1e-12)
    assert res.interval == pytest.approx((0.7699090517614402, 0.8735495129160287), abs=1e-12)

    # Items x coders in the order the items first appear (the order the bootstrap draws them in),
    # and items x categories counts from statsmodels.
    wide = human.pivot(index="item_id", columns="coder", values="code").loc[pd.unique(human["item_id"])]
    assert wide.shape == (172, 3) and not wide.isna().any().any()
    counts, _ = aggregate_raters(wide.to_numpy())
    assert res.estimate == pytest.approx(fleiss_kappa(counts), abs=1e-12)
    # The interval is the 2.5th and 97.5th percentiles of the resampled kappas, and the standard
    # error their standard deviation, for the resamples its procedure names.
    assert res.interval_method.startswith("percentile bootstrap over items (1000 resamples, seed 0)")
    reps = _bootstrap_fleiss(counts, 1000, seed=0)
    assert len(reps) == 1000
    assert res.interval == pytest.approx(tuple(np.percentile(reps, [2.5, 97.5])), abs=1e-12)
    assert res.se == pytest.approx(reps.std(ddof=1), abs=1e-12)
    assert res.interval[0] < res.estimate < res.interval[1]

    alpha = ag.krippendorff_alpha(t, n_boot=0)
    assert alpha.n == 172
    assert alpha.estimate == pytest.approx(0.824696367300256, abs=1e-12)
    codes, _ = pd.factorize(wide.to_numpy().ravel())
    reliability = codes.reshape(wide.shape).T.astype(float)  # coders x items
    assert alpha.estimate == pytest.approx(
        krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal"), abs=1e-12
    )

    gold = ag.coder_vs_gold(
        ag.LabelTable(labels, item="item_id", label="code"), models[0], "majority", "validation", exclude_coders=models
    )
    assert gold.cohen.n == 169 and gold.n_unmatched == 3  # items whose human coders tie have no majority
    assert gold.cohen.estimate == pytest.approx(0.7580122130974941, abs=1e-12)
    assert gold.percent_agreement.estimate == pytest.approx(0.7988165680473372, abs=1e-12)

    # The same comparison by hand: the human coders' majority per validation item (none on a tie),
    # against the model's label on the items that have one.
    validation = labels[labels["partition"] == "validation"]
    majority = validation[validation["coder_kind"] == "human"].groupby("item_id")["code"].agg(_majority).dropna()
    model = validation[validation["coder"] == models[0]].set_index("item_id")["code"]
    both = model.index.intersection(majority.index)
    assert len(both) == 169 and len(model) - len(both) == 3
    assert gold.cohen.estimate == pytest.approx(cohen_kappa_score(model[both], majority[both]), abs=1e-12)
    assert gold.percent_agreement.estimate == pytest.approx((model[both] == majority[both]).mean(), abs=1e-12)
