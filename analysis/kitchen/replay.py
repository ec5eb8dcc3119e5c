"""A kitchen run step by step, for the replay: the grid read back cell by cell, who stands where
facing which way and holding what, and what happened at the step (the turns of the agents'
conversations, the actions that completed, the corrections the environment made, the request units
sent and what became of them); and the run's timeline (per step: messages, requests, completed
actions, corrections, reward), where the corrections are marked.

:func:`frame` gives one step (the coding screen draws the kitchen at a request's step from it);
:func:`payload` gives the whole run as the in-browser tile player receives it
(:class:`analysis.tile_replay.TilePayload`), built from the same rows."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import pandas as pd

from analysis.format import fmt
from analysis.kitchen.tgco import OUTCOME_NAMES, Audit
from analysis.tile_replay import (
    Agent,
    AgentAt,
    Grid,
    MarkKind,
    Message,
    MessageKind,
    Series,
    Step,
    TileChange,
    TileKind,
    TilePayload,
    Timeline,
)
from corpus.importers.overcooked import grid_cells, parse_cell
from corpus.importers.overcooked.grid import COLLAB_TILES, OVERCOOKED_AI_TILES, Cell
from corpus.kitchen.run import ROLES, KitchenRun, KitchenStep

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


def _step_rows(run: KitchenRun, audit: Audit | None) -> dict[str, dict[int, list[dict]]]:
    """What happened at each step, by environment step: the conversation turns, the completed
    actions, the corrections and (with ``audit``) the request units, as rows with agents named."""
    names = {a: agent_name(a, run) for a in (0, 1)}
    out: dict[str, dict[int, list[dict]]] = {
        k: defaultdict(list) for k in ("turns", "completed", "corrections", "units")
    }
    for t in run.turns:
        out["turns"][t.step].append(
            {
                "agent": names.get(t.agent, str(t.agent)),
                "conversation": t.conversation,
                "said": t.say,
                "action": t.action,
                "goal": t.goal,
            }
        )
    for c in run.completed:
        out["completed"][c.step].append({"agent": names.get(c.agent, str(c.agent)), "action": c.action})
    for fix in run.corrections:
        out["corrections"][fix.step].append(
            {"agent": names.get(fix.agent, str(fix.agent)), "kind": fix.kind, "message": fix.message}
        )
    for u in audit.rows() if audit is not None else ():
        out["units"][u["step"]].append(
            {
                "sender": names.get(u["sender"], str(u["sender"])),
                # A plan's or a plain-language request names no receiver: the agent it targets.
                "receiver": str(u["receiver"] or "") or names.get(u["target"], ""),
                "action": str(u["action"]),
                "outcome": OUTCOME_NAMES.get(u["outcome"], u["outcome"]),
                "reason": str(u["reason"]),
            }
        )
    return out


FRAME_COLUMNS = {
    "turns": ["agent", "conversation", "said", "action", "goal"],
    "completed": ["agent", "action"],
    "corrections": ["agent", "kind", "message"],
    "units": ["sender", "receiver", "action", "outcome", "reason"],
}


def frame(run: KitchenRun, index: int, audit: Audit | None = None) -> KitchenFrame:
    """Step ``index`` (0-based, clipped to the run) of ``run``; ``audit`` adds its request units."""
    index = max(0, min(index, run.n_steps - 1))
    s = run.steps[index]
    rows = _step_rows(run, audit)
    tables = {name: pd.DataFrame(rows[name].get(s.step, []), columns=cols) for name, cols in FRAME_COLUMNS.items()}
    cells = tuple(tuple(parse_cell(c) for c in row) for row in grid_cells(s.grid))
    return KitchenFrame(
        s.step,
        index,
        cells,
        tuple(s.actions),
        float(s.score),
        float(s.reward),
        tables["turns"],
        tables["completed"],
        tables["corrections"],
        tables["units"],
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


# -- the whole run for the in-browser tile player ------------------------------------------------

# How the tile player fills each kind of tile (by colour name: analysis.tile_replay.FILLS) and the
# short name written on it; a kind not listed is a utensil (pots, ovens, boards, blenders).
TILE_FILLS = {
    "floor": "white",
    "counter": "grey",
    "serving": "green",
    "ingredient_dispenser": "blue",
    "onion_dispenser": "blue",
    "tomato_dispenser": "blue",
    "dish_dispenser": "blue",
}
UTENSIL_FILL = "yellow"
TILE_LABELS = {
    "counter": "counter",
    "pot": "pot",
    "oven": "oven",
    "chopping_board": "board",
    "blender": "blender",
    "ingredient_dispenser": "ingredients",
    "onion_dispenser": "onions",
    "tomato_dispenser": "tomatoes",
    "dish_dispenser": "dishes",
    "serving": "serve",
}
MESSAGE_KINDS = (
    MessageKind("said", "Conversation"),
    MessageKind("request", "Request units sent"),
    MessageKind("completed", "Completed"),
    MessageKind("correction", "Corrections"),
)
MARK_KINDS = (
    MarkKind("request", "request unit", "blue", "square"),
    MarkKind("validator", "validator correction", "red", "x"),
    MarkKind("format", "format correction", "yellow", "diamond"),
    MarkKind("completed", "action completed", "green", "circle"),
)
# The timeline's counts per step, in this order (the first drawn as bars), from timeline()'s columns.
SERIES = ("messages", "requests", "completed", "validator", "format")


def tile_note(cell: Cell) -> str:
    """What is written on a tile besides its name: what lies on it and a utensil's state."""
    return " ".join(filter(None, (f"holds {cell.held}" if cell.held else "", cell.state)))


def score_text(score: float) -> str:
    return fmt(score, 0 if float(score).is_integer() else 2)


def _legend(letters: set[str], tiles: dict[str, str]) -> tuple[TileKind, ...]:
    """What each letter on the grid is, floor first, then by name."""
    out = []
    for letter in letters:
        kind = tiles.get(letter, letter)
        fill = TILE_FILLS.get(kind, UTENSIL_FILL)
        label = TILE_LABELS.get(kind, "" if kind == "floor" else kind)
        out.append(TileKind(letter, kind.replace("_", " "), fill, label))
    return tuple(sorted(out, key=lambda k: (k.name != "floor", k.name, k.letter)))


def _messages(rows: dict[str, dict[int, list[dict]]], step: int) -> tuple[Message, ...]:
    out = []
    for t in rows["turns"].get(step, []):
        detail = [f"conversation {t['conversation']}"]
        if t["action"] and t["action"] != t["said"]:
            detail.append(f"action: {t['action']}")
        if t["goal"]:
            detail.append(f"goal: {t['goal']}")
        out.append(Message(t["agent"], t["said"] or "(said nothing)", "said", " · ".join(detail)))
    for u in rows["units"].get(step, []):
        to = f" asks {u['receiver']}" if u["receiver"] else ""
        out.append(Message(u["sender"] + to, u["action"], "request", f"{u['outcome']}: {u['reason']}"))
    for c in rows["completed"].get(step, []):
        out.append(Message(c["agent"], c["action"], "completed"))
    for c in rows["corrections"].get(step, []):
        out.append(Message(c["agent"], c["message"] or "(no message)", "correction", f"{c['kind']} correction"))
    return tuple(out)


def _grids(run: KitchenRun) -> tuple[list[list[list[Cell]]], int, int]:
    """Each step's kitchen as cells, every grid padded with blank cells to the widest and tallest;
    with that width and height."""
    grids = [[[parse_cell(c) for c in row] for row in grid_cells(s.grid)] for s in run.steps]
    height = max((len(g) for g in grids), default=0)
    width = max((len(row) for g in grids for row in g), default=0)
    grids = [
        [row + [Cell(" ")] * (width - len(row)) for row in g] + [[Cell(" ")] * width] * (height - len(g)) for g in grids
    ]
    return grids, width, height


def _scan(grid: list[list[Cell]], state: list[list[tuple[str, str]]]) -> tuple[dict[int, AgentAt], list[TileChange]]:
    """Where each agent stands on one step's grid, and the tiles whose look changed since ``state``
    (updated to this step)."""
    changes = []
    at: dict[int, AgentAt] = {}
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell.agent is not None:
                at[cell.agent] = AgentAt(r, c, cell.facing, cell.held)
            now = (cell.tile, "" if cell.agent is not None else tile_note(cell))
            if now != state[r][c]:
                state[r][c] = now
                changes.append(TileChange(r, c, *now))
    return at, changes


def _panel(run: KitchenRun, s: KitchenStep) -> tuple[tuple[str, str], ...]:
    """A step's panel: score, reward, what each agent is doing and the orders."""
    panel = [("Score", score_text(s.score)), ("Reward", fmt(float(s.reward), 2))]
    panel += [(f"{agent_name(a, run)} is doing", action or "nothing") for a, action in enumerate(s.actions)]
    if s.orders:
        panel.append(("Orders", ", ".join(s.orders)))
    return tuple(panel)


def _marks(counts: pd.Series) -> tuple[str, ...]:
    """The marks of a step: each kind of event its timeline counts at least once."""
    return tuple(m.name for m in MARK_KINDS if int(counts["requests" if m.name == "request" else m.name]) > 0)


def payload(run: KitchenRun, audit: Audit | None = None) -> TilePayload:
    """The whole run as the tile player shows it: the kitchen's tiles (what lies on a counter and a
    utensil's state as each tile's note), both agents with the way they face and what they hold,
    each step's conversation turns, request units (with their outcome and why), completed actions
    and corrections, its score, reward and the actions in progress, and the timeline's counts with
    the steps marked where a request was sent, a correction made or an action completed."""
    tiles = tile_names(run)
    grids, width, height = _grids(run)
    static = grids[0] if grids else []
    ids = sorted({c.agent for g in grids for row in g for c in row if c.agent is not None})
    rows = _step_rows(run, audit)
    tl = timeline(run, audit)
    state = [[(c.tile, "") for c in row] for row in static]
    steps = []
    for i, (s, g) in enumerate(zip(run.steps, grids)):
        at, changes = _scan(g, state)
        steps.append(
            Step(
                step=s.step,
                agents=tuple(at.get(a) for a in ids),
                changes=tuple(changes),
                messages=_messages(rows, s.step),
                panel=_panel(run, s),
                marks=_marks(tl.iloc[i]),
                caption=f"Step {s.step}: score {score_text(s.score)}",
            )
        )
    letters = {c.tile for g in grids for row in g for c in row}
    return TilePayload(
        unit=run.id,
        title=f"{run.id} · {run.pairing} · {run.recipe}",
        grid=Grid(width, height, tuple("".join(c.tile for c in row) for row in static), _legend(letters, tiles)),
        agents=tuple(Agent(agent_name(a, run), a) for a in ids),
        steps=tuple(steps),
        timeline=Timeline(tuple(Series(name, tuple(int(v) for v in tl[name])) for name in SERIES)),
        message_kinds=MESSAGE_KINDS,
        mark_kinds=MARK_KINDS,
        unit_noun="run",
    )
