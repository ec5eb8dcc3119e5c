"""Model predictions for the two benchmark tasks, read and validated one run at a time.

A **run** is one model under one setting: a folder with ``model.json`` (optional) and one JSONL
file per task (``next_action.jsonl``, ``mental_model.jsonl``) plus, optionally, judges' 0-5
scores of its outputs (``judge_scores.jsonl``); docs/data-format.md has every field. Runs come
from a dataset's ``predictions/`` folder, from an uploaded ``.zip`` (run folders, or a dataset's
``predictions/`` folder) or ``.jsonl`` file (one task of one run), and from the command line.

A run is checked line by line against the dataset it predicts: unknown session or action, a role
that did not act, an unknown label, a wrong type, a duplicate prediction. Every problem is
reported with file, line and field, and a run with any error is refused whole (all or nothing per
run; the other runs are unaffected). Labels are accepted as codes (``t3``), as the schema's
wording, as the short names of Table 8, or as the wording of the paper's prompts (Appendix H).
Any extra field with a string, number or boolean value (``question_type``, ``time_span``, ...)
is kept as a column: the Compare page offers it as a slice.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from itertools import chain, compress
from operator import attrgetter
from pathlib import Path
from typing import Annotated, Any, NamedTuple, cast

import msgspec
import numpy as np
import pandas as pd

from corpus import schema
from corpus.action_rows import LabelObject
from corpus.jsonsafe import JsonError, loads, loads_each
from corpus.limits import PREDICTION_ERRORS, PREDICTION_LINES
from corpus.reading import (
    bytes_at_once,
    json_issue,
    jsonl_lines,
    jsonl_records,
    line_count,
    read_text,
    records_at_once,
    text_of,
)
from corpus.report import ERROR, WARNING, Report, describe
from corpus.tables import TEXT_DTYPE
from corpus.validate import ActionRefs, collector_paused

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


@dataclass
class PackedRows:
    """A task's rows packed to be pickled: the frame without its ``cells`` column, and the cells of
    every row as one array of (row, column) pairs (``counts``: how many each row has, -1 for none).
    A column of lists of small lists takes seconds to unpickle at a million cells; this, an instant."""

    rest: pd.DataFrame
    pairs: np.ndarray | None = None
    counts: np.ndarray | None = None
    at: int = -1  # the position of the cells column

    @classmethod
    def of(cls, df: pd.DataFrame) -> PackedRows:
        if "cells" not in df.columns:
            return cls(df)
        cells = df["cells"].tolist()
        counts = np.fromiter((len(c) if isinstance(c, list) else -1 for c in cells), dtype=np.int64, count=len(cells))
        pairs = _pairs_of([c for c in cells if isinstance(c, list)], int(np.maximum(counts, 0).sum()))
        return cls(df.drop(columns="cells"), pairs, counts, df.columns.get_loc("cells"))

    def frame(self) -> pd.DataFrame:
        """The rows as they were (each row's cells a list of [row, column] lists, or None)."""
        if self.pairs is None or self.counts is None:
            return self.rest
        pairs, ends = self.pairs.tolist(), np.cumsum(np.maximum(self.counts, 0)).tolist()
        cells = [pairs[end - n : end] if n >= 0 else None for n, end in zip(self.counts.tolist(), ends)]
        df = self.rest.copy(deep=False)
        df.insert(self.at, "cells", pd.Series(cells, index=df.index, dtype=object))
        return df


# -- one line ------------------------------------------------------------------------------------


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


def _content_field(obj: dict[str, Any]) -> str | None:
    """Where a next-action line holds its content: ``content``, or ``action_content`` as the paper's
    prompt asks for it; None when the line gives both."""
    if "action_content" not in obj:
        return "content"
    return None if "content" in obj else "action_content"


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
# because its session has errors of its own (corpus.validate reports the session once).
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
        text, report, rel, max_lines=PREDICTION_LINES, max_problems=PREDICTION_ERRORS, what="a predictions file"
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


_Label = str | LabelObject  # (a label as a code alone, or as an object)
# (a drawing's cells: [row, col] pairs of integers, their shape checked as they are decoded)
_Content = str | list[Annotated[list[int], msgspec.Meta(min_length=2, max_length=2)]] | None | msgspec.UnsetType


class _MentalModelLine(msgspec.Struct, forbid_unknown_fields=True):
    """A mental-model line in its usual shape (no extra field), each field of its JSON type."""

    session_id: str
    action_index: int
    team_goal: _Label
    partner_intent: _Label
    self_reasoning: _Label
    role: str | None | msgspec.UnsetType = msgspec.UNSET
    rationale: str | None = None


class _NextActionLine(msgspec.Struct, forbid_unknown_fields=True):
    """A next-action line in its usual shape (no extra field), each field of its JSON type."""

    session_id: str
    action_index: int
    action_type: str
    role: str | None | msgspec.UnsetType = msgspec.UNSET
    content: _Content = msgspec.UNSET
    action_content: _Content = msgspec.UNSET
    rationale: str | None = None


_TYPED: dict[str, msgspec.json.Decoder[Any]] = {
    "mental_model": msgspec.json.Decoder(_MentalModelLine),
    "next_action": msgspec.json.Decoder(_NextActionLine),
}
_BOTH = object()  # a next-action line giving both content and action_content


@dataclass
class _Given:
    """What the lines of a task file give, one list per field, in line order (msgspec.UNSET where a
    line does not give a field)."""

    sids: list[Any]
    idxs: list[Any]
    roles: list[Any]
    rationales: list[Any]
    fields: dict[str, list[Any]]  # the task's own fields: the dimensions, or action_type and content
    extras: dict[str, list[Any]]  # any other field, in order of first use
    # Decoded as typed records (every id text, every index an integer, every rationale text or null):
    typed: bool = False

    @classmethod
    def of_typed(cls, task: str, lines: Sequence[str]) -> _Given | None:
        """The lines decoded in their usual shape (msgspec, in C); None when one is not in it."""
        decode = _TYPED[task].decode
        try:
            objs: list[Any] = [decode(line) for line in lines]
        except msgspec.DecodeError:  # (a ValidationError is one)
            return None
        return cls.of_records(task, objs)

    @classmethod
    def of_records(cls, task: str, objs: list[Any]) -> _Given:
        """Lines decoded as typed records (:data:`_TYPED`)."""

        def column(name: str) -> list[Any]:
            return list(map(attrgetter(name), objs))

        if task == "mental_model":
            fields = {dim: _codes_of(column(dim)) for dim in DIMENSIONS}
        else:
            fields = {
                "action_type": column("action_type"),
                "content": [
                    o.content
                    if o.action_content is msgspec.UNSET
                    else _BOTH
                    if o.content is not msgspec.UNSET
                    else o.action_content
                    for o in objs
                ],
            }
        return cls(column("session_id"), column("action_index"), column("role"), column("rationale"), fields, {}, True)

    @classmethod
    def parsed(cls, task: str, lines: Sequence[str]) -> _Given | None:
        """The lines parsed as JSON values (:func:`corpus.jsonsafe.loads_each`); None when one is
        refused or is no object."""
        objs = list(loads_each(lines))
        if not all(type(o) is dict for o in objs):  # (a line refused by the parser is no dict)
            return None
        if task == "mental_model":
            fields = {dim: [o.get(dim) for o in objs] for dim in DIMENSIONS}
        else:
            fields = {
                "action_type": [o.get("action_type") for o in objs],
                "content": [o.get(f, msgspec.UNSET) if (f := _content_field(o)) is not None else _BOTH for o in objs],
            }
        core = CORE_FIELDS[task]
        names = [name for name in dict.fromkeys(k for o in objs for k in o) if name not in core]
        return cls(
            [o.get("session_id") for o in objs],
            [o.get("action_index") for o in objs],
            [o.get("role", msgspec.UNSET) for o in objs],
            [o.get("rationale") for o in objs],
            fields,
            {name: [o.get(name, msgspec.UNSET) for o in objs] for name in names},
        )


def _codes_of(labels: list[Any]) -> list[Any]:
    """Typed labels as codes: a label given as an object by its code (its wording is read by
    :func:`label_code` as the code's)."""
    if LabelObject not in set(map(type, labels)):
        return labels
    return [v.code if type(v) is LabelObject else v for v in labels]


class _Keys(NamedTuple):
    """The columns that name each line's action, in line order, as the rows' frame holds them."""

    session_id: Any  # (pandas' array of texts)
    action_index: np.ndarray
    role: Any


def _keys_at_once(given: _Given, sessions: Mapping[str, Any]) -> _Keys | None:
    """The session, index and role of the action each line names, in line order (its role from its
    session's actions); None when a line names no action of the dataset (an unknown session or an
    index out of range), names an action another line names, or gives another role, or when its id,
    index or rationale is not of its type. Checked a column at a time."""
    sids, idxs, n = given.sids, given.idxs, len(given.sids)
    if not given.typed and not (
        all(type(sid) is str for sid in sids)
        and all(type(i) is int for i in idxs)
        and all(r is None or isinstance(r, str) for r in given.rationales)
    ):
        return None
    codes, names = pd.factorize(np.fromiter(sids, dtype=object, count=n))
    actors = [_role_codes(sessions.get(sid)) if sid.strip() else None for sid in names]
    if any(acted is None for acted in actors):  # (an unknown session, or no id)
        return None
    try:
        index = np.fromiter(idxs, dtype=np.int64, count=n)
    except OverflowError:
        return None
    lengths = np.fromiter(map(len, cast(list[bytes], actors)), dtype=np.int64, count=len(actors))
    if not ((index >= 0) & (index < lengths[codes])).all():
        return None
    at = (np.cumsum(lengths) - lengths)[codes] + index  # (each action's own place among all the sessions')
    ordered = np.sort(at)
    if (ordered[1:] == ordered[:-1]).any():  # (an action named twice)
        return None
    role_codes = np.frombuffer(b"".join(cast(list[bytes], actors)), dtype=np.uint8)[at]
    stated = np.fromiter(given.roles, dtype=object, count=n)
    if not ((stated == msgspec.UNSET) | (stated == _ROLE_NAMES[role_codes])).all():
        return None
    return _Keys(_texts(names).take(codes), index, _texts(schema.ROLES).take(role_codes))


def _texts(values: Iterable[str]) -> Any:
    """Texts as pandas holds a column of them (its array)."""
    return pd.array(list(values), dtype=TEXT_DTYPE)


def _few_texts(values: list[str]) -> Any:
    """:func:`_texts` of a column drawn from a few texts (a type, a label): each made once."""
    distinct = {v: k for k, v in enumerate(dict.fromkeys(values))}
    return _texts(distinct).take(np.fromiter(map(distinct.__getitem__, values), dtype=np.intp, count=len(values)))


def _read_task_at_once(
    text: str, task: str, sessions: Mapping[str, Any], maps: Mapping[str, Any]
) -> pd.DataFrame | None:
    """The rows of a next-action or mental-model file that has nothing to report, read in one pass,
    a column at a time: the same rows :func:`read_task_text` builds line by line (a test holds them
    equal), several times faster. None when any line has anything to say, an error or a warning:
    the file is then read line by line, which words it."""
    packed = _read_task_packed(text, task, sessions, maps)
    return None if packed is None else packed.frame()


def _read_task_packed(text: str, task: str, sessions: Mapping[str, Any], maps: Mapping[str, Any]) -> PackedRows | None:
    """:func:`_read_task_at_once`'s rows as they are made, each row's cells packed in one array
    (:class:`PackedRows`). Lines in their usual shape are decoded as typed records, others as JSON
    values."""
    if task not in TASKS or line_count(text) > PREDICTION_LINES:
        return None
    lines = jsonl_lines(text)
    numbers: Sequence[int] = range(1, len(lines) + 1)
    if "" in lines:  # (blank lines are skipped, the others keep their numbers; a line of spaces is no record)
        numbers = [k for k, line in enumerate(lines, start=1) if line.strip()]
        lines = [lines[k - 1] for k in numbers]
    if not lines:
        return PackedRows(pd.DataFrame([]))
    given = _Given.of_typed(task, lines) or _Given.parsed(task, lines)
    return None if given is None else _packed(given, numbers, task, sessions, maps)


def _read_task_bytes(data: bytes, task: str, sessions: Mapping[str, Any], maps: Mapping[str, Any]) -> PackedRows | None:
    """:func:`_read_task_packed` of a task file's bytes (None where it gives None): a file in its
    plainest shape (:func:`corpus.reading.records_at_once`) decoded without being made a text first."""
    objs = records_at_once(data, _TYPED[task], PREDICTION_LINES) if task in TASKS else None
    if objs is None:
        text = text_of(data)
        return None if text is None else _read_task_packed(text, task, sessions, maps)
    return _packed(_Given.of_records(task, objs), range(1, len(objs) + 1), task, sessions, maps)


def _packed(
    given: _Given, numbers: Sequence[int], task: str, sessions: Mapping[str, Any], maps: Mapping[str, Any]
) -> PackedRows | None:
    """The packed rows of lines numbered ``numbers`` giving ``given``; None when a line has
    anything to say."""
    keys = _keys_at_once(given, sessions)
    if keys is None:
        return None
    columns: dict[str, Any] = {
        "session_id": keys.session_id,
        "action_index": keys.action_index,
        "line": np.arange(1, len(numbers) + 1) if isinstance(numbers, range) else np.asarray(numbers, dtype=np.int64),
        "role": keys.role,
        "rationale": given.rationales,
    }
    cells: _Cells | None = None
    if task == "mental_model":
        for dim in DIMENSIONS:
            values = given.fields[dim]
            if given.typed:  # (every label a code or a wording: looked up once each)
                named = {v: label_code(dim, v) for v in set(values)}
                codes = list(map(named.__getitem__, values))
            else:
                named = {v: label_code(dim, v) for v in set(v for v in values if type(v) is str)}
                codes = [
                    named[v] if type(v) is str else label_code(dim, v) if type(v) is dict else None for v in values
                ]
            if None in codes:
                return None
            columns[dim] = _few_texts(cast(list[str], codes))
    else:
        made = _next_actions_at_once(given, sessions, maps)
        if made is None:
            return None
        columns["action_type"], columns["content"], cells = _few_texts(made[0]), made[1], made[2]
    for name, values in given.extras.items():
        if _reserved(name) or not all(
            v is None or v is msgspec.UNSET or isinstance(v, (str, int, float)) for v in values
        ):
            return None
        columns[name] = [float("nan") if v is msgspec.UNSET else v for v in values]
    if cells is None:
        return PackedRows(pd.DataFrame(columns))
    return PackedRows(pd.DataFrame(columns), cells.pairs, cells.counts, list(columns).index("content") + 1)


_ROLE_NAMES = np.asarray(schema.ROLES, dtype=object)


class _Outline(NamedTuple):
    """What the reading of a task file at once needs of a session: its map, and the role of each
    of its actions as its place in the schema's roles. Handed to a worker with each file, for every
    session: 10,000 of them pickle in a few milliseconds (their outlines, in a fifth of a second)."""

    map_id: str
    role_codes: bytes


def _outlines(sessions: Mapping[str, Any]) -> dict[str, _Outline]:
    return {sid: _Outline(s.map_id, cast(bytes, _role_codes(s))) for sid, s in sessions.items()}


def _role_codes(session: Any) -> bytes | None:
    """The role of each action of a session as its place in the schema's roles (None for no
    session): a dataset being read gives its sessions' outlines (:class:`corpus.validate.ActionRefs`),
    or, to a worker, :class:`_Outline`; a loaded corpus its sessions."""
    if session is None:
        return None
    if isinstance(session, _Outline):
        return session.role_codes
    actions = session.actions
    return actions.role_codes if isinstance(actions, ActionRefs) else ActionRefs.codes_of(a.role for a in actions)


@dataclass
class _Cells:
    """The cells of next-action lines, packed as :class:`PackedRows` holds them: every cell one
    (row, col) pair of ``pairs``, in line order; ``counts``: how many each line has (-1: none)."""

    pairs: np.ndarray
    counts: np.ndarray


_NO_GRID = (np.iinfo(np.int64).max, np.iinfo(np.int64).max)  # (a session whose map is unknown)


def _next_actions_at_once(
    given: _Given, sessions: Mapping[str, Any], maps: Mapping[str, Any]
) -> tuple[list[str], list[str | None], _Cells] | None:
    """The action_type and content columns of next-action lines, and their cells, as
    :func:`_check_next_action` reads them; None when that would report anything. Checked a column
    at a time: a message's content is a text, a drawing's a non-empty list of cells inside its
    session's grid, an undo's or a reset's empty."""
    given_types = given.fields["action_type"]
    types: list[str | None] = (  # (typed lines give every action type as a text)
        list(map(schema.ACTION_TYPE_OF.get, given_types))
        if given.typed
        else [schema.ACTION_TYPE_OF.get(k) if type(k) is str else None for k in given_types]
    )
    if None in types:  # (in capitals or with spaces, or no type at all)
        types = [t or _action_type(k) for t, k in zip(types, given.fields["action_type"])]
        if None in types:
            return None
    given_content = given.fields["content"]
    if _BOTH in given_content:  # (compared by identity first: no text or list equals it)
        return None
    content: list[Any] = [None if c is msgspec.UNSET else c for c in given_content]
    kinds = np.asarray(types, dtype=object)
    message = kinds == "message"
    drawing = (kinds == "draw") | (kinds == "erase")
    if not set(map(type, compress(content, message))) <= {str}:
        return None
    if not set(map(type, compress(content, drawing))) <= {list}:
        return None
    if any(c not in (None, "", []) for c in compress(content, ~(message | drawing))):
        return None
    drawn = list(compress(content, drawing))
    sizes = np.fromiter(map(len, drawn), dtype=np.int64, count=len(drawn))
    if not sizes.all():
        return None
    in_session, named = pd.factorize(np.fromiter(compress(given.sids, drawing), dtype=object, count=len(drawn)))
    grids = np.asarray([_grid(sessions[sid].map_id, maps) for sid in named], dtype=np.int64).reshape(-1, 2)
    pairs = _pairs_within(drawn, sizes, grids[in_session], given.typed)
    if pairs is None:
        return None
    counts = np.full(len(content), -1, dtype=np.int64)
    counts[drawing] = sizes
    contents = [c if m else None for c, m in zip(content, message.tolist())]
    return cast(list[str], types), contents, _Cells(pairs, counts)


def _action_type(kind: Any) -> str | None:
    """The action type a line names not as written (in capitals or with spaces); None for none."""
    return schema.ACTION_TYPE_OF.get(kind.strip().lower()) if isinstance(kind, str) and kind.strip() else None


def _grid(map_id: str, maps: Mapping[str, Any]) -> tuple[int, int]:
    """(rows, cols) of a map; without the map, bounds no cell reaches (the dataset reader reports it)."""
    grid = maps[map_id].grid_size if map_id in maps else _NO_GRID
    return int(grid[0]), int(grid[1])


def _pairs_of(drawn: list[list[Any]], n: int) -> np.ndarray:
    """The ``n`` cells of lists of [row, col] cells as one (n, 2) array, in order."""
    return np.fromiter(chain.from_iterable(chain.from_iterable(drawn)), dtype=np.int64, count=2 * n).reshape(n, 2)


def _pairs_within(drawn: list[list[Any]], sizes: np.ndarray, grids: np.ndarray, typed: bool) -> np.ndarray | None:
    """The cells of ``drawn`` (each line's list of ``sizes`` cells) as one array of (row, col)
    pairs, when every one is a [row, col] pair of integers inside its line's grid (``grids``: rows,
    cols per line); None otherwise. Typed lines were decoded with their cells' shape checked;
    others are checked here."""
    if not typed and not all(
        type(cell) is list and len(cell) == 2 and type(cell[0]) is int and type(cell[1]) is int
        for cells in drawn
        for cell in cells
    ):
        return None
    try:
        pairs = _pairs_of(drawn, int(sizes.sum()))
    except OverflowError:  # (an integer beyond 64 bits: outside any grid)
        return None
    if not ((pairs >= 0) & (pairs < np.repeat(grids, sizes, axis=0))).all():
        return None
    return pairs


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


def _reserved(name: str) -> bool:
    """Whether an extra field's name is one the comparison uses for its own columns."""
    return name in RESERVED_FIELDS or name.startswith(("h_", "p_", "rouge_", "sim_", "draw_"))


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


# -- a run ----------------------------------------------------------------------------------------


def _read_info(obj: Any, rel: str, default_name: str, report: Report) -> RunInfo:
    if obj is None:
        return RunInfo(name=default_name)
    if not isinstance(obj, dict):
        report.add(rel, "-", "(record)", f"expected a JSON object, got {describe(obj)}")
        return RunInfo(name=default_name)
    values: dict[str, Any] = {}
    for k, typ in INFO_FIELDS.items():
        v = obj.get(k)
        if v is not None and not isinstance(v, typ):
            report.add(rel, "-", k, f"expected {'true or false' if typ is bool else 'a string'}, got {describe(v)}")
        elif v is not None:
            values[k] = v
    meta = {k: v for k, v in obj.items() if k not in INFO_FIELDS}
    return RunInfo(name=values.pop("name", None) or default_name, metadata=meta, **values)


def _json_or_none(text: str | None, rel: str, report: Report) -> Any:
    """The value a JSON text holds; None when there is no text or it is refused (reported)."""
    if text is None:
        return None
    try:
        return loads(text)
    except JsonError as exc:
        json_issue(report, rel, exc)
        return None


def run_files(folder: Path) -> dict[str, Path]:
    """The files of a run folder that a run may hold, by name."""
    names = ["model.json", *(f"{t}.jsonl" for t in FILES)]
    return {n: folder / n for n in names if (folder / n).is_file()}


def read_run_dir(
    folder: str | Path,
    sessions: Mapping[str, Any],
    maps: Mapping[str, Any],
    run_id: str | None = None,
    prefix: str | None = None,
    source: str = "",
    failed: Failed | None = None,
    ready: Mapping[str, tuple[pd.DataFrame, str]] | None = None,
) -> Run:
    """One run folder, checked against the dataset's sessions and maps.

    ``prefix`` is put before file names in the problems (default ``<folder name>/``); ``ready``:
    the rows workers read of its files at once and the digest of each file's text, by path
    (:func:`read_task_file_at_once`): those files are not read here."""
    folder = Path(folder)
    run_id = run_id or folder.name
    prefix = f"{folder.name}/" if prefix is None else prefix
    files = run_files(folder)
    report = Report()
    digest = hashlib.sha256()  # (of each file's name and the digest of its text)
    texts: dict[str, str | None] = {}
    tables: dict[str, pd.DataFrame] = {}
    for name, path in files.items():
        done = (ready or {}).get(str(path))
        if done is not None:
            tables[name.removesuffix(".jsonl")], file_digest = done
        else:
            texts[name] = read_text(path, report, prefix + name)
            file_digest = text_digest(texts[name] or "")
        digest.update(f"{name}\0{file_digest}\0".encode())
    info_rel = prefix + "model.json"
    info = _read_info(_json_or_none(texts.get("model.json"), info_rel, report), info_rel, run_id, report)
    for task in FILES:
        if (text := texts.get(f"{task}.jsonl")) is not None:
            tables[task] = read_task_text(text, task, f"{prefix}{task}.jsonl", sessions, maps, report, failed)
    tables = {task: tables[task] for task in FILES if task in tables}
    if not any(f"{t}.jsonl" in files for t in FILES):
        report.add(
            prefix.rstrip("/: ") or run_id,
            "-",
            "(folder)",
            "no predictions: a run holds next_action.jsonl, mental_model.jsonl or judge_scores.jsonl",
        )
    run = Run(
        run_id=run_id, info=info, source=source or str(folder), report=report, tables=tables, digest=digest.hexdigest()
    )
    if not report.ok:
        run.tables = {}  # all or nothing: a refused run keeps only its report
    return run


def read_runs_dir(
    pred_dir: str | Path,
    sessions: Mapping[str, Any],
    maps: Mapping[str, Any],
    prefix: str = "predictions/",
    failed: Failed | None = None,
    pool: Executor | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> dict[str, Run]:
    """Every run folder of a ``predictions/`` folder, by run id (refused runs included). With a
    ``pool`` of worker processes, each next-action and mental-model file is first read at once by
    one of them (what a worker cannot read so is read here, line by line); ``meanwhile`` is called
    once the files are handed to them (at once without them)."""
    pred_dir = Path(pred_dir)
    dirs = (
        sorted(p for p in pred_dir.iterdir() if p.is_dir() and not p.name.startswith(".")) if pred_dir.is_dir() else []
    )
    ready = _ReadAtOnce(pool, dirs, sessions, maps) if pool is not None and failed is None else {}
    if meanwhile is not None:
        meanwhile()
    return {
        d.name: read_run_dir(d, sessions, maps, prefix=f"{prefix}{d.name}/", failed=failed, ready=ready) for d in dirs
    }


def text_digest(text: str) -> str:
    """The digest of a file's text, as a run's digest counts it."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_task_file_at_once(
    path: str, task: str, sessions: Mapping[str, Any], maps: Mapping[str, Any]
) -> tuple[PackedRows, str] | None:
    """The rows of the next-action or mental-model file at ``path`` read at once
    (:func:`_read_task_at_once`), packed to be handed over, and the digest of its text; None when
    it has anything to report. A worker's task."""
    with collector_paused():
        data = bytes_at_once(path)
        rows = None if data is None else _read_task_bytes(data, task, sessions, maps)
        return None if rows is None or data is None else (rows, _bytes_digest(data))


def _bytes_digest(data: bytes) -> str:
    """:func:`text_digest` of the text of a file's bytes (that :func:`corpus.reading.text_of` makes)."""
    return hashlib.sha256(data.removeprefix(b"\xef\xbb\xbf")).hexdigest()


class _ReadAtOnce(Mapping[str, tuple[pd.DataFrame, str]]):
    """The rows of every next-action and mental-model file of some run folders that a worker read at
    once, and the digest of its text, by path: each file is handed to a worker at the start, and its
    rows are waited for only when asked for (this process reads the run's other files meanwhile)."""

    def __init__(self, pool: Executor, dirs: Iterable[Path], sessions: Mapping[str, Any], maps: Mapping[str, Any]):
        files = [(str(d / f"{task}.jsonl"), task) for d in dirs for task in TASKS if (d / f"{task}.jsonl").is_file()]
        outlines = _outlines(sessions) if files else {}
        self._futures = {name: pool.submit(read_task_file_at_once, name, task, outlines, maps) for name, task in files}

    def __getitem__(self, name: str) -> tuple[pd.DataFrame, str]:
        future = self._futures[name]
        try:
            done = future.result()
        except Exception:  # noqa: BLE001 - (a file a worker fails on is read here)
            done = None
        if done is None:
            raise KeyError(name)
        return done[0].frame(), done[1]

    def __iter__(self) -> Iterator[str]:
        return iter(self._futures)

    def __len__(self) -> int:
        return len(self._futures)


def read_dataset_runs(
    root: Path,
    sessions: Mapping[str, Any],
    maps: Mapping[str, Any],
    report: Report,
    failed: Failed | None = None,
    pool: Executor | None = None,
    meanwhile: Callable[[], None] | None = None,
) -> dict[str, Run]:
    """A dataset's runs, for the dataset reader. A refused run does not stop the dataset from loading:
    its problems are listed in the dataset's report as warnings, and it is left out. A line naming a
    session with errors is passed to ``failed`` and skipped (the dataset does not load anyway).
    ``pool``: worker processes that read the runs' files, and ``meanwhile``, called once they have
    them (:func:`read_runs_dir`)."""
    runs = read_runs_dir(root / "predictions", sessions, maps, failed=failed, pool=pool, meanwhile=meanwhile)
    for run in runs.values():
        if not run.report.ok:
            n = len(run.report.errors)
            report.add(
                f"predictions/{run.run_id}/",
                "-",
                "(run)",
                f"run '{run.run_id}' has {n} error(s) and is left out of comparisons",
                WARNING,
            )
        for issue in run.report.issues:
            report.add(issue.file, issue.record, issue.field, issue.message, WARNING)
    return runs


def issues_frame(runs: Iterable[Run]) -> pd.DataFrame:
    """Every problem of the given runs: run, severity, file, record, field, message."""
    rows = [{"run": r.run_id, **i.as_dict()} for r in runs for i in r.report.issues]
    return pd.DataFrame(rows, columns=["run", "file", "record", "field", "message", "severity"])


__all__ = [
    "Run",
    "RunInfo",
    "read_run_dir",
    "read_runs_dir",
    "read_dataset_runs",
    "label_code",
    "issues_frame",
    "ERROR",
    "WARNING",
    "TASKS",
    "DIMENSIONS",
    "JUDGE_TASK",
]
