"""Alignment over task progress and by grounding act, the progress measures, filters and label
sources, on hand-made data with known answers."""

from __future__ import annotations

import math
import shutil

import numpy as np
import pandas as pd
import pytest
from helpers import mm, tiny_map, tiny_session, write_tiny

from analysis.alignment import act_shares, alignment_by_act, grounded_indicators, progress_curves
from analysis.drilldown import actions_behind, replay_link
from analysis.filters import Filters
from analysis.label_sources import (
    act_labels,
    act_sources,
    default_act_source,
    mental_model_labels,
    source_sizes,
    with_mental_models,
)
from analysis.progress import COLUMNS, assign_bins, default_progress, progress_table
from analysis.results import wilson
from corpus.loading.dataset import load_dir, load_sample
from corpus.loading.write import write_dataset
from corpus.model import DatasetInfo


def wilson_by_hand(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval written out (Wilson 1927)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_a_proportion_and_its_wilson_interval():
    est = wilson(3, 10)
    assert est.estimate == 0.3 and est.n == 10
    lo, hi = wilson_by_hand(3, 10)
    assert (est.low, est.high) == (pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
    assert (round(est.low, 4), round(est.high, 4)) == (0.1078, 0.6032)  # the textbook value for 3 of 10
    assert est.interval_method == "Wilson score interval" and est.package == "statsmodels"
    assert not wilson(0, 0).defined


def curve_frame() -> pd.DataFrame:
    """10 visible actions in the first half of progress, 3 of them grounded; 4 not-visible ones in the
    second half, all grounded."""
    rows = [
        {
            "session_id": "a",
            "condition": "visible",
            "role": "guide",
            "index": i,
            "p": 0.05 * i,
            "team_goal": "t3" if i < 3 else "t2",
            "partner_intent": "p1",
            "self_reasoning": "r1",
            "aligned": i % 2 == 0,
        }
        for i in range(10)
    ]
    rows += [
        {
            "session_id": "b",
            "condition": "not_visible",
            "role": "follower",
            "index": i,
            "p": 0.6 + 0.1 * i,
            "team_goal": "t3",
            "partner_intent": None,
            "self_reasoning": "r2",
            "aligned": None,
        }
        for i in range(4)
    ]
    return pd.DataFrame(rows)


def test_progress_curves_count_share_and_wilson_interval_per_bin():
    curves = progress_curves(curve_frame(), "p", bins=2)
    tg = curves[curves["measure"] == "team_goal"].set_index(["condition", "bin"])
    row = tg.loc[("visible", 0)]
    assert (row["k"], row["n"], row["share"]) == (3, 10, 0.3)
    assert (row["ci_low"], row["ci_high"]) == (
        pytest.approx(wilson_by_hand(3, 10)[0]),
        pytest.approx(wilson_by_hand(3, 10)[1]),
    )
    assert (row["progress"], row["bin_low"], row["bin_high"]) == (0.25, 0.0, 0.5)
    assert tg.loc[("not_visible", 1), "share"] == 1.0 and tg.loc[("not_visible", 1), "n"] == 4
    # Unlabelled actions are not counted: partner intent and alignment exist only in session a.
    pi = curves[curves["measure"] == "partner_intent"]
    assert list(pi["condition"]) == ["visible"]
    al = curves[curves["measure"] == "aligned"].iloc[0]
    assert (al["k"], al["n"]) == (5, 10)
    sr = curves[curves["measure"] == "self_reasoning"].set_index("condition")
    assert sr.loc["not_visible", "share"] == 0.0


def test_progress_bins_are_closed_on_the_right_and_nan_is_left_out():
    assert assign_bins(np.array([0.0, 0.2, 0.2001, 0.5, 1.0, np.nan]), 5).tolist() == [0, 0, 1, 2, 4, -1]


def test_grounded_indicators_keep_missing_labels_missing():
    ind = grounded_indicators(curve_frame())
    assert ind["partner_intent"].isna().sum() == 4 and ind["aligned"].isna().sum() == 4
    assert ind["team_goal"].sum() == 7


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return load_dir(write_tiny(tmp_path_factory.mktemp("tiny") / "ds"))


def test_three_progress_measures_on_a_known_session(tiny):
    pt = progress_table(tiny).set_index(["session_id", "index"]).loc["s1"]
    # Route of 6 cells: the first stroke draws 3 of them, nothing later adds or removes route cells.
    assert pt["progress_coverage"].tolist() == [0.0, 0.5, 0.5, 0.5, 0.5, 0.5]
    assert pt["progress_index"].tolist() == pytest.approx([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert pt["progress_time"].tolist() == pytest.approx(
        [0, 5 / 60, 9 / 60, 12 / 60, 15 / 60, 20 / 60]
    )  # duration 60 s
    assert default_progress(tiny) == "coverage"


def _progress_by_session(corpus) -> pd.DataFrame:
    """The four measures as defined, one session at a time from its actions (the reference)."""
    from corpus.metrics import coverage_curve

    rows = []
    for sid, s in corpus.sessions.items():
        n = len(s.actions)
        if n == 0:
            continue
        position = np.arange(n) / (n - 1) if n > 1 else np.ones(1)
        stamps = np.array([a.timestamp for a in s.actions], dtype=float)
        duration = max(float(s.duration_s or 0.0), float(stamps.max()))
        route = len(corpus.map_of(sid).route) > 0
        coverage = coverage_curve(corpus.history(sid), corpus.route_mask(sid)) if route else np.full(n, np.nan)
        time = np.clip(stamps / duration, 0.0, 1.0) if duration > 0 else position
        logged = [a.route_pixel_ratio for a in s.actions]
        largest = max((v for v in logged if v is not None), default=0.0)
        carried = pd.Series(logged, dtype=float).ffill().fillna(0.0).to_numpy()
        pixels = carried / largest if largest > 0 else np.full(n, np.nan)
        for k, a in enumerate(s.actions):
            rows.append((sid, a.index, float(coverage[k]), float(position[k]), float(time[k]), float(pixels[k])))
    return pd.DataFrame(rows, columns=["session_id", "index", *COLUMNS.values()])


def test_the_progress_table_is_each_sessions_measures_in_the_action_tables_order(tmp_path):
    """Read from the action table's columns at once, the measures are those of each session taken
    alone: sessions of one action, of no duration, whose last move outlasts the stated duration and
    on a map without a route included; and on the sample."""
    from corpus.model import Action, GridMap

    def moves(stamps):
        return [
            Action(index=i, timestamp=t, role="guide", type="message", content="go on", mental_model=mm())
            for i, t in enumerate(stamps)
        ]

    plain = tiny_map("m2").model_dump()
    plain.update(route=[])
    sessions = [
        tiny_session("a1"),
        tiny_session("a2", map_id="m2"),
        tiny_session("a3").model_copy(update={"actions": moves([3.0])}),
        tiny_session("a5").model_copy(update={"actions": moves([0.0, 0.0, 0.0]), "duration_s": 0.0}),
        tiny_session("a6").model_copy(update={"actions": moves([1.0, 2.0, 90.0])}),
    ]
    info = DatasetInfo(name="edges", synthetic=True)
    corpus = load_dir(write_dataset(tmp_path / "ds", info, [tiny_map(), GridMap(**plain)], sessions))
    for c in (corpus, load_sample()):
        got, want = progress_table(c), _progress_by_session(c)
        assert got["session_id"].astype(str).tolist() == c.actions_df["session_id"].astype(str).tolist()
        pd.testing.assert_frame_equal(got.assign(session_id=got["session_id"].astype(str)), want, check_exact=True)
    pt = progress_table(corpus).set_index(["session_id", "index"])
    assert pt.loc["a3", "progress_index"].tolist() == [1.0]
    assert pt.loc["a5", "progress_time"].tolist() == [0.0, 0.5, 1.0]  # no duration: the position
    assert pt.loc["a6", "progress_time"].tolist() == [1 / 90, 2 / 90, 1.0]  # the last move outlasts 60 s
    assert pt.loc["a2", "progress_coverage"].isna().all()


def test_filters_select_rows_and_say_what_they_selected(tiny):
    df = tiny.actions_df
    f = Filters(roles=("guide",), conditions=("visible",))
    got = f.apply(df)
    assert set(got["role"]) == {"guide"} and set(got["session_id"]) == {"s1"}
    assert len(f.apply(df, roles=False)) == 6
    assert f.describe() == "role guide; condition visible; every split; all sessions"
    assert Filters().describe(roles=False).startswith("both roles (the role filter does not apply); both conditions")
    assert Filters(sessions=("s2",)).key() == ((), (), (), ("s2",))


def test_grounding_act_sources_and_labels(tiny):
    gold = pd.DataFrame(
        {
            "task_id": [7],
            "task": ["pilot"],
            "scheme": ["grounding_acts"],
            "session_id": ["s2"],
            "action_index": [3],
            "item_id": ["s2:3"],
            "code": ["repair"],
            "provenance": ["adjudicated"],
        }
    )
    sources = act_sources(tiny, gold)
    assert list(sources) == ["gold:7", "majority", "coder:a", "coder:b"]
    # The default is the source labelling the most actions: one gold item does not take over.
    sizes = source_sizes(tiny, gold)
    assert sizes["gold:7"] == 1 and sizes["majority"] == 1
    assert default_act_source(sources, sizes) == "majority"
    assert default_act_source(sources, {**sizes, "majority": 40, "coder:a": 50}) == "majority"  # pooled first
    assert default_act_source({"coder:a": "", "coder:b": ""}, {"coder:a": 3, "coder:b": 5}) == "coder:b"
    # Gold a lead marked as the dataset's reference is the default once it covers the minimum.
    assert default_act_source(sources, sizes, reference="gold:7", minimum=1) == "gold:7"
    assert default_act_source(sources, sizes, reference="gold:7", minimum=30) == "majority"
    # Gold that labels more actions than the majority (a full round) is the default; at equal size the
    # people's majority is.
    assert default_act_source(sources, {"gold:7": 60, "majority": 50}) == "gold:7"
    assert default_act_source(sources, {"gold:7": 5, "majority": 5, "coder:a": 5}) == "majority"
    g = act_labels(tiny, "gold:7", gold)
    assert g.frame.to_dict("records") == [{"session_id": "s2", "action_index": 3, "code": "repair"}]
    assert "1 adjudicated" in g.description
    m = act_labels(tiny, "majority")
    assert m.frame.to_dict("records") == [{"session_id": "s1", "action_index": 0, "code": "initiate"}]
    with pytest.raises(KeyError):
        act_labels(tiny, "coder:nobody")


def test_a_model_runs_mental_models_replace_the_participants(tiny):
    from corpus.predictions import read_run_dir

    folder = tiny.root / "predictions" / "run1"
    folder.mkdir(parents=True)
    (folder / "model.json").write_text('{"name": "Run one"}')
    (folder / "mental_model.jsonl").write_text(
        '{"session_id": "s1", "action_index": 2, "role": "follower", '
        '"team_goal": "t1", "partner_intent": "p3", "self_reasoning": "r2"}\n'
    )
    tiny.predictions["run1"] = read_run_dir(folder, tiny.sessions, tiny.maps)
    assert tiny.predictions["run1"].ok
    try:
        labels = mental_model_labels(tiny, "run:run1")
        df = with_mental_models(tiny.actions_df, labels)
        assert len(df) == 1 and df.iloc[0][["team_goal", "partner_intent", "self_reasoning"]].tolist() == [
            "t1",
            "p3",
            "r2",
        ]
        assert df.iloc[0]["aligned"] is None  # a model run does not predict alignment
        assert "does not predict perceived alignment" in labels.description
    finally:
        del tiny.predictions["run1"]
        shutil.rmtree(folder)


def test_act_shares_and_alignment_within_acts():
    acts = curve_frame()
    labels = pd.DataFrame(
        {
            "session_id": ["a", "a", "a", "b"],
            "action_index": [0, 1, 3, 0],
            "code": ["initiate", "acknowledge", "acknowledge", "acknowledge"],
        }
    )
    shares = act_shares(labels, acts).set_index(["condition", "code"])
    assert shares.loc[("visible", "acknowledge"), ["n", "total"]].tolist() == [2, 3]
    assert shares.loc[("visible", "acknowledge"), "share"] == pytest.approx(2 / 3)
    assert shares.loc[("not_visible", "acknowledge"), "share"] == 1.0
    # An act no action of a condition has is a cell of 0 with its total (Fig. 3's data keeps it).
    assert shares.loc[("not_visible", "initiate"), ["n", "total", "share"]].tolist() == [0, 1, 0.0]
    assert len(shares) == 4
    by_act = alignment_by_act(labels, acts).set_index(["condition", "code"])
    # Session b has no partner-intent labels: it drops out.
    assert list(by_act.index) == [("visible", "acknowledge"), ("visible", "initiate")]
    assert by_act.loc[("visible", "acknowledge"), ["k", "n"]].tolist() == [2, 2]


def test_the_actions_behind_a_point_link_to_replay(tiny):
    rows = tiny.actions_df[tiny.actions_df["session_id"] == "s1"].iloc[[3, 1]]
    out = actions_behind(tiny, rows, {"team_goal": "team goal"})
    assert out["action no."].tolist() == [2, 4]  # session order, numbered from 1 as Replay numbers them
    assert out.iloc[1][["replay", "time", "role", "type", "action", "team goal"]].tolist() == [
        "replay?session=s1&step=3",
        "0:12",
        "guide",
        "message",
        "no, go right of the lake",
        "t4",
    ]
    assert out.iloc[0]["action"] == "drew 3 cells"
    assert replay_link("S 1&x", 2) == "replay?session=S+1%26x&step=2"


def test_counts_by_bin_are_the_grouped_counts_by_name_and_bin():
    """Counted with integer codes, the same table (values and types) as grouping by the group's name
    and the bin: categorical groups with an unused category and a missing value, text groups, 0/1
    floats with NaN and whole numbers."""
    from analysis.progress import counts_by_bin

    rng = np.random.default_rng(4)
    n = 5000
    names = np.array(["visible", "not_visible", "a third"], dtype=object)[rng.integers(0, 3, n)]
    names[rng.random(n) < 0.01] = None
    bins = rng.integers(-1, 6, n)
    for groups in (
        pd.Series(pd.Categorical(names, categories=["visible", "unused", "not_visible", "a third"])),
        pd.Series(names, dtype="str"),
    ):
        for y in (rng.integers(0, 2, n).astype(float), rng.integers(0, 2, n)):
            if y.dtype.kind == "f":
                y[rng.random(n) < 0.1] = np.nan
            ok = (bins >= 0) & ~np.isnan(y.astype(float))
            want = (
                pd.DataFrame({"condition": groups.astype(str).to_numpy()[ok], "bin": bins[ok], "y": y[ok]})
                .groupby(["condition", "bin"])["y"]
                .agg(k="sum", n="count")
                .reset_index()
            )
            pd.testing.assert_frame_equal(counts_by_bin(groups, bins, y, ok, 6), want, check_exact=True)


def test_a_bar_on_few_actions_is_hollow_and_never_the_highest():
    """Fig. 4 left: an act on 1 action (100 %) is drawn as an outline and is not the highest; one on
    10 actions is filled and is."""
    from analysis.results import highest
    from components.act_charts import alignment_by_act_figure

    by_act = pd.DataFrame(
        {
            "condition": ["visible", "visible"],
            "code": ["request_repair", "acknowledge"],
            "k": [1, 8],
            "n": [1, 10],
            "share_aligned": [1.0, 0.8],
            "ci_low": [0.21, 0.49],
            "ci_high": [1.0, 0.94],
        }
    )
    assert highest(by_act.set_index("code"), "share_aligned") == "acknowledge"
    [bar] = [t for t in alignment_by_act_figure(by_act).data if t.type == "bar"]
    fills = dict(zip(bar.x, bar.marker.color))
    widths = dict(zip(bar.x, bar.marker.line.width))
    assert fills["Req. repair"] == "rgba(0,0,0,0)" and widths["Req. repair"] == 1.5
    assert fills["Acknowledge"] != "rgba(0,0,0,0)" and widths["Acknowledge"] == 0
