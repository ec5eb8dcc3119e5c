"""A next-action or mental-model file read at once, a column at a time, when it has nothing to
report (lines in their usual shape decoded as typed records); the same rows the line-by-line
reading (:mod:`corpus.predictions.lines`) builds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import attrgetter
from typing import Annotated, Any, NamedTuple, cast

import msgspec
import numpy as np
import pandas as pd

from corpus import limits, schema
from corpus.loading.action_rows import LabelObject
from corpus.loading.jsonsafe import loads_each
from corpus.loading.reading import jsonl_lines, line_count, records_at_once, text_of
from corpus.loading.validate import ActionRefs
from corpus.predictions.frames import PackedRows, _few_texts, _pairs_of, _texts
from corpus.predictions.records import CORE_FIELDS, DIMENSIONS, TASKS, _content_field, _reserved, label_code

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
        """The lines parsed as JSON values (:func:`corpus.loading.jsonsafe.loads_each`); None when one is
        refused or is no object."""
        objs = list(loads_each(lines))
        if not all(type(o) is dict for o in objs):  # (a line refused by the parser is no dict)
            return None
        core = CORE_FIELDS[task]
        names = [name for name in dict.fromkeys(k for o in objs for k in o) if name not in core]
        return cls(
            [o.get("session_id") for o in objs],
            [o.get("action_index") for o in objs],
            [o.get("role", msgspec.UNSET) for o in objs],
            [o.get("rationale") for o in objs],
            _parsed_fields(task, objs),
            {name: [o.get(name, msgspec.UNSET) for o in objs] for name in names},
        )


def _parsed_fields(task: str, objs: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The task's own fields of lines parsed as JSON objects, one list per field (:attr:`_Given.fields`)."""
    if task == "mental_model":
        return {dim: [o.get(dim) for o in objs] for dim in DIMENSIONS}
    return {
        "action_type": [o.get("action_type") for o in objs],
        "content": [o.get(f, msgspec.UNSET) if (f := _content_field(o)) is not None else _BOTH for o in objs],
    }


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
    if not _keys_of_their_types(given):
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


def _keys_of_their_types(given: _Given) -> bool:
    """Whether every line's id is a text, its index an integer and its rationale a text or null
    (as typed records' are)."""
    return given.typed or (
        all(type(sid) is str for sid in given.sids)
        and all(type(i) is int for i in given.idxs)
        and all(r is None or isinstance(r, str) for r in given.rationales)
    )


def _read_task_at_once(
    text: str, task: str, sessions: Mapping[str, Any], maps: Mapping[str, Any]
) -> pd.DataFrame | None:
    """The rows of a next-action or mental-model file that has nothing to report, read in one pass,
    a column at a time: the same rows :func:`corpus.predictions.lines.read_task_text` builds line by line (a test holds them
    equal), several times faster. None when any line has anything to say, an error or a warning:
    the file is then read line by line, which words it."""
    packed = _read_task_packed(text, task, sessions, maps)
    return None if packed is None else packed.frame()


def _read_task_packed(text: str, task: str, sessions: Mapping[str, Any], maps: Mapping[str, Any]) -> PackedRows | None:
    """:func:`_read_task_at_once`'s rows as they are made, each row's cells packed in one array
    (:class:`PackedRows`). Lines in their usual shape are decoded as typed records, others as JSON
    values."""
    if task not in TASKS or line_count(text) > limits.PREDICTION_LINES:
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
    plainest shape (:func:`corpus.loading.reading.records_at_once`) decoded without being made a text first."""
    objs = records_at_once(data, _TYPED[task], limits.PREDICTION_LINES) if task in TASKS else None
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
        labels = _mental_models_at_once(given)
        if labels is None:
            return None
        columns.update(labels)
    else:
        made = _next_actions_at_once(given, sessions, maps)
        if made is None:
            return None
        columns["action_type"], columns["content"], cells = _few_texts(made[0]), made[1], made[2]
    extras = _extras_at_once(given)
    if extras is None:
        return None
    columns.update(extras)
    if cells is None:
        return PackedRows(pd.DataFrame(columns))
    return PackedRows(pd.DataFrame(columns), cells.pairs, cells.counts, list(columns).index("content") + 1)


def _mental_models_at_once(given: _Given) -> dict[str, Any] | None:
    """The dimension columns of mental-model lines, each label as its code, as
    :func:`corpus.predictions.lines._check_mental_model` reads them; None when a label is unknown."""
    columns: dict[str, Any] = {}
    for dim in DIMENSIONS:
        values = given.fields[dim]
        if given.typed:  # (every label a code or a wording: looked up once each)
            named = {v: label_code(dim, v) for v in set(values)}
            codes = list(map(named.__getitem__, values))
        else:
            named = {v: label_code(dim, v) for v in set(v for v in values if type(v) is str)}
            codes = [named[v] if type(v) is str else label_code(dim, v) if type(v) is dict else None for v in values]
        if None in codes:
            return None
        columns[dim] = _few_texts(cast(list[str], codes))
    return columns


def _extras_at_once(given: _Given) -> dict[str, list[Any]] | None:
    """The columns of the lines' extra fields (NaN where a line does not give one); None when one
    would be left out with a warning: a reserved name, or a value no string, number or boolean."""
    columns: dict[str, list[Any]] = {}
    for name, values in given.extras.items():
        if _reserved(name) or not all(
            v is None or v is msgspec.UNSET or isinstance(v, (str, int, float)) for v in values
        ):
            return None
        columns[name] = [float("nan") if v is msgspec.UNSET else v for v in values]
    return columns


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
    session): a dataset being read gives its sessions' outlines (:class:`corpus.loading.validate.ActionRefs`),
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
    :func:`corpus.predictions.lines._check_next_action` reads them; None when that would report
    anything. Checked a column at a time: a message's content is a text, a drawing's a non-empty
    list of cells inside its session's grid, an undo's or a reset's empty."""
    types = _types_at_once(given)
    if types is None:
        return None
    given_content = given.fields["content"]
    if _BOTH in given_content:  # (compared by identity first: no text or list equals it)
        return None
    content: list[Any] = [None if c is msgspec.UNSET else c for c in given_content]
    kinds = np.asarray(types, dtype=object)
    message = kinds == "message"
    drawing = (kinds == "draw") | (kinds == "erase")
    if not _contents_of_their_types(content, message, drawing):
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
    return types, contents, _Cells(pairs, counts)


def _types_at_once(given: _Given) -> list[str] | None:
    """The action type of each next-action line as the schema names it; None when a line names none."""
    given_types = given.fields["action_type"]
    types: list[str | None] = (  # (typed lines give every action type as a text)
        list(map(schema.ACTION_TYPE_OF.get, given_types))
        if given.typed
        else [schema.ACTION_TYPE_OF.get(k) if type(k) is str else None for k in given_types]
    )
    if None in types:  # (in capitals or with spaces, or no type at all)
        types = [t or _action_type(k) for t, k in zip(types, given_types)]
        if None in types:
            return None
    return cast(list[str], types)


def _contents_of_their_types(content: list[Any], message: np.ndarray, drawing: np.ndarray) -> bool:
    """Whether each message's content (where ``message``) is a text, each drawing's (where
    ``drawing``) a list, and every other line's empty."""
    return (
        set(map(type, compress(content, message))) <= {str}
        and set(map(type, compress(content, drawing))) <= {list}
        and not any(c not in (None, "", []) for c in compress(content, ~(message | drawing)))
    )


def _action_type(kind: Any) -> str | None:
    """The action type a line names not as written (in capitals or with spaces); None for none."""
    return schema.ACTION_TYPE_OF.get(kind.strip().lower()) if isinstance(kind, str) and kind.strip() else None


def _grid(map_id: str, maps: Mapping[str, Any]) -> tuple[int, int]:
    """(rows, cols) of a map; without the map, bounds no cell reaches (the dataset reader reports it)."""
    grid = maps[map_id].grid_size if map_id in maps else _NO_GRID
    return int(grid[0]), int(grid[1])


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
