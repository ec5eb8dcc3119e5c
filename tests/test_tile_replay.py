"""The tile-grid replay, the kitchen's payload and the tile player on the page.

- :mod:`analysis.tile_replay`: the payload its docstring builds, every problem named by unit, step
  and field, the grid after each step, and the positions the browser may report;
- :func:`analysis.kitchen.replay.payload`: each step of the bundled sample's runs as the kitchen
  grid draws it and as :func:`analysis.kitchen.replay.frame` and ``timeline`` compute it (agents,
  tiles, what was said, requested, completed and corrected, marks and counts), and the real
  Collab-Overcooked runs, with the size of their payloads;
- :mod:`components.tile_player`: the GIF of a unit (one frame per step, drawn from the payload),
  the self-contained HTML player, and the Kitchen screen (AppTest): a link's run and step, a
  report from the player kept in session state and the URL, another run at its first step.
"""

from __future__ import annotations

import io
import json
import re
import textwrap
from html.parser import HTMLParser

import pytest
from streamlit.testing.v1 import AppTest
from test_kitchen_page import kitchen  # noqa: F401  (the fixture: three runs imported)

import analysis.tile_replay as tr
from analysis.kitchen.metrics import kitchen_metrics
from analysis.kitchen.replay import MARK_KINDS, frame, payload, timeline
from analysis.tile_replay import (
    Agent,
    AgentAt,
    Grid,
    MarkKind,
    Message,
    MessageKind,
    Step,
    TileChange,
    TileKind,
    TilePayload,
    TileReplayError,
    Timeline,
    clean_step,
    tile_states,
)
from corpus.importers.overcooked import grid_cells, parse_cell
from corpus.kitchen.dataset import load_kitchen
from corpus.loading.catalog import key_of
from corpus.settings import SAMPLES
from tests.real_data import REAL

APP = str(__import__("pathlib").Path(__file__).resolve().parent.parent / "app.py")
SAMPLE = SAMPLES / "kitchen-synthetic"


def _docstring_example() -> dict:
    code = tr.__doc__.split("::", 1)[1].split("What a payload holds")[0]
    scope: dict = {}
    exec(textwrap.dedent(code), scope)
    return scope["data"]


def test_the_modules_own_example_builds_the_json_the_player_reads():
    data = _docstring_example()
    assert data["format"] == "tile_grid" and data["unit"] == "episode-1"
    assert data["grid"] == {
        "width": 3,
        "height": 2,
        "tiles": ["#.#", "..."],
        "legend": [
            {"letter": "#", "name": "wall", "fill": "grey", "label": ""},
            {"letter": ".", "name": "floor", "fill": "white", "label": ""},
        ],
    }
    first, second = data["steps"]
    assert first["agents"] == [[1, 0, "east", ""]] and first["messages"] == [["Ann", "hello", "said", ""]]
    assert second["agents"] == [[1, 1, "east", "key"]] and second["marks"] == ["goal"]
    assert second["panel"] == [["Score", "1"]]
    assert data["timeline"] == {"series": [{"name": "messages", "values": [1, 0]}]}
    assert data["next"] == {"goal": [1, -1]}
    assert json.loads(json.dumps(data)) == data  # plain JSON


def _unit(**changes) -> TilePayload:
    """A valid unit of two steps on a 3 x 2 grid, with ``changes`` to its fields."""
    grid = Grid(3, 2, ("#.#", "..."), (TileKind("#", "wall", "grey"), TileKind(".", "floor", "white")))
    steps = (
        Step(7, (AgentAt(1, 0, "east"),), messages=(Message("Ann", "hi", "said"),), marks=("goal",)),
        Step(8, (None,), changes=(TileChange(0, 1, "#", "wet"),)),
    )
    fields = {
        "unit": "u1",
        "title": "U1",
        "grid": grid,
        "agents": (Agent("Ann", 0),),
        "steps": steps,
        "timeline": Timeline.count_messages(steps),
        "message_kinds": (MessageKind("said", "Said"),),
        "mark_kinds": (MarkKind("goal", "goal", "green"),),
    }
    return TilePayload(**{**fields, **changes})


GRID = Grid(3, 2, ("#.#", "..."), (TileKind("#", "wall", "grey"), TileKind(".", "floor", "white")))


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"grid": Grid(3, 3, GRID.tiles, GRID.legend)}, "grid.tiles: 2 rows for a height of 3"),
        ({"grid": Grid(3, 2, ("#.#", ".."), GRID.legend)}, "grid.tiles[1]: 2 letters for a width of 3"),
        ({"grid": Grid(3, 2, ("#?#", "..."), GRID.legend)}, "grid.tiles[0]: letter '?' is not in the legend"),
        ({"grid": Grid(3, 2, GRID.tiles, (*GRID.legend, TileKind("o", "pot", "teal")))}, "fill: 'teal' is not one"),
        ({"grid": Grid(3, 2, GRID.tiles, (*GRID.legend, TileKind("oo", "pot", "red")))}, "'oo' is not one character"),
        ({"steps": (Step(7, (AgentAt(2, 0),)),)}, "step 7 (place 0) agent 'Ann': (2, 0) is outside the 2 x 3 grid"),
        ({"steps": (Step(7, (AgentAt(0, 1, "up"),)),)}, "step 7 (place 0) agent 'Ann' facing: 'up' is not one of"),
        ({"steps": (Step(7, ()),)}, "step 7 (place 0) agents: 0 places for 1 agents"),
        ({"steps": (Step(7, (None,), changes=(TileChange(0, 3, "#"),)),)}, "(0, 3) is outside the 2 x 3 grid"),
        ({"steps": (Step(7, (None,), changes=(TileChange(0, 0, "o"),)),)}, "letter 'o' is not in the legend"),
        ({"steps": (Step(7, (None,), messages=(Message("A", "x", "shout"),)),)}, "kind 'shout' is not one of"),
        ({"steps": (Step(7, (None,), marks=("win",)),)}, "marks: 'win' is not one of the payload's mark kinds"),
        ({"agents": (Agent("Ann", -1),)}, "agents[0].colour: -1 is not a whole number from 0"),
        ({"timeline": Timeline((tr.Series("messages", (1,)),))}, "timeline.messages: 1 values for 2 steps"),
        ({"mark_kinds": (MarkKind("goal", "goal", "green", "star"),)}, "symbol: 'star' is not one of"),
        ({"step_noun": " "}, "step_noun: is empty"),
    ],
)
def test_a_payload_with_a_problem_names_the_unit_step_and_field(changes, message):
    with pytest.raises(TileReplayError) as err:
        _unit(**changes)
    assert str(err.value).startswith("tile replay of 'u1': ") and message in str(err.value), str(err.value)


def test_the_grid_after_each_step_and_the_next_marked_step():
    data = _unit().to_json()
    states = [[list(row) for row in rows] for rows in tile_states(data)]
    assert states[0] == [[("#", ""), (".", ""), ("#", "")], [(".", ""), (".", ""), (".", "")]]
    assert states[1][0][1] == ("#", "wet") and states[1][1] == states[0][1]
    assert data["next"] == {"goal": [-1, -1]}
    assert tr.next_marked(_unit().steps[::-1], "goal") == [1, -1]


@pytest.mark.parametrize(
    "raw,n,want",
    [
        ({"step": 3}, 10, 3),
        ({"step": "4"}, 10, 4),
        ("5", 10, 5),
        ({"step": 99}, 10, 9),
        ({"step": -2}, 10, 0),
        ({"step": 2}, 0, 0),
        ({"step": "<b>"}, 10, None),
        ({"step": None}, 10, None),
        ({"step": True}, 10, None),
        ({"step": 1e400}, 10, None),
        ({}, 10, None),
        (None, 10, None),
        ([3], 10, None),
    ],
)
def test_a_reported_or_linked_step_is_checked_and_clamped(raw, n, want):
    assert clean_step(raw, n) == want


# -- the kitchen's payload ---------------------------------------------------------------------------


def _audits(runs) -> dict:
    return {m.run_id: m.audit for m in kitchen_metrics(runs)}


def test_the_kitchen_payload_is_each_step_as_the_run_recorded_it():
    """Every step of every sample run: both agents where the grid draws them, the way they face and
    what they hold; every tile as drawn (its letter, what lies on it, a utensil's state); what
    frame() lists at the step (turns, request units with outcome and reason, completed actions,
    corrections) as messages; the marks and counts of timeline()."""
    runs = load_kitchen(SAMPLE).runs
    audits = _audits(runs)
    for run in runs[:12]:
        data = payload(run, audits[run.id]).to_json()
        tl = timeline(run, audits[run.id])
        assert [s["step"] for s in data["steps"]] == [s.step for s in run.steps]
        assert [a["name"] for a in data["agents"]] == ["Chef", "Assistant"]
        assert {x["name"]: x["values"] for x in data["timeline"]["series"]} == {
            name: tl[name].tolist() for name in ("messages", "requests", "completed", "validator", "format")
        }
        for i, (step, cells) in enumerate(zip(run.steps, tile_states(data))):
            shown = data["steps"][i]
            drawn = [[parse_cell(c) for c in row] for row in grid_cells(step.grid)]
            for r, row in enumerate(drawn):
                for c, cell in enumerate(row):
                    if cell.agent is not None:
                        assert shown["agents"][cell.agent] == [r, c, cell.facing, cell.held]
                        assert cells[r][c] == (" ", "")
                    else:
                        note = " ".join(filter(None, (f"holds {cell.held}" if cell.held else "", cell.state)))
                        assert cells[r][c] == (cell.tile, note), (run.id, step.step, r, c)
            f = frame(run, i, audits[run.id])
            said = [m for m in shown["messages"] if m[2] == "said"]
            assert [m[0] for m in said] == f.turns["agent"].tolist()
            assert [m[1] for m in said] == [t or "(said nothing)" for t in f.turns["said"]]
            units = [m for m in shown["messages"] if m[2] == "request"]
            assert [m[1] for m in units] == f.units["action"].tolist()
            assert [m[3] for m in units] == [f"{o}: {why}" for o, why in zip(f.units["outcome"], f.units["reason"])]
            assert [m[1] for m in shown["messages"] if m[2] == "completed"] == f.completed["action"].tolist()
            fixes = [m for m in shown["messages"] if m[2] == "correction"]
            assert [m[3] for m in fixes] == [f"{k} correction" for k in f.corrections["kind"]]
            row = tl.iloc[i]
            want = {k.name for k in MARK_KINDS if row["requests" if k.name == "request" else k.name] > 0}
            assert set(shown["marks"]) == want
            assert shown["caption"] == f"Step {step.step}: score {step.score:.0f}"
            assert shown["panel"][0] == ["Score", f"{step.score:.0f}"]
            assert shown["panel"][2:4] == [["Chef is doing", step.actions[0]], ["Assistant is doing", step.actions[1]]]


REAL_KITCHEN = sorted((REAL / "collab_overcooked").glob("*.json")) + sorted(
    (REAL / "collab_overcooked_tgco_fork" / "src" / "data").rglob("*.json")
)


@pytest.mark.skipif(not REAL_KITCHEN, reason=f"the real Collab-Overcooked runs are not available at {REAL}")
def test_the_real_runs_replay_and_their_payloads_are_small(tmp_path):
    """The real runs (the benchmark's own log and the TGCO paper's three): each replays from its
    first step to its last score, in a payload of a few tens of KB."""
    from corpus.importers import run_import

    sizes = {}
    for i, source in enumerate(REAL_KITCHEN):
        folder = tmp_path / f"src{i}" / "m" / "json" / "recipe"
        folder.mkdir(parents=True)
        (folder / source.name).write_bytes(source.read_bytes())
        (run,) = load_kitchen(run_import("overcooked", tmp_path / f"src{i}", tmp_path / f"ds{i}")).runs
        data = payload(run, _audits([run])[run.id]).to_json()
        assert len(data["steps"]) == run.n_steps and [a["name"] for a in data["agents"]] == ["Chef", "Assistant"]
        assert data["steps"][-1]["caption"] == f"Step {run.steps[-1].step}: score {run.steps[-1].score:.0f}"
        sizes[source.name] = len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    print("payload bytes per real run:", sizes)
    assert max(sizes.values()) < 100_000, sizes


# -- the player's exports ----------------------------------------------------------------------------


def test_the_gif_has_a_frame_per_step_drawn_from_the_payload():
    from PIL import Image

    from components.tile_player import FILL_COLOURS, gif_bytes

    data = _unit().to_json()
    with Image.open(io.BytesIO(gif_bytes(data))) as gif:
        assert gif.format == "GIF" and gif.n_frames == 2
        frames = []
        for k in range(2):
            gif.seek(k)
            frames.append(gif.convert("RGB"))
    # The tile at row 0, column 1 is floor (white) at step 7 and a wall (grey) at step 8.
    x, y = 8 + 64 + 4, 8 + 24 + 4  # pad, one cell, a little inside; pad and the caption's height
    grey = tuple(int(FILL_COLOURS["grey"][0][i : i + 2], 16) for i in (1, 3, 5))
    assert frames[0].getpixel((x, y)) == (255, 255, 255) and frames[1].getpixel((x, y)) == grey


HOSTILE = '</script><img src=x onerror="window.__pwned=2">'


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.data: dict[str, str] = {}
        self._in = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in = dict(attrs).get("id")

    def handle_data(self, data):
        if self._in:
            self.data[self._in] = self.data.get(self._in, "") + data


def test_the_html_player_is_self_contained_and_its_data_stays_data():
    from components.replay.assets import tile_player_css, tile_player_html, tile_player_js
    from components.replay.export import standalone_html
    from components.tile_player import player_data

    unit = _unit(
        title=HOSTILE, steps=(Step(7, (None,), messages=(Message("Ann", HOSTILE, "said"),)),), timeline=Timeline()
    )
    data = player_data(unit.to_json(), 0, HOSTILE, "Synthetic data")
    page = standalone_html(data, HOSTILE, (tile_player_html(), tile_player_css(), tile_player_js()))
    parsed = _Tags()
    parsed.feed(page)
    assert [a.get("type") for tag, a in parsed.tags if tag == "script"] == ["application/json", "module"]
    assert not any(tag in ("iframe", "img") for tag, _ in parsed.tags)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert json.loads(parsed.data["replay-data"]) == json.loads(json.dumps(data))
    assert "tp-root" in page and "mountTilePlayer" not in page  # the module is a data: URL
    assert "<title>&lt;/script&gt;" in page


# -- the Kitchen screen -----------------------------------------------------------------------------


def _open_kitchen(tmp_path, monkeypatch, dataset, **params) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(dataset.parent))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = key_of(dataset)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page("pages/kitchen.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _player(at: AppTest) -> tuple[str, dict]:
    (element,) = [e for e in at.get("bidi_component") if e.proto.component_name == "groundwork_tile_player"]
    return element.proto.id.rsplit("-", 1)[-1], json.loads(element.proto.json)


def test_a_link_opens_its_run_at_its_step_and_reports_follow_in_the_url(tmp_path, monkeypatch, kitchen):  # noqa: F811
    """?run=...&step=2 opens that run at its third step; the step the player reports goes to
    session state and the URL, one it cannot have sent is ignored, one past the end is clamped;
    another run starts at its first step; the run's payload is the service's, once per window."""
    from services import kitchen as svc

    runs = load_kitchen(kitchen).runs
    run, other = runs[0], runs[1]
    assert run.n_steps == 3
    at = _open_kitchen(tmp_path, monkeypatch, kitchen, run=run.id, step="2")
    key, data = _player(at)
    assert data["unit"] == run.id and data["start"] == {"step": 2}
    assert data["steps"] == svc.replay_payload(load_kitchen(kitchen), "level", run.id)["steps"]
    assert set(data["palette"]) == {"tiles", "marks", "agents"} and data["title"] == "" and data["note"] == ""
    assert at.query_params["run"] == run.id and at.query_params["step"] == "2"
    at.session_state[key] = {"position": {"step": 1}}
    at.run()
    assert at.query_params["step"] == "1" and at.session_state["kitchen_replay_position"] == {"unit": run.id, "step": 1}
    at.session_state[key] = {"position": {"step": "<b>"}}
    at.run()
    assert at.query_params["step"] == "1"
    at.session_state[key] = {"position": {"step": 10_000}}
    at.run()
    assert at.query_params["step"] == str(run.n_steps - 1)
    at.selectbox(key="kitchen_run").set_value(other.id).run()
    _, data = _player(at)
    assert data["unit"] == other.id and data["start"] == {"step": 0} and at.query_params["step"] == "0"
    assert [b.label for b in at.get("download_button")][-2:] == ["Run (GIF)", "HTML player"]
