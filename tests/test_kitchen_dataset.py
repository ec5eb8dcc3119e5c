"""A kitchen dataset on disk: written all or nothing, read back exactly, refused as Map Task data,
listed with its domain, and told apart from the other formats by its file names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.importers.detect import detect
from corpus.kitchen.dataset import file_name, is_kitchen, load_kitchen, write_kitchen_dataset
from corpus.kitchen.run import Completed, Correction, KitchenRun, KitchenStep, Turn
from corpus.loading import catalog
from corpus.loading.report import DatasetError
from corpus.loading.validate import read_dataset
from corpus.model import DatasetInfo


def _run(run_id: str = "gpt-4o/baked_bell_pepper/worker9_0_7", success: bool = True) -> KitchenRun:
    return KitchenRun(
        id=run_id,
        source=f"{run_id}.json",
        recipe="baked_bell_pepper",
        level=1,
        models=("gpt-4o", "claude-sonnet-4"),
        scaffold="baseline",
        score=20 if success else 0,
        success=success,
        finished=("baked_bell_pepper",) if success else (),
        steps=(
            KitchenStep(0, "X       P\n\nI       \u21911", ("wait(1)", "pickup(bell_pepper, ingredient_dispenser)")),
            KitchenStep(1, "X       P\n\nI       \u21911b", ("wait(1)", "place_obj_on_counter()"), 0.0, 0.34, ("a",)),
        ),
        turns=(
            Turn(0, 0, 0, 0, say="Collab(request(Assistant, pickup(bell_pepper, ingredient_dispenser)))", tokens=236),
            Turn(0, 1, 0, 0, say="", action="wait(1)", think="I wait", goal="1. pick", tokens=170),
        ),
        completed=(Completed(1, 1, "pickup(bell_pepper, ingredient_dispenser)"),),
        corrections=(Correction(1, 0, "validator", "oven0 is not free"),),
        tokens=406,
    )


def test_a_written_dataset_reads_back_exactly(tmp_path):
    runs = [_run(), _run("claude/baked_bell_pepper/worker1", success=False)]
    info = DatasetInfo(name="kitchen runs", synthetic=False, conditions=[])
    out = write_kitchen_dataset(tmp_path / "k", info, runs)
    assert is_kitchen(out) and sorted(p.name for p in (out / "runs").iterdir()) == sorted(
        [file_name(r.id) for r in runs]
    )
    assert json.loads((out / "dataset.json").read_text())["domain"] == "kitchen"
    loaded = load_kitchen(out)
    assert loaded.info.domain == "kitchen" and loaded.name == "kitchen runs"
    assert sorted(loaded.runs, key=lambda r: r.id) == sorted(runs, key=lambda r: r.id)
    assert loaded.runs[0].pairing == "baseline gpt-4o -> baseline claude-sonnet-4"
    # The same runs give the same bytes, so the same content hash.
    again = write_kitchen_dataset(tmp_path / "k2", info, list(reversed(runs)))
    assert load_kitchen(again).content_hash == loaded.content_hash


def test_a_damaged_run_file_names_its_file_record_and_field(tmp_path):
    out = write_kitchen_dataset(tmp_path / "k", DatasetInfo(name="k", synthetic=False, conditions=[]), [_run()])
    path = next((out / "runs").iterdir())
    data = json.loads(path.read_text())
    data["steps"][1]["colour"] = "red"
    data["turns"][0] = "hello"
    path.write_text(json.dumps(data))
    with pytest.raises(DatasetError) as exc:
        load_kitchen(out)
    found = {(i.file, i.record, i.field): i.message for i in exc.value.report.errors}
    run = "run gpt-4o/baked_bell_pepper/worker9_0_7"
    assert found[(f"runs/{path.name}", f"{run}, steps[1] (step 1)", "colour")] == "unknown field"
    assert found[(f"runs/{path.name}", f"{run}, turns[0]", "(record)")] == "expected an object, got the string 'hello'"


def test_nothing_is_left_behind_when_run_ids_collide(tmp_path):
    with pytest.raises(ValueError, match="same file name"):
        write_kitchen_dataset(
            tmp_path / "k", DatasetInfo(name="k", synthetic=False, conditions=[]), [_run("a/b"), _run("a_b")]
        )
    assert list(tmp_path.iterdir()) == []


def test_a_kitchen_dataset_is_not_read_as_map_task_sessions_and_is_not_offered_as_one(tmp_path):
    out = write_kitchen_dataset(tmp_path / "k", DatasetInfo(name="k", synthetic=False, conditions=[]), [_run()])
    _, report = read_dataset(out)
    assert [(i.file, i.field) for i in report.errors] == [("dataset.json", "domain")]
    assert "kitchen dataset" in report.errors[0].message
    entries = catalog.datasets_under([tmp_path])
    assert [(e.name, e.domain) for e in entries] == [("k", "kitchen")]


@pytest.mark.parametrize(
    "names",
    [
        ["azure-gpt-4o/json/baked_bell_pepper/worker9_0_7_baked_bell_pepper_270-2025-12-18.json"],
        ["runs/test_trajectory.json", "runs/demo_replay_test_traj.json"],
    ],
)
def test_run_files_are_told_apart_from_the_other_formats(names):
    found = detect(names)
    assert (found.kind, found.fmt) == ("overcooked", "overcooked")
    assert found.sentence().startswith("Read as kitchen runs")
    # A Groundwork dataset and the platform's export bundle are still told first.
    assert detect([*names, "dataset.json"]).fmt is None
    assert detect([*names, "p1_user_actions.json"]).fmt == "platform"


def test_a_map_task_dataset_written_before_keeps_its_bytes(tmp_path):
    """dataset.json of a Map Task dataset does not gain a domain key (committed datasets keep their hash)."""
    from corpus.loading.write import write_dataset

    write_dataset(tmp_path / "d", DatasetInfo(name="d", synthetic=True), [], [])
    assert "domain" not in json.loads(Path(tmp_path / "d" / "dataset.json").read_text())
