"""The TGCO audit (analysis.kitchen.tgco) and the kitchen run metrics (analysis.kitchen.metrics) on
hand-made traces, one per outcome and per edge of the decision rule, and on the real
Collab-Overcooked run."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from analysis.format import fmt, fmt_interval
from analysis.kitchen.metrics import (
    groups,
    interdependence,
    kitchen_metrics,
    mean_over_runs,
    metric_table,
    outcome_composition,
    run_metrics,
    runs_frame,
)
from analysis.kitchen.requests import OpAction, agent_of, normalize_arg, parse_collab, parse_op_action
from analysis.kitchen.tgco import (
    ASSISTED,
    EFFECTIVE,
    FIXED_WINDOW,
    INEFFECTIVE,
    LEVEL_WINDOW,
    REDUNDANT,
    Window,
    audit_run,
    audit_runs,
    kitchen_places,
    level_lengths,
    messages,
    recipe_ingredients,
    task_objects,
)
from corpus.kitchen.run import ASSISTANT, CHEF, Completed, Correction, KitchenRun, KitchenStep, Turn
from corpus.values import Undefined
from tests.real_data import REAL, absent

# The kitchen of the real run's first step: pot0 and oven0 on the Chef's side, the dispensers,
# chopping_board0 and blender0 on the Assistant's, counters between.
GRID = (
    "X       X       X       P       X       \n\n"
    "I               X       \u21910      X       \n\n"
    "C       \u21911      X               X       \n\n"
    "D               X               O       \n\n"
    "X       B       X       S       X       \n\n"
)
PICKUP = "pickup(bell_pepper, ingredient_dispenser)"
W5 = Window("fixed", steps=5)


def say(step: int, agent: int, text: str) -> Turn:
    return Turn(step=step, agent=agent, conversation=step, initiator=agent, say=text, action=text)


def done(step: int, agent: int, action: str) -> Completed:
    return Completed(step=step, agent=agent, action=action)


def kitchen(
    turns=(),
    completed=(),
    corrections=(),
    *,
    n_steps: int = 30,
    run_id: str = "r",
    recipe: str = "baked_bell_pepper",
    level: int | None = 1,
    models: tuple[str, ...] = ("gpt-4o", "claude"),
    tokens: int = 0,
    success: bool = True,
    score: float = 20.0,
) -> KitchenRun:
    return KitchenRun(
        id=run_id,
        source=f"{run_id}.json",
        recipe=recipe,
        level=level,
        models=models,
        scaffold="baseline",
        score=score,
        success=success,
        finished=(recipe,) if success else (),
        steps=tuple(KitchenStep(i, GRID, ("wait(1)", "wait(1)")) for i in range(n_steps)),
        turns=tuple(turns),
        completed=tuple(completed),
        corrections=tuple(corrections),
        tokens=tokens,
    )


def ask(step: int, action: str = PICKUP, receiver: str = "Assistant", sender: int = CHEF) -> Turn:
    return say(step, sender, f"Collab(request({receiver}, {action}))")


def only(run: KitchenRun, window: Window = W5):
    audit = audit_run(run, window)
    assert len(audit.units) == 1
    return audit.units[0]


# -- parsing -------------------------------------------------------------------------------------


def test_one_request_unit_with_its_object_action_and_target():
    run = kitchen([ask(2)])
    (msg,) = messages(run)
    (unit,) = msg.units
    assert unit.target == ASSISTANT and unit.sender == CHEF and unit.step == 2
    assert unit.action == OpAction("pickup", ("bell_pepper", "ingredient_dispenser"))
    assert unit.id == ("r", 0, 0)
    assert msg.structured and msg.primitives == ("request",)


def test_several_request_units_in_one_message_each_with_its_id():
    text = f"Collab(request(Assistant, {PICKUP});request(Assistant,place_obj_on_counter()))"
    run = kitchen([say(0, ASSISTANT, "Collab(ack(Chef))"), say(1, CHEF, text)])
    units = [u for m in messages(run) for u in m.units]
    assert [u.id for u in units] == [("r", 1, 0), ("r", 1, 1)]
    assert [u.action for u in units] == [
        OpAction("pickup", ("bell_pepper", "ingredient_dispenser")),
        OpAction("place_obj_on_counter"),
    ]
    assert {u.step for u in units} == {1}


def test_spacing_case_and_the_source_fence_do_not_matter():
    text = "Action: Collab( request( Assistant ,  pickup( Bell Pepper ,INGREDIENT_dispenser ) ) )\n```"
    (prim,) = parse_collab(text)
    assert prim.name == "request"
    (msg,) = messages(kitchen([say(0, CHEF, text)]))
    assert msg.units[0].action == OpAction("pickup", ("bell_pepper", "ingredient_dispenser"))
    assert parse_op_action("pickup( Bell_Pepper , ingredient_dispenser )") == parse_op_action(PICKUP)
    assert normalize_arg(' "Bell   Pepper" ') == "bell_pepper"


def test_escaped_quotes_and_parentheses_inside_text_do_not_split():
    text = r"Collab(seek(Chef, \"What now (after the oven)? I'll wait; ok\"))"
    (prim,) = parse_collab(text)
    assert prim.name == "seek" and prim.args[0] == "Chef"
    assert parse_collab('Collab(ack(Chef, "done; next (1)"))')[0].args == ("Chef", '"done; next (1)"')
    assert parse_collab(r'Collab(ack(Chef, "he said \"go\"; fine"))')[0].name == "ack"
    (msg,) = messages(kitchen([say(3, ASSISTANT, text)]))
    assert msg.structured and msg.units == () and msg.primitives == ("seek",)


def test_nested_parentheses_and_a_quoted_op_action():
    assert parse_op_action("put_obj_in_utensil(oven(0))") == OpAction("put_obj_in_utensil", ("oven(0)",))
    assert parse_op_action("fill_dish_with_food( pot( 0 , 1 ) )") == OpAction("fill_dish_with_food", ("pot(0,1)",))
    (prim,) = parse_collab('Collab(request(Assistant, "pickup(bell_pepper, counter)"))')
    assert prim.args == ("Assistant", '"pickup(bell_pepper, counter)"')
    (msg,) = messages(kitchen([say(0, CHEF, 'Collab(request(Assistant, "pickup(bell_pepper, counter)"))')]))
    assert msg.units[0].action == OpAction("pickup", ("bell_pepper", "counter"))


def test_what_is_not_a_collab_message():
    assert parse_collab("Please grab the pepper") is None
    assert parse_collab("Collab(request(Assistant, pickup(bell_pepper, counter))") is None  # unbalanced
    assert parse_collab('Collab(seek(Chef, "never closed))') is None
    assert parse_collab("pickup(bell_pepper, counter)") is None
    assert parse_op_action("pickup bell pepper") is None
    assert parse_op_action("pickup(onion, )") is None
    assert agent_of("assistant") == 1 and agent_of(" CHEF ") == 0 and agent_of("player_1") == 1
    assert agent_of("Bob") is None


def test_unstructured_messages_are_set_apart():
    run = kitchen(
        [
            say(0, CHEF, "Let me know when the bell pepper is ready"),  # free text that asks for no action
            say(1, CHEF, "Collab(tell(Assistant, pickup(bell_pepper, ingredient_dispenser)))"),  # unknown primitive
            say(2, CHEF, "Collab(request(Assistant, pickup(bell_pepper, ingredient_dispenser))"),  # unbalanced
            Turn(step=3, agent=ASSISTANT, conversation=3, initiator=ASSISTANT, say="", action="wait(1)"),
            Turn(step=3, agent=CHEF, conversation=3, initiator=ASSISTANT, say="[NOTHING]", action="wait(1)"),
        ],
        [done(4, ASSISTANT, PICKUP)],
    )
    audit = audit_run(run, W5)
    assert len(audit.messages) == 3 and len(audit.unstructured) == 3
    assert audit.units == () and audit.n_requests == 0
    assert isinstance(audit.follow_rate, Undefined) and "no request unit" in audit.follow_rate.reason


def test_unstructured_messages_stay_out_of_the_follow_rate():
    run = kitchen([say(0, CHEF, "hurry up please"), ask(1)], [done(3, ASSISTANT, PICKUP)])
    audit = audit_run(run, W5)
    assert audit.counts == {EFFECTIVE: 1, ASSISTED: 0, REDUNDANT: 0, INEFFECTIVE: 0}
    assert len(audit.unstructured) == 1 and audit.follow_rate == 1.0


def test_seek_deny_ack_are_messages_not_requests():
    run = kitchen(
        [
            say(0, ASSISTANT, 'Collab(seek(Chef, "What next?"))'),
            say(0, CHEF, 'Collab(deny(Assistant, "I cannot reach the oven"))'),
            say(0, ASSISTANT, "Collab(ack(Chef))"),
            say(1, CHEF, f'Collab(ack(Assistant, "ok"); request(Assistant, {PICKUP}))'),  # mixed: one unit
        ]
    )
    audit = audit_run(run, W5)
    assert [audit.primitive_count(p) for p in ("request", "seek", "deny", "ack")] == [1, 1, 1, 2]
    assert len(audit.units) == 1 and audit.units[0].unit.id == ("r", 3, 0)


# -- the decision rule, one outcome at a time -------------------------------------------------------


def test_effective():
    u = only(kitchen([ask(2)], [done(5, ASSISTANT, "pickup(Bell_Pepper,ingredient_dispenser)")]))
    assert (u.outcome, u.matched_step, u.stage) == (EFFECTIVE, 5, "validator")
    assert (
        u.reason == "Assistant completed pickup(bell_pepper, ingredient_dispenser) at step 5, 3 steps after the request"
    )


def test_assisted_when_a_validator_correction_of_the_partner_comes_before_the_match():
    u = only(kitchen([ask(2)], [done(5, ASSISTANT, PICKUP)], [Correction(3, ASSISTANT, "validator", "not allowed")]))
    assert (u.outcome, u.matched_step) == (ASSISTED, 5)
    assert u.reason.endswith("after a validator correction at step 3")
    # at the request's own step: still before the match
    assert only(kitchen([ask(2)], [done(5, ASSISTANT, PICKUP)], [Correction(2, ASSISTANT, "validator")])).outcome == (
        ASSISTED
    )


@pytest.mark.parametrize(
    "correction",
    [
        Correction(3, CHEF, "validator"),  # the sender's, not the partner's
        Correction(1, ASSISTANT, "validator"),  # before the request
        Correction(5, ASSISTANT, "validator"),  # at the match: about the next action
        Correction(3, ASSISTANT, "format"),  # a format correction is no validator feedback
    ],
)
def test_effective_despite_other_corrections(correction):
    assert only(kitchen([ask(2)], [done(5, ASSISTANT, PICKUP)], [correction])).outcome == EFFECTIVE


def test_redundant_even_when_the_partner_repeats_it_within_the_window():
    run = kitchen([ask(4)], [done(2, ASSISTANT, PICKUP), done(6, ASSISTANT, PICKUP)])
    u = only(run)
    assert (u.outcome, u.stage) == (REDUNDANT, "redundancy")
    assert isinstance(u.matched_step, Undefined)
    assert u.reason == (
        "pickup(bell_pepper, ingredient_dispenser) was already completed by Assistant at step 2, "
        "before the request at step 4"
    )


def test_redundant_when_completed_at_the_request_step_or_by_the_sender():
    # stamped at the request's step: the state the message was sent in already shows it
    assert only(kitchen([ask(4)], [done(4, ASSISTANT, PICKUP)])).outcome == REDUNDANT
    # done before by anyone, the sender included
    u = only(kitchen([ask(4, "put_obj_in_utensil(oven0)")], [done(3, CHEF, "put_obj_in_utensil(oven0)")]))
    assert u.outcome == REDUNDANT and "by Chef at step 3" in u.reason


@pytest.mark.parametrize(
    ("receiver", "why"),
    [
        ("Chef", "wrong target: Chef addressed the request to itself"),
        ("Bob", "no identifiable target: 'Bob' is not an agent of the run"),
    ],
)
def test_ineffective_wrong_target_even_when_the_partner_does_it(receiver, why):
    u = only(kitchen([ask(2, receiver=receiver)], [done(4, ASSISTANT, PICKUP)]))
    assert (u.outcome, u.stage, u.reason) == (INEFFECTIVE, "target", why)


def test_ineffective_no_receiver():
    run = kitchen([say(2, CHEF, f"Collab(request({PICKUP}))")], [done(4, ASSISTANT, PICKUP)])
    u = only(run)
    assert (u.outcome, u.stage) == (INEFFECTIVE, "target")
    assert "names no receiver" in u.reason


def test_ineffective_malformed_request():
    run = kitchen(
        [say(2, CHEF, "Collab(request(Assistant, grab the pepper))"), say(3, CHEF, "Collab(request(Assistant))")]
    )
    units = audit_run(run, W5).units
    assert [(u.outcome, u.stage) for u in units] == [(INEFFECTIVE, "parse")] * 2
    assert units[0].reason == "malformed request: 'grab the pepper' is not an operation action verb(arguments)"


@pytest.mark.parametrize(
    ("action", "why"),
    [
        ("pickup(onion, ingredient_dispenser)", "onion is not an object of the recipe (baked_bell_pepper)"),
        ("bake(oven3)", "oven3 is not an object of the recipe"),
        ("wait(2)", "wait(n) is not a task action"),
        ("dance(counter)", "dance is not an operation action"),
        ("pickup(bell_pepper)", "pickup takes 2 argument(s), not 1"),
    ],
)
def test_ineffective_irrelevant_even_when_the_partner_does_it(action, why):
    u = only(kitchen([ask(2, action)], [done(4, ASSISTANT, action)]))
    assert (u.outcome, u.stage) == (INEFFECTIVE, "relevance")
    assert why in u.reason


def test_ineffective_no_partner_action():
    u = only(kitchen([ask(2)], [done(4, ASSISTANT, "pickup(bell_pepper, counter)")]))  # another object's place
    assert (u.outcome, u.stage) == (INEFFECTIVE, "trace")
    assert u.reason == "Assistant did not complete pickup(bell_pepper, ingredient_dispenser) within steps 2 to 7"


def test_window_last_step_is_in_and_the_next_is_out():
    assert only(kitchen([ask(2)], [done(7, ASSISTANT, PICKUP)])).outcome == EFFECTIVE
    u = only(kitchen([ask(2)], [done(8, ASSISTANT, PICKUP)]))
    assert u.outcome == INEFFECTIVE
    assert u.reason.endswith("; it did at step 8, 1 step after the window closed")


def test_ineffective_self_executed():
    u = only(kitchen([ask(2, "put_obj_in_utensil(oven0)")], [done(4, CHEF, "put_obj_in_utensil(oven0)")]))
    assert (u.outcome, u.stage) == (INEFFECTIVE, "trace")
    assert u.reason.endswith("the sender (Chef) did it itself at step 4")


def test_the_assistant_can_request_too():
    request = ask(1, "pickup(bell_pepper, counter)", receiver="Chef", sender=ASSISTANT)
    run = kitchen([request], [done(3, CHEF, "pickup(bell_pepper, counter)")])
    assert only(run).outcome == EFFECTIVE


# -- the window ----------------------------------------------------------------------------------


def test_level_normalized_window_from_the_run_alone():
    run = kitchen([ask(2)], [done(8, ASSISTANT, PICKUP)], n_steps=40)  # ceil(0.15 x 40) = 6
    audit = audit_run(run)
    assert audit.window == 6 and audit.units[0].outcome == EFFECTIVE
    assert audit.window_rule == "level-normalized window: ceil(0.15 x 40 steps, the run's own length) = 6 steps"
    late = kitchen([ask(2)], [done(9, ASSISTANT, PICKUP)], n_steps=40)
    assert audit_run(late, LEVEL_WINDOW).units[0].outcome == INEFFECTIVE
    assert audit_run(late, FIXED_WINDOW).window == 20 and audit_run(late, FIXED_WINDOW).units[0].outcome == EFFECTIVE


def test_level_normalized_window_from_the_mean_length_of_the_level():
    runs = [
        kitchen(run_id="a", n_steps=20, level=1),
        kitchen(run_id="b", n_steps=40, level=1),
        kitchen(run_id="c", n_steps=100, level=2),
        kitchen(run_id="d", n_steps=7, level=None),
    ]
    assert level_lengths(runs) == {1: 30.0, 2: 100.0}
    assert [a.window for a in audit_runs(runs)] == [5, 5, 15, 2]  # ceil(4.5), ceil(4.5), 15, ceil(1.05)
    assert [a.window for a in audit_runs(runs, FIXED_WINDOW)] == [20, 20, 20, 20]
    with pytest.raises(ValueError):
        Window("sliding")


# -- what belongs to the task --------------------------------------------------------------------


def test_task_objects_from_recipe_grid_and_recipe_card():
    assert kitchen_places(GRID) == (
        "counter",
        "ingredient_dispenser",
        "dish_dispenser",
        "pot0",
        "oven0",
        "chopping_board0",
        "blender0",
    )
    card = "NAME:\nBaked Potato Slices\n\nINGREDIENTS:\npotato (1)\n\nCOOKING STEPs:\n1. Cut."
    assert recipe_ingredients(card) == ("potato",)
    run = kitchen(recipe="baked_potato_slices")
    objects = task_objects(run)
    assert objects.relevant("potato_slices") and objects.relevant("potato") and not objects.relevant("onion")
    # No recipe card: the benchmark's own card of the recipe gives its ingredients.
    assert objects.ingredients == ("potato",) and objects.relevant("sliced_potato")
    other = kitchen(recipe="potato_bake", level=None)  # not a benchmark recipe, no card
    assert not task_objects(other).relevant("sliced_potato")  # words not in the recipe's name
    with_card = replace(other, extra={"recipe_text": card})
    assert task_objects(with_card).relevant("sliced_potato")
    assert task_objects(kitchen(n_steps=0)).relevant("oven7")  # no grid: any utensil of a known kind


# -- structured interdependence ------------------------------------------------------------------


def test_interdependence_triggers_accepted_and_constructive():
    run = kitchen(
        completed=[
            done(3, ASSISTANT, PICKUP),
            done(4, ASSISTANT, "place_obj_on_counter()"),  # trigger 1: taken by the Chef, used: constructive
            done(6, CHEF, "pickup(bell_pepper, counter)"),
            done(8, CHEF, "put_obj_in_utensil(oven0)"),
            done(9, ASSISTANT, PICKUP),
            done(10, ASSISTANT, "place_obj_on_counter()"),  # trigger 2: taken, put back: not constructive
            done(11, CHEF, "pickup(bell_pepper, counter)"),
            done(12, CHEF, "place_obj_on_counter()"),  # trigger 3: taken back by the Chef itself
            done(13, CHEF, "pickup(bell_pepper, counter)"),
            done(14, ASSISTANT, "pickup(dish, dish_dispenser)"),
            done(15, ASSISTANT, "place_obj_on_counter()"),  # trigger 4: taken after the window (5 steps)
            done(21, CHEF, "pickup(dish, counter)"),
        ]
    )
    deps = interdependence(run, window=5)
    assert [(t.step, t.item, t.accepted, t.constructive) for t in deps.triggers] == [
        (4, "bell_pepper", True, True),
        (10, "bell_pepper", True, False),
        (12, "bell_pepper", False, False),
        (15, "dish", False, False),
    ]
    assert (deps.n_trig, deps.n_int, deps.n_cons) == (4, 2, 1)
    assert (deps.adr, deps.idensity, deps.mor) == (0.5, 0.5, 0.5)
    assert deps.triggers[0].reason == (
        "Assistant placed bell pepper on the counter at step 4; Chef picked it up at step 6 and used it: "
        "put_obj_in_utensil(oven0) at step 8"
    )
    empty = interdependence(kitchen(), window=5)
    assert isinstance(empty.adr, Undefined) and isinstance(empty.mor, Undefined)
    assert isinstance(empty.idensity, Undefined)


# -- metrics per run and across runs --------------------------------------------------------------


def four_outcomes(run_id: str = "a", level: int = 1, models=("gpt-4o", "claude")) -> KitchenRun:
    """One unit of each outcome, one constructive hand-over, 1200 tokens, one validator and two
    format corrections."""
    return kitchen(
        [
            ask(0),  # effective: done at 3
            ask(2, "place_obj_on_counter()"),  # assisted: validator correction at 3, done at 4
            ask(5),  # redundant: done at 3
            ask(5, "cook(pot0)"),  # ineffective: nobody cooks
            say(6, CHEF, "anything else?"),  # unstructured
        ],
        [
            done(3, ASSISTANT, PICKUP),
            done(4, ASSISTANT, "place_obj_on_counter()"),
            done(6, CHEF, "pickup(bell_pepper, counter)"),
            done(8, CHEF, "put_obj_in_utensil(oven0)"),
        ],
        [Correction(3, ASSISTANT, "validator"), Correction(1, CHEF, "format"), Correction(2, ASSISTANT, "format")],
        run_id=run_id,
        level=level,
        models=models,
        tokens=1200,
    )


def test_run_metrics_by_hand():
    m = run_metrics(four_outcomes(), FIXED_WINDOW)
    assert (m.effective, m.assisted, m.redundant, m.ineffective, m.requests, m.unstructured) == (1, 1, 1, 1, 4, 1)
    assert m.follow_rate == 0.5  # (1 + 1) / 4
    assert (m.n_trig, m.n_int, m.n_cons) == (1, 1, 1)
    assert (m.adr, m.idensity, m.mor) == (1.0, 1.0, 0.0)
    assert m.comm_cost == 1200.0  # 1200 tokens / 1 accepted dependency
    assert (m.validator_corrections, m.format_corrections) == (1, 2)
    assert (m.success, m.score, m.tokens, m.steps) == (True, 20.0, 1200, 30)
    assert m.pairing == "baseline gpt-4o -> baseline claude"


def test_a_run_without_requests_or_hand_overs_has_undefined_ratios():
    m = run_metrics(kitchen([say(1, CHEF, "hello")], tokens=500), FIXED_WINDOW)
    for key in ("follow_rate", "comm_cost", "adr", "idensity", "mor"):
        assert isinstance(getattr(m, key), Undefined), key
    assert fmt(m.follow_rate) == "undefined, because the run sent no request unit"
    frame = runs_frame([m])
    assert isinstance(frame.loc[0, "follow_rate"], Undefined)


def follow_run(run_id: str, n_eff: int, n_ineff: int, *, models, level: int) -> KitchenRun:
    """A run with n_eff effective requests (pickups of the pepper from distinct places, each done one
    step after its request) and n_ineff ineffective ones (cook(pot0), which nobody does)."""
    places = PLACES[:n_eff]
    turns = [ask(2 * k, f"pickup(bell_pepper, {p})") for k, p in enumerate(places)]
    turns += [ask(2 * n_eff + k, "cook(pot0)") for k in range(n_ineff)]
    completed = [done(2 * k + 1, ASSISTANT, f"pickup(bell_pepper, {p})") for k, p in enumerate(places)]
    return kitchen(turns, completed, run_id=run_id, models=models, level=level)


PLACES = ("ingredient_dispenser", "counter", "pot0", "oven0", "chopping_board0", "blender0")
GPT_CLAUDE, CLAUDE_GPT = ("gpt-4o", "claude"), ("claude", "gpt-4o")
# (run, effective, ineffective, pairing, level) -> FollowRate by hand
SET = [
    ("p1", 1, 1, GPT_CLAUDE, 1),  # 1/2 = 0.5
    ("p2", 3, 1, GPT_CLAUDE, 1),  # 3/4 = 0.75
    ("p3", 1, 3, GPT_CLAUDE, 2),  # 1/4 = 0.25
    ("p4", 2, 0, GPT_CLAUDE, 2),  # 2/2 = 1.0
    ("p5", 0, 2, GPT_CLAUDE, 2),  # 0/2 = 0.0
    ("q1", 1, 4, CLAUDE_GPT, 1),  # 1/5 = 0.2
    ("q2", 0, 0, CLAUDE_GPT, 2),  # no request: undefined
]


def the_set():
    return kitchen_metrics([follow_run(r, e, i, models=m, level=lv) for r, e, i, m, lv in SET], FIXED_WINDOW)


def test_follow_rates_of_the_set_by_hand():
    rates = [m.follow_rate for m in the_set()]
    assert rates[:6] == [0.5, 0.75, 0.25, 1.0, 0.0, 0.2]
    assert isinstance(rates[6], Undefined)


def test_mean_per_pairing_with_n_and_bootstrap_interval():
    table = metric_table(the_set(), by=("pairing",), keys=("follow_rate", "requests"))
    frame = table.to_frame().set_index(["pairing", "metric"])
    row = frame.loc[("baseline gpt-4o -> baseline claude", "follow_rate")]
    x = np.array([0.5, 0.75, 0.25, 1.0, 0.0])
    assert row["estimate"] == pytest.approx(x.mean()) and row["n"] == 5 and row["n_of"] == "runs with request units"
    boot = stats.bootstrap(
        (x,), np.mean, n_resamples=2000, method="percentile", vectorized=True, rng=np.random.default_rng(0)
    )
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (boot.confidence_interval.low, boot.confidence_interval.high)
    )
    assert "percentile bootstrap over runs, 2000 resamples, seed 0" in row["interval_method"]
    # the other pairing: one run with a FollowRate, one without
    q = frame.loc[("baseline claude -> baseline gpt-4o", "follow_rate")]
    assert q["estimate"] == pytest.approx(0.2) and q["n"] == 1
    assert isinstance(q["ci_low"], Undefined)
    assert "1 run(s) left out: the run sent no request unit" in q["note"]
    # counts of units: every run counts
    requests = frame.loc[("baseline claude -> baseline gpt-4o", "requests")]
    assert requests["estimate"] == pytest.approx(2.5) and requests["n"] == 2  # (5 + 0) / 2


def test_mean_per_level_with_t_interval():
    table = metric_table(the_set(), by=("level",), keys=("follow_rate",), interval="t")
    frame = table.to_frame().set_index("level")
    x1, x2 = np.array([0.5, 0.75, 0.2]), np.array([0.25, 1.0, 0.0])
    for level, x in ((1, x1), (2, x2)):
        row = frame.loc[level]
        lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
        assert row["estimate"] == pytest.approx(x.mean()) and row["n"] == len(x)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((lo, hi))
        assert row["se"] == pytest.approx(stats.sem(x))
    assert "scipy.stats.t.interval" in frame.loc[1, "interval_method"]
    assert fmt_interval((frame.loc[1, "ci_low"], frame.loc[1, "ci_high"])).startswith("[")


def test_pairing_and_level_together():
    grouped = groups(the_set(), ("pairing", "level"))
    assert list(grouped) == [
        ("baseline claude -> baseline gpt-4o", 1),
        ("baseline claude -> baseline gpt-4o", 2),
        ("baseline gpt-4o -> baseline claude", 1),
        ("baseline gpt-4o -> baseline claude", 2),
    ]
    table = metric_table(the_set(), by=("pairing", "level"), keys=("follow_rate",))
    frame = table.to_frame().set_index(["pairing", "level"])
    undefined = frame.loc[("baseline claude -> baseline gpt-4o", 2)]
    assert undefined["n"] == 0 and isinstance(undefined["estimate"], Undefined)
    assert "no run has a value (the run sent no request unit)" in str(undefined["estimate"])


def test_mean_over_runs_edges():
    same = mean_over_runs([0.5, 0.5, 0.5], key="k", statistic="K")
    assert same.interval == (0.5, 0.5) and same.se == 0.0
    with pytest.raises(ValueError):
        mean_over_runs([1.0], key="k", statistic="K", interval="jackknife")


def test_outcome_composition_by_level():
    runs = kitchen_metrics(
        [four_outcomes("a", 1), four_outcomes("b", 1), follow_run("c", 2, 1, models=GPT_CLAUDE, level=2)],
        FIXED_WINDOW,
    )
    table = outcome_composition(runs)
    frame = table.to_frame().set_index(["level", "outcome"])
    # level 1: two runs of one unit each outcome -> 2 of 8 each; level 2: 2 effective, 1 ineffective of 3
    assert list(frame.loc[1]["count"]) == [2, 2, 2, 2]
    assert list(frame.loc[1]["estimate"]) == pytest.approx([0.25] * 4)
    assert list(frame.loc[2]["count"]) == [2, 0, 0, 1]
    assert list(frame.loc[2]["estimate"]) == pytest.approx([2 / 3, 0, 0, 1 / 3])
    assert set(frame["n"]) == {8, 3}
    low, high = frame.loc[(1, "Effective"), ["ci_low", "ci_high"]]
    wl, wh = stats.binomtest(2, 8).proportion_ci(0.95, method="wilson")
    assert (low, high) == pytest.approx((wl, wh))
    assert "level 1: 8 request units, 2 unstructured messages" in table.notes


# -- the real run --------------------------------------------------------------------------------

OVERCOOKED = REAL / "collab_overcooked"
REAL_RUNS = sorted(OVERCOOKED.glob("*.json")) if OVERCOOKED.is_dir() else []


def load_real(path: Path) -> KitchenRun:
    """The run, walked from the Collab-Overcooked log: each step's conversations (one per
    initiating agent, turns at the step's timestamp), the completed actions, the corrections and
    the communication tokens."""
    data = json.loads(path.read_text())
    steps, turns, corrections, tokens, conversation = [], [], [], 0, 0
    for rec in data["content"]:
        t, stat = rec["timestamp"], rec["statistical_data"]
        steps.append(KitchenStep(t, rec["map"], tuple(rec["actions"]), float(stat["score"])))
        for a, entries in enumerate(rec["content"]["content"]):
            for e in entries:
                action = e["action"].removeprefix("Action: ")
                turns.append(Turn(t, e["agent"], conversation, a, e["say"], action))
            conversation += bool(entries)
            tokens += sum(stat["communication"][a]["token"])
        for a, err in enumerate(stat["error"]):
            for kind in ("format", "validator"):
                corrections += [Correction(t, a, kind, m) for m in err[f"{kind}_error"]["error_message"]]
    return KitchenRun(
        id=path.stem,
        source=path.name,
        recipe=data["prompt_templates"]["Chef"]["order"],
        level=1,  # baked_bell_pepper is a level-1 recipe of the benchmark
        models=("azure-gpt-4o", "azure-gpt-4o"),
        scaffold="baseline",
        score=float(data["total_score"]),
        success=bool(data["total_order_finished"]),
        finished=tuple(data["total_order_finished"]),
        steps=tuple(steps),
        turns=tuple(turns),
        completed=tuple(
            Completed(x["timestamp"], a, x["action"]) for a, acts in enumerate(data["total_action_list"]) for x in acts
        ),
        corrections=tuple(corrections),
        tokens=tokens,
        extra={"recipe_text": data["prompt_templates"]["Chef"]["recipe_text"]},
    )


@pytest.mark.skipif(not REAL_RUNS, reason=absent(OVERCOOKED, "real Collab-Overcooked run"))
def test_real_run_follow_rate_counted_by_hand():
    # The baked-bell-pepper run (17 steps, no correction of any kind). The Assistant completes
    # pickup(bell_pepper, ingredient_dispenser) at step 3 and place_obj_on_counter() at step 5.
    # Four request units, all from the Chef to the Assistant:
    #   step 0  pickup(bell_pepper, ingredient_dispenser)  done at 3         -> EFFECTIVE (both windows)
    #   step 0  place_obj_on_counter()                      done at 5         -> level-normalized window
    #           ceil(0.15 x 17) = 3 ends at step 3: INEFFECTIVE; fixed window 20: EFFECTIVE
    #   step 3  place_obj_on_counter()                      done at 5         -> EFFECTIVE (2 steps later)
    #   step 5  place_obj_on_counter()                      already done at 5 (the grid of step 5 shows
    #           the pepper on the counter, the Chef thanks the Assistant for it)  -> REDUNDANT
    # Four seek and four ack messages, no unstructured one.
    (path,) = REAL_RUNS[:1]
    run = load_real(path)
    level = audit_run(run)
    assert level.window == 3
    assert [(u.unit.step, str(u.unit.action), u.outcome) for u in level.units] == [
        (0, "pickup(bell_pepper, ingredient_dispenser)", EFFECTIVE),
        (0, "place_obj_on_counter()", INEFFECTIVE),
        (3, "place_obj_on_counter()", EFFECTIVE),
        (5, "place_obj_on_counter()", REDUNDANT),
    ]
    assert level.follow_rate == 0.5  # (2 + 0) / 4
    fixed = audit_run(run, FIXED_WINDOW)
    assert [u.outcome for u in fixed.units] == [EFFECTIVE, EFFECTIVE, EFFECTIVE, REDUNDANT]
    assert fixed.follow_rate == 0.75  # (3 + 0) / 4
    assert (level.primitive_count("seek"), level.primitive_count("ack"), len(level.unstructured)) == (4, 4, 0)
    # One hand-over: the Assistant places the pepper at step 5, the Chef picks it up at 7 (within
    # 3 steps) and puts it into oven0 at step 11: N_trig = N_int = N_cons = 1.
    m = run_metrics(run)
    assert (m.n_trig, m.n_int, m.n_cons, m.adr, m.idensity, m.mor) == (1, 1, 1, 1.0, 1.0, 0.0)
    assert (m.validator_corrections, m.format_corrections, m.success, m.score, m.steps) == (0, 0, True, 20.0, 17)
