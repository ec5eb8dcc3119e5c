"""Structured interdependence of a kitchen run: the items one agent leaves on the counter for the other,
and what became of them (section 3.2 of "Beyond Task Success"; the metrics built on it:
:mod:`analysis.kitchen.metrics`).

**Structured interdependence** (after "constructive interdependence": who enables whom). The paper
names N_trig "candidate trigger actions", N_int "accepted dependencies" and N_cons "constructive
dependencies", and sets ADR = N_int / N_trig, IDensity = N_cons / N_int, MOR = 1 - ADR. In a
Collab-Overcooked trace (:func:`interdependence`):

- a *candidate trigger* is a completed ``place_obj_on_counter()``: the counter is the one place an
  agent leaves an item the partner can take ("Players can only pass items by placing them on the
  counter", the benchmark's prompt). The item is what the agent held, followed through its completed
  actions (a ``pickup(o, place)`` holds o; a hand-over, ``put_obj_in_utensil`` or ``deliver_soup()``
  empties the hands; ``fill_dish_with_food`` holds a dish); "" when unknown;
- it is an *accepted dependency* when the partner then completes ``pickup(o, counter)`` of that item
  within the window [s, s + w] of the trigger's step s (the window of :mod:`analysis.kitchen.tgco`, so that
  Appendix B.2's level-normalized and fixed-window ADR are this with the two windows). A pickup from
  the counter takes the earliest item of that name the partner placed there, else the picker's own
  (taking back one's own item is no dependency); a pickup after the window removes the item
  but accepts nothing: a missed opportunity (MOR);
- it is *constructive* when the partner's next completed action uses the item for the task: puts
  it into a utensil, fills a dish with it or delivers it (not setting it down again or leaving it),
  and the item belongs to the recipe (:class:`analysis.kitchen.tgco.TaskObjects`; an item of unknown name
  counts as the recipe's).
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.kitchen.requests import OpAction, normalize_arg, parse_op_action
from analysis.kitchen.tgco import TaskObjects, task_objects
from corpus.kitchen.run import ROLES, KitchenRun
from corpus.values import Undefined, is_defined

Value = float | Undefined
USES = ("put_obj_in_utensil", "fill_dish_with_food", "deliver_soup")
Action = tuple[int, int, OpAction]  # a completed action: (step, agent, action)


def _name(agent: int) -> str:
    return ROLES[agent] if 0 <= agent < len(ROLES) else f"player {agent}"


@dataclass(frozen=True)
class Trigger:
    """One candidate trigger: an item placed on the counter, and what became of it."""

    step: int
    agent: int
    item: str  # "" when unknown
    accepted_step: int | Undefined  # the partner's pickup within the window
    constructive: bool
    reason: str

    @property
    def accepted(self) -> bool:
        return is_defined(self.accepted_step)


@dataclass(frozen=True)
class Interdependence:
    """The triggers of a run and the window they were judged with."""

    window: int
    triggers: tuple[Trigger, ...]

    @property
    def n_trig(self) -> int:
        return len(self.triggers)

    @property
    def n_int(self) -> int:
        return sum(t.accepted for t in self.triggers)

    @property
    def n_cons(self) -> int:
        return sum(t.constructive for t in self.triggers)

    @property
    def adr(self) -> Value:
        """ADR = N_int / N_trig."""
        return self.n_int / self.n_trig if self.n_trig else Undefined("no trigger action (N_trig = 0)")

    @property
    def idensity(self) -> Value:
        """IDensity = N_cons / N_int."""
        return self.n_cons / self.n_int if self.n_int else Undefined("no accepted dependency (N_int = 0)")

    @property
    def mor(self) -> Value:
        """MOR = 1 - ADR."""
        adr = self.adr
        return 1 - adr if isinstance(adr, float) else adr


@dataclass
class _Placed:
    item: str
    agent: int
    step: int
    index: int


def _actions(run: KitchenRun) -> list[Action]:
    """The run's completed actions in step order (stable: same-step actions keep their order); an
    action that is not ``verb(arguments)`` is its whole text as a verb."""
    done = sorted(run.completed, key=lambda c: c.step)
    return [(c.step, c.agent, parse_op_action(c.action) or OpAction(normalize_arg(c.action))) for c in done]


def _take_from_counter(counter: list[_Placed], item: str, agent: int) -> _Placed | None:
    """What a pickup of ``item`` from the counter takes off it: the earliest item of that name the
    partner placed there, else the picker's own; None when the counter holds none."""
    fits = [p for p in counter if p.item in (item, "")]
    fits.sort(key=lambda p: (p.agent == agent, p.step))
    if not fits:
        return None
    counter.remove(fits[0])
    return fits[0]


def _counter_passes(
    acts: list[Action], window: int
) -> tuple[list[tuple[int, int, str]], dict[int, tuple[int, int, int]]]:
    """The items placed on the counter, each (step, agent, item held), and the ones the partner took
    within ``window`` steps: trigger -> (pickup step, picker, position in ``acts``)."""
    held: dict[int, str] = {}
    counter: list[_Placed] = []
    placed: list[tuple[int, int, str]] = []
    taken: dict[int, tuple[int, int, int]] = {}
    for pos, (step, agent, act) in enumerate(acts):
        if act.verb == "pickup" and act.args:
            item = act.args[0]
            got = _take_from_counter(counter, item, agent) if act.args[1:] == ("counter",) else None
            if got is not None and got.agent != agent and got.step <= step <= got.step + window:
                taken[got.index] = (step, agent, pos)
            held[agent] = item
        elif act.verb == "place_obj_on_counter":
            counter.append(_Placed(held.get(agent, ""), agent, step, len(placed)))
            placed.append((step, agent, held.get(agent, "")))
            held[agent] = ""
        elif act.verb in ("put_obj_in_utensil", "deliver_soup"):
            held[agent] = ""
        elif act.verb == "fill_dish_with_food":
            held[agent] = held.get(agent) or "dish"
    return placed, taken


def _trigger(
    placed: tuple[int, int, str],
    taken: tuple[int, int, int] | None,
    acts: list[Action],
    objects: TaskObjects,
    window: int,
) -> Trigger:
    """One item placed on the counter as a trigger: whether the partner took it (``taken``), whether
    its next action used it for the recipe, and why."""
    step, agent, item = placed
    what = item.replace("_", " ") if item else "an item"
    head = f"{_name(agent)} placed {what} on the counter at step {step}"
    if taken is None:
        return Trigger(
            step,
            agent,
            item,
            Undefined("the partner did not take it within the window"),
            False,
            f"{head}; the partner did not pick it up within steps {step} to {step + window}",
        )
    at, picker, pos = taken
    head += f"; {_name(picker)} picked it up at step {at}"
    after = next(((s, a) for s, who, a in acts[pos + 1 :] if who == picker), None)
    recipe_item = not item or objects.relevant(item)
    if after is not None and after[1].verb in USES and recipe_item:
        return Trigger(step, agent, item, at, True, f"{head} and used it: {after[1]} at step {after[0]}")
    if after is None:
        return Trigger(step, agent, item, at, False, f"{head} and did nothing more with it")
    if not recipe_item:
        return Trigger(step, agent, item, at, False, f"{head}, but {item} is not of the recipe")
    return Trigger(step, agent, item, at, False, f"{head}, then {after[1]} at step {after[0]}")


def interdependence(run: KitchenRun, window: int, objects: TaskObjects | None = None) -> Interdependence:
    """The candidate triggers of a run, each accepted or not within ``window`` steps, and whether
    constructive (see the module's text)."""
    objects = objects or task_objects(run)
    acts = _actions(run)
    placed, taken = _counter_passes(acts, window)
    return Interdependence(
        window, tuple(_trigger(p, taken.get(k), acts, objects, window) for k, p in enumerate(placed))
    )


__all__ = ["USES", "Trigger", "Interdependence", "interdependence"]
