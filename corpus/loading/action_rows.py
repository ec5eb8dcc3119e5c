"""A session's actions as the corpus's tables hold them (:class:`ActionColumns`), and the fast read
of a session's actions.jsonl that has nothing to report.

:func:`corpus.loading.validate.read_dataset` reads every action of a dataset. Building each one as a
validated :class:`corpus.model.Action` costs about four times parsing its JSON (its labels and
content are checked by Python validators), and a loaded corpus keeps only its tables and a few
whole sessions (:mod:`corpus.loading.session_store`). So a session is first read by
:func:`columns_at_once`: msgspec decodes each line into a typed record, checking every field's
JSON type, the role and the action type, and refusing unknown fields as it parses (in C); each
label is kept as its JSON text and looked up among its dimension's usual forms as written. The
columns are then taken a field at a time, and one pass over the actions makes the other checks the
model and the reader make (content against the action type, indices, timestamps, cells inside the
grid, who draws, labels against the codebook). An action's optional fields (why it has no cell
change, the platform's route pixel ratio) make columns only when a session has them. It
gives up (None) at the first record with anything to say, an error or a warning, or in a form it
does not take (a code in capitals, a label naming its dimension):
the session is then read as :class:`~corpus.model.Action` objects, which word every problem. Tests
hold both reads to the same columns, and hold that what the fast read takes the model takes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Literal, cast, get_args

import msgspec

from corpus import schema
from corpus.canvas import UNCHANGED
from corpus.loading.reading import jsonl_lines, records_at_once, text_of
from corpus.model import MAX_SECONDS, NO_CELL_CHANGE, NO_CELL_CHANGE_TYPES, Action

Content = str | Sequence[Sequence[int]] | None


@dataclass
class ActionColumns:
    """A session's actions, one list per field, in file order: each action's content (message text
    or cells) and its mental model as codes (None without one; the misalignment reasons
    comma-separated, "" without any). The optional fields, ``no_cell_change`` and
    ``route_pixel_ratio``, are None when no action of the session has them (else one value per
    action, None where an action has none)."""

    index: list[int] = field(default_factory=list)
    timestamp: list[float] = field(default_factory=list)
    role: list[str] = field(default_factory=list)
    type: list[str] = field(default_factory=list)
    content: list[Content] = field(default_factory=list)
    team_goal: list[str | None] = field(default_factory=list)
    partner_intent: list[str | None] = field(default_factory=list)
    self_reasoning: list[str | None] = field(default_factory=list)
    aligned: list[bool | None] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    rationale: list[str] = field(default_factory=list)
    in_grid: bool = False  # every drawing's cells checked: (row, col) pairs of integers inside the grid
    no_cell_change: list[str | None] | None = None
    route_pixel_ratio: list[float | None] | None = None

    def __len__(self) -> int:
        return len(self.index)

    @classmethod
    def of(cls, actions: Sequence[Action]) -> ActionColumns:
        """The columns of actions built as models."""
        mms = [a.mental_model for a in actions]
        flags: list[str | None] = [a.no_cell_change for a in actions]
        ratios = [a.route_pixel_ratio for a in actions]
        return cls(
            index=[a.index for a in actions],
            timestamp=[a.timestamp for a in actions],
            role=[a.role for a in actions],
            type=[a.type for a in actions],
            content=[a.content for a in actions],
            team_goal=[m.team_goal.code if m else None for m in mms],
            partner_intent=[m.partner_intent.code if m else None for m in mms],
            self_reasoning=[m.self_reasoning.code if m else None for m in mms],
            aligned=[m.aligned if m else None for m in mms],
            reasons=[",".join(r.code for r in m.misalignment_reasons) if m else "" for m in mms],
            rationale=[m.rationale if m else "" for m in mms],
            no_cell_change=flags if flags.count(None) < len(flags) else None,
            route_pixel_ratio=ratios if ratios.count(None) < len(ratios) else None,
        )


# ---------------------------------------------------------------------------------------------
# The fast read
# ---------------------------------------------------------------------------------------------


class LabelObject(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A label given as an object, as a typed decode reads it: its code, and its wording or the
    text of an "other" (hashable: its usual forms are looked up at once). Prediction lines give
    labels so too (:mod:`corpus.predictions`)."""

    code: str
    text: str | None = None
    other_text: str | None = None


_Given = str | LabelObject  # (a label as a code alone, or as an object)


class _MentalModel(msgspec.Struct, forbid_unknown_fields=True):
    """A mental model as the fast read takes it: each label as its JSON text (looked up among its
    dimension's usual forms as written, :func:`_label`; decoded only when it is not one of them)."""

    team_goal: msgspec.Raw
    partner_intent: msgspec.Raw
    self_reasoning: msgspec.Raw
    aligned: bool
    misalignment_reasons: list[msgspec.Raw] = msgspec.field(default_factory=list)
    rationale: str = ""


_Role = Literal["guide", "follower"]
_Type = Literal["message", "draw", "erase", "undo", "reset"]
_NoCellChange = Literal["ink_missing", "changed_no_cell"]


class _Action(msgspec.Struct, forbid_unknown_fields=True):
    """An action record as the fast read takes it: the fields of :class:`~corpus.model.Action`,
    each of its JSON type (strictly: no number for a flag, no text for a number), a role and a type
    among the schema's; the other checks of values are made in :func:`columns_at_once`."""

    index: int
    timestamp: float
    role: _Role
    type: _Type
    content: str | list[tuple[int, int]] | None = None
    mental_model: _MentalModel | None = None
    no_cell_change: _NoCellChange | None = None
    route_pixel_ratio: float | None = None


assert get_args(_Role) == schema.ROLES and get_args(_Type) == schema.ACTION_TYPES  # (the schema's, as written)
assert get_args(_NoCellChange) == tuple(NO_CELL_CHANGE)


_DECODER = msgspec.json.Decoder(_Action)
_DECODE = _DECODER.decode
_DECODE_LABEL = msgspec.json.Decoder(_Given).decode
_NO_CONTENT: tuple[Any, ...] = (None, "", [])

# dimension -> code -> the one wording a label may give besides none ("other" reads "Other").
_WORDING = {
    dim: {**codes, schema.OTHER: schema.wording(dim, schema.OTHER)}
    for dim, codes in {**schema.DIMENSIONS, "misalignment_reason": schema.MISALIGNMENT_REASON}.items()
}


def _forms(wordings: dict[str, str]) -> dict[bytes, str]:
    """The usual forms of a dimension's labels as JSON texts, each mapped to its code: the shorthand
    (a code), and an object of the code alone or with its wording (or an empty or null text), as
    this project's writers and Python's ``json.dumps`` write them. A label written otherwise is
    decoded and read by :func:`_code`."""
    values: list[tuple[str, Any]] = []
    for code, wording in wordings.items():
        if code == schema.OTHER:  # (it needs its other_text)
            continue
        values.append((code, code))
        values.append((code, {"code": code}))
        for text in (wording, "", None):
            values += [(code, {"code": code, "text": text}), (code, {"text": text, "code": code})]
    forms: dict[bytes, str] = {}
    for code, value in values:
        for separators in ((",", ":"), (", ", ": ")):
            for ascii_only in (False, True):
                forms[json.dumps(value, separators=separators, ensure_ascii=ascii_only).encode()] = code
    return forms


_TEAM_GOAL, _PARTNER_INTENT, _SELF_REASONING, _REASON = (
    (_WORDING[d], _forms(_WORDING[d])) for d in ("team_goal", "partner_intent", "self_reasoning", "misalignment_reason")
)


def _label(dimension: tuple[dict[str, str], dict[bytes, str]], raw: msgspec.Raw) -> str | None:
    """The code of a label (its JSON text) as :class:`~corpus.model.Label` reads it (:func:`_code`),
    its usual forms looked up at once; None when it is not a label of the models' parser's reading."""
    wordings, forms = dimension
    code = forms.get(bytes(raw))
    if code is not None:
        return code
    try:
        value = _DECODE_LABEL(raw)
    except msgspec.DecodeError:  # (a ValidationError is one)
        return None
    return _code(wordings, value)


def _code(wordings: dict[str, str], value: _Given) -> str | None:
    """The code of a label as :class:`~corpus.model.Label` reads it; None when it would not, or
    would only after changing it (a code in capitals or with spaces)."""
    if isinstance(value, str):  # the shorthand ("other" needs its other_text: not a shorthand)
        return value if value in wordings and value != schema.OTHER else None
    code, text = value.code, value.text
    if code not in wordings:
        return None
    if not (text is None or text == "" or text == wordings[code]):
        return None
    if code == schema.OTHER and not (value.other_text or "").strip():
        return None
    return code


def _records(lines: list[str]) -> list[_Action] | None:
    """Each of JSON-lines ``lines`` as an action record, each line parsed on its own as the models'
    parser reads it (no NaN or Infinity, no lone surrogate); None when one does not parse or is
    not of an action record's shape and types."""
    try:
        return [_DECODE(line) for line in lines]
    except msgspec.DecodeError:  # (a ValidationError is one)
        return None


def columns_at_once(text: str, grid_size: Sequence[int]) -> ActionColumns | None:
    """The columns of a session's actions.jsonl (``text``) on a map of ``grid_size``, when it has
    nothing to report; None otherwise (read it as models, which word what there is). Each field is
    taken a column at a time; the checks across fields go once over the actions."""
    lines = [line for line in jsonl_lines(text) if line.strip()]
    records = _records(lines) if lines else None
    return None if records is None else _columns(records, grid_size)


def columns_of_bytes(data: bytes, grid_size: Sequence[int]) -> ActionColumns | None:
    """:func:`columns_at_once` of the bytes of a session's actions.jsonl: a file in its plainest
    shape (:func:`corpus.loading.reading.records_at_once`) is decoded without being made a text first."""
    records = records_at_once(data, _DECODER)
    if records is None:
        text = text_of(data)
        return None if text is None else columns_at_once(text, grid_size)
    return _columns(records, grid_size)


def _columns(records: list[_Action], grid_size: Sequence[int]) -> ActionColumns | None:
    """:func:`columns_at_once` of a session's decoded records."""
    index = list(map(_INDEX, records))
    timestamp = list(map(_TIMESTAMP, records))
    if index != list(range(len(records))) or timestamp != sorted(timestamp):
        return None
    if not (0.0 <= timestamp[0] and timestamp[-1] <= MAX_SECONDS):
        return None
    role, kind, content = list(map(_ROLE, records)), list(map(_TYPE, records)), list(map(_CONTENT, records))
    flags, ratios = list(map(_NO_CELL_CHANGE, records)), list(map(_ROUTE_PIXEL_RATIO, records))
    flagged, rated = flags.count(None) < len(flags), ratios.count(None) < len(ratios)
    if (flagged or rated) and not _optional_fields_fit(kind, content, flags, ratios):
        return None
    # (an action with no cell change is checked as the canvas takes it: a step that changes nothing)
    checked = [UNCHANGED if f is not None else k for k, f in zip(kind, flags)] if flagged else kind
    rows, cols = int(grid_size[0]), int(grid_size[1])
    for who, what, given in zip(role, checked, content):
        if what == "message":
            if type(given) is not str or not given.strip():
                return None
        elif who == "guide":  # (only the follower draws: a guide's drawing is warned about)
            return None
        elif what == "draw" or what == "erase":
            if type(given) is not list or not given or not all(0 <= r < rows and 0 <= c < cols for r, c in given):
                return None
        elif given not in _NO_CONTENT:
            return None
    labels = _mental_models(list(map(_MENTAL_MODEL, records)))
    if labels is None:
        return None
    return ActionColumns(
        index,
        timestamp,
        role,
        kind,
        content,
        *labels,
        in_grid=True,
        no_cell_change=cast(list[str | None], flags) if flagged else None,
        route_pixel_ratio=ratios if rated else None,
    )


def _optional_fields_fit(
    kind: list[str], content: list[Content], flags: list[str | None], ratios: list[float | None]
) -> bool:
    """Whether each action's optional fields are as the model takes them: no cell change only on a
    draw, erase or undo without content, a route pixel ratio from 0 to 1 and not on a message."""
    for what, given, flag, ratio in zip(kind, content, flags, ratios):
        if flag is not None and (what not in NO_CELL_CHANGE_TYPES or given is not None):
            return False
        if ratio is not None and (what == "message" or not 0.0 <= ratio <= 1.0):
            return False
    return True


_INDEX, _TIMESTAMP, _ROLE, _TYPE, _CONTENT, _MENTAL_MODEL, _NO_CELL_CHANGE, _ROUTE_PIXEL_RATIO = (
    attrgetter(name)
    for name in (
        "index",
        "timestamp",
        "role",
        "type",
        "content",
        "mental_model",
        "no_cell_change",
        "route_pixel_ratio",
    )
)


_Labels = tuple[list[str | None], list[str | None], list[str | None], list[bool | None], list[str], list[str]]


def _mental_models(models: list[_MentalModel | None]) -> _Labels | None:
    """The label columns of ActionColumns (team goal to rationale) of each action's mental model;
    None when one would not be read as it is."""
    team_goal: list[str | None] = []
    partner_intent: list[str | None] = []
    self_reasoning: list[str | None] = []
    aligned: list[bool | None] = []
    reasons: list[str] = []
    rationale: list[str] = []
    for m in models:
        if m is None:
            team_goal.append(None)
            partner_intent.append(None)
            self_reasoning.append(None)
            aligned.append(None)
            reasons.append("")
            rationale.append("")
            continue
        goal = _label(_TEAM_GOAL, m.team_goal)
        intent = _label(_PARTNER_INTENT, m.partner_intent)
        reasoning = _label(_SELF_REASONING, m.self_reasoning)
        if goal is None or intent is None or reasoning is None:
            return None
        given = m.misalignment_reasons
        if given:
            if m.aligned:
                return None
            codes = [_label(_REASON, v) for v in given]
            if None in codes:
                return None
            reasons.append(",".join(cast(list[str], codes)))
        else:
            reasons.append("")
        team_goal.append(goal)
        partner_intent.append(intent)
        self_reasoning.append(reasoning)
        aligned.append(m.aligned)
        rationale.append(m.rationale)
    return team_goal, partner_intent, self_reasoning, aligned, reasons, rationale
