"""Published values to set a dataset's statistics beside: a small YAML file per study (the ALMANAC
paper's Table 1 and Table 8 ship in ``reports/references/almanac.yaml``), read strictly, and the
comparison table the report shows (ours, the paper's, the difference).

The comparison is made whatever splits the dataset records (:func:`basis`): **by split** when some
of its sessions are in a split the reference reports (train, test), each such group beside the
published one; **overall** when none is, every session (and each condition's) beside the
published groups pooled: means weighted by the groups' session counts, SDs pooled from the groups'
SDs and the spread of their means (the reference's ``sessions``). Which one was made is said in a
sentence beside the table and in the table's ``compared`` column."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from analysis.format import fmt, fmt_mean_sd
from components.palette import SPLIT_NAMES
from corpus.schema import DIMENSIONS, SHORT_NAMES

ALMANAC = Path(__file__).parent / "references" / "almanac.yaml"
DIMENSION_NAMES = {"team_goal": "Team goal", "partner_intent": "Partner intent", "self_reasoning": "Self reasoning"}
COUNTS = ("actions", "message", "draw", "erase", "undo", "reset")
COLUMNS = ("C visible · G", "C visible · F", "C not visible · G", "C not visible · F")
# The published model scores a reference may hold: (task, metric, dimension) of the leaderboard's cells.
MODEL_SCORES = {
    "next_action": {"action_type_accuracy": ("next_action", "accuracy", "action_type")},
    "next_action_mental_model": {"action_type_accuracy": ("next_action", "accuracy", "action_type")},
    "mental_model": {d: ("mental_model", "accuracy", d) for d in ("team_goal", "partner_intent", "self_reasoning")},
}
SCORE_NAMES = {
    "action_type_accuracy": "Accuracy (action type)",
    "team_goal": "Team goal accuracy",
    "partner_intent": "Partner intent accuracy",
    "self_reasoning": "Self-reasoning accuracy",
}


class ReferenceError(ValueError):
    """A reference file that cannot be used: the message names the file and the field."""


@dataclass(frozen=True)
class Reference:
    name: str
    source: str
    groups: tuple[str, ...]
    table1: dict[str, list[tuple[float, float]]]  # count -> [(mean, SD) per group]
    table8: dict[str, dict[str, list[tuple[float, float]]]]  # dimension -> label -> [(mean, SD) per group]
    # model -> score key ("next_action", "next_action_mental_model", "mental_model") -> dimension ->
    # [C visible G, C visible F, C not visible G, C not visible F]
    models: dict[str, dict[str, dict[str, list[float]]]] = field(default_factory=dict)
    # Sessions in each group, when the source gives them: what pools the groups for an overall comparison.
    sessions: tuple[int, ...] | None = None


def _cells(value: Any, n: int, where: str) -> list[tuple[float, float]]:
    if not isinstance(value, list) or len(value) != n:
        raise ReferenceError(f"{where}: expected {n} [mean, SD] pairs, one per group")
    out = []
    for k, cell in enumerate(value):
        if (
            not isinstance(cell, list)
            or len(cell) != 2
            or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in cell)
        ):
            raise ReferenceError(f"{where}[{k}]: expected [mean, SD] as two numbers, found {cell!r}")
        out.append((float(cell[0]), float(cell[1])))
    return out


def load(path: str | Path = ALMANAC) -> Reference:
    """The reference in ``path``; every problem names the file and the field."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise ReferenceError(f"{path}: cannot read it ({exc})") from None
    if not isinstance(data, dict):
        raise ReferenceError(f"{path}: expected a mapping with name, source, groups, table1, table8")
    groups = data.get("groups")
    if not isinstance(groups, list) or not groups or not all(isinstance(g, str) for g in groups):
        raise ReferenceError(f"{path}, field groups: expected a list of group names (train, test, CONDITION/SPLIT)")
    n = len(groups)
    table1 = data.get("table1") or {}
    table8 = data.get("table8") or {}
    if not isinstance(table1, dict) or not isinstance(table8, dict):
        raise ReferenceError(f"{path}: table1 and table8 are mappings")
    t1 = {}
    for count, cells in table1.items():
        if count not in COUNTS:
            raise ReferenceError(f"{path}, field table1.{count}: not one of {', '.join(COUNTS)}")
        t1[count] = _cells(cells, n, f"{path}, field table1.{count}")
    t8: dict[str, dict[str, list[tuple[float, float]]]] = {}
    for dim, labels in table8.items():
        if dim not in DIMENSIONS or not isinstance(labels, dict):
            raise ReferenceError(f"{path}, field table8.{dim}: not one of {', '.join(DIMENSIONS)}")
        for label, cells in labels.items():
            if label not in DIMENSIONS[dim]:
                raise ReferenceError(f"{path}, field table8.{dim}.{label}: not a label of {dim}")
            t8.setdefault(dim, {})[label] = _cells(cells, n, f"{path}, field table8.{dim}.{label}")
    return Reference(
        str(data.get("name") or path.stem),
        str(data.get("source") or ""),
        tuple(groups),
        t1,
        t8,
        _models(data, path),
        _sessions(data.get("sessions"), n, path),
    )


def _sessions(value: Any, n: int, path: Path) -> tuple[int, ...] | None:
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or len(value) != n
        or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in value)
    ):
        raise ReferenceError(
            f"{path}, field sessions: expected {n} session counts (whole numbers from 1), one per group"
        )
    return tuple(value)


def _models(data: dict, path: Path) -> dict[str, dict[str, dict[str, list[float]]]]:
    models = data.get("models") or {}
    if not isinstance(models, dict):
        raise ReferenceError(f"{path}, field models: a mapping of model name -> scores")
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    for model, scores in models.items():
        if not isinstance(scores, dict):
            raise ReferenceError(f"{path}, field models.{model}: a mapping of task -> scores")
        for key, dims in scores.items():
            where = f"{path}, field models.{model}.{key}"
            if key not in MODEL_SCORES or not isinstance(dims, dict):
                raise ReferenceError(f"{where}: not one of {', '.join(MODEL_SCORES)}")
            for dim, values in dims.items():
                if dim not in MODEL_SCORES[key]:
                    raise ReferenceError(f"{where}.{dim}: not one of {', '.join(MODEL_SCORES[key])}")
                if (
                    not isinstance(values, list)
                    or len(values) != len(COLUMNS)
                    or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
                ):
                    raise ReferenceError(f"{where}.{dim}: expected {len(COLUMNS)} numbers ({', '.join(COLUMNS)})")
                out.setdefault(str(model), {}).setdefault(key, {})[dim] = [float(v) for v in values]
    return out


BY_SPLIT = "by split"
OVERALL = "overall"
OVERALL_GROUP = "overall"  # every session of the dataset (the published groups pooled)


@dataclass(frozen=True)
class Basis:
    """Which comparison is made: ``how`` (:data:`BY_SPLIT` or :data:`OVERALL`), the groups set
    beside each other (ours, with the published groups each pools: one for a comparison by split),
    and the sentence that says so."""

    how: str
    groups: tuple[tuple[str, tuple[int, ...]], ...]
    sentence: str


def _split_of(group: str) -> str:
    return group.rpartition("/")[2]


def _ours(stats: dict[str, Any], group: str) -> dict[str, Any] | None:
    if group in ("all", OVERALL_GROUP):
        return stats["overall"]
    if "/" in group:
        return stats["by_condition_split"].get(group)
    return stats["by_split"].get(group) or stats["by_condition"].get(group)


def _listing(groups: dict[str, Any]) -> str:
    """Splits and their sessions in words: "train (19 sessions) and test (6 sessions)"."""
    return " and ".join(f"{SPLIT_NAMES.get(g, g)} ({v['n_sessions']} sessions)" for g, v in groups.items())


def basis(stats: dict[str, Any], ref: Reference) -> Basis:
    """How the dataset whose statistics are ``stats`` is set beside ``ref``: by split when some of
    its sessions are in a split the reference reports, else overall (the reference's groups pooled)."""
    ref_splits = {_split_of(g) for g in ref.groups}
    by_split = stats["by_split"]
    shared = {s: v for s, v in by_split.items() if s in ref_splits}
    others = {s: v for s, v in by_split.items() if s not in ref_splits}
    if shared:
        groups = tuple((g, (k,)) for k, g in enumerate(ref.groups) if _ours(stats, g) is not None)
        left = f" The sessions of {_listing(others)} are in none of its groups." if others else ""
        return Basis(
            BY_SPLIT,
            groups,
            f"Compared by split, as {ref.name} reports its values: this dataset's {_listing(shared)} beside "
            f"the published groups of the same split.{left}",
        )
    n = stats["overall"]["n_sessions"]
    recorded = ", ".join(SPLIT_NAMES.get(s, s) for s in by_split) or "none"
    why = (
        f"No session of this dataset is in a split {ref.name} reports ({', '.join(sorted(ref_splits))}; "
        f"its splits: {recorded})"
    )
    if ref.sessions is None:
        return Basis(
            OVERALL,
            (),
            f"{why}, and the reference gives no session counts to pool its groups, so nothing is compared.",
        )
    pools: dict[str, list[int]] = {OVERALL_GROUP: [k for k, g in enumerate(ref.groups) if "/" not in g]}
    for k, g in enumerate(ref.groups):
        if "/" in g:
            pools.setdefault(g.partition("/")[0], []).append(k)
    groups = tuple((g, tuple(ks)) for g, ks in pools.items() if ks and _ours(stats, g) is not None)
    return Basis(
        OVERALL,
        groups,
        f"{why}, so the comparison is overall: all {n} sessions, and each condition's, beside the published "
        "groups pooled (means weighted by the groups' session counts, SDs pooled: values derived from the "
        "published ones, not printed themselves).",
    )


def pooled(cells: list[tuple[float, float]], sizes: list[int]) -> tuple[float, float]:
    """The mean and SD (ddof=1) of the groups' sessions together, from each group's mean, SD and
    number of sessions: the within-group sums of squares plus the spread of the group means."""
    if len(cells) == 1:
        return cells[0]
    total = sum(sizes)
    mean = sum(n * m for (m, _), n in zip(cells, sizes)) / total
    squares = sum((n - 1) * sd**2 + n * (m - mean) ** 2 for (m, sd), n in zip(cells, sizes))
    return mean, math.sqrt(squares / (total - 1))


def comparison(stats: dict[str, Any], ref: Reference) -> pd.DataFrame:
    """One row per statistic and group: ours and the reference's mean (SD), ours minus theirs, and
    which comparison it is (:func:`basis`: by split, or overall); a group the dataset does not have
    is left out."""
    how = basis(stats, ref)
    rows = []

    def add(table: str, what: str, group: str, ours: dict | None, theirs: tuple[float, float]) -> None:
        mean = ours.get("mean") if ours else None
        rows.append(
            {
                "table": table,
                "statistic": what,
                "group": group,
                "ours": fmt_mean_sd(mean, ours.get("sd") if ours else None) if ours else "not in the dataset",
                ref.name: fmt_mean_sd(*theirs),
                "difference": fmt(mean - theirs[0], 1, signed=True) if mean is not None else "",
                "compared": how.how,
            }
        )

    for group, ks in how.groups:
        mine = _ours(stats, group)
        if mine is None:
            continue
        sizes = [ref.sessions[k] for k in ks] if ref.sessions is not None else [1] * len(ks)
        for count, cells in ref.table1.items():
            theirs = pooled([cells[k] for k in ks], sizes)
            add("Table 1", f"# {count}/session", group, mine["per_session"].get(count), theirs)
        for dim, labels in ref.table8.items():
            for label, cells in labels.items():
                ours = mine.get("mental_model_pct", {}).get(dim, {}).get(label)
                theirs = pooled([cells[k] for k in ks], sizes)
                add("Table 8", f"{DIMENSION_NAMES[dim]}: {SHORT_NAMES.get(label, label)} (%)", group, ours, theirs)
    columns = ["table", "statistic", "group", "ours", ref.name, "difference", "compared"]
    return pd.DataFrame(rows, columns=columns)


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", name.lower())


def model_comparison(cells: pd.DataFrame, runs: dict[str, tuple[str, str, str]], ref: Reference) -> pd.DataFrame:
    """The runs that name a model of the reference, their scores beside the published ones.

    ``cells``: the leaderboards' cells of both tasks (run, task, metric, dimension, condition,
    role, estimate, n); ``runs``: run id -> (model, name, setting) as its model.json gives them. A
    run whose setting mentions mental models is set beside the "+Mental Model" row of Table 2."""
    published = {_key(m): m for m in ref.models}
    rows = []
    for run, (model, name, setting) in runs.items():
        match = published.get(_key(model)) or published.get(_key(name))
        if match is None:
            continue
        with_mm = "mental" in setting.lower()
        for key, dims in ref.models[match].items():
            if key.startswith("next_action") and (key == "next_action_mental_model") != with_mm:
                continue
            for dim, values in dims.items():
                task, metric, dimension = MODEL_SCORES[key][dim]
                for col, theirs in zip(COLUMNS, values):
                    condition, role = col.split(" · ")
                    mine = cells[
                        (cells["run"] == run)
                        & (cells["task"] == task)
                        & (cells["metric"] == metric)
                        & (cells["dimension"] == dimension)
                        & (cells["condition"] == condition)
                        & (cells["role"] == role)
                    ]
                    est = mine["estimate"].iloc[0] if len(mine) else None
                    defined = isinstance(est, float | int) and est == est
                    rows.append(
                        {
                            "run": run,
                            "published model": match + (" +Mental Model" if key == "next_action_mental_model" else ""),
                            "score": SCORE_NAMES[dim],
                            "column": col,
                            "ours": f"{fmt(est, 2)} (n = {int(mine['n'].iloc[0])})" if defined else "no score",
                            ref.name: fmt(theirs, 2),
                            "difference": fmt(float(est) - theirs, 2, signed=True) if defined else "",
                        }
                    )
    return pd.DataFrame(rows, columns=["run", "published model", "score", "column", "ours", ref.name, "difference"])
