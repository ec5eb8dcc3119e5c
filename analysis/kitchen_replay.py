"""A kitchen run step by step, for the replay: the grid read back cell by cell, who stands where
facing which way and holding what, and what happened at the step (the turns of the agents'
conversations, the actions that completed, the corrections the environment made, the request units
sent and what became of them); and the run's timeline (per step: messages, requests, completed
actions, corrections, reward), where the corrections are marked."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.tgco import OUTCOME_NAMES, Audit
from corpus.importers.overcooked import grid_cells, parse_cell
from corpus.importers.overcooked.grid import COLLAB_TILES, OVERCOOKED_AI_TILES, Cell
from corpus.kitchen import ROLES, KitchenRun

TIMELINE_COLUMNS = ["step", "messages", "requests", "completed", "validator", "format", "reward", "score"]


def agent_name(agent: int, run: KitchenRun) -> str:
    """The Chef and the Assistant in Collab-Overcooked; player 0 and player 1 in Overcooked-AI."""
    if run.format == "overcooked-ai" or agent not in (0, 1):
        return f"player {agent}"
    return ROLES[agent]


def tile_names(run: KitchenRun) -> dict[str, str]:
    """What each grid letter stands for in this run's format (inferred: see the grid module)."""
    return OVERCOOKED_AI_TILES if run.format == "overcooked-ai" else COLLAB_TILES


@dataclass(frozen=True)
class KitchenFrame:
    """One step of a run as the replay shows it."""

    step: int
    index: int  # the step's place in the run (0, 1, ...)
    cells: tuple[tuple[Cell, ...], ...]  # rows of cells, top row first
    actions: tuple[str, ...]  # in progress, per agent
    score: float
    reward: float
    turns: pd.DataFrame  # agent, conversation, say, action, goal (the step's conversation turns)
    completed: pd.DataFrame  # agent, action
    corrections: pd.DataFrame  # agent, kind, message
    units: pd.DataFrame  # the request units sent at the step: sender, receiver, action, outcome, reason


def frame(run: KitchenRun, index: int, audit: Audit | None = None) -> KitchenFrame:
    """Step ``index`` (0-based, clipped to the run) of ``run``; ``audit`` adds its request units."""
    index = max(0, min(index, run.n_steps - 1))
    s = run.steps[index]
    names = {a: agent_name(a, run) for a in (0, 1)}
    turns = pd.DataFrame(
        [
            {
                "agent": names.get(t.agent, str(t.agent)),
                "conversation": t.conversation,
                "said": t.say,
                "action": t.action,
                "goal": t.goal,
            }
            for t in run.turns
            if t.step == s.step
        ],
        columns=["agent", "conversation", "said", "action", "goal"],
    )
    completed = pd.DataFrame(
        [{"agent": names.get(c.agent, str(c.agent)), "action": c.action} for c in run.completed if c.step == s.step],
        columns=["agent", "action"],
    )
    corrections = pd.DataFrame(
        [
            {"agent": names.get(c.agent, str(c.agent)), "kind": c.kind, "message": c.message}
            for c in run.corrections
            if c.step == s.step
        ],
        columns=["agent", "kind", "message"],
    )
    units = pd.DataFrame(columns=["sender", "receiver", "action", "outcome", "reason"])
    if audit is not None:
        f = audit.frame()
        f = f[f["step"] == s.step]
        units = pd.DataFrame(
            {
                "sender": [names.get(a, str(a)) for a in f["sender"]],
                # A plan's or a plain-language request names no receiver: the agent it targets.
                "receiver": [r or names.get(t, "") for r, t in zip(f["receiver"].astype(str), f["target"])],
                "action": f["action"].astype(str).tolist(),
                "outcome": [OUTCOME_NAMES.get(o, o) for o in f["outcome"]],
                "reason": f["reason"].astype(str).tolist(),
            }
        )
    cells = tuple(tuple(parse_cell(c) for c in row) for row in grid_cells(s.grid))
    return KitchenFrame(
        s.step, index, cells, tuple(s.actions), float(s.score), float(s.reward), turns, completed, corrections, units
    )


def timeline(run: KitchenRun, audit: Audit | None = None) -> pd.DataFrame:
    """Per step: messages sent (turns that said something), request units, actions completed,
    validator and format corrections, the step's reward and the running score."""
    steps = [s.step for s in run.steps]
    said = pd.Series([t.step for t in run.turns if t.say], dtype="int64").value_counts()
    done = pd.Series([c.step for c in run.completed], dtype="int64").value_counts()
    kinds = pd.DataFrame([(c.step, c.kind) for c in run.corrections], columns=["step", "kind"])
    validator = kinds.loc[kinds["kind"] == "validator", "step"].value_counts()
    fmt = kinds.loc[kinds["kind"] == "format", "step"].value_counts()
    requests = audit.frame()["step"].value_counts() if audit is not None else pd.Series(dtype="int64")
    out = pd.DataFrame({"step": steps})
    for name, counts in (
        ("messages", said),
        ("requests", requests),
        ("completed", done),
        ("validator", validator),
        ("format", fmt),
    ):
        out[name] = [int(counts.get(s, 0)) for s in steps]
    out["reward"] = [float(s.reward) for s in run.steps]
    out["score"] = [float(s.score) for s in run.steps]
    return out[TIMELINE_COLUMNS]
