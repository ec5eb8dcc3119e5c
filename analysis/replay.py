"""Per-session replay data: cell states at every step, jump targets, timeline and transcript.

Pure computation (no streamlit). :func:`build_frames` turns one session and its map into a
:class:`SessionFrames`, computed once per session (the page caches it); everything a step of the
replay needs is then a cheap lookup:

- ``frames.state(t)`` -> :class:`StepState`: the Follower's drawing after action ``t`` and the
  cells action ``t`` turned on and off (from :mod:`corpus.canvas`);
- :func:`cell_codes` -> one small integer array per view whose values are the categories in
  :data:`CELL_NAMES` (empty, landmark, blocked landmark, route, start, finish, drawn, drawn on the
  route, drawn this step, erased this step): the player's base map and the image exports;
- ``frames.targets``: the positions to jump to (messages, drawing actions, checkpoints, moments
  the actor reported not being aligned); :func:`next_targets` gives the next one from every step;
- :func:`nearest_checkpoint`: the actor's in-session checkpoint response closest to a step (the
  memory anchor of the paper's annotation interface);
- ``frames.timeline``: one row per action (time, role, type, alignment, route coverage, why it has
  no cell change);
- ``frames.transcript``: one row per action as the chat shows it.

An action with no cell change (a stroke whose ink image is missing or that changed no grid cell,
or the undo of one: ``no_cell_change``) is flagged in both, with its reason in words
(:data:`corpus.model.NO_CELL_CHANGE`); it changes nothing on the canvas.

A step ``t`` is a position in the session's action list (0 = after the first action).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from corpus import schema
from corpus.canvas import CanvasHistory, session_history
from corpus.metrics import route_mask
from corpus.model import NO_CELL_CHANGE, Checkpoint, GridMap, Participant, Session
from corpus.values import Undefined

# -- cell categories ----------------------------------------------------------------------------

EMPTY, LANDMARK, BLOCKED, ROUTE, START, FINISH, DRAWN, DRAWN_ON_ROUTE, ADDED, ERASED = range(10)
CELL_NAMES = {
    EMPTY: "empty",
    LANDMARK: "landmark",
    BLOCKED: "landmark (blocked)",
    ROUTE: "target route",
    START: "start",
    FINISH: "finish",
    DRAWN: "drawn",
    DRAWN_ON_ROUTE: "drawn on the route",
    ADDED: "drawn this step",
    ERASED: "erased this step",
}
N_CODES = len(CELL_NAMES)

VIEWS = ("guide", "follower")
VIEW_TITLES = {"guide": "Guide's map", "follower": "Follower's map"}

JUMP_KINDS = {
    "message": "message",
    "drawing": "drawing action",
    "checkpoint": "checkpoint",
    "not_aligned": "not-aligned moment",
}

TYPE_ICONS = {"message": "", "draw": "✏", "erase": "⌫", "undo": "↶", "reset": "⟲"}


class ReplayError(ValueError):
    """A session that cannot be replayed, with the reason in words."""

    def __init__(self, session_id: str, problem: str):
        super().__init__(f"Session '{session_id}' cannot be replayed: {problem}")
        self.session_id = session_id
        self.problem = problem


# -- the map ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MapLayers:
    """What does not change during a session: each view's landmark cells, the route, start, finish."""

    shape: tuple[int, int]
    base: dict[str, np.ndarray]  # view -> int8 H x W of EMPTY / LANDMARK / BLOCKED
    route: np.ndarray  # bool H x W
    start: tuple[int, int]
    finish: tuple[int, int] | None  # None on a map without a route (e.g. an imported placeholder)
    misplaced: tuple[str, ...]


def landmark_layer(landmarks, shape: tuple[int, int]) -> np.ndarray:
    base = np.full(shape, EMPTY, dtype=np.int8)
    for lm in landmarks.values():
        cells = np.asarray(lm.cells, dtype=np.int64).reshape(-1, 2)
        base[cells[:, 0], cells[:, 1]] = BLOCKED if lm.blocked else LANDMARK
    return base


def map_layers(grid_map: GridMap) -> MapLayers:
    shape = (int(grid_map.grid_size[0]), int(grid_map.grid_size[1]))
    finish = (
        grid_map.finish_cell if grid_map.finish_cell is not None else (grid_map.route[-1] if grid_map.route else None)
    )
    return MapLayers(
        shape=shape,
        base={
            "guide": landmark_layer(grid_map.landmarks, shape),
            "follower": landmark_layer(grid_map.follower_view, shape),
        },
        route=route_mask(grid_map.route, shape),
        start=(int(grid_map.start_cell[0]), int(grid_map.start_cell[1])),
        finish=(int(finish[0]), int(finish[1])) if finish is not None else None,
        misplaced=tuple(grid_map.misplaced_landmarks()),
    )


# -- one step -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class StepState:
    """The Follower's canvas after action ``step`` and what that action changed (bool H x W)."""

    step: int
    drawn: np.ndarray
    added: np.ndarray
    removed: np.ndarray

    @classmethod
    def empty(cls, shape: tuple[int, int]) -> StepState:
        z = np.zeros(shape, dtype=bool)
        return cls(step=-1, drawn=z, added=z, removed=z)

    @classmethod
    def from_history(cls, history: CanvasHistory, t: int) -> StepState:
        if t < 0 or len(history) == 0:
            return cls.empty(history.shape)
        t = min(t, len(history) - 1)
        rows, cols = history.shape
        added = np.zeros(rows * cols, dtype=bool)
        removed = np.zeros(rows * cols, dtype=bool)
        added[history.added[t]] = True
        removed[history.removed[t]] = True
        return cls(
            step=t, drawn=history.mask(t), added=added.reshape(history.shape), removed=removed.reshape(history.shape)
        )

    @property
    def n_drawn(self) -> int:
        return int(self.drawn.sum())


def cell_codes(
    layers: MapLayers, state: StepState | None, view: str = "guide", show_route: bool | None = None
) -> np.ndarray:
    """The category of every cell (int8 H x W, values in :data:`CELL_NAMES`) for one view.

    Order of precedence, lowest first: landmarks, route (when shown), start and finish, the
    drawing (split into on / off the route when the route is shown), erased this step, drawn
    this step. The guide's view shows the route unless ``show_route`` is False; the follower's
    only when ``show_route`` is True (to see how the drawing deviates from it).
    """
    if view not in VIEWS:
        raise ValueError(f"view must be one of {', '.join(VIEWS)}, not '{view}'")
    if show_route is None:
        show_route = view == "guide"
    codes = layers.base[view].copy()
    if show_route:
        codes[layers.route] = ROUTE
        if layers.finish is not None:
            codes[layers.finish] = FINISH
    codes[layers.start] = START
    if state is not None:
        if state.drawn.shape != layers.shape:
            raise ValueError(
                f"the drawing is {state.drawn.shape[0]}x{state.drawn.shape[1]} but the map is {layers.shape[0]}x{layers.shape[1]}"
            )
        if show_route:
            codes[state.drawn & layers.route] = DRAWN_ON_ROUTE
            codes[state.drawn & ~layers.route] = DRAWN
        else:
            codes[state.drawn] = DRAWN
        codes[state.removed] = ERASED
        codes[state.added] = ADDED
    return codes


# -- the session --------------------------------------------------------------------------------


@dataclass
class SessionFrames:
    session_id: str
    condition: str
    split: str
    duration_s: float
    reported_accuracy: float | None
    grid_map: GridMap
    layers: MapLayers
    history: CanvasHistory
    timeline: pd.DataFrame  # one row per action, see build_frames
    transcript: list[dict]
    checkpoints: list[tuple[int, Checkpoint]]  # (position, checkpoint), in position order
    targets: dict[str, np.ndarray]  # jump kind -> sorted positions
    mental_models: list  # MentalModel | None per position
    participants: list[Participant] = field(default_factory=list)

    @property
    def n_steps(self) -> int:
        return len(self.timeline)

    @property
    def timestamps(self) -> np.ndarray:
        return self.timeline["time"].to_numpy()

    def clamp(self, t: int) -> int:
        return max(0, min(int(t), self.n_steps - 1)) if self.n_steps else 0

    def state(self, t: int) -> StepState:
        return StepState.from_history(self.history, t) if self.n_steps else StepState.empty(self.layers.shape)

    def codes(self, t: int, view: str = "guide", show_route: bool | None = None) -> np.ndarray:
        return cell_codes(self.layers, self.state(t), view, show_route)

    def _metric(self, column: str, t: int) -> float | Undefined:
        if not self.n_steps:
            return Undefined("the session has no actions")
        v = self.timeline[column].iat[self.clamp(t)]
        if pd.isna(v):
            return Undefined("the map has no route" if not self.layers.route.any() else "nothing is drawn yet")
        return float(v)

    def coverage(self, t: int) -> float | Undefined:
        """Share of the route's cells drawn after action t."""
        return self._metric("coverage", t)

    def accuracy(self, t: int) -> float | Undefined:
        """Share of the cells drawn after action t that lie on the route."""
        return self._metric("accuracy", t)

    def final_scores(self) -> dict:
        last = self.n_steps - 1
        return {
            "accuracy": self.accuracy(last),
            "coverage": self.coverage(last),
            "n_drawn": int(self.history.counts[-1]) if self.n_steps else 0,
        }

    def row(self, t: int) -> dict:
        return self.transcript[self.clamp(t)]


def check_replayable(session: Session, grid_map: GridMap | None) -> None:
    """Raise :class:`ReplayError` for a missing map or cells outside the grid."""
    if grid_map is None:
        raise ReplayError(session.id, f"its map '{session.map_id}' is missing")
    rows, cols = grid_map.grid_size
    for a in session.actions:
        for k, cell in enumerate(a.cells):
            r, c = int(cell[0]), int(cell[1])
            if not (0 <= r < rows and 0 <= c < cols):
                raise ReplayError(
                    session.id,
                    f"action {a.index} ({a.role} {a.type}, content[{k}]) references cell [{r}, {c}], "
                    f"outside the {rows}x{cols} grid of map '{grid_map.id}'",
                )


def time_label(seconds: float) -> str:
    """Seconds as m:ss (minutes are not wrapped into hours: 3725 s is 62:05)."""
    s = int(round(seconds))
    return f"{s // 60}:{s % 60:02d}"


# What an action with no cell change did, by its type.
NO_CELL_CHANGE_TEXT = {
    "draw": "brush stroke with no cell change",
    "erase": "eraser stroke with no cell change",
    "undo": "undid a stroke with no cell change",
}


def action_text(a) -> str:
    """An action as the transcript shows it: a message's text, else what the action did (with the
    reason of an action with no cell change)."""
    if a.type == "message":
        return a.text
    if a.no_cell_change is not None:
        return f"{NO_CELL_CHANGE_TEXT[a.type]} ({NO_CELL_CHANGE[a.no_cell_change]})"
    n = len(a.cells)
    if a.type == "draw":
        return f"drew {n} cell{'s' if n != 1 else ''}"
    if a.type == "erase":
        return f"erased {n} cell{'s' if n != 1 else ''}"
    if a.type == "undo":
        return "undid the last edit"
    return "cleared the canvas"


def _checkpoint_positions(session: Session) -> list[tuple[int, Checkpoint]]:
    indices = np.asarray([a.index for a in session.actions], dtype=np.int64)
    n = len(indices)
    out = []
    for cp in session.checkpoints:
        pos = int(np.searchsorted(indices, cp.action_index, side="left")) if n else 0
        out.append((min(pos, max(n - 1, 0)), cp))
    out.sort(key=lambda pc: (pc[0], pc[1].role, pc[1].index))
    return out


def build_frames(session: Session, grid_map: GridMap | None) -> SessionFrames:
    """Everything the replay of one session needs, computed once."""
    check_replayable(session, grid_map)
    assert grid_map is not None
    actions = sorted(session.actions, key=lambda a: a.index)
    if [a.index for a in actions] != [a.index for a in session.actions]:
        session = session.model_copy(update={"actions": actions})
    layers = map_layers(grid_map)
    history = session_history(session, grid_map.grid_size)
    n = len(actions)

    # Route coverage and accuracy after every action, from the per-step differences.
    route_flat = layers.route.ravel()
    has_route = bool(route_flat.any())  # a placeholder map has none: metrics undefined, not zero
    n_route = max(int(route_flat.sum()), 1)
    on_route_delta = np.fromiter(
        (int(route_flat[a].sum()) - int(route_flat[r].sum()) for a, r in zip(history.added, history.removed)),
        dtype=np.int64,
        count=n,
    )
    on_route = np.cumsum(on_route_delta)
    counts = history.counts.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = np.where(counts > 0, on_route / np.where(counts > 0, counts, 1), np.nan)
    if not has_route:
        accuracy = np.full(n, np.nan)

    mms = [a.mental_model for a in actions]
    aligned = [None if m is None else bool(m.aligned) for m in mms]
    timeline = pd.DataFrame(
        {
            "pos": np.arange(n, dtype=np.int64),
            "index": [a.index for a in actions],
            "time": np.asarray([a.timestamp for a in actions], dtype=float),
            "role": [a.role for a in actions],
            "type": [a.type for a in actions],
            "n_cells": [len(a.cells) for a in actions],
            "aligned": pd.array(aligned, dtype="boolean"),
            "alignment": ["no label" if v is None else ("aligned" if v else "not aligned") for v in aligned],
            "coverage": on_route / n_route if has_route else np.full(n, np.nan),
            "accuracy": accuracy,
            "n_drawn": history.counts.astype(np.int64),
            "no_cell_change": [a.no_cell_change for a in actions],
        }
    )

    transcript = []
    for pos, a in enumerate(actions):
        transcript.append(
            {
                "pos": pos,
                "index": a.index,
                "time": a.timestamp,
                "time_label": time_label(a.timestamp),
                "role": a.role,
                "type": a.type,
                "icon": TYPE_ICONS.get(a.type, ""),
                "text": action_text(a),
                "n_cells": len(a.cells),
                "aligned": aligned[pos],
                "no_cell_change": None if a.no_cell_change is None else NO_CELL_CHANGE[a.no_cell_change],
            }
        )

    checkpoints = _checkpoint_positions(session.model_copy(update={"actions": actions}))
    types = timeline["type"].to_numpy()
    targets = {
        "message": np.flatnonzero(types == "message"),
        "drawing": np.flatnonzero(np.isin(types, schema.DRAWING_TYPES)),
        "checkpoint": np.unique(np.asarray([p for p, _ in checkpoints], dtype=np.int64)),
        "not_aligned": np.flatnonzero(np.asarray([v is False for v in aligned], dtype=bool)),
    }
    return SessionFrames(
        session_id=session.id,
        condition=session.condition,
        split=session.split,
        duration_s=float(session.duration_s),
        reported_accuracy=session.final_accuracy,
        grid_map=grid_map,
        layers=layers,
        history=history,
        timeline=timeline,
        transcript=transcript,
        checkpoints=checkpoints,
        targets=targets,
        mental_models=mms,
        participants=list(session.participants),
    )


def frames_for(corpus, session_id: str) -> SessionFrames:
    """:func:`build_frames` for a session of a :class:`corpus.loading.dataset.Corpus`."""
    session = corpus.session(session_id)
    return build_frames(session, corpus.maps.get(session.map_id))


# -- navigation ---------------------------------------------------------------------------------


def next_targets(frames: SessionFrames, kind: str) -> np.ndarray:
    """For every step t, the first position of ``kind`` after t (-1 where there is none)."""
    pos = frames.targets[kind]
    if not len(pos):
        return np.full(frames.n_steps, -1, dtype=np.int64)
    i = np.searchsorted(pos, np.arange(frames.n_steps), side="right")
    return np.where(i < len(pos), pos[np.minimum(i, len(pos) - 1)], -1).astype(np.int64)


def nearest_checkpoint(frames: SessionFrames, t: int, role: str | None = None) -> int | None:
    """The index in ``frames.checkpoints`` of the response closest to step ``t`` (by action
    position), of ``role`` if that role gave one; None without checkpoints.

    Ties go to the earlier checkpoint (what the participant had already answered).
    """
    candidates = list(enumerate(frames.checkpoints))
    if role is not None and any(cp.role == role for _, (_, cp) in candidates):
        candidates = [(k, pc) for k, pc in candidates if pc[1].role == role]
    if not candidates:
        return None
    return min(candidates, key=lambda kpc: (abs(kpc[1][0] - t), kpc[1][0]))[0]
