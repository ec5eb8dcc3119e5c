"""The data model: datasets, maps, sessions, actions, mental-model labels, checkpoints.

Validated with pydantic. Messages are written for the person who has to fix the file, so they
name the expected values. Checks that need more than one record (cells outside the grid, duplicate
action indices, timestamps going backwards, missing maps) live in :mod:`corpus.validate`.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from corpus import schema

Cell = tuple[int, int]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


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
        codes = (
            schema.MISALIGNMENT_REASON
            if dimension == "misalignment_reason"
            else schema.DIMENSIONS[dimension]
        )
        raw = value["code"]
        code = raw.strip().lower()
        if code not in codes and code != schema.OTHER:
            expected = ", ".join([*codes, schema.OTHER])
            raise ValueError(f"unknown {dimension} code '{raw}' (expected one of {expected})")
        expected_text = schema.wording(dimension, code)
        text = value.get("text") or ""
        if text and isinstance(text, str) and text.strip() != expected_text:
            raise ValueError(
                f"wording '{text}' does not match {dimension} code '{code}' "
                f"(which reads '{expected_text}')"
            )
        other = value.get("other_text")
        if code == schema.OTHER and not (other or "").strip():
            raise ValueError(f"{dimension} is 'other' but other_text is empty")
        return {**value, "code": code, "text": expected_text, "dimension": dimension}

    def check(self, dimension: str) -> "Label":
        """Check an already built label (for labels made in code)."""
        return Label.model_validate(Label.normalize(dimension, self.model_dump(include={"code", "text", "other_text"})))

    @property
    def short(self) -> str:
        return schema.SHORT_NAMES.get(self.code, self.code)


_LABEL_FIELDS = frozenset({"code", "text", "other_text"})


@functools.lru_cache(maxsize=200_000)
def _normalized(dimension: str, code: str, text: str | None, other_text: str | None) -> dict:
    """:meth:`Label.normalize` of a label made only of strings, remembered.

    A corpus repeats a few dozen distinct labels hundreds of thousands of times: each distinct one
    is checked once. A bad label raises, and exceptions are not cached. The dict returned is
    shared: pydantic only reads it.
    """
    value = {"code": code}
    if text is not None:
        value["text"] = text
    if other_text is not None:
        value["other_text"] = other_text
    return Label.normalize(dimension, value)


def _dimension_label(dimension: str):
    def before(value: Any) -> Any:
        if isinstance(value, Label):
            value = value.model_dump(include={"code", "text", "other_text"})
        if isinstance(value, str):
            return _normalized(dimension, value, None, None)
        if isinstance(value, dict) and value.keys() <= _LABEL_FIELDS:
            code, text, other = value.get("code"), value.get("text"), value.get("other_text")
            if isinstance(code, str) and isinstance(text, (str, type(None))) and isinstance(other, (str, type(None))):
                return _normalized(dimension, code, text, other)
        return Label.normalize(dimension, value)

    return Annotated[Label, BeforeValidator(before)]


TeamGoalLabel = _dimension_label("team_goal")
PartnerIntentLabel = _dimension_label("partner_intent")
SelfReasoningLabel = _dimension_label("self_reasoning")
ReasonLabel = _dimension_label("misalignment_reason")


class MentalModel(_Strict):
    """The actor's post-session annotation of one action (Table 5)."""

    team_goal: TeamGoalLabel
    partner_intent: PartnerIntentLabel
    self_reasoning: SelfReasoningLabel
    aligned: bool
    misalignment_reasons: list[ReasonLabel] = Field(default_factory=list)
    rationale: str = ""

    @model_validator(mode="after")
    def _reasons_only_when_not_aligned(self) -> "MentalModel":
        if self.aligned and self.misalignment_reasons:
            raise ValueError("misalignment_reasons: given although aligned is true")
        return self


# ---------------------------------------------------------------------------------------------
# Maps
# ---------------------------------------------------------------------------------------------


class BBox(_Strict):
    row_min: int
    row_max: int
    col_min: int
    col_max: int


class Corners(_Strict):
    top_left: Cell
    top_right: Cell
    bottom_left: Cell
    bottom_right: Cell


class LandmarkSummary(_Strict):
    bbox: BBox
    corners: Corners
    centroid: tuple[float, float]
    boundary_cells: list[Cell]


def summarize_cells(cells: list[Cell]) -> LandmarkSummary:
    """Bounding box, corners, centroid and boundary cells of a landmark (Appendix D)."""
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    r0, r1, c0, c1 = min(rows), max(rows), min(cols), max(cols)
    cellset = set(cells)
    boundary = [
        (r, c)
        for r, c in cells
        if any((r + dr, c + dc) not in cellset for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))
    ]
    n = len(cells)
    return LandmarkSummary(
        bbox=BBox(row_min=r0, row_max=r1, col_min=c0, col_max=c1),
        corners=Corners(
            top_left=(r0, c0), top_right=(r0, c1), bottom_left=(r1, c0), bottom_right=(r1, c1)
        ),
        centroid=(round(sum(rows) / n, 2), round(sum(cols) / n, 2)),
        boundary_cells=sorted(boundary),
    )


class Landmark(_Strict):
    cells: list[Cell] = Field(min_length=1)
    type: str = "blocked"
    summary: LandmarkSummary | None = None

    @model_validator(mode="after")
    def _fill_summary(self) -> "Landmark":
        if len(set(self.cells)) != len(self.cells):
            raise ValueError("cells: lists the same cell twice")
        computed = summarize_cells(self.cells)
        if self.summary is not None and self.summary.bbox != computed.bbox:
            raise ValueError(
                f"summary.bbox: {self.summary.bbox.model_dump()} does not match the cells "
                f"(which span {computed.bbox.model_dump()})"
            )
        self.summary = computed
        return self

    @property
    def blocked(self) -> bool:
        return self.type == "blocked"


class GridMap(_Strict):
    """A Map Task map on a grid: the Guide's view (landmarks and route) and the Follower's.

    ``follower_landmarks`` is the Follower's map; it usually equals ``landmarks`` except for one
    misplaced landmark. When omitted, the Follower's map is the Guide's.
    """

    id: str
    name: str = ""
    grid_size: tuple[int, int]
    start_cell: Cell
    finish_cell: Cell | None = None
    landmarks: dict[str, Landmark]
    # Empty only for a map whose route is not known yet (an imported session's placeholder grid):
    # task metrics are then undefined rather than zero.
    route: list[Cell] = Field(default_factory=list)
    follower_landmarks: dict[str, Landmark] | None = None

    @field_validator("grid_size")
    @classmethod
    def _positive_grid(cls, v: tuple[int, int]) -> tuple[int, int]:
        if v[0] < 1 or v[1] < 1 or v[0] > 1000 or v[1] > 1000:
            raise ValueError(f"grid_size {list(v)} must be between 1 and 1000 in each direction")
        return v

    @model_validator(mode="after")
    def _cells_inside(self) -> "GridMap":
        rows, cols = self.grid_size

        def outside(cell: Cell) -> bool:
            return not (0 <= cell[0] < rows and 0 <= cell[1] < cols)

        if outside(self.start_cell):
            raise ValueError(f"start_cell: {list(self.start_cell)} is outside the {rows}x{cols} grid")
        for i, cell in enumerate(self.route):
            if outside(cell):
                raise ValueError(f"route[{i}]: {list(cell)} is outside the {rows}x{cols} grid")
        for i in range(1, len(self.route)):
            (r0, c0), (r1, c1) = self.route[i - 1], self.route[i]
            if max(abs(r1 - r0), abs(c1 - c0)) != 1:
                raise ValueError(
                    f"route: not a connected path: route[{i - 1}] {[r0, c0]} and "
                    f"route[{i}] {[r1, c1]} are not neighbours"
                )
        for view, landmarks in (("landmarks", self.landmarks), ("follower_landmarks", self.follower_landmarks or {})):
            for name, lm in landmarks.items():
                for cell in lm.cells:
                    if outside(cell):
                        raise ValueError(
                            f"{view}.{name}.cells: {list(cell)} is outside the {rows}x{cols} grid"
                        )
        return self

    @property
    def follower_view(self) -> dict[str, Landmark]:
        return self.follower_landmarks if self.follower_landmarks is not None else self.landmarks

    def misplaced_landmarks(self) -> list[str]:
        """Landmarks whose position differs between the Guide's and the Follower's map."""
        if self.follower_landmarks is None:
            return []
        names = set(self.landmarks) | set(self.follower_landmarks)
        return sorted(
            n
            for n in names
            if n not in self.landmarks
            or n not in self.follower_landmarks
            or set(self.landmarks[n].cells) != set(self.follower_landmarks[n].cells)
        )


# ---------------------------------------------------------------------------------------------
# Sessions
# ---------------------------------------------------------------------------------------------

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
    """An in-session checkpoint response (the paper: at 25/50/75 % of drawing progress)."""

    role: Role
    index: int = Field(ge=1)
    progress: float = Field(ge=0, le=1)
    action_index: int = Field(ge=0)
    elapsed_s: float = Field(ge=0)
    team_goal: str = ""
    partner_intent: str = ""
    self_reasoning: str = ""


class Action(_Strict):
    index: int = Field(ge=0)
    timestamp: float = Field(ge=0, description="seconds since the session started")
    role: Role
    type: ActionType
    content: str | list[Cell] | None = None
    mental_model: MentalModel | None = None

    @model_validator(mode="after")
    def _content_fits_type(self) -> "Action":
        if self.type == "message":
            if not isinstance(self.content, str) or not self.content.strip():
                raise ValueError("content: a message needs non-empty text")
        elif self.type in schema.CELL_TYPES:
            if not isinstance(self.content, list) or not self.content:
                raise ValueError(f"content: a {self.type} action needs a non-empty list of [row, col] cells")
        elif self.content not in (None, "", []):
            raise ValueError(f"content: a {self.type} action takes no content")
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
    participants: list[Participant]
    checkpoints: list[Checkpoint] = Field(default_factory=list)
    notes: str = ""

    @field_validator("condition")
    @classmethod
    def _known_condition(cls, v: str) -> str:
        if v not in schema.CONDITIONS:
            raise ValueError(f"unknown condition '{v}' (expected one of {', '.join(schema.CONDITIONS)})")
        return v

    @field_validator("split")
    @classmethod
    def _known_split(cls, v: str) -> str:
        if v not in schema.SPLITS:
            raise ValueError(f"unknown split '{v}' (expected one of {', '.join(schema.SPLITS)})")
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
    conditions: list[str] = Field(default_factory=lambda: list(schema.CONDITIONS))
    format_version: int = 1
    generator: dict[str, Any] | None = None

    @field_validator("label_schema_version")
    @classmethod
    def _known_schema(cls, v: str) -> str:
        if v != schema.LABEL_SCHEMA_VERSION:
            raise ValueError(
                f"unknown label_schema_version '{v}' (this version reads '{schema.LABEL_SCHEMA_VERSION}')"
            )
        return v

    @field_validator("conditions")
    @classmethod
    def _known_conditions(cls, v: list[str]) -> list[str]:
        for c in v:
            if c not in schema.CONDITIONS:
                raise ValueError(f"unknown condition '{c}' (expected one of {', '.join(schema.CONDITIONS)})")
        return v
