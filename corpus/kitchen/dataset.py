"""A kitchen dataset on disk: ``dataset.json`` (``"domain": "kitchen"``) and ``runs/<id>.json``, one
file per run in Groundwork's own form of :class:`corpus.kitchen.run.KitchenRun` (whatever format the run
was imported from: :mod:`corpus.importers.overcooked`).

Written all or nothing (:func:`write_kitchen_dataset`), read back exactly (:func:`load_kitchen`:
``read(write(runs)) == runs``), every value checked against its type (pydantic, strictly), with every
problem naming its file, the run, the step and the field (:func:`read_run_file`);
:func:`read_kitchen` reports every problem without raising, for ``python -m corpus validate``.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import TypeAdapter, ValidationError

from corpus.domain import UNIT_ID, ReadFromInfo, generated_by, provenance
from corpus.kitchen.run import Completed, Correction, KitchenRun, KitchenStep, Turn
from corpus.loading.reading import load_json, parse
from corpus.loading.report import DatasetError, Report, describe
from corpus.model import DatasetInfo
from corpus.schema import NOT_RECORDED

DOMAIN = "kitchen"
RUN_FORMAT_VERSION = 1
_PARTS: dict[str, type] = {"steps": KitchenStep, "turns": Turn, "completed": Completed, "corrections": Correction}


@dataclass(frozen=True)
class KitchenCorpus(ReadFromInfo):
    """A loaded kitchen dataset: its dataset.json, its runs in file order, and the content hash of
    the folder (:func:`corpus.loading.dataset.content_hash`)."""

    root: Path
    info: DatasetInfo
    runs: tuple[KitchenRun, ...]
    content_hash: str

    # -- what every dataset offers (corpus.domain.Dataset) -------------------------------------

    @property
    def domain(self) -> str:
        return DOMAIN

    @property
    def unit_noun(self) -> str:
        return "run"

    @property
    def provenance(self) -> dict[str, str]:
        formats = ", ".join(sorted({r.format for r in self.runs}))
        return provenance(self.info.description, run_formats=formats, generated_by=generated_by(self.info.generator))

    @property
    def units(self) -> pd.DataFrame:
        """One row per run: unit_id (the run id), condition (its directed pairing: what the runs
        compare), split (not recorded), level (None when unknown) and recipe."""
        return pd.DataFrame(
            {
                UNIT_ID: [r.id for r in self.runs],
                "condition": [r.pairing for r in self.runs],
                "split": [NOT_RECORDED] * len(self.runs),
                "level": pd.array([r.level for r in self.runs], dtype="Int64"),
                "recipe": [r.recipe for r in self.runs],
            },
            columns=[UNIT_ID, "condition", "split", "level", "recipe"],
        )


def run_json(run: KitchenRun) -> dict[str, Any]:
    """A run as the JSON object its file holds."""
    return {"format_version": RUN_FORMAT_VERSION, **asdict(run)}


def file_name(run_id: str) -> str:
    """The run's file name: its id with anything but letters, digits, '.', '_' and '-' replaced."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", run_id)[:180] + ".json"


def write_kitchen_dataset(dest: Path, info: DatasetInfo, runs: Iterable[KitchenRun], overwrite: bool = False) -> Path:
    """Write the dataset next to ``dest`` and move it into place once complete (nothing is left
    behind on an error). Run ids must be unique and give distinct file names."""
    from corpus.loading.write import folder_in_place

    runs = list(runs)
    names = [file_name(r.id) for r in runs]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"run ids give the same file name: {', '.join(dup[:5])}")
    info = info.model_copy(update={"domain": DOMAIN})
    with folder_in_place(Path(dest), overwrite) as tmp:
        (tmp / "dataset.json").write_text(
            json.dumps(info.model_dump(mode="json"), ensure_ascii=False, indent=2), encoding="utf-8"
        )
        (tmp / "runs").mkdir()
        for run, name in zip(runs, names):
            (tmp / "runs" / name).write_text(
                json.dumps(run_json(run), ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
            )
    return Path(dest)


def is_kitchen(root: Path) -> bool:
    """Whether ``root`` holds a kitchen dataset (its dataset.json says so)."""
    try:
        info = json.loads((Path(root) / "dataset.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(info, dict) and info.get("domain") == DOMAIN


_EXPECTED = {
    "int_type": "a whole number",
    "float_type": "a number",
    "bool_type": "true or false",
    "string_type": "a string",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "an object",
    "dataclass_type": "an object",
    "dataclass_args_type": "an object",
}


@functools.cache
def _run_adapter() -> TypeAdapter[KitchenRun]:
    """The validator of a run and its parts (each class's pydantic configuration: strict, no
    unknown field), built once."""
    return TypeAdapter(KitchenRun)


def _record(data: dict[str, Any], run_id: str, loc: tuple[Any, ...]) -> tuple[str, str]:
    """(record, field) of a problem at ``loc``: the run, and for a part of it the part's place and,
    for a step, turn, completed action or correction whose step reads, that step."""
    where = f"run {run_id}"
    if len(loc) >= 2 and loc[0] in _PARTS and isinstance(loc[1], int):
        where += f", {loc[0]}[{loc[1]}]"
        items = data.get(loc[0])
        item = items[loc[1]] if isinstance(items, list) and loc[1] < len(items) else None
        step = item.get("step") if isinstance(item, dict) else None
        if type(step) is int:
            where += f" (step {step})"
        rest = loc[2:]
    else:
        rest = loc
    return where, ".".join(str(x) for x in rest) or "(record)"


def _problem(e: Any) -> str:
    kind = e["type"]
    if kind == "missing" or kind == "missing_argument":
        return "missing (a required field)"
    if kind in ("unexpected_keyword_argument", "extra_forbidden"):
        return "unknown field"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {describe(e.get('input'))}"
    return str(e["msg"])


def read_run_file(path: Path, rel: str, report: Report) -> KitchenRun | None:
    """One ``runs/<id>.json`` file, or None with its problems in ``report``: every value is checked
    against its type (a run with ``"score": "lots"`` is refused, not loaded to fail later), each
    problem naming the file, the run, the step (for a part of the run) and the field."""
    loaded = load_json(path, report, rel)
    if loaded is None:
        return None
    data = loaded[0]
    if not isinstance(data, dict):
        report.add(rel, "-", "(file)", f"expected a JSON object, got {describe(data)}")
        return None
    version = data.pop("format_version", None)
    if version != RUN_FORMAT_VERSION:
        report.add(rel, "-", "format_version", f"expected {RUN_FORMAT_VERSION}, got {describe(version)}")
        return None
    named = data.get("id")
    run_id = named if isinstance(named, str) else Path(rel).stem
    try:
        run = _run_adapter().validate_json(json.dumps(data), strict=True)
    except ValidationError as err:
        for e in err.errors(include_url=False):
            record, fld = _record(data, run_id, tuple(e["loc"]))
            report.add(rel, record, fld, _problem(e))
        return None
    start = report.error_count
    for part in ("steps", "turns", "completed", "corrections"):
        for k, item in enumerate(getattr(run, part)):
            if item.step < 0:
                report.add(
                    rel, _record(data, run_id, (part, k))[0], "step", f"expected a step (0 or more), got {item.step}"
                )
            for fld in ("agent", "initiator"):
                who = getattr(item, fld, 0)
                if who not in (0, 1):
                    report.add(
                        rel, _record(data, run_id, (part, k))[0], fld, f"expected 0 or 1 (the two agents), got {who}"
                    )
    return run if report.error_count == start else None


def read_kitchen(root: str | Path) -> tuple[DatasetInfo | None, list[KitchenRun], Report]:
    """Every problem of a kitchen dataset directory, without raising: its dataset.json, its runs
    (each file read by :func:`read_run_file`), and warnings a person should see (a run whose recipe
    is not one of the benchmark's, so that its level is unknown)."""
    root = Path(root)
    report = Report()
    info = None
    loaded = load_json(root / "dataset.json", report, "dataset.json") if (root / "dataset.json").is_file() else None
    if loaded is None and report.ok:
        report.add("dataset.json", "-", "(file)", "missing: a dataset directory needs dataset.json")
    elif loaded is not None:
        info = parse(DatasetInfo, loaded[0], report, "dataset.json", "-", text=loaded[1])
        if info is not None and info.domain != DOMAIN:
            report.add("dataset.json", "-", "domain", f"expected '{DOMAIN}', got '{info.domain}'")
    runs_dir = root / "runs"
    runs: list[KitchenRun] = []
    if not runs_dir.is_dir():
        report.add("runs/", "-", "(folder)", "missing: a kitchen dataset needs a runs/ folder")
        return info, runs, report
    seen: dict[str, str] = {}
    for path in sorted(runs_dir.glob("*.json")):
        rel = f"runs/{path.name}"
        run = read_run_file(path, rel, report)
        if run is None:
            continue
        if run.id in seen:
            report.add(rel, f"run {run.id}", "id", f"the run id is used by {seen[run.id]} too")
            continue
        seen[run.id] = rel
        if run.level is None:
            named = f"its recipe '{run.recipe}' is" if run.recipe else "it names no single recipe: its orders are"
            orders = sorted({o for s in run.steps for o in s.orders} | set(run.finished))
            report.add(
                rel,
                f"run {run.id}",
                "level",
                f"{named} not among the benchmark's recipes"
                + (f" (orders: {', '.join(orders)})" if orders else "")
                + ": its level is unknown, so it is left out of the per-level rows",
                severity="warning",
            )
        runs.append(run)
    if report.ok and not runs:
        report.add("runs/", "-", "(folder)", "empty: a kitchen dataset needs at least one run")
    return info, runs, report


def load_kitchen(root: str | Path) -> KitchenCorpus:
    """Read a kitchen dataset; :class:`DatasetError` with every problem if it has any."""
    from corpus.loading.dataset import content_hash

    root = Path(root)
    info, runs, report = read_kitchen(root)
    if not report.ok or info is None:
        raise DatasetError(report, str(root))
    return KitchenCorpus(root, info, tuple(runs), content_hash(root))
