"""A whole export folder (or one log file): rows grouped into sessions, each with its roles,
map, actions, annotations and checkpoints."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from corpus import schema
from corpus.importers.asciimap import read_ascii_map, safe_id
from corpus.importers.platform.annotations import AnswerTally, CheckpointRow, read_annotations, read_checkpoints
from corpus.importers.platform.bundle import ExportRead, merge_rows, read_exports
from corpus.importers.platform.files import classify_files, export_kind
from corpus.importers.platform.maps import read_map_option, session_map
from corpus.importers.platform.roles import assign_roles
from corpus.importers.platform.rows import DEFAULT_CONDITION, PlatformOptions, Row, read_rows
from corpus.importers.platform.session import InkImages, build_session, time_origins
from corpus.loading.report import counted, shown
from corpus.loading.validate import WARNING, Report
from corpus.model import Action, Checkpoint, GridMap, MentalModel, Participant, Session


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


MAX_GRID = 1000  # cells in each direction, as a map may have (corpus.gridmap)


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
    if options.grid is not None and not (
        len(options.grid) == 2 and all(isinstance(n, int) and 1 <= n <= MAX_GRID for n in options.grid)
    ):
        report.add(
            "(options)", "-", "grid", f"expected rows and columns, each from 1 to {MAX_GRID}, got {list(options.grid)}"
        )


def _checkpoint_sessions(
    checkpoint_rows: list[CheckpointRow], by_session: dict[str, list[Row]], report: Report
) -> dict[str, list[CheckpointRow]]:
    """The checkpoint rows by session: the session a row's ``session_id`` names, or, for a row
    without one (the platform's rows have none: a participant belongs to one session), the one
    session its participant took part in."""
    members: dict[str, set[str]] = {}
    for sid, srows in by_session.items():
        for r in srows:
            for pid in (r.participant_id, r.receiver):
                if pid:
                    members.setdefault(pid, set()).add(sid)
    out: dict[str, list[CheckpointRow]] = {}
    for row in checkpoint_rows:
        if row.session_id is not None:
            if row.session_id in by_session:
                out.setdefault(row.session_id, []).append(row)
            else:
                report.add(
                    row.file,
                    row.record,
                    "session_id",
                    f"no session of the logs has the id {shown(row.session_id)}; checkpoint left out",
                    WARNING,
                )
            continue
        sids = sorted(members.get(row.participant_id, set()))
        if len(sids) == 1:
            out.setdefault(sids[0], []).append(row)
        elif not sids:
            report.add(
                row.file,
                row.record,
                "participant_id",
                f"{shown(row.participant_id)} took part in no session of the logs",
            )
        else:
            report.add(
                row.file,
                row.record,
                "participant_id",
                f"{shown(row.participant_id)} took part in {len(sids)} sessions of the logs "
                f"({', '.join(shown(s) for s in sids)}): give the row a session_id",
            )
    return out


def _checkpoints(
    rows: list[Row],
    label: str,
    roles: dict[str, str],
    actions: list[Action],
    checkpoint_rows: list[CheckpointRow],
    report: Report,
) -> list[Checkpoint]:
    """The session's checkpoint rows, each placed at the last action at or before its time: its
    ``elapsed_seconds`` on the platform's session clock, else its ``created_at``, else its share of
    the session on the platform's schedule. The index is kept as the source numbers it."""
    t0_abs, origin = time_origins(rows)
    duration = max((a.timestamp for a in actions), default=0.0)
    checkpoints = []
    for row in checkpoint_rows:
        if row.participant_id not in roles:
            report.add(row.file, row.record, "participant_id", f"not a participant of {label}")
            continue
        if row.elapsed is not None:
            t = (origin - t0_abs) + row.elapsed
        elif row.created is not None:
            t = row.created.timestamp() - t0_abs
        else:
            t = (row.share or 0.0) * duration
        before = [a.index for a in actions if a.timestamp <= t + 1e-6]
        idx = before[-1] if before else 0
        checkpoints.append(
            Checkpoint(
                role=roles[row.participant_id],
                index=row.index,
                action_index=idx,
                progress=round(idx / max(len(actions) - 1, 1), 3),
                elapsed_s=round(max(t, 0.0), 3),
                team_goal=row.transcription,
            )
        )
    checkpoints.sort(key=lambda c: (c.elapsed_s, c.role, c.index))
    return checkpoints


def _discover(src: Path, report: Report) -> tuple[Path, dict[str, list[Path]]] | None:
    """The folder an import reads and its files by kind (one file given: that file alone of the
    logs and export files); None, said in ``report``, when there is nothing to import."""
    if src.is_file():
        root = src.parent
        files = classify_files(root)
        for kind in ("logs", "bundles", "user_actions"):
            files[kind] = []
        files[export_kind(src) or "logs"] = [src]
    elif src.is_dir():
        root = src
        files = classify_files(root)
    else:
        report.add(str(src), "-", "(path)", "not found: give an export folder, a .jsonl log or an export file")
        return None
    if not (files["logs"] or files["bundles"] or files["user_actions"]):
        report.add(
            str(src),
            "-",
            "(folder)",
            "no action logs (*.jsonl) and no export files (*_actions_and_annotations.json, *_user_actions.json) found",
        )
        return None
    return root, files


@dataclass
class _Sources:
    """What an import read from its files: the rows, the annotations and checkpoint rows, and the maps."""

    rows: list[Row]
    tally: AnswerTally
    exported: ExportRead
    annotations: dict[str, tuple[MentalModel, str, str]]
    checkpoint_rows: list[CheckpointRow]
    folder_maps: dict[str, GridMap]
    option_map: GridMap | None


def _read_sources(root: Path, files: dict[str, list[Path]], options: PlatformOptions, report: Report) -> _Sources:
    """The rows, annotations, checkpoint rows and maps of an import's files."""
    names = options.landmark_names or (files["names"][0] if len(files["names"]) == 1 else None)
    rows = read_rows(files["logs"], root, report)
    tally = AnswerTally()  # the actions the source annotates: what the import's count of annotations starts from
    exported = read_exports(
        files["bundles"], files["user_actions"], root, report, max((r.order for r in rows), default=0), tally
    )
    rows = merge_rows(rows, exported.rows)
    # A payload file's answers carry the reasons of a "no"; the export's timeline does not.
    annotations = {**exported.annotations, **read_annotations(files["annotations"], root, report, tally)}
    checkpoint_rows = read_checkpoints(files["checkpoints"], root, report) + exported.checkpoints

    folder_maps: dict[str, GridMap] = {}
    for p in files["maps"]:
        gm = read_ascii_map(p, report, str(p.relative_to(root)), names_path=names)
        if gm is not None:
            folder_maps[gm.id] = gm
    option_map = read_map_option(Path(options.map_path), report, names) if options.map_path else None
    return _Sources(rows, tally, exported, annotations, checkpoint_rows, folder_maps, option_map)


@dataclass
class _Built:
    """The sessions an import built so far, with what it notes of them for its report."""

    maps: dict[str, GridMap]
    sessions: list[Session] = field(default_factory=list)
    # The export's strokes on image maps whose ink image it does not carry and that carry no
    # annotation: left out, and said once for the import.
    inkless: list[Row] = field(default_factory=list)
    kept: dict[str, list[str]] = field(default_factory=dict)  # kind of action with no cell change -> file of each
    used_ids: set[str] = field(default_factory=set)
    source_names: dict[str, list[str]] = field(default_factory=dict)  # session id -> its name and id in the export
    annotated: set[str] = field(default_factory=set)

    def new_key(self, srows: list[Row]) -> str:
        """A session id for ``srows`` that no session of the import has yet."""
        key = _session_key(srows)
        while key in self.used_ids:
            key = safe_id(f"{key}-{len(self.used_ids)}")
        self.used_ids.add(key)
        return key


def _map_kind(srows: list[Row]) -> str:
    """How a session's map is drawn on: "grid" (cells logged), "image" (ink images) or "none"."""
    if any(r.filled is not None for r in srows):
        return "grid"
    return "image" if any(r.map_image for r in srows) else "none"


def _annotate(
    actions: list[Action], ids: dict[str, int], annotations: dict[str, tuple[MentalModel, str, str]], done: set[str]
) -> None:
    """Each action of ``actions`` given the mental model annotated on it, its id added to ``done``."""
    for action_id, (mm, _rel, _rec) in annotations.items():
        if action_id in ids:
            a = actions[ids[action_id]]
            actions[ids[action_id]] = a.model_copy(update={"mental_model": mm})
            done.add(action_id)


def _session_header(sid: str, name: str, srows: list[Row], map_kind: str, grid_map: GridMap, ink_share: float) -> str:
    """The first line of an imported session's notes: where it came from and how its ink was read."""
    header = (
        f"Imported from the collaboration platform: session '{name}' ({sid})"
        if name
        else f"Imported from the collaboration platform: session {sid}"
    )
    if map_kind == "image" and any(r.map_image and (r.folder / r.map_image).is_file() for r in srows):
        header += (
            f"; ink rasterized onto a {grid_map.grid_size[0]}x{grid_map.grid_size[1]} grid at ink share {ink_share:g}"
        )
    elif map_kind == "image":
        header += "; no ink image is there: the drawing is not known"
    return header


def _build_one(
    sid: str,
    srows: list[Row],
    src: _Sources,
    checkpoint_rows: list[CheckpointRow],
    options: PlatformOptions,
    ink: InkImages,
    built: _Built,
    report: Report,
) -> None:
    """One session of the logs built and added to ``built``; left out, said in ``report``, when
    its roles, its map or its actions cannot be read."""
    label = f"session {sid}"
    key = built.new_key(srows)
    roles = assign_roles(srows, options, report, label)
    if roles is None:
        return
    map_kind = _map_kind(srows)
    grid_map = session_map(srows, map_kind, src.option_map, src.folder_maps, options, report, label, ink)
    if grid_map is None:
        return
    built.maps.setdefault(grid_map.id, grid_map)
    n_issues = len(report.errors)
    made = build_session(srows, roles, grid_map, map_kind, options, report, ink, src.annotations)
    actions = made.actions
    if len(report.errors) > n_issues:
        return
    built.inkless += made.inkless
    for kind, files_of in made.kept.items():
        built.kept.setdefault(kind, []).extend(files_of)
    if not actions:
        report.add(srows[0].file, label, "(session)", "no actions left to import")
        return
    _annotate(actions, made.ids, src.annotations, built.annotated)
    pid_map = _participant_ids(list(roles))
    name = next((r.session_name for r in srows if r.session_name), "")
    header = _session_header(sid, name, srows, map_kind, grid_map, options.ink_share)
    built.source_names[key] = [n for n in (name, sid) if n]
    built.sessions.append(
        Session(
            id=key,
            condition=options.condition or DEFAULT_CONDITION,
            split=options.split,
            map_id=grid_map.id,
            duration_s=max((a.timestamp for a in actions), default=0.0),
            participants=[
                Participant(role=roles[p], id=pid_map[p]) for p in sorted(roles, key=lambda p: roles[p] != "guide")
            ],
            checkpoints=_checkpoints(srows, label, roles, actions, checkpoint_rows, report),
            actions=actions,
            notes="; ".join([header, *made.notes]),
        )
    )


def _report_unimported(
    annotations: dict[str, tuple[MentalModel, str, str]], annotated: set[str], tools: set[str], report: Report
) -> None:
    """Each annotation that was not imported, with why: on a tool selection, or on no action."""
    for action_id, (_mm, rel, rec) in annotations.items():
        if action_id in annotated:
            continue
        report.add(
            rel,
            rec,
            "action_id",
            "the action is a tool selection (the brush or the eraser chosen), not an edit of the canvas: its "
            "annotation is not imported"
            if action_id in tools
            else "no Map Task action of the logs has this id (its row was left out, or is not there): its "
            "annotation is not imported",
            WARNING,
        )


def import_folder(src: Path, options: PlatformOptions, report: Report):
    """Maps and sessions of a platform export folder (or one log file, or one of the export
    script's files); problems go to ``report``."""
    from corpus.importers import ImportResult

    src = Path(src)
    found = _discover(src, report)
    if found is None:
        return ImportResult(report=report)
    root, files = found
    _check_options(options, report)
    read = _read_sources(root, files, options, report)
    if not report.ok:
        return ImportResult(report=report)

    by_session: dict[str, list[Row]] = {}
    for r in read.rows:
        by_session.setdefault(r.session_id, []).append(r)
    if not by_session:
        report.add(str(src), "-", "(logs)", "the logs hold no Map Task actions")
        return ImportResult(report=report)
    checkpoints_by_session = _checkpoint_sessions(read.checkpoint_rows, by_session, report)
    built = _Built(maps=dict(read.folder_maps))
    ink = InkImages(read.rows)  # ink images read one at a time, each decoded once and dropped
    for sid, srows in by_session.items():
        _build_one(sid, srows, read, checkpoints_by_session.get(sid, []), options, ink, built, report)

    tools = {r.action_id for r in read.rows if r.kind == "tool"}
    _report_unimported(read.annotations, built.annotated, tools, report)
    # The export's "no" answers that were imported (a payload file's answer to the same action wins).
    no_reasons = [
        mm
        for action_id, (mm, _rel, _rec) in read.annotations.items()
        if action_id in built.annotated
        and read.exported.annotations.get(action_id, (None,))[0] is mm
        and not mm.aligned
    ]
    _report_what_the_export_lacks(read.exported.bundles, no_reasons, built.inkless, report)
    _reconcile(read.tally, built.annotated, tools, built.kept, read.exported.bundles, report)
    return ImportResult(
        maps=list(built.maps.values()), sessions=built.sessions, report=report, source_names=built.source_names
    )


def _report_what_the_export_lacks(
    bundles: list[str], no_reasons: list[MentalModel], inkless: list[Row], report: Report
) -> None:
    """What the export script's files cannot say, once for the import with a count: the reasons of
    a "no" (the export leaves q4Reasons out) and the ink images of strokes on an image map."""
    noun = "'not on the same page' answer"
    if no_reasons:
        report.add(
            bundles[0] if len(bundles) == 1 else "(export files)",
            "-",
            "q4Reasons",
            f"{counted(len(no_reasons), noun)} {'has' if len(no_reasons) == 1 else 'have'} no reasons: "
            "the export does not carry q4Reasons "
            "(a post_annotations payload file beside it would)",
            WARNING,
        )
    if inkless:
        files = sorted({r.file for r in inkless})
        report.add(
            files[0] if len(files) == 1 else "(export files)",
            "-",
            "map_image",
            f"{counted(len(inkless), 'stroke')} on an image map left out (without an annotation): the export does "
            "not carry the ink images (files/<action_id>_map_image.png) a stroke's cells come from; put the "
            "session's files/ folder beside the export to import them",
            WARNING,
        )


# What the import says of the actions it imported with no cell change, by kind: (the source's field,
# the sentence after the count).
_KEPT_SAID = {
    "changed_no_cell": (
        "action_content",
        "changed no grid cell: imported as draw or erase actions with no cell change (no_cell_change "
        "'changed_no_cell'), their annotations kept",
    ),
    "ink_missing": (
        "map_image",
        "on an image map have no ink image (files/<action_id>_map_image.png, which a stroke's cells come from, "
        "is not there): imported as draw or erase actions with no cell change (no_cell_change 'ink_missing'), "
        "their annotations kept; put the session's files/ folder beside the export to have their cells",
    ),
    "no_state": (
        "metadata.filledCells",
        "logged no canvas state (no metadata.filledCells, no ink image): imported as draw or erase actions with "
        "no cell change (no_cell_change 'ink_missing'), their annotations kept",
    ),
    "undo": (
        "action_content",
        "of such strokes change no cell either: imported as undo actions with no cell change, their annotations kept",
    ),
}


def _reconcile(
    tally: AnswerTally,
    imported: set[str],
    tools: set[str],
    kept: dict[str, list[str]],
    bundles: list[str],
    report: Report,
) -> None:
    """The import's count of annotations: the actions imported with no cell change for their
    annotations, a line for each kind with its count; then, when there were any or when an
    annotation was not imported, the annotations in the source against those imported, each
    difference named with its count (each annotation not imported is also reported on its own)."""
    for kind, (fld, said) in _KEPT_SAID.items():
        files = sorted(set(kept.get(kind, [])))
        if files:
            noun = "undo" if kind == "undo" else "stroke"
            report.add(
                files[0] if len(files) == 1 else "(platform files)",
                "-",
                fld,
                f"{counted(len(kept[kind]), noun)} {said}",
                WARNING,
            )
    missing = tally.answered - imported
    if not tally.answered or not (missing or kept):
        return
    partial = missing & tally.partial
    on_tools = (missing - partial) & tools
    others = missing - partial - on_tools
    differences = [
        f"{n} {what}"
        for n, what in (
            (len(partial), "answered part-way (their mental models are left out)"),
            (len(on_tools), "on tool selections (not edits of the canvas)"),
            (len(others), "on no imported action"),
        )
        if n
    ]
    n_kept = sum(len(v) for v in kept.values())
    report.add(
        bundles[0] if len(bundles) == 1 else "(annotations)",
        "-",
        "(annotations)",
        f"{counted(len(tally.answered), 'annotation')} in the source, {len(imported)} imported"
        + (f" ({n_kept} of them on actions with no cell change)" if n_kept else "")
        + (f"; not imported: {', '.join(differences)}, each named above" if differences else ""),
        WARNING,
    )
