"""The one majority / consensus rule (corpus.consensus)."""

from fractions import Fraction

import pandas as pd
import pytest

from corpus.consensus import as_share, describe, majority, reaches


def test_majority_drops_ties_and_excluded_coders():
    long = pd.DataFrame(
        [
            ("s", 0, "a", "continue"),
            ("s", 0, "b", "continue"),
            ("s", 0, "c", "repair"),
            ("s", 0, "llm", "repair"),
            ("s", 1, "a", "initiate"),
            ("s", 1, "b", "repair"),
        ],
        columns=["session_id", "action_index", "coder", "code"],
    )
    maj = majority(long, exclude_coders=("llm",))
    assert maj.to_dict("records") == [
        {"session_id": "s", "action_index": 0, "code": "continue", "k": 2, "n_coders": 3, "support": 2 / 3}
    ]
    # With the model voting, item 0 is a 2-2 tie: no majority label.
    assert majority(long).empty


def test_majority_plurality_keeps_item_order_and_ignores_empty_labels():
    long = pd.DataFrame(
        {
            "item": ["x", "x", "x", "x", "w", "w", "w"],
            "coder": ["a", "b", "c", "d", "a", "b", "c"],
            "label": ["p", "p", "q", "r", "z", "z", ""],
        }
    )
    maj = majority(long, keys=["item"], label="label")
    assert maj[["item", "label", "k", "n_coders"]].values.tolist() == [["x", "p", 2, 4], ["w", "z", 2, 2]]


@pytest.mark.parametrize(
    "k,n,share,expected",
    [
        (2, 3, "2/3", True),
        (2, 3, 0.67, False),
        (2, 3, Fraction(2, 3), True),
        (3, 5, "3/5", True),
        (3, 5, "2/3", False),
        (2, 2, 1, True),
        (2, 3, 1, False),
        (3, 4, "2/3", True),
        (0, 0, "1/2", False),
    ],
)
def test_reaches_compares_exact_fractions(k, n, share, expected):
    assert reaches(k, n, share) is expected


def test_share_parsing_and_wording():
    assert as_share("2/3") == Fraction(2, 3) and as_share(0.6) == Fraction(3, 5) and as_share(1) == 1
    assert describe(1) == "unanimous" and describe("3/5") == "3/5"
    for bad in ("0", "3/2", "two thirds", -1):
        with pytest.raises(ValueError, match="share"):
            as_share(bad)
