"""The rows of the platform's action logs: one :class:`Row` per usable log line, every problem
reported with file, line and field."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corpus.importers.asciimap import DEFAULT_INK_SHARE
from corpus.model import Cell
from corpus.reading import iter_jsonl
from corpus.report import shown
from corpus.validate import WARNING, Report

DRAW_STOP = {"brush_release": "brush", "eraser_release": "eraser", "mouse_leave": None}
TOOL_CLICKS = {"reset", "undo", "brush", "eraser"}
DEFAULT_CONDITION = "not_visible"
DEFAULT_SPLIT = "train"


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
    obj: dict, rel: str, lineno: int, order: int, folder: Path, report: Report, last_tool: dict[str, str]
) -> Row | None:
    rec = f"line {lineno}"
    ok = True

    def need_str(key: str) -> str | None:
        nonlocal ok
        v = obj.get(key)
        if v is None:
            report.add(rel, rec, key, "required field is missing")
            ok = False
            return None
        if not isinstance(v, str) or not v.strip():
            report.add(rel, rec, key, f"expected a non-empty string, got {shown(v)}")
            ok = False
            return None
        return v.strip()

    action_type = need_str("action_type")
    participant = need_str("participant_id")
    session_id = need_str("session_id")
    when = None
    if "timestamp" not in obj:
        report.add(rel, rec, "timestamp", "required field is missing")
        ok = False
    else:
        when = parse_time(obj["timestamp"])
        if when is None:
            report.add(rel, rec, "timestamp", f"not an ISO-8601 time: {shown(obj['timestamp'])}")
            ok = False
    elapsed = obj.get("session_elapsed_seconds")
    if elapsed is not None and (
        isinstance(elapsed, bool) or not isinstance(elapsed, (int, float)) or elapsed < 0 or not math.isfinite(elapsed)
    ):
        report.add(rel, rec, "session_elapsed_seconds", f"expected a number of seconds >= 0, got {shown(elapsed)}")
        ok = False
    metadata = obj.get("metadata")
    if metadata is None:
        metadata = {}
    elif not isinstance(metadata, dict):
        report.add(rel, rec, "metadata", f"expected a JSON object, got {type(metadata).__name__}")
        ok = False
        metadata = {}
    result = obj.get("result")
    content = obj.get("action_content")
    map_image = obj.get("map_image")
    if map_image is not None and not isinstance(map_image, str):
        report.add(rel, rec, "map_image", f"expected a file path, got {shown(map_image)}")
        ok = False
    filled = None
    if "filledCells" in metadata:
        filled = _cells_of(metadata["filledCells"])
        if filled is None:
            report.add(rel, rec, "metadata.filledCells", 'expected a list of "row,col" cells')
            ok = False
    if not ok or action_type is None:
        return None
    if result not in (None, "success"):
        report.add(
            rel,
            rec,
            "result",
            f"{action_type} with result {shown(result)} left out (only successful actions are imported)",
            WARNING,
        )
        return None

    base = dict(
        file=rel,
        line=lineno,
        order=order,
        action_id=str(obj.get("action_id") or f"{rel}:{lineno}"),
        when=when,
        elapsed=float(elapsed) if elapsed is not None else None,
        session_id=session_id or "",
        session_name=str(obj.get("session_name") or "").strip(),
        participant_id=participant or "",
        map_image=map_image.strip() if isinstance(map_image, str) and map_image.strip() else None,
        filled=filled,
        folder=folder,
    )
    if action_type == "send_message":
        if not isinstance(content, str) or not content.strip():
            report.add(rel, rec, "action_content", f"a message needs non-empty text, got {shown(content)}")
            return None
        receiver = metadata.get("receiver")
        return Row(
            **base, kind="message", text=content.strip(), receiver=receiver if isinstance(receiver, str) else None
        )
    if action_type == "map_draw_stop":
        if content not in DRAW_STOP:
            report.add(
                rel,
                rec,
                "action_content",
                f"unknown stroke end {shown(content)} (expected one of {', '.join(DRAW_STOP)})",
            )
            return None
        tool = metadata.get("stroke_tool")
        if tool is not None and tool not in ("brush", "eraser"):
            report.add(
                rel, rec, "metadata.stroke_tool", f"unknown stroke tool {shown(tool)} (expected brush or eraser)"
            )
            return None
        if tool is None:
            # Older logs name no stroke tool and log every release as brush_release: the tool is
            # the participant's last tool selection (brush until one is made).
            tool = "eraser" if content == "eraser_release" else last_tool.get(participant or "", "brush")
        return Row(**base, kind="stroke", text=str(content), tool=tool)
    if action_type == "map_tool_click":
        if content not in TOOL_CLICKS:
            report.add(
                rel,
                rec,
                "action_content",
                f"unknown tool {shown(content)} left out (expected one of {', '.join(sorted(TOOL_CLICKS))})",
                WARNING,
            )
            return None
        if content in ("brush", "eraser"):
            last_tool[participant or ""] = str(content)
            return Row(**base, kind="tool", text=str(content))
        return Row(**base, kind=str(content))
    report.add(
        rel, rec, "action_type", f"action type {shown(action_type)} is not part of the Map Task; left out", WARNING
    )
    return None
