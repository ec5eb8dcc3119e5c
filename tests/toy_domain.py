"""A fourth domain, added as a lab adds one: toy episodes of walkers on a small grid.

A toy dataset is a folder with ``dataset.json`` (``"domain": "toy"``) and ``steps.csv``, one row per
step of an episode: ``episode, step, walker, row, col, said``. The whole domain is the reader, the
dataset class and the replay hook below, and the :class:`corpus.domain.Domain` that names them; a
package installs it with one entry point (``toy = "toy_domain:DOMAIN"`` in the group
``groundwork.domains``). tests/test_domain_registry.py and tests/test_browser_toy_domain.py use it;
docs/architecture.md ("Domains") walks through it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from analysis.tile_replay import Agent, AgentAt, Grid, Message, MessageKind, Step, TileKind, TilePayload, Timeline
from corpus.domain import UNIT_ID, Domain, provenance, validator_from
from corpus.loading.catalog import key_of
from corpus.loading.dataset import content_hash
from corpus.loading.report import DatasetError, Report
from corpus.schema import NOT_RECORDED

COLUMNS = ("episode", "step", "walker", "row", "col", "said")
SIZE = 4  # the grid is SIZE x SIZE floor tiles


@dataclass(frozen=True)
class ToyDataset:
    root: Path
    name: str
    synthetic: bool
    description: str
    content_hash: str
    steps: pd.DataFrame
    domain: ClassVar[str] = "toy"
    unit_noun: ClassVar[str] = "episode"

    @property
    def dataset_id(self) -> str:
        return key_of(self.root)

    @property
    def provenance(self) -> dict[str, str]:
        return provenance(self.description)

    @property
    def units(self) -> pd.DataFrame:
        episodes = self.steps["episode"].drop_duplicates().tolist()
        return pd.DataFrame({UNIT_ID: episodes, "condition": NOT_RECORDED, "split": NOT_RECORDED})


def read(folder: Path, **_: Any) -> ToyDataset:
    """The reader: dataset.json and steps.csv, a problem named by file, record and field."""
    info = json.loads((folder / "dataset.json").read_text(encoding="utf-8"))
    steps = pd.read_csv(folder / "steps.csv", dtype={"episode": str, "walker": str, "said": str}, keep_default_na=False)
    report = Report()
    for col in COLUMNS:
        if col not in steps.columns:
            report.add("steps.csv", "header", col, "missing column")
    if not report.ok:
        raise DatasetError(report, str(folder))
    return ToyDataset(
        folder, info["name"], bool(info.get("synthetic")), info.get("description", ""), content_hash(folder), steps
    )


def replay(data: ToyDataset, episode: str) -> dict:
    """The replay hook: one episode as a tile payload, one walker, what it said at each step."""
    rows = data.steps[data.steps["episode"] == episode].sort_values("step")
    walker = str(rows["walker"].iloc[0])
    steps = tuple(
        Step(
            int(r.step),
            agents=(AgentAt(int(r.row), int(r.col), "east"),),
            messages=(Message(walker, r.said, "said"),) if r.said else (),
            panel=(("Place", f"row {int(r.row)}, column {int(r.col)}"),),
            caption=f"Step {int(r.step)}",
        )
        for r in rows.itertuples()
    )
    grid = Grid(SIZE, SIZE, ("." * SIZE,) * SIZE, (TileKind(".", "floor", "white"),))
    payload = TilePayload(
        unit=episode,
        title=f"Episode {episode}",
        grid=grid,
        agents=(Agent(walker, 0),),
        steps=steps,
        timeline=Timeline.count_messages(steps),
        message_kinds=(MessageKind("said", "Said"),),
    )
    return payload.to_json()


DOMAIN = Domain(
    name="toy",
    title="toy episodes",
    unit="episode",
    read=read,
    validate=validator_from(read),
    replay=replay,
    pages=("home", "replay"),
    main_page="replay",
    main_title="Replay",
    main_does="replays its episodes",
    icon=":material/grid_on:",
    introduction="On **toy episodes**: walkers crossing a small grid, saying where they are.",
)


def write_toy_dataset(folder: Path, name: str = "Toy walks") -> Path:
    """A toy dataset of two episodes (a fixture for the tests)."""
    folder.mkdir(parents=True, exist_ok=True)
    meta = {"name": name, "synthetic": True, "domain": "toy", "description": "Two walks."}
    (folder / "dataset.json").write_text(json.dumps(meta), encoding="utf-8")
    (folder / "steps.csv").write_text(
        "episode,step,walker,row,col,said\n"
        "e1,0,Ann,0,0,starting\n"
        "e1,1,Ann,0,1,\n"
        "e1,2,Ann,1,1,half way\n"
        "e1,3,Ann,2,2,arrived at the well\n"
        "e2,0,Bo,3,3,here\n"
        "e2,1,Bo,3,2,there\n",
        encoding="utf-8",
    )
    return folder


def install(site: Path) -> Path:
    """``site`` made a folder that installs the domain, as pip would: this module and its
    distribution's metadata, whose entry point names :data:`DOMAIN`; put it on the path
    (``PYTHONPATH``) of the process that serves the app."""
    site.mkdir(parents=True, exist_ok=True)
    (site / "toy_domain.py").write_text(Path(__file__).read_text(encoding="utf-8"), encoding="utf-8")
    meta = site / "toy_domain-0.1.dist-info"
    meta.mkdir(exist_ok=True)
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-domain\nVersion: 0.1\n", encoding="utf-8")
    (meta / "entry_points.txt").write_text("[groundwork.domains]\ntoy = toy_domain:DOMAIN\n", encoding="utf-8")
    return site
