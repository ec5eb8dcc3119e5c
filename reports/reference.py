"""Published values to set a dataset's statistics beside: a small YAML file per study (the ALMANAC
paper's Table 1 and Table 8 ship in ``reports/references/almanac.yaml``), read strictly, and the
comparison table the report shows (ours, the paper's, the difference)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from analysis.format import fmt, fmt_mean_sd
from corpus.schema import DIMENSIONS, SHORT_NAMES

ALMANAC = Path(__file__).parent / "references" / "almanac.yaml"
DIMENSION_NAMES = {"team_goal": "Team goal", "partner_intent": "Partner intent", "self_reasoning": "Self reasoning"}
COUNTS = ("actions", "message", "draw", "erase", "undo", "reset")


class ReferenceError(ValueError):
    """A reference file that cannot be used: the message names the file and the field."""


@dataclass(frozen=True)
class Reference:
    name: str
    source: str
    groups: tuple[str, ...]
    table1: dict[str, list[tuple[float, float]]]  # count -> [(mean, SD) per group]
    table8: dict[str, dict[str, list[tuple[float, float]]]]  # dimension -> label -> [(mean, SD) per group]


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
    return Reference(str(data.get("name") or path.stem), str(data.get("source") or ""), tuple(groups), t1, t8)


def _ours(stats: dict[str, Any], group: str) -> dict[str, Any] | None:
    if group in ("all", "overall"):
        return stats["overall"]
    return stats["by_split"].get(group) if "/" not in group else stats["by_condition_split"].get(group)


def comparison(stats: dict[str, Any], ref: Reference) -> pd.DataFrame:
    """One row per statistic and group: ours and the reference's mean (SD), and ours minus theirs;
    a group the dataset does not have is left out."""
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
            }
        )

    for k, group in enumerate(ref.groups):
        mine = _ours(stats, group)
        if mine is None:
            continue
        for count, cells in ref.table1.items():
            add("Table 1", f"# {count}/session", group, mine["per_session"].get(count), cells[k])
        for dim, labels in ref.table8.items():
            for label, cells in labels.items():
                ours = mine.get("mental_model_pct", {}).get(dim, {}).get(label)
                add("Table 8", f"{DIMENSION_NAMES[dim]}: {SHORT_NAMES.get(label, label)} (%)", group, ours, cells[k])
    return pd.DataFrame(rows)
