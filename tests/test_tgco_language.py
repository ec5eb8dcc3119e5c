"""The request-unit parser as a rule set: each rule of analysis.kitchen.language (L1-L12) and of
analysis.kitchen.tgco (R1-R4) on a sentence of its own, and on the sentences the module's text quotes from the
real runs of the TGCO paper's repository; and the messages it cannot read, kept as unstructured."""

from __future__ import annotations

import pytest

from analysis.kitchen.language import ANY, Reader, Vocabulary, read_requests
from analysis.kitchen.requests import COLLAB, PLAN, SAY, OpAction, plan_requests, read_message, say_requests
from analysis.kitchen.tgco import audit_run
from corpus.kitchen.run import ASSISTANT, CHEF, Completed, KitchenRun, KitchenStep, Turn

PLACES = ("counter", "ingredient_dispenser", "dish_dispenser", "pot0", "oven0", "chopping_board0", "blender0")
OBJECTS = (
    "egg",
    "boiled_egg",
    "dish",
    "potato",
    "potato_slices",
    "baked_potato_slices",
    "chopped_onion",
    "onion",
    "bell_pepper",
    "corn",
    "pumpkin",
)
VOCAB = Vocabulary(OBJECTS, PLACES)


def read(text: str, vocab: Vocabulary = VOCAB) -> list[tuple[str, str, str, str]]:
    """(action, object, location, target) of each request unit read from ``text``."""
    return [(p.action, p.object, p.location, p.target) for p in read_requests(text, vocab)]


def rules(text: str) -> list[str]:
    return [p.rules for p in read_requests(text, VOCAB)]


# -- the sentences the module quotes from the real runs ------------------------------------------


@pytest.mark.parametrize(
    "said,expected",
    [
        (
            "Please pick up an egg from the ingredient dispenser and place it on the counter for me.",
            [
                ("pickup(egg, ingredient_dispenser)", "egg", "ingredient_dispenser", ""),
                ("place_obj_on_counter()", "egg", "counter", ""),
            ],
        ),
        (
            "Please pick up the potato from the counter, put it on the chopping board, and cut it into slices.",
            [
                ("pickup(potato, counter)", "potato", "counter", ""),
                ("put_obj_in_utensil(chopping_board0)", "potato", "chopping_board0", ""),
                ("cut(chopping_board0)", "potato", "chopping_board0", ""),
            ],
        ),
        (
            "Please place the egg on the counter so I can start cooking it.",
            [("place_obj_on_counter()", "egg", "counter", "")],
        ),
        (
            "Could you please pick up a potato from the ingredient dispenser so we can start cutting it into slices?",
            [("pickup(potato, ingredient_dispenser)", "potato", "ingredient_dispenser", "")],
        ),
        (
            "You should deliver the boiled_egg you're holding instead of soup.",
            [("deliver_soup()", "boiled_egg", "", "")],
        ),
        (
            "Please go ahead and cut the potato into slices on the chopping board.",
            [("cut(chopping_board0)", "potato", "chopping_board0", "")],
        ),
        ("Pick up the chopped onion from pot0.", [("pickup(chopped_onion, pot0)", "chopped_onion", "pot0", "")]),
        ("I'll pick up the potato slices and put them in the oven.", []),
        (
            "After you place it on the counter, please cut it into slices using the chopping board",
            [("cut(chopping_board0)", "", "chopping_board0", "")],
        ),
        ("Please don't get more pumpkin from the ingredient dispenser", []),
        ("Please pick up the egg from the counter.", [("pickup(egg, counter)", "egg", "counter", "")]),
        ("Please wait for 3 timesteps while the egg cooks. [END]", []),
        ("Please pick up the potato slices", [(f"pickup(potato_slices, {ANY})", "potato_slices", "", "")]),
    ],
)
def test_the_real_sentences_the_rules_quote(said, expected):
    assert read(said) == expected


# -- one test sentence per rule ------------------------------------------------------------------


def test_l1_clauses_are_cut_only_where_a_verb_phrase_starts():
    assert [a for a, *_ in read("Grab the egg, then bring it to the counter and boil it.")] == [
        f"pickup(egg, {ANY})",
        "place_obj_on_counter()",
        "cook(pot0)",
    ]
    # "and" between two foods is no new clause: one request, its first object
    assert read("Please put the bell pepper and corn in the pot.") == [
        ("put_obj_in_utensil(pot0)", "bell_pepper", "pot0", "")
    ]
    # sentences: at . ! ? ; : and at numbered steps
    assert [a for a, *_ in read("You need to: 1) Remove the chopped onion, 2) Get a POTATO from the dispenser")] == [
        f"pickup(chopped_onion, {ANY})",
        "pickup(potato, ingredient_dispenser)",
    ]


def test_l2_please_asks_the_partner():
    assert read("Now, kindly bring the egg to the counter.") == [("place_obj_on_counter()", "egg", "counter", "")]
    assert rules("Great! Please place the egg on the counter.")[0].startswith("L2+")


def test_l3_a_question_to_the_partner():
    assert read("Would you fetch a dish from the dish dispenser?") == [
        ("pickup(dish, dish_dispenser)", "dish", "dish_dispenser", "")
    ]
    assert rules("Would you fetch a dish from the dish dispenser?")[0].startswith("L3+")


def test_l4_the_partners_task_stated():
    assert read("I need you to put the potato in the oven.") == [("put_obj_in_utensil(oven0)", "potato", "oven0", "")]
    assert read("Please proceed with picking up the potato slices from the counter") == [
        ("pickup(potato_slices, counter)", "potato_slices", "counter", "")
    ]
    assert rules("Make sure to bake the potato slices.") == ["L4+L8+L9+L10"]


def test_l5_an_imperative_sentence():
    assert read("Cut the pumpkin.") == [("cut(chopping_board0)", "pumpkin", "chopping_board0", "")]
    assert rules("Cut the pumpkin.") == ["L5+L8+L9+L10"]


def test_l6_a_coordinated_verb_shares_its_clauses_subject():
    assert [a for a, *_ in read("Please get an egg and place it on the counter.")] == [
        f"pickup(egg, {ANY})",
        "place_obj_on_counter()",
    ]
    assert rules("Please get an egg and place it on the counter.")[1].startswith("L6+")
    assert read("I'm getting an egg and will place it on the counter.") == []


@pytest.mark.parametrize(
    "said",
    [
        "Once the pot is free, we'll cook the egg.",  # subordinate, then the speaker's own plan
        "Should I put it in the pot?",  # a question about the speaker
        "Do not put the egg in the oven.",  # negated
        "Let's wait until the oven is done.",  # the speaker (and partner): no operation asked
        "When you have the egg, I will boil it.",
    ],
)
def test_l7_what_asks_nothing_of_the_partner(said):
    assert read(said) == []


def test_l8_the_action_from_the_verb_and_its_destination():
    assert read("Please pass me the egg.") == [("place_obj_on_counter()", "egg", "counter", "")]
    assert read("Please stir the pumpkin in the blender.") == [("stir(blender0)", "pumpkin", "blender0", "")]
    assert read("Please fill the dish with the soup from the pot.")[0][0] == "fill_dish_with_food(pot0)"
    assert read("Please serve it.") == [("deliver_soup()", "", "", "")]
    # no operation, no destination, or a wait: nothing read
    assert read("Please place the egg.") == [] and read("Can you confirm what's on the board?") == []
    assert read("Please wait for two steps.") == []


def test_l9_the_object_named_or_referred_to():
    assert read("Please fetch the potato, then put it in the oven.")[1][1] == "potato"  # "it": the last named
    assert read("After you cut the potato, please place the slices on the counter.") == [
        ("place_obj_on_counter()", "potato_slices", "counter", "")  # a form word made of the last object
    ]
    assert read("Please place it on the counter.") == [("place_obj_on_counter()", "", "counter", "")]
    assert read("Please pick it up.") == []  # a pickup of nothing named is no unit


def test_l10_the_place_and_a_utensils_kind():
    assert read("Please put the onion on the chopping board.") == [
        ("put_obj_in_utensil(chopping_board0)", "onion", "chopping_board0", "")
    ]
    two_pots = Vocabulary(("egg",), ("counter", "ingredient_dispenser", "pot0", "pot1"))
    assert read("Please cook the egg.", two_pots) == [("cook(pot)", "egg", "pot", "")]  # any pot
    assert read("Please put the egg in pot1.", two_pots) == [("put_obj_in_utensil(pot1)", "egg", "pot1", "")]
    no_grid = Vocabulary(("egg",), None)
    assert read("Please bake the egg.", no_grid) == [("bake(oven)", "egg", "oven", "")]


def test_l11_the_target_a_sentence_addresses():
    assert read("Chef, please deliver the boiled_egg.") == [("deliver_soup()", "boiled_egg", "", "Chef")]
    assert read("Assistant, please place the egg on the counter. Also get a dish.")[1][3] == ""


def test_l12_the_same_request_once_per_message():
    assert read("Please place the egg on the counter. Yes, place it on the counter!") == [
        ("place_obj_on_counter()", "egg", "counter", "")
    ]


# -- the shapes of a turn (analysis.kitchen.tgco, R1-R4) --------------------------------------------------


def turn(say: str = "", plan: str = "", agent: int = CHEF, action: str = "") -> Turn:
    return Turn(step=4, agent=agent, conversation=0, initiator=agent, say=say, action=action, goal=plan)


READER = Reader(VOCAB)


def units(t: Turn):
    msg = read_message("r", 0, t, READER)
    return msg, [(u.shape, str(u.action), u.object, u.target, u.rule.split(":")[0]) for u in (msg.units if msg else ())]


def test_r1_a_collab_message():
    msg, got = units(turn("Collab(request(Assistant, pickup(egg, ingredient_dispenser)); ack(Assistant))"))
    assert got == [(COLLAB, "pickup(egg, ingredient_dispenser)", "egg", ASSISTANT, "R1")]
    assert msg.structured and msg.primitives == ("request", "ack")


def test_r2_request_calls_in_a_plan_and_in_a_say():
    plan = "Chef plan: request('pickup(egg, ingredient_dispenser)'); wait(1); request(place_obj_on_counter())"
    assert [p.args for p in plan_requests(plan)] == [
        ("'pickup(egg, ingredient_dispenser)'",),
        ("place_obj_on_counter()",),
    ]
    msg, got = units(turn("", plan))
    assert got == [
        (PLAN, "pickup(egg, ingredient_dispenser)", "egg", ASSISTANT, "R2"),
        (PLAN, "place_obj_on_counter()", "", ASSISTANT, "R2"),
    ]
    assert msg.structured and msg.text.startswith("request('pickup")
    # A request whose argument is a question is malformed, not dropped.
    msg, _ = units(turn("", "Assistant plan: request('What should I do next? I'll wait.')", agent=ASSISTANT))
    (unit,) = msg.units
    assert unit.text == "request('What should I do next? I'll wait.')" and "not an operation action" in str(unit.action)
    calls, rest = say_requests("request('wait(3)'); Please wait while the egg cooks in the pot.")
    assert [c.text for c in calls] == ["request('wait(3)')"] and rest == "Please wait while the egg cooks in the pot."
    # a CookPandar goal in free text holds no calls
    assert plan_requests("1. Assistant picks up bell pepper from ingredient dispenser.") == ()


def test_r3_plain_language_read_with_the_runs_vocabulary():
    msg, got = units(turn("Please put the potato slices in the oven."))
    assert got == [(SAY, "put_obj_in_utensil(oven0)", "potato_slices", ASSISTANT, "R3")]
    assert msg.units[0].rule == "R3:L2+L8+L9+L10"


def test_r4_a_say_that_repeats_a_plans_request_is_that_request():
    t = turn(
        "Please pick up an egg from the ingredient dispenser and place it on the counter so I can start cooking.",
        "Chef plan: request('pickup(egg, ingredient_dispenser)'); request('place_obj_on_counter()')",
    )
    _, got = units(t)
    assert got == [
        (PLAN, "pickup(egg, ingredient_dispenser)", "egg", ASSISTANT, "R2"),
        (PLAN, "place_obj_on_counter()", "egg", ASSISTANT, "R2+R4"),  # the object the say names
    ]
    # what the say asks beyond the plan is a unit of its own
    _, more = units(
        turn("Please pick up an egg and cut it.", "Chef plan: request('pickup(egg, ingredient_dispenser)')")
    )
    assert [g[:2] for g in more] == [(PLAN, "pickup(egg, ingredient_dispenser)"), (SAY, "cut(chopping_board0)")]


def test_a_message_the_rules_cannot_read_stays_unstructured_with_its_text():
    run = KitchenRun(
        id="r",
        source="r.json",
        recipe="boiled_egg",
        level=1,
        models=("a", "b"),
        scaffold="",
        score=20,
        success=True,
        finished=("boiled_egg",),
        steps=tuple(KitchenStep(s, "X       P       O\n\nI       C       B", ("", "")) for s in range(8)),
        turns=(
            turn("I'm confused - you mentioned the egg is cooking, but I see chopped onion."),
            turn("Please pick up an egg from the ingredient dispenser."),
        ),
        completed=(Completed(6, ASSISTANT, "pickup(egg, ingredient_dispenser)"),),
    )
    audit = audit_run(run)
    (loose,) = audit.unstructured
    assert loose.text == "I'm confused - you mentioned the egg is cooking, but I see chopped onion."
    assert [str(u.unit.action) for u in audit.units] == ["pickup(egg, ingredient_dispenser)"]
    assert isinstance(audit.units[0].unit.action, OpAction) and audit.units[0].outcome == "effective"
