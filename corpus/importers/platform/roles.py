"""Who is the Guide and who the Follower in a platform session."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from corpus import schema
from corpus.importers.platform.rows import PlatformOptions, Row
from corpus.loading.report import shown
from corpus.loading.validate import Report


def _role_from_filename(file: str) -> str | None:
    tokens = set(re.split(r"[^a-z]+", Path(file).name.lower()))
    found = {r for r in schema.ROLES if r in tokens}
    return found.pop() if len(found) == 1 else None


def _participants(rows: list[Row]) -> tuple[list[str], dict[str, str]]:
    """The session's participant ids in order of appearance, and the file of each that has rows."""
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
    return pids, files


def _given_role(pid: str, options: PlatformOptions) -> str | None:
    """The role the options give a participant: by its id, else by a prefix of it."""
    given = options.roles.get(pid)
    if given is None:
        given = next((v for k, v in options.roles.items() if pid.startswith(k)), None)
    return given


def _named_roles(
    pids: list[str], files: dict[str, str], options: PlatformOptions, report: Report, label: str
) -> dict[str, str] | None:
    """The roles the options or the log file names give; None, said in ``report``, for an unknown role."""
    roles: dict[str, str] = {}
    for pid in pids:
        given = _given_role(pid, options)
        if given is not None:
            if given not in schema.ROLES:
                report.add(
                    "(options)", label, f"roles.{pid}", f"unknown role {shown(given)} (expected guide or follower)"
                )
                return None
            roles[pid] = given
            continue
        by_name = _role_from_filename(files[pid]) if pid in files else None
        if by_name:
            roles[pid] = by_name
    return roles


def _infer_roles(rows: list[Row], pids: list[str], roles: dict[str, str]) -> None:
    """The roles still unknown filled in: who draws is the follower; of two, the other takes the other role."""
    drawers = {r.participant_id for r in rows if r.kind == "stroke" or r.map_image or r.filled is not None}
    for pid in pids:
        if pid not in roles and pid in drawers:
            roles[pid] = "follower"
    if len(pids) == 2:
        missing = [p for p in pids if p not in roles]
        if len(missing) == 1:
            other = next(p for p in pids if p != missing[0])
            roles[missing[0]] = "guide" if roles[other] == "follower" else "follower"


def assign_roles(rows: list[Row], options: PlatformOptions, report: Report, label: str) -> dict[str, str] | None:
    """participant_id -> role, from the options, the log file names, or who draws."""
    pids, files = _participants(rows)
    roles = _named_roles(pids, files, options, report, label)
    if roles is None:
        return None
    _infer_roles(rows, pids, roles)
    counts = Counter(roles.values())
    if len(pids) != 2 or counts != Counter({"guide": 1, "follower": 1}):
        desc = ", ".join(f"{p[:8]}: {roles.get(p, 'unknown')}" for p in pids) or "none"
        report.add(
            files.get(pids[0], "(logs)") if pids else "(logs)",
            label,
            "participant_id",
            f"a session needs exactly one guide and one follower; found {len(pids)} participant(s) ({desc}). "
            "Name the logs <id>.guide*.jsonl / <id>.follower*.jsonl or pass roles={participant_id: role}",
        )
        return None
    return roles
