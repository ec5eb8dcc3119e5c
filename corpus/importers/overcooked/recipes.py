"""Collab-Overcooked's recipes by task level and their ingredients, and the agent scaffolds its forks name.

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

# Each recipe's ingredients, as the benchmark's recipe cards list them under INGREDIENTS
# (``src/prompts/recipe/<level>_<recipe>.txt`` of YusaeMeow/Collab-Overcooked at the commit above).
# Two cards misspell an ingredient ("lenti" for lentil, "sweet_sweet" for sweet_potato): the written
# name is kept, with the name the recipe itself gives beside it.
RECIPE_INGREDIENTS: dict[str, tuple[str, ...]] = {
    "baked_bell_pepper": ("bell_pepper",),
    "baked_sweet_potato": ("sweet_potato",),
    "boiled_egg": ("egg",),
    "boiled_mushroom": ("mushroom",),
    "boiled_sweet_potato": ("sweet_potato",),
    "baked_potato_slices": ("potato",),
    "baked_pumpkin_slices": ("pumpkin",),
    "boiled_corn_slices": ("corn",),
    "boiled_green_bean_slices": ("green_bean",),
    "boiled_potato_slices": ("potato",),
    "baked_bell_pepper_soup": ("bell_pepper",),
    "baked_carrot_soup": ("carrot",),
    "baked_mushroom_soup": ("mushroom",),
    "baked_potato_soup": ("potato",),
    "baked_pumpkin_soup": ("pumpkin",),
    "sliced_bell_pepper_and_corn_stew": ("bell_pepper", "corn"),
    "sliced_bell_pepper_and_lentil_stew": ("bell_pepper", "lenti", "lentil"),
    "sliced_eggplant_and_chickpea_stew": ("eggplant", "chickpea"),
    "sliced_pumpkin_and_chickpea_stew": ("pumpkin", "chickpea"),
    "sliced_zucchini_and_chickpea_stew": ("zucchini", "chickpea"),
    "mashed_broccoli_and_bean_patty": ("broccoli", "bean"),
    "mashed_carrot_and_chickpea_patty": ("carrot", "chickpea"),
    "mashed_cauliflower_and_lentil_patty": ("cauliflower", "lentil"),
    "mashed_potato_and_pea_patty": ("potato", "pea"),
    "mashed_sweet_potato_and_bean_patty": ("sweet_potato", "bean"),
    "potato_carrot_and_onion_patty": ("potato", "carrot", "onion"),
    "romaine_lettuce_pea_and_tomato_patty": ("romaine_lettuce", "pea", "tomato"),
    "sweet_potato_spinach_and_mushroom_patty": ("sweet_sweet", "sweet_potato", "spinach", "mushroom"),
    "taro_bean_and_bell_pepper_patty": ("taro", "bean", "bell_pepper"),
    "zucchini_green_pea_and_onion_patty": ("zucchini", "green_pea", "onion"),
}

# The agent frameworks a fork of the benchmark runs (shekharashishraj/Collab-Overcooked,
# src/utils.py AGENT_REGISTRY): the ``agent_type`` of its ``agents`` list, and the prefix of a
# model in its folder names (``proagent_gpt-4o__baseline_claude-sonnet-4-20250514``).
SCAFFOLDS: tuple[str, ...] = ("baseline", "proagent", "a-tom", "reflexion")


def recipe_level(recipe: str) -> int | None:
    """The task level (1-6) of a benchmark recipe, None for a recipe outside the benchmark's 30."""
    return RECIPE_LEVELS.get(recipe)
