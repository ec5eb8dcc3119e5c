"""Predictions of two simulated models on the test split, for both benchmark tasks (the next
action, and the actor's mental model)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, cast

from corpus import schema
from corpus.generate.draws import choice
from corpus.generate.phrases import ACK_F, ACK_G, INSTRUCT, RATIONALES, REPAIR_G, REQ_ACK, SMALLTALK
from corpus.generate.story import Step, shifted
from corpus.model import GridMap, MentalModel, Session

MODELS: dict[str, dict[str, Any]] = {
    "sim-llm-persona": {
        "name": "Simulated LLM (persona prompt)",
        "setting": "persona",
        "simulated": True,
        "description": "Synthetic predictions: a simulated model given the history and personas.",
        "follower_type_acc": 0.5,
        "mm_acc": {"guide": (0.45, 0.45, 0.3), "follower": (0.68, 0.7, 0.54)},
        "draw_noise": 2,
    },
    "sim-llm-mental-model": {
        "name": "Simulated LLM (persona + mental model)",
        "setting": "persona+mental_model",
        "simulated": True,
        "description": "Synthetic predictions: a simulated model also given the actors' past mental models.",
        "follower_type_acc": 0.56,
        "mm_acc": {"guide": (0.52, 0.5, 0.36), "follower": (0.72, 0.74, 0.58)},
        "draw_noise": 1,
    },
}


MM_DIMENSIONS = ("team_goal", "partner_intent", "self_reasoning")


def model_info(cfg: dict[str, Any]) -> dict[str, Any]:
    """What a simulated model's model.json says of it."""
    return {k: cfg[k] for k in ("name", "setting", "simulated", "description")}


def model_rows(
    rng,
    cfg: dict[str, Any],
    test_sessions: Iterable[tuple[Session, list[Step]]],
    maps: dict[str, GridMap],
    marg: dict[str, list[str]],
) -> Iterator[tuple[str, dict[str, Any]]]:
    """One simulated model's predictions on the test sessions (each with its story's steps), as
    (task, row) in file order; ``marg``: every mental-model code of the corpus by dimension (a
    wrong guess is drawn from them)."""
    for s, steps in test_sessions:
        shape = tuple(maps[s.map_id].grid_size)
        for a in s.actions[1:]:
            # Next action: the Guide only ever sends messages; the Follower's type is harder.
            if a.role == "guide":
                t = "message"
            else:
                t = (
                    a.type
                    if rng.random() < cfg["follower_type_acc"]
                    else choice(rng, list(schema.ACTION_TYPES), [0.45, 0.3, 0.12, 0.1, 0.03])
                )
            if t == "message":
                st = steps[a.index]
                pool = {
                    "instruct": INSTRUCT,
                    "ack": ACK_F if a.role == "follower" else ACK_G,
                    "ask": REQ_ACK,
                    "answer": REPAIR_G,
                    "repair": REPAIR_G,
                }.get(st.state, SMALLTALK)
                lm = st.lm
                content = choice(rng, pool).format(
                    dir=choice(rng, ["left", "right", "up", "down"]),
                    lm=lm,
                    side="left",
                    pos="above",
                    pos_word="top",
                    n=4,
                    opp="below it",
                    other=lm,
                    wrong="left",
                )
            elif t in ("draw", "erase"):
                src = a.cells if a.type in ("draw", "erase") else list(maps[s.map_id].route[:5])
                dr, dc = (int(x) for x in rng.integers(-cfg["draw_noise"], cfg["draw_noise"] + 1, size=2))
                content = [list(c) for c in shifted(list(src), dr, dc, shape)]
            else:
                content = None
            yield (
                "next_action",
                {
                    "session_id": s.id,
                    "action_index": a.index,
                    "role": a.role,
                    "action_type": t,
                    "content": content,
                },
            )
            # Mental model.
            truth = cast(MentalModel, a.mental_model)  # every generated action has one
            accs = cfg["mm_acc"][a.role]
            row = {"session_id": s.id, "action_index": a.index, "role": a.role}
            for dim, acc in zip(MM_DIMENSIONS, accs):
                code = getattr(truth, dim).code
                row[dim] = code if rng.random() < acc else choice(rng, marg[dim])
            row["rationale"] = truth.rationale if rng.random() < 0.2 else choice(rng, RATIONALES[(a.role, "chat")])
            yield "mental_model", row
