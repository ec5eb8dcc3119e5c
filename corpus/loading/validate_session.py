"""One session folder's files checked: session.json (against its map and its actions) and the
records of actions.jsonl, every problem reported with file, record and field (:mod:`corpus.loading.validate`
reads the folders, in this process or in workers)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from corpus.loading.action_rows import ActionColumns
from corpus.loading.jsonsafe import typed_parse_takes_as_loads
from corpus.loading.reading import load_json, parse, parse_jsonl, read_text, text_at_once
from corpus.loading.report import WARNING, Report, shown
from corpus.model import MAX_SECONDS, Action, GridMap, SessionMeta

if TYPE_CHECKING:
    from corpus.loading.validate import RawDataset


def _read_meta(d: Path, raw: RawDataset, report: Report) -> tuple[SessionMeta | None, GridMap | None]:
    """session.json and the map it names; a map with errors is counted, reported at the map."""
    rel = f"sessions/{d.name}/session.json"
    if not (d / "session.json").is_file():
        report.add(rel, "-", "(file)", "missing: every session folder needs session.json")
        return None, None
    loaded = load_json(d / "session.json", report, rel)
    if loaded is None:
        return None, None
    meta = parse(SessionMeta, loaded[0], report, rel, f"session {d.name}", text=loaded[1])
    if meta is None:
        return None, None
    record = f"session {meta.id}"
    if meta.id != d.name:
        report.add(rel, record, "id", f"session id {shown(meta.id)} does not match its folder '{d.name}'")
    _check_meta_seconds(report, rel, record, meta)
    grid_map = raw.maps.get(meta.map_id)
    if grid_map is None and meta.map_id in raw.invalid_maps:
        raw.refer("map", meta.map_id, rel)
    elif grid_map is None and ("folder", "maps") in raw.root_errors:
        raw.refer("folder", "maps", rel)
    elif grid_map is None:
        known = ", ".join(sorted(raw.maps)) or "none"
        report.add(rel, record, "map_id", f"map {shown(meta.map_id)} not found in maps/ (known: {known})")
    return meta, grid_map


def _meta_at_once(d: str | Path, raw: RawDataset) -> tuple[SessionMeta, GridMap, str] | None:
    """A session folder's session.json, its map and its text, as :func:`_read_meta` reads them when
    it has nothing to report; None otherwise. The text is validated by the model at once, without
    :func:`corpus.loading.jsonsafe.loads` (whose refusals the model makes too:
    :func:`corpus.loading.jsonsafe.typed_parse_takes_as_loads`)."""
    text = text_at_once(os.path.join(d, "session.json"))
    if text is None or not typed_parse_takes_as_loads(text):
        return None
    try:
        meta = SessionMeta.model_validate_json(text, strict=True)
    except ValidationError:
        return None
    grid_map = raw.maps.get(meta.map_id)
    if meta.id != os.path.basename(d) or grid_map is None:
        return None
    if any(seconds > MAX_SECONDS for _, seconds in _meta_seconds(meta)):
        return None  # (as _check_meta_seconds reports)
    return meta, grid_map, text


def _meta_seconds(meta: SessionMeta) -> Iterator[tuple[str, float]]:
    """The times a session.json gives, by field: its duration and its checkpoints' times."""
    yield "duration_s", meta.duration_s
    for k, cp in enumerate(meta.checkpoints):
        yield f"checkpoints[{k}].elapsed_s", cp.elapsed_s


def _check_meta_seconds(report: Report, rel: str, record: str, meta: SessionMeta) -> None:
    """Report each time of a session.json beyond the limit."""
    for name, seconds in _meta_seconds(meta):
        _check_seconds(report, rel, record, name, seconds)


def _check_seconds(report: Report, rel: str, record: str, name: str, seconds: float) -> bool:
    if seconds <= MAX_SECONDS:
        return True
    report.add(rel, record, name, f"{seconds:g} s is beyond the limit of {MAX_SECONDS} s (7 days)")
    return False


def _check_against_actions(
    meta: SessionMeta, actions: ActionColumns, complete: bool, report: Report, rel_meta: str
) -> None:
    """session.json against the session's actions: its duration and its checkpoints' actions."""
    if actions.timestamp:
        last = actions.timestamp[-1]
        if last > meta.duration_s + 1:
            report.add(
                rel_meta,
                f"session {meta.id}",
                "duration_s",
                f"duration {meta.duration_s:g} s is shorter than the last action's timestamp {last:g} s",
                WARNING,
            )
    for k, cp in enumerate(meta.checkpoints):
        if complete and cp.action_index >= len(actions):
            report.add(
                rel_meta,
                f"session {meta.id}",
                f"checkpoints[{k}].action_index",
                f"checkpoint at action {cp.action_index}, but the session has {len(actions)} actions",
            )


def _actions_text(d: Path, rel: str, report: Report) -> str | None:
    """The text of a session folder's actions.jsonl (None, reported, when it is missing or unreadable)."""
    if not (d / "actions.jsonl").is_file():
        report.add(rel, "-", "(file)", "missing: every session folder needs actions.jsonl")
        return None
    return read_text(d / "actions.jsonl", report, rel)


def _read_actions(rel: str, text: str | None, grid_map: GridMap | None, report: Report) -> tuple[list[Action], bool]:
    """The actions of a session's actions.jsonl (``text``; None: it could not be read), and whether
    every record was read and kept."""
    if text is None:
        return [], False
    actions: list[Action] = []
    seen: dict[int, int] = {}
    last_t = -1.0
    parsed = parse_jsonl(Action, text, report, rel)
    for lineno, a in parsed:
        if a is None:
            continue
        rec = f"line {lineno} (action {a.index})"
        if a.index in seen:
            report.add(rel, rec, "index", f"duplicate action index {a.index} (also on line {seen[a.index]})")
            continue
        seen[a.index] = lineno
        last_t = _check_timestamp(report, rel, rec, a, last_t)
        if grid_map is not None and a.cells:
            _check_cells(report, rel, rec, a, grid_map)
        if a.type != "message" and a.role == "guide":
            report.add(rel, rec, "role", f"the guide performed a {a.type} action; only the follower draws", WARNING)
        actions.append(a)
    complete = bool(parsed) and len(actions) == len(parsed)
    if actions and complete:  # (with a record missing, the indices after it are off by design)
        _check_indices(report, rel, actions)
    elif not parsed and not any(i.file == rel for i in report.issues):
        report.add(rel, "-", "(file)", "no actions: the file holds no action records")
    return actions, complete


def _check_timestamp(report: Report, rel: str, rec: str, a: Action, last_t: float) -> float:
    """An action's timestamp within the limit and not before the previous action's (``last_t``);
    the latest timestamp so far."""
    if not _check_seconds(report, rel, rec, "timestamp", a.timestamp):
        return last_t
    if a.timestamp < last_t:
        report.add(
            rel,
            rec,
            "timestamp",
            f"timestamp goes backwards: {a.timestamp:g} s after {last_t:g} s on the previous action",
        )
    return max(last_t, a.timestamp)


def _check_cells(report: Report, rel: str, rec: str, a: Action, grid_map: GridMap) -> None:
    """The first cell of an action outside its map's grid, if any."""
    rows, cols = grid_map.grid_size
    for k, (r, c) in enumerate(a.cells):
        if not (0 <= r < rows and 0 <= c < cols):
            report.add(
                rel,
                rec,
                f"content[{k}]",
                f"cell [{r}, {c}] is outside the {rows}x{cols} grid of map '{grid_map.id}'",
            )
            break


def _check_indices(report: Report, rel: str, actions: list[Action]) -> None:
    """Action indices that do not run 0, 1, 2, ... in file order (when none is repeated)."""
    indices = [a.index for a in actions]
    if indices != list(range(len(indices))) and len(set(indices)) == len(indices):
        first_bad = next(i for i, x in enumerate(indices) if x != i)
        report.add(
            rel,
            f"action {indices[first_bad]}",
            "index",
            f"action indices must run 0, 1, 2, ... in file order; expected {first_bad} here",
        )
