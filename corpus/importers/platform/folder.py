"""A whole export folder (or one log file): rows grouped into sessions, each with its roles,
map, actions, annotations and checkpoints."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from corpus import schema
from corpus.importers.asciimap import ink_alpha, read_ascii_map, safe_id
from corpus.importers.platform.annotations import read_annotations, read_checkpoints
from corpus.importers.platform.files import classify_files
from corpus.importers.platform.maps import read_map_option, session_map
from corpus.importers.platform.roles import assign_roles
from corpus.importers.platform.rows import DEFAULT_CONDITION, PlatformOptions, Row, read_rows
from corpus.importers.platform.session import build_session, time_origins
from corpus.model import Action, Checkpoint, GridMap, Participant, Session
from corpus.validate import WARNING, Report


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


def _check_options(options: PlatformOptions, report: Report) -> None:
    if options.condition is not None and options.condition not in schema.CONDITIONS:
        report.add(
            "(options)",
            "-",
            "condition",
            f"unknown condition {options.condition!r} (expected one of {', '.join(schema.CONDITIONS)})",
        )
    if options.split not in schema.SPLITS:
        report.add(
            "(options)", "-", "split", f"unknown split {options.split!r} (expected one of {', '.join(schema.SPLITS)})"
        )
    if not (0 < options.ink_share <= 1):
        report.add("(options)", "-", "ink_share", f"must be in (0, 1], got {options.ink_share!r}")


def _checkpoints(
    rows: list[Row],
    sid: str,
    label: str,
    roles: dict[str, str],
    actions: list[Action],
    checkpoint_rows: list[tuple[dict, str, str]],
    report: Report,
) -> list[Checkpoint]:
    """The session's checkpoint rows, each placed at the last action before its time."""
    t0_abs, origin = time_origins(rows)
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
        checkpoints.append(
            Checkpoint(
                role=roles[pid],
                index=obj["checkpoint_index"],
                action_index=idx,
                progress=round(idx / max(len(actions) - 1, 1), 3),
                elapsed_s=round(max(t, 0.0), 3),
                team_goal=str(obj.get("transcription") or "").strip(),
            )
        )
    checkpoints.sort(key=lambda c: (c.elapsed_s, c.role, c.index))
    return checkpoints


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
    _check_options(options, report)

    names = options.landmark_names or (files["names"][0] if len(files["names"]) == 1 else None)
    rows = read_rows(files["logs"], root, report)
    annotations = read_annotations(files["annotations"], root, report)
    checkpoint_rows = read_checkpoints(files["checkpoints"], root, report)

    folder_maps: dict[str, GridMap] = {}
    for p in files["maps"]:
        gm = read_ascii_map(p, report, str(p.relative_to(root)), names_path=names)
        if gm is not None:
            folder_maps[gm.id] = gm
    option_map = read_map_option(Path(options.map_path), report, names) if options.map_path else None
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
    ink = functools.cache(ink_alpha)  # each ink image read once per import
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
        map_kind = (
            "grid"
            if any(r.filled is not None for r in srows)
            else ("image" if any(r.map_image for r in srows) else "none")
        )
        grid_map = session_map(srows, map_kind, option_map, folder_maps, options, report, label, ink)
        if grid_map is None:
            continue
        maps.setdefault(grid_map.id, grid_map)
        n_issues = len(report.errors)
        actions, ids, notes = build_session(srows, roles, grid_map, map_kind, options, report, ink)
        if len(report.errors) > n_issues:
            continue
        if not actions:
            report.add(srows[0].file, label, "(session)", "no actions left to import")
            continue
        for action_id, (mm, _rel, _rec) in annotations.items():
            if action_id in ids:
                a = actions[ids[action_id]]
                actions[ids[action_id]] = a.model_copy(update={"mental_model": mm})
                annotated.add(action_id)
        pid_map = _participant_ids(list(roles))
        name = next((r.session_name for r in srows if r.session_name), "")
        header = (
            f"Imported from the collaboration platform: session '{name}' ({sid})"
            if name
            else f"Imported from the collaboration platform: session {sid}"
        )
        if map_kind == "image":
            header += f"; ink rasterized onto a {grid_map.grid_size[0]}x{grid_map.grid_size[1]} grid at ink share {options.ink_share:g}"
        sessions.append(
            Session(
                id=key,
                condition=options.condition or DEFAULT_CONDITION,
                split=options.split,
                map_id=grid_map.id,
                duration_s=max((a.timestamp for a in actions), default=0.0),
                participants=[
                    Participant(role=roles[p], id=pid_map[p]) for p in sorted(roles, key=lambda p: roles[p] != "guide")
                ],
                checkpoints=_checkpoints(srows, sid, label, roles, actions, checkpoint_rows, report),
                actions=actions,
                notes="; ".join([header, *notes]),
            )
        )
    for action_id, (_mm, rel, rec) in annotations.items():
        if action_id not in annotated:
            report.add(
                rel,
                rec,
                "action_id",
                "no imported action has this id (a tool selection or a stroke left out?); annotation ignored",
                WARNING,
            )
    return ImportResult(maps=list(maps.values()), sessions=sessions, report=report)
