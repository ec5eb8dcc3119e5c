"""A task file read line by line: each line's checks, every problem reported with file, line and
field (a file with nothing to report is read at once: :mod:`corpus.predictions.at_once`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from corpus import limits, schema
from corpus.loading.reading import jsonl_records
from corpus.loading.report import WARNING, Report, describe
from corpus.predictions.at_once import _read_task_at_once
from corpus.predictions.records import (
    CORE_FIELDS,
    DIMENSIONS,
    JUDGE_SCALE,
    JUDGE_TASK,
    TASKS,
    _content_field,
    _reserved,
    label_code,
)


class _Line:
    """Checks of one prediction line; problems go to the run's report."""

    def __init__(self, report: Report, rel: str, lineno: int, obj: dict[str, Any]):
        self.report, self.rel, self.lineno, self.rec, self.obj = report, rel, lineno, f"line {lineno}", obj
        self.bad = False

    def error(self, fld: str, message: str) -> None:
        self.report.add(self.rel, self.rec, fld, message)
        self.bad = True

    def string(self, fld: str, required: bool = True, empty_ok: bool = False) -> str | None:
        v = self.obj.get(fld)
        if v is None:
            if required:
                self.error(fld, "required field is missing")
            return None
        if not isinstance(v, str):
            self.error(fld, f"expected a string, got {describe(v)}")
            return None
        if not empty_ok and not v.strip():
            self.error(fld, "empty")
            return None
        return v


def _action(line: _Line, sessions: Mapping[str, Any]) -> tuple[Any, Any]:
    """The session and action a line points at (None, None after reporting a problem)."""
    sid = line.string("session_id")
    idx = line.obj.get("action_index")
    if sid is None:
        return None, None
    s = sessions.get(sid)
    if s is None:
        line.error("session_id", f"unknown session '{sid}'")
        return None, None
    if idx is None:
        line.error("action_index", "required field is missing")
        return None, None
    if isinstance(idx, bool) or not isinstance(idx, int):
        line.error("action_index", f"expected an integer, got {describe(idx)}")
        return None, None
    if not 0 <= idx < len(s.actions):
        line.error("action_index", f"session '{sid}' has no action {idx} (it has {len(s.actions)})")
        return None, None
    return s, s.actions[idx]


def _cells(line: _Line, value: Any, grid: tuple[int, int] | None, field: str = "content") -> list[list[int]] | None:
    """The cells of a drawing (in ``field``); checked against the grid when the session's map is
    known (a map with errors is reported by the dataset reader)."""
    if not isinstance(value, list) or not value:
        line.error(field, f"a drawing needs a non-empty list of [row, col] cells, got {describe(value)}")
        return None
    rows, cols = grid or (float("inf"), float("inf"))
    out = []
    for k, cell in enumerate(value):
        ok = (
            isinstance(cell, list)
            and len(cell) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in cell)
        )
        if not ok:
            line.error(f"{field}[{k}]", f"expected a [row, col] pair of integers, got {cell!r:.40}")
            return None
        if not (0 <= cell[0] < rows and 0 <= cell[1] < cols):
            line.error(f"{field}[{k}]", f"cell [{cell[0]}, {cell[1]}] is outside the {rows}x{cols} grid")
            return None
        out.append(cell)
    return out


def _check_next_action(line: _Line, row: dict, grid: tuple[int, int] | None) -> None:
    t = line.string("action_type")
    if t is None:
        return
    t = t.strip().lower()
    if t not in schema.ACTION_TYPES:
        line.error(
            "action_type",
            f"unknown action type '{line.obj['action_type']}' (expected one of {', '.join(schema.ACTION_TYPES)})",
        )
        return
    row["action_type"] = t
    field = _content_field(line.obj)
    if field is None:
        line.error("action_content", 'give the content once, as "content" or as "action_content", not both')
        return
    content = line.obj.get(field)
    row["content"], row["cells"] = None, None
    if t == "message":
        if not isinstance(content, str):
            line.error(field, f"a message prediction needs its text (a string), got {describe(content)}")
        else:
            row["content"] = content
    elif t in schema.CELL_TYPES:
        row["cells"] = _cells(line, content, grid, field)
    elif content not in (None, "", []):
        line.error(field, f'a {t} prediction takes no content (null or ""), got {describe(content)}')


def _check_mental_model(line: _Line, row: dict) -> None:
    for dim in DIMENSIONS:
        v = line.obj.get(dim)
        if v is None:
            line.error(dim, "required field is missing")
            continue
        if not isinstance(v, (str, dict)):
            line.error(dim, f"expected a label code or its wording (a string), got {describe(v)}")
            continue
        code = label_code(dim, v)
        if code is None:
            shown = v.get("code") if isinstance(v, dict) else v
            line.error(
                dim,
                f"unknown {dim} label '{shown!s:.80}' (expected one of "
                f"{', '.join([*schema.DIMENSIONS[dim], schema.OTHER])} or its wording)",
            )
            continue
        row[dim] = code


def _check_judge(line: _Line, row: dict) -> None:
    task = line.obj.get("task", "mental_model")
    if task not in TASKS:
        line.error("task", f"unknown task {task!r:.40} (expected one of {', '.join(TASKS)})")
    row["task"] = task
    row["criterion"] = line.string("criterion", required=False) or "overall"
    row["judge"] = line.string("judge")
    score = line.obj.get("score")
    if isinstance(score, bool) or not isinstance(score, int) or score not in JUDGE_SCALE:
        line.error("score", f"expected an integer from 0 to 5, got {describe(score)}")
    row["score"] = score


def _key(task: str, row: dict) -> tuple:
    if task == JUDGE_TASK:
        return (row.get("session_id"), row.get("action_index"), row.get("task"), row.get("criterion"), row.get("judge"))
    return (row.get("session_id"), row.get("action_index"))


# Called with (session id, file) for each line; True when the dataset reader only counts the line
# because its session has errors of its own (corpus.loading.validate reports the session once).
Failed = Callable[[str, str], bool]


def read_task_text(
    text: str,
    task: str,
    rel: str,
    sessions: Mapping[str, Any],
    maps: Mapping[str, Any],
    report: Report,
    failed: Failed | None = None,
) -> pd.DataFrame:
    """Validate the lines of one task file; one row per valid line (problems go to ``report``). A
    file of more than :data:`corpus.limits.PREDICTION_LINES` lines is refused unread, and reading
    stops at the :data:`corpus.limits.PREDICTION_ERRORS`-th problem (a refused run keeps no rows)."""
    if failed is None and (at_once := _read_task_at_once(text, task, sessions, maps)) is not None:
        return at_once
    rows: list[dict[str, Any]] = []
    seen: dict[tuple[Any, ...], int] = {}  # key of a kept prediction -> its line
    left_out: set[str] = set()  # extra fields already warned about
    lines = jsonl_records(
        text,
        report,
        rel,
        max_lines=limits.PREDICTION_LINES,
        max_problems=limits.PREDICTION_ERRORS,
        what="a predictions file",
    )
    for lineno, obj, _ in lines:
        if failed is not None and isinstance(obj.get("session_id"), str) and failed(obj["session_id"], rel):
            continue
        line = _Line(report, rel, lineno, obj)
        row = _read_line(line, task, sessions, maps)
        if row is None:
            continue
        _extra_fields(line, task, row, left_out)
        _check_duplicate(line, task, row, seen)
        if not line.bad:
            seen[_key(task, row)] = lineno
            rows.append(row)
    return pd.DataFrame(rows)


def _read_line(line: _Line, task: str, sessions: Mapping[str, Any], maps: Mapping[str, Any]) -> dict[str, Any] | None:
    """The row of one line (None when it names no action of the dataset); ``line.bad`` tells
    whether any check failed."""
    s, action = _action(line, sessions)
    if action is None:
        return None
    row: dict[str, Any] = {"session_id": s.id, "action_index": action.index, "line": line.lineno}
    if task != JUDGE_TASK:
        _check_actor(line, row, s, action)
    if task == "next_action":
        _check_next_action(line, row, tuple(maps[s.map_id].grid_size) if s.map_id in maps else None)
    elif task == "mental_model":
        _check_mental_model(line, row)
    else:
        _check_judge(line, row)
    return row


def _check_actor(line: _Line, row: dict[str, Any], s: Any, action: Any) -> None:
    """A task line's role (when given, the actor of the action) and its rationale."""
    role = line.obj.get("role", action.role)
    if role not in schema.ROLES:
        line.error("role", f"unknown role {role!r:.40} (expected guide or follower)")
    elif role != action.role:
        line.error("role", f"the {role} did not act at {s.id}:{action.index} (the {action.role} did)")
    row["role"] = action.role
    rationale = line.obj.get("rationale")
    if rationale is not None and not isinstance(rationale, str):
        line.error("rationale", f"expected a string, got {describe(rationale)}")
    row["rationale"] = rationale if isinstance(rationale, str) else None


def _extra_fields(line: _Line, task: str, row: dict[str, Any], left_out: set[str]) -> None:
    """Extra fields with a string, number or boolean value become columns (slices); any other is
    left out, with a warning on the first line of the file that has it."""
    core = CORE_FIELDS[task]
    for k, v in line.obj.items():
        if k in core:
            continue
        reserved = _reserved(k)
        if not reserved and (v is None or isinstance(v, (str, int, float, bool))):
            row[k] = v
        elif k not in left_out:
            left_out.add(k)
            why = (
                "has a name the comparison uses for its own columns"
                if reserved
                else "holds a list or an object; only strings, numbers and booleans become slices"
            )
            line.report.add(line.rel, line.rec, k, f"extra field {why}, so it is left out", WARNING)


def _check_duplicate(line: _Line, task: str, row: dict[str, Any], seen: dict[tuple[Any, ...], int]) -> None:
    """A second prediction of the same action (for judges: same action, task, criterion and judge)."""
    key = _key(task, row)
    if key in seen:
        line.error(
            "action_index" if task != JUDGE_TASK else "judge",
            f"duplicate prediction for {row['session_id']}:{row['action_index']} (also line {seen[key]})",
        )
