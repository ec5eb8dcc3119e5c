"""TGCO: the trace-grounded communication outcome audit of a kitchen run (Collab-Overcooked), after
"Beyond Task Success: Evaluating Cooperation in LLM-Based Multi Agent Systems" (Table 1, section 3.2
and Appendix C). Each request an agent sends is checked against what the environment recorded.

**Request units**, from every shape the runs write them in (rules R1-R4, read by
:mod:`analysis.kitchen.requests`; each has its own test sentence in ``tests/test_tgco_language.py``).
A request unit is u = (action, object, location, target agent), with a stable id (run id, index of
the turn in ``run.turns``, index of the unit in the turn) and the step its turn was sent at.

- **R1 Collab.** A turn whose ``say`` (or its ``action``, when the say is empty or not a Collab while
  the action is) is a ``Collab(...)`` text, as CookPandar's runs write it: ``Collab(request(Assistant,
  pickup(bell_pepper, ingredient_dispenser)); request(Assistant, place_obj_on_counter()))``. Its
  primitives are split at the top-level ``;`` (not inside parentheses or quotes); each
  ``request(receiver, op_action)`` is one unit. ``seek``, ``deny`` and ``ack`` are messages, not
  requests (counted by :class:`analysis.kitchen.requests.Message`). Quotes may be escaped (``\\"``);
  spacing varies; an op-action's arguments may hold parentheses.
- **R2 A request call.** Each ``request('op_action')`` (quoted or not) of a turn's plan, as the
  benchmark's own prompt asks for it and its runs write it: ``Chef plan: request('pickup(egg,
  ingredient_dispenser)'); request('place_obj_on_counter()')``; and of a say that writes such calls
  among its ``;``-separated parts (``request('wait(3)'); Please wait while the egg cooks``). The
  benchmark's ``request(operation_action)`` skill appends the action to the teammate's plan, so the
  target is the sender's partner.
- **R3 Plain language.** What a say asks the partner in English ("Please pick up an egg from the
  ingredient dispenser and place it on the counter so I can use it to start cooking."), read with
  the run's own vocabulary (its recipe and ingredients, the objects its actions name, its kitchen's
  places) by the rules L1-L12 of :mod:`analysis.kitchen.language`: ``pickup(egg, ingredient_dispenser)``
  and ``place_obj_on_counter()`` (object ``egg``). An argument a sentence does not name is ``?``
  and matches any (``pickup(potato_slices, ?)``); a utensil named by its kind in a kitchen with
  several matches any of them.
- **R4 One request, however often written.** A unit read from a say that asks what a structured
  unit of the same turn (R1, R2) asks (the same verb, arguments that agree where both are named, the
  same target) is that unit, with the object the sentence names when the structured one names none.

A message (a turn that said or requested something) from which R1-R4 read no unit and no Collab
primitive is *unstructured*: "no identifiable partner-directed request" (Appendix C, line 3). It is
set apart, counted on its own, listed with its text (for a person to code) and left out of N_req,
so out of FollowRate's denominator ("Unstructured messages are filtered out before any scoring ...
excluded from FollowRate and DelayedRate denominators", Appendix C; section 3.2 says instead that
they "are included in INEFFECTIVE": this module follows the appendix's pseudo-code, as its decision
order is the one specified). A ``request`` whose op-action is not ``verb(arguments)``, or that has
more than two arguments, is a *malformed* unit: INEFFECTIVE ("malformed requests", Table 1).

**The decision rule**, in Appendix C's order, for a unit sent by agent i at step t:

1. *Target check* ("intended actor j is identifiable in u"): a Collab request's receiver must name
   an agent of the run ("Chef" = 0, "Assistant" = 1, or "player 0" / "player 1"; case and spacing
   aside), and that agent must be the sender's partner. A Collab request to the sender itself, to
   nobody (CookPandar's prompt's own example ``request(pickup(...))`` names no receiver) or to an
   unknown name is INEFFECTIVE. A plan's request (R2) targets the partner; a plain-language one (R3)
   the partner, or the role its sentence addresses.
2. *Relevance check* ("(o, a) belongs to active recipe or task state"): the verb must be an
   operation action of Collab-Overcooked that changes the kitchen (``pickup``, ``place_obj_on_counter``,
   ``put_obj_in_utensil``, ``fill_dish_with_food``, ``cook``, ``bake``, ``cut``, ``stir``,
   ``deliver_soup``) with its number of arguments, and every argument must be a thing of this run
   (:func:`task_objects`): a place of the kitchen (``counter``, ``ingredient_dispenser``,
   ``dish_dispenser``, and the utensils ``pot0``, ``oven0``, ``chopping_board0``, ``blender0``... the
   first step's grid holds, counted by kind from its letters P, O, C, B; ``dish`` when the kitchen
   has a dish dispenser) or a food of the recipe: a name whose words run inside the recipe's name
   (``bell_pepper`` in ``baked_bell_pepper``), or that contains an ingredient of the recipe
   (``potato_slices`` contains ``potato``; ingredients come from ``run.extra["recipe_text"]``, the
   Chef's recipe card, when the run carries it, else from the benchmark's card of the recipe,
   :data:`corpus.importers.overcooked.recipes.RECIPE_INGREDIENTS`); the object a plain-language unit
   names must be one too. ``wait(n)`` is not relevant: it changes no object,
   and the environment does not list waits among completed actions, so it cannot be audited.
   Limits: the recipe state is static (a request for an ingredient the recipe needs but that is
   already in the pot is still relevant: redundancy catches the repeats); the grid legend is
   inferred from the logs (see the Collab-Overcooked notes), not documented by the benchmark; for a
   recipe outside the benchmark's and without a recipe card, an intermediate food named with words
   not in the recipe's name (``sliced_potato`` for ``potato_bake``) counts as irrelevant.
3. *Redundancy* (checked before the trace lookup, "so later repetition does not count as
   effective"): REDUNDANT when an action with the same verb and the same arguments (the matching
   rule below) was completed by either agent at a step <= t. A completed action is stamped with the
   step at which its effect first shows in the state, and the agents talk at step t over that
   state (in the real log the Assistant's ``place_obj_on_counter()`` is stamped 5, the grid of step 5
   shows the pepper on the counter, and the Chef's request for it at step 5 is followed by its
   thanks for it in the same conversation): so "completed before time t" is a stamp <= t. Limit:
   the trace names actions, not object instances (the paper's object lineage), so a recipe that
   needs the same action twice (two potatoes from the dispenser, two hand-overs) sees its second
   request as REDUNDANT.
4. *Trace lookup*: the partner j completes a matching action at a step in [t, t + w]; matching is
   the same verb and the same arguments after normalising each (case folded, spaces around
   parentheses and commas dropped, other runs of spaces made one ``_``, surrounding quotes
   dropped), an argument not named (``?``) matching any and a utensil's kind any utensil of that
   kind (:func:`action_matches`, used by step 3 too); ``place_obj_on_counter()`` matches any
   hand-over by j. A completion stamped t itself is
   already caught by step 3. No match is INEFFECTIVE (no partner action, a mismatched object, the
   sender doing it itself, or the partner doing it after the window: the reason says which).
5. *Validator check*: ASSISTED when a validator correction of j is stamped in [t, m) (m the match's
   step: a correction at m concerns the action j chooses after the match), else EFFECTIVE.

**The window** w (:class:`Window`): level-normalized by default, w_l = ceil(alpha x L_l) with
alpha = 0.15 (Appendix B.2, "level-normalized ADR (alpha = 0.15)", and the w_l of Table 1), where
L_l is the mean episode length (steps) of the runs of level l being analysed (:func:`level_lengths`;
a run alone, or of no known level, uses its own length), at least 1 step: a run's window depends on the
other runs of its level analysed with it. The paper's NRC runs average 100 to 160 steps (Table 2), so its alpha gives 15 to 24 steps, near its fixed alternative; that
fixed window, w = 20 steps (B.2's robustness check), is :data:`FIXED_WINDOW`. The same window serves
the structured interdependence of :mod:`analysis.kitchen.dependencies`.

**Where the authors' own audit departs from Appendix C** (their ``scripts/analysis/tgco_audit.py``:
a fixed window of 5 steps after the message, redundancy by the target's actions only, one partner
action credited to one request, validator errors counted up to the match, no relevance check), this
module follows Appendix C, the procedure the paper states; :mod:`analysis.kitchen.reference` lists
every such difference and sets their audit against this one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pandas as pd

from analysis.kitchen.language import ANY, Reader, Vocabulary
from analysis.kitchen.requests import (
    Message,
    OpAction,
    RequestUnit,
    normalize_arg,
    parse_op_action,
    pickups,
    place_kind,
    plan_pickups,
    read_message,
)
from corpus.importers.overcooked.recipes import RECIPE_INGREDIENTS
from corpus.kitchen.run import ROLES, KitchenRun
from corpus.values import Undefined

EFFECTIVE, ASSISTED, REDUNDANT, INEFFECTIVE = "effective", "assisted", "redundant", "ineffective"
OUTCOMES = (EFFECTIVE, ASSISTED, REDUNDANT, INEFFECTIVE)
OUTCOME_NAMES = {EFFECTIVE: "Effective", ASSISTED: "Assisted", REDUNDANT: "Redundant", INEFFECTIVE: "Ineffective"}
# The check that decided a unit, in the order of Appendix C.
STAGES = ("parse", "target", "relevance", "redundancy", "trace", "validator")

# Operation actions that change the kitchen, with their number of arguments (the Chef's and the
# Assistant's skills in the Collab-Overcooked prompts; wait(n) is left out on purpose).
OPERATIONS = {
    "pickup": 2,
    "place_obj_on_counter": 0,
    "put_obj_in_utensil": 1,
    "fill_dish_with_food": 1,
    "cook": 1,
    "bake": 1,
    "cut": 1,
    "stir": 1,
    "deliver_soup": 0,
}
UTENSIL_LETTERS = {"P": "pot", "O": "oven", "C": "chopping_board", "B": "blender"}
UTENSIL_KINDS = tuple(UTENSIL_LETTERS.values())
DISPENSER_LETTERS = {"I": "ingredient_dispenser", "D": "dish_dispenser"}
ALPHA = 0.15
FIXED_STEPS = 20


def messages(run: KitchenRun) -> tuple[Message, ...]:
    """Every message of the run, in turn order, plain language read with the run's vocabulary."""
    reader = Reader(vocabulary(run))
    found = (read_message(run.id, k, t, reader) for k, t in enumerate(run.turns))
    return tuple(m for m in found if m is not None)


def vocabulary(run: KitchenRun) -> Vocabulary:
    """The names plain language is read with (:mod:`analysis.kitchen.language`): the recipe, its
    ingredients and every ingredient of the benchmark's recipes, ``dish``, every object the run's
    completed actions, plans and structured requests pick up, and the places of its kitchen."""
    objects = task_objects(run)
    names = {normalize_arg(run.recipe), *objects.ingredients, "dish"}
    names.update(i for ingredients in RECIPE_INGREDIENTS.values() for i in ingredients)
    names.update(pickups(parse_op_action(c.action) for c in run.completed))
    for t in run.turns:
        names.update(plan_pickups(t.goal))
    names.discard("")
    return Vocabulary(tuple(sorted(n for n in names if not objects.place(n) or n == "dish")), objects.places)


# -- what belongs to the task --------------------------------------------------------------------


def _words(name: str) -> tuple[str, ...]:
    return tuple(w for w in normalize_arg(name).split("_") if w)


def _runs_inside(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    k = len(part)
    return k > 0 and any(whole[i : i + k] == part for i in range(len(whole) - k + 1))


def recipe_ingredients(recipe_text: str) -> tuple[str, ...]:
    """The names under ``INGREDIENTS:`` of a Collab-Overcooked recipe card ("bell_pepper (1)")."""
    m = re.search(r"INGREDIENTS:\s*\n(.*?)(?:\n\s*\n|\n[A-Z][A-Z ]+:|\Z)", recipe_text or "", flags=re.S)
    if not m:
        return ()
    names = (re.sub(r"\(.*?\)", "", line).strip(" -*\t") for line in m.group(1).splitlines())
    return tuple(normalize_arg(n) for n in names if n)


def kitchen_places(grid: str) -> tuple[str, ...]:
    """The places a grid holds: ``counter``, the dispensers, and each utensil numbered by kind from
    0 (``pot0``, ``oven0``, ``oven1``...), from the letters that start its cells (X counter, I
    ingredient and D dish dispenser, P pot, O oven, C chopping board, B blender)."""
    cells = [c for c in grid.split() if c and c[0].isascii() and c[0].isalpha()]
    letters = [c[0] for c in cells]
    places = ["counter"] if "X" in letters else []
    places += [name for letter, name in DISPENSER_LETTERS.items() if letter in letters]
    for letter, kind in UTENSIL_LETTERS.items():
        places += [f"{kind}{i}" for i in range(letters.count(letter))]
    return tuple(places)


@dataclass(frozen=True)
class TaskObjects:
    """The things a run's requests may name: the recipe, its ingredients when known, and the
    kitchen's places (every place of Collab-Overcooked's kitchens when the run has no grid)."""

    recipe: str
    ingredients: tuple[str, ...] = ()
    places: tuple[str, ...] | None = None  # None: no grid, any known place

    def place(self, name: str) -> bool:
        """Whether ``name`` is a place of the kitchen: one of its places, or the kind of one of its
        utensils ("pot" in a kitchen with pot0 and pot1)."""
        if self.places is not None:
            present = {place_kind(p) for p in self.places}
            return (
                name in self.places
                or (name == "dish" and "dish_dispenser" in self.places)
                or (name in UTENSIL_KINDS and name in present)
            )
        kinds = "|".join(UTENSIL_KINDS)
        return name in ("counter", "dish", *DISPENSER_LETTERS.values()) or bool(re.fullmatch(rf"({kinds})\d*", name))

    def food(self, name: str) -> bool:
        words, recipe = _words(name), _words(self.recipe)
        if _runs_inside(words, recipe) or _runs_inside(recipe, words):
            return True
        return any(_runs_inside(_words(i), words) for i in self.ingredients)

    def relevant(self, name: str) -> bool:
        return self.place(name) or self.food(name)


def task_objects(run: KitchenRun) -> TaskObjects:
    """What belongs to the run's task: its recipe (``run.recipe``), the ingredients of its recipe
    card when ``run.extra["recipe_text"]`` holds one, else those of the benchmark's recipe of that
    name (:data:`corpus.importers.overcooked.recipes.RECIPE_INGREDIENTS`), and the places of its first
    step's grid."""
    card = run.extra.get("recipe_text") if isinstance(run.extra, dict) else None
    ingredients = recipe_ingredients(card) if isinstance(card, str) else ()
    if not ingredients:
        ingredients = RECIPE_INGREDIENTS.get(run.recipe, ())
    grid = run.steps[0].grid if run.steps else ""
    places = kitchen_places(grid) if grid.strip() else None
    return TaskObjects(run.recipe, ingredients, places)


def relevance(action: OpAction, objects: TaskObjects) -> str:
    """Why an op-action is not part of the task, or "" when it is."""
    if action.verb == "wait":
        return "wait(n) is not a task action: it changes no object and the environment lists no waits"
    if action.verb not in OPERATIONS:
        return f"{action.verb} is not an operation action of the kitchen"
    if len(action.args) != OPERATIONS[action.verb]:
        return f"{action.verb} takes {OPERATIONS[action.verb]} argument(s), not {len(action.args)}"
    stray = [a for a in action.args if a != ANY and not objects.relevant(a)]
    if stray:
        return f"{', '.join(stray)} is not an object of the recipe ({objects.recipe}) or a place of the kitchen"
    return ""


# -- the window ----------------------------------------------------------------------------------


def episode_length(run: KitchenRun) -> int:
    """A run's length in steps: its recorded steps, or (with none) one more than the last step any
    turn, completed action or correction is stamped with."""
    if run.steps:
        return len(run.steps)
    stamps = [t.step for t in run.turns] + [c.step for c in run.completed] + [c.step for c in run.corrections]
    return max(stamps) + 1 if stamps else 0


def level_lengths(runs: Iterable[KitchenRun]) -> dict[int, float]:
    """The mean episode length of the runs of each known level."""
    by: dict[int, list[int]] = {}
    for r in runs:
        if r.level is not None:
            by.setdefault(r.level, []).append(episode_length(r))
    return {lvl: sum(v) / len(v) for lvl, v in by.items()}


@dataclass(frozen=True)
class Window:
    """The acceptance window w in steps: level-normalized, ceil(alpha x L) with L the mean episode
    length of the run's level (the run's own length when no level length is given), at least 1; or
    a fixed number of steps."""

    kind: str = "level"  # or "fixed"
    alpha: float = ALPHA
    steps: int = FIXED_STEPS

    def __post_init__(self) -> None:
        if self.kind not in ("level", "fixed"):
            raise ValueError(f"a window is 'level' or 'fixed', not {self.kind!r}")
        if self.alpha <= 0 or self.steps < 0:
            raise ValueError("a window needs alpha > 0 and steps >= 0")

    def size(self, run: KitchenRun, lengths: Mapping[int, float] | None = None) -> tuple[int, str]:
        """w for this run, and how it was obtained."""
        if self.kind == "fixed":
            return self.steps, f"fixed window of {self.steps} steps"
        if lengths and run.level is not None and run.level in lengths:
            length, of = float(lengths[run.level]), f"the mean length of level {run.level}'s runs"
        else:
            length, of = float(episode_length(run)), "the run's own length"
        w = max(1, math.ceil(self.alpha * length - 1e-9))
        return w, f"level-normalized window: ceil({self.alpha:g} x {length:g} steps, {of}) = {w} steps"


LEVEL_WINDOW = Window("level", ALPHA)
FIXED_WINDOW = Window("fixed", steps=FIXED_STEPS)


# -- the audit -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitOutcome:
    """The outcome of one request unit, the sentence that says why, the step of the partner's
    matching action, and the check that decided (:data:`STAGES`)."""

    unit: RequestUnit
    outcome: str
    reason: str
    matched_step: int | Undefined
    stage: str


@dataclass(frozen=True)
class Audit:
    """A run's messages and the outcome of each request unit, under a window of ``window`` steps."""

    run_id: str
    window: int
    window_rule: str
    messages: tuple[Message, ...]
    units: tuple[UnitOutcome, ...]
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def n_requests(self) -> int:
        """N_req = N_eff + N_assist + N_red + N_ineff (unstructured messages set apart)."""
        return len(self.units)

    @property
    def unstructured(self) -> tuple[Message, ...]:
        return tuple(m for m in self.messages if not m.structured)

    def primitive_count(self, name: str) -> int:
        """How many ``name`` primitives (request, seek, deny, ack) the run's messages hold."""
        return sum(m.primitives.count(name) for m in self.messages)

    @property
    def follow_rate(self) -> float | Undefined:
        """(N_eff + N_assist) / N_req."""
        if not self.units:
            return Undefined("the run sent no request unit")
        return (self.counts[EFFECTIVE] + self.counts[ASSISTED]) / self.n_requests

    def frame(self) -> pd.DataFrame:
        """One row per request unit: its id, step, sender, receiver, action, outcome and reason."""
        return pd.DataFrame(self.rows(), columns=list(UNIT_COLUMNS))

    def rows(self) -> list[dict]:
        """:meth:`frame`'s rows as dicts (many runs' rows make one table faster than many tables)."""
        return [
            {
                "run": u.unit.run_id,
                "turn": u.unit.turn,
                "unit": u.unit.index,
                "step": u.unit.step,
                "sender": u.unit.sender,
                "receiver": u.unit.receiver,
                "target": u.unit.target if isinstance(u.unit.target, int) else "",
                "action": str(u.unit.action) if isinstance(u.unit.action, OpAction) else u.unit.text,
                "object": u.unit.object,
                "shape": u.unit.shape,
                "outcome": u.outcome,
                "reason": u.reason,
                "matched_step": u.matched_step,
                "stage": u.stage,
                "rule": u.unit.rule,
                "said": u.unit.text,
            }
            for u in self.units
        ]


UNIT_COLUMNS = (
    "run",
    "turn",
    "unit",
    "step",
    "sender",
    "receiver",
    "target",
    "action",
    "object",
    "shape",
    "outcome",
    "reason",
    "matched_step",
    "stage",
    "rule",
    "said",
)


def _name(agent: int) -> str:
    return ROLES[agent] if 0 <= agent < len(ROLES) else f"player {agent}"


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


def action_matches(want: OpAction, done: OpAction) -> bool:
    """Whether a completed action ``done`` is the requested ``want``: the same verb and arguments,
    where a request's argument the sentence did not name (:data:`ANY`) matches any, and a utensil
    named by its kind ("pot") matches any utensil of that kind ("pot0", "pot1")."""
    if want.verb != done.verb or len(want.args) != len(done.args):
        return False
    return all(w == d or w == ANY or (w in UTENSIL_KINDS and place_kind(d) == w) for w, d in zip(want.args, done.args))


class Trace:
    """The completed actions of a run, parsed once."""

    def __init__(self, run: KitchenRun) -> None:
        done = sorted(run.completed, key=lambda c: c.step)
        self.done = [(c.step, c.agent, parse_op_action(c.action) or OpAction(normalize_arg(c.action))) for c in done]
        self.validator = sorted((c.step, c.agent) for c in run.corrections if c.kind == "validator")

    def first(
        self, action: OpAction, start: int | None, end: int | None, agent: int | None = None
    ) -> tuple[int, int] | None:
        """The first completion of ``action`` stamped in [start, end] (open ends: None), by ``agent``
        when given: (step, agent)."""
        for step, who, act in self.done:
            if (start is None or step >= start) and (end is None or step <= end) and action_matches(action, act):
                if agent is None or who == agent:
                    return step, who
        return None


def decide(
    unit: RequestUnit, trace: Trace, objects: TaskObjects, window: int, n_agents: int = 2
) -> tuple[str, str, int | Undefined, str]:
    """Appendix C for one unit: (outcome, reason, matched step, deciding check)."""
    none = Undefined("no partner action matched the request")
    sender = _name(unit.sender)
    if isinstance(unit.action, Undefined):
        return INEFFECTIVE, f"malformed request: {unit.action.reason}", none, "parse"
    action = unit.action
    if isinstance(unit.target, Undefined):
        return INEFFECTIVE, f"no identifiable target: {unit.target.reason}", none, "target"
    j = unit.target
    if j == unit.sender:
        return INEFFECTIVE, f"wrong target: {sender} addressed the request to itself", none, "target"
    if not 0 <= j < n_agents:
        return INEFFECTIVE, f"wrong target: the run has no agent {j}", none, "target"
    why = relevance(action, objects)
    if not why and unit.object and not objects.relevant(unit.object):
        why = f"{unit.object} is not an object of the recipe ({objects.recipe}) or a place of the kitchen"
    if why:
        return INEFFECTIVE, f"irrelevant request: {why}", none, "relevance"
    prior = trace.first(action, None, unit.step)
    if prior is not None:
        at, who = prior
        when = "in the state the request was sent in" if at == unit.step else f"before the request at step {unit.step}"
        return REDUNDANT, f"{action} was already completed by {_name(who)} at step {at}, {when}", none, "redundancy"
    end = unit.step + window
    match = trace.first(action, unit.step, end, agent=j)
    if match is None:
        later = trace.first(action, end + 1, None, agent=j)
        itself = trace.first(action, unit.step, end, agent=unit.sender)
        why = f"{_name(j)} did not complete {action} within steps {unit.step} to {end}"
        if itself is not None:
            why += f"; the sender ({sender}) did it itself at step {itself[0]}"
        elif later is not None:
            why += f"; it did at step {later[0]}, {_steps(later[0] - end)} after the window closed"
        return INEFFECTIVE, why, none, "trace"
    m = match[0]
    done = f"{_name(j)} completed {action} at step {m}, {_steps(m - unit.step)} after the request"
    corrected = [s for s, who in trace.validator if who == j and unit.step <= s < m]
    if corrected:
        return ASSISTED, f"{done}, after a validator correction at step {corrected[0]}", m, "validator"
    return EFFECTIVE, done, m, "validator"


def audit_run(
    run: KitchenRun,
    window: Window = LEVEL_WINDOW,
    *,
    lengths: Mapping[int, float] | None = None,
    objects: TaskObjects | None = None,
) -> Audit:
    """The TGCO audit of one run. ``lengths``: the mean episode length per level of the runs
    analysed together (:func:`level_lengths`), for the level-normalized window; ``objects``: what
    belongs to the task, when not :func:`task_objects` of the run."""
    w, rule = window.size(run, lengths)
    trace = Trace(run)
    objects = objects or task_objects(run)
    n_agents = max(2, len(run.models))
    msgs = messages(run)
    out = []
    for msg in msgs:
        for unit in msg.units:
            outcome, reason, matched, stage = decide(unit, trace, objects, w, n_agents)
            out.append(UnitOutcome(unit, outcome, reason, matched, stage))
    counts = {o: sum(u.outcome == o for u in out) for o in OUTCOMES}
    return Audit(run.id, w, rule, msgs, tuple(out), counts)


def audit_runs(runs: Sequence[KitchenRun], window: Window = LEVEL_WINDOW) -> tuple[Audit, ...]:
    """The audit of each run; the level-normalized window uses the mean length of each level's runs
    among ``runs``."""
    lengths = level_lengths(runs)
    return tuple(audit_run(r, window, lengths=lengths) for r in runs)


__all__ = [
    "EFFECTIVE",
    "ASSISTED",
    "REDUNDANT",
    "INEFFECTIVE",
    "OUTCOMES",
    "OUTCOME_NAMES",
    "OPERATIONS",
    "UnitOutcome",
    "Audit",
    "TaskObjects",
    "Window",
    "LEVEL_WINDOW",
    "FIXED_WINDOW",
    "messages",
    "recipe_ingredients",
    "kitchen_places",
    "task_objects",
    "relevance",
    "episode_length",
    "level_lengths",
    "Trace",
    "decide",
    "audit_run",
    "audit_runs",
]
