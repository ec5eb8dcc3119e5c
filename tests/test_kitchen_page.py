"""The Kitchen screen on a kitchen dataset (AppTest): the runs, the metrics per pairing as the
command line computes them, the outcome composition per level with the units behind a bar; and
the Map Task screens saying what they read instead of failing on kitchen runs."""

from __future__ import annotations

import json

import pytest
from test_analysis_pages import open_page
from test_overcooked_import import failed_run, fork_run, write

from analysis.kitchen.metrics import kitchen_metrics, metric_table
from corpus.importers import run_import
from corpus.kitchen.dataset import load_kitchen


@pytest.fixture
def kitchen(tmp_path):
    src = tmp_path / "runs"
    write(src / "gpt-4o__claude-sonnet-4" / "boiled_egg" / "run1.json", fork_run())
    write(src / "gpt-4o__claude-sonnet-4" / "boiled_egg" / "run2.json", fork_run())
    write(src / "llama" / "boiled_egg" / "experiment_boiled_egg.json", failed_run())
    return run_import("overcooked", src, tmp_path / "datasets" / "kitchen")


def test_the_kitchen_screen_shows_the_runs_metrics_and_composition(tmp_path, monkeypatch, kitchen):
    at = open_page(tmp_path, monkeypatch, "pages/kitchen.py", dataset=kitchen)
    assert not at.error and not at.exception
    metrics = {m.label: m.value for m in at.metric}
    runs = load_kitchen(kitchen).runs
    assert metrics["Runs"] == "3" and metrics["Pairings"] == "2" and metrics["Success"] == "2 of 3"
    table = next(d.value for d in at.dataframe if "pairing" in d.value.columns)
    expected = metric_table(kitchen_metrics(runs), by=("pairing",))
    for r in expected.rows:
        if r["metric"] == "success":
            shown = table.loc[table["pairing"] == r["pairing"], "Success"].iloc[0]
            assert shown.startswith(f"{r['estimate']:.2f}") and shown.endswith(f"(n = {r['n']}) !")
            # one run, or two: fewer than 10 runs under the share, said in the row's warnings
            said = table.loc[table["pairing"] == r["pairing"], "warnings"].iloc[0]
            assert f"Success: rests on {r['n']} runs (fewer than 10)" in said
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in chart["data"]] == ["Effective", "Assisted", "Redundant", "Ineffective"]
    # Switching the window recomputes with the fixed 20 steps.
    at.segmented_control(key="kitchen_window").set_value("fixed").run()
    assert not at.exception
    shown = [c.value for c in at.caption]
    assert any("Fixed window of 20 steps." in c for c in shown), shown
    assert not any("Window: fixed window" in c or "window: level-normalized window" in c.lower() for c in shown), shown


def test_the_window_is_said_once_in_the_metrics_caption(tmp_path, monkeypatch, kitchen):
    """The level-normalized window's rule is named once, its sizes per level after it."""
    at = open_page(tmp_path, monkeypatch, "pages/kitchen.py", dataset=kitchen)
    caption = next(c.value for c in at.caption if "Each cell:" in c.value)
    assert caption.count("Level-normalized window:") == 1 and "Window: " not in caption, caption


def test_home_greets_the_kitchen_sample(tmp_path, monkeypatch):
    """Home on the bundled kitchen sample: its title, what the dataset holds (runs, pairings), that it
    is synthetic, and the way to the Kitchen screen; nothing about reading Map Task sessions."""
    from corpus.escape import md_text
    from corpus.settings import SAMPLES

    sample = SAMPLES / "kitchen-synthetic"
    at = open_page(tmp_path, monkeypatch, "pages/home.py", dataset=sample)
    assert not at.error and not at.exception
    assert [t.value for t in at.title] == ["Groundwork"]
    texts = [e.value for e in (*at.markdown, *at.info, *at.caption)]
    assert not any("reads Map Task sessions" in t for t in texts), texts
    held = next(m.value for m in at.markdown if m.value.startswith("**Dataset in use:**"))
    pairing = md_text("baseline sim-strong -> baseline sim-weak")  # each agent's scaffold with its model
    assert "48 runs of 4 directed pairings" in held and pairing in held, held
    assert any("is synthetic" in i.value for i in at.info)
    links = [link.proto.page for link in at.get("page_link")]
    assert links[:2] == ["kitchen", "kitchen"], links  # the Kitchen screen, then a run replayed there


def test_map_task_screens_say_what_they_read_on_a_kitchen_dataset(tmp_path, monkeypatch, kitchen):
    for page in ("pages/alignment.py", "pages/replay.py", "pages/data.py"):
        at = open_page(tmp_path, monkeypatch, page, dataset=kitchen)
        assert not at.exception and not at.error, page
        assert any("holds kitchen runs" in i.value for i in at.info), page


def test_the_kitchen_screen_on_the_sample_says_how_to_get_runs(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/kitchen.py")
    assert not at.exception
    assert any("This screen reads kitchen runs" in i.value for i in at.info)


def _player(at) -> tuple[str, dict]:
    """The tile player's widget key and the data it was given on the last run."""
    (element,) = [e for e in at.get("bidi_component") if e.proto.component_name == "groundwork_tile_player"]
    return element.proto.id.rsplit("-", 1)[-1], json.loads(element.proto.json)


def test_a_run_replays_step_by_step_with_its_agents_and_corrections(tmp_path, monkeypatch, kitchen):
    """The fork's run: the grid of each step with both agents where the log draws them, the step's
    conversation and completed actions beside it; the failed run's format corrections on its
    timeline; the link follows the run and step shown (the player reports the step it stops at)."""
    from corpus.importers.overcooked import grid_cells, parse_cell

    runs = {r.id: r for r in load_kitchen(kitchen).runs}
    fork = next(r for r in runs.values() if r.success)
    at = open_page(tmp_path, monkeypatch, "pages/kitchen.py", dataset=kitchen)
    at.selectbox(key="kitchen_run").set_value(fork.id).run()
    assert not at.exception
    for index, step in enumerate(fork.steps):
        key, _ = _player(at)
        at.session_state[key] = {"position": {"step": index}}
        at.run()
        _, data = _player(at)
        shown = data["steps"][index]
        assert shown["caption"] == f"Step {step.step}: score {step.score:.0f}"
        assert sorted(a["name"] for a in data["agents"]) == ["Assistant", "Chef"]
        drawn = {
            cell.agent: [r, c]
            for r, row in enumerate(grid_cells(step.grid))
            for c, cell in enumerate(map(parse_cell, row))
            if cell.agent is not None
        }
        assert {a: at_[:2] for a, at_ in enumerate(shown["agents"]) if at_} == drawn and len(drawn) == 2
        assert at.query_params["run"] in (fork.id, [fork.id]) and at.query_params["step"] in (str(index), [str(index)])
        done = [c.action for c in fork.completed if c.step == step.step]
        listed = [text for _, text, kind, _ in shown["messages"] if kind == "completed"]
        for action in done:
            assert action in listed, (step.step, action)
    failed = next(r for r in runs.values() if not r.success)
    at.selectbox(key="kitchen_run").set_value(failed.id).run()
    _, data = _player(at)
    marked = [s["step"] for s in data["steps"] if "format" in s["marks"]]
    assert sorted(marked) == sorted({c.step for c in failed.corrections if c.kind == "format"})
    assert data["start"] == {"step": 0}  # a new run starts at its first step


def test_text_from_a_run_stays_text_in_the_grid():
    """A counter's item and a model's name reach Plotly escaped; the line break between a tile's name
    and what lies on it is the figure's own."""
    from analysis.kitchen.replay import KitchenFrame
    from components.kitchen_replay import grid_figure
    from corpus.importers.overcooked.grid import COLLAB_TILES, Cell

    frame = KitchenFrame(3, 3, ((Cell("X", held="<b>"), Cell(" ", 0, "north", "")),), (), 0.0, 0.0, *([None] * 4))
    fig = grid_figure(frame, COLLAB_TILES, ("<i>Chef</i>", "Assistant"))
    texts = [t for t in fig.data if t.mode == "text"][0].text
    assert texts == ("counter<br>holds &lt;b&gt;",)
    agent = [t for t in fig.data if t.mode == "markers+text"][0]
    assert agent.text == ("&lt;i&gt;Chef&lt;/i&gt;",) and agent.marker.symbol == "triangle-up"


def test_a_bar_lists_its_request_units_each_with_a_link_to_its_step(tmp_path):
    from urllib.parse import parse_qs, urlparse

    from corpus.loading.catalog import key_of
    from services.kitchen import units

    run = fork_run()
    run["content"][0]["content"]["content"][0][0]["say"] = (
        "Collab(request(Assistant, pickup(egg, ingredient_dispenser)))"
    )
    write(tmp_path / "asks" / "gpt-4o" / "boiled_egg" / "run.json", run)
    kc = load_kitchen(run_import("overcooked", tmp_path / "asks", tmp_path / "datasets" / "asks"))
    table = units(kc, "level")
    assert len(table) == sum(m.requests for m in kitchen_metrics(kc.runs)) == 1
    for row in table.itertuples():
        q = parse_qs(urlparse(row.replay).query)
        run = next(r for r in kc.runs if r.id == row.run)
        assert q["dataset"] == [key_of(kc.root)] and q["run"] == [row.run]
        assert run.steps[int(q["step"][0])].step == row.step


def test_the_bundled_synthetic_kitchen_sample_shows_every_pairing(tmp_path, monkeypatch):
    """samples/kitchen-synthetic is what ``corpus generate-kitchen`` writes; the Kitchen screen shows
    its 48 runs in four directed pairings with the metrics the command line computes, and says the
    runs are synthetic."""
    from pathlib import Path

    from corpus.cli import main as corpus_cli
    from corpus.kitchen.dataset import load_kitchen

    here = Path(__file__).resolve().parent.parent / "samples" / "kitchen-synthetic"
    assert corpus_cli(["generate-kitchen", str(tmp_path / "again")]) == 0
    mine = sorted(p.relative_to(here) for p in here.rglob("*") if p.is_file())
    assert mine == sorted(p.relative_to(tmp_path / "again") for p in (tmp_path / "again").rglob("*") if p.is_file())
    for rel in mine:
        assert (here / rel).read_bytes() == (tmp_path / "again" / rel).read_bytes(), rel
    sample = load_kitchen(here)
    assert sample.info.synthetic and len(sample.runs) == 48
    at = open_page(tmp_path, monkeypatch, "pages/kitchen.py", dataset=here)
    assert not at.error and not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Runs"] == "48" and metrics["Pairings"] == "4"
    assert any("synthetic" in i.value.lower() for i in at.info)
    table = next(d.value for d in at.dataframe if "pairing" in d.value.columns)
    expected = metric_table(kitchen_metrics(sample.runs), by=("pairing",))
    for r in expected.rows:
        if r["metric"] == "success":
            shown = table.loc[table["pairing"] == r["pairing"], "Success"].iloc[0]
            assert shown.startswith(f"{r['estimate']:.2f}")
