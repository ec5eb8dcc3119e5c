"""Command line: ``python -m analysis agreement LABELS.csv [--json]``.

- ``agreement LABELS.csv``: inter-coder agreement of a long label table (one row per item and
  coder): Fleiss' kappa with a bootstrap interval, per-category kappa, Krippendorff's alpha,
  percent agreement, pairwise Cohen's kappa, Gwet's AC1 and diagnostics. The item column may be
  several columns (``--item-col session_id,action_index``); a dataset's
  ``labels/grounding_acts.csv`` (session_id, action_index, coder, code, partition) is recognised
  without options. Exit 2 when the file cannot be used (missing, empty, a column missing).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


class UsageError(Exception):
    """A problem with the input file: printed and exit 2."""


def _read_table(path: Path, args: argparse.Namespace):
    import pandas as pd

    if not path.is_file():
        raise UsageError(f"{path}: no such file")
    try:
        df = pd.read_csv(path, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise UsageError(f"{path}: the file is empty (expected a header row with item, coder and label columns)") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: not a readable CSV file ({exc})") from None
    df.columns = [str(c).strip() for c in df.columns]
    cols = set(df.columns)

    item_col = args.item_col
    if item_col is None:
        if "item" in cols:
            item_col = "item"
        elif "item_id" in cols:
            item_col = "item_id"
        elif {"session_id", "action_index"} <= cols:
            item_col = "session_id,action_index"
        else:
            item_col = "item"
    label_col = args.label_col
    if label_col is None:
        label_col = "label" if "label" in cols or "code" not in cols else "code"
    coder_col = args.coder_col

    from analysis.agreement import item_columns

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


def _fmt(x: Any, digits: int = 3) -> str:
    if isinstance(x, dict) and "undefined" in x:
        return f"undefined ({x['undefined']})"
    if isinstance(x, list) and len(x) == 2 and all(isinstance(v, (int, float)) for v in x):
        return f"[{x[0]:.{digits}f}, {x[1]:.{digits}f}]"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    if x is None:
        return "-"
    return str(x)


def format_report(r: dict[str, Any], source: str) -> str:
    """The report as readable text tables."""
    lines = [
        f"{source}: {r['n_items']} items, {r['n_coders']} coders ({', '.join(r['coders'])}), "
        f"{r['n_labels']} labels, {len(r['categories'])} categor{'y' if len(r['categories']) == 1 else 'ies'}",
        "",
    ]
    conf = f"{r['confidence']:.0%} CI"
    rows = [
        ("Fleiss' kappa", r["fleiss_kappa"], r["fleiss_ci"],
         f"{r['fleiss_items_used']} items coded by every coder, {r['fleiss_items_dropped']} left out"),
        ("  standard error", r["fleiss_se"], None, r["fleiss_se_method"]),
        (f"Krippendorff's alpha ({r['krippendorff_level']})", r["krippendorff_alpha"], r["krippendorff_alpha_ci"],
         f"{r['krippendorff_items']} items with two or more labels"),
        ("Percent agreement", r["percent_agreement"], None, "mean share of agreeing coder pairs per item"),
        ("Mean pairwise Cohen's kappa", r["mean_pairwise_cohen_kappa"], None, ""),
        ("Gwet's AC1", r["gwet_ac1"], None, ""),
    ]
    w = max(len(n) for n, *_ in rows)
    lines.append(f"{'statistic'.ljust(w)}  {'value':>8}  {conf:<18}  note")
    for name, value, ci, note in rows:
        v = _fmt(value)
        if v.startswith("undefined"):
            lines.append(f"{name.ljust(w)}  {v}")
            continue
        lines.append(f"{name.ljust(w)}  {v:>8}  {(_fmt(ci) if ci is not None else ''):<18}  {note}")

    lines += ["", "Per-category kappa (Fleiss 1971)"]
    uses = r["diagnostics"]["category_uses"]
    cw = max([len(c) for c in r["per_category"]] + [8])
    lines.append(f"  {'category'.ljust(cw)}  {'kappa':>8}  {'uses':>6}")
    for c, k in r["per_category"].items():
        lines.append(f"  {c.ljust(cw)}  {_fmt(k):>8}  {uses.get(c, 0):>6}")

    if r["pairwise_cohen_kappa"]:
        lines += ["", "Pairwise Cohen's kappa (items both coded)"]
        for p in r["pairwise_cohen_kappa"]:
            lines.append(f"  {p['coder_a']} x {p['coder_b']}: {_fmt(p['kappa'])}  ({p['n_items']} items)")

    d = r["diagnostics"]
    prev = d["prevalence"]
    lines += ["", "Diagnostics"]
    if prev["category"] is not None:
        lines.append(f"  most common category: {prev['category']} ({prev['share']:.0%} of labels)")
    test = d["coder_bias"]["test"]
    if isinstance(test.get("chi2"), float):
        lines.append(f"  coder x category chi-square: {test['chi2']:.2f}, df {test['dof']}, p = {test['p_value']:.3g}")
    else:
        lines.append(f"  coder x category chi-square: {_fmt(test.get('chi2'))}")
    for warning in d["warnings"]:
        lines.append(f"  warning: {warning}")
    if not d["warnings"]:
        lines.append("  no warnings")

    lines += ["", "Items with the most disagreement"]
    if not r["most_disagreed"]:
        lines.append("  none: no item has two different labels")
    else:
        for row in r["most_disagreed"]:
            lines.append(f"  {row['item']}: agreement {row['agreement']:.2f}  {row['labels']}")
    return "\n".join(lines)


def _agreement(args: argparse.Namespace) -> int:
    path = Path(args.labels)
    import pandas as pd

    from analysis.agreement import LabelTableError, report

    try:
        df, item_col, coder_col, label_col = _read_table(path, args)
        excluded = [c.strip() for arg in args.exclude_coder for c in arg.split(",") if c.strip()]
        categories = [c.strip() for c in args.categories.split(",")] if args.categories else None
        if categories is not None and pd.api.types.is_numeric_dtype(df[label_col]):
            try:
                categories = pd.to_numeric(pd.Series(categories)).tolist()
            except ValueError:
                raise UsageError(f"{path}: column '{label_col}' holds numbers but --categories does not") from None
        try:
            r = report(df, level=args.level, item_col=item_col, coder_col=coder_col, label_col=label_col,
                       categories=categories, n_boot=args.bootstrap, seed=args.seed, exclude_coders=excluded,
                       top_disagreements=args.top)
        except LabelTableError as exc:
            raise UsageError(f"{path}: {exc}") from None
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    r = {"file": str(path), "item_col": item_col, "coder_col": coder_col, "label_col": label_col,
         "partition": args.partition, "excluded_coders": excluded, **r}
    if args.json:
        print(json.dumps(r, indent=2))
    else:
        print(format_report(r, str(path)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m analysis", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("agreement", help="inter-coder agreement of a label CSV (one row per item and coder)")
    p.add_argument("labels", help="CSV with item, coder and label columns")
    p.add_argument("--json", action="store_true", help="print every number as JSON")
    p.add_argument("--item-col", default=None,
                   help="item column, or several joined by commas (default: item, item_id or session_id,action_index)")
    p.add_argument("--coder-col", default="coder")
    p.add_argument("--label-col", default=None, help="label column (default: label, else code)")
    p.add_argument("--level", choices=["nominal", "ordinal", "interval"], default="nominal",
                   help="level of measurement for Krippendorff's alpha")
    p.add_argument("--categories", default=None,
                   help="comma-separated category list in order (for ordinal labels that do not sort by themselves)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N", help="bootstrap resamples for the intervals (0: none)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--partition", default=None, help="keep only rows whose partition column equals this")
    p.add_argument("--exclude-coder", action="append", default=[], metavar="CODER",
                   help="leave a coder out (repeatable, or comma-separated)")
    p.add_argument("--top", type=int, default=10, help="how many of the most disagreed items to list")
    p.set_defaults(func=_agreement)

    from analysis.compare.cli import add_commands

    add_commands(sub)  # compare, instances

    args = parser.parse_args(argv)
    return args.func(args)
