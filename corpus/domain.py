"""What every dataset offers, and the domains a server reads.

Groundwork reads datasets of several **domains**: Map Task sessions (:class:`corpus.loading.dataset.Corpus`),
kitchen runs (:class:`corpus.kitchen.dataset.KitchenCorpus`), theory-of-mind benchmarks
(:class:`corpus.benchmark.dataset.Benchmark`), and any domain a lab adds. Every dataset class satisfies
:class:`Dataset`: its identity (where it lives, a key for links, the content hash), name, whether it is
synthetic, what it says of where it came from, its domain, and its **units** (sessions, runs or trials)
as one table with the design columns.

A domain is one :class:`Domain` in the registry, under the name its datasets' ``dataset.json`` declares
(``"domain": "kitchen"``; none declared: ``"map_task"``). Its entry holds the data side: the reader
(a folder -> a dataset), the validator (a folder -> every problem), the replay hook (a unit -> the tile
payload of :mod:`analysis.tile_replay`, as JSON), the menu's screens that apply and Home's texts. The
parts that draw live in the layer that draws (:mod:`components.domains`: Home, the Replay page) and the
report in :mod:`reports.reproduction`, each keyed by the same name; a domain without its own gets the
generic ones, built from its entry. Code that needs to know which domain it holds asks ``data.domain``
and this registry, never ``isinstance`` (a test checks it).

A lab adds a domain with a package that makes a :class:`Domain` and names it as an entry point of the
group :data:`ENTRY_POINTS` (``[project.entry-points."groundwork.domains"] toy = "toy_domain:DOMAIN"``);
the registry loads every installed entry point when it is first asked (docs/architecture.md,
"Domains", works through one). A plugin that fails to load is logged and left out: the app stays up.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from corpus.loading.report import DatasetError, Report

if TYPE_CHECKING:
    import pandas as pd

    from corpus.loading.dataset_cache import DatasetCache

log = logging.getLogger(__name__)

ENTRY_POINTS = "groundwork.domains"  # the entry point group a domain's package names its Domain in
MAP_TASK = "map_task"  # a dataset.json that declares no domain holds Map Task sessions
UNIT_ID = "unit_id"  # the column of :attr:`Dataset.units` that names each unit
DESIGN_COLUMNS = ("condition", "split")  # the design columns every domain's units have


class Dataset(Protocol):
    """What every dataset offers, whatever its domain.

    ``units`` has one row per unit (a session, a run, a trial): :data:`UNIT_ID`, the design columns
    :data:`DESIGN_COLUMNS` (``corpus.schema.NOT_RECORDED`` where the domain records none) and the
    domain's own design columns after them (a map, a task level, a number of questions)."""

    @property
    def root(self) -> Path | None: ...  # the folder (or .zip) it was read from; None when made in memory
    @property
    def dataset_id(self) -> str: ...  # a short key for links that does not show the server's folders
    @property
    def name(self) -> str: ...
    @property
    def synthetic(self) -> bool: ...
    @property
    def provenance(self) -> Mapping[str, str]: ...  # what it says of where it came from
    @property
    def domain(self) -> str: ...  # the name of its entry in the registry
    @property
    def content_hash(self) -> str: ...  # of every file's path and bytes: its identity (tasks, caches)
    @property
    def units(self) -> pd.DataFrame: ...
    @property
    def unit_noun(self) -> str: ...  # one unit: "session", "run", "trial"


class ReadFromInfo:
    """The protocol's properties that a dataset's folder and its dataset.json (``info``: name,
    synthetic) give, for the dataset classes that hold both (Map Task sessions, kitchen runs)."""

    root: Path
    info: Any

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def synthetic(self) -> bool:
        return self.info.synthetic

    @property
    def dataset_id(self) -> str:
        from corpus.loading.catalog import key_of  # the catalog reads this module's names

        return key_of(self.root)


class Reader(Protocol):
    """A folder read as a dataset of one domain; raises :class:`corpus.loading.report.DatasetError` listing
    every problem. ``known_hash`` is the folder's content hash when the caller has it, ``cache`` the
    server's dataset cache (:mod:`corpus.loading.dataset_cache`); a reader may use both or neither."""

    def __call__(
        self, folder: Path, *, known_hash: str | None = None, cache: DatasetCache | None = None
    ) -> Dataset: ...


# A unit of a dataset -> the tile payload of its replay, as JSON (analysis.tile_replay: a payload's to_json()).
ReplayHook = Callable[[Any, str], Mapping[str, Any]]


@dataclass(frozen=True)
class Domain:
    """One domain: how its datasets are read and checked, how a unit replays, which screens apply
    and what Home says. Texts are Markdown written by the domain's code, not data."""

    name: str  # what dataset.json's "domain" says
    title: str  # its units, plural, as the tool names its domains: "kitchen runs"
    unit: str  # one unit: "run"
    read: Reader
    validate: Callable[[Path], Report]  # every problem of a folder, without raising
    pages: tuple[str, ...] = ("home",)  # the menu's screens that apply (their files); the others are hidden
    main_page: str = "home"  # the screen that shows one of its datasets first (its file), its title and icon
    main_title: str = "Home"
    icon: str = ":material/dataset:"
    holds: str = ""  # what one of its datasets holds, after "holds" ("": the title)
    main_does: str = ""  # what the main screen does with it, after "The **Kitchen** screen"
    sources: str = ""  # where its datasets come from, after the title: " (Collab-Overcooked run logs, ...)"
    how_to_get: str = "choose one in the sidebar"  # how to open one, for its screens while another is shown
    introduction: str = ""  # Home's paragraph about the tool on such a dataset
    synthetic_note: str = (
        "is synthetic: generated data, not a record of real events. Patterns in it are there by design."
    )
    replay: ReplayHook | None = None  # None: the domain has a player of its own, or none

    @property
    def what_it_holds(self) -> str:
        return self.holds or self.title


class UnknownDomain(DatasetError):
    """A dataset.json that declares a domain this server has no entry for."""

    def __init__(self, name: str, source: str = ""):
        report = Report()
        known = ", ".join(sorted(_registered()))
        report.add(
            "dataset.json",
            "-",
            "domain",
            f"this server reads no domain '{name[:60]}' (it reads {known}; docs/architecture.md says how a domain is added)",
        )
        super().__init__(report, source)


_REGISTRY: dict[str, Domain] = {}
_LOCK = threading.RLock()
_plugins_loaded = False
_plugin_problems: list[str] = []


def register(domain: Domain) -> Domain:
    """Add ``domain`` to the registry (a name registered already is refused: ValueError)."""
    with _LOCK:
        if domain.name in _REGISTRY:
            raise ValueError(f"a domain named '{domain.name}' is registered already")
        _REGISTRY[domain.name] = domain
    return domain


def _registered() -> dict[str, Domain]:
    _load_plugins()
    return _REGISTRY


def _load_plugins() -> None:
    """Register the Domain each installed entry point of :data:`ENTRY_POINTS` names, once."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    from importlib.metadata import entry_points

    with _LOCK:  # (held while the plugins load: no caller sees the registry without them)
        if _plugins_loaded:
            return
        _plugins_loaded = True
        for ep in sorted(entry_points(group=ENTRY_POINTS), key=lambda ep: ep.name):
            try:
                loaded = ep.load()
                if not isinstance(loaded, Domain):
                    raise TypeError(f"it names {type(loaded).__name__}, not a corpus.domain.Domain")
                if _REGISTRY.get(loaded.name) is not loaded:  # (its module may have registered it)
                    register(loaded)
            except Exception as exc:  # noqa: BLE001 - a lab's plugin that fails is left out, and said so
                problem = f"the domain plugin '{ep.name}' ({ep.value}) was not loaded: {type(exc).__name__}: {exc}"
                _plugin_problems.append(problem)
                log.warning(problem)


def get(name: str) -> Domain:
    """The domain registered as ``name`` (:class:`UnknownDomain` if none is)."""
    found = _registered().get(name)
    if found is None:
        raise UnknownDomain(name)
    return found


def known(name: str) -> bool:
    return name in _registered()


def domains() -> list[Domain]:
    """Every registered domain: the built-in ones first, then those of plugins, by name."""
    return list(_registered().values())


def of(data: Dataset) -> Domain:
    """The domain of a loaded dataset."""
    return get(data.domain)


def plugin_problems() -> list[str]:
    """Why each plugin that failed to load was left out."""
    _load_plugins()
    return list(_plugin_problems)


def read(name: str, folder: Path, *, known_hash: str | None = None, cache: DatasetCache | None = None) -> Dataset:
    """The dataset at ``folder`` read by the reader of the domain ``name``."""
    try:
        domain = get(name)
    except UnknownDomain as exc:
        raise UnknownDomain(name, str(folder)) from exc
    return domain.read(folder, known_hash=known_hash, cache=cache)


def read_path(path: str | Path) -> Dataset:
    """The dataset at ``path`` (a folder, or a .zip the Map Task reader opens), read by the reader of
    the domain its dataset.json names (:class:`UnknownDomain` when this server reads no such domain):
    what the command lines open."""
    from corpus.loading.dataset import load
    from corpus.loading.validate import domain_of

    path = Path(path)
    if path.suffix.lower() == ".zip" and path.is_file():
        return load(path)  # extracted, every session kept (the folder is gone after)
    return read(domain_of(path) if path.is_dir() else MAP_TASK, path)


def provenance(description: str, **facts: str) -> dict[str, str]:
    """What a dataset says of where it came from: its description and the ``facts`` a domain adds
    (a format read, a generator), those that are said (empty ones left out), keys with spaces for
    underscores."""
    said = {"description": description, **{k.replace("_", " "): v for k, v in facts.items()}}
    return {k: v for k, v in said.items() if v}


def generated_by(generator: Mapping[str, Any] | None) -> str:
    """A dataset.json's ``generator`` in one line ("corpus.generate, version 4, seed 7"), "" for none."""
    if not generator:
        return ""
    rest = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in generator.items() if k != "module")
    return ", ".join(part for part in (str(generator.get("module", "")), rest) if part)


# -- the built-in domains -----------------------------------------------------------------------------

SCREENS = (
    "home",
    "data",
    "replay",
    "alignment",
    "acts",
    "misalignment",
    "outcomes",
    "split",
    "agreement",
    "compare",
    "kitchen",
    "report",
    "code",
    "adjudicate",
    "tasks",
    "map-editor",
)


# (Each built-in reader returns its class as a Dataset: mypy checks that the class satisfies the protocol.)
def _read_map_task(folder: Path, *, known_hash: str | None = None, cache: DatasetCache | None = None) -> Dataset:
    from corpus.loading.dataset import load_dir

    return load_dir(folder, cache=cache, known_hash=known_hash)


def _read_kitchen(folder: Path, *, known_hash: str | None = None, cache: DatasetCache | None = None) -> Dataset:
    from corpus.kitchen.dataset import load_kitchen

    return load_kitchen(folder)


def _read_benchmark(folder: Path, *, known_hash: str | None = None, cache: DatasetCache | None = None) -> Dataset:
    from corpus.benchmark.dataset import load_benchmark

    return load_benchmark(folder)


def _validate_map_task(folder: Path) -> Report:
    from corpus.loading.validate import read_dataset

    return read_dataset(folder)[1]


def _validate_kitchen(folder: Path) -> Report:
    from corpus.kitchen.dataset import read_kitchen

    return read_kitchen(folder)[2]


def _validate_benchmark(folder: Path) -> Report:
    """What the benchmark's reader refused, and every problem of each run it left out."""
    from corpus.benchmark.dataset import load_benchmark

    try:
        bench = load_benchmark(folder)
    except DatasetError as exc:
        return exc.report
    report = Report()
    for run in bench.refused:
        report.issues.extend(run.report.issues)
    return report


def validator_from(read: Reader) -> Callable[[Path], Report]:
    """A validator that reads the folder and reports what the reader refused (for a domain whose
    reader is its only check)."""

    def validate(folder: Path) -> Report:
        try:
            read(folder)
        except DatasetError as exc:
            return exc.report
        return Report()

    return validate


register(
    Domain(
        name=MAP_TASK,
        title="Map Task sessions",
        unit="session",
        read=_read_map_task,
        validate=_validate_map_task,
        pages=SCREENS,  # (the Kitchen screen on such a dataset says how to read kitchen runs)
        main_page="data",
        main_title="Data",
        icon=":material/table_chart:",
        main_does="lists its sessions",
        how_to_get="upload a Groundwork dataset or a platform export in the sidebar, or choose one there",
        introduction=(
            "On **Map Task sessions**: a **Guide** who sees a route, a **Follower** who draws it on a grid, a chat "
            "between them, and every action annotated with what its actor believed. Replay the sessions, code "
            "grounding acts as a team with agreement computed as you go, and chart alignment against task progress "
            "by condition."
        ),
        synthetic_note="is a synthetic corpus: generated sessions, not recordings of people. Patterns in it are there by design.",
    )
)
register(
    Domain(
        name="kitchen",
        title="kitchen runs",
        unit="run",
        read=_read_kitchen,
        validate=_validate_kitchen,
        pages=("home", "kitchen", "report", "code", "adjudicate", "tasks"),
        main_page="kitchen",
        main_title="Kitchen",
        icon=":material/skillet:",
        holds="kitchen runs (two agents cooking)",
        main_does="shows these runs",
        sources=" (Collab-Overcooked run logs, Overcooked-AI trajectories)",
        how_to_get=(
            "upload a .zip of runs in the sidebar (Archive holds: kitchen runs), or import them with "
            "`python -m corpus import --from overcooked RUNS DEST` under a dataset root, and choose that dataset"
        ),
        introduction=(
            "On **kitchen runs**: two agents cooking together, a **Chef** and an **Assistant** who ask each other "
            "for what they need (runs of language models in Collab-Overcooked, or Overcooked-AI trajectories). Every "
            "request is audited against what the environment recorded (TGCO: Effective, Assisted, Redundant, "
            "Ineffective), each run's coordination is measured and averaged per directed pairing of models, and the "
            "request units can be coded as a team, with agreement computed as you go."
        ),
        synthetic_note=(
            "is synthetic: generated runs of simulated models, not a record of any model's run. Differences between "
            "pairings are there by design."
        ),
    )
)
register(
    Domain(
        name="benchmark",
        title="theory-of-mind benchmarks",
        unit="trial",
        read=_read_benchmark,
        validate=_validate_benchmark,
        pages=("home", "compare", "report"),
        main_page="compare",
        main_title="Compare",
        icon=":material/quiz:",
        holds="a benchmark (questions with gold answers and models' runs of answers)",
        main_does="scores its runs",
        sources=" (DynToM trials, SynchToM items)",
        how_to_get=(
            "upload a .zip of trials in the sidebar, or import them with `python -m corpus import --from dyntom "
            "TRIALS DEST` under a dataset root, and choose that dataset"
        ),
        introduction=(
            "On a **theory-of-mind benchmark**: trials of a story or an interaction with questions about what its "
            "characters believe, want and know, and language models' answers to them. Compare scores every run as "
            "the benchmark's authors do: accuracy overall and by every slice of the questions, with intervals, and "
            "the best runs as a paired test allows."
        ),
        synthetic_note=(
            "is synthetic: generated questions and answers in the benchmark's released format, not a model's real "
            "answers. Patterns in it are there by design."
        ),
    )
)
