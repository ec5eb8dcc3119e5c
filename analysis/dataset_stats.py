"""``python -m corpus stats`` for every dataset Groundwork reads, in one shape: ``domain``
(the registry's name: "map_task", "kitchen", "benchmark" or a plugin's), ``dataset`` (name, synthetic), ``overall`` (the counts of the
whole dataset, and per-unit means with their SD), and ``by_<grouping>`` (the same counts per group).

- Map Task sessions: the paper's Table 1 and Table 8 (:mod:`analysis.descriptive`), overall, per
  condition, per split and per condition x split.
- Kitchen runs: runs, those that succeeded, steps, messages, request units and unstructured messages
  (the TGCO audit's reading, :mod:`analysis.kitchen.tgco`, level-normalized window), completed actions and
  corrections; per run the mean and SD of steps, messages and request units; per directed pairing
  (each agent's scaffold with its model), per scaffold and per task level.
- A benchmark: items, groups (trials), runs, answers given and left out, judged runs; per run and per
  value of its first slice.
- A domain a lab adds (:mod:`corpus.domain`): its units, overall and per condition and split.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from corpus.loading.report import DatasetError


def _mean_sd(values: pd.Series) -> dict[str, float | None]:
    """Mean and sample SD (ddof=1; None over fewer than two values), as the Map Task tables give them."""
    x = values.dropna().astype(float)
    return {
        "mean": round(float(x.mean()), 4) if len(x) else None,
        "sd": round(float(x.std(ddof=1)), 4) if len(x) > 1 else None,
    }


def stats_of(path: str | Path) -> dict[str, Any]:
    """The statistics of a dataset folder or .zip, whatever its domain; :class:`DatasetError` with
    every problem when it does not load."""
    path = Path(path)
    if path.suffix.lower() == ".zip" and path.is_file():
        from corpus.loading.validate import domain_of
        from corpus.server.archive import extracted

        with extracted(path) as root:
            if domain_of(root) != "map_task":
                return _stats_of_folder(root)
    return _stats_of_folder(path)


def _stats_of_folder(root: Path) -> dict[str, Any]:
    """The dataset read by its domain's reader (:func:`corpus.domain.read_path`), then counted by its
    domain's own statistics (:data:`STATS`), or, for a domain with none, by its units."""
    from corpus import domain as registry

    data = registry.read_path(root)
    counted = STATS.get(data.domain, unit_stats)
    return {"domain": data.domain, "dataset": {"name": data.name, "synthetic": data.synthetic}, **counted(data)}


def _map_task_stats(corpus: Any) -> dict[str, Any]:
    """The paper's Table 1 and Table 8 (:mod:`analysis.descriptive`)."""
    from analysis.descriptive import dataset_stats

    return dataset_stats(corpus.sessions_df, corpus.actions_df)


def unit_stats(data: Any) -> dict[str, Any]:
    """What any dataset's units say (:class:`corpus.domain.Dataset`): their count, overall and per
    value of each design column they have (condition, split)."""
    units = data.units
    out: dict[str, Any] = {"overall": {f"n_{data.unit_noun}s": int(len(units))}}
    for col in ("condition", "split"):
        if col in units.columns and units[col].notna().any():
            counts = units[col].dropna().astype(str).value_counts().sort_index()
            out[f"by_{col}"] = {str(k): {f"n_{data.unit_noun}s": int(n)} for k, n in counts.items()}
    return out


def kitchen_stats(runs: Iterable[Any]) -> dict[str, Any]:
    """The counts of kitchen runs, overall and per pairing, scaffold and level (the module's text)."""
    from analysis.kitchen.metrics import NOT_RECORDED, UNKNOWN_LEVEL, kitchen_metrics

    runs = list(runs)
    metrics = kitchen_metrics(runs)
    rows = pd.DataFrame(
        [
            {
                "pairing": m.pairing,
                "scaffold": m.scaffold or NOT_RECORDED,
                "level": str(m.level) if m.level is not None else UNKNOWN_LEVEL,
                "succeeded": int(m.success),
                "steps": m.steps,
                "messages": m.messages,
                "request_units": m.requests,
                "unstructured": m.unstructured,
                "completed": len(r.completed),
                "validator_corrections": m.validator_corrections,
                "format_corrections": m.format_corrections,
            }
            for r, m in zip(runs, metrics)
        ]
    )

    def group(frame: pd.DataFrame) -> dict[str, Any]:
        out: dict[str, Any] = {"n_runs": int(len(frame))}
        for col in ("succeeded", "steps", "messages", "request_units", "unstructured", "completed"):
            out[f"n_{col}"] = int(frame[col].sum())
        out["n_validator_corrections"] = int(frame["validator_corrections"].sum())
        out["n_format_corrections"] = int(frame["format_corrections"].sum())
        out["per_run"] = {col: _mean_sd(frame[col]) for col in ("steps", "messages", "request_units")}
        return out

    return {"overall": group(rows), **_by(rows, ("pairing", "scaffold", "level"), group)}


def benchmark_stats(bench: Any) -> dict[str, Any]:
    """The counts of a benchmark, overall, per run and per value of its first slice."""
    from corpus.benchmark.dataset import NO_ANSWER

    items = bench.items
    overall = {
        "n_items": int(len(items)),
        "n_groups": int(items["group"].nunique()) if "group" in items.columns else 0,
        "n_runs": len(bench.ok_runs),
        "n_refused_runs": len(bench.refused),
        "n_answers": int(sum((r.answers["answer"] != NO_ANSWER).sum() for r in bench.ok_runs)),
        "n_no_answer": int(sum(r.no_answer for r in bench.ok_runs)),
        "n_judged_runs": len(bench.judged),
    }
    by_run = {
        r.run_id: {
            "model": r.model,
            "setting": r.setting,
            "n_answers": int((r.answers["answer"] != NO_ANSWER).sum()),
            "n_no_answer": int(r.no_answer),
            "n_groups": int(r.groups),
        }
        for r in bench.ok_runs
    }
    out: dict[str, Any] = {"overall": overall, "by_run": by_run}
    if bench.slices:
        col = bench.slices[0]
        out[f"by_{col}"] = {str(k): {"n_items": int(len(g))} for k, g in items.groupby(col, sort=True)}
    return out


# Each domain's statistics, by the name of its registry entry (corpus.domain); any other domain's
# are its units' counts (unit_stats).
STATS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "map_task": _map_task_stats,
    "kitchen": lambda kitchen: kitchen_stats(kitchen.runs),
    "benchmark": lambda bench: benchmark_stats(bench),
}


def _by(frame: pd.DataFrame, keys: Iterable[str], group: Callable[[pd.DataFrame], dict[str, Any]]) -> dict[str, Any]:
    return {f"by_{k}": {str(v): group(g) for v, g in frame.groupby(k, sort=True)} for k in keys}


def format_any(stats: dict[str, Any]) -> str:
    """The statistics as text: the paper's tables for Map Task sessions, else each grouping's counts
    as a table (one row per group)."""
    if stats.get("domain", "map_task") == "map_task":
        from analysis.descriptive import format_stats

        return format_stats(stats)
    d = stats["dataset"]
    lines = [f"{d['name']} ({stats['domain']}{', synthetic' if d.get('synthetic') else ''})", ""]
    for name, block in stats.items():
        if name in ("domain", "dataset"):
            continue
        groups = {"all": block} if name == "overall" else block
        rows = {g: {k: _cell(v) for k, v in vals.items()} for g, vals in groups.items()}
        lines += [name.replace("_", " ").capitalize(), pd.DataFrame(rows).T.to_string(), ""]
    return "\n".join(lines).rstrip()


def _cell(value: Any) -> str:
    if isinstance(value, dict):
        return "; ".join(f"{k} {_cell(v)}" for k, v in value.items())
    if value is None:
        return "-"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


__all__ = ["stats_of", "kitchen_stats", "benchmark_stats", "unit_stats", "format_any", "DatasetError"]
