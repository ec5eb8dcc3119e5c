"""Command line: ``python -m corpus validate|stats|generate|import ...``.

- ``validate PATH``: every problem of any dataset Groundwork reads (Map Task, kitchen, benchmark, a plugin's)
  as a table; exit 1 if any is an error.
- ``stats PATH [--json]``: the dataset's numbers, in one shape for every domain
  (:mod:`analysis.dataset_stats`): for Map Task sessions the paper's Table 1 and Table 8, overall,
  per condition and per split.
- ``generate --seed N OUT``: write the synthetic sample corpus.
- ``generate-kitchen [--runs N] OUT``: write the synthetic sample kitchen runs.
- ``generate-tom [--trials N] [--raw] OUT``: write the synthetic sample benchmark (DynToM's format;
  ``--raw``: the trial folders as released, not a dataset).
- ``import [--from platform|hcrc|overcooked|dyntom|maptask-vlm] [--design TABLE.csv] SRC DEST``: convert
  another format into a dataset directory (the format told from the file names when not given; the
  design table gives each Map Task session's condition and split: :mod:`corpus.design`).
- ``users add|list|passwd|reset|disable|enable|delete|setup-token``: the accounts of the label
  database the app uses (see :mod:`corpus.cli.users`).
- ``uploads list|reclaim``: the uploaded datasets the server keeps (:mod:`corpus.cli.uploads`).
- ``maps attach DATASET MAP.json --sessions S1,S2 [--follower MAP_F.json]``, ``maps check MAP.json``:
  maps from the map editor (:mod:`corpus.mapedit.cli`).
- ``split DATASET --test-size N [--seed S] OUT``: a copy of the dataset with the distribution-matched
  test split of the paper's Appendix E (N test sessions per condition).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

from corpus import schema


def _validate(args: argparse.Namespace) -> int:
    from corpus.loading.validate import validate_path

    domain, report = validate_path(args.path)  # by its domain's validator (the registry): one report shape
    if args.json:
        print(json.dumps({"ok": report.ok, "domain": domain, "issues": report.table()}, indent=2))
    else:
        print(report.format())
        n_err, n_warn = len(report.errors), len(report.warnings)
        print(f"\n{args.path}: {domain or 'dataset'}, {n_err} error(s), {n_warn} warning(s)", file=sys.stderr)
    return 0 if report.ok else 1


def _stats(args: argparse.Namespace) -> int:
    from analysis.dataset_stats import format_any, stats_of
    from corpus.loading.validate import DatasetError

    try:
        stats = stats_of(args.path)  # by its domain's reader and statistics: one shape
    except DatasetError as exc:
        print(exc.report.format(), file=sys.stderr)
        print(f"\n{exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(stats, indent=2))
    else:
        print(format_any(stats))
    return 0


def _generate(args: argparse.Namespace) -> int:
    from corpus.generate import generate

    def progress(done: int, total: int) -> None:
        if done % 1000 == 0 or done == total:
            print(f"  {done:,} of {total:,} sessions written", file=sys.stderr, flush=True)

    out = generate(
        seed=args.seed, out=Path(args.out), n_sessions=args.sessions, overwrite=args.overwrite, progress=progress
    )
    print(f"wrote {out}")
    return 0


def _generate_tom(args: argparse.Namespace) -> int:
    from corpus.generate.tom import write_dyntom_trials, write_sample_benchmark

    if args.raw:
        out = write_dyntom_trials(Path(args.out), args.trials, seed=args.seed)
    else:
        out = write_sample_benchmark(Path(args.out), args.trials, seed=args.seed, overwrite=args.overwrite)
    print(f"wrote {out}")
    return 0


def _generate_kitchen(args: argparse.Namespace) -> int:
    from corpus.generate.kitchen import write_sample_kitchen

    out = write_sample_kitchen(Path(args.out), args.runs, seed=args.seed, overwrite=args.overwrite)
    print(f"wrote {out}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from corpus.importers import run_import
    from corpus.loading.validate import DatasetError

    if args.source_format is None:
        from corpus.importers.detect import NotRecognised, detect_path

        try:
            found = detect_path(Path(args.src))
        except (NotRecognised, OSError, ValueError) as exc:
            print(
                f"{args.src}: {exc}; or name the format with --from platform|hcrc|overcooked|dyntom|maptask-vlm",
                file=sys.stderr,
            )
            return 1
        if found.fmt is None:
            print(
                f"{args.src} is a Groundwork dataset already (found {found.evidence}): nothing to import",
                file=sys.stderr,
            )
            return 1
        print(f"{found.sentence()} Name the format with --from if that is wrong.")
        args.source_format = found.fmt
    options: dict = {}
    if args.condition:
        options["condition"] = args.condition
    if args.split:
        options["split"] = args.split
    if args.design:
        options["design"] = Path(args.design)
    if args.source_format == "platform":
        if args.ink_share is not None:
            options["ink_share"] = args.ink_share
        if args.grid:
            options["grid"] = tuple(args.grid)
        if args.map:
            options["map_path"] = Path(args.map)
        if args.landmark_names:
            options["landmark_names"] = Path(args.landmark_names)
    elif args.source_format == "maptask-vlm":
        if args.gold:
            options["gold"] = [Path(g) for g in args.gold]
        if args.sessions:
            options["sessions"] = Path(args.sessions)
    elif args.source_format == "hcrc":
        if args.map_id:
            options["map_id"] = args.map_id
        if args.gmmt:
            options["gmmt"] = Path(args.gmmt)
    try:
        out = run_import(args.source_format, Path(args.src), Path(args.dest), overwrite=args.overwrite, **options)
    except DatasetError as exc:
        print(exc.report.format(), file=sys.stderr)
        print(f"\n{exc}", file=sys.stderr)
        return 1
    print(f"wrote {out}")
    return 0


def _split(args: argparse.Namespace) -> int:
    from analysis.split import distribution_matched_split
    from corpus.loading.dataset import load
    from corpus.loading.validate import DatasetError
    from corpus.splits import write_with_splits

    try:
        corpus = load(args.dataset)
        sizes = {c: args.test_size for c in corpus.sessions_df["condition"].astype(str).unique()}
        result = distribution_matched_split(corpus.actions_df, corpus.sessions_df, sizes, seed=args.seed)
        out = write_with_splits(args.dataset, Path(args.out), result.assignment(), overwrite=args.overwrite)
    except DatasetError as exc:
        print(exc.report.format(), file=sys.stderr)
        print(f"\n{exc}", file=sys.stderr)
        return 1
    except (ValueError, FileExistsError) as exc:
        print(f"split: {exc}", file=sys.stderr)
        return 1
    for cond, cs in result.by_condition.items():
        print(f"{cond}: test = {', '.join(cs.test)}; objective {cs.objective:.4f}; {cs.search}")
    print(f"wrote {out}")
    return 0


def run_command(main: Callable[[], int]) -> int:
    """``main``'s exit status, as ``python -m corpus`` and ``python -m analysis`` end: output cut short by
    a reader that went away (``... | head``) ends the command quietly with status 1, never a
    traceback (Python's own flush at exit then writes nowhere)."""
    try:
        code = main()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m corpus", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("validate", help="report every problem of a dataset directory or .zip (any domain)")
    p.add_argument("path")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_validate)

    p = sub.add_parser("stats", help="a dataset's numbers (Map Task: Table 1 / Table 8), overall and per group")
    p.add_argument("path")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_stats)

    p = sub.add_parser("generate", help="write the synthetic sample corpus")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument(
        "--sessions",
        type=int,
        default=25,
        help="number of sessions (default 25, as in the paper; about 100 actions each, written as they are made)",
    )
    p.add_argument("--overwrite", action="store_true")
    p.add_argument("out")
    p.set_defaults(func=_generate)

    p = sub.add_parser("generate-tom", help="generate a synthetic theory-of-mind benchmark (DynToM's released format)")
    p.add_argument("--trials", type=int, default=12)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--raw", action="store_true", help="write the trial folders as released, not a dataset")
    p.add_argument("--overwrite", action="store_true")
    p.add_argument("out")
    p.set_defaults(func=_generate_tom)

    p = sub.add_parser("generate-kitchen", help="generate synthetic kitchen runs (the bundled kitchen sample)")
    p.add_argument("--runs", type=int, default=3, help="runs per pairing and recipe")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--overwrite", action="store_true")
    p.add_argument("out")
    p.set_defaults(func=_generate_kitchen)

    p = sub.add_parser("import", help="convert another format into a dataset directory")
    p.add_argument(
        "--from",
        dest="source_format",
        choices=["platform", "hcrc", "overcooked", "dyntom", "maptask-vlm", "synchtom"],
        help="the source's format (default: told from its file names, and said); overcooked: kitchen runs "
        "(Collab-Overcooked run logs or Overcooked-AI trajectories: a file, a folder at any depth, or a zip); "
        "dyntom: DynToM theory-of-mind trials (a trial folder, a folder of them at any depth, or a zip); "
        "maptask-vlm: Map Task VLM predictions (vlm_predictions_<model>.jsonl) with --gold and --sessions; "
        "synchtom: SynchToM's released items (the release's folder or zip; its evaluation_results/ as judged runs)",
    )
    p.add_argument("--overwrite", action="store_true")
    p.add_argument(
        "--condition", choices=list(schema.CONDITIONS), help="the sessions' condition (default: not recorded)"
    )
    p.add_argument("--split", choices=list(schema.SPLITS), help="the sessions' split (default: not recorded)")
    p.add_argument(
        "--design",
        metavar="TABLE.csv",
        help="platform, hcrc: each session's condition and split from a CSV table with the columns session, "
        "condition and split (session: its name or id as the source gives it; an empty cell keeps --condition / "
        "--split or what the source records); every session needs a row and every row a session",
    )
    p.add_argument(
        "--ink-share", type=float, help="platform: share of a cell the ink must cover to fill it (default 0.10)"
    )
    p.add_argument(
        "--grid", type=int, nargs=2, metavar=("ROWS", "COLS"), help="platform: the grid to rasterize ink onto"
    )
    p.add_argument("--map", help="platform: an annotated map (our JSON format or an ASCII grid map)")
    p.add_argument("--landmark-names", help="platform: names for the ASCII map's landmarks (JSON list or one per line)")
    p.add_argument("--map-id", help="hcrc: the map id the dialogues point to")
    p.add_argument("--gmmt", help="hcrc: a folder of GMMT annotations (or one <dialogue>.annotated.json)")
    p.add_argument(
        "--gold",
        action="append",
        help="maptask-vlm: the gold (a cases table, or the landmark catalogue and the dialogues' maps); repeatable",
    )
    p.add_argument(
        "--sessions", help="maptask-vlm: the imported HCRC dataset whose moments the cases are checked against"
    )
    p.add_argument("src")
    p.add_argument("dest")
    p.set_defaults(func=_import)

    p = sub.add_parser("split", help="a copy of a dataset with the distribution-matched test split (Appendix E)")
    p.add_argument("dataset")
    p.add_argument("--test-size", type=int, required=True, help="test sessions per condition")
    p.add_argument(
        "--seed", type=int, default=0, help="seed of the search when there are too many subsets to score all"
    )
    p.add_argument("--overwrite", action="store_true")
    p.add_argument("out")
    p.set_defaults(func=_split)

    from corpus.cli.users import add_users_commands

    add_users_commands(sub)

    from corpus.cli.uploads import add_uploads_commands

    add_uploads_commands(sub)

    from corpus.mapedit.cli import add_parser as add_maps_parser

    add_maps_parser(sub)

    args = parser.parse_args(argv)
    return args.func(args)
