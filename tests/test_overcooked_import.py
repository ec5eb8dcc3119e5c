"""Kitchen runs read into corpus.kitchen.run.KitchenRun: Collab-Overcooked run logs (the real CookPandar
run, the benchmark's own shape, a fork's cross-play shape) and Overcooked-AI trajectories.

The hand-made logs below mirror what the sources write, key for key: CookPandar/Collab-Overcooked
(``assets/data/batch_results/azure-gpt-4o/json/baked_bell_pepper/worker9_...json`` at b647e4e7),
the benchmark YusaeMeow/Collab-Overcooked (``src/main.py`` and ``src/collab/collab.py`` at acae4fa;
runs as in marimeireles/Collab-Overcooked ``src/data/gpt-3.5-turbo-0125/boiled_egg/``), and
shekharashishraj/Collab-Overcooked's agent-framework runs (``src/data/proagent_gpt-4o__baseline_
claude-sonnet-4-20250514/boiled_egg/`` at 3d5aa5e7).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from corpus.importers.overcooked import (
    RECIPE_LEVELS,
    Cell,
    grid_cells,
    load_runs,
    parse_cell,
    path_facts,
    read_file,
    read_run,
    read_runs,
    recipe_level,
)
from corpus.kitchen.run import KitchenRun
from corpus.loading.report import DatasetError, Report
from tests.real_data import REAL, absent

COLLAB = REAL / "collab_overcooked"
REAL_RUN = "worker9_0_7_baked_bell_pepper_270-2025-12-18_02-10-06_799603-a31ad6_baked_bell_pepper.json"
needs_collab = pytest.mark.skipif(
    not (COLLAB / REAL_RUN).is_file(), reason=absent(COLLAB, "real Collab-Overcooked run")
)
FIXTURES = Path(__file__).parent / "fixtures" / "overcooked_ai"
PYTHON_TYPE_NAMES = re.compile(r"\b(NoneType|dict|str|int|float|bool|tuple)\b")

# -- logs in the sources' shapes -------------------------------------------------------------------

KITCHEN = [
    ["X", "X", "X", "P", "X"],
    ["I", "", "X", "↑0", "X"],
    ["C", "↑1", "X", "", "X"],
    ["D", "", "X", "", "O"],
    ["X", "B", "X", "S", "X"],
]


def draw(rows: list[list[str]]) -> str:
    """A kitchen as state_string draws it: cells padded to 7 and a space, rows ended by a blank line."""
    return "".join("".join(c.ljust(7) + " " for c in row) + "\n\n" for row in rows)


def with_cell(row: int, col: int, text: str) -> list[list[str]]:
    rows = copy.deepcopy(KITCHEN)
    rows[row][col] = text
    return rows


def no_errors() -> list[dict[str, Any]]:
    return [
        {
            "format_error": {"error_num": 0, "error_message": []},
            "validator_error": {"error_num": 0, "error_message": []},
        }
        for _ in range(2)
    ]


def no_corrections() -> list[dict[str, Any]]:
    return [
        {
            "format_correction": {"correction_num": 0, "correction_tokens": []},
            "validator_correction": {"correction_num": 0, "reflection_obtain": [], "correction_tokens": []},
        }
        for _ in range(2)
    ]


def silent() -> list[dict[str, Any]]:
    return [{"call": 0, "turn": [], "token": []}, {"call": 0, "turn": [], "token": []}]


def cook_turn(agent: int, say: str, action: str) -> dict[str, Any]:
    """A CookPandar turn: think, say (with the fence), action ("Action: ..."), recent_goal."""
    fenced = say if say == "[NOTHING]" else say + "\n```"
    return {
        "agent": agent,
        "think": f"{'Chef' if agent == 0 else 'Assistant'} thinks.",
        "say": fenced,
        "action": "Action: " + action,
        "recent_goal": "1. Assistant picks up bell pepper from ingredient dispenser.",
    }


def call(t: int, agent: int, index: int, kind: str, tokens: int, role: str = "") -> dict[str, Any]:
    entry: dict[str, Any] = {
        "timestamp": t,
        "agent": "Chef" if agent == 0 else "Assistant",
        "call_index": index,
        "call_type": kind,
        "input": "Scene ...",
        "output": "```\nThink: ...\nAction: wait(1)\n```",
        "tokens": tokens,
    }
    if role:
        entry["metadata"] = {"role": role}
    return entry


def process_reward(t: int, team_total: float) -> dict[str, Any]:
    agent = {
        "sequence_reward": 0.0,
        "penalty_total": 0.0,
        "penalties": [],
        "similarity": 0.0,
        "total": 0.0,
        "call_count": 0,
        "calls": [],
    }
    return {
        "timestamp": t,
        "per_agent": [agent, copy.deepcopy(agent)],
        "intermediate": {"reward": 0.0, "items": []},
        "team_total": team_total,
    }


def cook_step(
    t: int,
    actions: list[str],
    grid: str,
    *,
    turns: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], []),
    communication: list[dict[str, Any]] | None = None,
    calls: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], []),
    score: float = 0,
    team_total: float = 0.0,
    errors: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "timestamp": t,
        "order_list": ["baked_bell_pepper"],
        "actions": actions,
        "map": grid,
        "statistical_data": {
            "score": score,
            "communication": communication or silent(),
            "error": errors or no_errors(),
            "error_correction": no_corrections(),
            "process_reward": process_reward(t, team_total),
        },
        "content": {
            "observation": ["Scene ..." if calls[0] else [], "Scene ..." if calls[1] else []],
            "reflection": [[], []],
            "content": [turns[0], turns[1]],
            "action_list": [[actions[0]], [actions[1]]],
            "original_log": [calls[0], calls[1]],
        },
    }


def cookpandar_run() -> dict[str, Any]:
    """A CookPandar log of 4 steps (baked_bell_pepper, delivered at step 3)."""
    request = "Collab(request(Assistant,pickup(bell_pepper,ingredient_dispenser)))"
    ack = 'Collab(ack(Chef, "I will pick up the bell pepper now."))'
    validator = "pickup(bell_pepper, counter) failed: there is no bell_pepper on the counter.\n"
    steps = [
        cook_step(
            0,
            ["wait(1)", "pickup(bell_pepper, ingredient_dispenser)"],
            draw(KITCHEN),
            turns=(
                [cook_turn(0, request, request), cook_turn(1, ack, ack), cook_turn(0, "[NOTHING]", "wait(1)")],
                [cook_turn(1, "[NOTHING]", "pickup(bell_pepper, ingredient_dispenser)")],
            ),
            communication=[
                {"call": 1, "turn": [request + "\n```", ack + "\n```", "[NOTHING]"], "token": [236, 274, 170]},
                {"call": 0, "turn": [], "token": []},
            ],
            calls=(
                [call(0, 0, 0, "planner_main", 236), call(0, 0, 1, "communication", 170, "you")],
                [call(0, 1, 0, "communication", 274, "team"), call(0, 1, 1, "planner_main", 136)],
            ),
            team_total=0.6554694229112834,
        ),
        cook_step(1, ["wait(1)", "pickup(bell_pepper, ingredient_dispenser)"], draw(with_cell(2, 1, "→1b")), score=0.0),
        cook_step(
            2,
            ["pickup(bell_pepper, counter)", "place_obj_on_counter()"],
            draw(with_cell(3, 3, "↓0b")),
            turns=([cook_turn(0, "[NOTHING]", "pickup(bell_pepper, counter)")], []),
            calls=([call(2, 0, 0, "planner_main", 191)], []),
            errors=[
                {
                    "format_error": {"error_num": 0, "error_message": []},
                    "validator_error": {"error_num": 1, "error_message": [validator]},
                },
                no_errors()[1],
            ],
        ),
        cook_step(3, ["deliver_soup()", "wait(5)"], draw(with_cell(3, 4, "O3")), score=20, team_total=1.0),
    ]
    return {
        "total_timestamp": [0, 1, 2, 3],
        "total_order_finished": ["baked_bell_pepper"],
        "total_score": 20,
        "total_action_list": [
            [{"timestamp": 2, "action": "pickup(bell_pepper, counter)"}, {"timestamp": 3, "action": "deliver_soup()"}],
            [{"timestamp": 1, "action": "pickup(bell_pepper, ingredient_dispenser)"}],
        ],
        "content": steps,
        "process_rewards": [s["statistical_data"]["process_reward"] for s in steps],
        "prompt_templates": {
            "Chef": {
                "role": "Chef",
                "actor": "chef",
                "order": "baked_bell_pepper",
                "prompt": "Suppose you are a Chef ...",
                "recipe_text": "NAME:\nBaked Bell Pepper\n\nINGREDIENTS:\nbell_pepper (1)\n",
            },
            "Assistant": {"role": "Assistant", "actor": "assistant", "order": "baked_bell_pepper", "prompt": "..."},
        },
    }


def bench_turn(agent: int, analysis: str, say: str, plan: str) -> dict[str, Any]:
    """The benchmark's (and most forks') turn: agent, analysis, say, plan."""
    return {"agent": agent, "analysis": analysis, "say": say, "plan": plan}


def bench_step(
    t: int,
    actions: list[str],
    order: str,
    *,
    turns: tuple[list[dict[str, Any]], list[dict[str, Any]]],
    communication: list[dict[str, Any]] | None = None,
    errors: list[dict[str, Any]] | None = None,
    corrections: list[dict[str, Any]] | None = None,
    score: int = 0,
) -> dict[str, Any]:
    return {
        "timestamp": t,
        "order_list": [order],
        "actions": actions,
        "map": draw(KITCHEN),
        "statistical_data": {
            "score": score,
            "communication": communication or silent(),
            "error": errors or no_errors(),
            "error_correction": corrections or no_corrections(),
        },
        "content": {
            "observation": ["Successful Action History: []\n...", "Successful Action History: []\n..."],
            "reflection": [[], []],
            "content": [turns[0], turns[1]],
            "action_list": [[actions[0]], [actions[1]]],
            "original_log": "",
        },
    }


AGENTS = [
    {"player": "P0", "index": 0, "role": "chef", "agent_type": "proagent", "model": "gpt-4o", "provider": "openai"},
    {
        "player": "P1",
        "index": 1,
        "role": "assistant",
        "agent_type": "baseline",
        "model": "claude-sonnet-4-20250514",
        "provider": "anthropic",
    },
]


def fork_run(with_agents: bool = True) -> dict[str, Any]:
    """shekharashishraj's agent-framework run (boiled_egg, delivered at step 2): analysis/plan turns,
    an ``agents`` list, ``agent_models`` per step, ``timestep_conversations``, ``original_log`` ""."""
    say0 = "Please pick up an egg from the ingredient dispenser."
    say1 = "I'll get the egg from the ingredient dispenser and place it on the counter for you."
    plan_error = "please check your plan,make sure your plan is a sequence of action seperated by ';' in one line, without any description or serial number."
    steps = [
        bench_step(
            0,
            ["wait(1)", "pickup(egg, ingredient_dispenser)"],
            "boiled_egg",
            turns=(
                [
                    bench_turn(0, "The order is a boiled egg.", say0, "Chef plan: wait(1)"),
                    bench_turn(
                        1, "The Chef asks for an egg.", say1, "Assistant plan: pickup(egg, ingredient_dispenser)"
                    ),
                    bench_turn(0, "The Assistant will bring the egg.", "[NOTHING]", "Chef plan: wait(1)"),
                ],
                [],
            ),
            communication=[
                {"call": 1, "turn": [say0, say1, "[NOTHING]"], "token": [160, 277, 113]},
                {"call": 0, "turn": [], "token": []},
            ],
        ),
        bench_step(
            1,
            ["wait(1)", "place_obj_on_counter()"],
            "boiled_egg",
            turns=(
                [
                    bench_turn(0, "Waiting.", "[NOTHING]", "Chef plan: 1. wait(1)"),
                    bench_turn(0, "Waiting, as one action.", "[NOTHING]", "Chef plan: wait(1)"),
                ],
                [],
            ),
            errors=[
                {
                    "format_error": {"error_num": 0, "error_message": []},
                    "validator_error": {"error_num": 1, "error_message": [plan_error]},
                },
                no_errors()[1],
            ],
            corrections=[
                {
                    "format_correction": {"correction_num": 0, "correction_tokens": []},
                    "validator_correction": {"correction_num": 0, "reflection_obtain": [], "correction_tokens": [167]},
                },
                no_corrections()[1],
            ],
        ),
        bench_step(
            2,
            ["deliver_soup()", "wait(1)"],
            "boiled_egg",
            turns=([], [bench_turn(1, "Nothing to do.", "[NOTHING]", "Assistant plan: wait(1)")]),
            score=20,
        ),
    ]
    models = [
        {
            "player": a["player"],
            "role": a["role"],
            "model": a["model"],
            "agent_type": a["agent_type"],
            "provider": a["provider"],
        }
        for a in AGENTS
    ]
    for s in steps:
        if with_agents:
            s["agent_models"] = copy.deepcopy(models)
    run: dict[str, Any] = {
        "total_timestamp": [0, 1, 2],
        "total_order_finished": ["boiled_egg"],
        "total_score": 20,
        "total_action_list": [
            [{"timestamp": 2, "action": "deliver_soup()"}],
            [{"timestamp": 1, "action": "pickup(egg, ingredient_dispenser)"}],
        ],
        "content": steps,
        "timestep_conversations": [
            {"timestep": t, "p0_role": "chef", "p1_role": "assistant", "p0_dialog": [], "p1_dialog": []}
            for t in range(3)
        ],
    }
    if with_agents:
        run["agents"] = copy.deepcopy(AGENTS)
    return run


def failed_run() -> dict[str, Any]:
    """The benchmark's own shape, a run that never delivers: format errors every step, the second
    counting more errors than it keeps messages for."""
    message = "\n\nYou did not create correct plan part last time, now please remember to add plan according to the format of example strictly!"
    nothing = ([bench_turn(0, "", "[NOTHING]", "")], [bench_turn(1, "", "[NOTHING]", "")])
    errors = [
        [
            {
                "format_error": {"error_num": 2, "error_message": [message, message]},
                "validator_error": {"error_num": 0, "error_message": []},
            },
            no_errors()[1],
        ],
        [
            {
                "format_error": {"error_num": 3, "error_message": [message, message]},
                "validator_error": {"error_num": 0, "error_message": []},
            },
            no_errors()[1],
        ],
        None,
    ]
    return {
        "total_timestamp": [0, 1, 2],
        "total_order_finished": [],
        "total_score": 0,
        "total_action_list": [[], []],
        "content": [
            bench_step(t, ["wait(1)", "wait(1)"], "boiled_egg", turns=copy.deepcopy(nothing), errors=errors[t])
            for t in range(3)
        ],
    }


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=4))
    return path


def read_one(path: Path, rel: str | None = None) -> tuple[KitchenRun | None, Report]:
    report = Report()
    run = read_run(path, rel or path.name, report)
    return run, report


def no_python_names(report: Report) -> None:
    for issue in report.issues:
        assert not PYTHON_TYPE_NAMES.search(issue.message), issue.message


# -- the real run ----------------------------------------------------------------------------------


@needs_collab
def test_real_run_facts():
    runs, report = read_runs(COLLAB / REAL_RUN)
    assert report.ok and not report.warnings, report.format()
    (run,) = runs
    assert run.format == "collab-overcooked"
    assert run.source == REAL_RUN
    assert run.n_steps == 17
    assert [s.step for s in run.steps] == list(range(17))
    assert run.score == 20
    assert run.finished == ("baked_bell_pepper",)
    assert run.success
    assert (run.recipe, run.level) == ("baked_bell_pepper", 1)
    assert run.models == ("", "")  # the file alone names no model
    chef = [c.step for c in run.completed if c.agent == 0]
    assistant = [c.step for c in run.completed if c.agent == 1]
    assert chef == [7, 11, 12, 15, 16]
    assert assistant == [3, 5]
    assert [c.action for c in run.completed if c.agent == 1] == [
        "pickup(bell_pepper, ingredient_dispenser)",
        "place_obj_on_counter()",
    ]
    # counted by hand in the file: 27 entries in content[i].content.content, 15 non-empty blocks,
    # 12 Collab(...) messages of which 4 requests, 15 [NOTHING]
    assert len(run.turns) == 27
    assert len({t.conversation for t in run.turns}) == 15
    assert sum(t.say.startswith("Collab(") for t in run.turns) == 12
    assert sum(t.say.startswith("Collab(request(") for t in run.turns) == 4
    assert sum(t.say == "" for t in run.turns) == 15
    assert not any(t.say.endswith("```") or t.action.startswith("Action:") for t in run.turns)
    first = run.turns[0]
    assert (first.step, first.agent, first.conversation, first.initiator) == (0, 0, 0, 0)
    assert first.say == "Collab(request(Assistant,pickup(bell_pepper,ingredient_dispenser)))"
    assert first.action == first.say
    assert first.goal.startswith("1. Assistant picks up bell pepper")
    assert run.turns[4].say == "" and run.turns[4].action == "wait(1)"
    # the Assistant's conversation at step 3: seek, the Chef's request, then its action
    step3 = [t for t in run.turns if t.step == 3]
    assert [(t.agent, t.initiator) for t in step3] == [(1, 1), (0, 1), (1, 1)]
    assert step3[1].say == "Collab(request(Assistant, place_obj_on_counter()))"
    # tokens: 5,070 over the 27 calls of original_log; communication turns hold 3,016 of them
    assert run.tokens == 5070
    assert run.extra["tokens_from"] == "original_log"
    assert run.extra["communication_tokens"] == 3016
    assert [t.tokens for t in run.turns[:6]] == [236, 274, 172, 300, 170, 136]
    assert sum(t.tokens or 0 for t in run.turns) == 5070
    assert run.corrections == ()
    assert run.extra["recipe_text"].startswith("NAME:\nBaked Bell Pepper")
    assert run.steps[0].reward == pytest.approx(0.6554694229112834)
    assert run.steps[16].score == 20 and run.steps[15].score == 0
    assert run.steps[0].orders == ("baked_bell_pepper",)


@needs_collab
def test_real_run_grid_read_back():
    (run,) = load_runs(COLLAB / REAL_RUN)
    rows = grid_cells(run.steps[0].grid)
    assert rows == [
        ["X", "X", "X", "P", "X"],
        ["I", "", "X", "↑0", "X"],
        ["C", "↑1", "X", "", "X"],
        ["D", "", "X", "", "O"],
        ["X", "B", "X", "S", "X"],
    ]
    assert parse_cell(rows[1][3]) == Cell(" ", 0, "north", "", "")
    assert grid_cells(run.steps[14].grid)[3][4] == "O3"
    assert parse_cell("O3") == Cell("O", state="3")
    cells = {c for s in run.steps for row in grid_cells(s.grid) for c in row}
    assert {"↓0b", "Xb", "O-", "←1b"} <= cells
    assert parse_cell("↓0b") == Cell(" ", 0, "south", "b", "")
    assert parse_cell("Xb") == Cell("X", held="b")


@needs_collab
def test_real_run_models_from_the_benchmark_layout(tmp_path):
    folder = tmp_path / "assets" / "data" / "batch_results" / "azure-gpt-4o" / "json" / "baked_bell_pepper"
    folder.mkdir(parents=True)
    shutil.copy(COLLAB / REAL_RUN, folder / REAL_RUN)
    (tmp_path / "assets" / "data" / "batch_results" / "results.json").write_text(
        json.dumps([{"model": "azure-gpt-4o", "order": "baked_bell_pepper", "level": 1, "success": True}])
    )
    runs, report = read_runs(tmp_path / "assets")
    assert report.ok, report.format()
    (run,) = runs
    assert run.models == ("azure-gpt-4o", "azure-gpt-4o")
    assert run.pairing == "azure-gpt-4o -> azure-gpt-4o"
    assert run.extra["models_from"] == "path"
    assert run.source == f"data/batch_results/azure-gpt-4o/json/baked_bell_pepper/{REAL_RUN}"
    (warning,) = report.warnings  # the runner's summary, not a run
    assert warning.file == "data/batch_results/results.json" and "not a kitchen run" in warning.message


# -- Collab-Overcooked shapes ----------------------------------------------------------------------


def test_cookpandar_shape(tmp_path):
    run, report = read_one(write(tmp_path / "run.json", cookpandar_run()))
    assert report.ok and not report.warnings, report.format()
    assert run is not None
    assert (run.recipe, run.level, run.success, run.score, run.finished) == (
        "baked_bell_pepper",
        1,
        True,
        20,
        ("baked_bell_pepper",),
    )
    assert [s.step for s in run.steps] == [0, 1, 2, 3]
    assert [s.score for s in run.steps] == [0, 0, 0, 20]
    assert [s.reward for s in run.steps] == [pytest.approx(0.6554694229112834), 0, 0, 1.0]
    assert grid_cells(run.steps[3].grid)[3][4] == "O3"
    assert [(t.step, t.agent, t.conversation, t.initiator, t.say, t.action, t.tokens) for t in run.turns] == [
        (
            0,
            0,
            0,
            0,
            "Collab(request(Assistant,pickup(bell_pepper,ingredient_dispenser)))",
            "Collab(request(Assistant,pickup(bell_pepper,ingredient_dispenser)))",
            236,
        ),
        (
            0,
            1,
            0,
            0,
            'Collab(ack(Chef, "I will pick up the bell pepper now."))',
            'Collab(ack(Chef, "I will pick up the bell pepper now."))',
            274,
        ),
        (0, 0, 0, 0, "", "wait(1)", 170),
        (0, 1, 1, 1, "", "pickup(bell_pepper, ingredient_dispenser)", 136),
        (2, 0, 2, 0, "", "pickup(bell_pepper, counter)", 191),
    ]
    assert run.turns[0].think == "Chef thinks." and run.turns[0].goal.startswith("1. Assistant picks up")
    assert [(c.step, c.agent, c.action) for c in run.completed] == [
        (1, 1, "pickup(bell_pepper, ingredient_dispenser)"),
        (2, 0, "pickup(bell_pepper, counter)"),
        (3, 0, "deliver_soup()"),
    ]
    (correction,) = run.corrections
    assert (correction.step, correction.agent, correction.kind) == (2, 0, "validator")
    assert correction.message.startswith("pickup(bell_pepper, counter) failed")
    assert run.tokens == 236 + 170 + 274 + 136 + 191
    assert run.extra["tokens_from"] == "original_log"
    assert run.extra["recipe_text"].startswith("NAME:")


def test_fork_variant_models_and_scaffolds_from_the_run(tmp_path):
    rel = "data/proagent_gpt-4o__baseline_claude-sonnet-4-20250514/boiled_egg/experiment_2026-04-23_09-04-02_boiled_egg.json"
    write(tmp_path / rel, fork_run())
    runs, report = read_runs(tmp_path)
    assert report.ok and not report.warnings, report.format()
    (run,) = runs
    assert run.id == rel.removesuffix(".json")
    assert run.models == ("gpt-4o", "claude-sonnet-4-20250514")
    assert run.pairing == "proagent gpt-4o -> baseline claude-sonnet-4-20250514"
    assert run.model_pairing == "gpt-4o -> claude-sonnet-4-20250514"
    assert run.scaffold == "proagent -> baseline" and run.scaffolds == ("proagent", "baseline")
    assert run.extra["scaffolds"] == ["proagent", "baseline"]
    assert run.extra["models_from"] == "agents"
    assert run.extra["turn_fields"] == "analysis/plan"
    assert (run.recipe, run.level, run.success) == ("boiled_egg", 1, True)
    assert [(t.step, t.agent, t.conversation, t.initiator, t.tokens) for t in run.turns] == [
        (0, 0, 0, 0, 160),
        (0, 1, 0, 0, 277),
        (0, 0, 0, 0, 113),
        (1, 0, 1, 0, None),  # a re-plan after a validator error: no count per turn in this log
        (1, 0, 1, 0, None),
        (2, 1, 2, 1, None),
    ]
    first = run.turns[0]
    assert first.say == "Please pick up an egg from the ingredient dispenser."
    assert (first.analysis, first.goal, first.think, first.action) == (
        "The order is a boiled egg.",
        "Chef plan: wait(1)",
        "",
        "",
    )
    assert run.turns[2].say == ""
    (correction,) = run.corrections
    assert (correction.step, correction.agent, correction.kind) == (1, 0, "validator")
    # no original_log: communication tokens (160 + 277 + 113) and the correction's 167
    assert run.tokens == 717
    assert run.extra["tokens_from"] == "communication and correction tokens"


def test_fork_agent_models_per_step_and_folder_models(tmp_path):
    data = fork_run()
    del data["agents"]  # the per-step agent_models still name them
    write(tmp_path / "a.json", data)
    (run,) = load_runs(tmp_path / "a.json")
    assert run.models == ("gpt-4o", "claude-sonnet-4-20250514") and run.extra["models_from"] == "agent_models"

    cross = "data/gpt-4o__claude-sonnet-4-20250514/boiled_egg/experiment_2026-04-23_07-18-23_boiled_egg.json"
    write(tmp_path / "cross" / cross, fork_run(with_agents=False))
    (run,) = load_runs(tmp_path / "cross")
    assert run.models == ("gpt-4o", "claude-sonnet-4-20250514") and run.scaffold == ""
    assert run.extra["models_from"] == "path"

    selfplay = "data_runs/l1_gpt4o/baseline_gpt-4o/boiled_egg/experiment_2026-05-03_08-54-05_boiled_egg.json"
    write(tmp_path / "self" / selfplay, fork_run(with_agents=False))
    (run,) = load_runs(tmp_path / "self")
    assert (run.models, run.scaffold) == (("gpt-4o", "gpt-4o"), "baseline")


def test_run_and_folder_disagreeing_on_models_is_a_warning(tmp_path):
    write(tmp_path / "data" / "gpt-4o" / "boiled_egg" / "experiment_2026-04-23_09-04-02_boiled_egg.json", fork_run())
    runs, report = read_runs(tmp_path)
    assert report.ok and runs[0].models == ("gpt-4o", "claude-sonnet-4-20250514")
    (warning,) = report.warnings
    assert warning.field == "agents" and "'gpt-4o' names gpt-4o -> gpt-4o" in warning.message


def test_failed_run(tmp_path):
    rel = "gpt-3.5-turbo-0125/boiled_egg/experiment_2025-05-29_15-41-32_boiled_egg.json"
    write(tmp_path / rel, failed_run())
    (run,) = load_runs(tmp_path)
    assert (run.success, run.score, run.finished, run.completed) == (False, 0, (), ())
    assert (run.recipe, run.level) == ("boiled_egg", 1)
    assert run.models == ("gpt-3.5-turbo-0125", "gpt-3.5-turbo-0125")
    assert len(run.turns) == 6 and all(t.say == "" and t.tokens is None for t in run.turns)
    # error_num 2 with 2 messages, then error_num 3 with only 2 kept
    assert [(c.step, c.agent, c.kind) for c in run.corrections] == [(0, 0, "format")] * 2 + [(1, 0, "format")] * 3
    assert [c.message != "" for c in run.corrections] == [True, True, True, True, False]
    assert run.tokens == 0


def test_folder_of_several_and_zip(tmp_path):
    src = tmp_path / "runs"
    write(
        src / "azure-gpt-4o" / "json" / "baked_bell_pepper" / "worker0_0_7_x_baked_bell_pepper.json", cookpandar_run()
    )
    write(
        src
        / "data"
        / "proagent_gpt-4o__baseline_claude-sonnet-4-20250514"
        / "boiled_egg"
        / "experiment_1_boiled_egg.json",
        fork_run(),
    )
    write(src / "data" / "gpt-3.5-turbo-0125" / "boiled_egg" / "experiment_2_boiled_egg.json", failed_run())
    write(
        src / "data" / "compiled_metrics" / "summary.json", [{"order": "baked_potato_slices", "order_level": "level_2"}]
    )
    (src / "azure-gpt-4o" / "logs").mkdir(parents=True)
    (src / "azure-gpt-4o" / "logs" / "worker0.log").write_text("console output")
    (src / ".hidden.json").write_text("not even JSON")
    runs, report = read_runs(src)
    assert report.ok, report.format()
    assert [r.source for r in runs] == [
        "azure-gpt-4o/json/baked_bell_pepper/worker0_0_7_x_baked_bell_pepper.json",
        "data/gpt-3.5-turbo-0125/boiled_egg/experiment_2_boiled_egg.json",
        "data/proagent_gpt-4o__baseline_claude-sonnet-4-20250514/boiled_egg/experiment_1_boiled_egg.json",
    ]
    assert [r.models[0] for r in runs] == ["azure-gpt-4o", "gpt-3.5-turbo-0125", "gpt-4o"]
    (warning,) = report.warnings
    assert (warning.file, warning.record, warning.field) == ("data/compiled_metrics/summary.json", "-", "(file)")
    assert "not a kitchen run" in warning.message and "a list of 1 item" in warning.message

    archive = tmp_path / "runs.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for p in sorted(src.rglob("*")):
            if p.is_file():
                zf.write(p, p.relative_to(tmp_path).as_posix())
    zipped, zreport = read_runs(archive)
    assert zreport.ok, zreport.format()
    assert [r.source for r in zipped] == ["runs/" + r.source for r in runs]
    assert [r.models for r in zipped] == [r.models for r in runs]
    assert [r.turns for r in zipped] == [r.turns for r in runs]


def test_ints_and_floats_are_read_alike(tmp_path):
    data = cookpandar_run()
    data["total_score"] = 20.0
    data["total_timestamp"] = [0.0, 1.0, 2.0, 3.0]
    data["total_action_list"][0][0]["timestamp"] = 2.0
    step = data["content"][0]
    step["timestamp"] = 0.0
    step["statistical_data"]["score"] = 0.0
    step["statistical_data"]["communication"][0]["token"] = [236.0, 274, 170.0]
    step["content"]["original_log"][0][0]["tokens"] = 236.0
    data["content"][1]["statistical_data"]["process_reward"]["team_total"] = 0
    run, report = read_one(write(tmp_path / "run.json", data))
    assert report.ok, report.format()
    assert run is not None
    expected, _ = read_one(write(tmp_path / "plain.json", cookpandar_run()))
    assert expected is not None
    assert (run.score, run.steps, run.turns, run.completed, run.tokens) == (
        expected.score,
        expected.steps,
        expected.turns,
        expected.completed,
        expected.tokens,
    )


def _set(data: Any, path: tuple[Any, ...], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


def _drop(data: Any, path: tuple[Any, ...]) -> None:
    for key in path[:-1]:
        data = data[key]
    del data[path[-1]]


BROKEN = [
    # (what is done, path, value, record, field, message)
    (
        "set",
        ("content", 1, "statistical_data", "score"),
        "0",
        "content[1]",
        "statistical_data.score",
        "expected a number, got the string '0'",
    ),
    ("drop", ("total_score",), None, "-", "total_score", "missing (expected a number)"),
    ("drop", ("content", 0, "timestamp"), None, "content[0]", "timestamp", "missing (expected a whole number)"),
    ("set", ("content", 2, "map"), None, "content[2]", "map", "expected a string, got null"),
    (
        "set",
        ("total_action_list", 1, 0, "timestamp"),
        2.5,
        "total_action_list[1][0]",
        "timestamp",
        "expected a whole number, got the number 2.5",
    ),
    (
        "set",
        ("content", 0, "content", "content", 0, 1, "agent"),
        "1",
        "content[0]",
        "content.content[0][1].agent",
        "expected a whole number, got the string '1'",
    ),
    (
        "set",
        ("content", 0, "content", "content", 0, 1, "agent"),
        2,
        "content[0]",
        "content.content[0][1].agent",
        "expected 0 (Chef) or 1 (Assistant), got the integer 2",
    ),
    (
        "set",
        ("content", 0, "statistical_data", "communication", 0, "token", 1),
        None,
        "content[0]",
        "statistical_data.communication[0].token[1]",
        "expected a whole number, got null",
    ),
    (
        "set",
        ("content", 0, "content", "content"),
        [[]],
        "content[0]",
        "content.content",
        "expected a list of 2 (the turns of the conversation each agent started, Chef first), got a list of 1 item",
    ),
    (
        "set",
        ("content", 2, "statistical_data", "error", 0, "validator_error", "error_message"),
        "oops",
        "content[2]",
        "statistical_data.error[0].validator_error.error_message",
        "expected a list, got the string 'oops'",
    ),
    (
        "set",
        ("content", 0, "content", "original_log", 0, 0, "tokens"),
        "236",
        "content[0]",
        "content.original_log[0][0].tokens",
        "expected a whole number, got the string '236'",
    ),
    ("set", ("content", 1), [], "content[1]", "(step)", "expected an object, got a list of 0 items"),
    (
        "set",
        ("content", 3, "statistical_data", "process_reward", "team_total"),
        True,
        "content[3]",
        "statistical_data.process_reward.team_total",
        "expected a number, got the boolean true",
    ),
    (
        "set",
        ("total_order_finished",),
        "baked_bell_pepper",
        "-",
        "total_order_finished",
        "expected a list, got the string 'baked_bell_pepper'",
    ),
    ("set", ("content", 0, "actions", 1), 7, "content[0]", "actions[1]", "expected a string, got the integer 7"),
]


@pytest.mark.parametrize("how,path,value,record,fld,message", BROKEN, ids=[b[4] + ":" + b[0] for b in BROKEN])
def test_broken_run_names_file_record_and_field(tmp_path, how, path, value, record, fld, message):
    data = cookpandar_run()
    if how == "set":
        _set(data, path, value)
    else:
        _drop(data, path)
    rel = "azure-gpt-4o/json/baked_bell_pepper/w_baked_bell_pepper.json"
    write(tmp_path / rel, data)
    runs, report = read_runs(tmp_path)
    assert runs == []
    issues = [(i.file, i.record, i.field, i.message) for i in report.errors]
    assert (rel, record, fld, message) in issues, report.format()
    no_python_names(report)
    with pytest.raises(DatasetError) as err:
        load_runs(tmp_path)
    assert rel in str(err.value)


def test_broken_fork_agents(tmp_path):
    data = fork_run()
    data["agents"][1]["index"] = 2
    data["agents"][0]["model"] = ["gpt-4o"]
    run, report = read_one(write(tmp_path / "f.json", data))
    assert run is None
    issues = {(i.record, i.field, i.message) for i in report.errors}
    assert ("-", "agents[1].index", "expected 0 (Chef) or 1 (Assistant), got the integer 2") in issues
    assert ("-", "agents[0].model", "expected a string, got a list of 1 item") in issues
    no_python_names(report)


def test_a_hopeless_file_stops_after_fifty_problems(tmp_path):
    data = cookpandar_run()
    data["content"] = [{"timestamp": "x"} for _ in range(200)]
    run, report = read_one(write(tmp_path / "run.json", data))
    assert run is None
    assert report.error_count == 51
    assert report.errors[-1].message.startswith("reading stopped after 50 problems")


def test_not_a_run_is_a_warning_and_bad_json_an_error(tmp_path):
    write(tmp_path / "config.json", {"environment": {"layout": "new_env", "order": "boiled_egg"}, "agents": {}})
    (tmp_path / "broken.json").write_text('{"total_score": 20, "content": [')
    write(tmp_path / "ok.json", cookpandar_run())
    runs, report = read_runs(tmp_path)
    assert [r.source for r in runs] == ["ok.json"]
    (warning,) = report.warnings
    assert warning.file == "config.json" and "found an object with the keys agents, environment" in warning.message
    (error,) = report.errors
    assert (error.file, error.field) == ("broken.json", "(json)")

    only = tmp_path / "only"
    write(only / "config.json", {"environment": {}})
    runs, report = read_runs(only)
    assert runs == [] and not report.ok
    assert report.errors[0].message.startswith("no kitchen runs found")
    with pytest.raises(DatasetError):
        load_runs(only)

    runs, report = read_runs(tmp_path / "missing")
    assert runs == [] and report.errors[0].message.startswith("not found")


# -- Overcooked-AI ---------------------------------------------------------------------------------


def test_overcooked_ai_fixtures():
    runs, report = read_runs(FIXTURES)
    assert report.ok, report.format()
    demo, standard = runs
    assert (standard.id, standard.format, standard.n_steps) == ("test_trajectory", "overcooked-ai", 10)
    assert standard.models == ("", "") and standard.turns == () and standard.recipe == ""
    assert standard.extra["layout"] == "cramped_room_tomato"
    assert standard.score == 20 and standard.success and standard.finished == ("soup",)
    assert [s.reward for s in standard.steps] == [0, 0, 0, 0, 0, 0, 0, 20, 0, 0]
    assert standard.steps[0].actions == ("interact", "interact")
    assert standard.steps[1].actions == ("stay", "stay")
    assert standard.steps[0].orders == ("onion+onion+onion", "tomato+tomato+tomato", "onion+tomato")
    assert [(c.step, c.agent, c.action) for c in standard.completed[:3]] == [
        (0, 0, "interact(floor)"),
        (0, 1, "interact(counter)"),
        (2, 0, "south"),
    ]
    assert grid_cells(standard.steps[0].grid) == [
        ["X", "X", "P", "X", "X"],
        ["O", "", "", "↑1", "T"],
        ["X", "↑0", "", "", "X"],
        ["X", "D", "X", "S", "X"],
    ]
    assert parse_cell(grid_cells(standard.steps[7].grid)[1][1]) == Cell(" ", 0, "west", "o", "")
    (returns,) = [w for w in report.warnings if w.file == "test_trajectory.json"]
    assert returns.field == "ep_returns[0]" and "add up to 20" in returns.message

    assert (demo.id, demo.n_steps, demo.score, demo.success) == ("demo_replay_test_traj", 30, 20, True)
    assert demo.finished == ("soup(onion, onion, onion)",)
    assert demo.extra["layout"] == "mdp_test" and all(s.grid == "" for s in demo.steps)
    assert demo.steps[0].orders == ("onion", "any") and demo.steps[-1].orders == ("any",)
    (terrain,) = [w for w in report.warnings if w.file == "demo_replay_test_traj.json"]
    assert terrain.field == "mdp_params[0].terrain"


def test_overcooked_ai_episodes_models_and_errors(tmp_path):
    data = json.loads((FIXTURES / "test_trajectory.json").read_text())
    for key in ("ep_states", "ep_actions", "ep_rewards", "ep_dones", "mdp_params", "env_params"):
        data[key] = data[key] * 2
    data["ep_returns"] = [20, 20]
    data["ep_infos"] = [
        [{"agent_infos": [{"model": "ppo_bc"}, {"name": "human_model"}]}] * 10,
        [{"agent_infos": [{}, {}]}] * 10,
    ]
    write(tmp_path / "two.json", data)
    runs, report = read_runs(tmp_path / "two.json")
    assert report.ok and not report.warnings, report.format()
    assert [r.id for r in runs] == ["two#0", "two#1"]
    assert runs[0].models == ("ppo_bc", "human_model") and runs[1].models == ("", "")
    run, single = read_one(tmp_path / "two.json")
    assert run is None and "holds 2 episodes" in single.errors[0].message

    data = json.loads((FIXTURES / "test_trajectory.json").read_text())
    data["ep_actions"][0][3] = ["jump", [0, 2]]
    data["ep_states"][0][5]["players"][1]["position"] = [3, "1"]
    run, report = read_one(write(tmp_path / "bad.json", data))
    assert run is None
    issues = {(i.record, i.field, i.message) for i in report.errors}
    assert (
        "episode 0, step 3",
        "ep_actions[0][3][0]",
        "expected 'interact' or a direction [dx, dy] of -1, 0 or 1, got the string 'jump'",
    ) in issues
    assert (
        "episode 0, step 5",
        "ep_states[0][5].players[1].position[1]",
        "expected a whole number, got the string '1'",
    ) in issues
    no_python_names(report)


# -- the parts -------------------------------------------------------------------------------------


def test_grid_cells_and_cells():
    grid = draw(with_cell(2, 1, "→1b"))
    rows = grid_cells(grid)
    assert len(rows) == 5 and all(len(r) == 5 for r in rows)
    assert rows[2][1] == "→1b"
    assert grid_cells("") == []
    assert grid_cells("X  P\nI  S") == [["X  P"], ["I  S"]]  # one row per line when no blank lines
    assert parse_cell("") == Cell(" ")
    assert parse_cell("→1b") == Cell(" ", 1, "east", "b", "")
    assert parse_cell("←0") == Cell(" ", 0, "west", "", "")
    assert parse_cell("O-") == Cell("O", state="-")
    assert parse_cell("o=") == Cell("P", state="=")
    assert parse_cell("ø2") == Cell("P", state="2")
    assert parse_cell("Xt") == Cell("X", held="t")
    assert parse_cell("S") == Cell("S")


def test_path_facts():
    def facts(p: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
        f = path_facts(Path("/x") / p)
        return f.models, f.scaffolds, f.recipe

    assert facts(
        "assets/data/batch_results/azure-gpt-4o/json/baked_bell_pepper/worker9_0_7_baked_bell_pepper_270-2025-12-18_02-10-06_799603-a31ad6_baked_bell_pepper.json"
    ) == (
        ("azure-gpt-4o", "azure-gpt-4o"),
        ("", ""),
        "baked_bell_pepper",
    )
    assert facts("src/data/gpt-4o/baked_bell_pepper_soup/experiment_2026-03-28_13-53-34_baked_bell_pepper_soup.json")[
        0
    ] == ("gpt-4o", "gpt-4o")
    assert (
        facts("src/data/gpt-4o/baked_bell_pepper_soup/experiment_2026-03-28_13-53-34_baked_bell_pepper_soup.json")[2]
        == "baked_bell_pepper_soup"
    )
    assert facts(
        "src/data/reflexion_gpt-4o__reflexion_claude-sonnet-4-20250514/boiled_egg/experiment_2026-04-23_09-15-04_boiled_egg.json"
    ) == (
        ("gpt-4o", "claude-sonnet-4-20250514"),
        ("reflexion", "reflexion"),
        "boiled_egg",
    )
    assert facts("src/data/a-tom_gpt-4o/baked_potato_slices/experiment_1_baked_potato_slices.json")[:2] == (
        ("gpt-4o", "gpt-4o"),
        ("a-tom", "a-tom"),
    )
    assert facts("src/data/gpt-3.5-turbo-0125/boiled_egg/always/experiment_2025-11-07_08-00-51_boiled_egg.json")[0] == (
        "gpt-3.5-turbo-0125",
        "gpt-3.5-turbo-0125",
    )
    assert facts("src/data/Qwen/Qwen2.5-7B-Instruct/experiment_2025-06-02_14-18-13_.json") == (
        ("Qwen2.5-7B-Instruct", "Qwen2.5-7B-Instruct"),
        ("", ""),
        "",
    )
    assert facts("results/2025-12-18_02-10-06_boiled_egg/experiment_2025-12-18_02-10-06_boiled_egg.json") == (
        (),
        (),
        "boiled_egg",
    )
    assert facts("shared/real_data/collab_overcooked/worker9_0_7_baked_bell_pepper_270_baked_bell_pepper.json") == (
        (),
        (),
        "",
    )


def test_recipe_levels():
    assert len(RECIPE_LEVELS) == 30
    assert sorted(RECIPE_LEVELS.values()) == [level for level in range(1, 7) for _ in range(5)]
    assert recipe_level("baked_bell_pepper") == 1
    assert recipe_level("baked_potato_slices") == 2
    assert recipe_level("baked_bell_pepper_soup") == 3
    assert recipe_level("zucchini_green_pea_and_onion_patty") == 6
    assert recipe_level("apple") is None


def test_read_file_of_a_run(tmp_path):
    report = Report()
    runs = read_file(write(tmp_path / "r.json", cookpandar_run()), "r.json", report)
    assert report.ok and [r.id for r in runs] == ["r"]


# -- episodes appended in one file; orders outside the benchmark's recipes -------------------------


def appended(last_succeeds: bool = True) -> dict[str, Any]:
    """Two episodes in one file, as the benchmark's main.py writes the second episode's file: one
    statistics record kept across episodes, so ``content`` and ``total_timestamp`` hold both (steps
    restarting at 0), ``total_order_finished`` gains an order at every rewarded step of either, and
    ``total_action_list`` and ``total_score`` are the second episode's alone."""
    first, second = fork_run(), fork_run()
    second["content"][1]["actions"] = ["wait(1)", "wait(1)"]
    if not last_succeeds:
        second["content"][2]["statistical_data"]["score"] = 0
        second["total_action_list"] = [[], [{"timestamp": 1, "action": "pickup(egg, ingredient_dispenser)"}]]
    return {
        **second,
        "total_timestamp": [0, 1, 2, 0, 1, 2],
        "total_order_finished": ["boiled_egg", "boiled_egg"] if last_succeeds else ["boiled_egg"],
        "total_score": 20 if last_succeeds else 0,
        "content": first["content"] + second["content"],
    }


@pytest.mark.parametrize("last_succeeds", [True, False])
def test_appended_episodes_read_as_the_last_one_with_a_warning(tmp_path, last_succeeds):
    rel = "proagent_gpt-4o__baseline_claude-sonnet-4-20250514/boiled_egg/experiment_2024-01-01_00-00-01_boiled_egg.json"
    write(tmp_path / rel, appended(last_succeeds))
    runs, report = read_runs(tmp_path)
    assert report.ok, report.format()
    (run,) = runs  # one run, not two episodes counted as one: the first is its own file's run
    assert [s.step for s in run.steps] == [0, 1, 2]
    assert run.steps[1].actions == ("wait(1)", "wait(1)")  # the second episode's
    assert run.success is last_succeeds and run.finished == (("boiled_egg",) if last_succeeds else ())
    assert run.score == (20 if last_succeeds else 0)
    assert len({t.conversation for t in run.turns}) == 3 and {t.step for t in run.turns} == {0, 1, 2}
    (warning,) = report.warnings
    assert (warning.file, warning.record, warning.field) == (rel, "-", "content")
    assert warning.message.startswith("the file holds 2 episodes appended one after another (the step numbers start")
    assert (
        "content[3]" in warning.message and "Only the last episode, content[3:], is read as this run" in warning.message
    )


def test_orders_outside_the_benchmarks_recipes_are_named_in_a_warning(tmp_path):
    several = fork_run()
    for step in several["content"]:
        step["order_list"] = ["apple", "onion_soup", "onion_soup"]
    write(tmp_path / "runs" / "several.json", several)
    one = fork_run()
    for step in one["content"]:
        step["order_list"] = ["apple_pie"]
    write(tmp_path / "runs" / "one.json", one)
    runs, report = read_runs(tmp_path / "runs")
    assert report.ok and len(runs) == 2
    by_file = {w.file: w for w in report.warnings}
    many = by_file["several.json"]
    assert many.field == "content[0].order_list"
    assert many.message == (
        "the run has 3 orders (apple, onion_soup, onion_soup), so no single recipe: its recipe is left empty and its "
        "task level unknown (it is left out of the per-level rows); not among the benchmark's recipes: apple, "
        "onion_soup"
    )
    assert "the run's order 'apple_pie' is not among the benchmark's 30 recipes" in by_file["one.json"].message
    levels = {r.source: (r.recipe, r.level) for r in runs}
    assert levels == {"several.json": ("", None), "one.json": ("apple_pie", None)}
