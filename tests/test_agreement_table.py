"""The label table: composite item keys, duplicates, empty labels, given categories, label CSVs
read with only empty cells missing, and the count table dense or sparse."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from agreement_data import random_labels

from analysis import agreement as ag

NA_SPELLINGS = ["None", "NA", "NaN", "nan", "null", "N/A"]


def test_composite_item_key_and_duplicates():
    df = pd.DataFrame(
        {
            "session_id": ["S1", "S1", "S1", "S1", "S2", "S2", "S1"],
            "action_index": [0, 0, 1, 1, 0, 0, 0],
            "coder": ["a", "b", "a", "b", "a", "b", "a"],
            "code": ["x", "y", "x", "x", "y", "y", "y"],  # the last row corrects a's label of S1:0
        }
    )
    t = ag.LabelTable(df, item="session_id,action_index", label="code")
    assert list(t.items) == ["S1:0", "S1:1", "S2:0"]
    assert t.n_duplicates == 1
    assert t.codes[0].tolist() == [1, 1]  # a's last label for S1:0 is y
    assert ag.percent_agreement(t).estimate == 1.0
    assert list(ag.LabelTable(df, item=["session_id", "action_index"], label="code").items) == list(t.items)
    with pytest.raises(ag.LabelTableError, match="missing column 'label'") as exc:
        ag.LabelTable(df, item=["session_id", "action_index"])
    assert exc.value.column == "label"


def test_an_empty_item_or_coder_names_its_column_and_row():
    df = pd.DataFrame({"s": ["S1", None], "i": [0, 1], "coder": ["a", "b"], "label": ["x", "y"]})
    with pytest.raises(ag.LabelTableError, match=r"empty value in column 's' \(row 2\)"):
        ag.LabelTable(df, item="s,i")
    with pytest.raises(ag.LabelTableError, match=r"column 'coder' \(row 1\)"):
        ag.LabelTable(df.assign(s="S", coder=[None, "b"]), item="s,i")


def test_empty_labels_are_missing_and_unknown_categories_rejected():
    df = pd.DataFrame(
        {"item": [1, 1, 2, 2, 3], "coder": ["a", "b", "a", "b", "b"], "label": ["x", "", "y", None, "  "]}
    )
    t = ag.LabelTable(df)
    assert t.n_labels == 2 and t.n_missing == 3
    assert list(t.items) == [1, 2] and list(t.coders) == ["a"]  # item 3 and coder b have only empty labels
    with pytest.raises(ag.LabelTableError, match="not one of the categories"):
        ag.LabelTable(df, categories=["x"])
    with pytest.raises(ag.LabelTableError, match="twice"):
        ag.LabelTable(df, categories=["x", "y", "x"])
    assert list(ag.LabelTable(df, categories=["y", "x", "z"]).categories) == ["y", "x", "z"]


def test_na_spellings_in_a_label_csv_are_labels_and_only_empty_cells_are_missing():
    rows = (
        ["item,coder,label"]
        + [f"{i},{c},{NA_SPELLINGS[(i + k) % 6]}" for i in range(12) for k, c in enumerate(["a", "b"])]
        + ["12,a,", "12,b,None"]
    )
    df = ag.read_labels_csv(io.StringIO("\n".join(rows) + "\n"))
    t = ag.LabelTable(df)
    assert sorted(t.category_names()) == sorted(NA_SPELLINGS)
    assert t.n_labels == 25 and t.n_missing == 1
    assert pd.read_csv(io.StringIO("\n".join(rows))).label.isna().sum() > 1  # what pandas alone would do
    rep = ag.report(t, n_boot=0)
    assert rep.n_missing_labels == 1 and rep.to_json()["n_missing_labels"] == 1
    assert any("1 row(s) have an empty label" in w for w in rep.diagnostics.warnings)


def test_count_table_dense_and_sparse_agree(monkeypatch):
    t = ag.LabelTable(random_labels(3, p_missing=0.2))
    dense = t.count_table(t.complete)
    assert isinstance(dense, np.ndarray) and dense.sum() == t.n_coders * t.n_complete
    from analysis.agreement import table as table_module

    monkeypatch.setattr(table_module, "DENSE_CELLS", 0)
    sparse = t.count_table(t.complete)
    assert not isinstance(sparse, np.ndarray)
    np.testing.assert_array_equal(sparse.toarray(), dense)
    w = np.arange(len(dense), dtype=float)[None, :]
    np.testing.assert_allclose(np.asarray(w @ sparse), w @ dense)


def test_subset_and_where_keep_the_columns():
    df = random_labels(4, n_coders=3).assign(part=lambda d: np.where(d.index % 2, "x", "y"))
    t = ag.LabelTable(df)
    two = t.subset(coders=["coder0", "coder2"])
    assert list(two.coders) == ["coder0", "coder2"] and two.codes.shape == (t.n_items, 2)
    assert two.label_col == "label" and two.frame is df
    with pytest.raises(KeyError, match="no coder 'nobody'"):
        t.subset(coders=["nobody"])
    x = t.where(df["part"] == "x")
    assert x.n_labels == int((df["part"] == "x").sum()) and list(x.categories) == list(t.categories)
