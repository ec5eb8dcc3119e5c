"""Kitchen runs of two agents cooking, read into :class:`corpus.kitchen.run.KitchenRun`.

Two formats, told apart by each JSON file's keys:

- **Collab-Overcooked run logs** (:mod:`.collab`): one JSON object per run, as the benchmark
  (YusaeMeow/Collab-Overcooked) and its forks write it (CookPandar/Collab-Overcooked,
  shekharashishraj/Collab-Overcooked, ...), ``format="collab-overcooked"``;
- **Overcooked-AI trajectories** (:mod:`.overcooked_ai`): ``ep_states``/``ep_actions``/``ep_rewards``
  (HumanCompatibleAI/overcooked_ai), one run per episode, ``format="overcooked-ai"``.

**Collab-Overcooked mapping.**

- ``models`` (Chef, Assistant): the run's ``agents`` list, else the first step's ``agent_models``
  (a fork's), else the folders the file is in (:mod:`.paths`: ``<model>/<recipe>/``,
  ``<model>/json/<recipe>/``, ``<chef>__<assistant>/<recipe>/``); "" where nothing names one.
  ``scaffold``: the agents' ``agent_type`` (or the scaffold prefix of the folder's model names);
  when the two differ, "chef's -> assistant's"; both are kept in ``extra["scaffolds"]``.
- ``recipe``: ``prompt_templates.Chef.order``, else the recipe folder, else the first step's only
  order; ``level`` from :data:`.recipes.RECIPE_LEVELS`; ``success``: an order finished (the recipe's
  when known); ``score``: ``total_score``; ``finished``: ``total_order_finished``. A run whose order
  is not one of the benchmark's recipes, or that has several orders (so no single recipe), is read
  with a warning naming them: its level is unknown and it is left out of the per-level rows.
- **Episodes appended in one file**: the benchmark keeps one statistics record across a session's
  episodes, so the k-th episode's file holds all k (``content`` steps restarting at 0), while its
  ``total_action_list`` and ``total_score`` are the k-th episode's. Such a file is read as its last
  episode (``finished`` the orders that episode's rewarded steps added), with a warning saying so;
  the earlier episodes are the runs of the files written before it.
- ``steps``: one per ``content[i]``: its ``timestamp``, ``map`` (the grid), ``actions`` (null read
  as ""), ``order_list``; ``reward`` is ``statistical_data.process_reward.team_total`` when the log
  has process rewards, else the step's environment reward ``statistical_data.score``; a step's
  ``score`` is the running total of the environment rewards (``statistical_data.score`` is the
  reward of that step in the benchmark's ``combine_statistic_dict``).
- ``turns``: the entries of ``content[i].content.content[a]`` (the turns of the conversation agent
  ``a`` started at that step, an agent's lone planning call included), conversations numbered from 0
  in order (step, then Chef before Assistant); ``say`` without the trailing code fence, "" for
  ``[NOTHING]`` (and ``[EMPTY]``); ``action`` without ``Action: ``; ``think``; ``goal`` from
  ``recent_goal`` or a fork's ``plan``; ``analysis``; ``tokens`` from
  ``statistical_data.communication[a].token`` by position, or for a conversation of one agent
  alone, its planning calls of that step in ``original_log``.
- ``completed``: ``total_action_list`` (each action at the step it completed).
- ``corrections``: ``statistical_data.error[a]``: ``format_error`` -> kind "format",
  ``validator_error`` -> "validator", one per error counted by ``error_num`` (which may exceed the
  messages kept: those have message "").
- ``tokens``: the sum of every LLM call's ``tokens`` in ``original_log`` when the log keeps it
  (CookPandar's: it lists every call, lone planning calls included); otherwise the sum of the
  communication tokens and the correction tokens (``error_correction``), all the benchmark's logs
  count (its lone planning calls are not counted anywhere). ``extra["tokens_from"]`` says which.
- ``extra``: ``recipe_text`` (the Chef's recipe card, when the log has it), ``tokens_from``,
  ``communication_tokens``, ``models_from`` ("agents", "agent_models", "path" or ""),
  ``turn_fields`` and ``scaffolds``.

**Reading.** :func:`read_runs` takes one run file, a folder of them at any depth, or a .zip
(extracted safely by :mod:`corpus.server.archive` into a temporary folder); every ``*.json`` file is read
(hidden files and ``__MACOSX/`` aside; other files are ignored). A JSON file that is neither format
(a summary, a config) is a warning and skipped; a file that looks like a run but is broken is an
error naming file, record and field. :func:`load_runs` is all or nothing. :func:`grid_cells` and
:func:`parse_cell` read a step's grid back (:mod:`.grid`; the legend is inferred).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from corpus.importers.overcooked.collab import is_collab_run, read_collab
from corpus.importers.overcooked.grid import COLLAB_TILES, OVERCOOKED_AI_TILES, Cell, grid_cells, parse_cell
from corpus.importers.overcooked.overcooked_ai import is_overcooked_ai, read_overcooked_ai
from corpus.importers.overcooked.paths import PathFacts, path_facts
from corpus.importers.overcooked.recipes import RECIPE_LEVELS, SCAFFOLDS, recipe_level
from corpus.kitchen.run import KitchenRun
from corpus.loading.reading import read_json
from corpus.loading.report import DatasetError, Report, describe
from corpus.server.archive import extract_to

__all__ = [
    "COLLAB_TILES",
    "OVERCOOKED_AI_TILES",
    "RECIPE_LEVELS",
    "SCAFFOLDS",
    "Cell",
    "PathFacts",
    "grid_cells",
    "load_runs",
    "parse_cell",
    "path_facts",
    "read_file",
    "read_run",
    "read_runs",
    "recipe_level",
]


def read_file(path: Path, rel: str, report: Report) -> list[KitchenRun]:
    """Every run in one JSON file (an Overcooked-AI file holds one per episode); [] with the
    problem in ``report`` when the file cannot be read, with a warning when it is not a run."""
    data = read_json(Path(path), report, rel)
    if data is None:
        return []
    if is_collab_run(data):
        run = read_collab(data, Path(path), rel, report)
        return [run] if run is not None else []
    if is_overcooked_ai(data):
        return read_overcooked_ai(data, Path(path), rel, report) or []
    found = f"an object with the keys {', '.join(sorted(data)[:8])}" if isinstance(data, dict) else describe(data)
    if isinstance(data, dict) and len(data) > 8:
        found += ", ..."
    report.add(
        rel,
        "-",
        "(file)",
        f"not a kitchen run (a Collab-Overcooked log has total_order_finished, total_action_list and "
        f"content; an Overcooked-AI trajectory ep_states and ep_actions); found {found}; skipped",
        severity="warning",
    )
    return []


def read_run(path: Path, rel: str, report: Report) -> KitchenRun | None:
    """The one run of a run file, or None with the problems in ``report`` (a trajectory file of
    several episodes is read with :func:`read_file` or :func:`read_runs`)."""
    errors = report.error_count
    runs = read_file(path, rel, report)
    if len(runs) > 1:
        report.add(rel, "-", "(file)", f"holds {len(runs)} episodes, not one run; read it with read_runs")
        return None
    return runs[0] if runs and report.error_count == errors else None


def _json_files(folder: Path) -> Iterator[tuple[Path, str]]:
    """(path, path relative to ``folder``) of every JSON file under ``folder``, in name order."""
    found = []
    for p in folder.rglob("*"):
        rel = p.relative_to(folder)
        if any(part.startswith(".") or part == "__MACOSX" for part in rel.parts):
            continue
        if p.suffix.lower() == ".json" and p.is_file():
            found.append((p, rel.as_posix()))
    yield from sorted(found, key=lambda item: item[1])


def _read_folder(folder: Path, report: Report) -> list[KitchenRun]:
    runs: list[KitchenRun] = []
    for path, rel in _json_files(folder):
        runs.extend(read_file(path, rel, report))
    return runs


def read_runs(source: str | Path) -> tuple[list[KitchenRun], Report]:
    """Every run in ``source`` (a run file, a folder of them at any depth, or a .zip), and every
    problem found. No run is left out silently: a broken run is an error, a JSON file that is not a
    run a warning."""
    source = Path(source)
    report = Report()
    name = source.name
    if source.is_dir():
        runs = _read_folder(source, report)
    elif source.is_file() and source.suffix.lower() == ".zip":
        tmp = Path(tempfile.mkdtemp(prefix="groundwork-kitchen-"))
        try:
            extract_to(source, tmp / "runs")
            runs = _read_folder(tmp / "runs", report)
        except DatasetError as exc:  # corpus.server.archive.ArchiveError: the archive refused
            report.issues.extend(exc.report.issues)
            runs = []
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    elif source.is_file():
        runs = read_file(source, name, report)
    else:
        report.add(name, "-", "(source)", f"not found: {source}")
        return [], report
    if not runs and report.ok:
        report.add(
            name,
            "-",
            "(source)",
            "no kitchen runs found (no JSON file here is a Collab-Overcooked log or an Overcooked-AI trajectory)",
        )
    return runs, report


def load_runs(source: str | Path) -> list[KitchenRun]:
    """Every run in ``source``, or :class:`corpus.loading.report.DatasetError` with every problem when any
    error was found (warnings alone do not stop it)."""
    runs, report = read_runs(source)
    if not report.ok:
        raise DatasetError(report, str(source))
    return runs
