"""Command line: ``python -m analysis kitchen SOURCE``: the coordination metrics of kitchen runs.

SOURCE is a kitchen dataset (``python -m corpus import --from overcooked RUNS DEST`` writes one) or
the runs themselves: one Collab-Overcooked run log or Overcooked-AI trajectory, a folder of them at
any depth, or a zip. Prints, per directed pairing with each agent's scaffold ("a-tom gpt-4o -> a-tom
claude-sonnet-4"; ``--by`` models, scaffold, level or both of pairing and level instead), each metric's
mean over runs with n and a 95 % interval over runs, success as a share of runs with its Wilson
interval, every estimate that rests on fewer than 10 units or has a zero-width interval marked ``!``
with why (:mod:`analysis.kitchen.metrics`); the paper's Table 4 view (success and ADR per model
pairing, scaffold and level); the TGCO outcome composition per task level (:mod:`analysis.kitchen.tgco`); and
the messages no request unit was read from (unstructured), counted. ``--scaffold`` keeps the runs
where an agent has that scaffold; ``--units`` lists every request unit with its outcome and why;
``--unstructured`` every unstructured message with its text; ``--csv`` and ``--json`` print the same
numbers for a spreadsheet or a program; ``--codes CODES.csv`` sets the audit, as an automatic coder,
against people's TGCO codes of the same units (:mod:`analysis.kitchen.agreement`);
``--reference-audit FILE.csv`` against the TGCO paper's authors' own audit of the same runs
(:mod:`analysis.kitchen.reference`; JSON key ``reference_agreement``).
Exit 1 when the source or a given file has an error (every problem is listed with file, record and
field).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BY = {
    "pairing": ("pairing",),
    "models": ("models",),
    "scaffold": ("scaffold",),
    "level": ("level",),
    "pairing-level": ("pairing", "level"),
}
NONE = "none"  # --scaffold none: the runs whose scaffold is not recorded


def _runs(source: Path):
    """The runs of a kitchen dataset or of run files; raises DatasetError with every problem."""
    from corpus.importers.overcooked import load_runs
    from corpus.kitchen.dataset import is_kitchen, load_kitchen

    if source.is_dir() and is_kitchen(source):
        return load_kitchen(source).runs
    return tuple(load_runs(source))


@dataclass(frozen=True)
class _Result:
    """What the command reports on the runs: their metrics and tables, the unstructured messages, the
    request units (``--units``) and the agreement with the authors' audit (``--reference-audit``)."""

    source: Path
    runs: Any
    metrics: Any
    table: Any
    table4: Any
    composition: Any
    unstructured: Any
    frame: Any
    reference: Any


def _load(args: argparse.Namespace, source: Path) -> Any:
    """The runs of the source, kept to the scaffolds asked for; the exit status, with the error
    printed, when the source is missing or has errors or no run is left."""
    from corpus.loading.report import DatasetError

    if not source.exists():
        print(f"error: {source}: no such file or folder", file=sys.stderr)
        return 2
    try:
        runs = _runs(source)
    except DatasetError as exc:
        print(exc.report.format(), file=sys.stderr)
        print(f"\n{exc}", file=sys.stderr)
        return 1
    if args.scaffold:
        runs = _with_scaffold(runs, args.scaffold)
        if not runs:
            print(f"error: no run has an agent with the scaffold {', '.join(args.scaffold)}", file=sys.stderr)
            return 1
    return runs


def _window(args: argparse.Namespace) -> Any:
    """The window asked for: level-normalized, fixed, or fixed at ``--window-steps``."""
    from analysis.kitchen.tgco import FIXED_WINDOW, LEVEL_WINDOW, Window

    window = FIXED_WINDOW if args.window == "fixed" else LEVEL_WINDOW
    if args.window_steps is not None:
        window = Window("fixed", steps=args.window_steps)
    return window


def _print_json(args: argparse.Namespace, r: _Result) -> None:
    """The report as JSON."""
    from analysis.format import to_json

    out = {
        "source": str(r.source),
        "runs": len(r.runs),
        "window": sorted({m.window_rule for m in r.metrics}),
        "pairings": sorted({m.pairing for m in r.metrics}),
        "scaffolds": sorted({m.scaffold or NONE for m in r.metrics}),
        "metrics": r.table.to_json(),
        "table4": r.table4.to_json(),
        "composition": r.composition.to_json(),
        "unstructured": {"count": len(r.unstructured), "messages": r.unstructured.to_dict(orient="records")},
    }
    if args.units:
        out["units"] = r.frame.to_dict(orient="records")
    if r.reference is not None:
        out["reference_agreement"] = r.reference.to_json()
    print(json.dumps(to_json(out), indent=2))


def _print_csv(args: argparse.Namespace, r: _Result) -> None:
    """One table of the report as CSV: the unstructured messages, the units or the metrics."""
    from corpus.csvsafe import to_csv

    if args.unstructured:
        sys.stdout.write(to_csv(r.unstructured))
    else:
        sys.stdout.write(to_csv(r.frame if args.units else r.table.to_frame()))


def _print_text(args: argparse.Namespace, r: _Result) -> None:
    """The report as text tables."""
    print(f"{r.source}: {len(r.runs)} run(s), {sum(m.requests for m in r.metrics)} request units\n")
    print(_summary(r.table))
    print()
    print(_summary(r.table4))
    print()
    print(_summary(r.composition))
    print(
        f"\n{len(r.unstructured)} unstructured message(s): no request unit read from them (--unstructured lists them)"
    )
    if args.unstructured:
        print(r.unstructured.to_string(index=False))
    if args.units:
        print()
        print(r.frame.to_string(index=False))
    if r.reference is not None:
        print()
        print(r.reference.summary())
        dis = r.reference.disagreements()
        print(f"\n{len(dis)} disagreement(s):")
        for d in dis.itertuples(index=False):
            print(
                f"- {d.run} step {d.step}, {d.sender}: {d.request}: ours {d.ours} ({d[7]}), theirs {d.theirs} ({d[9]})"
            )


def _kitchen(args: argparse.Namespace) -> int:
    from analysis.kitchen.metrics import kitchen_metrics, metric_table, outcome_composition, scaffold_table

    source = Path(args.source)
    runs = _load(args, source)
    if isinstance(runs, int):
        return runs
    metrics = kitchen_metrics(runs, _window(args))
    table = metric_table(metrics, by=BY[args.by], interval=args.interval, seed=args.seed)
    composition = outcome_composition(metrics)
    table4 = scaffold_table(metrics, interval=args.interval, seed=args.seed)
    frame = _units(metrics).drop(columns="run") if args.units else None
    if args.codes:
        return _rule_agreement(args, metrics)
    reference = None
    if args.reference_audit:
        reference = _reference(Path(args.reference_audit), runs, metrics)
        if reference is None:
            return 1
    result = _Result(source, runs, metrics, table, table4, composition, _unstructured(metrics), frame, reference)
    if args.json:
        _print_json(args, result)
    elif args.csv:
        _print_csv(args, result)
    else:
        _print_text(args, result)
    return 0


def _summary(table) -> str:
    """A table of estimates as lines, an estimate with a warning marked ``!`` and its warnings said."""
    from analysis.format import fmt, fmt_interval
    from corpus.values import is_defined

    lines = [table.title] if table.title else []
    for r in table.rows:
        where = ", ".join(f"{k}={r[k]}" for k in table.keys if k in r)
        ci = f" {fmt_interval((r['ci_low'], r['ci_high']))}" if is_defined(r["ci_low"]) else ""
        warned = is_defined(r["estimate"]) and bool(r.get("note"))
        lines.append(
            f"{where}: {r['name']} {fmt(r['estimate'])}{ci} (n={r['n']})" + (f" ! {r['note']}" if warned else "")
        )
    return "\n".join(lines + list(table.notes))


def _with_scaffold(runs, wanted: list[str]):
    """The runs where an agent has one of the ``wanted`` scaffolds (``none``: not recorded)."""
    keep = {w.lower() for w in wanted}
    return tuple(r for r in runs if {s.lower() or NONE for s in r.scaffolds} & keep)


def _unstructured(metrics):
    """Every message no request unit was read from: run, turn, step, sender and its text."""
    import pandas as pd

    from corpus.kitchen.run import ROLES

    rows = [
        {
            "run_id": m.run_id,
            "turn": msg.turn,
            "step": msg.step,
            "sender": ROLES[msg.sender] if msg.sender in (0, 1) else str(msg.sender),
            "text": msg.text,
        }
        for m in metrics
        for msg in m.audit.unstructured
    ]
    return pd.DataFrame(rows, columns=["run_id", "turn", "step", "sender", "text"])


def _reference(path: Path, runs, metrics):
    """``--reference-audit FILE.csv``: the authors' audit read and compared, or None with every
    problem of the file printed."""
    from analysis.kitchen.reference import compare, read_csv_bytes, read_reference

    try:
        data = path.read_bytes()
    except OSError as exc:
        print(f"error: {path}: cannot be read: {exc.strerror or exc}", file=sys.stderr)
        return None
    frame, report = read_csv_bytes(data, path.name)
    rows: list = []
    if frame is not None:
        rows, report = read_reference(frame, path.name)
    if not report.ok:
        print(report.format(), file=sys.stderr)
        print(f"\n{path.name}: {report.error_count} error(s); nothing was compared", file=sys.stderr)
        return None
    by_id = {m.run_id: m for m in metrics}
    return compare([(r, by_id[r.id].audit.units) for r in runs], rows, windows=sorted({m.window_rule for m in metrics}))


def _rule_agreement(args: argparse.Namespace, metrics) -> int:
    """``--codes CODES.csv``: the TGCO rule against people's codes of the same request units."""
    import pandas as pd

    from analysis.format import to_json
    from analysis.kitchen.agreement import RULE, read_codes, rule_agreement
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

    from corpus.kitchen.run import ROLES

    frames = [m.audit.frame().assign(run_id=m.run_id, pairing=m.pairing, scaffold=m.scaffold) for m in metrics]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["sender"])
    name = lambda a: ROLES[a] if a in (0, 1) else a  # noqa: E731
    return out.assign(sender=[name(a) for a in out["sender"]], target=[name(a) for a in out["target"]])


def add_commands(sub) -> None:
    """Register ``kitchen`` on an argparse subparsers object."""
    p = sub.add_parser("kitchen", help="coordination metrics and the TGCO audit of kitchen runs (Collab-Overcooked)")
    p.add_argument("source", help="a kitchen dataset, or run files: one file, a folder at any depth, or a zip")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="every number as JSON")
    fmt.add_argument("--csv", action="store_true", help="the metric table (or, with --units, the units) as CSV")
    p.add_argument(
        "--by",
        choices=list(BY),
        default="pairing",
        help="rows per pairing with scaffolds (default), model pairing, scaffold, level, or pairing and level",
    )
    p.add_argument(
        "--scaffold",
        action="append",
        metavar="NAME",
        help="keep the runs where an agent has this scaffold (baseline, proagent, a-tom, reflexion; none: not "
        "recorded); repeatable",
    )
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
        "--unstructured",
        action="store_true",
        help="also list every message no request unit was read from, with its text (with --csv: only those)",
    )
    p.add_argument(
        "--reference-audit",
        metavar="FILE.csv",
        help="the TGCO authors' own audit (their tgco_request_units.csv): units matched to ours, agreement "
        "(matched, only ours, only theirs, Cohen's kappa with its interval, the confusion) and every disagreement",
    )
    p.add_argument(
        "--codes",
        metavar="CODES.csv",
        help="people's TGCO codes of request units (run_id, turn, unit, coder, code): the automatic coder's "
        "agreement with them",
    )
    p.set_defaults(func=_kitchen)
