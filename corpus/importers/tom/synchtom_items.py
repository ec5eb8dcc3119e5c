"""SynchToM's released items (THUNLP-MT/SynchToM), read into :class:`corpus.benchmark.dataset.Benchmark`.

**Format** (the release at commit ca35c11, ``ca35c1194f3763596832c5e0b545d3996a13518b``; the items
came in 0aafc77). The repository's root holds one *benchmark file* per domain,
``<name>-benchmark.json`` (``pref``: 120 items, ``culture``: 70, ``swe``: 101, ``education``: 100;
391 in all), each a JSON array (written with an indent of 2, not JSON lines) of items with, in this
order:

- ``id``: the item's id, unique across the four files (``culture_0010``, ``edu_00101``);
- ``domain``: the item's domain as the file names it (``Culture``, ``Preference``,
  ``Software Engineering``; the education items are ``Science / Assessment``,
  ``Science / Teaching strategies`` or ``Science / Student understanding``);
- ``true_latent_state``, ``user_latent_belief``, ``misconception_type``,
  ``root_cause_of_misconception``, ``observation``, ``explicit_instruction``, ``user_profile``: text;
- ``trajectory``: the path of the item's trajectory file, relative to the repository's root
  (``trajectories/culture-benchmark/culture_0010.json``);
- ``rubrics``: one list per dimension (``latent_belief_explanation``, ``user_profile_modeling``,
  ``correct_resolution``) of ``{"criterion": text}``: 2-4, 2-4 and 3-7 criteria.

A *trajectory file* is a JSON object whose ``trajectory`` is a list of turns (10 in every released
file): ``turn`` (an integer, 1-10), ``action`` (text) and ``observation`` (text; absent from the
last turn of 6 files), and in 5 files flags of the simulation the model is never shown:
``red_herring`` (a boolean), ``interpretation``, ``observation_hidden_context`` (text). The
repository has 392 trajectory files: ``trajectories/culture-benchmark/culture_0099.json`` is no
item's.

**How the authors' scripts read them.** ``inference.py`` (ca35c11) reads a benchmark file, loads each
item's trajectory file (relative to its working folder; an item whose file is missing is skipped),
keeps only ``turn``, ``action`` and ``observation`` (``""`` where absent) of each turn, and sends the
item's ``observation``, ``explicit_instruction`` and the first ``--steps`` turns
(:mod:`analysis.compare.instances`); it copies ``id``, ``domain``, ``observation``,
``explicit_instruction``, ``trajectory``, the four ground-truth texts and ``rubrics`` into its output,
which ``evaluate.py`` scores on the rubrics (:mod:`corpus.importers.tom.synchtom`).

**Items.** One per released item, id ``id``; each item is its own group (its own scenario and
trajectory; items are the clusters of any interval). ``question`` is the explicit instruction; there
are no options and no gold answer: the outputs are judged on the rubric. The slices are
``benchmark`` (the benchmark file as the paper's Table 3 names it: Preference, Culture, SWE,
Education; another file's name without ``-benchmark.json``) and ``domain``; ``misconception_type`` is
kept beside them. The item's context (``contexts.json``) holds the benchmark file's name
(``file``), the item exactly as released (``item``) and its trajectory file exactly as released
(``trajectory``), so every field is kept as the release writes it.

**Checks.** Every field above present with its type (text, an integer turn, a boolean flag where
given), ``id`` unique, ``rubrics`` with exactly the three dimensions, each a non-empty list of
criteria with text, the trajectory file inside the source folder, present and of the shape above:
each problem an error naming the file, the record (``item '<id>'``, or ``record <n>`` when it has no
id; ``turn <n>`` in a trajectory file, its 1-based position) and the field. The import is all or
nothing. A field the release does not write is kept and warned about; so is a trajectory file that no
item points to, and turns numbered other than 1, 2, 3, ... (``inference.py`` keeps the first turns in
file order, whatever their numbers). A record's checks are its model's
(:class:`corpus.importers.tom.records.ReleasedItem`, :class:`~corpus.importers.tom.records.Turn`).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd

from corpus.benchmark.dataset import Benchmark
from corpus.benchmark.records import checked, given_id
from corpus.importers.tom.records import DIMENSIONS, ItemsFile, ReleasedItem, TrajectoryFile, Turn
from corpus.loading.reading import load_json
from corpus.loading.report import WARNING, DatasetError, Report, shown
from corpus.server.archive import extract_to

KIND = "synchtom"
RELEASE_COMMIT = "ca35c1194f3763596832c5e0b545d3996a13518b"
BENCHMARK_SUFFIX = "-benchmark.json"
# The benchmark files as the paper's Table 3 names them, in its column order.
BENCHMARKS = {
    "pref-benchmark": "Preference",
    "culture-benchmark": "Culture",
    "swe-benchmark": "SWE",
    "education-benchmark": "Education",
}
SLICES = ("benchmark", "domain")
# items.csv: the benchmark's own columns, the slices, and the misconception type beside them.
ITEM_COLUMNS = [
    "item_id",
    "group",
    "question_id",
    "question",
    "options",
    "option_kinds",
    "gold",
    *SLICES,
    "misconception_type",
]
_SKIPPED_DIRS = ("__MACOSX",)


def benchmark_label(stem: str) -> str:
    """A benchmark file's name in tables: the paper's (Preference, Culture, SWE, Education), else
    the file's name without ``-benchmark.json``."""
    return BENCHMARKS.get(stem, stem.removesuffix("-benchmark"))


def _visible(path: Path, root: Path) -> bool:
    return not any(p.startswith(".") or p in _SKIPPED_DIRS for p in path.relative_to(root).parts)


def benchmark_files(root: Path) -> list[Path]:
    """The benchmark files under ``root`` (``*-benchmark.json`` at any depth), in name order."""
    return sorted(p for p in root.rglob(f"*{BENCHMARK_SUFFIX}") if p.is_file() and _visible(p, root))


def is_synchtom(source: str | Path) -> bool:
    """Whether ``source`` is a SynchToM benchmark file or a folder holding one (at any depth)."""
    source = Path(source)
    if source.is_file():
        return source.name.endswith(BENCHMARK_SUFFIX)
    return source.is_dir() and bool(benchmark_files(source))


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name


def _trajectory(path: Path, rel: str, report: Report) -> dict[str, Any] | None:
    """A trajectory file as released, or None with its problems reported (:class:`.records.TrajectoryFile`,
    each turn a :class:`.records.Turn`, named ``turn <n>`` by its place)."""
    loaded = load_json(path, report, rel)
    if loaded is None:
        return None
    found = checked(TrajectoryFile, loaded[0], report, rel, "-", whole="(file)")
    if found is None:
        return None
    turns = [checked(Turn, t, report, rel, f"turn {k}", whole="(turn)") for k, t in enumerate(found.trajectory, 1)]
    numbers = [t.turn for t in turns if t is not None]
    if len(numbers) < len(turns):
        return None
    if numbers != list(range(1, len(turns) + 1)):
        report.add(
            rel,
            "-",
            "turn",
            f"turns are numbered {', '.join(map(str, numbers[:12]))}"
            + (" ..." if len(numbers) > 12 else "")
            + "; inference.py keeps the first turns in file order, whatever their numbers",
            WARNING,
        )
    return loaded[0]


def _trajectory_path(value: str, folder: Path, root: Path) -> Path | None:
    """The trajectory file an item names (relative to its benchmark file's folder), or None when the
    path leaves the source folder."""
    pure = PurePosixPath(value.replace("\\", "/"))
    if pure.is_absolute() or not value.strip():
        return None
    path = (folder / pure).resolve()
    return path if path.is_relative_to(root.resolve()) else None


def _items(path: Path, root: Path, seen: dict[str, str], used: dict[Path, str], report: Report) -> Iterator[dict]:
    """The items of one benchmark file (rows and contexts), each only when it has no error
    (:class:`.records.ReleasedItem`, named ``item '<id>'``, or ``record <n>`` when it has no id)."""
    rel = _rel(path, root)
    loaded = load_json(path, report, rel)
    found = None if loaded is None else checked(ItemsFile, loaded[0], report, rel, "-", whole="(file)")
    if found is None:
        return
    if not found.root:
        report.add(rel, "-", "(file)", "holds no item", WARNING)
    stem = path.name.removesuffix(".json")
    for n, rec in enumerate(found.root, start=1):
        iid = given_id(rec, "id")
        record = f"record {n}" if iid is None else f"item {shown(iid)}"
        if iid is not None and iid in seen:
            report.add(rel, record, "id", f"the same id as {seen[iid]}")
            continue
        if iid is not None:
            seen[iid] = f"record {n} of {rel}"
        item = checked(ReleasedItem, rec, report, rel, record)
        for key in ReleasedItem.unknown(rec):
            report.add(
                rel, record, key, "not a field of SynchToM's released items: kept with the item, not used", WARNING
            )
        if item is None:
            continue
        traj_path = _trajectory_path(item.trajectory, path.parent, root)
        if traj_path is None:
            report.add(rel, record, "trajectory", f"not a path inside the source folder: {shown(item.trajectory)}")
            continue
        if not traj_path.is_file():
            report.add(
                rel,
                record,
                "trajectory",
                f"no such file: {shown(item.trajectory)} (relative to the folder of {path.name}; inference.py "
                "skips an item whose trajectory file is missing)",
            )
            continue
        if traj_path in used:
            report.add(rel, record, "trajectory", f"the same trajectory file as {used[traj_path]}", WARNING)
        used[traj_path] = record
        trajectory = _trajectory(traj_path, _rel(traj_path, root), report)
        if trajectory is None:
            continue
        yield {
            "row": {
                "item_id": item.id,
                "group": item.id,
                "question_id": item.id,
                "question": item.explicit_instruction,
                "options": [],
                "option_kinds": [],
                "gold": "",
                "benchmark": benchmark_label(stem),
                "domain": item.domain,
                "misconception_type": item.misconception_type,
            },
            "context": {"file": rel, "item": rec, "trajectory": trajectory},
        }


def _orphans(files: list[Path], root: Path, used: dict[Path, str], report: Report) -> None:
    """A warning for every trajectory file beside the benchmark files that no item points to."""
    folders = {f.parent / "trajectories" for f in files}
    for folder in sorted(folders):
        if not folder.is_dir():
            continue
        for p in sorted(folder.rglob("*.json")):
            if p.is_file() and _visible(p, root) and p.resolve() not in used:
                report.add(_rel(p, root), "-", "(file)", "no item points to this trajectory file: not read", WARNING)


def _read_folder(root: Path, files: list[Path], label: str) -> tuple[Benchmark, Report]:
    report = Report()
    rows: list[dict[str, Any]] = []
    contexts: dict[str, Any] = {}
    seen: dict[str, str] = {}
    used: dict[Path, str] = {}
    if not files:
        report.add(label, "-", "(source)", f"no SynchToM benchmark file (*{BENCHMARK_SUFFIX}) found")
    for path in files:
        for found in _items(path, root, seen, used, report):
            rows.append(found["row"])
            contexts[found["row"]["item_id"]] = found["context"]
    _orphans(files, root, used, report)
    counts = pd.Series([r["benchmark"] for r in rows], dtype=object).value_counts()
    per = ", ".join(f"{b} {counts[b]}" for b in benchmark_order(counts.index))
    bench = Benchmark(
        name=label,
        kind=KIND,
        items=pd.DataFrame(rows, columns=ITEM_COLUMNS),
        slices=SLICES,
        cluster="group",
        contexts=contexts,
        runs=(),
        description=f"SynchToM items read from '{label}': {len(rows)} items ({per})." if rows else "",
    )
    return bench, report


def benchmark_order(labels: Any) -> list[str]:
    """Benchmarks in the paper's column order (Preference, Culture, SWE, Education), then any other
    in name order."""
    paper = list(BENCHMARKS.values())
    return sorted(
        dict.fromkeys(str(b) for b in labels), key=lambda b: (paper.index(b) if b in paper else len(paper), b)
    )


def empty_benchmark(name: str) -> Benchmark:
    """A SynchToM benchmark with no item (what a source that cannot be read gives)."""
    return Benchmark(name, KIND, pd.DataFrame(columns=ITEM_COLUMNS), SLICES, "group", {}, ())


def read_synchtom_items(source: str | Path) -> tuple[Benchmark, Report]:
    """The items in ``source`` (the release's folder, a folder holding benchmark files at any depth,
    one benchmark file, or a .zip of the release) and the problems found."""
    source = Path(source)
    if source.is_file() and source.suffix.lower() == ".zip":
        tmp = Path(tempfile.mkdtemp(prefix="groundwork-synchtom-"))
        try:
            root = extract_to(source, tmp / "release")
            return _read_folder(root, benchmark_files(root), source.name)
        except DatasetError as exc:  # corpus.server.archive.ArchiveError: the archive refused
            return empty_benchmark(source.name), exc.report
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if source.is_file():
        return _read_folder(source.parent, [source], source.name)
    if not source.is_dir():
        report = Report()
        report.add(source.name, "-", "(source)", f"not found: {source}")
        return empty_benchmark(source.name), report
    return _read_folder(source, benchmark_files(source), source.name)


def load_synchtom_items(source: str | Path) -> Benchmark:
    """The items in ``source``, or :class:`DatasetError` with every problem when any has an error."""
    bench, report = read_synchtom_items(source)
    if not report.ok:
        raise DatasetError(report, str(source))
    return bench


def release_item(bench: Benchmark, item_id: str) -> dict[str, Any]:
    """An item exactly as its benchmark file holds it."""
    return bench.contexts[item_id]["item"]


def release_trajectory(bench: Benchmark, item_id: str) -> dict[str, Any]:
    """An item's trajectory file exactly as released."""
    return bench.contexts[item_id]["trajectory"]


def rubric_sizes(bench: Benchmark) -> dict[str, dict[str, int]]:
    """Item id -> dimension -> the number of the rubric's criteria."""
    return {iid: {d: len(c["item"]["rubrics"][d]) for d in DIMENSIONS} for iid, c in bench.contexts.items()}


__all__ = [
    "BENCHMARKS",
    "DIMENSIONS",
    "KIND",
    "RELEASE_COMMIT",
    "benchmark_label",
    "benchmark_order",
    "empty_benchmark",
    "is_synchtom",
    "load_synchtom_items",
    "read_synchtom_items",
    "release_item",
    "release_trajectory",
    "rubric_sizes",
]
