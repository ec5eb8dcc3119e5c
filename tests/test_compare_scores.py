"""The comparison's scores on hand-made predictions equal hand-computed values; the vectorized
scores equal scikit-learn and the drawing score equals corpus.metrics."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from helpers import mm, tiny_map, tiny_session
from sklearn.metrics import accuracy_score, balanced_accuracy_score, cohen_kappa_score, f1_score, recall_score
from statsmodels.stats.proportion import proportion_confint

from analysis.compare import text
from analysis.compare.comparison import compare
from analysis.compare.items import _drawing_scores
from analysis.compare.judges import judge_agreement, pair_agreement
from analysis.compare.metrics import category_scores, confusion
from corpus.loading.dataset import load_dir, load_sample
from corpus.loading.write import write_dataset
from corpus.metrics import distance_weighted_score, route_mask
from corpus.model import Action, DatasetInfo
from corpus.predictions import read_run_dir
from corpus.values import Undefined

TRUTH = ["t1", "t1", "t2", "t2", "t3"]
PRED = ["t1", "t2", "t2", "t2", "t1"]


def _write_run(folder: Path, info: dict | None = None, **tasks: list[dict]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    if info is not None:
        (folder / "model.json").write_text(json.dumps(info))
    for task, rows in tasks.items():
        (folder / f"{task}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


@pytest.fixture
def tiny(tmp_path):
    """s1 (test split): actions 0-4 annotated t1, t1, t2, t2, t3 (team goal), action 5 annotated t3;
    s2 (test split): no action annotated."""
    s1 = tiny_session("s1", split="test")
    for a, goal in zip(s1.actions, [*TRUTH, "t3"]):
        a.mental_model = mm(team_goal=goal)
    s2 = tiny_session("s2", condition="not_visible", split="test")
    s2.actions = [Action(**{**a.model_dump(), "mental_model": None}) for a in s2.actions]
    root = write_dataset(
        tmp_path / "ds", DatasetInfo(name="tiny", description="hand-made", synthetic=True), [tiny_map()], [s1, s2]
    )
    return load_dir(root)


def _mm_rows(preds):
    return [
        {
            "session_id": "s1",
            "action_index": i,
            "team_goal": g,
            "partner_intent": "p1",
            "self_reasoning": "r1",
            "rationale": "following the plan",
        }
        for i, g in enumerate(preds)
    ]


def test_category_scores_on_hand_made_predictions(tiny, tmp_path):
    rows = _mm_rows(PRED) + [
        {"session_id": "s2", "action_index": 2, "team_goal": "t2", "partner_intent": "p1", "self_reasoning": "r1"}
    ]
    run = read_run_dir(
        _write_run(tmp_path / "a", {"name": "A", "setting": "base"}, mental_model=rows), tiny.sessions, tiny.maps
    )
    assert run.ok, run.report.format()
    cmp = compare(tiny, [run], similarity=False)
    s = cmp.score_frame
    tg = s[(s["dimension"] == "team_goal") & (s["condition"] == "all") & (s["role"] == "all")].set_index("metric")
    # Hand-computed: 3 of 5 right; recall t1 1/2, t2 2/2, t3 0/1 -> 1/2; F1 t1 2/4, t2 4/5, t3 0 -> 13/30;
    # kappa: po 3/5, pe (2*2 + 2*3 + 1*0)/25 = 2/5 -> (3/5 - 2/5) / (3/5) = 1/3.
    assert tg.at["accuracy", "estimate"] == pytest.approx(3 / 5)
    assert tg.at["macro_recall", "estimate"] == pytest.approx(1 / 2)
    assert tg.at["macro_f1", "estimate"] == pytest.approx(13 / 30)
    assert tg.at["kappa", "estimate"] == pytest.approx(1 / 3)
    z = 1.959963984540054  # Wilson 95 % interval by its formula
    p, n = 3 / 5, 5
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert tg.at["accuracy", "ci_low"] == pytest.approx(centre - half)
    assert tg.at["accuracy", "ci_high"] == pytest.approx(centre + half)
    assert tg.at["accuracy", "n"] == 5
    # Partner intent: every label p1 on both sides -> kappa has no value, and says why.
    pi = s[(s["dimension"] == "partner_intent") & (s["condition"] == "all") & (s["role"] == "all")].set_index("metric")
    assert isinstance(pi.at["kappa", "estimate"], Undefined)
    # The prediction of an unannotated action is counted and listed; the unpredicted instance s1:5 is missing.
    cov = cmp.coverage().set_index("task")
    assert cov.at["mental_model", "predictions"] == 6
    assert cov.at["mental_model", "scored"] == 5
    assert cov.at["mental_model", "unmatched"] == 1
    assert cov.at["mental_model", "missing"] == 1
    assert cmp.unmatched()[["session_id", "action_index"]].values.tolist() == [["s2", 2]]
    assert cmp.missing()[["session_id", "action_index"]].values.tolist() == [["s1", 5]]


def test_vectorized_category_scores_equal_scikit_learn():
    rng = np.random.default_rng(3)
    for k, n in ((3, 40), (5, 200), (7, 25)):
        t = rng.integers(0, k, n)
        p = np.where(rng.random(n) < 0.6, t, rng.integers(0, k, n))
        got = category_scores(confusion(t, p, k))
        assert got["accuracy"] == pytest.approx(accuracy_score(t, p))
        assert got["macro_recall"] == pytest.approx(recall_score(t, p, labels=np.unique(t), average="macro"))
        assert got["macro_recall"] == pytest.approx(balanced_accuracy_score(t, p))
        assert got["macro_f1"] == pytest.approx(f1_score(t, p, average="macro"))
        assert got["kappa"] == pytest.approx(cohen_kappa_score(t, p))
    # Hand-made pair (the test above) through scikit-learn as well.
    codes = {"t1": 0, "t2": 1, "t3": 2}
    t, p = np.array([codes[x] for x in TRUTH]), np.array([codes[x] for x in PRED])
    assert category_scores(confusion(t, p, 3))["kappa"] == pytest.approx(cohen_kappa_score(TRUTH, PRED))


def test_rouge_l_on_a_known_pair():
    # LCS "the cat on the mat" = 5 tokens; precision 5/5, recall 5/6 -> F = 10/11.
    assert text.rouge_l(["the cat sat on the mat"], ["the cat on the mat"])[0] == pytest.approx(10 / 11)
    assert text.rouge_l(["go left"], ["turn right"])[0] == 0.0
    assert text.rouge_l([], []).shape == (0,)
    # A pair that repeats is scored once and given to each of its places; empty texts score 0.
    got = text.rouge_l(["a b", "", "a b", "c"], ["b", "a", "b", ""]).tolist()
    assert got == [2 / 3, 0.0, 2 / 3, 0.0]


def test_rouge_l_equals_the_rouge_score_package_on_every_pair():
    """The pairs are scored many at once; each value must be the package's own, to the last bit:
    texts of every length up to 150 tokens (so every length group), empty ones, punctuation only,
    repeated words, case and non-ASCII, and the sample corpus's messages against its predictions."""
    import random

    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    rng = random.Random(7)
    words = ["left", "Left", "the", "lake", "up", "a", "ok", "yes", "go", "turn", "tree!", "x", "12", "--", "é", "café"]
    lengths = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 150]

    def some_text() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.choice(lengths)))

    refs = [some_text() for _ in range(1500)] + ["", "!!!", "go go go", "a b c d e"]
    preds = [some_text() for _ in range(1500)] + ["go", "go", "go", "e d c b a"]
    sample = load_sample()
    truth = sample.actions_df.set_index(["session_id", "index"])["text"]
    for run in sample.predictions.values():
        na = run.table("next_action")
        msg = na[na["action_type"] == "message"]
        refs += [truth.loc[(s, i)] for s, i in zip(msg["session_id"], msg["action_index"])]
        preds += msg["content"].tolist()
    got = text.rouge_l(refs, preds)
    want = [scorer.score(r, p)["rougeL"].fmeasure for r, p in zip(refs, preds)]
    assert len(got) == len(want) > 2000
    assert [float(v) for v in got] == want
    assert 0 < sum(v == 0 for v in want) < len(want) and any(v == 1 for v in want)


def test_the_tokenizer_is_rouge_score_s_default_one():
    from rouge_score import tokenizers

    theirs = tokenizers.DefaultTokenizer(use_stemmer=False).tokenize
    texts = [
        "",
        "   ",
        "Go LEFT, then up!",
        "the lake's edge -- 12m",
        "a\tb\nc\r\nd",
        "café crème brûlée",
        "İstanbul",
        "\u212a is Kelvin",
        "straße",
        "x_y-z",
        "l33t 0x1F",
        "日本語 and ascii",
        "..a..b..",
        "emoji 😀 here",
        "ﬁne ligature",
        "ＦＵＬＬ width",
        "\u00a0nbsp\u2028sep",
        "don't won't",
    ]
    for t in texts:
        assert text._tokenize(t) == theirs(t), t


def test_drawing_score_on_a_small_grid(tiny, tmp_path):
    # Route of tiny_map: (0,0) (0,1) (0,2) (1,3) (2,3) (3,3). Predicted ink: (0,0) on the route -> 1;
    # (1,0) at distance 1 -> 2/3; (2,0) at distance 2 -> 1/3; (9,11) far -> 0: mean 1/2.
    cells = [[0, 0], [1, 0], [2, 0], [9, 11]]
    rows = [
        {"session_id": "s1", "action_index": 1, "action_type": "draw", "content": cells},
        {"session_id": "s1", "action_index": 2, "action_type": "draw", "content": [[0, 1], [0, 2]]},
        {"session_id": "s1", "action_index": 3, "action_type": "message", "content": "go right of the lake"},
    ]
    run = read_run_dir(_write_run(tmp_path / "d", next_action=rows), tiny.sessions, tiny.maps)
    assert run.ok, run.report.format()
    cmp = compare(tiny, [run], similarity=False)
    na = cmp.items[run.run_id].na.set_index("action_index")
    assert na.at[1, "draw_score"] == pytest.approx(0.5)
    assert na.at[2, "draw_score"] == pytest.approx(1.0)
    s = cmp.score_frame
    draw = s[(s["metric"] == "drawing") & (s["condition"] == "all") & (s["role"] == "all")].iloc[0]
    assert draw["estimate"] == pytest.approx((0.5 * 4 + 1.0 * 2) / 6)  # the paper: mean over every ink cell
    assert draw["n"] == 2
    acc = s[
        (s["metric"] == "accuracy")
        & (s["dimension"] == "action_type")
        & (s["condition"] == "all")
        & (s["role"] == "all")
    ].iloc[0]
    assert acc["estimate"] == pytest.approx(3 / 3)  # draw, draw, message: what the follower and guide did
    # The per-prediction score equals corpus.metrics.distance_weighted_score.
    route = route_mask(tiny_map().route, (10, 12))
    drawn = np.zeros((10, 12), bool)
    drawn[tuple(np.array(cells).T)] = True
    assert distance_weighted_score(drawn, route) == pytest.approx(na.at[1, "draw_score"])


@pytest.mark.parametrize("bitmap", [True, False], ids=["cells-marked", "cells-sorted"])
def test_vectorized_drawing_score_equals_corpus_metrics(bitmap, monkeypatch):
    """Each drawing's score is corpus.metrics' (its distinct cells found by marking them in a bitmap,
    or by sorting where a bitmap would be too large)."""
    from analysis.compare import items

    monkeypatch.setattr(items, "BITMAP_KEYS", items.BITMAP_KEYS if bitmap else 0)
    corpus = load_sample()
    run = next(r for r in corpus.predictions.values() if r.ok)
    cmp = compare(corpus, [run], similarity=False)
    na = cmp.items[run.run_id].na
    draws = na[na["p_action_type"] == "draw"]
    assert len(draws) >= 100 and draws["session_id"].nunique() > 5
    # And drawings made here: a cell drawn twice (it counts once), and drawings among other actions.
    sid = draws["session_id"].iloc[0]
    made = pd.DataFrame(
        {
            "session_id": [sid, sid, sid, draws["session_id"].iloc[-1]],
            "p_action_type": ["draw", "message", "draw", "draw"],
            "p_cells": [[[0, 0], [0, 0], [1, 1]], None, [[2, 2]], [[3, 4], [4, 3], [3, 4]]],
        }
    )
    _drawing_scores(corpus, made)
    assert np.isnan(made.at[1, "draw_score"]) and made["draw_cells"].tolist() == [2, 0, 1, 2]
    for row in [*draws.itertuples(), *made[made["p_action_type"] == "draw"].itertuples()]:
        route = corpus.route_mask(row.session_id)
        drawn = np.zeros(route.shape, bool)
        c = np.asarray(row.p_cells)
        drawn[c[:, 0], c[:, 1]] = True
        assert row.draw_score == pytest.approx(distance_weighted_score(drawn, route), rel=1e-12, abs=0)
        assert row.draw_cells == drawn.sum()
        # Summed in thirds: the score is k / 3n rounded once (k: the cells' weights in thirds), so
        # drawings with as many cells at each distance score the same bits whichever cells they are.
        k = round(3 * float(distance_weighted_score(drawn, route)) * drawn.sum())
        assert row.draw_score == float(Fraction(k, 3 * int(drawn.sum())))


def _sample_run(tmp_path, name, corpus, keys, correct):
    rows = []
    for (sid, idx), ok in zip(keys, correct):
        truth = corpus.session(sid).actions[idx].mental_model.team_goal.code
        wrong = "t1" if truth != "t1" else "t2"
        rows.append(
            {
                "session_id": sid,
                "action_index": idx,
                "team_goal": truth if ok else wrong,
                "partner_intent": "p1",
                "self_reasoning": "r1",
                "rationale": "x",
            }
        )
    return read_run_dir(_write_run(tmp_path / name, {"name": name}, mental_model=rows), corpus.sessions, corpus.maps)


def test_mcnemar_on_a_known_two_by_two(tmp_path):
    corpus = load_sample()
    sid = next(s.id for s in corpus.sessions.values() if s.split == "test")
    keys = [(sid, i) for i in range(1, 11)]
    # both right: 2 items; only A right: 1; only B right: 6; both wrong: 1.
    a = [True, True, True, False, False, False, False, False, False, False]
    b = [True, True, False, True, True, True, True, True, True, False]
    ra, rb = _sample_run(tmp_path, "A", corpus, keys, a), _sample_run(tmp_path, "B", corpus, keys, b)
    cmp = compare(corpus, [ra, rb], similarity=False)
    t = cmp.paired("A", "B").to_frame()
    row = t[(t["metric"] == "accuracy") & (t["dimension"] == "team_goal")].iloc[0]
    assert row["value_a"] == pytest.approx(0.3) and row["value_b"] == pytest.approx(0.8)
    assert row["estimate"] == pytest.approx(0.5)
    # Exact McNemar: two-sided binomial on the 7 discordant items, 1 vs 6: 2 * (1 + 7) / 2**7.
    assert row["p_value"] == pytest.approx(2 * 8 / 128)
    assert row["n"] == 10
    assert row["ci_low"] <= 0.5 <= row["ci_high"]


def test_judge_agreement_on_a_known_table():
    j1 = np.array([0, 1, 2, 3, 5, 4])
    j2 = np.array([0, 2, 2, 5, 5, 3])
    got = pair_agreement(j1, j2)
    assert got["exact"].estimate == pytest.approx(3 / 6)  # differences 0 1 0 2 0 1
    assert got["within_1"].estimate == pytest.approx(5 / 6)
    lo, hi = proportion_confint(5, 6, method="wilson")
    assert got["within_1"].interval == pytest.approx((lo, hi))
    # Quadratic-weighted kappa by its definition over the 0-5 scale.
    o = np.zeros((6, 6))
    np.add.at(o, (j1, j2), 1)
    e = np.outer(o.sum(1), o.sum(0)) / o.sum()
    w = (np.subtract.outer(np.arange(6), np.arange(6)) ** 2) / 25
    assert got["weighted_kappa"].estimate == pytest.approx(1 - (w * o).sum() / (w * e).sum())
    scores = pd.DataFrame(
        {
            "session_id": "S",
            "action_index": np.tile(np.arange(6), 2),
            "task": "mental_model",
            "criterion": "rationale",
            "judge": ["qwen"] * 6 + ["gpt"] * 6,
            "score": np.concatenate([j1, j2]),
        }
    )
    table, matrices = judge_agreement(scores, "run")
    m = matrices[("mental_model", "rationale", "gpt", "qwen")]
    assert m.shape == (6, 6) and m.to_numpy().sum() == 6
    assert m.at[5, 3] == 1  # item 3: gpt 5, qwen 3
    alpha = [r for r in table.rows if r["metric"] == "alpha"][0]
    import krippendorff

    assert alpha["estimate"] == pytest.approx(
        krippendorff.alpha(
            np.vstack([j1, j2]).astype(float), level_of_measurement="ordinal", value_domain=list(range(6))
        )
    )


def test_similarity_is_undefined_with_the_reason_or_computed():
    status = text.similarity_status()
    got = text.sbert_similarity(["go left around the lake"], ["go left around the lake"])
    if status is not None:
        assert isinstance(got, Undefined) and "similarity extra" in got.reason
    else:
        assert got[0] == pytest.approx(1.0, abs=1e-5)


def test_sbert_similarity_orders_paraphrase_above_unrelated():
    if text.similarity_status() is not None:
        pytest.skip(f"SBERT similarity unavailable: {text.similarity_status().reason}")
    sims = text.sbert_similarity(
        ["go left around the ruins", "go left around the ruins"], ["turn left past the ruins", "I like cats"]
    )
    assert sims[0] > 0.6 > 0.2 > sims[1]


def test_a_macro_score_resting_on_a_rare_label_warns_that_its_interval_is_an_artefact():
    """One of the people's labels on 1 item of 25: macro recall, macro F1 and kappa say so (the
    bootstrap loses that label in about a third of the resamples, (24/25)^25 = 36 %); accuracy does
    not; a balanced table warns of nothing."""
    from analysis.compare.metrics import category_estimates

    rare = np.array([[12, 0, 0], [1, 10, 1], [0, 0, 1]])  # the people's third label: 1 item
    est = category_estimates(rare)
    for m in ("macro_recall", "macro_f1", "kappa"):
        w = est[m].warnings
        assert w[0] == (
            "1 of the people's labels has fewer than 5 items (1): this score weighs each label alike, so those items move it"
        ), m
        lost = float(w[1].split("%")[0]) / 100
        assert lost == pytest.approx((24 / 25) ** 25, abs=0.05), m
    assert est["accuracy"].warnings == ()
    balanced = np.array([[20, 5], [4, 21]])
    assert all(e.warnings == () for e in category_estimates(balanced).values())


@pytest.mark.parametrize("n", [1, 2, 17, 999, 5_001])
def test_resampled_sums_are_the_whole_resample_s_sums(n, monkeypatch):
    """The bootstrap's sums made a block of resamples at a time, each resample counted, are the
    sums the whole n_boot x n index matrix gives, item by item, whatever the block (here 4,000
    indices: one resample a block at 5,001 items, several below): to rounding, and exactly where the
    sums are whole numbers; two arrays alike get sums alike, bit for bit."""
    from analysis import draws
    from analysis.compare import metrics

    monkeypatch.setattr(draws, "RESAMPLE_BLOCK", 4_000)
    rng = np.random.default_rng(n)
    scores, weights = rng.random(n), rng.integers(1, 30, n).astype(float)
    idx = metrics.resample_items(n, 300, 7)
    got = metrics.resampled_sums([scores * weights, weights, np.ones(n), scores * weights], 300, 7)
    np.testing.assert_allclose(got[0], (scores * weights)[idx].sum(axis=1), rtol=1e-12, atol=0)
    assert np.array_equal(got[1], weights[idx].sum(axis=1))  # (whole numbers: exact in any order)
    assert np.array_equal(got[2], np.full(300, float(n)))  # (the unweighted shortcut)
    assert np.array_equal(got[0], got[3])


def test_the_resample_counts_are_kept_for_the_next_arrays_of_as_many_items(monkeypatch):
    """The counts of the resamples of n items depend on n, n_boot and the seed alone: the next
    arrays of n items (another run scored on the same items) are weighed by the kept counts, with
    the sums drawing afresh gives, bit for bit; two threads asking at once make them once; the
    oldest go past the budget, and counts too many to keep are drawn a block at a time as before."""
    import threading

    from analysis import draws
    from analysis.compare import metrics

    made: list[int] = []
    counts = draws._counts

    def counted(n, n_boot, seed):
        made.append(n)
        return counts(n, n_boot, seed)

    kept = draws.ResampleCounts(budget=1_100_000)  # (3,000 + 2,000 items x 200 resamples fit, not 1,000 more)
    monkeypatch.setattr(draws, "RESAMPLE_COUNTS", kept)
    monkeypatch.setattr(draws, "_counts", counted)
    rng = np.random.default_rng(5)
    runs = [[rng.random(3_000), rng.integers(1, 9, 3_000).astype(float)] for _ in range(3)]
    sums = [metrics.resampled_sums(run, 200, 7) for run in runs]
    assert made == [3_000]
    with monkeypatch.context() as m:
        m.setattr(draws, "RESAMPLE_COUNTS", draws.ResampleCounts(0))  # (nothing kept: drawn a block at a time)
        for run, got in zip(runs, sums):
            drawn = metrics.resampled_sums(run, 200, 7)
            assert all(np.array_equal(a, b) for a, b in zip(got, drawn))
    assert made == [3_000]
    barrier = threading.Barrier(4)

    def ask(n: int) -> None:
        barrier.wait()
        metrics.resampled_sums([np.ones(n)], 200, 7)

    threads = [threading.Thread(target=ask, args=(n,)) for n in (2_000, 2_000, 2_000, 2_000)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert made == [3_000, 2_000]
    metrics.resampled_sums([np.ones(1_000)], 200, 7)
    assert list(kept.kept) == [(2_000, 200, 7), (1_000, 200, 7)]  # (3,000 items' counts went: over budget)


@pytest.mark.parametrize("n", [1, 2, 17, 5_001, 2**31 - 1, 2**31, 2**40])
def test_resamples_are_the_generator_s_64_bit_integers(n):
    """The resample indices, drawn as 32-bit integers where they fit, are the numbers the
    generator's default (64-bit) draw gives with the same seed."""
    from analysis.compare import metrics
    from analysis.draws import indices

    want = np.random.default_rng(7).integers(0, n, size=(40, 50))
    assert np.array_equal(indices(np.random.default_rng(7), n, (40, 50)), want)
    if n < 10_000:
        assert np.array_equal(metrics.resample_items(n, 40, 7), np.random.default_rng(7).integers(0, n, size=(40, n)))


def test_bootstrap_sums_draw_items_one_by_one_unless_few_rows_are_distinct():
    from analysis.compare import metrics

    rng = np.random.default_rng(11)
    scores, weights = rng.random(5_001), rng.integers(1, 30, 5_001).astype(float)
    many = [scores * weights, weights]
    for got, want in zip(metrics.bootstrap_sums(many, 300, 7), metrics.resampled_sums(many, 300, 7)):
        assert np.array_equal(got, want)
    few = [np.repeat([1.0, 2.0, 3.0], [4, 4, 1])]  # (9 items: fewer than 10 per distinct row's worth)
    assert np.array_equal(metrics.bootstrap_sums(few, 50, 3)[0], metrics.resampled_sums(few, 50, 3)[0])


def test_bootstrap_sums_of_few_distinct_rows_are_the_item_bootstrap_s_distribution():
    """Drawings as the paper scores them: a handful of cell counts and scores in thirds, so few
    distinct (score x cells, cells) rows. Their resampled sums count n items in every resample, and
    the ratio's percentile interval is scipy's bootstrap's (item by item) up to resampling noise."""
    from scipy.stats import bootstrap

    from analysis.compare import metrics

    rng = np.random.default_rng(4)
    n = 3_000
    cells = rng.integers(1, 7, n).astype(float)
    weighted = np.floor(rng.random(n) * (3 * cells + 1)) / 3  # (sum of cell weights in {0, 1/3, 2/3, 1})
    rows = np.unique(np.column_stack([weighted, cells]), axis=0)
    assert len(rows) * metrics.GROUPED_SHARE <= n  # (the grouped draw is the one tested)
    b = 20_000
    s_w, s_c, s_n = metrics.bootstrap_sums([weighted, cells, np.ones(n)], b, 0)
    assert np.array_equal(s_n, np.full(b, float(n)))
    assert [a.tolist() for a in metrics.bootstrap_sums([weighted, cells, np.ones(n)], b, 0)] == [
        s_w.tolist(),
        s_c.tolist(),
        s_n.tolist(),
    ]
    # Each sum's mean and spread are n times the items' (population) mean and variance.
    for got, v in ((s_w, weighted), (s_c, cells)):
        assert got.mean() == pytest.approx(n * v.mean(), abs=4 * np.sqrt(n * v.var() / b))
        assert got.std() == pytest.approx(np.sqrt(n * v.var()), rel=0.03)
    ours = np.quantile(s_w / s_c, [0.025, 0.975])
    ref = bootstrap(
        (weighted, cells),
        lambda w, c, axis: w.sum(axis=axis) / c.sum(axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=b,
        method="percentile",
        random_state=1,
    ).confidence_interval
    width = ref.high - ref.low
    assert ours[0] == pytest.approx(ref.low, abs=0.05 * width)
    assert ours[1] == pytest.approx(ref.high, abs=0.05 * width)


def test_distinct_rows_are_numpy_s_unique_rows_with_their_counts():
    from analysis.compare.metrics import _distinct_rows

    rng = np.random.default_rng(8)
    for m in (1, 2, 4):
        table = rng.integers(0, 4, (2_000, m)) / 3 - rng.integers(0, 2, (2_000, m)) * 1e-9
        want, counts = np.unique(table, axis=0, return_counts=True)
        got = _distinct_rows([table[:, j] for j in range(m)], 2_000)
        assert got is not None
        order = np.lexsort(got[0].T[::-1])  # (numpy's order: by the first column, then the next)
        assert np.array_equal(got[0][order], want) and np.array_equal(got[1][order], counts)
        assert _distinct_rows([table[:, j] for j in range(m)], len(want) - 1) is None
    assert _distinct_rows([np.array([1.0, np.nan, 1.0])], 3) is None


def test_scores_and_paired_tests_made_on_threads_are_those_made_one_at_a_time(monkeypatch):
    from corpus.server import processes

    corpus = load_sample()
    made = {}
    for n in (1, 3):
        monkeypatch.setattr(processes, "processors", lambda n=n: n)
        cmp = compare(corpus, tuple(corpus.predictions.values()), similarity=False)
        boards = [cmp.leaderboard(task, "accuracy").cells for task in ("next_action", "mental_model")]
        paired = {k: v.to_frame() for k, v in cmp._memo.values.items() if k[0] == "paired"}
        made[n] = (cmp.score_frame, boards, paired)
    (s1, b1, p1), (s3, b3, p3) = made[1], made[3]
    pd.testing.assert_frame_equal(s1, s3)
    for a, b in zip(b1, b3):
        pd.testing.assert_frame_equal(a, b)
    assert p1.keys() == p3.keys() and len(p1) >= 4
    for k in p1:
        pd.testing.assert_frame_equal(p1[k], p3[k])
    assert len(s1) > 100


def test_the_leaderboard_s_scores_leave_out_the_margins_and_the_whole_table_is_the_same_after():
    """The leaderboard shows scores per condition and role only: its table has no score over all
    conditions or roles, each of its rows is the whole table's, and the whole table made after it
    (reusing its drawing bootstraps) is the one a fresh comparison makes."""
    from analysis.compare.comparison import compare
    from corpus.loading.dataset import load_sample

    corpus = load_sample()
    runs = [r for r in corpus.predictions.values() if r.ok]
    cmp, fresh = compare(corpus, runs, similarity=False), compare(corpus, runs, similarity=False)
    key = lambda r: tuple(str(r[k]) for k in ("run", "task", "metric", "dimension", "condition", "role"))  # noqa: E731
    for task in ("next_action", "mental_model"):
        cells = cmp.task_scores(task, margins=False)
        assert cells.rows and all(r["condition"] != "all" and r["role"] != "all" for r in cells.rows)
        whole = {key(r): str(r) for r in cmp.task_scores(task).rows}
        assert len(whole) > len(cells.rows)
        assert all(whole[key(r)] == str(r) for r in cells.rows)
        assert [str(r) for r in cmp.task_scores(task).rows] == [str(r) for r in fresh.task_scores(task).rows]
