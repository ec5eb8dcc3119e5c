"""Alignment over task progress and by grounding act."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from analysis.alignment import act_shares, alignment_by_act, progress_curves, progress_model


def actions_frame():
    # two sessions x 4 actions; visible aligned late, not_visible never grounded at the start
    rows = []
    for sid, cond in (("a", "visible"), ("b", "not_visible")):
        for i in range(4):
            late = i >= 2
            rows.append({
                "session_id": sid, "condition": cond, "role": "guide" if i % 2 == 0 else "follower", "type": "message",
                "index": i, "progress": i / 3,
                "team_goal": "t3" if (late or cond == "visible") else "t2",
                "partner_intent": "p1" if late else "p3",
                "self_reasoning": "r1" if late else "r4",
                "aligned": bool(late),
            })
    return pd.DataFrame(rows)


def test_progress_curves_shares_and_counts():
    curves = progress_curves(actions_frame(), bins=2)
    tg = curves[curves["measure"] == "team_goal"].set_index(["condition", "progress"])
    assert tg.loc[("visible", 0.25), "share"] == 1.0
    assert tg.loc[("not_visible", 0.25), "share"] == 0.0
    assert tg.loc[("not_visible", 0.75), "share"] == 1.0
    assert (tg["n"] == 2).all()
    al = curves[curves["measure"] == "aligned"].set_index(["condition", "progress"])
    assert al.loc[("visible", 0.75), "share"] == 1.0
    # Wilson interval for 0 of 2
    from statsmodels.stats.proportion import proportion_confint

    lo, hi = proportion_confint(0, 2, method="wilson")
    assert al.loc[("visible", 0.25), "ci_high"] == pytest.approx(hi)


def test_progress_curves_by_role():
    curves = progress_curves(actions_frame(), bins=2, role="guide")
    assert curves.groupby(["measure"])["n"].sum().eq(4).all()


def test_progress_model_recovers_a_rising_trend():
    rng = np.random.default_rng(0)
    rows = []
    for s in range(30):
        cond = "visible" if s % 2 else "not_visible"
        for i in range(60):
            p = i / 59
            logit = -1.0 + 2.5 * p + (0.7 if cond == "visible" else 0.0)
            rows.append({"session_id": f"s{s}", "condition": cond, "progress": p, "team_goal": "t3", "partner_intent": "p1",
                         "self_reasoning": "r1", "aligned": bool(rng.random() < 1 / (1 + np.exp(-logit)))})
    fit = progress_model(pd.DataFrame(rows))
    assert fit.n == 1800 and fit.n_sessions == 30
    assert fit.term("progress")["coef"] == pytest.approx(2.5, abs=0.6)
    assert fit.term("progress")["p"] < 0.001
    assert fit.term("visible")["coef"] > 0


def test_progress_model_says_why_it_cannot_fit():
    assert progress_model(actions_frame()).startswith("undefined, because only 8 annotated actions")


def test_act_shares_and_alignment_by_act():
    acts = actions_frame()
    labels = pd.DataFrame({"session_id": ["a", "a", "b", "b"], "action_index": [0, 3, 0, 3],
                           "code": ["initiate", "acknowledge", "initiate", "acknowledge"]})
    shares = act_shares(labels, acts)
    assert shares.groupby("condition")["share"].sum().eq(1.0).all()
    by_act = alignment_by_act(labels, acts).set_index(["condition", "code"])
    assert by_act.loc[("visible", "acknowledge"), "share_aligned"] == 1.0
    assert by_act.loc[("visible", "initiate"), "share_aligned"] == 0.0
