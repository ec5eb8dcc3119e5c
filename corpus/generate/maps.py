"""Synthetic maps: landmarks laid out on a grid, a route past them, and the Follower's copy with
one landmark moved."""

from __future__ import annotations

from collections import deque

import numpy as np

from corpus.model import Cell, GridMap, Landmark

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


def _place_landmarks(
    rng: np.random.Generator, rows: int, cols: int
) -> tuple[list[str], set[Cell], dict[str, list[Cell]]]:
    """Makes the landmarks: 8-12 names drawn from the pool, each laid out where it keeps clear of
    the others (a name that finds no room after 200 tries is left out). Returns the names drawn,
    the occupied cells and the cells of each landmark placed."""
    n = int(rng.integers(8, 13))
    names = list(rng.choice(sorted(LANDMARK_POOL), size=n, replace=False))
    occupied: set[Cell] = set()
    landmarks: dict[str, list[Cell]] = {}
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
    return names, occupied, landmarks


def _waypoints(
    rng: np.random.Generator, landmarks: dict[str, list[Cell]], blocked: set[Cell], start: Cell, finish: Cell, rows: int
) -> tuple[list[str], list[Cell]]:
    """Makes the route's waypoints: beside up to 7 landmarks, visited left to right, alternating
    above and below. Returns the landmarks chosen and the waypoints from start to finish."""
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
    return chosen, waypoints


def _route(waypoints: list[Cell], blocked: set[Cell], shape) -> list[Cell] | None:
    """Makes the route: shortest paths from waypoint to waypoint that never cross themselves, or
    None when a waypoint cannot be reached."""
    route = [waypoints[0]]
    used = {waypoints[0]}
    for b in waypoints[1:]:
        if b in used:
            continue  # already on the route: the next leg starts where the route ends
        a = route[-1]
        seg = _bfs_path(a, b, (blocked | used) - {a}, shape)
        if seg is None:
            return None
        route.extend(seg[1:])
        used |= set(seg)
    return route


def _follower_landmarks(
    rng: np.random.Generator,
    landmarks: dict[str, list[Cell]],
    chosen: list[str],
    names: list[str],
    occupied: set[Cell],
    rows: int,
    cols: int,
) -> dict[str, list[Cell]] | None:
    """Makes the Follower's map: the landmarks with one near the route moved, or None when no
    free place for it is found in 200 tries."""
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
            return follower
    return None


def _landmark_models(cells_by_name: dict[str, list[Cell]]) -> dict[str, Landmark]:
    """Makes the map's landmarks from their cells, blocked or open as the pool says."""
    return {lm: Landmark(cells=c, type="blocked" if LANDMARK_POOL[lm] else "open") for lm, c in cells_by_name.items()}


def make_map(rng: np.random.Generator, map_id: str, name: str, shape=GRID) -> GridMap:
    """Makes a map: landmarks, a route past them from the left edge to the right, and the
    Follower's copy with one landmark moved (a layout that fails is drawn again, up to 200 times)."""
    rows, cols = shape
    for _attempt in range(200):
        names, occupied, landmarks = _place_landmarks(rng, rows, cols)
        if len(landmarks) < 8:
            continue
        blocked = {cell for lm, cells in landmarks.items() if LANDMARK_POOL[lm] for cell in cells}
        start = (int(rng.integers(3, rows - 3)), 1)
        finish = (int(rng.integers(3, rows - 3)), cols - 2)
        chosen, waypoints = _waypoints(rng, landmarks, blocked, start, finish, rows)
        route = _route(waypoints, blocked, shape)
        if route is None or len(route) < 60:
            continue
        follower = _follower_landmarks(rng, landmarks, chosen, names, occupied, rows, cols)
        if follower is None:
            continue
        return GridMap(
            id=map_id,
            name=name,
            grid_size=shape,
            start_cell=start,
            finish_cell=route[-1],
            landmarks=_landmark_models(landmarks),
            route=route,
            follower_landmarks=_landmark_models(follower),
        )
    raise RuntimeError("could not lay out a map; try another seed")
