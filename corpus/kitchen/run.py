"""The kitchen domain: one two-agent cooking run (Collab-Overcooked, Overcooked-AI) as Groundwork
reads it, whatever format it came in.

A run is what the environment recorded, step by step: the kitchen grid, both agents' physical
actions and when each completed, what the agents said to each other (turns of conversations, with
the structured ``Collab(...)`` messages as the agents wrote them), the corrections the format checker
and the validator made, tokens, rewards and the score. Importers (:mod:`corpus.importers.overcooked`)
build these objects; the communication audit and the run metrics (:mod:`analysis.kitchen.tgco`) read them.

Agents are numbered as the source numbers them: 0 is the Chef, 1 the Assistant (Collab-Overcooked's
roles; Overcooked-AI's two players are 0 and 1 with no role, named "player 0" and "player 1").
Steps are the environment's timesteps, from 0.

A run's **pairing** is directed and names each agent's scaffold with its model, Chef first:
``a-tom gpt-4o -> a-tom claude-sonnet-4`` (a run whose scaffold is not recorded names the models
alone, ``gpt-4o -> claude-sonnet-4``), so runs of the same models under different agent frameworks
are never pooled.

Every class here is validated by :mod:`corpus.kitchen.dataset` when a run file is read back (strictly:
a whole number where one is expected, no unknown field), through the pydantic configuration each
class carries.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CHEF, ASSISTANT = 0, 1
ROLES = ("Chef", "Assistant")
UNKNOWN = "?"  # a model or scaffold the source does not name, as a pairing shows it

# How pydantic validates these dataclasses (corpus.kitchen.dataset): strictly, no unknown field. A
# plain mapping, so that this module needs no pydantic import.
_STRICT = {"strict": True, "extra": "forbid"}


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation between the agents (or an agent's lone planning call).

    ``say`` is the message as sent, without the source's trailing code fence: a ``Collab(...)``
    text, free text, or "" when the agent said nothing (the source's ``[NOTHING]``). ``action`` is
    what the turn chose to do ("Collab(...)" for a message, a physical action such as
    ``pickup(onion, ingredient_dispenser)``, or ""). ``conversation`` numbers the conversations of
    a run from 0, in order; ``initiator`` is the agent who started it.
    """

    __pydantic_config__ = _STRICT

    step: int
    agent: int
    conversation: int
    initiator: int
    say: str = ""
    action: str = ""
    think: str = ""
    goal: str = ""  # recent_goal, or a fork's plan
    analysis: str = ""  # a fork's analysis field
    tokens: int | None = None


@dataclass(frozen=True)
class Completed:
    """A physical action as the environment accepted it, at the step it completed (not the step it
    was chosen at: a pickup chosen at step 0 that takes three steps is listed at step 3)."""

    __pydantic_config__ = _STRICT

    step: int
    agent: int
    action: str


@dataclass(frozen=True)
class Correction:
    """A correction the environment made to an agent's output: ``kind`` is "format" (the output did
    not parse) or "validator" (the action was not allowed in that state); ``message`` is what the
    agent was told."""

    __pydantic_config__ = _STRICT

    step: int
    agent: int
    kind: str
    message: str = ""


@dataclass(frozen=True)
class KitchenStep:
    """The kitchen at one step: the grid as the source drew it (rows of cells, see
    :func:`corpus.importers.overcooked.grid_cells`), the actions in progress per agent, the
    cumulative score, the step's team reward and the open orders."""

    __pydantic_config__ = _STRICT

    step: int
    grid: str
    actions: tuple[str, ...]
    score: float = 0.0
    reward: float = 0.0
    orders: tuple[str, ...] = ()


@dataclass(frozen=True)
class KitchenRun:
    """One run (an episode) of two agents cooking.

    ``models`` names the model playing each agent (index = agent), "" where the source does not say;
    ``scaffold`` the agent framework ("baseline", "ProAgent", "AToM", ...), "" when unknown.
    ``level`` is the recipe's task level (1-6 in Collab-Overcooked), None when unknown. ``success``
    is whether every order was delivered; a failed run (score 0, order unfinished) is a run like
    any other. ``source`` is the file it was read from (relative to what was imported)."""

    __pydantic_config__ = _STRICT

    id: str
    source: str
    recipe: str
    level: int | None
    models: tuple[str, ...]
    scaffold: str
    score: float
    success: bool
    finished: tuple[str, ...]
    steps: tuple[KitchenStep, ...]
    turns: tuple[Turn, ...] = ()
    completed: tuple[Completed, ...] = ()
    corrections: tuple[Correction, ...] = ()
    tokens: int = 0
    format: str = "collab-overcooked"  # or "overcooked-ai"
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def scaffolds(self) -> tuple[str, str]:
        """Each agent's scaffold, Chef first ("" where not recorded): ``scaffold`` names one for both
        agents, or "chef's -> assistant's" ("?" for a side not recorded)."""
        parts = [p.strip() for p in self.scaffold.split(" -> ")] if " -> " in self.scaffold else [self.scaffold] * 2
        named = ["" if p == UNKNOWN else p for p in parts] + [""] * 2
        return named[0], named[1]

    @property
    def model_pairing(self) -> str:
        """The directed model pairing, "Chef model -> Assistant model" ("?" for an unnamed model)."""
        names = [m or UNKNOWN for m in self.models] + [UNKNOWN] * (2 - len(self.models))
        return f"{names[0]} -> {names[1]}"

    @property
    def pairing(self) -> str:
        """The directed pairing with each agent's scaffold, "a-tom gpt-4o -> a-tom claude-sonnet-4"
        (the models alone when no scaffold is recorded; "?" for an unnamed model)."""
        names = [m or UNKNOWN for m in self.models] + [UNKNOWN] * (2 - len(self.models))
        if not any(self.scaffolds):
            return f"{names[0]} -> {names[1]}"
        sides = [f"{s or UNKNOWN} {m}" for s, m in zip(self.scaffolds, names)]
        return f"{sides[0]} -> {sides[1]}"

    @property
    def n_steps(self) -> int:
        return len(self.steps)
