"""Cross-tabulating two coding schemes on the same actions."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from analysis.schemes import compare_schemes


def _rows(scheme, coder, codes, start=0):
    return [
        {"scheme": scheme, "session_id": "q1", "action_index": start + i, "coder": coder, "code": c}
        for i, c in enumerate(codes)
    ]


def test_crosstab_and_cramers_v_on_a_known_table():
    moves = ["instruct"] * 6 + ["acknowledge"] * 4
    acts = ["initiate"] * 5 + ["acknowledge"] + ["acknowledge"] * 3 + ["continue"]
    labels = pd.DataFrame(
        _rows("hcrc_moves", "hcrc", moves)
        + _rows("grounding_acts", "ann", acts)
        + _rows("grounding_acts", "bob", acts)
        + _rows("grounding_acts", "ann", ["other"], start=50)  # only in one scheme
    )
    cmp = compare_schemes(labels, "hcrc_moves", "grounding_acts")
    assert cmp.n_items == 10 and cmp.n_only_a == 0 and cmp.n_only_b == 1
    t = cmp.table
    assert t.loc["instruct", "initiate"] == 5 and t.loc["instruct", "acknowledge"] == 1
    assert t.loc["acknowledge", "acknowledge"] == 3 and t.loc["acknowledge", "continue"] == 1
    # Cramér's V by hand: chi2 / (n * (min(r, c) - 1)).
    obs = t.to_numpy()
    n = obs.sum()
    exp = obs.sum(1, keepdims=True) * obs.sum(0, keepdims=True) / n
    chi2 = ((obs - exp) ** 2 / exp).sum()
    assert cmp.chi2.estimate == pytest.approx(chi2)
    assert cmp.cramers_v.estimate == pytest.approx(math.sqrt(chi2 / (n * (min(obs.shape) - 1))))
    assert cmp.cramers_v.n == 10 and cmp.cramers_v.computed_by == "scipy.stats.contingency.association"
    assert cmp.chi2.dof == 2 and cmp.chi2.computed_by == "scipy.stats.chi2_contingency"
    assert set(cmp.to_frame()["statistic"]) == {"cramers_v", "chi2"}
    best = cmp.best_match.set_index("code")
    assert best.loc["instruct", "most_often"] == "initiate"
    assert best.loc["instruct", "share"] == pytest.approx(5 / 6)


def test_no_shared_actions_is_undefined_with_a_reason():
    labels = pd.DataFrame(
        _rows("hcrc_moves", "hcrc", ["instruct"]) + _rows("grounding_acts", "ann", ["initiate"], start=9)
    )
    cmp = compare_schemes(labels, "hcrc_moves", "grounding_acts")
    assert cmp.n_items == 0 and not cmp.cramers_v.defined
    assert str(cmp.cramers_v.estimate) == "undefined, because no action has a label in both schemes"
    assert cmp.chi2.note() == "undefined, because no action has a label in both schemes"


def test_one_code_on_the_shared_actions_is_undefined():
    labels = pd.DataFrame(
        _rows("hcrc_moves", "hcrc", ["instruct", "instruct"]) + _rows("grounding_acts", "ann", ["initiate", "continue"])
    )
    cmp = compare_schemes(labels, "hcrc_moves", "grounding_acts")
    assert cmp.n_items == 2 and str(cmp.chi2.estimate).endswith("one scheme uses a single code on the shared actions")
