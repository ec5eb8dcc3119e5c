"""Replay on the server: what opening a session costs, on synthetic sessions.

The player runs in the browser (bench_browser.py times it); the server's part is once per session:
build the frame data, turn it into what the player receives and serialise it as JSON (what the
component sends). Measured on a 300-action session on a 40x40 grid and a 1,000-action session on a
100x100 grid: the median time over a few builds and the size of the JSON. ``synthetic_session``
also builds the sessions of the browser benchmark and of the tests.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from corpus.model import Action, Checkpoint, GridMap, Landmark, MentalModel, Participant, Session  # noqa: E402


def _route(rng: random.Random, rows: int, cols: int) -> list[tuple[int, int]]:
    """A connected path from near the top-left to near the bottom-right, wandering a little."""
    r, c = rng.randrange(1, max(2, rows // 8)), rng.randrange(1, max(2, cols // 8))
    goal = (rows - 1 - rng.randrange(1, max(2, rows // 8)), cols - 1 - rng.randrange(1, max(2, cols // 8)))
    path = [(r, c)]
    while (r, c) != goal:
        if rng.random() < 0.55 and c != goal[1]:
            c += 1 if goal[1] > c else -1
        elif r != goal[0]:
            r += 1 if goal[0] > r else -1
        else:
            c += 1 if goal[1] > c else -1
        path.append((r, c))
    return path


def synthetic_session(
    rows: int, cols: int, n_actions: int, seed: int = 0, session_id: str = "bench"
) -> tuple[Session, GridMap]:
    """A session of ``n_actions`` actions on a ``rows`` x ``cols`` map with landmarks, one of them
    misplaced on the Follower's map, mental models on every action and six checkpoints."""
    rng = random.Random(seed)
    route = _route(rng, rows, cols)
    on_route = set(route)
    landmarks: dict[str, Landmark] = {}
    names = [
        "lake",
        "old mill",
        "church",
        "forest",
        "bridge",
        "tower",
        "farm",
        "cave",
        "well",
        "quarry",
        "ruins",
        "orchard",
    ]
    side = max(2, min(rows, cols) // 10)
    for name in names[: max(4, min(len(names), rows * cols // 150))]:
        for _ in range(50):
            r0, c0 = rng.randrange(0, rows - side), rng.randrange(0, cols - side)
            cells = [(r, c) for r in range(r0, r0 + side) for c in range(c0, c0 + side)]
            taken = {cell for lm in landmarks.values() for cell in lm.cells}
            if not (set(cells) & (on_route | taken)):
                landmarks[name] = Landmark(cells=cells, type="blocked" if rng.random() < 0.6 else "open")
                break
    follower = dict(landmarks)
    moved = next(iter(landmarks))
    cells = landmarks[moved].cells
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    nr, nc = (r0 + side + 2) % (rows - side), (c0 + 2 * side + 2) % (cols - side)
    follower[moved] = Landmark(cells=[(r - r0 + nr, c - c0 + nc) for r, c in cells], type=landmarks[moved].type)
    grid_map = GridMap(
        id=f"map-{rows}x{cols}-{seed}",
        grid_size=(rows, cols),
        start_cell=route[0],
        landmarks=landmarks,
        route=route,
        follower_landmarks=follower,
    )

    actions: list[Action] = []
    t = 0.0
    k = 0  # how far along the route the drawing is
    drawn: list[tuple[int, int]] = []
    per_draw = max(1, round(len(route) / max(1, n_actions * 0.4)))
    for i in range(n_actions):
        t += rng.uniform(1.0, 12.0)
        role = "guide" if rng.random() < 0.5 else "follower"
        aligned = rng.random() < 0.75
        mm = MentalModel(
            team_goal="t3" if aligned else "t4",
            partner_intent="p1" if aligned else "p4",
            self_reasoning="r1" if aligned else "r5",
            aligned=aligned,
            misalignment_reasons=[] if aligned else ["n2"],
            rationale="synthetic",
        )
        u = rng.random()
        if role == "guide" or u < 0.35:
            actions.append(
                Action(
                    index=i, timestamp=round(t, 2), role=role, type="message", content=f"message {i}", mental_model=mm
                )
            )
            continue
        if u < 0.85 or not drawn:
            cells = route[k : k + per_draw] or route[-per_draw:]
            if rng.random() < 0.2:  # a detour off the route
                r, c = cells[-1]
                cells = cells + [(min(r + 1, rows - 1), c), (min(r + 2, rows - 1), c)]
            k = min(len(route), k + per_draw)
            drawn.extend(cells)
            actions.append(
                Action(index=i, timestamp=round(t, 2), role="follower", type="draw", content=cells, mental_model=mm)
            )
        elif u < 0.95:
            cells = drawn[-min(len(drawn), 3) :]
            actions.append(
                Action(index=i, timestamp=round(t, 2), role="follower", type="erase", content=cells, mental_model=mm)
            )
        else:
            actions.append(Action(index=i, timestamp=round(t, 2), role="follower", type="undo", mental_model=mm))
    checkpoints = [
        Checkpoint(
            role=role,
            index=j + 1,
            progress=p,
            action_index=int(p * (n_actions - 1)),
            elapsed_s=round(p * t, 1),
            team_goal="heading down the route",
            partner_intent="understood",
            self_reasoning="following the plan",
        )
        for role in ("guide", "follower")
        for j, p in enumerate((0.25, 0.5, 0.75))
    ]
    session = Session(
        id=session_id,
        condition="visible" if seed % 2 == 0 else "not_visible",
        split="test",
        map_id=grid_map.id,
        duration_s=round(t + 5, 1),
        participants=[Participant(role="guide", id="G"), Participant(role="follower", id="F")],
        checkpoints=checkpoints,
        actions=actions,
    )
    return session, grid_map


def open_session(rows: int, cols: int, n_actions: int, seed: int, samples: int = 5) -> tuple[float, int]:
    """Median ms to build the frames and the player's JSON of one session, and the JSON's size."""
    from analysis.replay import build_frames
    from analysis.replay_payload import player_payload

    session, grid_map = synthetic_session(rows, cols, n_actions, seed=seed)
    times = []
    for _ in range(samples):
        t0 = time.perf_counter()
        text = json.dumps(player_payload(build_frames(session, grid_map)), separators=(",", ":"))
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), len(text.encode("utf-8"))


def run() -> dict[str, dict]:
    out = {}
    sizes = {"300x40": (40, 40, 300, 1, 100), "1000x100": (100, 100, 1000, 2, 250)}
    for name, (rows, cols, n, seed, target_ms) in sizes.items():
        ms, size = open_session(rows, cols, n, seed)
        out[f"replay_open_session_ms_{name}"] = {"value": ms, "unit": "ms", "target": target_ms}
        out[f"replay_payload_kb_{name}"] = {"value": size / 1024, "unit": "KB", "target": 500}
    return out


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.1f} {r['unit']} (target <= {r['target']})")
