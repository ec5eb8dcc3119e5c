"""The ``val`` split everywhere: a dataset whose sessions are in train, val and test loads, offers val
on the analysis pages' split filter and applies it, and the Test split page and Compare's split
standing hold the val sessions apart (neither train nor test: not candidates of the search, on
neither side of the dataset's own split, and kept in val by a dataset written with a new split)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_analysis_pages import captions, open_page, specs

from analysis import split as sp
from corpus.loading.dataset import SAMPLE_DATA, load_dir, load_sample
from corpus.splits import write_with_splits

pytestmark = pytest.mark.long


def _val_sessions() -> list[str]:
    """Two train sessions of each condition of the sample, to be held out in val."""
    s = load_sample().sessions_df
    train = s[s["split"].astype(str) == "train"]
    return [sid for _, g in train.groupby("condition", observed=True) for sid in sorted(g["session_id"])[:2]]


@pytest.fixture(scope="module")
def with_val(tmp_path_factory) -> Path:
    """The sample with four train sessions moved to val, in a dataset root of its own."""
    root = tmp_path_factory.mktemp("roots")
    return write_with_splits(SAMPLE_DATA, root / "with_val", dict.fromkeys(_val_sessions(), "val"))


def test_a_dataset_with_val_sessions_loads_with_its_three_splits(with_val):
    corpus = load_dir(with_val)
    assert corpus.splits == ["train", "val", "test"]
    assert sorted(corpus.sessions_df.loc[corpus.sessions_df["split"] == "val", "session_id"]) == sorted(_val_sessions())


def test_the_search_and_the_standing_hold_the_val_sessions_apart(with_val, tmp_path):
    corpus = load_dir(with_val)
    s, a = corpus.sessions_df, corpus.actions_df
    val = set(_val_sessions())
    result = sp.distribution_matched_split(a, s, {"visible": 3, "not_visible": 3})
    for cond, cs in result.by_condition.items():
        n = int(((s["condition"] == cond) & (s["split"] != "val")).sum())
        assert len(cs.sessions) == n and not val & set(cs.sessions)
    assert not val & set(result.assignment())
    # Compare's standing of the dataset's own test split: the same as with the val sessions gone.
    without = s[~s["session_id"].isin(val)]
    assert sp.split_standing(a, s) == sp.split_standing(a[a["session_id"].isin(without["session_id"])], without)
    (standing,) = [x for x in sp.split_standing(a, s) if x.condition == "visible"]
    assert standing.n_sessions == int(((s["condition"] == "visible") & (s["split"] != "val")).sum())
    # A dataset written with the new split keeps its val sessions in val.
    copy = load_dir(write_with_splits(with_val, tmp_path / "resplit", result.assignment()))
    assert sorted(copy.sessions_df.loc[copy.sessions_df["split"] == "val", "session_id"]) == sorted(val)
    assert set(copy.sessions_df["split"]) == {"train", "val", "test"}


def test_compares_split_standing_leaves_val_out(with_val):
    from services import compare

    corpus = load_dir(with_val)
    s = corpus.sessions_df
    standing = compare.split_standing(corpus).result(timeout=120)
    assert {x.condition: x.n_sessions for x in standing} == {
        c: int(((s["condition"] == c) & (s["split"] != "val")).sum()) for c in ("not_visible", "visible")
    }


def test_the_test_split_page_says_what_it_does_with_val_sessions(with_val, tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/split.py", with_val)
    assert not at.error, [e.value for e in at.error]
    s = load_dir(with_val).sessions_df
    for cond in ("not_visible", "visible"):
        n = int(((s["condition"] == cond) & (s["split"] != "val")).sum())
        assert at.number_input(key=f"split_size_{cond}").label.endswith(f"(of {n})")
    text = captions(at)
    assert "4 session(s) of the selection are in the val split (2 not visible" in text
    assert "they are neither train nor test here" in text
    assert specs(at)  # the objective chart is drawn


def test_the_split_filter_offers_val_and_applies_it(with_val, tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/alignment.py", with_val)
    box = at.multiselect(key="an_splits")
    assert box.options == ["train", "val", "test"]
    box.select("val").run()
    assert not at.exception and not at.error, [e.value for e in at.exception] + [e.value for e in at.error]
    assert "Filters: both roles; both conditions; split val; all sessions." in captions(at)
    assert specs(at) and all(spec["data"] for spec in specs(at))


def test_the_data_page_names_the_val_split(with_val, tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/data.py", with_val)
    table = next(d.value for d in at.dataframe if "split" in d.value.columns)
    assert sorted(table.loc[table["split"] == "val", "session_id"]) == sorted(_val_sessions())
