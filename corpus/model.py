"""The data model: datasets, sessions, actions, mental-model labels, checkpoints (maps:
:mod:`corpus.gridmap`, re-exported here; model predictions: :mod:`corpus.predictions`).

Validated with pydantic. Messages are written for the person who has to fix the file, so they
name the expected values. Files are validated in strict mode (:func:`corpus.loading.reading.parse`):
nothing is coerced, so ``"3"`` is no integer and ``"yes"`` no boolean; models built in code are
validated as usual. No number may be NaN or infinite. Checks that need more than one record
(cells outside the grid, duplicate action indices, timestamps going backwards, missing maps) and
the limits on seconds live in :mod:`corpus.loading.validate`.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal, cast

from pydantic import (
    BeforeValidator,
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from corpus import schema
from corpus.gridmap import (  # noqa: F401  (re-exported: the map model is part of the data model)
    BBox,
    Cell,
    Corners,
    GridMap,
    Landmark,
    LandmarkSummary,
    summarize_cells,
)
from corpus.loading.report import describe
from corpus.modelbase import StrictModel as _Strict

# ---------------------------------------------------------------------------------------------
# Labels
# ---------------------------------------------------------------------------------------------


def _label_shorthand(value: Any) -> Any:
    """Accept ``"t3"`` as shorthand for ``{"code": "t3"}``."""
    if isinstance(value, str):
        return {"code": value}
    return value


class Label(_Strict):
    """One categorical mental-model answer: the code and its full wording.

    ``other_text`` holds the participant's own words when the code is ``other``.
    """

    dimension: str = Field(default="", exclude=True)
    code: str
    text: str = ""
    other_text: str | None = None

    @staticmethod
    def normalize(dimension: str, value: Any) -> Any:
        """Check a raw label (dict or code string) on a dimension and fill in its wording.

        Runs before the model is built, on plain data: loading 100,000 actions stays fast.
        """
        value = _label_shorthand(value)
        if not isinstance(value, dict) or not isinstance(value.get("code"), str):
            return value  # let pydantic report the type error
        for key in ("text", "other_text"):
            if value.get(key) is not None and not isinstance(value[key], str):
                raise ValueError(f"{key}: expected a string, got {describe(value[key])}")
        codes = _codes(dimension)
        raw = value["code"]
        code = raw.strip().lower()
        if code not in codes and code != schema.OTHER:
            expected = ", ".join([*codes, schema.OTHER])
            raise ValueError(f"unknown {dimension} code '{raw}' (expected one of {expected})")
        expected_text = schema.wording(dimension, code)
        text = value.get("text") or ""
        if text and isinstance(text, str) and text.strip() != expected_text:
            raise ValueError(
                f"wording '{text}' does not match {dimension} code '{code}' (which reads '{expected_text}')"
            )
        other = value.get("other_text")
        if code == schema.OTHER and not (other or "").strip():
            raise ValueError(f"{dimension} is 'other' but other_text is empty")
        return {**value, "code": code, "text": expected_text, "dimension": dimension}

    def check(self, dimension: str) -> Label:
        """Check an already built label (for labels made in code)."""
        return Label.model_validate(Label.normalize(dimension, self.model_dump(include={"code", "text", "other_text"})))

    @property
    def short(self) -> str:
        return schema.SHORT_NAMES.get(self.code, self.code)


_LABEL_FIELDS = frozenset({"code", "text", "other_text"})


def _codes(dimension: str) -> dict[str, str]:
    return schema.MISALIGNMENT_REASON if dimension == "misalignment_reason" else schema.DIMENSIONS[dimension]


@functools.lru_cache(maxsize=200_000)
def _normalized(dimension: str, code: str, text: str | None, other_text: str | None) -> Label:
    """The label of ``dimension`` made of these strings, checked by :meth:`Label.normalize` and
    built once: the same instance whenever the same label is read again.

    A corpus repeats a few dozen distinct labels hundreds of thousands of times (a million actions
    hold three million labels): each distinct one is checked and built once, and shared, it takes
    no memory of its own. A bad label raises, and exceptions are not cached. A label is never
    changed once read.
    """
    value = {"code": code}
    if text is not None:
        value["text"] = text
    if other_text is not None:
        value["other_text"] = other_text
    return Label.model_validate(Label.normalize(dimension, value))


def _dimension_label(dimension: str) -> BeforeValidator:
    """The validator that reads a label of ``dimension`` from a code, an object with a code or a Label."""

    def before(value: Any) -> Any:
        if isinstance(value, str):
            return _normalized(dimension, value, None, None)
        if isinstance(value, dict) and value.keys() <= _LABEL_FIELDS:
            code, text, other = value.get("code"), value.get("text"), value.get("other_text")
            if isinstance(code, str) and isinstance(text, (str, type(None))) and isinstance(other, (str, type(None))):
                return _normalized(dimension, code, text, other)
        if isinstance(value, Label):
            value = value.model_dump(include={"code", "text", "other_text"})
            return _normalized(dimension, value["code"], value["text"], value["other_text"])
        if not isinstance(value, dict):
            raise ValueError(
                f"expected a {dimension} code such as '{next(iter(_codes(dimension)))}' or an object with a code, got {describe(value)}"
            )
        return Label.normalize(dimension, value)

    return BeforeValidator(before)


TeamGoalLabel = Annotated[Label, _dimension_label("team_goal")]
PartnerIntentLabel = Annotated[Label, _dimension_label("partner_intent")]
SelfReasoningLabel = Annotated[Label, _dimension_label("self_reasoning")]
ReasonLabel = Annotated[Label, _dimension_label("misalignment_reason")]


class MentalModel(_Strict):
    """The actor's post-session annotation of one action (Table 5)."""

    team_goal: TeamGoalLabel
    partner_intent: PartnerIntentLabel
    self_reasoning: SelfReasoningLabel
    aligned: bool
    misalignment_reasons: list[ReasonLabel] = Field(default_factory=list)
    rationale: str = ""

    @model_validator(mode="after")
    def _reasons_only_when_not_aligned(self) -> MentalModel:
        if self.aligned and self.misalignment_reasons:
            raise ValueError("misalignment_reasons: given although aligned is true")
        return self


# ---------------------------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------------------------

MAX_ACTIONS = 10**9  # action indices are below this (a 64 MiB file holds far fewer actions)
MAX_SECONDS = 7 * 24 * 3600  # timestamps, durations and elapsed times: at most 7 days

Role = Literal["guide", "follower"]
ActionType = Literal["message", "draw", "erase", "undo", "reset"]


class Persona(_Strict):
    gender: Literal[schema.GENDERS] | None = None  # type: ignore[valid-type]
    age_group: Literal[schema.AGE_GROUPS] | None = None  # type: ignore[valid-type]
    education: Literal[schema.EDUCATION_LEVELS] | None = None  # type: ignore[valid-type]
    teamq: list[Annotated[int, Field(ge=0, le=4)]] | None = None

    @field_validator("teamq")
    @classmethod
    def _fourteen_items(cls, v: list[int] | None) -> list[int] | None:
        if v is not None and len(v) != len(schema.TEAMQ_ITEMS):
            raise ValueError(f"teamq has {len(v)} items; the TeamQ instrument has 14 (scored 0-4)")
        return v


class Participant(_Strict):
    role: Role
    id: str
    persona: Persona = Field(default_factory=Persona)


class Checkpoint(_Strict):
    """An in-session checkpoint response (the paper: at 25/50/75 % of drawing progress).

    ``index`` is the checkpoint's number as the source gives it: the sample corpus counts 1, 2, 3,
    the collaboration platform 0, 1, 2. People are shown :meth:`numbers`, which read the same for
    both."""

    role: Role
    index: int = Field(ge=0)
    progress: float = Field(ge=0, le=1)
    action_index: int = Field(ge=0)
    elapsed_s: float = Field(ge=0)
    team_goal: str = ""
    partner_intent: str = ""
    self_reasoning: str = ""

    @staticmethod
    def numbers(checkpoints: list[Checkpoint]) -> list[int]:
        """The number shown for each of a session's checkpoints: its place (1, 2, 3, ...) among the
        same participant's checkpoints, in order of ``index`` (then time), whatever the source's
        first index."""
        order = sorted(range(len(checkpoints)), key=lambda k: (checkpoints[k].index, checkpoints[k].elapsed_s, k))
        seen: dict[str, int] = {}
        out = [0] * len(checkpoints)
        for k in order:
            seen[checkpoints[k].role] = seen.get(checkpoints[k].role, 0) + 1
            out[k] = seen[checkpoints[k].role]
        return out


def _content_kind(value: Any) -> str | None:
    if isinstance(value, str):
        return "<text>"
    if isinstance(value, (list, tuple)):
        return "<cells>"
    return None


# Message text or the cells of a stroke, chosen by the value's JSON type, so a wrong value gets
# one message about what was expected instead of one per alternative.
Content = Annotated[
    Annotated[str, Tag("<text>")] | Annotated[list[Cell], Tag("<cells>")],
    Discriminator(
        _content_kind,
        custom_error_type="content_discriminator",
        custom_error_message="expected message text, a list of [row, col] cells, or null",
    ),
]


# Why a stroke (a draw or an erase), or the undo of one, comes with no cells (``no_cell_change``):
# the source does not carry the canvas it left (an ink image that is not there), or it does and no
# grid cell changed. Such an action changes nothing on the canvas, and undo passes it by
# (corpus.canvas): it is kept for what the actor did and said of it (its mental model).
NO_CELL_CHANGE = {
    "ink_missing": "ink image missing: the cells it changed are not known",
    "changed_no_cell": "changed no grid cell",
}
NoCellChange = Literal["ink_missing", "changed_no_cell"]
NO_CELL_CHANGE_TYPES = ("draw", "erase", "undo")


def _check_content(action_type: str, content: Any, no_cell_change: str | None = None) -> None:
    """A message holds text, a draw or erase its cells, an undo or reset nothing; an action with no
    cell change (a draw, erase or undo) holds nothing either."""
    if no_cell_change is not None:
        if action_type not in NO_CELL_CHANGE_TYPES:
            raise ValueError(f"no_cell_change: a {action_type} action cannot have it (only a draw, erase or undo)")
        if content is not None:
            raise ValueError(f"content: a {action_type} action with no cell change (no_cell_change) takes no content")
    elif action_type == "message":
        if not isinstance(content, str) or not content.strip():
            raise ValueError("content: a message needs non-empty text")
    elif action_type in schema.CELL_TYPES:
        if not isinstance(content, list) or not content:
            raise ValueError(
                f"content: a {action_type} action needs a non-empty list of [row, col] cells "
                "(or no_cell_change, saying why it has none)"
            )
    elif content not in (None, "", []):
        raise ValueError(f"content: a {action_type} action takes no content")


class Action(_Strict):
    index: int = Field(ge=0, lt=MAX_ACTIONS)
    timestamp: float = Field(ge=0, description="seconds since the session started")
    role: Role
    type: ActionType
    content: Content | None = None
    mental_model: MentalModel | None = None
    # Optional: why a draw, erase or undo has no cells (NO_CELL_CHANGE); absent for every other action.
    no_cell_change: NoCellChange | None = None
    # Optional: the collaboration platform's measure of the Follower's drawing after the action (its
    # ``metadata.route_pixel_ratio``: the drawing thinned to a line 8 px wide on an 810 x 1180 canvas,
    # as a share of that canvas's pixels).
    route_pixel_ratio: float | None = Field(default=None, ge=0, le=1)

    @model_validator(mode="after")
    def _content_fits_type(self) -> Action:
        _check_content(self.type, self.content, self.no_cell_change)
        if self.route_pixel_ratio is not None and self.type == "message":
            raise ValueError("route_pixel_ratio: a message does not change the drawing (only a drawing action has it)")
        return self

    @property
    def cells(self) -> list[Cell]:
        return self.content if isinstance(self.content, list) else []

    @property
    def text(self) -> str:
        return self.content if isinstance(self.content, str) else ""


class SessionMeta(_Strict):
    """What ``session.json`` holds: everything about a session except its actions."""

    id: str = Field(min_length=1)
    condition: str
    split: str
    map_id: str
    duration_s: float = Field(ge=0)
    final_accuracy: float | None = Field(default=None, ge=0, le=1)
    # A route deviation score the source records (HCRC: the corpus's "path dev", larger when the
    # drawn route strays further from the giver's); none when it records none.
    route_deviation: float | None = Field(default=None, ge=0)
    participants: list[Participant]
    checkpoints: list[Checkpoint] = Field(default_factory=list)
    notes: str = ""

    @field_validator("condition", "split")
    @classmethod
    def _known_value(cls, v: str, info: ValidationInfo) -> str:
        name = cast(str, info.field_name)  # a field validator is always told its field
        known = {"condition": schema.CONDITIONS, "split": schema.SPLITS}[name]
        if v not in known:
            raise ValueError(f"unknown {info.field_name} '{v}' (expected one of {', '.join(known)})")
        return v

    @field_validator("participants")
    @classmethod
    def _one_of_each_role(cls, v: list[Participant]) -> list[Participant]:
        roles = sorted(p.role for p in v)
        if roles != ["follower", "guide"]:
            raise ValueError(f"a session needs exactly one guide and one follower, got roles {roles}")
        return v

    def participant(self, role: str) -> Participant:
        return next(p for p in self.participants if p.role == role)


class Session(SessionMeta):
    actions: list[Action] = Field(default_factory=list)

    @property
    def meta(self) -> SessionMeta:
        return SessionMeta.model_validate(self.model_dump(exclude={"actions"}))


class DatasetInfo(_Strict):
    """What ``dataset.json`` holds."""

    name: str = Field(min_length=1)
    description: str = ""
    synthetic: bool
    label_schema_version: str = schema.LABEL_SCHEMA_VERSION
    conditions: list[str] = Field(default_factory=lambda: list(schema.CANVAS))
    format_version: int = 1
    generator: dict[str, Any] | None = None
    # Which kind of sessions the dataset holds: Map Task sessions (sessions/, maps/) or runs of two
    # agents cooking (runs/: corpus.kitchen.dataset), or a benchmark's items and runs of answers
    # (corpus.benchmark.dataset).
    domain: Literal["map_task", "kitchen", "benchmark"] = "map_task"

    @field_validator("label_schema_version")
    @classmethod
    def _known_schema(cls, v: str) -> str:
        if v != schema.LABEL_SCHEMA_VERSION:
            raise ValueError(f"unknown label_schema_version '{v}' (this version reads '{schema.LABEL_SCHEMA_VERSION}')")
        return v

    @field_validator("conditions")
    @classmethod
    def _known_conditions(cls, v: list[str]) -> list[str]:
        for c in v:
            if c not in schema.CONDITIONS:
                raise ValueError(f"unknown condition '{c}' (expected one of {', '.join(schema.CONDITIONS)})")
        return v


# ---------------------------------------------------------------------------------------------
# Details of a coding scheme's labels
# ---------------------------------------------------------------------------------------------


class ReferenceExpression(_Strict):
    """One landmark reference expression said in an action and its GMMT annotation: one line of
    ``labels/gmmt_expressions.jsonl``, the details behind the action's label in ``labels/gmmt.csv``.

    ``giver_landmark`` / ``follower_landmark`` are the landmark each participant had in mind
    (GMMT's ``<map>_<concept>[#ordinal]@<g|f>``; empty when that participant did not ground it).
    ``start_s`` / ``end_s`` are the expression's times in the source recording, when known (not
    the session's timestamps, which start at the first move)."""

    session_id: str = Field(min_length=1)
    action_index: int = Field(ge=0, lt=MAX_ACTIONS)
    coder: str = Field(min_length=1)
    ref_id: str = Field(min_length=1)
    expression: str = Field(min_length=1)
    speaker: Role
    giver_landmark: str = ""
    follower_landmark: str = ""
    status: Literal[tuple(schema.GMMT_STATUS)]  # type: ignore[valid-type]
    subtype: str = ""
    reason: str = ""
    utt_id: int | None = None
    start_s: float | None = Field(default=None, ge=0)
    end_s: float | None = Field(default=None, ge=0)
