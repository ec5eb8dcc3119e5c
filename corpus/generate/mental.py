"""Each actor's mental model at one action, drawn from the latent state the story gives it.

An actor is *grounded* (clear team goal, partner understood, executing the plan) with a
probability that rises with drawing progress and is higher when the Guide sees the Follower's
canvas (:func:`grounded_probability`); repair states bring "unclear", "misunderstood" and
"repairing" labels and reported misalignment.
"""

from __future__ import annotations

from corpus import schema
from corpus.generate.draws import choice, sigmoid
from corpus.generate.phrases import OTHER_TEXTS, RATIONALES
from corpus.model import MentalModel

# Latent states of an actor at one action. Acknowledging is what an actor does when the partner
# seems understood, so an "ack" leans to "partner understood" even when not grounded (Fig. 4 left:
# Acknowledge goes with higher perceived alignment).
# state -> (team goal weights t1..t4, partner intent p1..p5, self-reasoning r1..r6) when not grounded
_UNGROUNDED = {
    "start": ([0.55, 0.35, 0.05, 0.05], [0.15, 0.25, 0.5, 0.02, 0.08], [0.05, 0.15, 0.2, 0.45, 0.0, 0.15]),
    "instruct": ([0.05, 0.8, 0.05, 0.1], [0.2, 0.45, 0.3, 0.02, 0.03], [0.15, 0.0, 0.1, 0.7, 0.02, 0.03]),
    "ack": ([0.04, 0.75, 0.15, 0.06], [0.75, 0.15, 0.06, 0.02, 0.02], [0.2, 0.02, 0.6, 0.15, 0.0, 0.03]),
    "ask": ([0.08, 0.6, 0.04, 0.28], [0.12, 0.28, 0.52, 0.04, 0.04], [0.0, 0.05, 0.55, 0.3, 0.04, 0.06]),
    "answer": ([0.03, 0.65, 0.07, 0.25], [0.15, 0.4, 0.3, 0.1, 0.05], [0.05, 0.0, 0.15, 0.55, 0.25, 0.0]),
    "draw": ([0.03, 0.6, 0.3, 0.07], [0.3, 0.45, 0.2, 0.03, 0.02], [0.55, 0.25, 0.12, 0.03, 0.0, 0.05]),
    "explore": ([0.1, 0.55, 0.05, 0.3], [0.1, 0.35, 0.35, 0.05, 0.15], [0.1, 0.7, 0.1, 0.05, 0.0, 0.05]),
    "repair": ([0.02, 0.4, 0.08, 0.5], [0.15, 0.45, 0.12, 0.23, 0.05], [0.02, 0.02, 0.08, 0.1, 0.78, 0.0]),
    "wait": ([0.05, 0.5, 0.2, 0.25], [0.15, 0.2, 0.55, 0.05, 0.05], [0.05, 0.0, 0.1, 0.1, 0.0, 0.75]),
    "chat": ([0.05, 0.5, 0.4, 0.05], [0.4, 0.35, 0.15, 0.02, 0.08], [0.5, 0.02, 0.3, 0.15, 0.0, 0.03]),
}
# When the actor feels grounded: clear on what to do, partner understood, executing the plan.
_GROUNDED = {
    "instruct": ([0.0, 0.12, 0.88, 0.0], [0.9, 0.07, 0.03, 0.0, 0.0], [0.75, 0.0, 0.05, 0.2, 0.0, 0.0]),
    "ack": ([0.0, 0.12, 0.88, 0.0], [0.97, 0.02, 0.01, 0.0, 0.0], [0.55, 0.0, 0.45, 0.0, 0.0, 0.0]),
    "draw": ([0.0, 0.08, 0.92, 0.0], [0.92, 0.06, 0.02, 0.0, 0.0], [0.95, 0.02, 0.03, 0.0, 0.0, 0.0]),
}
_REPAIR_STATES = {"repair", "ask", "answer"}


def grounded_probability(progress: float, visible: bool, eff: float) -> float:
    """Chance of feeling grounded at drawing ``progress`` (0-1); ``eff`` is the session's own offset."""
    return sigmoid(-0.5 + 2.8 * progress + (0.55 if visible else 0.0) + eff)


def mental_model(rng, role: str, state: str, grounded_p: float, lm: str) -> MentalModel:
    key = state if state in _UNGROUNDED else "chat"
    ung = _UNGROUNDED[key]
    grd = _GROUNDED.get(key)
    grounded = grd is not None and rng.random() < grounded_p
    tg_w, pi_w, sr_w = grd if grounded and grd is not None else ung
    labels = {}
    for dim, w, codes in (
        ("team_goal", tg_w, list(schema.TEAM_GOAL)),
        ("partner_intent", pi_w, list(schema.PARTNER_INTENT)),
        ("self_reasoning", sr_w, list(schema.SELF_REASONING)),
    ):
        if rng.random() < 0.012:
            labels[dim] = {"code": "other", "other_text": choice(rng, OTHER_TEXTS)}
        else:
            labels[dim] = choice(rng, codes, w)
    if state in _REPAIR_STATES:
        p_aligned = 0.35 if state == "repair" else 0.55
    elif grounded:
        p_aligned = 0.97
    else:
        p_aligned = 0.55 + 0.35 * grounded_p
    aligned = bool(rng.random() < p_aligned)
    reasons: list[str] = []
    if not aligned:
        w = [0.1, 0.45, 0.2, 0.22, 0.03] if state in _REPAIR_STATES else [0.12, 0.25, 0.3, 0.28, 0.05]
        reasons.append(choice(rng, list(schema.MISALIGNMENT_REASON), w))
        if rng.random() < 0.2:
            extra = choice(rng, list(schema.MISALIGNMENT_REASON))
            if extra not in reasons:
                reasons.append(extra)
    rats = RATIONALES.get((role, state)) or RATIONALES[(role, "chat")]
    return MentalModel(
        **labels,
        aligned=aligned,
        misalignment_reasons=reasons,
        rationale=choice(rng, rats).format(lm=lm),
    )
