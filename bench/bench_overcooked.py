"""Reading kitchen runs: 300 Collab-Overcooked run logs of about 300 KB each (~90 MB of JSON).

The runs are variants of one synthetic run built here in CookPandar/Collab-Overcooked's shape
(per step: the kitchen map, both agents' actions, conversations of think/say/action/recent_goal
turns with their tokens, errors and corrections, the process reward, and the raw LLM calls of
``original_log`` with their prompts, which make most of a real log's size), written as the
benchmark's batch runner lays them out (``<model>/json/<recipe>/<worker>_..._<recipe>.json``).
``load_runs`` reads the folder in a fresh process (the importer's modules loaded first):
``import_overcooked_ms_300_runs`` is its time (target 30,000 ms on one CPU);
``import_overcooked_mb_300_runs`` the size read.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

N_RUNS = 300
RUN_BYTES = 300_000  # about the size of a real log of 20-30 steps
MODELS = ("azure-gpt-4o", "qwen2.5-7B-instruct", "deepseek-v3")
RECIPES = (
    "baked_bell_pepper",
    "boiled_egg",
    "boiled_mushroom",
    "baked_potato_slices",
    "boiled_corn_slices",
    "baked_carrot_soup",
    "baked_pumpkin_soup",
)

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
from corpus.importers.overcooked import load_runs
t0 = time.perf_counter()
runs = load_runs(sys.argv[1])
ms = (time.perf_counter() - t0) * 1000
print(json.dumps({"ms": ms, "n_runs": len(runs), "n_turns": sum(len(r.turns) for r in runs)}))
"""

# The real run's 5 x 5 kitchen, row by row: counters (X), pot (P), ingredient and dish dispensers
# (I, D), chopping board (C), oven (O), blender (B), serving spot (S), floor (blank).
KITCHEN = ["XXXPX", "I X X", "C X X", "D X O", "XBXSX"]


def _map(rng: random.Random) -> str:
    """A 5 x 5 kitchen drawn as the benchmark draws it, the two agents somewhere on the floor."""
    rows = [list(r) for r in KITCHEN]
    rows[rng.choice((1, 2, 3))][1] = rng.choice("↑↓←→") + "1" + rng.choice(("", "b", "d"))
    rows[rng.choice((1, 2, 3))][3] = rng.choice("↑↓←→") + "0" + rng.choice(("", "b"))
    return "".join("".join((c if c != " " else "").ljust(7) + " " for c in row) + "\n\n" for row in rows)


def _prose(rng: random.Random, words: int) -> str:
    vocab = "the chef assistant pepper oven counter pick place bake wait step recipe order dish serve next".split()
    return " ".join(rng.choice(vocab) for _ in range(words))


def _turn(rng: random.Random, agent: int, say: str, action: str) -> dict:
    return {
        "agent": agent,
        "think": _prose(rng, 60),
        "say": say + "\n```" if say != "[NOTHING]" else say,
        "action": "Action: " + action,
        "recent_goal": _prose(rng, 30),
    }


def _call(rng: random.Random, t: int, agent: int, index: int, kind: str, tokens: int) -> dict:
    entry = {
        "timestamp": t,
        "agent": "Chef" if agent == 0 else "Assistant",
        "call_index": index,
        "call_type": kind,
        "input": _prose(rng, 700),
        "output": "```\nThink: " + _prose(rng, 60) + "\nAction: wait(1)\n```",
        "tokens": tokens,
    }
    if kind == "communication":
        entry["metadata"] = {"role": "you" if index else "team"}
    return entry


def _step(rng: random.Random, t: int, recipe: str, last: bool, success: bool) -> dict:
    request = f"Collab(request(Assistant, pickup({recipe.split('_')[-1]}, ingredient_dispenser)))"
    talk = rng.random() < 0.3
    turns0: list = []
    turns1: list = []
    comm = [{"call": 0, "turn": [], "token": []}, {"call": 0, "turn": [], "token": []}]
    calls: list[list] = [[], []]
    if talk:
        says = [request, 'Collab(ack(Chef, "On it."))', "[NOTHING]"]
        tokens = [rng.randint(150, 300) for _ in says]
        turns0 = [_turn(rng, k % 2, s, s if s != "[NOTHING]" else "wait(1)") for k, s in enumerate(says)]
        comm[0] = {"call": 1, "turn": [s + "\n```" if s != "[NOTHING]" else s for s in says], "token": tokens}
        calls[0] = [_call(rng, t, 0, 0, "planner_main", tokens[0]), _call(rng, t, 0, 1, "communication", tokens[2])]
        calls[1] = [_call(rng, t, 1, 0, "communication", tokens[1])]
    elif rng.random() < 0.7:
        n = rng.randint(120, 260)
        turns0 = [_turn(rng, 0, "[NOTHING]", "wait(1)")]
        calls[0] = [_call(rng, t, 0, 0, "planner_main", n)]
    if rng.random() < 0.3:
        n = rng.randint(100, 200)
        turns1 = [_turn(rng, 1, "[NOTHING]", "place_obj_on_counter()")]
        calls[1].append(_call(rng, t, 1, len(calls[1]), "planner_main", n))
    validator = rng.random() < 0.1
    errors = [
        {
            "format_error": {"error_num": 0, "error_message": []},
            "validator_error": {
                "error_num": int(validator),
                "error_message": ["There is no object in assistant's hand.\n"] if validator else [],
            },
        },
        {
            "format_error": {"error_num": 0, "error_message": []},
            "validator_error": {"error_num": 0, "error_message": []},
        },
    ]
    reward = rng.choice((0, 0.0, round(rng.random(), 6)))
    score = 20 if last and success else rng.choice((0, 0.0))
    return {
        "timestamp": t,
        "order_list": [recipe],
        "actions": [rng.choice(("wait(1)", "bake(oven0)")), rng.choice(("wait(5)", "place_obj_on_counter()"))],
        "map": _map(rng),
        "statistical_data": {
            "score": score,
            "communication": comm,
            "error": errors,
            "error_correction": [
                {
                    "format_correction": {"correction_num": 0, "correction_tokens": []},
                    "validator_correction": {"correction_num": 0, "reflection_obtain": [], "correction_tokens": []},
                }
                for _ in range(2)
            ],
            "process_reward": {
                "timestamp": t,
                "per_agent": [
                    {
                        "sequence_reward": 0.0,
                        "penalty_total": 0.0,
                        "penalties": [],
                        "similarity": 0.0,
                        "total": 0.0,
                        "call_count": 0,
                        "calls": [],
                    }
                    for _ in range(2)
                ],
                "intermediate": {"reward": 0.0, "items": []},
                "team_total": reward,
            },
        },
        "content": {
            "observation": [_prose(rng, 250) if calls[0] else [], _prose(rng, 250) if calls[1] else []],
            "reflection": [[], []],
            "content": [turns0, turns1],
            "action_list": [["wait(1)"], ["wait(5)"]],
            "original_log": calls,
        },
    }


def synthetic_run(seed: int, recipe: str) -> dict:
    """One run log of about :data:`RUN_BYTES`, its steps drawn from ``seed``."""
    rng = random.Random(seed)
    success = rng.random() < 0.7
    steps: list[dict] = []
    size = 0
    t = 0
    while size < RUN_BYTES * rng.uniform(0.9, 1.1) or t < 5:
        step = _step(rng, t, recipe, False, success)
        steps.append(step)
        size += len(json.dumps(step, indent=4))
        t += 1
    steps[-1]["statistical_data"]["score"] = 20 if success else 0
    completed = [
        [{"timestamp": k, "action": "bake(oven0)"} for k in range(2, t, 5)],
        [{"timestamp": k, "action": "place_obj_on_counter()"} for k in range(1, t, 4)],
    ]
    return {
        "total_timestamp": list(range(t)),
        "total_order_finished": [recipe] if success else [],
        "total_score": 20 if success else 0,
        "total_action_list": completed,
        "content": steps,
        "process_rewards": [s["statistical_data"]["process_reward"] for s in steps],
        "prompt_templates": {
            "Chef": {
                "role": "Chef",
                "actor": "chef",
                "order": recipe,
                "prompt": _prose(rng, 400),
                "recipe_text": "NAME:\n" + recipe,
            },
            "Assistant": {"role": "Assistant", "actor": "assistant", "order": recipe, "prompt": _prose(rng, 400)},
        },
    }


def write_runs(folder: Path, n: int = N_RUNS) -> int:
    """``n`` runs under ``folder`` in the batch runner's layout; the bytes written."""
    total = 0
    for k in range(n):
        model, recipe = MODELS[k % len(MODELS)], RECIPES[k % len(RECIPES)]
        path = (
            folder
            / model
            / "json"
            / recipe
            / f"worker{k % 10}_0_7_{recipe}_{k}-2025-12-18_02-10-06_{k:06d}_{recipe}.json"
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(synthetic_run(k, recipe), indent=4)
        path.write_text(text)
        total += len(text.encode())
    return total


# The Kitchen screen on the imported runs, as bench_analysis times the analysis screens: the app run
# once (modules imported, the runs loaded), then the screen's caches cleared and one run of the page
# timed (every run's audit and metrics, the tables, the composition, the replay of the first run's
# first step), the median of three.
_SCREEN = r"""
import json, os, statistics, sys, time
sys.path.insert(0, sys.argv[2])
os.environ["GROUNDWORK_DATA_DIR"] = sys.argv[3]
os.environ["GROUNDWORK_DATASET_ROOTS"] = os.path.dirname(sys.argv[1])
from pathlib import Path
from streamlit.testing.v1 import AppTest
from corpus.loading.catalog import key_of
from streamlit.runtime.pages_manager import PagesManager
import streamlit as st
from services import kitchen as svc

at = AppTest.from_file(os.path.join(sys.argv[2], "app.py"), default_timeout=300)
at.query_params["dataset"] = key_of(Path(sys.argv[1]))  # the dataset measured, as a link opens it
at.run()
assert at.session_state["dataset_source"].path == Path(sys.argv[1]).resolve(), at.session_state["dataset_source"]
PagesManager.uses_pages_directory = False
at.switch_page("pages/kitchen.py").run()
assert not at.exception, [e.value for e in at.exception]
times = []
for _ in range(3):
    svc._metrics.clear()
    st.cache_data.clear()
    t0 = time.perf_counter()
    at.run()
    times.append((time.perf_counter() - t0) * 1000)
    assert not at.exception, [e.value for e in at.exception]
print(json.dumps({"ms": statistics.median(times), "metrics": len(at.metric)}))
"""


def run() -> dict[str, dict]:
    from corpus.importers import run_import

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "batch_results"
        size = write_runs(folder)
        out = subprocess.run(
            [sys.executable, "-c", _CHILD, str(folder), str(ROOT)], capture_output=True, text=True, check=True
        )
        result = json.loads(out.stdout.strip().splitlines()[-1])
        dataset = run_import("overcooked", folder, Path(tmp) / "roots" / "kitchen")
        screen = subprocess.run(
            [sys.executable, "-c", _SCREEN, str(dataset), str(ROOT), str(Path(tmp) / "data")],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        if screen.returncode != 0:
            raise RuntimeError(f"kitchen screen bench failed:\n{screen.stderr[-3000:]}")
        page = json.loads(screen.stdout.strip().splitlines()[-1])
    assert result["n_runs"] == N_RUNS, result
    return {
        "import_overcooked_ms_300_runs": {"value": result["ms"], "unit": "ms", "target": 30000},
        "import_overcooked_mb_300_runs": {"value": size / 2**20, "unit": "MB", "target": None},
        "kitchen_screen_ms_300_runs": {"value": page["ms"], "unit": "ms", "target": 1000},
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
