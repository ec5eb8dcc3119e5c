"""Synthetic maps: landmarks laid out on a grid, a route past them, and the Follower's copy with
one landmark moved."""

from __future__ import annotations

from collections import deque

import numpy as np

from corpus.model import GridMap, Landmark

GRID = (40, 60)

# name -> blocked? (open landmarks can be walked over, like a meadow)
LANDMARK_POOL = {
    "lake": True,
    "pine forest": True,
    "old mill": True,
    "stone bridge": False,
    "windmill": True,
    "church": True,
    "farmhouse": True,
    "waterfall": True,
    "cave": True,
    "lighthouse": True,
    "orchard": False,
    "ruins": True,
    "camp site": False,
    "rock pile": True,
    "well": True,
    "barn": True,
    "watchtower": True,
    "swamp": False,
    "meadow": False,
    "graveyard": True,
    "quarry": True,
    "bakery": True,
}


def _rect(r0: int, c0: int, h: int, w: int) -> list[tuple[int, int]]:
    return [(r, c) for r in range(r0, r0 + h) for c in range(c0, c0 + w)]


def _blob(rng: np.random.Generator, r0: int, c0: int, h: int, w: int) -> list[tuple[int, int]]:
    """An irregular landmark: an ellipse-ish blob inside the h x w box, corners trimmed at random."""
    cells = []
    cr, cc = (h - 1) / 2, (w - 1) / 2
    for r in range(h):
        for c in range(w):
            d = ((r - cr) / max(cr, 0.5)) ** 2 + ((c - cc) / max(cc, 0.5)) ** 2
            if d <= 1.15 + rng.uniform(-0.25, 0.25):
                cells.append((r0 + r, c0 + c))
    return cells or _rect(r0, c0, h, w)


def _bfs_path(start, goal, blocked: set, shape) -> list[tuple[int, int]] | None:
    rows, cols = shape
    prev = {start: None}
    q = deque([start])
    # Prefer orthogonal steps first, so routes look drawn rather than staircase-like.
    steps = ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))
    while q:
        cur = q.popleft()
        if cur == goal:
            break
        for dr, dc in steps:
            nxt = (cur[0] + dr, cur[1] + dc)
            if 0 <= nxt[0] < rows and 0 <= nxt[1] < cols and nxt not in prev and nxt not in blocked:
                prev[nxt] = cur
                q.append(nxt)
    if goal not in prev:
        return None
    path = []
    cur = goal
    while cur is not None:
        path.append(cur)
        cur = prev[cur]
    return path[::-1]


def make_map(rng: np.random.Generator, map_id: str, name: str, shape=GRID) -> GridMap:
    rows, cols = shape
    for _attempt in range(200):
        n = int(rng.integers(8, 13))
        names = list(rng.choice(sorted(LANDMARK_POOL), size=n, replace=False))
        occupied: set = set()
        landmarks: dict[str, list] = {}
        for lm in names:
            for _ in range(200):
                h, w = int(rng.integers(3, 7)), int(rng.integers(4, 9))
                r0, c0 = int(rng.integers(2, rows - h - 2)), int(rng.integers(4, cols - w - 4))
                cells = _blob(rng, r0, c0, h, w)
                halo = {(r + dr, c + dc) for r, c in cells for dr in range(-2, 3) for dc in range(-2, 3)}
                if not halo & occupied:
                    landmarks[lm] = cells
                    occupied |= set(cells)
                    break
        if len(landmarks) < 8:
            continue
        blocked = {cell for lm, cells in landmarks.items() if LANDMARK_POOL[lm] for cell in cells}
        start = (int(rng.integers(3, rows - 3)), 1)
        finish = (int(rng.integers(3, rows - 3)), cols - 2)
        # Waypoints beside landmarks, visited left to right, alternating above and below.
        order = sorted(landmarks, key=lambda lm: np.mean([c for _, c in landmarks[lm]]))
        chosen = [lm for lm in order if rng.random() < 0.75][:7]
        waypoints = [start]
        for i, lm in enumerate(chosen):
            cells = landmarks[lm]
            rs = [r for r, _ in cells]
            cs = [c for _, c in cells]
            mid_c = int(round(np.mean(cs)))
            above = (i % 2 == 0) if rng.random() < 0.8 else (i % 2 == 1)
            r = min(rs) - 1 if above else max(rs) + 1
            if 0 <= r < rows and (r, mid_c) not in blocked:
                waypoints.append((r, mid_c))
        waypoints.append(finish)
        route: list = [start]
        used = {start}
        ok = True
        for a, b in zip(waypoints, waypoints[1:]):
            if b in used:
                continue
            seg = _bfs_path(a, b, (blocked | used) - {a}, shape)
            if seg is None:
                ok = False
                break
            route.extend(seg[1:])
            used |= set(seg)
        if not ok or len(route) < 60:
            continue
        # The Follower's map: one landmark near the route, moved.
        near = [lm for lm in chosen if lm in landmarks]
        moved = str(rng.choice(near)) if near else names[0]
        follower = dict(landmarks)
        others = occupied - set(landmarks[moved])
        for _ in range(200):
            dr, dc = int(rng.integers(-8, 9)), int(rng.integers(-10, 11))
            if abs(dr) + abs(dc) < 5:
                continue
            cells = [(r + dr, c + dc) for r, c in landmarks[moved]]
            if all(0 <= r < rows and 0 <= c < cols for r, c in cells) and not set(cells) & others:
                follower[moved] = cells
                break
        else:
            continue
        return GridMap(
            id=map_id,
            name=name,
            grid_size=shape,
            start_cell=start,
            finish_cell=route[-1],
            landmarks={
                lm: Landmark(cells=c, type="blocked" if LANDMARK_POOL[lm] else "open") for lm, c in landmarks.items()
            },
            route=route,
            follower_landmarks={
                lm: Landmark(cells=c, type="blocked" if LANDMARK_POOL[lm] else "open") for lm, c in follower.items()
            },
        )
    raise RuntimeError("could not lay out a map; try another seed")
