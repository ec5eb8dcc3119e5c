"""One coder against gold (another coder, given labels, or the majority), and the sample corpus:
its simulated coders agree near the paper's numbers."""

from __future__ import annotations

import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa

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


def test_sample_corpus_human_coders_agree_near_the_paper():
    from corpus.dataset import SAMPLE_DATA, load_sample

    if not (SAMPLE_DATA / "dataset.json").exists():
        pytest.skip("sample_data/ not generated yet")
    labels = load_sample().coded("grounding_acts")
    models = labels.loc[labels["coder_kind"] == "model", "coder"].unique().tolist()
    assert models, "the sample corpus has a model coder"
    human = labels[(labels["coder_kind"] == "human") & (labels["partition"] == "validation")]
    t = ag.LabelTable(human, item="item_id", label="code")
    res = ag.fleiss(t, n_boot=1000)
    assert res.n_coders == 3 and res.n == human["item_id"].nunique() == 172 and res.n_dropped == 0
    # The numbers of the committed sample (regenerate it and these change: they pin the generator's
    # output and the bootstrap's seed), near the paper's 0.81 and 0.76.
    assert res.estimate == pytest.approx(0.8068827019625741, abs=1e-12)
    assert res.interval == pytest.approx((0.7513920858180775, 0.8550084028771193), abs=1e-12)
    assert res.estimate == pytest.approx(fleiss_kappa(t.count_table()))
    gold = ag.coder_vs_gold(
        ag.LabelTable(labels, item="item_id", label="code"), models[0], "majority", "validation", exclude_coders=models
    )
    assert gold.cohen.n == 168 and gold.n_unmatched == 4  # items whose human coders tie have no majority
    assert gold.cohen.estimate == pytest.approx(0.760993274702535, abs=1e-12)
