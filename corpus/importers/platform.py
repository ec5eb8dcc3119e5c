"""Import session folders exported by the open-source collaboration research platform.

A session folder as the platform exports it (docs/importers.md has the details)::

    <participant_id>[.<anything>].jsonl      one action log per participant, one JSON row per action
    files/<action_id>_map_image.png          the Follower's ink layer after a stroke (image maps)
    *.txt                                    an ASCII grid map (grid maps)
    *annotation*.json                        optional: post-session annotation payloads
    *checkpoint*.jsonl / .json / .csv        optional: in-session checkpoint rows

Rows of every log are merged into one time-ordered action list per ``session_id``:
``send_message`` becomes a message; ``map_draw_stop`` (brush or eraser release, mouse_leave) a
draw or erase stroke; ``map_tool_click`` reset and undo become reset and undo, while brush and
eraser are tool selections (kept in the session notes, not edits). A stroke's cells are the
difference between the canvas before it and the canvas state it logged: ``metadata.filledCells``
on grid maps, the ink PNG rasterized onto the grid on image maps.
"""

from __future__ import annotations

import csv
import io
import math
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from corpus import schema
from corpus.importers.asciimap import (
    DEFAULT_INK_SHARE,
    grid_for_image,
    ink_alpha,
    ink_coverage,
    placeholder_map,
    read_ascii_map,
    safe_id,
)
from corpus.model import Action, Cell, Checkpoint, GridMap, MentalModel, Participant, Session
from corpus.validate import ERROR, WARNING, Report, iter_jsonl, read_json, read_text


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
    condition: str | None = None
    split: str = DEFAULT_SPLIT
    ink_share: float = DEFAULT_INK_SHARE
    grid: tuple[int, int] | None = None
    map_path: Path | None = None
    landmark_names: Path | None = None
    roles: dict[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# Reading the logs
# ---------------------------------------------------------------------------------------------


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
        t = t.replace(tzinfo=timezone.utc)
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
        elif isinstance(item, (list, tuple)) and len(item) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in item):
            r, c = item
        else:
            return None
        out.append((r, c))
    return out


def classify_files(folder: Path) -> dict[str, list[Path]]:
    """The files of an export folder by role: logs, annotations, checkpoints, maps, names."""
    out: dict[str, list[Path]] = {"logs": [], "annotations": [], "checkpoints": [], "maps": [], "names": []}
    for p in sorted(folder.rglob("*")):
        if not p.is_file() or any(part.startswith((".", "__MACOSX")) for part in p.relative_to(folder).parts):
            continue
        name = p.name.lower()
        if "checkpoint" in name and p.suffix.lower() in (".jsonl", ".json", ".csv"):
            out["checkpoints"].append(p)
        elif "annotation" in name and p.suffix.lower() == ".json":
            out["annotations"].append(p)
        elif "landmark" in name and "name" in name and p.suffix.lower() in (".json", ".txt"):
            out["names"].append(p)
        elif p.suffix.lower() == ".jsonl":
            out["logs"].append(p)
        elif p.suffix.lower() == ".txt" and p.parent.name != "files" and _looks_like_ascii_map(p):
            out["maps"].append(p)
    return out


def _looks_like_ascii_map(path: Path) -> bool:
    try:
        head = path.read_bytes()[:200_000].decode("utf-8", errors="replace")
    except OSError:
        return False
    body = set(head) - {"\n", "\r"}
    return bool(body) and body <= set("#.SF \t") and "S" in body


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


def _read_row(obj: dict, rel: str, lineno: int, order: int, folder: Path, report: Report,
              last_tool: dict[str, str]) -> Row | None:
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
            report.add(rel, rec, key, f"expected a non-empty string, got {v!r}")
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
            report.add(rel, rec, "timestamp", f"not an ISO-8601 time: {obj['timestamp']!r}")
            ok = False
    elapsed = obj.get("session_elapsed_seconds")
    if elapsed is not None and (isinstance(elapsed, bool) or not isinstance(elapsed, (int, float)) or elapsed < 0 or not math.isfinite(elapsed)):
        report.add(rel, rec, "session_elapsed_seconds", f"expected a number of seconds >= 0, got {elapsed!r}")
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
        report.add(rel, rec, "map_image", f"expected a file path, got {map_image!r}")
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
        report.add(rel, rec, "result", f"{action_type} with result {result!r} left out (only successful actions are imported)", WARNING)
        return None

    base = dict(
        file=rel, line=lineno, order=order, action_id=str(obj.get("action_id") or f"{rel}:{lineno}"),
        when=when, elapsed=float(elapsed) if elapsed is not None else None, session_id=session_id or "",
        session_name=str(obj.get("session_name") or "").strip(), participant_id=participant or "",
        map_image=map_image.strip() if isinstance(map_image, str) and map_image.strip() else None,
        filled=filled, folder=folder,
    )
    if action_type == "send_message":
        if not isinstance(content, str) or not content.strip():
            report.add(rel, rec, "action_content", f"a message needs non-empty text, got {content!r}")
            return None
        receiver = metadata.get("receiver")
        return Row(**base, kind="message", text=content.strip(), receiver=receiver if isinstance(receiver, str) else None)
    if action_type == "map_draw_stop":
        if content not in DRAW_STOP:
            report.add(rel, rec, "action_content",
                       f"unknown stroke end {content!r} (expected one of {', '.join(DRAW_STOP)})")
            return None
        tool = metadata.get("stroke_tool")
        if tool is not None and tool not in ("brush", "eraser"):
            report.add(rel, rec, "metadata.stroke_tool", f"unknown stroke tool {tool!r} (expected brush or eraser)")
            return None
        if tool is None:
            # Older logs name no stroke tool and log every release as brush_release: the tool is
            # the participant's last tool selection (brush until one is made).
            tool = "eraser" if content == "eraser_release" else last_tool.get(participant or "", "brush")
        return Row(**base, kind="stroke", text=str(content), tool=tool)
    if action_type == "map_tool_click":
        if content not in TOOL_CLICKS:
            report.add(rel, rec, "action_content",
                       f"unknown tool {content!r} left out (expected one of {', '.join(sorted(TOOL_CLICKS))})", WARNING)
            return None
        if content in ("brush", "eraser"):
            last_tool[participant or ""] = str(content)
            return Row(**base, kind="tool", text=str(content))
        return Row(**base, kind=str(content))
    report.add(rel, rec, "action_type", f"action type {action_type!r} is not part of the Map Task; left out", WARNING)
    return None


# ---------------------------------------------------------------------------------------------
# Roles
# ---------------------------------------------------------------------------------------------


def _role_from_filename(file: str) -> str | None:
    tokens = set(re.split(r"[^a-z]+", Path(file).name.lower()))
    found = {r for r in schema.ROLES if r in tokens}
    return found.pop() if len(found) == 1 else None


def assign_roles(rows: list[Row], options: PlatformOptions, report: Report, label: str) -> dict[str, str] | None:
    """participant_id -> role, from the options, the log file names, or who draws."""
    pids: list[str] = []
    files: dict[str, str] = {}
    for r in rows:
        if r.participant_id not in pids:
            pids.append(r.participant_id)
            files[r.participant_id] = r.file
    # A participant with no rows of their own (their log is missing) is known from messages.
    for r in rows:
        if r.kind == "message" and r.receiver and r.receiver not in pids:
            pids.append(r.receiver)
    roles: dict[str, str] = {}
    for pid in pids:
        given = options.roles.get(pid)
        if given is None:
            given = next((v for k, v in options.roles.items() if pid.startswith(k)), None)
        if given is not None:
            if given not in schema.ROLES:
                report.add("(options)", label, f"roles.{pid}", f"unknown role {given!r} (expected guide or follower)")
                return None
            roles[pid] = given
            continue
        by_name = _role_from_filename(files[pid]) if pid in files else None
        if by_name:
            roles[pid] = by_name
    drawers = {r.participant_id for r in rows if r.kind == "stroke" or r.map_image or r.filled is not None}
    for pid in pids:
        if pid not in roles and pid in drawers:
            roles[pid] = "follower"
    if len(pids) == 2:
        missing = [p for p in pids if p not in roles]
        if len(missing) == 1:
            other = next(p for p in pids if p != missing[0])
            roles[missing[0]] = "guide" if roles[other] == "follower" else "follower"
    counts = Counter(roles.values())
    if len(pids) != 2 or counts != Counter({"guide": 1, "follower": 1}):
        desc = ", ".join(f"{p[:8]}: {roles.get(p, 'unknown')}" for p in pids) or "none"
        report.add(
            files.get(pids[0], "(logs)") if pids else "(logs)", label, "participant_id",
            f"a session needs exactly one guide and one follower; found {len(pids)} participant(s) ({desc}). "
            "Name the logs <id>.guide*.jsonl / <id>.follower*.jsonl or pass roles={participant_id: role}",
        )
        return None
    return roles


# ---------------------------------------------------------------------------------------------
# Canvas states
# ---------------------------------------------------------------------------------------------


class InkCache:
    """Ink images read once each."""

    def __init__(self) -> None:
        self._alpha: dict[Path, Any] = {}

    def alpha(self, path: Path):
        if path not in self._alpha:
            self._alpha[path] = ink_alpha(path)
        return self._alpha[path]


def order_cells(cells: set[Cell], near: Cell | None = None, hint: list[Cell] | None = None) -> list[Cell]:
    """The cells of one stroke in a plausible drawing order.

    With ``hint`` (the platform's own insertion order on grid maps) that order is kept. Otherwise
    a walk from the end nearest ``near`` (the previous stroke's end) to the nearest unvisited cell,
    side neighbours before diagonal ones.
    """
    if hint is not None:
        seen = [c for c in hint if c in cells]
        rest = sorted(cells - set(seen))
        return seen + rest
    todo = set(cells)
    if not todo:
        return []

    def degree(c: Cell) -> int:
        return sum((c[0] + dr, c[1] + dc) in todo for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)

    ends = [c for c in todo if degree(c) <= 1] or list(todo)
    if near is not None:
        current = min(ends, key=lambda c: (max(abs(c[0] - near[0]), abs(c[1] - near[1])), c))
    else:
        current = min(ends)
    out = [current]
    todo.discard(current)
    while todo:
        r, c = current
        current = min(todo, key=lambda x: (max(abs(x[0] - r), abs(x[1] - c)), abs(x[0] - r) + abs(x[1] - c), x))
        out.append(current)
        todo.discard(current)
    return out


def build_session(
    rows: list[Row],
    roles: dict[str, str],
    grid_map: GridMap,
    map_kind: str,
    options: PlatformOptions,
    report: Report,
    cache: InkCache,
) -> tuple[list[Action], dict[str, int], list[str]]:
    """Actions in time order, the action-id index, and notes for the session."""
    rows = sorted(rows, key=lambda r: (r.when, r.order))
    grid = tuple(grid_map.grid_size)
    rows_n, cols_n = grid
    t0, _ = _time_origins(rows)

    current: set[Cell] = set()
    edits: list[tuple[set[Cell], set[Cell]]] = []  # what each kept edit turned on / off, for undo
    # The platform's own undo stack on image maps holds every stroke, including strokes that
    # changed no grid cell; undoing one of those changes no cell either.
    platform_stack: list[bool] = []
    actions: list[Action] = []
    ids: dict[str, int] = {}
    tools: Counter = Counter()
    left_out: Counter = Counter()
    last_end: Cell | None = None
    warned_shape: list[int] = []

    def add(row: Row, type_: str, content: Any = None) -> None:
        t = round(max(row.when.timestamp() - t0, 0.0), 3)
        actions.append(Action(index=len(actions), timestamp=t, role=roles[row.participant_id], type=type_, content=content))
        ids[row.action_id] = len(actions) - 1

    def snapshot(row: Row) -> set[Cell] | None:
        """The canvas the row logged, or None when it logged none."""
        if map_kind == "grid":
            cells = set(row.filled or [])
            outside = [c for c in cells if not (0 <= c[0] < rows_n and 0 <= c[1] < cols_n)]
            if outside:
                r, c = sorted(outside)[0]
                report.add(row.file, row.where, "metadata.filledCells",
                           f"cell {r},{c} is outside the {rows_n}x{cols_n} grid of map '{grid_map.id}'")
                return None
            return cells
        if map_kind != "image" or not row.map_image:
            return None
        path = (row.folder / row.map_image).resolve()
        if not path.is_file():
            return None
        try:
            alpha = cache.alpha(path)
        except Exception as exc:  # PIL raises many types for a broken image
            report.add(row.file, row.where, "map_image", f"cannot read the ink image {row.map_image}: {exc}")
            return None
        if not alpha.any():
            return set()
        h, w = alpha.shape
        if abs((w / h) / (cols_n / rows_n) - 1) > 0.08 and not warned_shape:
            warned_shape.append(row.line)
            report.add(row.file, row.where, "map_image",
                       f"the ink image is {w}x{h} px but the grid is {rows_n}x{cols_n} cells: the shapes differ, "
                       "so cells are stretched (further images of this session not reported)", WARNING)
        try:
            cov = ink_coverage(alpha, grid)
        except ValueError as exc:
            report.add(row.file, row.where, "map_image", str(exc))
            return None
        return {(int(r), int(c)) for r, c in zip(*((cov >= options.ink_share).nonzero()))}

    for row in rows:
        if row.kind == "message":
            add(row, "message", row.text)
        elif row.kind == "tool":
            tools[row.text] += 1
        elif row.kind == "reset":
            add(row, "reset")
            edits.append((set(), set(current)))
            current = set()
            platform_stack.clear()
        elif row.kind == "undo":
            if map_kind == "image" and platform_stack and not platform_stack[-1]:
                platform_stack.pop()
                report.add(row.file, row.where, "action_content",
                           "undo of a stroke that changed no grid cell changes no cell either; left out", WARNING)
                left_out["undo of a stroke that changed no cell"] += 1
                continue
            if platform_stack:
                platform_stack.pop()
            add(row, "undo")
            if edits:
                on, off = edits.pop()
                current = (current - on) | off
        elif row.kind == "stroke":
            state = snapshot(row)
            if state is None:
                if map_kind == "image" and row.map_image:
                    msg = f"ink image {row.map_image} not found"
                elif map_kind == "image":
                    msg = "the row names no ink image (map_image)"
                else:
                    msg = "no canvas state (no metadata.filledCells or map_image)"
                if not any(i.file == row.file and i.record == row.where and i.severity == ERROR for i in report.issues):
                    report.add(row.file, row.where, "map_image" if map_kind != "grid" else "metadata.filledCells",
                               f"{msg}: the {row.tool} stroke cannot be turned into cells and is left out", WARNING)
                left_out["strokes without a canvas state"] += 1
                continue
            added, removed = state - current, current - state
            cells, extra = (removed, added) if row.tool == "eraser" else (added, removed)
            type_ = "erase" if row.tool == "eraser" else "draw"
            if map_kind == "image":
                platform_stack.append(bool(cells))
            if not cells:
                report.add(row.file, row.where, "action_content",
                           f"the {row.tool} stroke ({row.text}) changed no grid cell; left out", WARNING)
                left_out["strokes that changed no cell"] += 1
                continue
            if extra:
                report.add(row.file, row.where, "action_content",
                           f"the {row.tool} stroke also {'added' if type_ == 'erase' else 'removed'} {len(extra)} cell(s); "
                           f"only its {type_} cells are kept", WARNING)
            hint = row.filled if map_kind == "grid" else None
            ordered = order_cells(cells, near=last_end, hint=hint)
            add(row, type_, ordered)
            last_end = ordered[-1]
            if type_ == "draw":
                edits.append((set(cells), set()))
                current |= cells
            else:
                edits.append((set(), set(cells)))
                current -= cells
    notes = []
    if tools:
        notes.append("tool selections (not edits): " + ", ".join(f"{k} {v}" for k, v in sorted(tools.items())))
    for what, n in sorted(left_out.items()):
        notes.append(f"left out: {n} {what}")
    return actions, ids, notes


# ---------------------------------------------------------------------------------------------
# Annotations and checkpoints
# ---------------------------------------------------------------------------------------------


_YES = {"yes", "y", "true", "1", "aligned"}
_NO = {"no", "n", "false", "0", "not_aligned"}


def _payloads(obj: Any) -> list[tuple[str, dict]]:
    """(record label, {action_id: annotation}) pairs from the shapes a payload file may take."""
    if isinstance(obj, list):
        out = []
        for k, item in enumerate(obj):
            if isinstance(item, dict) and isinstance(item.get("payload"), dict):
                out.append((f"row {k + 1}, ", item["payload"]))
        return out
    if isinstance(obj, dict):
        if isinstance(obj.get("payload"), dict):
            return [("", obj["payload"])]
        return [("", obj)]
    return []


def mental_model_of(ann: dict, report: Report, rel: str, rec: str) -> MentalModel | None:
    """The platform's q1-q4 annotation of one action as a :class:`MentalModel`."""
    errors = False

    def label(key: str, other_key: str) -> dict | None:
        nonlocal errors
        code = ann.get(key)
        if not isinstance(code, str) or not code.strip():
            report.add(rel, rec, key, f"required label is missing (got {code!r})")
            errors = True
            return None
        out = {"code": code.strip().lower()}
        if out["code"] == schema.OTHER:
            out["other_text"] = str(ann.get(other_key) or "")
        return out

    q1 = label("q1LabelId", "q1OtherText")
    q2 = label("q2LabelId", "q2OtherText")
    q3 = label("q3LabelId", "q3OtherText")
    q4 = ann.get("q4")
    aligned = None
    if isinstance(q4, bool):
        aligned = q4
    elif isinstance(q4, str) and q4.strip().lower() in _YES | _NO:
        aligned = q4.strip().lower() in _YES
    else:
        report.add(rel, rec, "q4", f"expected yes or no, got {q4!r}")
        errors = True
    reasons_raw = ann.get("q4Reasons") or []
    if isinstance(reasons_raw, str):
        reasons_raw = [x for x in re.split(r"[,;\s]+", reasons_raw) if x]
    if not isinstance(reasons_raw, list):
        report.add(rel, rec, "q4Reasons", f"expected a list of reason codes, got {reasons_raw!r}")
        errors = True
        reasons_raw = []
    reasons = []
    for code in reasons_raw:
        code = str(code).strip().lower()
        item = {"code": code}
        if code == schema.OTHER:
            item["other_text"] = str(ann.get("q4OtherText") or "")
        reasons.append(item)
    if errors:
        return None
    if aligned:
        reasons = []  # reasons are only asked for when not aligned
    try:
        return MentalModel(
            team_goal=q1, partner_intent=q2, self_reasoning=q3, aligned=aligned,
            misalignment_reasons=reasons, rationale=str(ann.get("momentExplanationTranscript") or "").strip(),
        )
    except ValidationError as err:
        names = {"team_goal": "q1LabelId", "partner_intent": "q2LabelId", "self_reasoning": "q3LabelId",
                 "misalignment_reasons": "q4Reasons", "aligned": "q4"}
        for e in err.errors(include_url=False):
            loc = [str(x) for x in e["loc"]]
            fld = names.get(loc[0], loc[0]) if loc else "(annotation)"
            msg = e["msg"].removeprefix("Value error, ")
            report.add(rel, rec, fld, msg)
        return None


def read_annotations(paths: list[Path], root: Path, report: Report) -> dict[str, tuple[MentalModel, str, str]]:
    """action_id -> (mental model, file, record) from the post-session payload files."""
    out: dict[str, tuple[MentalModel, str, str]] = {}
    for path in paths:
        rel = str(path.relative_to(root))
        obj = read_json(path, report, rel)
        if obj is None:
            continue
        payloads = _payloads(obj)
        if not payloads:
            report.add(rel, "-", "(file)", "expected {action_id: {q1LabelId, ...}} or rows with a 'payload' object")
            continue
        for prefix, payload in payloads:
            for action_id, ann in payload.items():
                rec = f"{prefix}action {action_id}"
                if not isinstance(ann, dict):
                    report.add(rel, rec, "(annotation)", f"expected an object with q1LabelId .. q4, got {type(ann).__name__}")
                    continue
                mm = mental_model_of(ann, report, rel, rec)
                if mm is not None:
                    out[str(action_id)] = (mm, rel, rec)
    return out


def read_checkpoints(paths: list[Path], root: Path, report: Report) -> list[tuple[dict, str, str]]:
    """Checkpoint rows (session_id, participant_id, checkpoint_index, transcription, elapsed_seconds)."""
    rows: list[tuple[dict, str, str]] = []
    for path in paths:
        rel = str(path.relative_to(root))
        suffix = path.suffix.lower()
        if suffix == ".jsonl":
            items = [(obj, f"line {n}") for n, obj in iter_jsonl(path, report, rel)]
        elif suffix == ".json":
            obj = read_json(path, report, rel)
            if obj is None:
                continue
            if not isinstance(obj, list):
                report.add(rel, "-", "(file)", "expected a JSON list of checkpoint rows")
                continue
            items = [(o, f"[{k}]") for k, o in enumerate(obj)]
        else:
            text = read_text(path, report, rel)
            if text is None:
                continue
            items = [(dict(r), f"line {k}") for k, r in enumerate(csv.DictReader(io.StringIO(text)), start=2)]
        for obj, rec in items:
            if not isinstance(obj, dict):
                report.add(rel, rec, "(record)", "expected an object")
                continue
            ok = True
            for key in ("participant_id", "checkpoint_index", "elapsed_seconds"):
                if obj.get(key) in (None, ""):
                    report.add(rel, rec, key, "required field is missing")
                    ok = False
            try:
                idx = int(obj.get("checkpoint_index"))
                if idx < 1:
                    raise ValueError
            except (TypeError, ValueError):
                if ok:
                    report.add(rel, rec, "checkpoint_index", f"expected an integer >= 1, got {obj.get('checkpoint_index')!r}")
                ok = False
            try:
                el = float(obj.get("elapsed_seconds"))
                if el < 0 or not math.isfinite(el):
                    raise ValueError
            except (TypeError, ValueError):
                if ok:
                    report.add(rel, rec, "elapsed_seconds", f"expected seconds >= 0, got {obj.get('elapsed_seconds')!r}")
                ok = False
            if ok:
                rows.append(({**obj, "checkpoint_index": idx, "elapsed_seconds": el}, rel, rec))
    return rows


# ---------------------------------------------------------------------------------------------
# The whole folder
# ---------------------------------------------------------------------------------------------


def _session_key(rows: list[Row]) -> str:
    name = next((r.session_name for r in rows if r.session_name), "")
    sid = rows[0].session_id
    short = re.sub(r"[^0-9A-Za-z]", "", sid)[:8] or safe_id(sid)
    return safe_id(f"{name}-{short}") if name else safe_id(sid)


def _participant_ids(pids: list[str]) -> dict[str, str]:
    short = {p: (re.sub(r"[^0-9A-Za-z]", "", p)[:8] or p) for p in pids}
    if len(set(short.values())) < len(short):
        return {p: p for p in pids}
    return short


def _read_map_option(path: Path, report: Report, names: Path | None) -> GridMap | None:
    rel = str(path)
    if not path.is_file():
        report.add(rel, "-", "(file)", "map file not found")
        return None
    if path.suffix.lower() == ".json":
        obj = read_json(path, report, rel)
        if obj is None:
            return None
        if isinstance(obj, dict) and set(obj) <= {"grid_size", "id", "name"} and "grid_size" in obj:
            gs = obj["grid_size"]
            if not (isinstance(gs, list) and len(gs) == 2 and all(isinstance(x, int) and x > 0 for x in gs)):
                report.add(rel, "-", "grid_size", f"expected [rows, cols], got {gs!r}")
                return None
            mid = safe_id(str(obj.get("id") or path.stem))
            return placeholder_map(mid, str(obj.get("name") or f"{mid} (placeholder: grid only, no landmarks or route)"), tuple(gs))
        from corpus.validate import parse

        return parse(GridMap, obj, report, rel, "map")
    return read_ascii_map(path, report, rel, names_path=names)


def import_folder(src: Path, options: PlatformOptions, report: Report):
    """Maps and sessions of a platform export folder (or one log file); problems go to ``report``."""
    from corpus.importers import ImportResult

    src = Path(src)
    if src.is_file():
        root = src.parent
        files = classify_files(root)
        files["logs"] = [src]
    elif src.is_dir():
        root = src
        files = classify_files(root)
    else:
        report.add(str(src), "-", "(path)", "not found: give an export folder or a .jsonl log")
        return ImportResult(report=report)
    if not files["logs"]:
        report.add(str(src), "-", "(folder)", "no action logs (*.jsonl) found")
        return ImportResult(report=report)
    if options.condition is not None and options.condition not in schema.CONDITIONS:
        report.add("(options)", "-", "condition", f"unknown condition {options.condition!r} (expected one of {', '.join(schema.CONDITIONS)})")
    if options.split not in schema.SPLITS:
        report.add("(options)", "-", "split", f"unknown split {options.split!r} (expected one of {', '.join(schema.SPLITS)})")
    if not (0 < options.ink_share <= 1):
        report.add("(options)", "-", "ink_share", f"must be in (0, 1], got {options.ink_share!r}")

    names = options.landmark_names or (files["names"][0] if len(files["names"]) == 1 else None)
    rows = read_rows(files["logs"], root, report)
    annotations = read_annotations(files["annotations"], root, report)
    checkpoint_rows = read_checkpoints(files["checkpoints"], root, report)

    folder_maps: dict[str, GridMap] = {}
    for p in files["maps"]:
        gm = read_ascii_map(p, report, str(p.relative_to(root)), names_path=names)
        if gm is not None:
            folder_maps[gm.id] = gm
    option_map = _read_map_option(Path(options.map_path), report, names) if options.map_path else None
    if not report.ok:
        return ImportResult(report=report)

    by_session: dict[str, list[Row]] = {}
    for r in rows:
        by_session.setdefault(r.session_id, []).append(r)
    if not by_session:
        report.add(str(src), "-", "(logs)", "the logs hold no Map Task actions")
        return ImportResult(report=report)

    maps: dict[str, GridMap] = dict(folder_maps)
    sessions: list[Session] = []
    cache = InkCache()
    used_ids: set[str] = set()
    annotated: set[str] = set()
    for sid, srows in by_session.items():
        label = f"session {sid}"
        key = _session_key(srows)
        while key in used_ids:
            key = safe_id(f"{key}-{len(used_ids)}")
        used_ids.add(key)
        roles = assign_roles(srows, options, report, label)
        if roles is None:
            continue
        map_kind = "grid" if any(r.filled is not None for r in srows) else ("image" if any(r.map_image for r in srows) else "none")
        grid_map = _session_map(srows, map_kind, option_map, folder_maps, options, report, label, cache)
        if grid_map is None:
            continue
        maps.setdefault(grid_map.id, grid_map)
        n_issues = len(report.errors)
        actions, ids, notes = build_session(srows, roles, grid_map, map_kind, options, report, cache)
        if len(report.errors) > n_issues:
            continue
        if not actions:
            report.add(srows[0].file, label, "(session)", "no actions left to import")
            continue
        for action_id, (mm, rel, rec) in annotations.items():
            if action_id in ids:
                a = actions[ids[action_id]]
                actions[ids[action_id]] = a.model_copy(update={"mental_model": mm})
                annotated.add(action_id)
        pid_map = _participant_ids(list(roles))
        t0_abs, origin = _time_origins(srows)
        checkpoints = []
        for obj, rel, rec in checkpoint_rows:
            if str(obj.get("session_id") or sid) != sid:
                continue
            pid = str(obj["participant_id"])
            if pid not in roles:
                report.add(rel, rec, "participant_id", f"not a participant of {label}")
                continue
            t = (origin - t0_abs) + obj["elapsed_seconds"]
            before = [a.index for a in actions if a.timestamp <= t + 1e-6]
            idx = before[-1] if before else 0
            checkpoints.append(Checkpoint(
                role=roles[pid], index=obj["checkpoint_index"], action_index=idx,
                progress=round(idx / max(len(actions) - 1, 1), 3), elapsed_s=round(max(t, 0.0), 3),
                team_goal=str(obj.get("transcription") or "").strip(),
            ))
        checkpoints.sort(key=lambda c: (c.elapsed_s, c.role, c.index))
        condition = options.condition or DEFAULT_CONDITION
        name = next((r.session_name for r in srows if r.session_name), "")
        header = f"Imported from the collaboration platform: session '{name}' ({sid})" if name else f"Imported from the collaboration platform: session {sid}"
        if map_kind == "image":
            header += f"; ink rasterized onto a {grid_map.grid_size[0]}x{grid_map.grid_size[1]} grid at ink share {options.ink_share:g}"
        sessions.append(Session(
            id=key, condition=condition, split=options.split, map_id=grid_map.id,
            duration_s=max((a.timestamp for a in actions), default=0.0),
            participants=[Participant(role=roles[p], id=pid_map[p]) for p in sorted(roles, key=lambda p: roles[p] != "guide")],
            checkpoints=checkpoints, actions=actions, notes="; ".join([header, *notes]),
        ))
    for action_id, (_mm, rel, rec) in annotations.items():
        if action_id not in annotated:
            report.add(rel, rec, "action_id", "no imported action has this id (a tool selection or a stroke left out?); annotation ignored", WARNING)
    return ImportResult(maps=list(maps.values()), sessions=sessions, report=report)


def _time_origins(rows: list[Row]) -> tuple[float, float]:
    """(the session's time zero, the platform's session start) as POSIX seconds."""
    first = min(r.when for r in rows).timestamp()
    starts = [r.when.timestamp() - r.elapsed for r in rows if r.elapsed is not None]
    origin = statistics.median(starts) if starts else first
    return min([first, *starts]), origin


def _session_map(rows: list[Row], map_kind: str, option_map: GridMap | None, folder_maps: dict[str, GridMap],
                 options: PlatformOptions, report: Report, label: str, cache: InkCache) -> GridMap | None:
    if option_map is not None:
        if options.grid and tuple(option_map.grid_size) != tuple(options.grid):
            report.add("(options)", label, "grid", f"grid {list(options.grid)} differs from the map file's {list(option_map.grid_size)}")
            return None
        return option_map
    if map_kind == "grid":
        fits = [gm for gm in folder_maps.values()
                if all(0 <= r < gm.grid_size[0] and 0 <= c < gm.grid_size[1] for row in rows for r, c in (row.filled or []))]
        if len(folder_maps) == 1 and fits:
            return fits[0]
        if not folder_maps:
            report.add(rows[0].file, label, "metadata.filledCells",
                       "the session draws on a grid map but the folder holds no ASCII map (*.txt); pass map_path=")
        else:
            report.add(rows[0].file, label, "metadata.filledCells",
                       f"cannot tell which ASCII map the session used ({', '.join(sorted(folder_maps)) or 'none fits its cells'}); pass map_path=")
        return None
    grid = tuple(options.grid) if options.grid else None
    if grid is None and map_kind == "image":
        best = None
        for r in rows:
            if not r.map_image:
                continue
            path = (r.folder / r.map_image).resolve()
            if not path.is_file():
                continue
            try:
                alpha = cache.alpha(path)
            except Exception as exc:
                report.add(r.file, r.where, "map_image", f"cannot read the ink image {r.map_image}: {exc}")
                return None
            area = alpha.shape[0] * alpha.shape[1]
            if best is None or area > best[0]:
                best = (area, alpha.shape)
        if best is not None:
            h, w = best[1]
            grid = grid_for_image(w, h)
    if grid is None:
        grid = (40, 60)  # the platform's ASCII grid maps: 40 rows of 60 cells
    rows_n, cols_n = grid
    what = "image map not in the export" if map_kind == "image" else "map not in the export"
    return placeholder_map(f"canvas-{rows_n}x{cols_n}", f"{what} (placeholder: {rows_n}x{cols_n} grid, no landmarks or route)", grid)
