"""Compare's per-item columns made a column at a time (analysis/compare/items.py): the same values as
the element-by-element definitions they replace."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd

from analysis.codes import category_codes
from analysis.compare.items import CATEGORIES, _has_text


def _python_has_text(values) -> list[bool]:
    return [isinstance(v, str) and bool(v.strip()) for v in values]


def test_has_text_is_python_s_strip_on_every_character_and_on_mixtures():
    chars = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]  # (surrogates are no text)
    mixed = ["", " ", "a", " a ", "\u00a0", "\x1c\x1d", "\u2028x", "\t\n", "ok\u3000", None, np.nan, "   b"]
    for values in (chars, mixed):
        want = _python_has_text(values)
        for series in (pd.Series(values, dtype="str"), pd.Series(values, dtype=object)):
            got = _has_text(series)
            assert got.dtype == bool and got.index.equals(series.index)
            assert got.tolist() == want
    assert sum(want) == 5


def test_category_codes_are_each_value_s_place_among_the_categories():
    rng = random.Random(3)
    for dim, cats in CATEGORIES.items():
        pool = [*cats, "other", "T1", "", None, np.nan]
        values = [rng.choice(pool) for _ in range(2_000)]
        for series in (pd.Series(values, dtype="str"), pd.Series(values, dtype=object).astype(str)):
            want = pd.Index(cats).get_indexer(series.astype(object))  # (what a Categorical's codes are)
            got = category_codes(series, cats)
            assert got.dtype == np.int64 and got.tolist() == want.tolist(), dim
            assert set(got.tolist()) == {-1, *range(len(cats))}
