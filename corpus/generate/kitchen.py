"""Synthetic kitchen runs: two simulated agents cooking Collab-Overcooked's level 1 and 2 recipes, for
the bundled sample (``samples/kitchen-synthetic``), so that the Kitchen screen shows its audit, metrics
and replay with no data brought in. Generated, not a record of any model's run.

Each run follows a recipe's plan on one small kitchen (the Assistant at the dispensers and the
chopping board, the Chef at the pot and the oven, counters between them): the Chef asks the Assistant,
in ``Collab(request(Assistant, ...))`` messages, for every step that is the Assistant's, and does its
own. How well the pair cooperates depends on the two simulated models: a weaker Assistant is slower
(some requests done after the acceptance window: ineffective), a weaker Chef repeats requests
(redundant), names the wrong agent or writes free text; a validator correction of the Assistant
sometimes comes before it does what was asked (assisted). A run out of steps before the delivery
is a failed run (score 0).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from corpus.kitchen.run import ASSISTANT, CHEF, Completed, Correction, KitchenRun, KitchenStep, Turn
from corpus.model import DatasetInfo

CELL = 8
# The kitchen: X counter, P pot, O oven, I ingredient dispenser, D dish dispenser, C chopping board,
# B blender, S serving window; the agents stand on the floor cells named below.
LAYOUT = (
    "XXXPX",
    "I.X.X",
    "C.X.X",
    "D.X.O",
    "XBXSX",
)
CHEF_CELLS = ((1, 3), (3, 3))
ASSISTANT_CELLS = ((1, 1), (3, 1))
MODELS = {"sim-strong": 0.9, "sim-weak": 0.55}  # the share of its part a model does well
RECIPES = ("baked_bell_pepper", "boiled_egg", "baked_potato_slices", "boiled_corn_slices")
MAX_STEPS = 40
SAMPLE_NAME = "Kitchen runs (synthetic, Collab-Overcooked format)"


def _food(recipe: str) -> str:
    words = recipe.split("_")[1:]
    return "_".join(w for w in words if w != "slices")


def plan(recipe: str) -> list[tuple[int, str]]:
    """(agent, action) of the recipe's plan, in order."""
    food = _food(recipe)
    utensil, heat = ("oven0", "bake") if recipe.startswith("baked") else ("pot0", "cook")
    prep = [(ASSISTANT, f"pickup({food}, ingredient_dispenser)")]
    if recipe.endswith("_slices"):
        prep += [
            (ASSISTANT, "put_obj_in_utensil(chopping_board0)"),
            (ASSISTANT, "cut(chopping_board0)"),
            (ASSISTANT, f"pickup({food}_slices, chopping_board0)"),
        ]
        food = f"{food}_slices"
    return [
        *prep,
        (ASSISTANT, "place_obj_on_counter()"),
        (CHEF, f"pickup({food}, counter)"),
        (CHEF, f"put_obj_in_utensil({utensil})"),
        (CHEF, f"{heat}({utensil})"),
        (ASSISTANT, "pickup(dish, dish_dispenser)"),
        (ASSISTANT, "place_obj_on_counter()"),
        (CHEF, "pickup(dish, counter)"),
        (CHEF, f"fill_dish_with_food({utensil})"),
        (CHEF, "deliver_soup()"),
    ]


def grid(step: int) -> str:
    """The kitchen at ``step`` as Collab-Overcooked draws it (cells of 8 characters, rows apart by a
    blank line; an agent is an arrow of its facing and its number)."""
    chef = CHEF_CELLS[(step // 2) % 2]
    assistant = ASSISTANT_CELLS[(step // 3) % 2]
    rows = []
    for r, line in enumerate(LAYOUT):
        cells = []
        for c, ch in enumerate(line):
            text = "" if ch == "." else ch
            if (r, c) == chef:
                text = "\u21920"  # facing east, toward the pot and the oven
            elif (r, c) == assistant:
                text = "\u21901"  # facing west, toward the dispensers
            cells.append(text.ljust(CELL))
        rows.append("".join(cells))
    return "\n\n".join(rows) + "\n\n"


def _run(rng: np.random.Generator, run_id: str, recipe: str, chef: str, assistant: str) -> KitchenRun:
    chef_skill, assistant_skill = MODELS[chef], MODELS[assistant]
    turns: list[Turn] = []
    completed: list[Completed] = []
    corrections: list[Correction] = []
    t = 0
    conversation = 0

    def say(step: int, agent: int, text: str) -> None:
        nonlocal conversation
        turns.append(
            Turn(
                step=step,
                agent=agent,
                conversation=conversation,
                initiator=agent,
                say=text,
                action=text if text.startswith("Collab(") else "",
                think="Synthetic turn.",
                tokens=int(rng.integers(120, 420)),
            )
        )
        conversation += 1

    for agent, action in plan(recipe):
        if t >= MAX_STEPS:
            break
        if agent == CHEF:
            t += 1
            completed.append(Completed(t, CHEF, action))
            continue
        roll = rng.random()
        if roll > chef_skill + 0.05:  # the weaker Chef: free text, or the wrong agent
            text = "Could you help with the next part?" if rng.random() < 0.5 else f"Collab(request(Chef, {action}))"
            say(t, CHEF, text)
        say(t, CHEF, f"Collab(request(Assistant, {action}))")
        if rng.random() > chef_skill:  # asked again while the first is still being done
            say(t + 1, CHEF, f"Collab(request(Assistant, {action}))")
        delay = 1 + int(rng.geometric(assistant_skill)) - 1
        if rng.random() > assistant_skill:
            delay += int(rng.integers(4, 9))  # slow: after the acceptance window
        if rng.random() < 0.15:
            corrections.append(
                Correction(t + 1, ASSISTANT, "validator", "That action is not possible now; check the kitchen.")
            )
        t += max(delay, 1)
        completed.append(Completed(t, ASSISTANT, action))
    delivered = bool(completed) and completed[-1].action == "deliver_soup()" and t < MAX_STEPS
    n_steps = min(t + 1, MAX_STEPS)
    steps = tuple(
        KitchenStep(
            step=i,
            grid=grid(i),
            actions=tuple(
                next((c.action for c in completed if c.step >= i and c.agent == a), "wait(1)") for a in (0, 1)
            ),
            score=20.0 if delivered and i >= t else 0.0,
            reward=20.0 if delivered and i == t else 0.0,
            orders=() if delivered and i >= t else (recipe,),
        )
        for i in range(n_steps)
    )
    completed = [c for c in completed if c.step < n_steps]
    return KitchenRun(
        id=run_id,
        source=f"{chef}__{assistant}/{recipe}/{run_id}.json",
        recipe=recipe,
        level=2 if recipe.endswith("_slices") else 1,
        models=(chef, assistant),
        scaffold="baseline",
        score=20.0 if delivered else 0.0,
        success=delivered,
        finished=(recipe,) if delivered else (),
        steps=steps,
        turns=tuple(turns),
        completed=tuple(completed),
        corrections=tuple(c for c in corrections if c.step < n_steps),
        tokens=sum(x.tokens or 0 for x in turns),
        extra={"synthetic": True},
    )


def sample_runs(runs_per_cell: int = 3, seed: int = 0) -> list[KitchenRun]:
    """Every directed pairing of the simulated models on every recipe, ``runs_per_cell`` times."""
    rng = np.random.default_rng(seed)
    runs = []
    for chef in MODELS:
        for assistant in MODELS:
            for recipe in RECIPES:
                for k in range(runs_per_cell):
                    runs.append(_run(rng, f"{chef}__{assistant}_{recipe}_{k}", recipe, chef, assistant))
    return runs


def write_sample_kitchen(dest: str | Path, runs_per_cell: int = 3, seed: int = 0, overwrite: bool = False) -> Path:
    """The bundled sample of kitchen runs, marked synthetic."""
    from corpus.kitchen.dataset import write_kitchen_dataset

    info = DatasetInfo(
        name=SAMPLE_NAME,
        synthetic=True,
        description=(
            "Synthetic: simulated Chef and Assistant models cooking level 1 and 2 recipes of Collab-Overcooked, "
            "every directed pairing; generated by: python -m corpus generate-kitchen."
        ),
    )
    return write_kitchen_dataset(Path(dest), info, sample_runs(runs_per_cell, seed), overwrite=overwrite)
