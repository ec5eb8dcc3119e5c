"""The pure parts of coding tasks: choosing items, and the agreement report as Markdown and CSV.

- :func:`sample_items`: a seeded random sample of N actions, optionally stratified by columns of
  the action table (condition, role); proportional allocation with largest remainders, so every
  stratum gets its share rounded fairly and the total is exactly N.
- :func:`all_items`, :func:`items_from_csv`: every action, or an uploaded id list
  (``session_id,action_index`` or ``item_id`` columns), checked line by line.
- :func:`assign_partitions`: the few-shot / validation split (the paper: 8 / 172), seeded.
- :func:`agreement_report`, :func:`report_markdown`, :func:`report_csv`: every agreement statistic
  overall and per codebook version, with n, confidence intervals, the codebook and the versions of
  the packages that computed them.

Nothing here imports streamlit.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from typing import Any, Iterable, Sequence

import numpy as np
import pandas as pd

from analysis import agreement as ag

STRATIFY_COLUMNS = ("condition", "role")
REPORT_PACKAGES = ("statsmodels", "krippendorff", "scikit-learn", "numpy", "pandas", "scipy")


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


def sample_items(actions: pd.DataFrame, n: int = 180, seed: int = 0,
                 stratify: Sequence[str] = ()) -> list[dict[str, Any]]:
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


def items_from_csv(data: bytes | str, file: str = "items.csv",
                   known: Iterable[str] | None = None) -> list[dict[str, Any]]:
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
        raise ItemListError(file, [f"needs columns session_id,action_index or item_id (found: {', '.join(cols) or 'none'})"])
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


def package_versions(names: Sequence[str] = REPORT_PACKAGES) -> dict[str, str]:
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


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
            self.generated_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def agreement_report(labels: pd.DataFrame, *, n_boot: int = 1000, seed: int = 0,
                     human_only: bool = True) -> dict[str, Any]:
    """Every statistic on the current labels (a store's ``labels()`` frame), overall and per version.

    Returns ``{"overall": report, "by_version": {version: report}, "excluded_coders": [...]}``
    where each report is :func:`analysis.agreement.report`'s JSON dict (``None`` when there are
    no labels).
    """
    df = labels
    excluded: list[str] = []
    if human_only and "coder_kind" in df.columns:
        excluded = sorted(df.loc[df["coder_kind"] != "human", "coder"].unique().tolist())
        df = df[df["coder_kind"] == "human"]
    kw = dict(item_col="item_id", coder_col="coder", label_col="code", n_boot=n_boot, seed=seed)
    out: dict[str, Any] = {"overall": ag.report(df, **kw) if len(df) else None, "by_version": {},
                           "excluded_coders": excluded}
    if "codebook_version" in df.columns:
        versions = sorted(df["codebook_version"].unique().tolist())
        if len(versions) > 1:
            for v in versions:
                out["by_version"][v] = ag.report(df[df["codebook_version"] == v], **kw)
    return out


def _fmt(v: Any, digits: int = 3) -> str:
    if v is None:
        return ""
    if isinstance(v, dict) and "undefined" in v:
        return f"undefined, because {v['undefined']}"
    if isinstance(v, ag.Undefined):
        return str(v)
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.{digits}f}"
    return str(v)


def _ci(v: Any) -> tuple[Any, Any]:
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return v[0], v[1]
    return None, None


def _rows(rep: dict[str, Any], scope: str) -> list[dict[str, Any]]:
    """One row per statistic: scope, statistic, value, n, ci_low, ci_high, note."""
    rows: list[dict[str, Any]] = []

    def add(stat: str, value: Any, n: Any = None, ci: Any = None, note: str = "") -> None:
        lo, hi = _ci(ci)
        undefined = value.get("undefined") if isinstance(value, dict) else None
        rows.append({
            "scope": scope, "statistic": stat,
            "value": None if undefined is not None else value,
            "n": n, "ci_low": lo, "ci_high": hi,
            "note": (f"undefined, because {undefined}" if undefined else note),
        })

    add("n_items", rep["n_items"], note="items with at least one label")
    add("n_coders", rep["n_coders"], note=", ".join(rep["coders"]))
    add("n_labels", rep["n_labels"])
    add("fleiss_kappa", rep["fleiss_kappa"], rep["fleiss_items_used"], rep["fleiss_ci"],
        f"on items coded by every coder ({rep['fleiss_items_dropped']} left out); CI: {rep['fleiss_se_method']}")
    add("fleiss_se", rep["fleiss_se"], rep["fleiss_items_used"])
    for cat, v in (rep.get("per_category") or {}).items():
        add(f"fleiss_kappa[{cat}]", v, rep["fleiss_items_used"], note="per-category kappa")
    add("krippendorff_alpha", rep["krippendorff_alpha"], rep["krippendorff_items"], rep["krippendorff_alpha_ci"],
        f"level {rep['krippendorff_level']}")
    add("krippendorff_alpha_se", rep["krippendorff_alpha_se"], rep["krippendorff_items"])
    add("percent_agreement", rep["percent_agreement"], rep["krippendorff_items"], note="items with two or more labels")
    add("mean_pairwise_cohen_kappa", rep["mean_pairwise_cohen_kappa"])
    for pair in rep.get("pairwise_cohen_kappa") or []:
        add(f"cohen_kappa[{pair['coder_a']},{pair['coder_b']}]", pair["kappa"], pair.get("n_items"))
    add("gwet_ac1", rep["gwet_ac1"])
    diag = rep.get("diagnostics") or {}
    prev = diag.get("prevalence") or {}
    add("prevalence_top_share", prev.get("share"), note=f"most common category: {prev.get('category')}")
    bias = (diag.get("coder_bias") or {}).get("test") or {}
    add("coder_bias_chi2", bias.get("chi2"), note=f"dof {bias.get('dof')}, p {_fmt(bias.get('p_value'), 4)}")
    return rows


def report_csv(report: dict[str, Any], meta: ReportMeta) -> str:
    """Every statistic as CSV rows (scope, statistic, value, n, ci_low, ci_high, note) plus provenance."""
    rows: list[dict[str, Any]] = []
    if report.get("overall"):
        rows += _rows(report["overall"], "all versions" if report["by_version"] else f"v{meta.codebook_version}")
    for v, rep in report.get("by_version", {}).items():
        rows += _rows(rep, f"v{v}")
    info = [
        ("task", meta.task), ("dataset", meta.dataset), ("codebook", f"{meta.codebook_id} v{meta.codebook_version}"),
        ("codebook_name", meta.codebook_name), ("items_in_task", meta.n_items_in_task),
        ("generated_at", meta.generated_at),
        ("excluded_coders", ", ".join(report.get("excluded_coders", [])) or "none"),
    ] + [(f"package:{k}", v) for k, v in package_versions().items()]
    for k, v in info:
        rows.append({"scope": "meta", "statistic": k, "value": v, "n": None, "ci_low": None, "ci_high": None, "note": ""})
    return pd.DataFrame(rows, columns=["scope", "statistic", "value", "n", "ci_low", "ci_high", "note"]).to_csv(index=False)


def _md_table(rows: list[dict[str, Any]]) -> list[str]:
    out = ["| statistic | value | n | 95 % CI | note |", "|---|---|---|---|---|"]
    for r in rows:
        ci = f"[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]" if r["ci_low"] is not None else ""
        value = _fmt(r["value"]) if r["value"] is not None else ""
        out.append(f"| {r['statistic']} | {value} | {'' if r['n'] is None else r['n']} | {ci} | {r['note']} |")
    return out


def report_markdown(report: dict[str, Any], meta: ReportMeta) -> str:
    """A readable agreement report: provenance, every statistic, diagnostics, most disagreed items."""
    lines = [
        f"# Agreement report: {meta.task}",
        "",
        f"- Dataset: {meta.dataset}",
        f"- Codebook: {meta.codebook_name} (`{meta.codebook_id}` v{meta.codebook_version})",
        f"- Items in the task: {meta.n_items_in_task}",
        f"- Generated: {meta.generated_at}",
        "- Coders left out (not human): " + (", ".join(report.get("excluded_coders", [])) or "none"),
        "- Packages: " + ", ".join(f"{k} {v}" for k, v in package_versions().items()),
        "",
    ]
    overall = report.get("overall")
    if not overall:
        lines.append("No labels yet: nothing to report.")
        return "\n".join(lines) + "\n"
    scopes = [("All labels" if report["by_version"] else f"Codebook v{meta.codebook_version}", overall)]
    scopes += [(f"Codebook v{v}", rep) for v, rep in report["by_version"].items()]
    for title, rep in scopes:
        lines += [f"## {title}", ""]
        lines += _md_table(_rows(rep, title))
        warnings = (rep.get("diagnostics") or {}).get("warnings") or []
        lines += ["", "### Diagnostics", ""]
        lines += [f"- {w}" for w in warnings] or ["- none"]
        md = rep.get("most_disagreed") or []
        if md:
            lines += ["", "### Most disagreed items", "", "| item | agreement | labels |", "|---|---|---|"]
            lines += [f"| {r['item']} | {_fmt(r['agreement'], 2)} | {r['labels']} |" for r in md]
        lines.append("")
    return "\n".join(lines) + "\n"


def long_jsonl(long: pd.DataFrame) -> str:
    """One JSON object per label (the long export), dates as ISO text."""
    df = long.copy()
    for c in df.columns:
        if pd.api.types.is_datetime64_any_dtype(df[c]):
            df[c] = df[c].map(lambda t: None if pd.isna(t) else pd.Timestamp(t).isoformat())
    return df.to_json(orient="records", lines=True, force_ascii=False)
