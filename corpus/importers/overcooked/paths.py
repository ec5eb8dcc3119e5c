"""What a run file's place says about it: the models, their scaffolds and the recipe.

The benchmark and its forks write a run where its folder names the model and the recipe:

- Collab-Overcooked (YusaeMeow/Collab-Overcooked ``src/main.py``, and the forks that keep it):
  ``data/<model>/<recipe>/experiment_<time>_<recipe>.json``; both agents play ``<model>``. A model
  named with a slash makes two folders (``data/Qwen/Qwen2.5-7B-Instruct/...``): the last is taken.
  Without a recipe the file is ``experiment_<time>_.json`` directly in the model's folder.
- CookPandar/Collab-Overcooked's batch runner (``scripts/run_model_suite.py``):
  ``batch_results/<model>/json/<recipe>/<worker>_..._<recipe>.json``; one model plays both agents.
- shekharashishraj/Collab-Overcooked (cross-play and agent-framework branches, ``src/main.py``
  ``_save_models_dir_segment``): ``data/<chef>__<assistant>/<recipe>/...`` for two models
  (``gpt-4o__claude-sonnet-4-20250514``), each optionally prefixed by its scaffold
  (``proagent_gpt-4o__baseline_claude-sonnet-4-20250514``); one name when both agents are alike
  (``baseline_gpt-4o``).
- luc1ferxx/collab-overcooked-experiments adds a folder below the recipe's
  (``data/<model>/<recipe>/<mode>/experiment_...json``).
- CookPandar's YAML-configured runs go to ``results/<time>_<recipe>/experiment_<time>_<recipe>.json``:
  the recipe, no model.

A folder counts as the recipe's only when the file's name ends with ``_<folder>``, so a run read
from anywhere else names nothing here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from corpus.importers.overcooked.recipes import SCAFFOLDS

MAX_DEPTH = 3  # folders between the recipe's and the file
_TIMED = re.compile(r"^\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}_(.+)$")  # results/<time>_<recipe>


@dataclass(frozen=True)
class PathFacts:
    models: tuple[str, ...] = ()  # per agent, Chef first; () when the path names none
    scaffolds: tuple[str, ...] = ()  # per agent, "" where the path names none
    recipe: str = ""
    folder: str = ""  # the folder that named the models

    @property
    def found(self) -> bool:
        return bool(self.models)


def _one(segment: str) -> tuple[str, str]:
    """(scaffold, model) of one agent's part of a folder name."""
    for scaffold in SCAFFOLDS:
        if segment.startswith(scaffold + "_") and len(segment) > len(scaffold) + 1:
            return scaffold, segment[len(scaffold) + 1 :]
    return "", segment


def parse_models_folder(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(models, scaffolds), Chef first, from a folder named after the models."""
    parts = name.split("__")
    if len(parts) == 2 and all(parts):
        (s0, m0), (s1, m1) = _one(parts[0]), _one(parts[1])
        return (m0, m1), (s0, s1)
    scaffold, model = _one(name)
    return (model, model), (scaffold, scaffold)


def path_facts(path: Path) -> PathFacts:
    """The models, scaffolds and recipe the folders around ``path`` name (the module's docstring)."""
    folders = Path(path).absolute().parts[:-1]
    stem = Path(path).stem
    for depth in range(1, MAX_DEPTH + 1):
        if len(folders) < depth + 1:
            break
        recipe = folders[-depth]
        if recipe and stem.endswith("_" + recipe):
            if timed := _TIMED.match(recipe):
                return PathFacts(recipe=timed.group(1))
            above = len(folders) - depth - 1
            if folders[above] == "json" and above >= 1:
                above -= 1  # CookPandar's batch_results/<model>/json/<recipe>/
            folder = folders[above]
            if not folder or folder in ("/", "data"):
                return PathFacts(recipe=recipe)
            models, scaffolds = parse_models_folder(folder)
            return PathFacts(models, scaffolds, recipe, folder)
    if stem.startswith("experiment_") and stem.endswith("_") and folders:
        models, scaffolds = parse_models_folder(folders[-1])
        return PathFacts(models, scaffolds, "", folders[-1])
    return PathFacts()
