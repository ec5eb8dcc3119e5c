"""Compare page speed: 10 runs x 3,000 predictions per task, server-side render under AppTest; and
the first load of 10 runs x 100,000 predictions per task (``compare_first_load_ms_10x100k``).

The dataset comes from the sample generator (``corpus.generate.generate``) with enough sessions for
3,000 test-split instances; it carries the generator's two simulated runs, cut to 3,000
predictions per task. Eight more runs are made from them here: the same files with a seeded share
of labels and action types redrawn, under their own model names and settings. AppTest then opens
the Compare page on that dataset (the first load scores everything), visits every view once
(each view's first visit computes its tables), and times a second visit of every view: the page's
server-side render once its scores exist. The entry is the slowest view of that second pass.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

N_RUNS = 10
N_PREDICTIONS = 3000
N_SESSIONS = 130
SESSIONS_LARGE, PREDICTIONS_LARGE = 5000, 100_000
VIEWS = ["Leaderboard", "Overlay", "Confusions", "Slices", "Ablation", "Instances", "Judges"]
CODES = {
    "team_goal": ["t1", "t2", "t3", "t4"],
    "partner_intent": ["p1", "p2", "p3", "p4", "p5"],
    "self_reasoning": ["r1", "r2", "r3", "r4", "r5", "r6"],
}


def _cut(path: Path, n: int) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()][:n]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def _derived_run(folder: Path, mm: list[dict], na: list[dict], k: int, setting: str) -> None:
    """A run whose labels and action types are the source's with a seeded share redrawn."""
    rng = random.Random(k)
    noise = 0.05 + 0.04 * k
    folder.mkdir(parents=True)
    (folder / "model.json").write_text(
        json.dumps({"name": f"Bench model {k // 2}", "model": f"bench-{k // 2}", "setting": setting, "simulated": True})
    )
    with open(folder / "mental_model.jsonl", "w") as f:
        for r in mm:
            r = dict(r)
            for dim, codes in CODES.items():
                if rng.random() < noise:
                    r[dim] = rng.choice(codes)
            f.write(json.dumps(r) + "\n")
    with open(folder / "next_action.jsonl", "w") as f:
        for r in na:
            r = dict(r)
            if r["role"] == "follower" and r["action_type"] in ("message", "undo") and rng.random() < noise:
                r = {
                    **r,
                    "action_type": "undo" if r["action_type"] == "message" else "message",
                    "content": None if r["action_type"] == "message" else "ok",
                }
            f.write(json.dumps(r) + "\n")


def make_dataset(dest: Path, n_sessions: int = N_SESSIONS, n_predictions: int = N_PREDICTIONS) -> Path:
    """A copy of the generated corpus of ``n_sessions`` sessions (bench/corpora.py) with its two
    simulated runs cut to ``n_predictions`` predictions per task and eight more runs made from them."""
    from bench.corpora import generated

    root = dest
    shutil.copytree(generated(n_sessions).path, root)
    preds = root / "predictions"
    sources = sorted(d for d in preds.iterdir() if d.is_dir())
    base = {}
    for d in sources:
        mm = _cut(d / "mental_model.jsonl", n_predictions)
        na = _cut(d / "next_action.jsonl", n_predictions)
        if len(mm) < n_predictions or len(na) < n_predictions:
            raise RuntimeError(f"the generated test split has only {len(mm)} instances; raise the sessions")
        base[d.name] = (mm, na)
    names = list(base)
    for k in range(N_RUNS - len(sources)):
        mm, na = base[names[k % len(names)]]
        _derived_run(preds / f"bench-{k}", mm, na, k, ["base", "+mental_model", "+CoT", "+CoT +mental_model"][k % 4])
    return root


def open_compare(root: Path):
    """AppTest on the Compare page of the dataset at ``root``, opened by its link as a visitor's
    browser opens it (the only dataset offered: its folder is the dataset root); (app, ms of the
    page's first load, ms of the app's first run: the dataset's load). The pages' modules are
    imported before the page's first load, as a served app's warm-up imports them when the server
    starts (deploy/serve.py): the first load is the page's own work, as bench_analysis times it."""
    import importlib

    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import AppTest

    from corpus.loading.catalog import key_of
    from deploy.serve import page_modules

    os.environ["GROUNDWORK_DATASET_ROOTS"] = str(root.parent)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=1800)
    at.query_params["dataset"] = key_of(root)
    t0 = time.perf_counter()
    at.run()
    loaded = (time.perf_counter() - t0) * 1000
    for name in page_modules():
        importlib.import_module(name)
    PagesManager.uses_pages_directory = False
    t0 = time.perf_counter()
    at.switch_page("pages/compare.py").run()
    first = (time.perf_counter() - t0) * 1000
    if at.exception:
        raise RuntimeError(at.exception[0].value)
    return at, first, loaded


def visit(at, view: str, tabs_key: str = "compare_tab") -> float:
    """ms of one run of the page with ``view`` open."""
    at.session_state[tabs_key] = view
    t0 = time.perf_counter()
    at.run()
    ms = (time.perf_counter() - t0) * 1000
    if at.exception:
        raise RuntimeError(f"{view}: {at.exception[0].value}")
    return ms


def run() -> dict[str, dict]:
    # A data directory of the run's own: its dataset cache is empty, so every load below reads the
    # dataset (a cache kept from an earlier run would make the dataset's load a reopening).
    data = Path(tempfile.mkdtemp(prefix="gw-bench-compare-data-"))
    os.environ["GROUNDWORK_DATA_DIR"] = str(data)
    try:
        return _run()
    finally:
        shutil.rmtree(data, ignore_errors=True)


def _run() -> dict[str, dict]:
    tmp = Path(tempfile.mkdtemp(prefix="gw-bench-compare-"))
    try:
        root = make_dataset(tmp / "ds")
        at, first, _ = open_compare(root)
        first_visit = {v: visit(at, v) for v in VIEWS}
        again = {v: visit(at, v) for v in VIEWS}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    slowest = max(again, key=again.get)
    print(
        f"  first load {first:.0f} ms; first visit per view: "
        + ", ".join(f"{v} {ms:.0f}" for v, ms in first_visit.items())
        + "; again: "
        + ", ".join(f"{v} {ms:.0f}" for v, ms in again.items()),
        file=sys.stderr,
    )
    out = {
        "compare_page_ms_10x3000": {"value": again[slowest], "unit": "ms", "target": 2000},
        "compare_first_load_ms_10x3000": {"value": first, "unit": "ms", "target": None},
        "compare_first_view_ms_10x3000": {"value": max(first_visit.values()), "unit": "ms", "target": None},
    }
    out.update(_large())
    return out


def _large() -> dict[str, dict]:
    """10 runs x 100,000 predictions per task on 5,000 generated sessions (~500,000 actions): the
    dataset's load (every run read and checked with it), then the Compare page's first load (its
    leaderboard opens on next-action prediction), then the first switch of the leaderboard to
    mental-model prediction (whose scores are made when first shown)."""
    tmp = Path(tempfile.mkdtemp(prefix="gw-bench-compare-"))
    try:
        root = make_dataset(tmp / "ds", n_sessions=SESSIONS_LARGE, n_predictions=PREDICTIONS_LARGE)
        at, first, loaded = open_compare(root)
        other_task = visit_task(at, "mental_model")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"  10 x 100k: dataset load {loaded:.0f} ms, Compare's first load {first:.0f} ms, "
        f"first switch to mental-model prediction {other_task:.0f} ms",
        file=sys.stderr,
    )
    return {
        "compare_first_load_ms_10x100k": {"value": first, "unit": "ms", "target": 10000},
        "compare_first_task_switch_ms_10x100k": {"value": other_task, "unit": "ms", "target": None},
        "compare_dataset_load_ms_10x100k": {"value": loaded, "unit": "ms", "target": None},
    }


def visit_task(at, task: str) -> float:
    """ms of the Leaderboard's run once ``task`` is chosen."""
    at.session_state["compare_lb_task"] = task
    t0 = time.perf_counter()
    at.run()
    if at.exception:
        raise RuntimeError(f"{task}: {at.exception[0].value}")
    return (time.perf_counter() - t0) * 1000


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.0f} {r['unit']}" + (f" (target <= {r['target']})" if r["target"] else ""))
