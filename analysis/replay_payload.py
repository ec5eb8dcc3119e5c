"""What the replay player receives: one session as plain JSON, sent to the browser once.

Pure (no streamlit), so the app's player and the self-contained HTML export send the same thing
(the player adds its palette: :func:`components.replay.player.player_data`). The browser gets the
maps once (one digit per cell, the categories of
:data:`analysis.replay.CELL_NAMES`, already layered for each view), the Follower's canvas as the
cells each action turned on and off, and every lookup a step needs, computed here so each rule
lives in one place: the next jump target of each kind from every step, the actor's nearest
checkpoint (the memory anchor), route coverage, the transcript text, and why an action has no cell
change (``no_change``: the reason in words, null for every other action). The browser only applies
cell changes, looks things up and draws.

Everything in it that came from a dataset (messages, rationales, checkpoint answers, ids, landmark
names) is text: the player puts it on the page with ``textContent`` or ``fillText``, never as markup.
"""

from __future__ import annotations

import math

import numpy as np

from analysis.replay import (
    ADDED,
    BLOCKED,
    CELL_NAMES,
    DRAWN,
    DRAWN_ON_ROUTE,
    EMPTY,
    ERASED,
    FINISH,
    JUMP_KINDS,
    LANDMARK,
    ROUTE,
    START,
    VIEW_TITLES,
    SessionFrames,
    cell_codes,
    nearest_checkpoint,
    next_targets,
)
from corpus import schema
from corpus.model import Checkpoint

VIEWS = ("guide", "follower", "both")
# The base map of each way of looking at it: the Guide's map always shows the route, the
# Follower's only when asked (to see where the drawing leaves it).
BASES = {"guide": ("guide", True), "follower": ("follower", False), "follower_route": ("follower", True)}
DEFAULT_POSITION = {"step": 0, "view": "guide", "route": False}


def _digits(codes: np.ndarray) -> str:
    """A category array as one digit per cell, row by row."""
    assert codes.max(initial=0) < 10
    return (codes.astype(np.uint8).ravel() + ord("0")).tobytes().decode("ascii")


def _bbox(lm) -> list[int]:
    b = lm.summary.bbox
    return [b.row_min, b.row_max, b.col_min, b.col_max]


def _view_landmarks(frames: SessionFrames, view: str):
    return frames.grid_map.landmarks if view == "guide" else frames.grid_map.follower_view


def _views(frames: SessionFrames) -> dict:
    out = {}
    for view in ("guide", "follower"):
        here = _view_landmarks(frames, view)
        other = "follower" if view == "guide" else "guide"
        there = _view_landmarks(frames, other)
        out[view] = {
            "title": VIEW_TITLES[view],
            "labels": [[name, *lm.summary.centroid] for name, lm in here.items()],
            # Solid where this map has the landmark, dashed where the other map has it.
            "misplaced": [
                {
                    "name": name,
                    "here": _bbox(here[name]) if name in here else None,
                    "there": _bbox(there[name]) if name in there else None,
                    "other": VIEW_TITLES[other],
                }
                for name in frames.layers.misplaced
            ],
        }
    return out


def _label(label) -> list[str]:
    text = label.other_text if label.code == schema.OTHER and label.other_text else label.text
    return [label.code, text]


def _mental_model(mm) -> dict:
    return {
        "labels": [
            [schema.DIMENSION_TITLES[d], *_label(getattr(mm, d))]
            for d in ("team_goal", "partner_intent", "self_reasoning")
        ],
        "aligned": bool(mm.aligned),
        "reasons": [_label(r) for r in mm.misalignment_reasons],
        "rationale": mm.rationale,
    }


def _mental_models(frames: SessionFrames) -> tuple[list[dict], list[int | None]]:
    """The distinct mental models and, per step, which one (None: no annotation)."""
    table: list[dict] = []
    seen: dict[str, int] = {}
    refs: list[int | None] = []
    for mm in frames.mental_models:
        if mm is None:
            refs.append(None)
            continue
        key = mm.model_dump_json()
        if key not in seen:
            seen[key] = len(table)
            table.append(_mental_model(mm))
        refs.append(seen[key])
    return table, refs


def _checkpoints(frames: SessionFrames) -> list[dict]:
    """Each checkpoint with its position, and ``number``: the number people are shown (1, 2, 3
    among that participant's checkpoints), not the source's ``index`` (the platform counts from 0)."""
    out = []
    numbers = Checkpoint.numbers([cp for _, cp in frames.checkpoints])
    for (pos, cp), number in zip(frames.checkpoints, numbers):
        out.append(
            {
                "pos": pos,
                "role": cp.role,
                "index": cp.index,
                "number": number,
                "progress": cp.progress,
                "time_label": frames.transcript[pos]["time_label"] if frames.n_steps else "0:00",
                "answers": [
                    [schema.DIMENSION_TITLES[d], getattr(cp, d)]
                    for d in ("team_goal", "partner_intent", "self_reasoning")
                ],
            }
        )
    return out


def _number(v) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else round(float(v), 4)


def player_payload(frames: SessionFrames) -> dict:
    """The session as the player needs it (JSON-ready)."""
    layers = frames.layers
    rows, cols = layers.shape
    history = frames.history
    n = frames.n_steps
    tl = frames.timeline
    mm_table, mm_refs = _mental_models(frames)
    roles = [r["role"] for r in frames.transcript]
    return {
        "session": frames.session_id,
        "grid": [rows, cols],
        "cells": {
            "names": [CELL_NAMES[k] for k in range(len(CELL_NAMES))],
            "codes": {
                "empty": EMPTY,
                "landmark": LANDMARK,
                "blocked": BLOCKED,
                "route": ROUTE,
                "start": START,
                "finish": FINISH,
                "drawn": DRAWN,
                "drawn_on_route": DRAWN_ON_ROUTE,
                "added": ADDED,
                "erased": ERASED,
            },
        },
        "bases": {name: _digits(cell_codes(layers, None, view, route)) for name, (view, route) in BASES.items()},
        "views": _views(frames),
        "route": np.flatnonzero(layers.route.ravel()).tolist(),
        "start_cell": layers.start[0] * cols + layers.start[1],
        "finish": None if layers.finish is None else layers.finish[0] * cols + layers.finish[1],
        "duration": frames.duration_s,
        "steps": {
            "n": n,
            "index": [r["index"] for r in frames.transcript],
            "time": [round(float(x), 3) for x in tl["time"]],
            "time_label": [r["time_label"] for r in frames.transcript],
            "role": roles,
            "type": [r["type"] for r in frames.transcript],
            "icon": [r["icon"] for r in frames.transcript],
            "text": [r["text"] for r in frames.transcript],
            "aligned": [r["aligned"] for r in frames.transcript],
            "coverage": [_number(v) for v in tl["coverage"]],
            "n_drawn": [int(v) for v in tl["n_drawn"]],
            "no_change": [r["no_cell_change"] for r in frames.transcript],
            "added": [a.tolist() for a in history.added],
            "removed": [r.tolist() for r in history.removed],
            "mm": mm_refs,
            "anchor": [nearest_checkpoint(frames, t, roles[t]) for t in range(n)],
        },
        "coverage_undefined": None if layers.route.any() else "the map has no route",
        "next": {kind: next_targets(frames, kind).tolist() for kind in JUMP_KINDS},
        "jump_names": dict(JUMP_KINDS),
        "mental_models": mm_table,
        "checkpoints": _checkpoints(frames),
    }


def clean_position(raw, n_steps: int) -> dict | None:
    """A position sent by the browser or read from a link ({step, view, route}), checked and
    clamped, or None if it is not one."""
    if not isinstance(raw, dict):
        return None
    raw_step = raw.get("step")
    if raw_step is None:  # int(None) would raise TypeError: not a position
        return None
    try:
        step = int(raw_step)
    except (TypeError, ValueError):
        return None
    view = raw.get("view")
    return {
        "step": max(0, min(step, max(n_steps - 1, 0))),
        "view": view if view in VIEWS else DEFAULT_POSITION["view"],
        "route": raw.get("route") in (True, 1, "1", "true"),
    }
