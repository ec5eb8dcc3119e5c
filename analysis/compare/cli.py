"""Command line of the comparison (registered under ``python -m analysis``):

- ``compare DATASET [RUN ...] [--json | --csv | --latex]``: the leaderboard the Compare page shows.
  Without RUN, the dataset's own runs (``predictions/``); a RUN is a run folder, a ``.zip`` or a
  ``.jsonl`` file, or the id of one of the dataset's runs. A run with any problem is refused (its
  problems are printed on stderr, with file, line and field) and the others are compared; the exit
  status is then 1.
- ``instances DATASET --task mental_model|next_action --split test --setting base|mental_model
  OUT.jsonl``: the benchmark instances a model runner reads, with the ids predictions carry back.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

MEASURES = ("accuracy", "macro_recall", "macro_f1", "kappa")  # analysis.compare.leaderboard.MEASURES, not imported
# here so that every `python -m analysis` command starts without loading the comparison
EXIT_REFUSED = 1
EXIT_USAGE = 2


def _load(path: str):
    from corpus.dataset import load
    from corpus.validate import DatasetError

    try:
        return load(path)
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        print(exc.report.format(), file=sys.stderr)
    except OSError as exc:
        print(f"error: cannot read {path}: {exc}", file=sys.stderr)
    return None


def _runs(corpus, names: list[str]):
    from corpus.prediction_sources import read_paths

    if not names:
        return list(corpus.predictions.values())
    runs = []
    for name in names:
        if Path(name).exists():
            runs.extend(read_paths([name], corpus.sessions, corpus.maps))
        elif name in corpus.predictions:
            runs.append(corpus.predictions[name])
        else:
            known = ", ".join(corpus.predictions) or "none"
            raise SystemExit(f"error: {name}: no such file, folder or run of the dataset (its runs: {known})")
    return runs


def _text(cmp, measure: str) -> str:
    import pandas as pd

    synthetic = " (synthetic data)" if cmp.synthetic and "synthetic" not in cmp.dataset.lower() else ""
    lines = [f"{cmp.dataset}{synthetic}: {len(cmp.run_ids)} run(s) compared"]
    with pd.option_context("display.width", 250, "display.max_columns", None):
        for task, title in (("next_action", "Next-action prediction"), ("mental_model", "Mental-model prediction")):
            lines += [
                "",
                title,
                cmp.leaderboard(task, measure if task == "mental_model" else "accuracy").table().to_string(),
            ]
        lines += [
            "",
            "Coverage (predictions with no human label: unmatched; instances not predicted: missing)",
            cmp.coverage().to_string(index=False),
        ]
    if cmp.similarity_missing:
        lines += ["", f"SBERT similarity: undefined, because {cmp.similarity_missing}"]
    return "\n".join(lines)


def _compare(args: argparse.Namespace) -> int:
    from analysis.compare.comparison import compare

    corpus = _load(args.dataset)
    if corpus is None:
        return EXIT_USAGE
    runs = _runs(corpus, args.runs)
    cmp = compare(corpus, runs, similarity=not args.no_similarity)
    for run in cmp.refused:
        print(f"run '{run.run_id}' refused ({len(run.report.errors)} error(s)):", file=sys.stderr)
        print(run.report.format(), file=sys.stderr)
    if args.json:
        print(json.dumps(cmp.to_json(), indent=2))
    elif args.csv:
        for k, task in enumerate(("next_action", "mental_model")):
            csv = cmp.leaderboard(task, args.measure if task == "mental_model" else "accuracy").csv_text()
            print(csv if k == 0 else csv.split("\n", 1)[1], end="")
    elif args.latex:
        for task in ("next_action", "mental_model"):
            lb = cmp.leaderboard(task, args.measure if task == "mental_model" else "accuracy")
            print(lb.to_latex(caption=f"{cmp.dataset}: {task.replace('_', '-')} prediction"))
    else:
        print(_text(cmp, args.measure))
    return EXIT_REFUSED if cmp.refused else 0


def _instances(args: argparse.Namespace) -> int:
    from analysis.compare.instances import write_instances

    corpus = _load(args.dataset)
    if corpus is None:
        return EXIT_USAGE
    if args.split not in {s.split for s in corpus.sessions.values()}:
        print(f"error: the dataset has no session in split '{args.split}'", file=sys.stderr)
        return EXIT_USAGE
    n = write_instances(corpus, args.out, args.task, args.split, args.setting)
    print(
        f"wrote {n} {args.task} instance(s) of split '{args.split}' ({args.setting} setting) to {args.out}",
        file=sys.stderr,
    )
    return 0


def add_commands(sub) -> None:
    """Register ``compare`` and ``instances`` on an argparse subparsers object."""
    p = sub.add_parser(
        "compare", help="score model predictions against the people's labels (the Compare page's leaderboard)"
    )
    p.add_argument("dataset", help="dataset directory or .zip")
    p.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="run folders, .zip or .jsonl files, or ids of the dataset's runs (default: the dataset's runs)",
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="every number as JSON")
    fmt.add_argument("--csv", action="store_true", help="the leaderboard cells as CSV (with intervals and n)")
    fmt.add_argument("--latex", action="store_true", help="the leaderboards as LaTeX (booktabs)")
    p.add_argument(
        "--measure",
        choices=list(MEASURES),
        default="accuracy",
        help="the mental-model score in the leaderboard (default: accuracy, as the paper)",
    )
    p.add_argument("--no-similarity", action="store_true", help="skip SBERT similarity even where it is installed")
    p.set_defaults(func=_compare)

    q = sub.add_parser("instances", help="export the benchmark instances of a task as JSONL for a model runner")
    q.add_argument("dataset", help="dataset directory or .zip")
    q.add_argument("out", help="output .jsonl file")
    q.add_argument("--task", choices=["mental_model", "next_action"], required=True)
    q.add_argument("--split", default="test", help="benchmark split (default: test)")
    q.add_argument(
        "--setting",
        choices=["base", "mental_model"],
        default="base",
        help="mental_model adds the actor's earlier mental models",
    )
    q.set_defaults(func=_instances)
