"""A kitchen dataset on disk: ``dataset.json`` (``"domain": "kitchen"``) and ``runs/<id>.json``, one
file per run in Groundwork's own form of :class:`corpus.kitchen.KitchenRun` (whatever format the run
was imported from: :mod:`corpus.importers.overcooked`).

Written all or nothing (:func:`write_kitchen_dataset`), read back exactly (:func:`load_kitchen`:
``read(write(runs)) == runs``), with every problem naming its file, record and field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from corpus.kitchen import Completed, Correction, KitchenRun, KitchenStep, Turn
from corpus.model import DatasetInfo
from corpus.reading import load_json, parse
from corpus.report import DatasetError, Report, describe

DOMAIN = "kitchen"
RUN_FORMAT_VERSION = 1
_PARTS: dict[str, type] = {"steps": KitchenStep, "turns": Turn, "completed": Completed, "corrections": Correction}


@dataclass(frozen=True)
class KitchenCorpus:
    """A loaded kitchen dataset: its dataset.json, its runs in file order, and the content hash of
    the folder (:func:`corpus.dataset.content_hash`)."""

    root: Path
    info: DatasetInfo
    runs: tuple[KitchenRun, ...]
    content_hash: str

    @property
    def name(self) -> str:
        return self.info.name


def run_json(run: KitchenRun) -> dict[str, Any]:
    """A run as the JSON object its file holds."""
    return {"format_version": RUN_FORMAT_VERSION, **asdict(run)}


def file_name(run_id: str) -> str:
    """The run's file name: its id with anything but letters, digits, '.', '_' and '-' replaced."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", run_id)[:180] + ".json"


def write_kitchen_dataset(dest: Path, info: DatasetInfo, runs: Iterable[KitchenRun], overwrite: bool = False) -> Path:
    """Write the dataset next to ``dest`` and move it into place once complete (nothing is left
    behind on an error). Run ids must be unique and give distinct file names."""
    from corpus.write import folder_in_place

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


def _build(cls: type, value: Any, report: Report, rel: str, record: str) -> Any:
    """``cls(**value)`` for one part of a run, or None with the problem reported."""
    if not isinstance(value, dict):
        report.add(rel, record, "(record)", f"expected an object, got {describe(value)}")
        return None
    fields = cls.__dataclass_fields__  # type: ignore[attr-defined]
    unknown = sorted(set(value) - set(fields))
    if unknown:
        report.add(rel, record, unknown[0], f"unknown field (expected some of {', '.join(fields)})")
        return None
    try:
        obj = cls(**value)
    except TypeError as exc:
        report.add(rel, record, "(record)", f"missing a field: {exc}")
        return None
    for name in ("actions", "orders"):
        if isinstance(getattr(obj, name, None), list):
            object.__setattr__(obj, name, tuple(getattr(obj, name)))
    return obj


def read_run_file(path: Path, rel: str, report: Report) -> KitchenRun | None:
    """One ``runs/<id>.json`` file, or None with its problems in ``report``."""
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
    start = report.error_count
    parts: dict[str, Any] = {}
    for key, cls in _PARTS.items():
        raw = data.get(key, [])
        if not isinstance(raw, list):
            report.add(rel, "-", key, f"expected a list, got {describe(raw)}")
            continue
        parts[key] = tuple(_build(cls, v, report, rel, f"{key}[{k}]") for k, v in enumerate(raw))
    if report.error_count > start:
        return None
    for key in ("models", "finished"):
        if isinstance(data.get(key), list):
            data[key] = tuple(data[key])
    run = _build(KitchenRun, {**data, **parts}, report, rel, "-")
    return run


def load_kitchen(root: str | Path) -> KitchenCorpus:
    """Read a kitchen dataset; :class:`DatasetError` with every problem if it has any."""
    from corpus.dataset import content_hash

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
    else:
        for path in sorted(runs_dir.glob("*.json")):
            run = read_run_file(path, f"runs/{path.name}", report)
            if run is not None:
                runs.append(run)
        if report.ok and not runs:
            report.add("runs/", "-", "(folder)", "empty: a kitchen dataset needs at least one run")
    if not report.ok or info is None:
        raise DatasetError(report, str(root))
    return KitchenCorpus(root, info, tuple(runs), content_hash(root))
