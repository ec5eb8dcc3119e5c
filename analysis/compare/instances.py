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

A SynchToM benchmark (:mod:`corpus.importers.tom.synchtom_items`) has instances of its own
(:func:`iter_synchtom_instances`): each item with its trajectory as the model is shown it and the
prompt SynchToM's ``inference.py`` builds for it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from analysis.compare.items import instance_keys, truth_frame
from corpus import schema
from corpus.benchmark.dataset import Benchmark
from corpus.loading.dataset import Corpus, item_id
from corpus.loading.write import action_json, map_json

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


# -- SynchToM ---------------------------------------------------------------------------------------

SYNCHTOM_ANSWER = ("latent_belief_explanation", "user_profile_modeling", "correct_resolution")


def synchtom_trajectory(trajectory_file: dict[str, Any], steps: int) -> list[dict[str, Any]]:
    """The turns of a trajectory file as SynchToM's ``inference.py`` (commit ca35c11,
    ``load_trajectory``) gives them to the model: each turn's ``turn``, ``action`` and
    ``observation`` (``""`` where the turn has none; nothing else: no ``red_herring``, no hidden
    context), then the first ``steps`` turns when ``steps`` is positive, none when it is 0, all when
    it is negative (``--steps``)."""
    turns = trajectory_file.get("trajectory", trajectory_file)
    kept = [{"turn": t["turn"], "action": t["action"], "observation": t.get("observation", "")} for t in turns]
    if steps > 0:
        kept = kept[:steps]
    if steps == 0:
        kept = []
    return kept


def synchtom_prompt(observation: str, explicit_instruction: str, trajectory: list[dict[str, Any]]) -> str:
    """The prompt of SynchToM's ``inference.py`` (THUNLP-MT/SynchToM, commit ca35c11,
    ``infer_three_dimensions``: ``inference_prompt``), character for character; it is sent as the one
    user message, at temperature 0. (The script's own lines end in CR LF; Python reads the string with
    LF line ends, as here.)"""
    return (
        "# Task: \n"  # (the script's first line ends in this space)
        + f"""You need to infer three key aspects about a user based on their observation, explicit instruction, and behavioral trajectory.

## Given Information

### User's Observation:
{observation}

### User's Explicit Instruction:
{explicit_instruction}

### User's Behavioral Trajectory:
{json.dumps(trajectory, indent=2, ensure_ascii=False)}

---

## Your Task

Based on the above information, infer and provide:

### 1. Latent Belief Explanation
What does the user believe is the root cause of the problem? Explain their mental model and why they have this belief.

### 2. User Profile Modeling
What underlying preference, bias, experience level, or worldview does this user have that led them to form this belief? Why did they develop this conception?

### 3. Correct Resolution
What is the actual root cause of the problem, and what is the correct solution? Explain what the user should do to truly fix the issue.

## Requirements
- Be specific and concrete in your answers
- The latent belief should explain the user's observable actions
- The user profile should explain WHY they have this latent belief
- The correct resolution should address the true root cause

## Output Format

Return a JSON object with exactly these fields:
{{
  "latent_belief_explanation": "The user's belief about the problem and why they think their approach works",
  "user_profile_modeling": "The user's background, preferences, and biases that led to this belief",
  "correct_resolution": "The root cause and the correct solution to fix it"
}}
"""
    )


def iter_synchtom_instances(bench: Benchmark, steps: int) -> Iterator[dict[str, Any]]:
    """The instances of a SynchToM benchmark with the first ``steps`` turns of each trajectory
    (``inference.py``'s ``--steps``), in item order. Each has

    - ``id``, ``benchmark`` (Preference, Culture, SWE, Education), ``file`` (the benchmark file),
      ``setting`` (``step<N>``, as inference.py names its output), ``observation``,
      ``explicit_instruction`` and ``trajectory``: what the model is given;
    - ``prompt``: the prompt inference.py sends the model, the only thing the model sees;
    - ``answer``: the fields the model's JSON reply carries (inference.py keeps the reply whole as
      the instance's ``inference``);
    - ``inference_record``: what inference.py writes for the instance beside the reply: with the
      reply added as ``inference`` (and ``inferred_at``), a JSON array of these records is the
      input of SynchToM's ``evaluate.py``. It holds the ground truth and the rubric: it is for the
      runner, never for the model."""
    if bench.kind != "synchtom":
        raise ValueError(f"not a SynchToM benchmark (its format is {bench.kind!r})")
    for row in bench.items.itertuples(index=False):
        ctx = bench.contexts[row.item_id]
        item = ctx["item"]
        trajectory = synchtom_trajectory(ctx["trajectory"], steps)
        yield {
            "id": item["id"],
            "benchmark": row.benchmark,
            "file": ctx["file"],
            "setting": f"step{steps}",
            "observation": item["observation"],
            "explicit_instruction": item["explicit_instruction"],
            "trajectory": trajectory,
            "prompt": synchtom_prompt(item["observation"], item["explicit_instruction"], trajectory),
            "answer": {"instance_id": item["id"], **{k: "text" for k in SYNCHTOM_ANSWER}},
            "inference_record": {
                "instance_id": item["id"],
                "domain": item["domain"],
                "observation": item["observation"],
                "explicit_instruction": item["explicit_instruction"],
                "trajectory_path": item["trajectory"],
                "ground_truth": {
                    "user_profile": item["user_profile"],
                    "user_latent_belief": item["user_latent_belief"],
                    "true_latent_state": item["true_latent_state"],
                    "root_cause_of_misconception": item["root_cause_of_misconception"],
                },
                "rubrics": item.get("rubrics", {}),
            },
        }


def write_synchtom_instances(bench: Benchmark, out: str | Path, steps: int) -> int:
    """Write a SynchToM benchmark's instances as JSONL; returns how many."""
    n = 0
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        for inst in iter_synchtom_instances(bench, steps):
            f.write(json.dumps(inst, ensure_ascii=False, separators=(",", ":")) + "\n")
            n += 1
    return n
