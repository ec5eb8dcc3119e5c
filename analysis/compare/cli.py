"""Command line of the comparison (registered under ``python -m analysis``):

- ``compare BENCHMARK [--json | --csv]``: a benchmark's runs scored as its authors report them
  (accuracy overall and by every slice); BENCHMARK is a benchmark dataset or released DynToM trials
  (a trial folder, a folder of them, or a .zip), every answer file in it a run.
- ``compare DATASET [RUN ...] [--json | --csv | --latex]``: the leaderboard the Compare page shows.
  Without RUN, the dataset's own runs (``predictions/``); a RUN is a run folder, a ``.zip`` or a
  ``.jsonl`` file, or the id of one of the dataset's runs. A run with any problem is refused (its
  problems are printed on stderr, with file, line and field) and the others are compared; the exit
  status is then 1.
- ``judges SOURCE [--items ITEMS] [--judge FILE=JUDGE] [--json | --csv]``: agreement of LLM judges'
  scores (SynchToM's ``evaluate.py`` score files): exact, within-1, quadratic- and linear-weighted
  kappa per judge pair, ordinal alpha over all judges, per dimension; with SynchToM's items (ITEMS, or
  SOURCE when it holds them), the scores read back against the items and each run's per-dimension
  scores as the paper's Table 3 reports them.
- ``instances DATASET --task mental_model|next_action --split test --setting base|mental_model
  OUT.jsonl``: the benchmark instances a model runner reads, with the ids predictions carry back;
  ``instances SYNCHTOM --steps N OUT.jsonl``: SynchToM's items with the first N turns of their
  trajectories and the prompt its inference.py builds.
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
    from corpus.loading.dataset import load
    from corpus.loading.validate import DatasetError

    try:
        return load(path)
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        print(exc.report.format(), file=sys.stderr)
    except OSError as exc:
        print(f"error: cannot read {path}: {exc}", file=sys.stderr)
    return None


def _runs(corpus, names: list[str]):
    from corpus.predictions.sources import read_paths

    if not names:
        return list(corpus.predictions.values())
    runs = []
    for name in names:
        if Path(name).exists():
            runs.extend(read_paths([name], corpus.outlines, corpus.maps))
        elif name in corpus.predictions:
            runs.append(corpus.predictions[name])
        else:
            known = ", ".join(corpus.predictions) or "none"
            raise SystemExit(f"error: {name}: no such file, folder or run of the dataset (its runs: {known})")
    return runs


def _text(cmp, measure: str, split: str = "") -> str:
    import pandas as pd

    synthetic = " (synthetic data)" if cmp.synthetic and "synthetic" not in cmp.dataset.lower() else ""
    lines = [f"{cmp.dataset}{synthetic}: {len(cmp.run_ids)} run(s) compared", *([split] if split else [])]
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


def _say_refused(runs) -> None:
    """Each refused run's problems on stderr, with file, record and field."""
    for run in runs:
        print(f"run '{run.run_id}' refused ({len(run.report.errors)} error(s)):", file=sys.stderr)
        print(run.report.format(), file=sys.stderr)


def _is_benchmark_source(path: str) -> bool:
    """Whether ``path`` is a benchmark: a benchmark dataset, or released DynToM trials (a trial
    folder, a folder of them, or a .zip of them)."""
    from corpus.benchmark.dataset import is_benchmark
    from corpus.importers.detect import NotRecognised, detect_path
    from corpus.importers.tom import is_dyntom

    p = Path(path)
    if is_benchmark(p) or (p.is_dir() and is_dyntom(p)):
        return True
    if p.is_file() and p.suffix.lower() == ".zip":
        try:
            return detect_path(p).fmt == "dyntom"
        except (NotRecognised, OSError, ValueError):
            return False
    return False


def _benchmark(args: argparse.Namespace) -> int:
    """``compare BENCHMARK``: every run of the benchmark scored as its authors report it."""
    from analysis.benchmark import compare_benchmark
    from corpus.benchmark.dataset import is_benchmark, load_benchmark
    from corpus.importers.tom import read_dyntom
    from corpus.loading.report import DatasetError

    if args.runs:
        print("error: a benchmark's runs are its own answer files; name no RUN", file=sys.stderr)
        return EXIT_USAGE
    try:
        if is_benchmark(args.dataset):
            bench = load_benchmark(args.dataset)
        else:
            bench, report = read_dyntom(args.dataset)
            if not report.ok:
                raise DatasetError(report, args.dataset)
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        print(exc.report.format(), file=sys.stderr)
        return EXIT_USAGE
    _say_refused(bench.refused)
    if not bench.ok_runs:
        print(f"error: no run to score ({len(bench.refused)} refused, none valid)", file=sys.stderr)
        return EXIT_REFUSED
    cmp = compare_benchmark(bench)
    if args.json:
        print(json.dumps(cmp.to_json(), indent=2))
    elif args.csv:
        import pandas as pd

        from corpus.csvsafe import to_csv

        print(to_csv(pd.concat([cmp.accuracy(f) for f in [None, *cmp.slice_fields]], ignore_index=True)), end="")
    else:
        print(_benchmark_text(cmp))
    return EXIT_REFUSED if bench.refused else 0


def _benchmark_text(cmp) -> str:
    import pandas as pd

    bench = cmp.bench
    n_trials = bench.items["group"].nunique()
    lines = [f"{bench.name}: {len(bench.items)} questions in {n_trials} trial(s), {len(cmp.run_ids)} run(s) scored"]
    with pd.option_context("display.width", 250, "display.max_columns", None, "display.max_colwidth", 60):
        for f in [None, *cmp.slice_fields]:
            t = cmp.accuracy(f)
            wide = t.pivot(index="run", columns="value", values="estimate").reindex(index=cmp.run_ids)
            wide = wide.reindex(columns=list(dict.fromkeys(t["value"])))
            lines += ["", f"Accuracy by {f or 'run'} ({t['interval_method'].iloc[0]})", wide.round(3).to_string()]
        lines += ["", "Coverage", cmp.coverage().to_string(index=False)]
    return "\n".join(lines)


# The conditions as the leaderboards name them (the Compare page's words).
CONDITIONS = {"visible": "visible (Guide saw the canvas)", "not_visible": "not visible"}


def _compare(args: argparse.Namespace) -> int:
    from analysis.compare.comparison import compare
    from analysis.split import split_standing, standing_json, standing_sentence

    if _is_benchmark_source(args.dataset):
        return _benchmark(args)
    corpus = _load(args.dataset)
    if corpus is None:
        return EXIT_USAGE
    runs = _runs(corpus, args.runs)
    cmp = compare(corpus, runs, similarity=not args.no_similarity)
    _say_refused(cmp.refused)
    if not cmp.run_ids:
        print(f"error: no run to compare ({len(cmp.refused)} refused, none valid)", file=sys.stderr)
        return EXIT_REFUSED
    standing = split_standing(corpus.actions_df, corpus.sessions_df)  # the split scored on, by Appendix E
    if args.json:
        print(json.dumps({**cmp.to_json(), "split": standing_json(standing)}, indent=2))
    elif args.csv:
        for k, task in enumerate(("next_action", "mental_model")):
            csv = cmp.leaderboard(task, args.measure if task == "mental_model" else "accuracy").csv_text()
            print(csv if k == 0 else csv.split("\n", 1)[1], end="")
    elif args.latex:
        for task in ("next_action", "mental_model"):
            lb = cmp.leaderboard(task, args.measure if task == "mental_model" else "accuracy")
            caption = f"{cmp.dataset}: {task.replace('_', '-')} prediction. {standing_sentence(standing, CONDITIONS)}"
            print(lb.to_latex(caption=caption))
    else:
        print(_text(cmp, args.measure, standing_sentence(standing, CONDITIONS)))
    return EXIT_REFUSED if cmp.refused else 0


def _synchtom_source(path: str) -> bool:
    """Whether ``path`` is SynchToM's items: a benchmark dataset imported from them, or the release."""
    from corpus.benchmark.dataset import is_benchmark
    from corpus.importers.tom.synchtom_items import is_synchtom

    p = Path(path)
    if is_benchmark(p):
        info = json.loads((p / "dataset.json").read_text(encoding="utf-8"))
        return isinstance(info.get("benchmark"), dict) and info["benchmark"].get("format") == "synchtom"
    return is_synchtom(p) or (p.is_file() and p.suffix.lower() == ".zip" and _zip_has_synchtom(p))


def _zip_has_synchtom(path: Path) -> bool:
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:
            return any(n.endswith("-benchmark.json") for n in zf.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def _synchtom_items(path: str):
    """SynchToM's items at ``path``, or None with the problems printed on stderr."""
    from corpus.importers.tom.synchtom import load_items
    from corpus.loading.report import DatasetError

    try:
        return load_items(path)
    except DatasetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        print(exc.report.format(), file=sys.stderr)
    return None


def _synchtom_instances(args: argparse.Namespace) -> int:
    """``instances SYNCHTOM --steps N OUT``: each item with its trajectory and inference.py's prompt."""
    from analysis.compare.instances import write_synchtom_instances

    if args.steps is None:
        print(
            "error: --steps is required for SynchToM's items (inference.py's --steps: 0 = no trajectory, "
            "N = its first N turns)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    bench = _synchtom_items(args.dataset)
    if bench is None:
        return EXIT_USAGE
    n = write_synchtom_instances(bench, args.out, args.steps)
    print(f"wrote {n} SynchToM instance(s) (step{args.steps}, inference.py's prompt) to {args.out}", file=sys.stderr)
    return 0


def _instances(args: argparse.Namespace) -> int:
    from analysis.compare.instances import write_instances

    if _synchtom_source(args.dataset):
        return _synchtom_instances(args)
    if args.task is None:
        print("error: --task is required (mental_model or next_action)", file=sys.stderr)
        return EXIT_USAGE
    corpus = _load(args.dataset)
    if corpus is None:
        return EXIT_USAGE
    if args.split not in corpus.splits:
        print(f"error: the dataset has no session in split '{args.split}'", file=sys.stderr)
        return EXIT_USAGE
    if args.prompts:
        from analysis.compare.prompts import prompts_jsonl

        text = prompts_jsonl(corpus, args.task, args.split, args.setting)
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
        n, what = text.count("\n"), "prompt(s), as the paper's Appendix H lays them out,"
    else:
        n, what = write_instances(corpus, args.out, args.task, args.split, args.setting), "instance(s)"
    print(
        f"wrote {n} {args.task} {what} of split '{args.split}' ({args.setting} setting) to {args.out}",
        file=sys.stderr,
    )
    return 0


def _judges(args: argparse.Namespace) -> int:
    """``judges SOURCE``: agreement of SynchToM's LLM judges (evaluate.py's score files)."""
    import pandas as pd

    from analysis.compare.judges import judge_agreement
    from corpus.csvsafe import to_csv
    from corpus.importers.tom.synchtom import read_synchtom, to_judge_scores

    judges = {}
    for given in args.judge or []:
        name, sep, judge = given.partition("=")
        if not sep or not name or not judge:
            print(f"error: --judge {given!r}: expected FILE=JUDGE", file=sys.stderr)
            return EXIT_USAGE
        judges[name] = judge
    items = args.items or (args.source if _synchtom_source(args.source) else None)
    if items is not None:
        return _judged_runs(args, items, judges)
    scores, report = read_synchtom(args.source, judges)
    if report.issues:
        print(report.format(), file=sys.stderr)
    if scores.empty:
        print("error: no judge scores were read", file=sys.stderr)
        return EXIT_REFUSED
    table, _ = judge_agreement(to_judge_scores(scores))
    frame = table.to_frame().drop(columns=["run", "task"])
    if args.json:
        print(json.dumps({"judges": sorted(scores["judge"].unique()), "agreement": table.to_json()}, indent=2))
    elif args.csv:
        print(to_csv(frame), end="")
    else:
        shown = frame[["criterion", "judge_a", "judge_b", "metric", "estimate", "ci_low", "ci_high", "n"]]
        with pd.option_context("display.width", 250, "display.max_columns", None):
            print(f"{scores['judge'].nunique()} judge(s), {scores['instance_id'].nunique()} instance(s)")
            print(shown.to_string(index=False))
    return 0 if report.ok else EXIT_REFUSED


def _judged_runs(args: argparse.Namespace, items: str, judges: dict[str, str]) -> int:
    """``judges SOURCE --items ITEMS``: the score files read back against SynchToM's items, each
    run's per-dimension scores as the paper's Table 3, and the judges' agreement."""
    from dataclasses import replace

    import pandas as pd

    from analysis.compare.judges import dimension_scores, judge_agreement, paper_table
    from analysis.format import to_json
    from corpus.csvsafe import to_csv
    from corpus.importers.tom.synchtom import judged_frame, read_judged_runs, to_judge_scores

    bench = _synchtom_items(items)
    if bench is None:
        return EXIT_USAGE
    runs, report = read_judged_runs(args.source, bench, judges)
    if report.issues:
        print(report.format(), file=sys.stderr)
    if not runs:
        print("error: no judge scores were read", file=sys.stderr)
        return EXIT_REFUSED
    scores = dimension_scores(replace(bench, judged=runs))
    frame = judged_frame(runs)
    table, _ = judge_agreement(to_judge_scores(frame))
    if args.json:
        out = {
            "judges": sorted(frame["judge"].unique()),
            "runs": [r.as_dict() for r in runs],
            "scores": scores.to_dict("records"),
            "agreement": table.to_json(),
        }
        print(json.dumps(to_json(out), indent=2))
    elif args.csv:
        print(to_csv(scores), end="")
    else:
        with pd.option_context("display.width", 250, "display.max_columns", None):
            print(f"{len(runs)} run(s) of {frame['judge'].nunique()} judge(s) on {len(bench.items)} SynchToM items")
            print()
            print("Scores per dimension as the paper's Table 3 (percent of the rubric's criteria met, mean over items)")
            print(paper_table(scores).to_string())
            if frame["judge"].nunique() > 1:
                shown = table.to_frame()[
                    ["criterion", "judge_a", "judge_b", "metric", "estimate", "ci_low", "ci_high", "n"]
                ]
                print()
                print("Agreement of the judges")
                print(shown.to_string(index=False))
    return 0 if report.ok else EXIT_REFUSED


def add_commands(sub) -> None:
    """Register ``compare`` and ``instances`` on an argparse subparsers object."""
    p = sub.add_parser(
        "compare", help="score model predictions against the people's labels (the Compare page's leaderboard)"
    )
    p.add_argument(
        "dataset",
        help="dataset directory or .zip; or a benchmark: a benchmark dataset, or DynToM trials (a trial folder, "
        "a folder of them, or a .zip), every answer file in it scored as a run",
    )
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

    j = sub.add_parser("judges", help="agreement of LLM judges' 0-N scores (SynchToM's evaluate.py score files)")
    j.add_argument("source", help="a score file (evaluation_<name>_<stamp>.json) or a folder of them")
    j.add_argument("--judge", action="append", metavar="FILE=JUDGE", help="the judge of a score file no summary names")
    j.add_argument(
        "--items",
        help="SynchToM's items (a dataset imported from them, or the release's folder or zip): the scores read back "
        "against them and shown per dimension as the paper's Table 3 (--csv: those scores); default: SOURCE, when "
        "it holds them",
    )
    jf = j.add_mutually_exclusive_group()
    jf.add_argument("--json", action="store_true")
    jf.add_argument("--csv", action="store_true")
    j.set_defaults(func=_judges)

    q = sub.add_parser("instances", help="export the benchmark instances of a task as JSONL for a model runner")
    q.add_argument("dataset", help="dataset directory or .zip; or SynchToM's items (a dataset or the release)")
    q.add_argument("out", help="output .jsonl file")
    q.add_argument("--task", choices=["mental_model", "next_action"], help="required but for SynchToM's items")
    q.add_argument(
        "--steps",
        type=int,
        help="SynchToM's items: the trajectory turns shown (inference.py's --steps: 0 none, N the first N, -1 all)",
    )
    q.add_argument("--split", default="test", help="benchmark split (default: test)")
    q.add_argument(
        "--setting",
        choices=["base", "mental_model"],
        default="base",
        help="mental_model adds the actor's earlier mental models",
    )
    q.add_argument(
        "--prompts",
        action="store_true",
        help="write each instance's prompt (Appendix H's template, filled) with its ids and the answer fields "
        "its prediction line carries back, instead of the instance's data",
    )
    q.set_defaults(func=_instances)
