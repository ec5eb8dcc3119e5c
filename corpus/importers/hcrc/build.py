"""An HCRC import, phase by phase: the options checked, the source's files found
(:mod:`.discover`), the split lists, route deviation scores and GMMT annotations read
(:mod:`.design`), each dialogue's moves read (:mod:`.transcripts`, :mod:`.nxt`) and built into a
session with its labels, and what was not used reported."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus import schema
from corpus.importers.asciimap import grid_for_image, placeholder_map, safe_id
from corpus.importers.gmmt import GmmtFiles, annotate_session, gmmt_files
from corpus.importers.hcrc.design import (
    DEVIATION_COLUMN,
    SplitLists,
    _design_of,
    _deviation_option,
    _split_lists_option,
    _split_of,
    read_deviation,
    read_split_lists,
)
from corpus.importers.hcrc.discover import Found, _gmmt_option, _no_dialogue_message, _read_map_table, discover
from corpus.importers.hcrc.nxt import read_nxt
from corpus.importers.hcrc.transcripts import (
    MOVES_FOLDER,
    Move,
    _rel,
    concatenation,
    condition_of,
    read_pipe_transcript,
)
from corpus.loading.report import ERROR, WARNING
from corpus.loading.validate import Report
from corpus.model import Action, GridMap, Participant, Session

CODER = "hcrc"
PARTITION = "validation"
SCHEME = schema.HCRC_MOVES_SCHEME
# The HCRC map scans are 791 x 1024 px; placeholder grids keep that shape.
HCRC_MAP_PIXELS = (791, 1024)
OPTIONS = "condition, split, map_id, gmmt, split_lists, route_deviation"


@dataclass
class Options:
    """The options that apply to every dialogue: its condition, its split and its map (None:
    from the dialogue id, the split lists or folder, the dialogue-to-map table), and the GMMT
    folder or file given."""

    condition: str | None
    split: str | None
    map_id: str | None
    gmmt: str | Path | None


@dataclass
class Sources:
    """What the sessions are built with beside the dialogues' own files: the GMMT annotations by
    dialogue, the dialogue-to-map tables, the split lists, and the route deviation scores with the
    tables they are from and the folder those are named from."""

    annotations: dict[str, list[GmmtFiles]]
    tables: list[Path]
    lists: SplitLists
    deviations: dict[str, tuple[float, str]]
    deviation_files: list[Path]
    deviation_root: Path


@dataclass
class Built:
    """What the dialogues became: their maps, sessions, labels and GMMT expressions, and the
    dialogues imported with GMMT annotations."""

    maps: dict[str, GridMap] = field(default_factory=dict)
    sessions: list[Session] = field(default_factory=list)
    labels: list[dict[str, Any]] = field(default_factory=list)
    expressions: list[dict[str, Any]] = field(default_factory=list)
    annotated: set[str] = field(default_factory=set)


def import_hcrc(
    src: str | Path,
    report: Report,
    condition: str | None = None,
    split: str | None = None,
    map_id: str | None = None,
    gmmt: str | Path | None = None,
    split_lists: str | Path | None = None,
    route_deviation: str | Path | None = None,
    **unknown: Any,
):
    """Read HCRC dialogues from ``src`` (module docstring; docs/importers.md). ``split``: every
    dialogue's split (None: from the split lists, else the folder, else ``train``); ``split_lists``:
    a folder of the corpus's split lists or one of them (else those in ``src``);
    ``route_deviation``: a table of route deviation scores (else one in ``src``)."""
    from corpus.importers import ImportResult

    src = Path(src)
    if unknown:
        report.add("(options)", "-", ", ".join(sorted(unknown)), f"not an HCRC import option (known: {OPTIONS})")
        return ImportResult(report=report)
    _check_options(condition, split, report)
    if not src.exists():
        report.add(str(src), "-", "(path)", "not found: give a transcript, an NXT moves file or a folder of them")
        return ImportResult(report=report)
    found = discover(src, report)
    sources = _read_sources(found, gmmt, split_lists, route_deviation, split, report)
    if sources is None:
        return ImportResult(report=report)
    dialogues = _dialogues(found, src, report)
    if not dialogues:
        return ImportResult(report=report)
    options = Options(condition=condition, split=split, map_id=map_id, gmmt=gmmt)
    built = _build(dialogues, found, sources, options, report)
    _report_unused(dialogues, sources, options, built, report)
    with_gmmt = bool(built.expressions)
    return ImportResult(
        maps=list(built.maps.values()),
        sessions=built.sessions,
        labels=built.labels,
        report=report,
        description="HCRC Map Task dialogues (HCRC Map Task Corpus, University of Edinburgh and Glasgow) as "
        "message-only sessions, with the HCRC dialogue-move annotation as coder 'hcrc'"
        + (
            ", and GMMT's landmark reference expressions (Grounded Misunderstandings in MapTask, Li, Gatt and "
            "Poesio, LREC 2026, CC BY 4.0) as the 'gmmt' scheme."
            if with_gmmt
            else "."
        ),
        expressions=built.expressions,
        conditions=_design_of(built.sessions),
        source_names={safe_id(d): [d] for d in dialogues},  # what a design table's rows name a session by
    )


def _check_options(condition: str | None, split: str | None, report: Report) -> None:
    """An error for a condition or a split that is not one here."""
    if condition is not None and condition not in schema.CONDITIONS:
        report.add(
            "(options)",
            "-",
            "condition",
            f"unknown condition {condition!r} (expected one of {', '.join(schema.CONDITIONS)})",
        )
    if split is not None and split not in schema.SPLITS:
        report.add("(options)", "-", "split", f"unknown split {split!r} (expected one of {', '.join(schema.SPLITS)})")


# ---------------------------------------------------------------------------------------------
# Read: the sources beside the dialogues, and which dialogues there are
# ---------------------------------------------------------------------------------------------


def _read_sources(
    found: Found,
    gmmt: str | Path | None,
    split_lists: str | Path | None,
    route_deviation: str | Path | None,
    split: str | None,
    report: Report,
) -> Sources | None:
    """The GMMT annotations, map tables, split lists and route deviation scores, each from the
    option that names it or else from the source; None, with an error, when an option names
    nothing usable."""
    annotations = gmmt_files(found.gmmt, found.root)
    tables = list(found.tables)
    if gmmt is not None:
        given = _gmmt_option(gmmt, report)
        if given is None:
            return None
        g_root, g_paths, g_tables = given
        tables += g_tables
        _merge_annotations(annotations, gmmt_files(g_paths, g_root))
    lists = _split_lists(found, split_lists, split, report)
    if lists is None:
        return None
    deviation_files, deviation_root = found.deviation, found.root
    if route_deviation is not None:
        given_table = _deviation_option(route_deviation, report)
        if given_table is None:
            return None
        deviation_files, deviation_root = [given_table], given_table.parent
    deviations = read_deviation(deviation_files, deviation_root, report)
    return Sources(annotations, tables, lists, deviations, deviation_files, deviation_root)


def _merge_annotations(annotations: dict[str, list[GmmtFiles]], given: dict[str, list[GmmtFiles]]) -> None:
    """Adds the given GMMT files to those of the source, one per dialogue and coder (the
    source's first)."""
    for dlg, files in given.items():
        held = annotations.setdefault(dlg, [])
        held += [f for f in files if all(h.coder != f.coder for h in held)]


def _split_lists(found: Found, split_lists: str | Path | None, split: str | None, report: Report) -> SplitLists | None:
    """The split lists the option names, else those of the source (a warning when a ``split``
    given for every dialogue leaves them unused); None, with an error, when the option names none."""
    lists_found, lists_root = found.split_lists, found.root
    if split_lists is not None:
        given = _split_lists_option(split_lists, report)
        if given is None:
            return None
        lists_root, lists_found = given
    lists = read_split_lists(lists_found, lists_root, report)
    if split is not None and lists.lists:
        report.add(
            lists.lists[0],
            "-",
            "split",
            f"the split lists ({', '.join(lists.lists)}) are not used: split {split!r} is given for every dialogue",
            WARNING,
        )
    return lists


def _dialogues(found: Found, src: Path, report: Report) -> list[str]:
    """The dialogues to import, sorted: those with a ``speaker|text|move`` transcript of one
    dialogue or NXT moves. A transcript of several dialogues is left out with a warning (an error
    when nothing else is there); none at all is an error saying what was found."""
    concatenated = _concatenated(found)
    dialogues = sorted(set(found.pipes) | {d for d, f in found.nxt.items() if any(k.endswith("moves") for k in f)})
    for rel, why in concatenated.items():  # (an error when nothing else is there to import)
        report.add(
            rel,
            "-",
            "(file)",
            why + ("; the source's other dialogues are imported" if dialogues else ""),
            WARNING if dialogues else ERROR,
        )
    _transcripts_without_moves(found, dialogues, report)
    if not dialogues and not concatenated:
        report.add(str(src), "-", "(source)", _no_dialogue_message(found))
    return dialogues


def _concatenated(found: Found) -> dict[str, str]:
    """Takes the transcripts of several dialogues out of ``found.pipes``: file -> why it holds
    several dialogues."""
    concatenated: dict[str, str] = {}
    for d, path in sorted(found.pipes.items()):
        why = concatenation(path)
        if why is not None:
            concatenated[_rel(path, found.root)] = why
            del found.pipes[d]
    return concatenated


def _transcripts_without_moves(found: Found, dialogues: list[str], report: Report) -> None:
    """A warning for each NXT query transcript of a dialogue with no moves (it is not imported)."""
    for d, f in sorted(found.nxt.items()):
        if d not in dialogues and "transcript" in f and not any(k.endswith("timed-units") for k in f):
            report.add(
                _rel(f["transcript"], found.root),
                f"dialogue {d}",
                "(file)",
                f"a transcript of {d} but no moves of it: expected {d}.g.moves.xml and {d}.f.moves.xml "
                f"(in the archive: {MOVES_FOLDER}/{d}.g.moves.xml); the transcript is not imported",
                WARNING,
            )


def _read_dialogue(dlg: str, found: Found, report: Report) -> tuple[list[Move], str, Path] | None:
    """A dialogue's moves, where they are from (for its notes) and the file that stands for it;
    None when reading them found errors or no moves (an error)."""
    n_before = len(report.errors)
    if dlg in found.pipes:
        path = found.pipes[dlg]
        source = _rel(path, found.root)
        moves = read_pipe_transcript(path, report, source)
    else:
        moves = read_nxt(dlg, found.nxt[dlg], found.root, report)
        source = "NXT move files"
        path = found.nxt[dlg].get("g.moves") or found.nxt[dlg].get("f.moves") or found.root / dlg
    if len(report.errors) > n_before:
        return None
    if not moves:
        report.add(source, f"dialogue {dlg}", "(dialogue)", "no moves: expected at least one move with its words")
        return None
    return moves, source, path


# ---------------------------------------------------------------------------------------------
# Build: a session per dialogue, with its labels
# ---------------------------------------------------------------------------------------------


def _build(dialogues: list[str], found: Found, sources: Sources, options: Options, report: Report) -> Built:
    """Each dialogue read and built into a session on its map, with its HCRC moves and GMMT labels."""
    built = Built()
    map_table = _read_map_table(sources.tables, report)
    grid = grid_for_image(*HCRC_MAP_PIXELS)
    for dlg in dialogues:
        read = _read_dialogue(dlg, found, report)
        if read is None:
            continue
        moves, source, path = read
        hcrc_map = options.map_id or map_table.get(dlg)
        mid = safe_id(f"hcrc-{hcrc_map}") if hcrc_map else "hcrc-unknown-map"
        if mid not in built.maps:
            what = f"HCRC map {hcrc_map}" if hcrc_map else "HCRC map (unknown)"
            built.maps[mid] = placeholder_map(
                mid, f"{what} (placeholder: {grid[0]}x{grid[1]} grid, no landmarks or route)", grid
            )
        built.sessions.append(_session(dlg, moves, source, path, mid, found.root, sources, options, built, report))
    return built


def _actions(moves: list[Move], sid: str, labels: list[dict[str, Any]]) -> tuple[list[Action], bool]:
    """A dialogue's moves as message actions (adding each one's HCRC label to ``labels``), and
    whether they are timed: times from the moves' starts when every move has one, else one second
    per move; never going back."""
    starts = [m.start for m in moves if m.start is not None]
    timed = len(starts) == len(moves)
    t0 = starts[0] if timed else 0.0
    actions: list[Action] = []
    for k, m in enumerate(moves):
        t = round(max(starts[k] - t0, 0.0), 3) if timed else float(k)
        if actions and t < actions[-1].timestamp:
            t = actions[-1].timestamp
        actions.append(Action(index=k, timestamp=t, role=m.role, type="message", content=m.text))
        labels.append(
            {
                "scheme": SCHEME,
                "session_id": sid,
                "action_index": k,
                "coder": CODER,
                "code": m.code,
                "partition": PARTITION,
            }
        )
    return actions, timed


def _annotate(
    dlg: str, sid: str, actions: list[Action], moves: list[Move], sources: Sources, built: Built, report: Report
) -> str:
    """A dialogue's GMMT labels and expressions added to ``built``, and what its notes say of them
    ("" when it has no GMMT annotations)."""
    if dlg not in sources.annotations:
        return ""
    built.annotated.add(dlg)
    # (expressions are found among the words: the marks of silences and noises are left out)
    spoken = [a if m.words is None else a.model_copy(update={"content": m.words}) for a, m in zip(actions, moves)]
    gmmt_labels, details = annotate_session(sid, dlg, spoken, sources.annotations[dlg], report)
    built.labels += gmmt_labels
    built.expressions += details
    coders = ", ".join(f"'{f.coder}'" for f in sources.annotations[dlg])
    return (
        f"; GMMT landmark reference expressions: {len(details)} in labels/gmmt_expressions.jsonl, "
        f"the state of each move holding some in labels/gmmt.csv (coder {coders})"
    )


def _deviation_of(dlg: str, sources: Sources, report: Report) -> tuple[float, str] | None:
    """A dialogue's route deviation score and the file it is from; a warning when the tables
    have none of it."""
    deviation = sources.deviations.get(dlg)
    if sources.deviation_files and deviation is None:
        report.add(
            _rel(sources.deviation_files[0], sources.deviation_root),
            f"dialogue {dlg}",
            DEVIATION_COLUMN,
            f"no route deviation score of {dlg} there: the session has none",
            WARNING,
        )
    return deviation


def _session(
    dlg: str,
    moves: list[Move],
    source: str,
    path: Path,
    mid: str,
    root: Path,
    sources: Sources,
    options: Options,
    built: Built,
    report: Report,
) -> Session:
    """One dialogue's session: its actions and labels, condition, split and route deviation, with
    notes saying where each comes from."""
    sid = safe_id(dlg)
    actions, timed = _actions(moves, sid, built.labels)
    timing = "move start times from the NXT timed units" if timed else "no timing in the source: one second per move"
    gmmt_note = _annotate(dlg, sid, actions, moves, sources, built, report)
    cond = options.condition or condition_of(dlg)
    sess_split, split_how = _split_of(dlg, path, options.split, sources.lists, _rel(path, root), report)
    deviation = _deviation_of(dlg, sources, report)
    deviation_note = f"; route deviation {deviation[0]:g} from {deviation[1]}" if deviation else ""
    return Session(
        id=sid,
        condition=cond,
        split=sess_split,
        map_id=mid,
        duration_s=actions[-1].timestamp,
        participants=[
            Participant(role="guide", id=f"{dlg}-giver"),
            Participant(role="follower", id=f"{dlg}-follower"),
        ],
        actions=actions,
        route_deviation=deviation[0] if deviation else None,
        notes=f"HCRC Map Task dialogue {dlg} from {source}; giver = guide, follower = follower; {timing}; "
        f"condition {cond} ({'as given' if options.condition else 'from the dialogue id'}); "
        f"split {sess_split} ({split_how}){deviation_note}; "
        f"moves in labels/hcrc_moves.csv (coder '{CODER}'){gmmt_note}",
    )


# ---------------------------------------------------------------------------------------------
# Report: what was given and not used
# ---------------------------------------------------------------------------------------------


def _report_unused(dialogues: list[str], sources: Sources, options: Options, built: Built, report: Report) -> None:
    """A warning for GMMT annotations of dialogues not in the source; an error when GMMT files
    were given and none of the imported dialogues has annotations there."""
    unused = sorted(set(sources.annotations) - set(dialogues))
    if unused:
        first = sources.annotations[unused[0]][0]
        report.add(
            _rel(first.annotated, first.root),
            "-",
            "(file)",
            f"GMMT annotations of {len(unused)} dialogue(s) not in the source are not used "
            f"({', '.join(unused[:5])}{', ...' if len(unused) > 5 else ''})",
            WARNING,
        )
    if options.gmmt is not None and built.sessions and not built.annotated:
        report.add(
            str(options.gmmt),
            "-",
            "gmmt",
            f"no GMMT annotations of the imported dialogue(s) ({', '.join(dialogues[:5])}"
            f"{', ...' if len(dialogues) > 5 else ''}): expected <dialogue>.annotated.json for one of them",
        )
