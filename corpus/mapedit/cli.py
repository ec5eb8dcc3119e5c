"""``python -m corpus maps ...``: maps made in the map editor, from the command line.

- ``maps attach DATASET MAP.json --sessions S1,S2 [--follower MAP_F.json] [--out DEST]``: the
  sessions get the map (and the Follower's landmarks from ``MAP_F.json``); the dataset is written
  again and validated; prints each session's accuracy, coverage and distance-weighted score.
- ``maps check MAP.json``: the editor's checks of a map (route connected, from start to finish,
  crossing no blocked landmark; landmarks inside the grid and not overlapping); exit 1 on an error.
"""

from __future__ import annotations

import argparse
import sys


def _score(v: float | None) -> str:
    return "undefined" if v is None else f"{v:.3f}"


def _attach(args: argparse.Namespace) -> int:
    from corpus.loading.validate import DatasetError
    from corpus.mapedit.attach import attach_maps
    from corpus.mapedit.mapfile import read_map_file

    try:
        guide = read_map_file(args.map)
        follower = read_map_file(args.follower) if args.follower else None
        result = attach_maps(args.dataset, guide, args.sessions, follower=follower, dest=args.out)
    except DatasetError as exc:
        print(exc.report.format(), file=sys.stderr)
        print(f"\n{exc}; nothing was changed", file=sys.stderr)
        return 1
    print(f"map '{result.map_id}' attached in {result.dest}")
    if args.out is None:
        _move_tasks(result.old_hash, result.content_hash)
    else:
        print(f"the coding tasks on {args.dataset} stay with it; {result.dest} is a new dataset")
    print(f"{'session':<24} {'previous map':<24} {'accuracy':>9} {'coverage':>9} {'distance-weighted':>18}")
    for sid, sc in result.scores.items():
        print(
            f"{sid:<24} {result.previous[sid]:<24} {_score(sc.accuracy):>9} {_score(sc.coverage):>9} {_score(sc.distance_weighted):>18}"
        )
    return 0


def _move_tasks(old_hash: str, new_hash: str) -> None:
    """Move the label database's coding tasks on the dataset to its new content hash, and say so."""
    from corpus.settings import Settings

    try:
        moved = Settings.load().open_store().move_dataset(None, old_hash, new_hash)
    except Exception as exc:  # noqa: BLE001 - the dataset is written; the tasks can be moved later
        print(
            f"the coding tasks could not be moved to the rewritten dataset ({exc}); "
            f"they still name its content hash {old_hash[:12]}",
            file=sys.stderr,
        )
        return
    if moved:
        print(f"coding tasks moved to the rewritten dataset (labels and gold kept): {', '.join(moved)}")


def _check(args: argparse.Namespace) -> int:
    from corpus.loading.validate import DatasetError
    from corpus.mapedit.checks import ERROR, check, fmt_cells
    from corpus.mapedit.draft import from_gridmap
    from corpus.mapedit.mapfile import read_map_file

    try:
        gm = read_map_file(args.map)
    except DatasetError as exc:
        print(exc.report.format(), file=sys.stderr)
        return 1
    problems = check(from_gridmap(gm))
    for p in problems:
        print(f"{p.severity:<8} {p.message}" + (f"  cells: {fmt_cells(p.cells)}" if p.cells else ""))
    n_err = sum(p.severity == ERROR for p in problems)
    print(f"{args.map}: {n_err} error(s), {len(problems) - n_err} warning(s)", file=sys.stderr)
    return 1 if n_err else 0


def add_parser(sub) -> None:
    """The ``maps`` command group on the ``python -m corpus`` parser."""
    p = sub.add_parser("maps", help="maps drawn in the map editor: check them, attach them to sessions")
    maps_sub = p.add_subparsers(dest="maps_command", required=True)
    a = maps_sub.add_parser(
        "attach", help="give sessions of a dataset a map (the dataset is written again and validated)"
    )
    a.add_argument("dataset", help="a dataset directory")
    a.add_argument("map", help="the Guide's map (map JSON, e.g. exported from the map editor)")
    a.add_argument("--sessions", required=True, help="comma-separated session ids, e.g. S1,S2")
    a.add_argument("--follower", help="the Follower's map: its landmarks become the map's follower_landmarks")
    a.add_argument("--out", help="write the result here instead of over the dataset")
    a.set_defaults(func=_attach)
    c = maps_sub.add_parser("check", help="the map editor's checks of a map JSON")
    c.add_argument("map")
    c.set_defaults(func=_check)
