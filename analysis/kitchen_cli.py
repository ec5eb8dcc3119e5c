"""Command line: ``python -m analysis kitchen SOURCE``: the coordination metrics of kitchen runs.

SOURCE is a kitchen dataset (``python -m corpus import --from overcooked RUNS DEST`` writes one) or
the runs themselves: one Collab-Overcooked run log or Overcooked-AI trajectory, a folder of them at
any depth, or a zip. Prints, per directed role pairing (Chef model -> Assistant model), each metric's
mean over runs with n and a 95 % interval over runs (:mod:`analysis.kitchen_metrics`), and the TGCO
outcome composition per task level (:mod:`analysis.tgco`); ``--units`` lists every request unit with
its outcome and why; ``--csv`` and ``--json`` print the same numbers for a spreadsheet or a program;
``--codes CODES.csv`` sets the audit, as an automatic coder, against people's TGCO codes of the same
units (:mod:`analysis.tgco_agreement`).
Exit 1 when the source has an error (every problem is listed with file, record and field).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

BY = {"pairing": ("pairing",), "level": ("level",), "pairing-level": ("pairing", "level")}


def _runs(source: Path):
    """The runs of a kitchen dataset or of run files; raises DatasetError with every problem."""
    from corpus.importers.overcooked import load_runs
    from corpus.kitchen_dataset import is_kitchen, load_kitchen

    if source.is_dir() and is_kitchen(source):
        return load_kitchen(source).runs
    return tuple(load_runs(source))


def _kitchen(args: argparse.Namespace) -> int:
    from analysis.format import to_json
    from analysis.kitchen_metrics import kitchen_metrics, metric_table, outcome_composition
    from analysis.tgco import FIXED_WINDOW, LEVEL_WINDOW, Window
    from corpus.csvsafe import to_csv
    from corpus.report import DatasetError

    source = Path(args.source)
    if not source.exists():
        print(f"error: {source}: no such file or folder", file=sys.stderr)
        return 2
    try:
        runs = _runs(source)
    except DatasetError as exc:
        print(exc.report.format(), file=sys.stderr)
        print(f"\n{exc}", file=sys.stderr)
        return 1
    window = FIXED_WINDOW if args.window == "fixed" else LEVEL_WINDOW
    if args.window_steps is not None:
        window = Window("fixed", steps=args.window_steps)
    metrics = kitchen_metrics(runs, window)
    table = metric_table(metrics, by=BY[args.by], interval=args.interval, seed=args.seed)
    composition = outcome_composition(metrics)
    if args.units:
        frame = _units(metrics).drop(columns="run")
    if args.codes:
        return _rule_agreement(args, metrics)
    if args.json:
        out = {
            "source": str(source),
            "runs": len(runs),
            "window": sorted({m.window_rule for m in metrics}),
            "metrics": table.to_json(),
            "composition": composition.to_json(),
        }
        if args.units:
            out["units"] = frame.to_dict(orient="records")
        print(json.dumps(to_json(out), indent=2))
        return 0
    if args.csv:
        sys.stdout.write(to_csv(frame if args.units else table.to_frame()))
        return 0
    print(f"{source}: {len(runs)} run(s), {sum(m.requests for m in metrics)} request units\n")
    print(table.summary())
    print()
    print(composition.summary())
    if args.units:
        print()
        print(frame.to_string(index=False))
    return 0


def _rule_agreement(args: argparse.Namespace, metrics) -> int:
    """``--codes CODES.csv``: the TGCO rule against people's codes of the same request units."""
    import pandas as pd

    from analysis.format import to_json
    from analysis.tgco_agreement import RULE, read_codes, rule_agreement
    from corpus.codebook import bundled

    codes = [c.code for c in bundled()["tgco"].codes]
    path = Path(args.codes)
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        print(f"error: {path}: cannot be read as CSV: {exc}", file=sys.stderr)
        return 1
    people, report = read_codes(frame, _units(metrics), codes, path.name)
    if not report.ok:
        print(report.format(), file=sys.stderr)
        print(f"\n{path.name}: {report.error_count} error(s); nothing was compared", file=sys.stderr)
        return 1
    if people.empty:
        print(f"error: {path.name} holds no codes", file=sys.stderr)
        return 1
    res = rule_agreement(_units(metrics), people, codes)
    if args.json:
        print(json.dumps(to_json(res.to_json()), indent=2))
        return 0
    print(f"{res.n_units} request unit(s) coded by {', '.join(res.coders)}; the automatic coder: {RULE}\n")
    if res.people is not None:
        print("People among themselves:")
        print(res.people.summary())
        print()
    print(f"{RULE} against the {res.against_majority.gold}: {res.against_majority.cohen.summary()}")
    for coder, g in res.against_each.items():
        print(f"{RULE} against {coder}: {g.cohen.summary()}")
    return 0


def _units(metrics):
    """Every request unit: run, step, sender, the request, its outcome and why."""
    import pandas as pd

    from corpus.kitchen import ROLES

    frames = [m.audit.frame().assign(run_id=m.run_id, pairing=m.pairing) for m in metrics]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["sender"])
    return out.assign(sender=[ROLES[s] if s in (0, 1) else s for s in out["sender"]])


def add_commands(sub) -> None:
    """Register ``kitchen`` on an argparse subparsers object."""
    p = sub.add_parser("kitchen", help="coordination metrics and the TGCO audit of kitchen runs (Collab-Overcooked)")
    p.add_argument("source", help="a kitchen dataset, or run files: one file, a folder at any depth, or a zip")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="every number as JSON")
    fmt.add_argument("--csv", action="store_true", help="the metric table (or, with --units, the units) as CSV")
    p.add_argument("--by", choices=list(BY), default="pairing", help="rows per pairing (default), level or both")
    p.add_argument(
        "--window",
        choices=["level", "fixed"],
        default="level",
        help="the acceptance window: level-normalized (0.15 x the level's mean episode length; default) or fixed "
        "(20 steps), as the paper's Table 5",
    )
    p.add_argument("--window-steps", type=int, default=None, metavar="W", help="a fixed window of W steps")
    p.add_argument(
        "--interval", choices=["bootstrap", "t"], default="bootstrap", help="the interval over runs (default bootstrap)"
    )
    p.add_argument("--seed", type=int, default=0, help="the bootstrap's seed")
    p.add_argument("--units", action="store_true", help="also list every request unit with its outcome and why")
    p.add_argument(
        "--codes",
        metavar="CODES.csv",
        help="people's TGCO codes of request units (run_id, turn, unit, coder, code): the automatic coder's "
        "agreement with them",
    )
    p.set_defaults(func=_kitchen)
