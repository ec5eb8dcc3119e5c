"""Compare's per-item columns made a column at a time (analysis/compare/items.py): the same values as
the element-by-element definitions they replace."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pandas as pd

from analysis.codes import category_codes
from analysis.compare.items import CATEGORIES, TruthRows, _has_text, _join, truth_frame
from corpus.loading.dataset import load_sample


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


def _joined_by_merge(monkeypatch, run, task, truth):
    with monkeypatch.context() as m:
        m.setattr(TruthRows, "rows", lambda self, preds: None)
        return _join(run, task, truth)


def test_items_found_by_integer_key_are_the_left_join_s_rows(monkeypatch):
    corpus = load_sample()
    truth = truth_frame(corpus)
    at = TruthRows.of(truth)
    runs = [r for r in corpus.predictions.values() if r.ok]
    assert len(runs) >= 2
    rng = np.random.default_rng(5)
    # Each run as read, and with its lines in another order and a third of them left out.
    shuffled = [
        replace(
            r,
            tables={
                t: df.iloc[np.sort(rng.permutation(len(df))[: 2 * len(df) // 3])[::-1]] for t, df in r.tables.items()
            },
        )
        for r in runs
    ]
    checked = 0
    for cut, run in [(False, r) for r in runs] + [(True, r) for r in shuffled]:
        for task in ("mental_model", "next_action"):
            assert at.rows(run.table(task)) is not None
            got, want = _join(run, task, truth, at), _joined_by_merge(monkeypatch, run, task, truth)
            for g, w in zip(got, want):
                pd.testing.assert_frame_equal(g, w)
            assert len(got[0]) > 100 and (len(got[2]) > 0) == cut
            checked += 1
    assert checked == 4 * len(runs)


def test_a_prediction_the_key_cannot_place_is_joined():
    corpus = load_sample()
    truth = truth_frame(corpus)
    at = TruthRows.of(truth)
    preds = next(r for r in corpus.predictions.values() if r.ok).table("next_action")
    assert at.rows(preds) is not None
    nowhere = preds.assign(session_id=["no-such-session", *preds["session_id"].iloc[1:]])
    twice = pd.concat([preds, preds.iloc[:1]])
    beyond = preds.assign(action_index=[10**6, *preds["action_index"].iloc[1:]])
    for bad in (nowhere, twice, beyond):
        assert at.rows(bad) is None
    rows = at.rows(preds.iloc[[3, 1]])
    assert rows is not None
    assert (
        truth.iloc[rows][["session_id", "action_index"]].values.tolist()
        == preds.iloc[[3, 1]][["session_id", "action_index"]].values.tolist()
    )


def test_two_runs_share_the_items_a_merge_on_session_and_action_finds():
    """A paired test joins two runs on the item's row of the people's side: the same rows, in the same
    order, as an inner merge on session and action (here with one run's items cut and shuffled)."""
    from analysis.compare.comparison import compare
    from analysis.compare.items import ACTION_TYPE
    from analysis.compare.paired import _shared
    from corpus.predictions import DIMENSIONS

    corpus = load_sample()
    cmp = compare(corpus, [r for r in corpus.predictions.values() if r.ok], similarity=False)
    a, b = cmp.run_ids[:2]
    checked = 0
    for dim in (*DIMENSIONS, ACTION_TYPE):
        pa = cmp.parts[(a, dim)].reset_index(drop=True)
        pb = cmp.parts[(b, dim)].sample(frac=0.6, random_state=len(dim)).reset_index(drop=True)
        in_a, in_b = _shared(pa["h_row"].to_numpy(), pb["h_row"].to_numpy())
        merged = pa.reset_index().merge(pb.reset_index(), on=["session_id", "action_index"])
        assert in_a.tolist() == merged["index_x"].tolist() and in_b.tolist() == merged["index_y"].tolist()
        assert 0 < len(in_a) < len(pa)
        checked += 1
    assert checked == 4


def test_scores_made_a_task_at_a_time_are_the_whole_table_s():
    """The page makes one task's scores when it first shows them; together they are the whole table,
    and a leaderboard made of one task's rows is the one the whole table gives."""
    from analysis.compare.comparison import compare
    from analysis.compare.leaderboard import leaderboard
    from analysis.compare.scores import score_table

    corpus = load_sample()
    cmp = compare(corpus, [r for r in corpus.predictions.values() if r.ok], similarity=False)
    whole = score_table([cmp.items[r] for r in cmp.infos], cmp.parts, cmp.similarity_missing)
    key = lambda r: tuple(str(r[k]) for k in whole.keys)  # noqa: E731
    by_task = [r for t in ("mental_model", "next_action") for r in cmp.task_scores(t).rows]
    assert sorted(map(key, by_task)) == sorted(map(key, whole.rows)) and len(by_task) == len(whole.rows) > 300
    want = {key(r): r for r in whole.rows}
    assert all(str(r) == str(want[key(r)]) for r in cmp.scores.rows)
    for task in ("mental_model", "next_action"):
        lb = cmp.leaderboard(task)
        full = leaderboard(whole.to_frame(), cmp.infos, task)
        pd.testing.assert_frame_equal(lb.cells.drop(columns="best"), full.cells.drop(columns="best", errors="ignore"))


def test_a_task_s_rouge_is_made_when_its_scores_are_and_leaves_the_items_as_they_were():
    from analysis.compare import text
    from analysis.compare.comparison import compare

    corpus = load_sample()
    cmp = compare(corpus, [r for r in corpus.predictions.values() if r.ok], similarity=False)
    ri = cmp.items[cmp.run_ids[0]]
    columns = {t: list(ri.frame(t).columns) for t in ("mental_model", "next_action")}
    assert not ri._rouge  # (nothing scored yet)
    cmp.task_scores("next_action")
    assert set(ri._rouge) == {"next_action"}
    cmp.leaderboard("mental_model")
    assert set(ri._rouge) == {"next_action", "mental_model"}
    for task, (ref, pred, ok, dim) in {
        "mental_model": ("h_rationale", "p_rationale", "rationale_ok", "rationale"),
        "next_action": ("h_text", "p_content", "message_ok", "message"),
    }.items():
        df = ri.frame(task)
        assert list(df.columns) == columns[task] and f"rouge_{dim}" not in df
        usable = df[ok].to_numpy(dtype=bool)
        assert usable.sum() > 0 and (task == "mental_model" or not usable.all())  # (draws hold no text)
        want = text.rouge_l(df.loc[usable, ref].tolist(), df.loc[usable, pred].tolist())
        got = ri.text_scores(task)[f"rouge_{dim}"].to_numpy()
        assert np.array_equal(got[usable], want) and np.isnan(got[~usable]).all()


def test_a_leaderboard_s_accuracy_test_is_the_paired_table_s_mcnemar_p():
    """A leaderboard of accuracies asks McNemar's p of many pairs of runs without the paired table's
    bootstraps: the same p as the paired table gives, in every scope and dimension."""
    from analysis.compare.comparison import compare
    from analysis.compare.items import ACTION_TYPE
    from corpus.predictions import DIMENSIONS

    corpus = load_sample()
    cmp = compare(corpus, [r for r in corpus.predictions.values() if r.ok], similarity=False)
    a, b = cmp.run_ids[:2]
    checked = 0
    for condition in ("all", "visible", "not_visible"):
        for role in ("all", "guide", "follower"):
            for dim in (*DIMENSIONS, ACTION_TYPE):
                fast = cmp.paired_p(b, a, condition, role, "accuracy", dim)
                assert ("paired", b, a, condition, role, dim) not in cmp._memo.values  # (no table made)
                table = cmp.paired(b, a, condition, role, dim)
                (row,) = [r for r in table.rows if r["metric"] == "accuracy" and r["dimension"] == dim]
                assert repr(fast) == repr(row["p_value"])
                checked += isinstance(fast, float)
    assert checked == 36


def test_runs_that_predicted_the_same_items_take_the_people_s_side_once(monkeypatch):
    """Runs of one export predict the same items in the same order: the people's side and the
    missing instances are taken once for them all (the same frames), and each run's rows are still
    its own left join; a run whose lines are in another order takes its own."""
    corpus = load_sample()
    truth = truth_frame(corpus)
    at = TruthRows.of(truth)
    run = next(r for r in corpus.predictions.values() if r.ok)
    twin = replace(run, run_id="twin", tables={t: df.copy() for t, df in run.tables.items()})
    turned = replace(run, run_id="turned", tables={t: df.iloc[::-1] for t, df in run.tables.items()})
    for task in ("mental_model", "next_action"):
        first, second = _join(run, task, truth, at), _join(twin, task, truth, at)
        assert len([k for k in at._taken.values if k[0] == task]) == 1
        assert second[2] is first[2]  # (the missing instances: one frame)
        other = _join(turned, task, truth, at)
        assert len([k for k in at._taken.values if k[0] == task]) == 2
        for got, r in ((second, twin), (other, turned)):
            for g, w in zip(got, _joined_by_merge(monkeypatch, r, task, truth)):
                pd.testing.assert_frame_equal(g, w)


def test_text_of_a_column_is_astype_str_s():
    from analysis.codes import as_text

    rng = np.random.default_rng(2)
    columns = [
        pd.Series(pd.Categorical(rng.choice(["guide", "follower"], 1000)), index=np.arange(1000) + 7, name="role"),
        pd.Series(pd.Categorical(["b", "a", "b"], categories=["b", "a", "unused"])),
        pd.Series(pd.Categorical([1, 2, 1])),  # (categories that are not text)
        pd.Series(pd.Categorical(["a", None, "b"])),  # (a missing value: astype(str) says "nan")
        pd.Series(["x", None, "y"]),
        pd.Series([1.5, 2.0]),
    ]
    for column in columns:
        pd.testing.assert_series_equal(as_text(column), column.astype(str))
