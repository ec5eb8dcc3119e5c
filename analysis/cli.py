"""Command line: ``python -m analysis agreement|compare|instances|kitchen ...``.

- ``compare`` and ``instances``: model predictions against the people's labels, and the benchmark's
  inputs (:mod:`analysis.compare.cli`).
- ``kitchen SOURCE``: the coordination metrics and the TGCO audit of kitchen runs
  (:mod:`analysis.kitchen.cli`).

- ``agreement LABELS.csv``: inter-coder agreement of a long label table (one row per item and
  coder): Fleiss' kappa with a bootstrap interval, per-category kappa, Krippendorff's alpha (at
  ``--level`` nominal, ordinal, interval or ratio), percent agreement, pairwise Cohen's kappa,
  Gwet's AC1 and diagnostics, each with its n and what computed it. The item column may be several
  columns (``--item-col session_id,action_index``); a dataset's ``labels/grounding_acts.csv``
  (session_id, action_index, coder, code, partition) is recognised without options. Only an empty
  cell is a missing label: "None", "NA" or "null" are labels. Only people are pooled: coders whose
  ``coder_kind`` is ``model`` are each compared against the people's majority instead
  (``--pool-models`` pools them); the output names the coders pooled. The ordinal level takes the
  order of ``--categories``, else of the bundled codebook that holds every label, else it is refused
  for word labels. Exit 2 when the file cannot be used (missing, empty, a column missing, too many
  categories for the level, word labels at the ordinal level without an order).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


class UsageError(Exception):
    """A problem with the input file: printed and exit 2."""


def _columns(cols: set[str], args: argparse.Namespace) -> tuple[str, str, str]:
    """The item, coder and label columns: as given, else recognised from the header."""
    item = args.item_col
    if item is None:
        item = next((c for c in ("item", "item_id") if c in cols), None) or (
            "session_id,action_index" if {"session_id", "action_index"} <= cols else "item"
        )
    label = args.label_col or ("label" if "label" in cols or "code" not in cols else "code")
    return item, args.coder_col, label


def _read_table(path: Path, args: argparse.Namespace):
    import pandas as pd

    from analysis.agreement import item_columns, read_labels_csv

    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    try:
        df = read_labels_csv(path)
    except pd.errors.EmptyDataError:
        raise UsageError(
            f"{path}: the file is empty (expected a header row with item, coder and label columns)"
        ) from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not a readable CSV file ({exc})") from None
    cols = set(df.columns)
    item_col, coder_col, label_col = _columns(cols, args)
    for c in (*item_columns(item_col), coder_col, label_col):
        if c not in cols:
            raise UsageError(f"{path}: missing column '{c}' (the file has: {', '.join(df.columns) or 'no columns'})")
    if args.partition is not None:
        if "partition" not in cols:
            raise UsageError(f"{path}: missing column 'partition' (needed by --partition)")
        df = df[df["partition"].astype(str) == args.partition]
    if len(df) == 0:
        where = f" in partition '{args.partition}'" if args.partition is not None else ""
        raise UsageError(f"{path}: no label rows{where}")
    df = df.assign(**{coder_col: df[coder_col].where(df[coder_col].isna(), df[coder_col].astype(str))})
    return df, item_col, coder_col, label_col


def _categories(arg: str | None, labels, path: Path) -> list | None:
    """The ``--categories`` list, as numbers when the label column holds numbers."""
    import pandas as pd

    if not arg:
        return None
    categories = [c.strip() for c in arg.split(",")]
    if pd.api.types.is_numeric_dtype(labels):
        try:
            return pd.to_numeric(pd.Series(categories)).tolist()
        except ValueError:
            raise UsageError(f"{path}: column '{labels.name}' holds numbers but --categories does not") from None
    return categories


def _codebook_order(labels) -> tuple[list[str], str] | None:
    """The order of the bundled codebook every label is a code of (the ordinal level's order when
    none is given), with the codebook's name; None when no codebook holds them all."""
    from corpus.codebook import bundled

    found = set(labels.dropna().astype(str))
    for book in bundled().values():
        if found and found <= set(book.code_ids):
            return book.code_ids, f"{book.name} v{book.version}"
    return None


def _model_coders(df, coder_col: str, pool_models: bool) -> list[str]:
    """The coders a ``coder_kind`` column says are models (none without that column: a coder is a
    person unless the data says otherwise), unless they are to be pooled."""
    if pool_models or "coder_kind" not in df.columns:
        return []
    return sorted(df.loc[df["coder_kind"].astype(str) == "model", coder_col].astype(str).unique())


def _pooling(r, models: list[str], table, excluded: list[str]) -> tuple[str, list[dict]]:
    """Which coders were pooled (a sentence) and each model coder against the people's majority."""
    from analysis.agreement import coder_vs_gold
    from analysis.format import fmt

    people = [c for c in r.coders if c not in models]
    sentence = f"Coders pooled: {', '.join(people)}" + (
        f" (people only; model coders compared against the people's majority separately: {', '.join(models)})"
        if models
        else ""
    )
    rows: list[dict[str, Any]] = []
    for m in models:
        try:
            g = coder_vs_gold(table, m, gold="majority", exclude_coders=[*excluded, *(x for x in models if x != m)])
        except KeyError as exc:
            rows.append({"coder": m, "against": "majority of the people", "undefined": str(exc.args[0])})
            continue
        rows.append(
            {
                "coder": m,
                "against": g.gold,
                "items": g.cohen.n,
                "cohen_kappa": g.cohen.to_json(),
                "percent_agreement": g.percent_agreement.to_json(),
                "text": f"  {m}: Cohen's kappa {fmt(g.cohen.estimate)}, percent agreement "
                f"{fmt(g.percent_agreement.estimate)} on {g.cohen.n} items (against the {g.gold})",
            }
        )
    return sentence, rows


def _agreement(args: argparse.Namespace) -> int:
    path = Path(args.labels)
    from analysis.agreement import LabelTable, LabelTableError, report

    order_note = ""
    try:
        df, item_col, coder_col, label_col = _read_table(path, args)
        excluded = [c.strip() for arg in args.exclude_coder for c in arg.split(",") if c.strip()]
        models = [m for m in _model_coders(df, coder_col, args.pool_models) if m not in excluded]
        categories = _categories(args.categories, df[label_col], path)
        known = _codebook_order(df[label_col])
        if categories is None and args.level == "ordinal" and known is not None:
            categories, book = known
            order_note = f"Ordinal order: the codebook {book} ({', '.join(categories)})."
        # AC1's Q: the categories given, else the codebook's (as Gwet defines it), unless told otherwise.
        scale = None
        if args.ac1_categories == "scale":
            scale = categories if categories is not None else (known[0] if known is not None else None)
        try:
            table = LabelTable(df, item=item_col, coder=coder_col, label=label_col, categories=categories)
            r = report(
                table,
                level=args.level,
                n_boot=args.bootstrap,
                seed=args.seed,
                exclude_coders=[*excluded, *models],
                top_disagreements=args.top,
                scale=scale,
            )
            pooled, model_rows = _pooling(r, models, table, excluded)
        except LabelTableError as exc:
            raise UsageError(f"{path}: {exc}") from None
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        out = {
            "file": str(path),
            "item_col": item_col,
            "coder_col": coder_col,
            "label_col": label_col,
            "partition": args.partition,
            "pooled": pooled,
            "ordinal_order": order_note,
            **r.to_json(),
            "model_coders": [{k: v for k, v in row.items() if k != "text"} for row in model_rows],
        }
        print(json.dumps(out, indent=2))
    else:
        print(r.summary(str(path)))
        print("\n" + pooled + ".")
        if order_note:
            print(order_note)
        if model_rows:
            print("Model coders (not pooled):")
            for row in model_rows:
                print(row.get("text") or f"  {row['coder']}: undefined, because {row['undefined']}")
    return 0


def _report(args: argparse.Namespace) -> int:
    # The report composes the screens' services and figure builders (a front door, like corpus/cli/__init__.py's
    # commands that call analysis): imported here, inside the command.
    from reports.cli import run

    return run(args.dataset, args.out, pdf=args.pdf, reference=args.reference)


def main(argv: list[str] | None = None) -> int:
    from analysis.agreement import LEVELS

    parser = argparse.ArgumentParser(prog="python -m analysis", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("agreement", help="inter-coder agreement of a label CSV (one row per item and coder)")
    p.add_argument("labels", help="CSV with item, coder and label columns")
    p.add_argument("--json", action="store_true", help="print every number as JSON")
    p.add_argument(
        "--item-col",
        default=None,
        help="item column, or several joined by commas (default: item, item_id or session_id,action_index)",
    )
    p.add_argument("--coder-col", default="coder")
    p.add_argument("--label-col", default=None, help="label column (default: label, else code)")
    p.add_argument("--level", choices=LEVELS, default="nominal", help="level of measurement for Krippendorff's alpha")
    p.add_argument(
        "--categories",
        default=None,
        help="comma-separated category list in order, low to high (the ordinal level's order; "
        "needed when the labels do not sort by themselves)",
    )
    p.add_argument(
        "--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples for the intervals (0: none)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--partition", default=None, help="keep only rows whose partition column equals this")
    p.add_argument(
        "--exclude-coder",
        action="append",
        default=[],
        metavar="CODER",
        help="leave a coder out (repeatable, or comma-separated)",
    )
    p.add_argument("--top", type=int, default=10, help="how many of the most disagreed items to list")
    p.add_argument(
        "--ac1-categories",
        choices=("scale", "observed"),
        default="scale",
        help="what Gwet's AC1 counts as its Q categories: the scale's (the --categories given, else the "
        "bundled codebook that holds every label; the default, as Gwet defines Q), or only the table's own "
        "(the labels used, or the --categories given)",
    )
    p.add_argument(
        "--pool-models",
        action="store_true",
        help="pool the model coders (coder_kind 'model') with the people (default: people only, each model "
        "compared against the people's majority)",
    )
    p.set_defaults(func=_agreement)

    p = sub.add_parser(
        "report",
        help="the reproduction report of a Map Task dataset: OUT.html (figures inside) and OUT_tables.zip (CSV)",
    )
    p.add_argument("dataset", help="a dataset folder or .zip")
    p.add_argument("out", help="where to write: OUT.html, OUT_tables.zip (and OUT.pdf)")
    p.add_argument("--pdf", action="store_true", help="also OUT.pdf, printed by headless chromium")
    p.add_argument(
        "--reference",
        default="almanac",
        help="published values to set beside the dataset's: 'almanac' (the paper's Tables 1 and 8, the default), "
        "a YAML file of the same shape (reports/references/almanac.yaml), or 'none'",
    )
    p.set_defaults(func=_report)

    from analysis.compare.cli import add_commands
    from analysis.kitchen.cli import add_commands as add_kitchen

    add_commands(sub)  # compare, instances
    add_kitchen(sub)  # kitchen

    args = parser.parse_args(argv)
    return args.func(args)
