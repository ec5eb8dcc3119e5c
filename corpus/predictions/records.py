"""The records of a run: the files and fields of each task, the label codes, a run's ``model.json``
(:class:`RunInfo`) and a run as read (:class:`Run`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from corpus import schema
from corpus.loading.report import Report
from corpus.predictions.frames import PackedRows

TASKS = schema.PREDICTION_TASKS  # next_action, mental_model
JUDGE_TASK = "judge_scores"
FILES = (*TASKS, JUDGE_TASK)
DIMENSIONS = tuple(schema.DIMENSIONS)  # team_goal, partner_intent, self_reasoning
JUDGE_SCALE = tuple(range(6))  # 0-5, as SynchToM's judges score

_KEYS = ("session_id", "action_index", "role")
CORE_FIELDS = {
    "next_action": {*_KEYS, "action_type", "content", "action_content", "rationale"},
    "mental_model": {*_KEYS, *DIMENSIONS, "rationale"},
    JUDGE_TASK: {"session_id", "action_index", "task", "criterion", "judge", "score"},
}
# Names the comparison gives its own columns: an extra field by one of these names is left out.
RESERVED_FIELDS = {
    "condition",
    "split",
    "progress",
    "annotated",
    "line",
    "cells",
    "run",
    "dimension",
    "truth",
    "pred",
    "t_code",
    "p_code",
    "correct",
}
INFO_FIELDS = {"name": str, "setting": str, "model": str, "description": str, "simulated": bool}

# The answer options as the paper's prompts word them (Appendix H), besides the schema's wording.
PROMPT_WORDING = {
    "partner_intent": {
        "p1": "Understood the situation and we were on the same page",
        "p2": "Probably understood our situation but I was not fully sure",
        "p3": "Is waiting for more information to understand the situation",
        "p4": "Misunderstood and we were not aligned",
    },
    "self_reasoning": {
        "r1": "Executing a plan we already agreed on",
        "r4": "Grounding by sharing or requesting information to align",
    },
}


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def _label_lookup() -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for dim, codes in schema.DIMENSIONS.items():
        table = {schema.OTHER: schema.OTHER, "other": schema.OTHER}
        for code, wording in codes.items():
            for text in (code, wording, schema.SHORT_NAMES.get(code, ""), PROMPT_WORDING.get(dim, {}).get(code, "")):
                if text:
                    table[_norm(text)] = code
        out[dim] = table
    return out


_LABELS = _label_lookup()


def label_code(dimension: str, value: Any) -> str | None:
    """The code of a label given as a code, its wording or ``{"code": ...}``; None if unknown."""
    if isinstance(value, dict):
        value = value.get("code")
    if not isinstance(value, str):
        return None
    return _LABELS[dimension].get(_norm(value))


@dataclass(frozen=True)
class RunInfo:
    """``model.json``: who predicted, under which setting, and any free metadata."""

    name: str
    setting: str = ""
    model: str = ""  # the model's identity across settings (default: name)
    simulated: bool = False
    description: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)

    @property
    def model_id(self) -> str:
        return self.model or self.name

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "setting": self.setting,
            "model": self.model_id,
            "simulated": self.simulated,
            "description": self.description,
            **dict(self.metadata),
        }


@dataclass
class Run:
    """One run's predictions, validated against a dataset. Usable only when :attr:`ok`."""

    run_id: str
    info: RunInfo
    source: str
    report: Report
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)  # file -> one row per line
    digest: str = ""  # of the bytes read: two identical runs have the same digest

    @property
    def ok(self) -> bool:
        return self.report.ok and bool(self.tables)

    def table(self, task: str) -> pd.DataFrame:
        return self.tables.get(task, pd.DataFrame())

    def extra_fields(self, task: str) -> list[str]:
        """Columns beyond the documented fields (slices), in file order."""
        skip = CORE_FIELDS.get(task, set()) | {"line", "cells"}
        return [c for c in self.table(task).columns if c not in skip]

    @property
    def n_predictions(self) -> int:
        return sum(len(self.table(t)) for t in TASKS)

    def __getstate__(self) -> dict[str, Any]:  # (pickled with its tables' cells packed: PackedRows)
        return {**self.__dict__, "tables": {task: PackedRows.of(df) for task, df in self.tables.items()}}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, tables={task: packed.frame() for task, packed in state["tables"].items()})


def _content_field(obj: dict[str, Any]) -> str | None:
    """Where a next-action line holds its content: ``content``, or ``action_content`` as the paper's
    prompt asks for it; None when the line gives both."""
    if "action_content" not in obj:
        return "content"
    return None if "content" in obj else "action_content"


def _reserved(name: str) -> bool:
    """Whether an extra field's name is one the comparison uses for its own columns."""
    return name in RESERVED_FIELDS or name.startswith(("h_", "p_", "rouge_", "sim_", "draw_"))
