"""Collab-Overcooked's recipes by task level, and the agent scaffolds its forks name.

The benchmark groups its 30 recipes in six levels of five (``src/convert_result.py`` of
YusaeMeow/Collab-Overcooked at commit acae4fafb04b4509ce61f4c67acd57925fe0e9a3, lists ``level_1`` to
``level_6``; the recipe prompt files carry the same level as a prefix, ``prompts/recipe/1_boiled_egg.txt``,
which is where CookPandar/Collab-Overcooked's ``scripts/run_model_suite.py`` reads it from). The
logs published so far (CookPandar's ``assets/data/batch_results``) hold levels 1 to 3.
"""

from __future__ import annotations

RECIPE_LEVELS: dict[str, int] = {
    # level 1
    "baked_bell_pepper": 1,
    "baked_sweet_potato": 1,
    "boiled_egg": 1,
    "boiled_mushroom": 1,
    "boiled_sweet_potato": 1,
    # level 2
    "baked_potato_slices": 2,
    "baked_pumpkin_slices": 2,
    "boiled_corn_slices": 2,
    "boiled_green_bean_slices": 2,
    "boiled_potato_slices": 2,
    # level 3
    "baked_bell_pepper_soup": 3,
    "baked_carrot_soup": 3,
    "baked_mushroom_soup": 3,
    "baked_potato_soup": 3,
    "baked_pumpkin_soup": 3,
    # level 4
    "sliced_bell_pepper_and_corn_stew": 4,
    "sliced_bell_pepper_and_lentil_stew": 4,
    "sliced_eggplant_and_chickpea_stew": 4,
    "sliced_pumpkin_and_chickpea_stew": 4,
    "sliced_zucchini_and_chickpea_stew": 4,
    # level 5
    "mashed_broccoli_and_bean_patty": 5,
    "mashed_carrot_and_chickpea_patty": 5,
    "mashed_cauliflower_and_lentil_patty": 5,
    "mashed_potato_and_pea_patty": 5,
    "mashed_sweet_potato_and_bean_patty": 5,
    # level 6
    "potato_carrot_and_onion_patty": 6,
    "romaine_lettuce_pea_and_tomato_patty": 6,
    "sweet_potato_spinach_and_mushroom_patty": 6,
    "taro_bean_and_bell_pepper_patty": 6,
    "zucchini_green_pea_and_onion_patty": 6,
}

# The agent frameworks a fork of the benchmark runs (shekharashishraj/Collab-Overcooked,
# src/utils.py AGENT_REGISTRY): the ``agent_type`` of its ``agents`` list, and the prefix of a
# model in its folder names (``proagent_gpt-4o__baseline_claude-sonnet-4-20250514``).
SCAFFOLDS: tuple[str, ...] = ("baseline", "proagent", "a-tom", "reflexion")


def recipe_level(recipe: str) -> int | None:
    """The task level (1-6) of a benchmark recipe, None for a recipe outside the benchmark's 30."""
    return RECIPE_LEVELS.get(recipe)
