"""Dyadic alignment, the reasons for not being aligned, the acts before a report and the checkpoint
answers beside the labels, on hand-made sessions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers import write_tiny

from analysis.dyads import dyad_curves, dyad_moments, dyad_share_by_condition
from analysis.progress import assign_bins, progress_table
from analysis.reasons import acts_before, checkpoints_beside_labels, preceding_act, reason_curves, reason_shares
from corpus.loading.dataset import load_dir
from corpus.model import Checkpoint


def session(sid: str, cond: str, goals: list[tuple[str, str | None]]) -> list[dict]:
    """Actions from (role, team goal) pairs; None means the action carries no annotation."""
    return [
        {"session_id": sid, "condition": cond, "index": i, "role": r, "team_goal": g, "p": i / (len(goals) - 1)}
        for i, (r, g) in enumerate(goals)
    ]


def test_dyadic_alignment_compares_each_ones_latest_team_goal():
    df = pd.DataFrame(
        session(
            "a", "visible", [("guide", "t3"), ("follower", "t2"), ("guide", None), ("follower", "t3"), ("guide", "t1")]
        )
        + session("b", "not_visible", [("follower", "t2"), ("guide", "t2"), ("guide", "t3")])
    )
    m = dyad_moments(df)
    a = m[m["session_id"] == "a"]
    # Moment 0: only the Guide has annotated. 1: t3 vs t2. 2: unchanged. 3: t3 vs t3. 4: t1 vs t3.
    assert a["index"].tolist() == [1, 2, 3, 4]
    assert a["agree"].tolist() == [0, 0, 1, 0]
    assert a[["guide_code", "follower_code"]].iloc[3].tolist() == ["t1", "t3"]
    assert m[m["session_id"] == "b"]["agree"].tolist() == [1, 0]
    overall = dyad_share_by_condition(m).set_index("condition")
    assert overall.loc["visible", ["k", "n", "sessions"]].tolist() == [1, 4, 1]
    curves = dyad_curves(m, "p", bins=2).set_index(["condition", "bin"])
    assert curves.loc[("visible", 0), ["k", "n"]].tolist() == [0, 2]  # p = 0.25, 0.5
    assert curves.loc[("visible", 1), ["k", "n"]].tolist() == [1, 2]  # p = 0.75, 1


def reasons_frame() -> pd.DataFrame:
    rows = [
        {
            "session_id": "a",
            "index": 0,
            "condition": "visible",
            "role": "guide",
            "aligned": True,
            "misalignment_reasons": "",
            "p": 0.1,
        },
        {
            "session_id": "a",
            "index": 1,
            "condition": "visible",
            "role": "follower",
            "aligned": False,
            "misalignment_reasons": "n2",
            "p": 0.2,
        },
        {
            "session_id": "a",
            "index": 2,
            "condition": "visible",
            "role": "guide",
            "aligned": False,
            "misalignment_reasons": "n2,n4",
            "p": 0.8,
        },
        {
            "session_id": "a",
            "index": 3,
            "condition": "visible",
            "role": "follower",
            "aligned": None,
            "misalignment_reasons": "",
            "p": 0.9,
        },
        {
            "session_id": "b",
            "index": 0,
            "condition": "not_visible",
            "role": "guide",
            "aligned": False,
            "misalignment_reasons": "n3",
            "p": 0.3,
        },
    ]
    return pd.DataFrame(rows)


def test_reason_shares_count_each_cited_reason_of_the_not_aligned_actions():
    s = reason_shares(reasons_frame()).set_index(["condition", "reason"])
    assert s.loc[("visible", "n2"), ["k", "n"]].tolist() == [2, 2]
    assert s.loc[("visible", "n4"), "share"] == 0.5
    assert s.loc[("visible", "n1"), "k"] == 0  # every reason is listed, cited or not
    assert s.loc[("not_visible", "n3"), ["k", "n"]].tolist() == [1, 1]
    c = reason_curves(reasons_frame(), "p", bins=2).set_index(["condition", "bin", "reason"])
    assert c.loc[("visible", 0, "n2"), ["k", "n"]].tolist() == [1, 1]
    assert c.loc[("visible", 1, "n4"), ["k", "n"]].tolist() == [1, 1]


def test_the_act_before_is_the_latest_coded_act_within_the_look_back():
    df = reasons_frame()
    labels = pd.DataFrame({"session_id": ["a", "b"], "action_index": [0, 0], "code": ["acknowledge", "initiate"]})
    prev = preceding_act(df, labels, window=1).set_index(["session_id", "index"])
    assert prev.loc[("a", 1), "act_before"] == "acknowledge"
    assert pd.isna(prev.loc[("a", 2), "act_before"])  # the coded act is 2 actions back
    prev2 = preceding_act(df, labels, window=2).set_index(["session_id", "index"])
    assert prev2.loc[("a", 2), "act_before"] == "acknowledge" and prev2.loc[("a", 2), "act_before_index"] == 0
    assert pd.isna(prev2.loc[("b", 0), "act_before"])  # nothing before the first action
    summary = acts_before(df, labels, window=2).set_index(["group", "act"])
    assert summary.loc[("not aligned", "acknowledge"), ["k", "n"]].tolist() == [2, 2]
    assert "aligned" not in summary.index.get_level_values("group")  # the aligned action a:0 has no act before it


def test_checkpoint_answers_sit_beside_the_latest_labels_of_that_participant(tmp_path):
    corpus = load_dir(write_tiny(tmp_path / "ds"))
    s = corpus.session("s1")
    s.checkpoints.append(
        Checkpoint(
            role="guide",
            index=1,
            progress=0.25,
            action_index=2,
            elapsed_s=9.0,
            team_goal="Explaining the start",
            partner_intent="They follow",
            self_reasoning="Describing turns",
        )
    )
    actions = corpus.actions_df.merge(progress_table(corpus), on=["session_id", "index"])
    table = checkpoints_beside_labels(corpus, actions[actions["session_id"] == "s1"])
    assert len(table) == 1
    row = table.iloc[0]
    # The Guide's latest annotated action at or before step 2 is step 0 (step 1 and 2 are the Follower's).
    assert (row["step"], row["labelled_step"]) == (2, 0)
    assert row["answer_team_goal"] == "Explaining the start"
    assert row["label_team_goal"] == "t3 Clear on what to do and working on it"
    assert bool(row["label_aligned"]) is True
    only_followers = checkpoints_beside_labels(
        corpus, actions[(actions["session_id"] == "s1") & (actions["role"] == "follower")]
    )
    assert only_followers.empty
    s.checkpoints.clear()


def test_a_checkpoint_before_any_annotation_of_that_participant_has_no_labels(tmp_path):
    corpus = load_dir(write_tiny(tmp_path / "ds"))
    s = corpus.session("s1")
    s.checkpoints.append(
        Checkpoint(
            role="follower",
            index=1,
            progress=0.25,
            action_index=0,
            elapsed_s=0.0,
            team_goal="x",
            partner_intent="y",
            self_reasoning="z",
        )
    )
    table = checkpoints_beside_labels(corpus, corpus.actions_df[corpus.actions_df["session_id"] == "s1"])
    assert pd.isna(table.iloc[0]["labelled_step"])
    s.checkpoints.clear()


def test_dyadic_alignment_is_tested_and_bounded_by_session_not_by_moment():
    """The sample's 2,831 moments come from 25 sessions: the condition difference is Welch's t-test
    on the sessions' own shares (p = 0.004), and the intervals resample sessions, not moments."""
    from scipy import stats

    from analysis.dyads import N_BOOT, dyad_condition_test
    from corpus.loading.dataset import load_sample

    m = dyad_moments(load_sample().actions_df)
    per = m.groupby(["condition", "session_id"], observed=True)["agree"].mean().reset_index()
    vis = per.loc[per["condition"].astype(str) == "visible", "agree"].to_numpy()
    nvis = per.loc[per["condition"].astype(str) == "not_visible", "agree"].to_numpy()
    ref = stats.ttest_ind(vis, nvis, equal_var=False)
    test = dyad_condition_test(m)
    assert test.n == 25 and test.n_of == "sessions"
    assert test.estimate == pytest.approx(vis.mean() - nvis.mean(), rel=1e-12)
    assert test.test_statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert test.p_value == pytest.approx(ref.pvalue, rel=1e-12) and round(test.p_value, 3) == 0.004
    overall = dyad_share_by_condition(m).set_index("condition")
    assert overall["n"].sum() == len(m) and overall.loc["visible", "sessions"] == 13
    # The interval of the pooled share, by hand: sessions resampled within the condition.
    sessions = (
        m[m["condition"].astype(str) == "visible"].groupby("session_id", observed=True)["agree"].agg(["sum", "count"])
    )
    rng = np.random.default_rng(0)
    draw = rng.integers(0, len(sessions), size=(N_BOOT, len(sessions)))
    shares = sessions["sum"].to_numpy()[draw].sum(1) / sessions["count"].to_numpy()[draw].sum(1)
    assert (overall.loc["visible", "ci_low"], overall.loc["visible", "ci_high"]) == pytest.approx(
        tuple(np.percentile(shares, [2.5, 97.5])), rel=1e-12
    )
    # Wider than a Wilson interval that would treat the 1,391 moments as independent.
    from analysis.results import wilson_columns

    k, n = overall.loc["visible", ["k", "n"]]
    lo, hi = wilson_columns(pd.Series([k]), pd.Series([n]))
    assert overall.loc["visible", "ci_high"] - overall.loc["visible", "ci_low"] > float(hi[0] - lo[0])


@pytest.mark.parametrize("budget", [0, 64 * 2**20])
def test_the_session_bootstrap_is_the_drawn_sessions_summed_exactly(budget, monkeypatch):
    """The intervals come from each resample's sums over the sessions drawn (counted as times drawn x
    counts): the very numbers of adding the drawn rows, cells with no moment in a resample and
    cells no session has a moment in included; with the counts drawn each time (budget 0) or kept
    for the next table over as many sessions."""
    from analysis import draws
    from analysis.dyads import N_BOOT, SEED, _session_bootstrap

    monkeypatch.setattr(draws, "RESAMPLE_COUNTS", draws.ResampleCounts(budget))

    rng = np.random.default_rng(5)
    for sessions, cells in [(2, 3), (40, 5), (700, 8)]:
        n = rng.integers(0, 30, size=(sessions, cells)).astype(float)
        n[rng.random((sessions, cells)) < 0.3] = 0
        n[:, -1] = 0  # no session has a moment in the last cell
        k = np.floor(n * rng.random((sessions, cells)))
        draw = np.random.default_rng(SEED).integers(0, sessions, size=(N_BOOT, sessions))
        kb, nb = k[draw].sum(axis=1), n[draw].sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = np.where(nb > 0, kb / np.where(nb > 0, nb, 1), np.nan)
        lo, hi = _session_bootstrap(k, n)
        assert ((sessions, N_BOOT, SEED) in draws.RESAMPLE_COUNTS.kept) == (budget > 0)
        again = _session_bootstrap(k, n)  # (from the kept counts, where kept)
        assert np.array_equal(again[0], lo, equal_nan=True) and np.array_equal(again[1], hi, equal_nan=True)
        assert np.isnan(lo[-1]) and np.isnan(hi[-1])
        some = np.isfinite(share[:, :-1]).any(axis=0)  # (two sessions may leave a cell empty in every resample)
        ref_lo, ref_hi = np.full(cells - 1, np.nan), np.full(cells - 1, np.nan)
        ref_lo[some], ref_hi[some] = np.nanpercentile(share[:, :-1][:, some], [2.5, 97.5], axis=0)
        assert np.array_equal(lo[:-1], ref_lo, equal_nan=True) and np.array_equal(hi[:-1], ref_hi, equal_nan=True)


def test_dyad_curve_intervals_resample_each_conditions_sessions_in_name_order():
    """Each condition's interval resamples the rows of its sessions x bins table of counts, the
    sessions with a moment in the condition in the order of their names (grouped by name here, as
    the definition reads), on the sample and on every third session of it."""
    from analysis.dyads import _session_bootstrap
    from corpus.loading.dataset import load_sample

    corpus = load_sample()
    base = corpus.actions_df.merge(progress_table(corpus), on=["session_id", "index"])
    ids = sorted(set(base["session_id"]))
    for actions in (base, base[base["session_id"].isin(ids[::3])]):
        m = dyad_moments(actions)
        for col, bins in (("progress_coverage", 4), ("progress_index", 7)):
            got = dyad_curves(m, col, bins)
            b = assign_bins(m[col].to_numpy(dtype=float), bins)
            per = (
                pd.DataFrame(
                    {"condition": m["condition"].astype(str), "session": m["session_id"], "bin": b, "y": m["agree"]}
                )
                .loc[b >= 0]
                .groupby(["condition", "session", "bin"])["y"]
                .agg(k="sum", n="count")
            )
            for cond, part in per.groupby(level="condition"):
                k = part["k"].unstack("bin", fill_value=0).reindex(columns=range(bins), fill_value=0)
                n = part["n"].unstack("bin", fill_value=0).reindex(columns=range(bins), fill_value=0)
                lo, hi = _session_bootstrap(k.to_numpy(dtype=float), n.to_numpy(dtype=float))
                rows = got[got["condition"] == cond]
                assert rows["ci_low"].tolist() == lo[rows["bin"]].tolist()
                assert rows["ci_high"].tolist() == hi[rows["bin"]].tolist()


def test_no_test_without_two_sessions_in_each_condition():
    from analysis.dyads import dyad_condition_test

    m = pd.DataFrame(
        {"session_id": ["a", "a", "b"], "condition": ["visible", "visible", "not_visible"], "agree": [1, 0, 1]}
    )
    assert dyad_condition_test(m).reason == "each condition needs at least 2 sessions (visible 1, not visible 1)"


def test_each_reason_by_condition_and_the_act_before_a_report_carry_their_test():
    """The bars invite comparisons: each has its test, with n. On the sample: no reason differs by
    condition after Holm's adjustment; the act before a report depends on the report (chi-square
    p = 0.012 on 489 reports)."""
    from scipy.stats import chi2_contingency, fisher_exact

    from analysis.reasons import acts_before, acts_before_test, reason_tests
    from corpus.loading.dataset import load_sample

    corpus = load_sample()
    shares = reason_shares(corpus.actions_df)
    tests = reason_tests(shares).set_index("reason")
    # n5 by hand: 18 of 254 not-aligned visible actions cite it, 28 of 408 not visible.
    assert tests.loc["n5", ["k_treatment", "n_treatment", "k_reference", "n_reference"]].tolist() == [18, 254, 28, 408]
    assert tests.loc["n5", "p"] == pytest.approx(fisher_exact([[18, 236], [28, 380]]).pvalue, rel=1e-12)
    assert (tests["p_holm"] > 0.05).all()
    raw = tests["p"].sort_values()
    holm = np.minimum(1, np.maximum.accumulate(raw.to_numpy() * np.arange(5, 0, -1)))  # Holm by hand
    assert tests.loc[raw.index, "p_holm"].to_numpy() == pytest.approx(holm, rel=1e-12)
    before = acts_before(corpus.actions_df, corpus.coded("grounding_acts").pipe(_majority), 3)
    chi2, _ = acts_before_test(before)
    table = before.pivot_table(index="group", columns="act", values="k", aggfunc="sum", fill_value=0)
    assert chi2.n == 489 == table.to_numpy().sum()
    assert chi2.p_value == pytest.approx(chi2_contingency(table.to_numpy(), correction=False).pvalue, rel=1e-12)
    assert round(chi2.p_value, 3) == 0.012


def _majority(labels: pd.DataFrame) -> pd.DataFrame:
    """The people's majority act per action (as the page's default label source), ties left out."""
    people = labels[labels["coder_kind"] == "human"]
    counts = people.groupby(["session_id", "action_index", "code"]).size().rename("n").reset_index()
    top = counts[counts["n"] >= 2]
    return top[["session_id", "action_index", "code"]]


def test_in_session_order_is_pandas_stable_sort_and_copies_nothing_already_in_order():
    from analysis.codes import in_session_order

    rng = np.random.default_rng(3)
    n = 500
    df = pd.DataFrame(
        {
            "session_id": pd.array(rng.choice(["b", "a", "é", "a2", "B"], n), dtype="str"),
            "index": rng.integers(0, 20, n),  # (ties: the stable order keeps them as they come)
            "text": pd.array([f"t{i}" for i in range(n)], dtype="str"),
        },
        index=rng.permutation(n) + 100,
    )
    want = df.sort_values(["session_id", "index"], kind="stable")
    pd.testing.assert_frame_equal(in_session_order(df), want)
    again = in_session_order(want)
    pd.testing.assert_frame_equal(again, want)
    assert np.shares_memory(again["index"].to_numpy(), want["index"].to_numpy())  # (no copy)
    gap = df.assign(session_id=df["session_id"].where(np.arange(n) % 7 != 0))  # (rows without a session: last)
    pd.testing.assert_frame_equal(in_session_order(gap), gap.sort_values(["session_id", "index"], kind="stable"))


def test_the_reasons_cited_are_each_actions_list_split_and_exploded():
    """Each distinct list of reasons is split once; the rows are those of splitting every action's
    list and exploding it, in the same order, with the same columns and types."""
    from analysis.reasons import REASONS, reasons_long

    rng = np.random.default_rng(8)
    codes = [*REASONS, "", "x"]
    lists = [",".join(rng.choice(codes, rng.integers(1, 4))) for _ in range(40)] + [None]
    n = 2_000
    df = pd.DataFrame(
        {
            "session_id": [f"s{i % 13}" for i in range(n)],
            "index": np.arange(n),
            "aligned": rng.choice(np.array([True, False, None], dtype=object), n),
            "misalignment_reasons": pd.array(rng.choice(np.array(lists, dtype=object), n), dtype="str"),
        }
    )
    na = df[df["aligned"].map({True: False, False: True}).fillna(False).astype(bool)]
    out = na.assign(reason=na["misalignment_reasons"].fillna("").astype(str).str.split(",")).explode("reason")
    pd.testing.assert_frame_equal(reasons_long(df), out[out["reason"].isin(list(REASONS))])
    assert reasons_long(df.head(0)).empty
