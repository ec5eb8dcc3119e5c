"""The pure parts of coding tasks: choosing items, and the agreement report as Markdown and CSV.

- :func:`sample_items`: a seeded random sample of N actions, optionally stratified by columns of
  the action table (condition, role); proportional allocation with largest remainders, so every
  stratum gets its share rounded fairly and the total is exactly N.
- :func:`all_items`, :func:`items_from_csv`: every action, or an uploaded id list
  (``session_id,action_index`` or ``item_id`` columns), checked line by line.
- :func:`assign_partitions`: the few-shot / validation split (the paper: 8 / 172), seeded.
- :func:`agreement_report`, :func:`report_markdown`, :func:`report_csv`: every agreement statistic
  overall and per codebook version (the report objects of :mod:`analysis.agreement`), with n,
  intervals and their procedure, the codebook, and the function and package version that computed
  each number.

Nothing here imports streamlit.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd

from analysis import agreement as ag
from analysis.format import csv_cells, fmt, fmt_interval
from analysis.results import ROW_COLUMNS
from corpus.csvsafe import to_csv
from corpus.escape import md_line

STRATIFY_COLUMNS = ("condition", "role")


class ItemListError(ValueError):
    """An id list that cannot be used; ``problems`` names each line and column at fault."""

    def __init__(self, file: str, problems: list[str]):
        self.file = file
        self.problems = problems
        shown = problems[:30]
        more = f"\n... and {len(problems) - 30} more" if len(problems) > 30 else ""
        super().__init__(f"{file}: {len(problems)} problem(s):\n" + "\n".join(shown) + more)


# -- items --------------------------------------------------------------------------------------


def _item(row: Any, stratify: Sequence[str]) -> dict[str, Any]:
    return {
        "session_id": str(row["session_id"]),
        "action_index": int(row["index"]),
        "stratum": "/".join(str(row[c]) for c in stratify),
    }


def _allocate(sizes: pd.Series, n: int) -> pd.Series:
    """Proportional allocation of ``n`` over strata of ``sizes`` (largest remainder, capped at size)."""
    total = int(sizes.sum())
    if n >= total:
        return sizes.copy()
    exact = sizes * (n / total)
    alloc = np.floor(exact).astype(int)
    rest = n - int(alloc.sum())
    # Largest remainders first; ties by stratum order (stable), never above the stratum size.
    order = (exact - alloc).sort_values(ascending=False, kind="stable").index
    for key in order:
        if rest == 0:
            break
        if alloc[key] < sizes[key]:
            alloc[key] += 1
            rest -= 1
    return alloc


def sample_items(
    actions: pd.DataFrame, n: int = 180, seed: int = 0, stratify: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """A seeded random sample of ``n`` actions (all of them if there are fewer).

    ``actions`` is ``Corpus.actions_df`` (columns session_id, index and the stratify columns).
    With ``stratify`` (e.g. ``["condition", "role"]``) every stratum gets its proportional share.
    The same seed and table give the same items, in a shuffled order.
    """
    if n < 1:
        raise ValueError("n: the sample needs at least one item")
    stratify = list(stratify)
    for c in ["session_id", "index", *stratify]:
        if c not in actions.columns:
            raise ValueError(f"the action table has no column '{c}'")
    if actions.empty:
        raise ValueError("the dataset has no actions to sample from")
    df = actions.reset_index(drop=True)
    rng = np.random.default_rng(seed)
    if not stratify:
        take = rng.permutation(len(df))[: min(n, len(df))]
        return [_item(df.iloc[i], stratify) for i in take]
    keys = df[stratify].astype(str).agg("/".join, axis=1)
    sizes = keys.value_counts().sort_index()
    alloc = _allocate(sizes, n)
    chosen: list[int] = []
    for key in sizes.index:
        idx = np.flatnonzero(keys.to_numpy() == key)
        chosen.extend(rng.permutation(idx)[: int(alloc[key])].tolist())
    chosen = [chosen[i] for i in rng.permutation(len(chosen))]
    return [_item(df.iloc[i], stratify) for i in chosen]


def all_items(actions: pd.DataFrame) -> list[dict[str, Any]]:
    """Every action, in session and action order."""
    df = actions.sort_values(["session_id", "index"], kind="stable")
    return [_item(r, ()) for _, r in df.iterrows()]


def items_from_csv(
    data: bytes | str, file: str = "items.csv", known: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    """Items from an uploaded list: columns ``session_id,action_index`` or ``item_id`` (``S01:12``).

    ``known``: the item ids of the current dataset; ids not in it are refused. Every problem is
    named with its line and column; nothing is returned unless the whole list is good.
    """
    text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    if not text.strip():
        raise ItemListError(file, ["the file is empty"])
    reader = csv.DictReader(io.StringIO(text))
    cols = [c.strip() for c in (reader.fieldnames or [])]
    reader.fieldnames = cols
    by_pair = "session_id" in cols and "action_index" in cols
    if not by_pair and "item_id" not in cols:
        raise ItemListError(
            file, [f"needs columns session_id,action_index or item_id (found: {', '.join(cols) or 'none'})"]
        )
    known_set = set(known) if known is not None else None
    problems: list[str] = []
    items: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for lineno, r in enumerate(reader, start=2):
        if by_pair:
            sid = (r.get("session_id") or "").strip()
            raw = (r.get("action_index") or "").strip()
            col = "action_index"
        else:
            iid = (r.get("item_id") or "").strip()
            sid, _, raw = iid.rpartition(":")
            col = "item_id"
        if not sid:
            problems.append(f"line {lineno}, column {'session_id' if by_pair else 'item_id'}: missing session id")
            continue
        try:
            idx = int(raw)
            if idx < 0:
                raise ValueError
        except ValueError:
            problems.append(f"line {lineno}, column {col}: '{raw}' is not an action index (a whole number >= 0)")
            continue
        iid = f"{sid}:{idx}"
        if known_set is not None and iid not in known_set:
            problems.append(f"line {lineno}, column {col}: action {iid} is not in the current dataset")
            continue
        if iid in seen:
            problems.append(f"line {lineno}: {iid} repeats line {seen[iid]}")
            continue
        seen[iid] = lineno
        items.append({"session_id": sid, "action_index": idx, "stratum": ""})
    if not items and not problems:
        problems.append("no rows below the header")
    if problems:
        raise ItemListError(file, problems)
    return items


def assign_partitions(items: list[dict[str, Any]], few_shot: int = 8, seed: int = 0) -> list[dict[str, Any]]:
    """Mark ``few_shot`` items (a seeded random choice) as ``few_shot``, the rest ``validation``."""
    if few_shot < 0:
        raise ValueError("few_shot: must be 0 or more")
    if few_shot >= len(items) and items:
        raise ValueError(f"few_shot: {few_shot} leaves no validation items out of {len(items)}")
    rng = np.random.default_rng([seed, 8])
    picked = set(rng.permutation(len(items))[:few_shot].tolist())
    return [{**it, "partition": "few_shot" if i in picked else "validation"} for i, it in enumerate(items)]


# -- the agreement report -----------------------------------------------------------------------


@dataclass
class ReportMeta:
    task: str
    dataset: str
    codebook_id: str
    codebook_name: str
    codebook_version: str
    n_items_in_task: int
    generated_at: str = ""

    def __post_init__(self) -> None:
        if not self.generated_at:
            self.generated_at = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass(frozen=True)
class TaskAgreement:
    """The agreement report of a task's labels, overall and per codebook version."""

    overall: ag.AgreementReport | None  # None: no labels yet
    by_version: dict[str, ag.AgreementReport]
    excluded_coders: list[str]

    def scopes(self, version: str) -> list[tuple[str, ag.AgreementReport]]:
        """(title, report) for every scope: all labels, then each version (when there are several)."""
        if self.overall is None:
            return []
        first = "All labels" if self.by_version else f"Codebook v{version}"
        return [(first, self.overall), *((f"Codebook v{v}", r) for v, r in self.by_version.items())]

    def packages(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for _, rep in self.scopes(""):
            out.update(rep.packages())
        return dict(sorted(out.items()))


def agreement_report(
    labels: pd.DataFrame,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    human_only: bool = True,
    scale: Sequence[str] | None = None,
) -> TaskAgreement:
    """Every statistic on the current labels (a store's ``labels()`` frame), overall and per
    codebook version, on the human coders unless ``human_only`` is False; AC1's Q counts the
    codebook's codes ``scale`` when given."""
    df = labels
    excluded: list[str] = []
    if human_only and "coder_kind" in df.columns:
        excluded = sorted(df.loc[df["coder_kind"] != "human", "coder"].unique().tolist())
        df = df[df["coder_kind"] == "human"]
    if not len(df):
        return TaskAgreement(None, {}, excluded)
    table = ag.LabelTable(df, item="item_id", coder="coder", label="code")
    by_version = {}
    if "codebook_version" in df.columns:
        versions = sorted(df["codebook_version"].unique().tolist())
        if len(versions) > 1:
            by_version = {
                v: ag.report(table.where(df["codebook_version"] == v), n_boot=n_boot, seed=seed, scale=scale)
                for v in versions
            }
    return TaskAgreement(ag.report(table, n_boot=n_boot, seed=seed, scale=scale), by_version, excluded)


REPORT_COLUMNS = ["scope", *(c for c in ROW_COLUMNS if c != "name")]


def _provenance(report: TaskAgreement, meta: ReportMeta) -> list[tuple[str, Any]]:
    return [
        ("task", meta.task),
        ("dataset", meta.dataset),
        ("codebook", f"{meta.codebook_id} v{meta.codebook_version}"),
        ("codebook_name", meta.codebook_name),
        ("items_in_task", meta.n_items_in_task),
        ("generated_at", meta.generated_at),
        ("excluded_coders", ", ".join(report.excluded_coders) or "none"),
    ] + [(f"package:{k}", v) for k, v in report.packages().items()]


def report_table(report: TaskAgreement, meta: ReportMeta) -> pd.DataFrame:
    """Every statistic as rows (scope, statistic, estimate, n, interval, procedure, what computed
    it, note) plus provenance rows (scope "meta"); undefined cells empty."""
    frames = [rep.to_frame().assign(scope=title) for title, rep in report.scopes(meta.codebook_version)]
    frames.append(
        pd.DataFrame([{"scope": "meta", "statistic": k, "estimate": v} for k, v in _provenance(report, meta)])
    )
    return csv_cells(pd.concat(frames, ignore_index=True).reindex(columns=REPORT_COLUMNS))


def report_csv(report: TaskAgreement, meta: ReportMeta) -> str:
    """:func:`report_table` as spreadsheet-safe CSV."""
    return to_csv(report_table(report, meta))


def _md_table(rep: ag.AgreementReport) -> list[str]:
    out = ["| statistic | value | n | 95% CI | note |", "|---|---|---|---|---|"]
    for _, r in csv_cells(rep.to_frame()).iterrows():
        ci = fmt_interval((r["ci_low"], r["ci_high"])) if pd.notna(r["ci_low"]) else ""
        value = fmt(r["estimate"]) if pd.notna(r["estimate"]) else ""
        n = "" if pd.isna(r["n"]) else int(r["n"])
        out.append(f"| {r['statistic']} | {value} | {n} | {ci} | {md_line(r['note'])} |")
    return out


def _md_methods(rep: ag.AgreementReport) -> list[str]:
    out = ["", "### How each number was computed", ""]
    for e in rep.statistics:
        interval = f"; interval: {e.interval_method}" if e.interval_method else ""
        out.append(f"- {e.statistic}: {e.method} (n = {e.n} {e.n_of}){interval}. Computed by {e.provenance()}.")
    return out


def report_markdown(report: TaskAgreement, meta: ReportMeta) -> str:
    """A readable agreement report: provenance, every statistic, how each was computed,
    diagnostics, most disagreed items."""
    lines = [
        f"# Agreement report: {md_line(meta.task)}",
        "",
        f"- Dataset: {md_line(meta.dataset)}",
        f"- Codebook: {md_line(meta.codebook_name)} ({md_line(meta.codebook_id)} v{md_line(meta.codebook_version)})",
        f"- Items in the task: {meta.n_items_in_task}",
        f"- Generated: {meta.generated_at}",
        "- Coders left out (not human): " + (md_line(", ".join(report.excluded_coders)) or "none"),
        "- Packages that computed the numbers: " + ", ".join(f"{k} {v}" for k, v in report.packages().items()),
        "",
    ]
    if report.overall is None:
        lines.append("No labels yet: nothing to report.")
        return "\n".join(lines) + "\n"
    for title, rep in report.scopes(meta.codebook_version):
        lines += [f"## {title}", "", *_md_table(rep), *_md_methods(rep), "", "### Diagnostics", ""]
        lines += [f"- {md_line(w)}" for w in rep.diagnostics.warnings] or ["- none"]
        if not rep.most_disagreed.empty:
            lines += ["", "### Most disagreed items", "", "| item | agreement | labels |", "|---|---|---|"]
            lines += [
                f"| {md_line(r.item)} | {fmt(r.agreement, 2)} | {md_line(r.labels)} |"
                for r in rep.most_disagreed.itertuples(index=False)
            ]
        lines.append("")
    return "\n".join(lines) + "\n"


def long_jsonl(long: pd.DataFrame) -> str:
    """One JSON object per label (the long export), dates as ISO text."""
    df = long.copy()
    for c in df.columns:
        if pd.api.types.is_datetime64_any_dtype(df[c]):
            df[c] = df[c].map(lambda t: None if pd.isna(t) else pd.Timestamp(t).isoformat())
    return df.to_json(orient="records", lines=True, force_ascii=False)
