"""The rows of the platform's action logs: one :class:`Row` per usable log line, every problem
reported with file, line and field.

A line is validated by pydantic models (:class:`_LogLine` for what every line holds, then one
model per kind of action), whose validators word each problem; lines whose action failed or is
not part of the Map Task are left out with a warning."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, NamedTuple

from pydantic import AliasPath, BaseModel, ConfigDict, Field, PlainValidator, model_validator

from corpus import schema
from corpus.importers.asciimap import DEFAULT_INK_SHARE
from corpus.loading.reading import iter_jsonl, validated
from corpus.loading.report import WARNING, Report, describe, shown
from corpus.model import Cell

DRAW_STOP = {"brush_release": "brush", "eraser_release": "eraser", "mouse_leave": None}
TOOL_CLICKS = {"reset", "undo", "brush", "eraser"}
# The platform's logs record neither the condition nor the split: said so, never guessed.
DEFAULT_CONDITION = schema.NOT_RECORDED
DEFAULT_SPLIT = schema.NOT_RECORDED


@dataclass
class Row:
    """One usable row of a participant's log."""

    file: str
    line: int
    order: int  # position over all files, to keep ties in file order
    action_id: str
    when: datetime
    elapsed: float | None
    session_id: str
    session_name: str
    participant_id: str
    kind: str  # message | stroke | reset | undo | tool
    text: str = ""
    tool: str | None = None  # stroke: brush / eraser / None (unknown: the last selected tool)
    map_image: str | None = None
    filled: list[Cell] | None = None
    receiver: str | None = None
    folder: Path = field(default_factory=Path)
    route_pixel_ratio: float | None = None  # metadata.route_pixel_ratio: the platform's measure of the drawing

    @property
    def where(self) -> str:
        return f"line {self.line}"


@dataclass
class PlatformOptions:
    """The import's options (docs/importers.md): condition and split of the sessions, the ink share
    that fills a cell, the grid to rasterize ink onto, a map file, landmark names, and roles by
    participant id (or id prefix)."""

    condition: str | None = None
    split: str = DEFAULT_SPLIT
    ink_share: float = DEFAULT_INK_SHARE
    grid: tuple[int, int] | None = None
    map_path: Path | None = None
    landmark_names: Path | None = None
    roles: dict[str, str] = field(default_factory=dict)


def parse_time(value: Any) -> datetime | None:
    """ISO-8601 with or without ``Z`` / offset; a time without zone is taken as UTC."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        t = datetime.fromisoformat(text)
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t


def _cells_of(value: Any) -> list[Cell] | None:
    """``["3,4", "3,5"]`` or ``[[3, 4], [3, 5]]`` -> [(3, 4), (3, 5)]; None if malformed."""
    if not isinstance(value, list):
        return None
    out: list[Cell] = []
    for item in value:
        if isinstance(item, str):
            parts = item.split(",")
            if len(parts) != 2:
                return None
            try:
                r, c = int(parts[0].strip()), int(parts[1].strip())
            except ValueError:
                return None
        elif (
            isinstance(item, (list, tuple))
            and len(item) == 2
            and all(isinstance(x, int) and not isinstance(x, bool) for x in item)
        ):
            r, c = item
        else:
            return None
        out.append((r, c))
    return out


def read_rows(logs: list[Path], root: Path, report: Report) -> list[Row]:
    """Every usable row of the logs; malformed rows are reported with file, line and field."""
    rows: list[Row] = []
    order = 0
    for path in logs:
        rel = str(path.relative_to(root))
        last_tool: dict[str, str] = {}
        for lineno, obj in iter_jsonl(path, report, rel):
            order += 1
            row = _read_row(obj, rel, lineno, order, path.parent, report, last_tool)
            if row is not None:
                rows.append(row)
    return rows


def _read_row(
    obj: dict[str, Any], rel: str, lineno: int, order: int, folder: Path, report: Report, last_tool: dict[str, str]
) -> Row | None:
    """One log line as a row; None when it has errors or is left out (each reported)."""
    rec = f"line {lineno}"
    line = validated(_LogLine, obj, report, rel, rec)
    if line is None or not _successful(line, report, rel, rec):
        return None
    action = _action(obj, line, report, rel, rec, last_tool)
    if action is None:
        return None
    return Row(
        file=rel,
        line=lineno,
        order=order,
        action_id=line.action_id or f"{rel}:{lineno}",
        when=line.timestamp,
        elapsed=line.session_elapsed_seconds,
        session_id=line.session_id,
        session_name=line.session_name,
        participant_id=line.participant_id,
        kind=action.kind,
        text=action.text,
        tool=action.tool,
        map_image=line.map_image,
        filled=line.filled,
        receiver=action.receiver,
        folder=folder,
        route_pixel_ratio=line.route_pixel_ratio,
    )


def _successful(line: _LogLine, report: Report, rel: str, rec: str) -> bool:
    """Whether the action succeeded; any other result is left out with a warning."""
    if line.result in (None, "success"):
        return True
    report.add(
        rel,
        rec,
        "result",
        f"{line.action_type} with result {shown(line.result)} left out (only successful actions are imported)",
        WARNING,
    )
    return False


def _action(
    obj: dict[str, Any], line: _LogLine, report: Report, rel: str, rec: str, last_tool: dict[str, str]
) -> _Action | None:
    """What the line does, by its action type: a message, a stroke, a tool click; None when the
    fields of that kind of action have errors, or the action is left out (each reported)."""
    if line.action_type == "send_message":
        message = validated(_MessageLine, obj, report, rel, rec)
        return None if message is None else _Action("message", message.action_content, receiver=message.receiver)
    if line.action_type == "map_draw_stop":
        stroke = validated(_StrokeLine, obj, report, rel, rec)
        last_selected = last_tool.get(line.participant_id, "brush")
        return None if stroke is None else _Action("stroke", stroke.action_content, tool=stroke.tool(last_selected))
    if line.action_type == "map_tool_click":
        click = validated(_ToolClickLine, obj, report, rel, rec, severity=WARNING)
        return None if click is None else _tool_click(click.action_content, line.participant_id, last_tool)
    report.add(
        rel, rec, "action_type", f"action type {shown(line.action_type)} is not part of the Map Task; left out", WARNING
    )
    return None


def _tool_click(tool: str, participant: str, last_tool: dict[str, str]) -> _Action:
    """Reset and undo act on the canvas; selecting the brush or the eraser is remembered as the
    participant's last tool selection."""
    if tool not in ("brush", "eraser"):
        return _Action(tool)
    last_tool[participant] = tool
    return _Action("tool", tool)


class _Action(NamedTuple):
    """What a usable line does: its kind of row and what that kind carries."""

    kind: str  # message | stroke | reset | undo | tool
    text: str = ""
    tool: str | None = None
    receiver: str | None = None


# -- what a log line holds --------------------------------------------------------------------
# Each field's validator decides what it accepts and words the problem it finds; the reader
# reports every problem with file, line and field, in the order the fields are declared.

# Defaults of fields whose validator also judges a line without them (every default is validated).
_NULL: Any = None  # the field is read as null
_ABSENT: Any = object()  # the field is read as absent (where that differs from null)


def _required_text(v: Any) -> str:
    if v is None:
        raise ValueError("required field is missing")
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"expected a non-empty string, got {shown(v)}")
    return v.strip()


def _iso_time(v: Any) -> datetime:
    when = parse_time(v)
    if when is None:
        raise ValueError(f"not an ISO-8601 time: {shown(v)}")
    return when


def _seconds(v: Any) -> float | None:
    if v is None:
        return None
    seconds = _finite_number(v)
    if seconds is None or seconds < 0:
        raise ValueError(f"expected a number of seconds >= 0, got {shown(v)}")
    return seconds


def _finite_number(v: Any) -> float | None:
    """A JSON number as a finite float; None for anything else (a boolean, a string, an integer
    beyond the range of floating point)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        number = float(v)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _object(v: Any) -> dict[str, Any]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ValueError(f"expected a JSON object, got {describe(v)}")
    return v


def _file_path(v: Any) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str):
        raise ValueError(f"expected a file path, got {shown(v)}")
    return v.strip() or None


def _filled_cells(v: Any) -> list[Cell] | None:
    if v is _ABSENT:
        return None
    cells = _cells_of(v)
    if cells is None:
        raise ValueError('expected a list of "row,col" cells')
    return cells


def _pixel_ratio(v: Any) -> float | None:
    if v is None:
        return None
    ratio = _finite_number(v)
    if ratio is None or not 0 <= ratio <= 1:
        raise ValueError(f"expected the share of the canvas the drawing covers, a number from 0 to 1, got {shown(v)}")
    return ratio


def _message_text(v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise ValueError(f"a message needs non-empty text, got {shown(v)}")
    return v.strip()


def _stroke_end(v: Any) -> str:
    if not isinstance(v, str) or v not in DRAW_STOP:
        raise ValueError(f"unknown stroke end {shown(v)} (expected one of {', '.join(DRAW_STOP)})")
    return v


def _tool_name(v: Any) -> str:
    if not isinstance(v, str) or v not in TOOL_CLICKS:
        raise ValueError(f"unknown tool {shown(v)} left out (expected one of {', '.join(sorted(TOOL_CLICKS))})")
    return v


def _id_or_empty(v: Any) -> str:
    return str(v) if v else ""


def _name(v: Any) -> str:
    return str(v or "").strip()


def _text_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


class _LogFields(BaseModel):
    """A log line's fields; the platform's other fields are not read."""

    model_config = ConfigDict(extra="ignore", validate_default=True)


class _LogLine(_LogFields):
    """What every usable log line holds, whatever its action type."""

    action_type: Annotated[str, PlainValidator(_required_text)]
    participant_id: Annotated[str, PlainValidator(_required_text)]
    session_id: Annotated[str, PlainValidator(_required_text)]
    timestamp: Annotated[datetime, PlainValidator(_iso_time)]
    session_elapsed_seconds: Annotated[float | None, PlainValidator(_seconds)] = None
    metadata: Annotated[dict[str, Any], PlainValidator(_object)] = _NULL
    map_image: Annotated[str | None, PlainValidator(_file_path)] = None
    filled: Annotated[list[Cell] | None, PlainValidator(_filled_cells)] = Field(
        _ABSENT, validation_alias=AliasPath("metadata", "filledCells")
    )
    route_pixel_ratio: Annotated[float | None, PlainValidator(_pixel_ratio)] = Field(
        None, validation_alias=AliasPath("metadata", "route_pixel_ratio")
    )
    result: Any = None
    action_id: Annotated[str, PlainValidator(_id_or_empty)] = _NULL
    session_name: Annotated[str, PlainValidator(_name)] = _NULL


class _MessageLine(_LogFields):
    """A message: its text, and whom it was sent to when the log says."""

    action_content: Annotated[str, PlainValidator(_message_text)] = _NULL
    receiver: Annotated[str | None, PlainValidator(_text_or_none)] = Field(
        None, validation_alias=AliasPath("metadata", "receiver")
    )


class _StrokeLine(_LogFields):
    """The end of a stroke, and the tool that drew it when the log names it."""

    action_content: Annotated[str, PlainValidator(_stroke_end)] = _NULL
    stroke_tool: Any = Field(None, validation_alias=AliasPath("metadata", "stroke_tool"))

    @model_validator(mode="after")
    def _known_tool(self) -> _StrokeLine:
        """The stroke tool, checked once the stroke end is known to be good."""
        if self.stroke_tool not in (None, "brush", "eraser"):
            raise ValueError(
                f"metadata.stroke_tool: unknown stroke tool {shown(self.stroke_tool)} (expected brush or eraser)"
            )
        return self

    def tool(self, last_selected: str) -> str:
        """The stroke's tool. Older logs name none and log every release as brush_release: the
        tool is then the participant's last tool selection (brush until one is made)."""
        if self.stroke_tool is not None:
            return str(self.stroke_tool)
        return "eraser" if self.action_content == "eraser_release" else last_selected


class _ToolClickLine(_LogFields):
    """A click on a tool: reset, undo, or the selection of the brush or the eraser."""

    action_content: Annotated[str, PlainValidator(_tool_name)] = _NULL
