"""The distribution-matched test split (Appendix E): the objective, the search, the copy of the
dataset and the command line."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from helpers import write_tiny

from analysis import split as sp
from corpus.cli import main as corpus_cli
from corpus.loading.dataset import SAMPLE_DATA, load_dir
from corpus.splits import write_with_splits


def toy_features() -> pd.DataFrame:
    """6 sessions x 3 features (proportions), chosen so that subsets differ."""
    rng = np.random.default_rng(42)
    return pd.DataFrame(rng.dirichlet([2, 3, 4], size=6), index=[f"t{i}" for i in range(6)], columns=["a", "b", "c"])


def brute_force(features: pd.DataFrame, k: int) -> list[tuple[float, tuple[str, ...]]]:
    """Every test subset of size k and its objective, straight from the paper's formula."""
    out = []
    for test in combinations(features.index, k):
        te, tr = features.loc[list(test)], features.drop(index=list(test))
        L = (tr.mean() - te.mean()).abs().sum() + (tr.std(ddof=1) - te.std(ddof=1)).abs().sum()
        out.append((float(L), test))
    return sorted(out)


def test_the_objective_and_the_chosen_subset_on_a_six_session_toy():
    f = toy_features()
    truth = brute_force(f, 2)
    cs = sp.split_condition(f, "visible", 2)
    assert cs.exhaustive and cs.n_candidates == 15 == cs.n_scored
    assert cs.test == truth[0][1]
    assert cs.objective == pytest.approx(truth[0][0], rel=1e-12)
    # The runners-up are the next best subsets, in order.
    assert cs.runners_up["objective"].tolist() == pytest.approx([L for L, _ in truth[:11]], rel=1e-12)
    assert cs.runners_up["test_sessions"].iloc[1] == ", ".join(truth[1][1])
    for L, test in truth:
        assert sp.split_objective(f, list(test)) == pytest.approx(L, rel=1e-12)


def test_the_seeded_search_beyond_the_bound_finds_the_optimum_on_the_toy(monkeypatch):
    f = toy_features()
    truth = brute_force(f, 2)
    monkeypatch.setattr(sp, "EXHAUSTIVE_LIMIT", 5)
    cs = sp.split_condition(f, "visible", 2, seed=1)
    assert not cs.exhaustive and "seeded local search (seed 1)" in cs.search and "not guaranteed" in cs.search
    assert cs.objective == pytest.approx(truth[0][0], rel=1e-12)
    assert sorted(cs.test) == sorted(truth[0][1])
    again = sp.split_condition(f, "visible", 2, seed=1)
    assert again.test == cs.test and again.n_scored == cs.n_scored


def test_sizes_that_leave_no_sd_are_refused():
    with pytest.raises(ValueError, match="fewer than 2 on a side"):
        sp.split_condition(toy_features(), "visible", 5)


@pytest.fixture(scope="module")
def sample():
    return load_dir(SAMPLE_DATA)


def test_session_features_are_role_specific_proportions(sample):
    f = sp.session_features(sample.actions_df)
    assert f.shape == (25, 46)
    a = sample.actions_df
    s1 = a[(a["session_id"] == "S01") & (a["role"] == "follower")]
    assert f.loc["S01", "follower:type:draw"] == pytest.approx((s1["type"] == "draw").mean())
    assert f.loc["S01", "follower:team_goal:t3"] == pytest.approx((s1["team_goal"] == "t3").mean())
    assert f.loc["S01", "guide:type:draw"] == 0.0  # the Guide never draws: a proportion of 0
    for role in ("guide", "follower"):
        assert f.filter(like=f"{role}:type:").sum(axis=1).to_numpy() == pytest.approx(1.0)
        assert f.filter(like=f"{role}:team_goal:").sum(axis=1).to_numpy() == pytest.approx(1.0)


def test_every_session_feature_is_its_share_counted_by_hand(sample):
    """All 46 features of all 25 sessions, each counted from the session's own rows: the rows of
    the role with that value over the role's rows with a value (0 where there is none)."""
    f = sp.session_features(sample.actions_df)
    a = sample.actions_df
    for sid in f.index:
        for name in f.columns:
            role, kind, value = name.split(":")
            rows = a.loc[(a["session_id"] == sid) & (a["role"] == role), kind]
            known = int(rows.notna().sum())
            want = int((rows.astype(str) == value).sum()) / known if known else 0.0
            assert f.loc[sid, name] == want, (sid, name)


def test_the_sample_split_like_the_paper_and_its_table(sample):
    result = sp.distribution_matched_split(sample.actions_df, sample.sessions_df, {"not_visible": 3, "visible": 3})
    assert {c: len(cs.test) for c, cs in result.by_condition.items()} == {"not_visible": 3, "visible": 3}
    assert result.by_condition["not_visible"].n_candidates == 220 and result.by_condition["visible"].n_candidates == 286
    assignment = result.assignment()
    assert len(assignment) == 25 and sum(v == "test" for v in assignment.values()) == 6
    table = sp.comparison_table(result)
    row = table[(table["condition"] == "visible") & (table["role"] == "follower") & (table["label"] == "draw")].iloc[0]
    te = result.features.loc[list(result.by_condition["visible"].test), "follower:type:draw"] * 100
    assert row["test_mean"] == pytest.approx(te.mean()) and row["test_sd"] == pytest.approx(te.std(ddof=1))


def test_the_copy_changes_only_the_splits(tmp_path):
    src = write_tiny(tmp_path / "src")
    out = write_with_splits(src, tmp_path / "out", {"s1": "test"})
    before, after = load_dir(src), load_dir(out)
    assert before.session("s1").split == "train" and after.session("s1").split == "test"
    assert after.session("s2").split == "train"
    changed = [
        p.relative_to(src)
        for p in src.rglob("*")
        if p.is_file() and p.read_bytes() != (out / p.relative_to(src)).read_bytes()
    ]
    assert [str(p) for p in changed] == ["sessions/s1/session.json"]
    assert json.loads((out / "sessions/s1/session.json").read_text())["split"] == "test"
    with pytest.raises(FileExistsError):
        write_with_splits(src, out, {"s1": "test"})
    with pytest.raises(ValueError, match="unknown split"):
        write_with_splits(src, tmp_path / "x", {"s1": "dev"})
    with pytest.raises(KeyError):
        write_with_splits(src, tmp_path / "y", {"nope": "test"})
    assert not (tmp_path / "y").exists() and not (tmp_path / "x").exists()


def test_the_split_command_writes_the_copy(tmp_path, capsys):
    assert corpus_cli(["split", str(SAMPLE_DATA), "--test-size", "3", "--seed", "0", str(tmp_path / "out")]) == 0
    printed = capsys.readouterr().out
    assert "exhaustive: all 220 subsets of 3 of 12 sessions" in printed
    copy = load_dir(tmp_path / "out")
    assert (copy.sessions_df["split"] == "test").sum() == 6
    assert corpus_cli(["split", str(SAMPLE_DATA), "--test-size", "11", str(tmp_path / "bad")]) == 1
    assert "leaves fewer than 2 on a side" in capsys.readouterr().err


def test_the_samples_own_split_is_said_to_be_not_the_matched_one_with_its_rank():
    """The sample's test sessions are the generator's: on Appendix E's objective they rank 160 of 220
    (not visible) and 145 of 286 (visible), counted here by scoring every subset one at a time."""
    from itertools import combinations

    from analysis.split import objective, session_features, split_standing
    from corpus.loading.dataset import load_sample

    corpus = load_sample()
    standing = {s.condition: s for s in split_standing(corpus.actions_df, corpus.sessions_df)}
    feats = session_features(corpus.actions_df)
    for cond, rank, total in (("not_visible", 160, 220), ("visible", 145, 286)):
        s = corpus.sessions_df[corpus.sessions_df["condition"].astype(str) == cond]
        ids = sorted(s["session_id"].astype(str))
        own = sorted(s.loc[s["split"].astype(str) == "test", "session_id"].astype(str))
        F = feats.reindex(ids).fillna(0.0).to_numpy(dtype=float)
        scores = [objective(F, np.array(c)) for c in combinations(range(len(ids)), 3)]
        mine = objective(F, np.array([ids.index(t) for t in own]))
        assert len(scores) == total and sum(x < mine - 1e-12 for x in scores) + 1 == rank
        assert (standing[cond].rank, standing[cond].n_candidates) == (rank, total)
        assert standing[cond].objective == pytest.approx(mine) and standing[cond].best == pytest.approx(min(scores))


def test_a_split_of_thousands_of_sessions_is_searched_not_overflowed():
    """C(2,860, 1,430) has 860 digits: more than a float holds. The search says its size in words."""
    import math

    import numpy as np
    import pandas as pd

    from analysis.split import split_condition

    rng = np.random.default_rng(0)
    features = pd.DataFrame(rng.random((2860, 4)), index=[f"s{i}" for i in range(2860)])
    result = split_condition(features, "visible", 1430)
    assert len(result.test) == 1430 and not result.exhaustive
    assert result.n_candidates == math.comb(2860, 1430)
    assert "C(2860, 1430) = about 10^859 subsets" in result.search


def test_a_swap_s_objective_is_the_objective_of_the_swapped_sums_bit_for_bit():
    """The local search scores swaps in buffers (:func:`analysis.split._swap_objectives`): the same
    numbers, bit for bit, as :func:`analysis.split._from_sums` of the swapped sums, and as the
    objective straight from its definition up to rounding; whichever way the features are laid
    out (a frame's values come column-major)."""
    rng = np.random.default_rng(3)
    n, k = 300, 70
    features = rng.random((n, 46)) * (rng.random(46) < 0.7)  # (some features never present)
    for F in (features, np.asfortranarray(features)):
        F2 = F**2
        test = np.arange(k)
        s1, s2 = F[test].sum(0), F2[test].sum(0)
        out_, in_ = rng.integers(0, k, 512), rng.integers(k, n, 512)
        rows, rows2 = np.ascontiguousarray(F), np.ascontiguousarray(F2)
        got = sp._swap_objectives((s1, s2), rows, rows2, (out_, in_), (F.sum(0), F2.sum(0)), n, k)
        want = sp._from_sums(s1 - F[out_] + F[in_], s2 - F2[out_] + F2[in_], F.sum(0), F2.sum(0), n, k)
        assert np.array_equal(got, want)
        for i in range(0, 512, 97):
            swapped = np.concatenate([np.delete(test, out_[i]), [in_[i]]])
            assert got[i] == pytest.approx(sp.objective(F, swapped), rel=1e-9)
