"""The benchmark's inputs: one JSON object per instance, for a model runner to read.

An instance is what the ALMANAC paper's prompts (Appendix H) are filled with: the actor and their
persona, the actor's own map (the Guide's with the route; the Follower's without it, with its
misplaced landmark), the interaction history up to the action, the Follower's drawing at that
moment (seen by the Follower, and by the Guide only where the canvas was visible), and

- for mental-model prediction, the current action (whose mental model is asked for);
- in the ``mental_model`` setting, the actor's own earlier mental models (the +mental-model
  setting of next-action prediction; the mental-model history of mental-model prediction).

``answer`` names the fields a prediction line must carry back, with the instance's own ids
(``session_id``, ``action_index``, ``role``): the predictions file format of docs/data-format.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from analysis.compare.items import instance_keys, truth_frame
from corpus import schema
from corpus.dataset import Corpus, item_id
from corpus.write import action_json, map_json

SETTINGS = ("base", "mental_model")


def _actor_map(corpus: Corpus, session_id: str, role: str) -> dict[str, Any]:
    m = map_json(corpus.map_of(session_id))
    if role == "follower":
        m["landmarks"] = m.pop("follower_landmarks", m["landmarks"])
        m.pop("route", None)
        m.pop("finish_cell", None)
    else:
        m.pop("follower_landmarks", None)
    return m


def _mental_model(a) -> dict[str, Any]:
    mm = a.mental_model.model_dump(mode="json", exclude_none=True)
    if not mm.get("misalignment_reasons"):
        mm.pop("misalignment_reasons", None)
    return {"action_index": a.index, **mm}


def _answer(task: str, session_id: str, index: int, role: str) -> dict[str, Any]:
    ids = {"session_id": session_id, "action_index": index, "role": role}
    if task == "next_action":
        return {
            **ids,
            "action_type": "|".join(schema.ACTION_TYPES) if role == "follower" else "message",
            "content": "message text, [[row, col], ...] for draw/erase, or null",
            "rationale": "text",
        }
    return {
        **ids,
        **{d: "|".join([*codes, schema.OTHER]) for d, codes in schema.DIMENSIONS.items()},
        "rationale": "text",
    }


def iter_instances(corpus: Corpus, task: str, split: str = "test", setting: str = "base") -> Iterator[dict[str, Any]]:
    """The instances of ``task`` in the sessions of ``split``, in session and action order."""
    if task not in schema.PREDICTION_TASKS:
        raise ValueError(f"task must be one of {', '.join(schema.PREDICTION_TASKS)}, not {task!r}")
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {', '.join(SETTINGS)}, not {setting!r}")
    keys = instance_keys(truth_frame(corpus), task, [split])
    for session_id, rows in keys.groupby("session_id", sort=False):
        s = corpus.session(session_id)
        history = corpus.history(session_id)
        maps = {role: _actor_map(corpus, session_id, role) for role in schema.ROLES}
        actions = [action_json(a) for a in s.actions]
        for a in actions:
            a.pop("mental_model", None)
        for index in rows["action_index"].tolist():
            act = s.actions[index]
            role = act.role
            seen_at = index if task == "mental_model" else index - 1
            sees_canvas = role == "follower" or s.condition == "visible"
            inst = {
                "id": item_id(session_id, index),
                "task": task,
                "setting": setting,
                "session_id": session_id,
                "action_index": index,
                "role": role,
                "condition": s.condition,
                "split": s.split,
                "participant": s.participant(role).model_dump(mode="json", exclude_none=True),
                "map": maps[role],
                "history": actions[:index],
                "canvas": history.cells(seen_at).tolist() if sees_canvas else None,
            }
            if task == "mental_model":
                inst["current_action"] = actions[index]
            if setting == "mental_model":
                inst["mental_model_history"] = [
                    _mental_model(b) for b in s.actions[:index] if b.role == role and b.mental_model is not None
                ]
            inst["answer"] = _answer(task, session_id, index, role)
            yield inst


def write_instances(corpus: Corpus, out: str | Path, task: str, split: str = "test", setting: str = "base") -> int:
    """Write the instances as JSONL; returns how many."""
    n = 0
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        for inst in iter_instances(corpus, task, split, setting):
            f.write(json.dumps(inst, ensure_ascii=False, separators=(",", ":")) + "\n")
            n += 1
    return n
