"""A lab at work: 50 coders and one lead on 3 replicas behind nginx, on PostgreSQL (``make lab``'s
set-up, deploy/local.py), in real time.

The coders write labels at a human pace (one every 2 to 6 s each, about 12 a second together)
through the store write the Code page makes (``Store.add_label`` with a request id), each coder on
items of a 600-item task in an order of their own, from 5 processes of 10 coders; the lead watches
the Tasks page's live panel in headless chromium, through nginx. Every label's commit time (the
writer's wall clock when the write returned) and every count the lead's panel paints ("N labels
from ...", the page's wall clock) are recorded on one machine's clock; a label's latency is the time
from its commit to the first paint of a count that includes it.

- ``team_label_to_panel_ms_p95_50x3``: the 95th percentile of that latency, target <= 1,000 ms;
- ``team_label_to_panel_ms_median_50x3``: its median;
- ``team_labels_50x3``: the labels written in the measured minute; ``team_labels_never_shown_50x3``:
  labels no paint ever included (target 0).

Needs nginx and PostgreSQL's server (``make test`` installs nginx; ``apt-get install postgresql``).
``python bench/bench_team.py --coders 20 --seconds 180`` runs other sizes.
"""

from __future__ import annotations

import argparse
import bisect
import multiprocessing as mp
import random
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (ROOT, ROOT / "tests", HERE, ROOT / "deploy"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

CODERS = 50
REPLICAS = 3
SECONDS = 60
ITEMS = 600
PER_PROCESS = 10
PACE_S = (2.0, 6.0)
CODES = ("initiate", "continue", "acknowledge", "repair", "request_ack")

# On the lead's page: every count the panel paints, with the wall time of the paint.
_WATCH_PANEL = """() => {
    window.__paints = [];
    let last = null;
    const check = () => {
        const m = document.body.innerText.match(/(\\d+) labels from \\d+ coders/);
        if (m && m[1] !== last) {
            last = m[1];
            const n = Number(m[1]);
            requestAnimationFrame(() => setTimeout(() => {
                window.__paints.push([n, performance.timeOrigin + performance.now()]); }, 0));
        }
    };
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true });
    check();
}"""


def _coders(db_url: str, task_id: int, names: list[str], items: list[str], start: float, stop: float, out) -> None:
    """One process: a thread per coder, each writing labels until ``stop``; puts the commit times."""
    from corpus.store import Store

    store = Store(db_url)
    users = [store.user(n) for n in names]
    commits: list[float] = []
    lock = threading.Lock()

    def coder(user, seed: int) -> None:
        rng = random.Random(seed)
        order = items[:]
        rng.shuffle(order)
        time.sleep(max(0.0, start - time.time()) + rng.uniform(0, PACE_S[1]))
        for item in order:
            if time.time() >= stop:
                return
            store.add_label(user, task_id, item, rng.choice(CODES), seconds=3.0, request_id=uuid.uuid4().hex)
            with lock:
                commits.append(time.time())
            time.sleep(rng.uniform(*PACE_S))

    threads = [threading.Thread(target=coder, args=(u, int(u.username.removeprefix("coder")))) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    store.engine.dispose()
    out.put(commits)


def latencies(commits: list[float], paints: list[tuple[int, float]]) -> tuple[list[float], int]:
    """Per label (in commit order), the time from its commit to the first paint of a count that
    includes it (the k-th committed label is in every count >= k painted after its commit); and how
    many labels no paint included."""
    commits = sorted(commits)
    paints = sorted(paints, key=lambda p: p[1])
    out, missing = [], 0
    times = [t for _, t in paints]
    for k, t in enumerate(commits, start=1):
        i = bisect.bisect_left(times, t)
        shown = next((pt for n, pt in paints[i:] if n >= k), None)
        if shown is None:
            missing += 1
        else:
            out.append((shown - t) * 1000)
    return out, missing


def measure(coders: int = CODERS, replicas: int = REPLICAS, seconds: float = SECONDS) -> dict[str, dict]:
    from conftest import CHROMIUM, sign_in, wait_idle
    from local import find_nginx, running
    from playwright.sync_api import sync_playwright

    from analysis import coding as ac
    from corpus import codebook as cbm
    from corpus.loading.dataset import load_sample
    from corpus.store import Store

    if find_nginx() is None or not Path(CHROMIUM).exists():
        print("  bench_team: nginx or chromium missing; skipped", file=sys.stderr)
        return {}
    size = f"{coders}x{replicas}"
    with running(replicas) as lab:
        store = Store(lab.db_url)
        corpus = load_sample()
        lead = store.create_user("lead", "lead-password", "lead")
        team = [store.create_user(f"coder{i:02d}", f"coder{i:02d}-password", "coder") for i in range(coders)]
        chosen = ac.assign_partitions(ac.sample_items(corpus.actions_df, ITEMS, seed=1), 0, seed=1)
        task = store.create_task(
            lead, "team", corpus.info.name, cbm.default(), chosen, team, seed=1, dataset_hash=corpus.content_hash
        )
        items = store.items(task.id)["item_id"].tolist()
        store.engine.dispose()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            sign_in(page, lab.url, "tasks", "lead", "lead-password", 120_000)
            wait_idle(page, 120_000)
            page.evaluate(_WATCH_PANEL)
            ctx = mp.get_context("forkserver")
            import bench_team  # the coders as the child processes import them (run.py loads this file apart)

            out = ctx.Queue()
            start = time.time() + 5
            stop = start + seconds
            names = [u.username for u in team]
            procs = [
                ctx.Process(
                    target=bench_team._coders,
                    args=(lab.db_url, task.id, names[i : i + PER_PROCESS], items, start, stop, out),
                )
                for i in range(0, len(names), PER_PROCESS)
            ]
            for proc in procs:
                proc.start()
            commits = [t for _ in procs for t in out.get(timeout=seconds + 300)]
            for proc in procs:
                proc.join()
            # The last labels reach the panel within its check interval and a run of the page.
            deadline = time.time() + 30
            while time.time() < deadline:
                painted = page.evaluate("window.__paints")
                if painted and painted[-1][0] >= len(commits):
                    break
                time.sleep(0.5)
            paints = [(int(n), t / 1000) for n, t in page.evaluate("window.__paints")]
            browser.close()
    lat, missing = latencies(commits, paints)
    p95 = statistics.quantiles(lat, n=20)[-1] if len(lat) >= 20 else float("nan")
    return {
        f"team_label_to_panel_ms_p95_{size}": {"value": p95, "unit": "ms", "target": 1000},
        f"team_label_to_panel_ms_median_{size}": {"value": statistics.median(lat), "unit": "ms", "target": None},
        f"team_labels_{size}": {"value": float(len(commits)), "unit": "n", "target": None},
        f"team_labels_never_shown_{size}": {"value": float(missing), "unit": "n", "target": 0},
    }


def run() -> dict[str, dict]:
    return measure()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="the team benchmark at another size")
    parser.add_argument("--coders", type=int, default=CODERS)
    parser.add_argument("--replicas", type=int, default=REPLICAS)
    parser.add_argument("--seconds", type=float, default=SECONDS)
    args = parser.parse_args()
    for name, r in measure(args.coders, args.replicas, args.seconds).items():
        print(f"{name}: {r['value']:.0f} {r['unit']}")
