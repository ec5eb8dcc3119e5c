"""Request units as the items of a coding task, and the TGCO rule as one of its coders.

A kitchen coding task samples request units (:class:`analysis.kitchen.tgco.RequestUnit`) as a Map Task
task samples actions: an item is ``run id : n``, the run's n-th request unit (0-based, in the order
the run's messages sent them; :func:`unit_table`). People code each unit with the TGCO codebook
(``corpus/codebooks/tgco.yaml``); the rule's outcome for the same unit (:func:`rule_codes`) is the
code of a model coder, so the rule is measured against the people like any model coder.

What a coder sees of a unit (:func:`unit_context`) is what the audit reads, never its outcome: the
message and the unit in it, the turns before it, the acceptance window in steps, and the run's
trace (completed actions and corrections, each with its step relative to the request).

Nothing here imports streamlit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from analysis.kitchen.metrics import RunMetrics
from analysis.kitchen.replay import agent_name
from analysis.kitchen.requests import PLAN, OpAction, RequestUnit, message_text
from analysis.kitchen.tgco import UnitOutcome
from corpus.kitchen.run import KitchenRun

STRATIFY = ("level", "pairing", "scaffold")  # what a sample of request units may be stratified by
UNIT_COLUMNS = [
    "session_id",  # the run
    "index",  # the unit's place among the run's request units, from 0
    "turn",
    "unit",
    "step",
    "sender",
    "receiver",
    "request",
    "level",
    "pairing",
    "scaffold",
    "rule",
]


def item_id(run_id: str, index: int) -> str:
    return f"{run_id}:{int(index)}"


def unit_table(metrics: Iterable[RunMetrics]) -> pd.DataFrame:
    """One row per request unit of every run (:data:`UNIT_COLUMNS`): the run as ``session_id`` and
    the unit's place in it as ``index`` (the columns :func:`analysis.coding.sample_items` samples
    by), where it was sent, by whom to whom, the unit as written, the run's level and pairing, and
    the rule's outcome (``rule``)."""
    rows = []
    for m in metrics:
        for n, u in enumerate(m.audit.units):
            rows.append(
                {
                    "session_id": m.run_id,
                    "index": n,
                    "turn": u.unit.turn,
                    "unit": u.unit.index,
                    "step": u.unit.step,
                    "sender": u.unit.sender,
                    "receiver": u.unit.receiver,
                    "request": u.unit.text,
                    "level": "unknown" if m.level is None else str(m.level),
                    "pairing": m.pairing,
                    "scaffold": m.scaffold or "(not recorded)",
                    "rule": u.outcome,
                }
            )
    return pd.DataFrame(rows, columns=UNIT_COLUMNS)


def rule_codes(units: pd.DataFrame, items: Sequence[dict[str, Any]]) -> dict[str, str]:
    """The rule's code of each item (``session_id``, ``action_index``), by item id."""
    rule = {item_id(r, i): o for r, i, o in zip(units["session_id"], units["index"], units["rule"])}
    return {iid: rule[iid] for iid in (item_id(it["session_id"], it["action_index"]) for it in items)}


@dataclass(frozen=True)
class UnitContext:
    """What a coder sees of one request unit (never the rule's outcome)."""

    run: KitchenRun
    unit: RequestUnit
    index: int  # the unit's place among the run's request units, from 0
    n_units: int  # the run's request units
    message: str  # the whole message the unit is part of
    window: int  # the acceptance window, in steps
    window_rule: str
    earlier: pd.DataFrame  # step, agent, said: the messages before the unit's message
    trace: pd.DataFrame  # step, when, agent, what, detail: completed actions and corrections

    @property
    def sender(self) -> str:
        return agent_name(self.unit.sender, self.run)

    @property
    def place(self) -> int:
        """The place of the request's step among the run's steps (0 when the step is not drawn)."""
        return next((i for i, s in enumerate(self.run.steps) if s.step == self.unit.step), 0)

    @property
    def request(self) -> str:
        """The requested action as the audit reads it, or the unit as written when it does not parse."""
        return str(self.unit.action) if isinstance(self.unit.action, OpAction) else self.unit.text


def _when(step: int, at: int) -> str:
    if step == at:
        return "at the request"
    return f"{step - at:+d} step{'s' if abs(step - at) != 1 else ''}"


def unit_context(run: KitchenRun, metrics: RunMetrics, index: int, before: int) -> UnitContext | str:
    """The ``index``-th request unit of ``run`` with the ``before`` messages sent before its own,
    and the run's trace; a sentence saying why when the run has no such unit."""
    units: tuple[UnitOutcome, ...] = metrics.audit.units
    if not 0 <= index < len(units):
        return f"run '{run.id}' has {len(units)} request unit(s), so no unit {index}"
    unit = units[index].unit
    said = [
        (t.step, agent_name(t.agent, run), text)
        for k, t in enumerate(run.turns)
        if k < unit.turn and (text := message_text(t))
    ]
    earlier = pd.DataFrame(said[max(0, len(said) - before) :] if before > 0 else [], columns=["step", "agent", "said"])
    events = [(c.step, agent_name(c.agent, run), "completed", c.action) for c in run.completed]
    events += [(c.step, agent_name(c.agent, run), f"{c.kind} correction", c.message) for c in run.corrections]
    events.sort(key=lambda e: e[0])
    trace = pd.DataFrame(
        [(s, _when(s, unit.step), who, what, detail) for s, who, what, detail in events],
        columns=["step", "when", "agent", "what", "detail"],
    )
    turn = run.turns[unit.turn]
    message = message_text(turn)
    if unit.shape == PLAN:  # the request was written in the plan: the coder sees the plan too
        message = "\n".join(filter(None, (message, f"(plan) {turn.goal.strip()}")))
    return UnitContext(
        run,
        unit,
        index,
        len(units),
        message,
        metrics.audit.window,
        metrics.audit.window_rule,
        earlier,
        trace,
    )
