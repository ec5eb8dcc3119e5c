"""Replay stepping speed: server time of one step on synthetic sessions.

One step is what a rerun of the Replay page does for a new step: take the session's cached frame
data, build the cell state of step t, build the canvas figure and serialise it (``fig.to_json()``,
what ``st.plotly_chart`` sends), and do the same for the timeline strip and the transcript. Measured on a 300-action session on a 40x40 grid and a
1,000-action session on a 100x100 grid; the figure is the median over steps spread through the
session. The per-session data (built once and cached by the page) is not part of the step.
"""

from __future__ import annotations

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


def synthetic_session(rows: int, cols: int, n_actions: int, seed: int = 0, session_id: str = "bench") -> tuple[Session, GridMap]:
    """A session of ``n_actions`` actions on a ``rows`` x ``cols`` map with landmarks, one of them
    misplaced on the Follower's map, mental models on every action and six checkpoints."""
    rng = random.Random(seed)
    route = _route(rng, rows, cols)
    on_route = set(route)
    landmarks: dict[str, Landmark] = {}
    names = ["lake", "old mill", "church", "forest", "bridge", "tower", "farm", "cave", "well", "quarry", "ruins", "orchard"]
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
    grid_map = GridMap(id=f"map-{rows}x{cols}-{seed}", grid_size=(rows, cols), start_cell=route[0], landmarks=landmarks, route=route, follower_landmarks=follower)

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
            team_goal="t3" if aligned else "t4", partner_intent="p1" if aligned else "p4",
            self_reasoning="r1" if aligned else "r5", aligned=aligned,
            misalignment_reasons=[] if aligned else ["n2"], rationale="synthetic",
        )
        u = rng.random()
        if role == "guide" or u < 0.35:
            actions.append(Action(index=i, timestamp=round(t, 2), role=role, type="message", content=f"message {i}", mental_model=mm))
            continue
        if u < 0.85 or not drawn:
            cells = route[k:k + per_draw] or route[-per_draw:]
            if rng.random() < 0.2:  # a detour off the route
                r, c = cells[-1]
                cells = cells + [(min(r + 1, rows - 1), c), (min(r + 2, rows - 1), c)]
            k = min(len(route), k + per_draw)
            drawn.extend(cells)
            actions.append(Action(index=i, timestamp=round(t, 2), role="follower", type="draw", content=cells, mental_model=mm))
        elif u < 0.95:
            cells = drawn[-min(len(drawn), 3):]
            actions.append(Action(index=i, timestamp=round(t, 2), role="follower", type="erase", content=cells, mental_model=mm))
        else:
            actions.append(Action(index=i, timestamp=round(t, 2), role="follower", type="undo", mental_model=mm))
    checkpoints = [
        Checkpoint(role=role, index=j + 1, progress=p, action_index=int(p * (n_actions - 1)), elapsed_s=round(p * t, 1),
                   team_goal="heading down the route", partner_intent="understood", self_reasoning="following the plan")
        for role in ("guide", "follower") for j, p in enumerate((0.25, 0.5, 0.75))
    ]
    session = Session(
        id=session_id, condition="visible" if seed % 2 == 0 else "not_visible", split="test", map_id=grid_map.id,
        duration_s=round(t + 5, 1), participants=[Participant(role="guide", id="G"), Participant(role="follower", id="F")],
        checkpoints=checkpoints, actions=actions,
    )
    return session, grid_map


def step_ms(frames, t: int, view: str = "guide") -> float:
    """Server time of one step: the cell state of step t, the canvas figure and its JSON, plus
    the timeline strip (JSON) and the transcript with the new row highlighted."""
    from components.grid_canvas import figure
    from components.replay import timeline_figure, transcript_html

    t0 = time.perf_counter()
    figure(frames.grid_map, frames.state(t), view=view, layers=frames.layers).to_json()
    timeline_figure(frames, t).to_json()
    transcript_html(frames, t)
    return (time.perf_counter() - t0) * 1000


def median_step_ms(rows: int, cols: int, n_actions: int, seed: int, samples: int = 60) -> float:
    from analysis.replay import build_frames

    session, grid_map = synthetic_session(rows, cols, n_actions, seed=seed)
    frames = build_frames(session, grid_map)  # cached once per session by the page
    for i in range(6):  # warm up imports and plotly's validators (created on first use of each property)
        step_ms(frames, i * (n_actions - 1) // 5, view=("guide", "follower")[i % 2])
    steps = [round(i * (n_actions - 1) / (samples - 1)) for i in range(samples)]
    times = [step_ms(frames, t, view="guide" if i % 2 == 0 else "follower") for i, t in enumerate(steps)]
    return statistics.median(times)


def run() -> dict[str, dict]:
    return {
        "replay_step_ms_300x40": {"value": median_step_ms(40, 40, 300, seed=1), "unit": "ms", "target": 100},
        "replay_step_ms_1000x100": {"value": median_step_ms(100, 100, 1000, seed=2), "unit": "ms", "target": 250},
    }


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.1f} {r['unit']} (target <= {r['target']})")
