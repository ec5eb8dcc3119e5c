"""Attaching a map to sessions (corpus.mapedit.attach and `python -m corpus maps`): the dataset is
written again and validated, and the task metrics that were undefined become hand-computed numbers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from cli_run import run_cli
from helpers import tiny_map, tiny_session

from corpus.importers.asciimap import placeholder_map
from corpus.loading.dataset import content_hash, load_dir
from corpus.loading.validate import DatasetError
from corpus.loading.write import write_dataset
from corpus.mapedit.attach import attach_maps
from corpus.mapedit.mapfile import map_text, read_map
from corpus.model import DatasetInfo, GridMap, Landmark

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = "canvas-10x12"


@pytest.fixture
def imported(tmp_path) -> Path:
    """Two sessions on a placeholder grid (no route: metrics undefined), one on a 20 x 20 grid, a README."""
    dest = write_dataset(
        tmp_path / "ds",
        DatasetInfo(name="imported", description="hand-made", synthetic=False),
        [placeholder_map(PLACEHOLDER, "placeholder", (10, 12)), placeholder_map("canvas-20x20", "other", (20, 20))],
        [
            tiny_session("s1", map_id=PLACEHOLDER),
            tiny_session("s2", map_id=PLACEHOLDER),
            tiny_session("s3", map_id="canvas-20x20"),
        ],
        labels=[{"scheme": "grounding_acts", "session_id": "s1", "action_index": 0, "coder": "a", "code": "initiate"}],
    )
    (dest / "README.md").write_text("notes kept with the data\n")
    return dest


def annotated() -> GridMap:
    """The map drawn for the placeholder: route (0,0) (0,1) (0,2) (1,3) (2,3) (3,3)."""
    return tiny_map("annotated").model_copy(update={"follower_landmarks": None, "finish_cell": (3, 3)})


def test_attach_turns_undefined_metrics_into_hand_computed_numbers(imported):
    before = load_dir(imported).sessions_df.set_index("session_id")
    assert before.loc["s1", "route_coverage"] is None and before.loc["s1", "final_accuracy"] is None

    result = attach_maps(imported, annotated(), "s1, s2")

    # The Follower's final drawing: (0,0) (0,1) (0,2) (1,2) (2,2) (erased, then the erase undone).
    # On the route: the first three of the five drawn cells, three of the six route cells.
    # Distance-weighted: three cells on the route score 1, (1,2) and (2,2) are one cell from it: 2/3.
    after = load_dir(imported).sessions_df.set_index("session_id")
    for sid in ("s1", "s2"):
        assert after.loc[sid, "map_id"] == "annotated"
        assert after.loc[sid, "final_accuracy"] == pytest.approx(3 / 5)
        assert after.loc[sid, "route_coverage"] == pytest.approx(3 / 6)
        assert after.loc[sid, "distance_weighted"] == pytest.approx((3 + 2 * 2 / 3) / 5)
        assert result.scores[sid].coverage == pytest.approx(0.5)
    assert after.loc["s3", "map_id"] == "canvas-20x20" and pd.isna(after.loc["s3", "route_coverage"])
    assert result.previous == {"s1": PLACEHOLDER, "s2": PLACEHOLDER}

    corpus = load_dir(imported)
    assert corpus.maps["annotated"] == annotated()
    assert PLACEHOLDER in corpus.maps  # other maps are kept
    assert len(corpus.labels) == 1 and corpus.labels.iloc[0]["code"] == "initiate"
    assert (imported / "README.md").read_text() == "notes kept with the data\n"
    assert not [p for p in imported.parent.iterdir() if p.name.startswith(".")]  # no staging left behind


def test_the_follower_s_map_comes_from_its_own_file(imported):
    follower = annotated().model_copy(
        update={"landmarks": {**annotated().landmarks, "lake": Landmark(cells=[(7, 7), (7, 8)])}}
    )
    attach_maps(imported, annotated(), ["s1"], follower=follower)
    gm = load_dir(imported).maps["annotated"]
    assert gm.misplaced_landmarks() == ["lake"] and gm.follower_view["lake"].cells == [(7, 7), (7, 8)]


@pytest.mark.parametrize(
    ("sessions", "map_update", "field", "message"),
    [
        ("s1,nope", {}, "sessions", "no session 'nope' in the dataset"),
        (
            "s3",
            {},
            "map_id",
            "the session was drawn on the 20 x 20 grid of map 'canvas-20x20'; the map to attach is 10 x 12",
        ),
        ("", {}, "sessions", "no session given"),
        ("s1", {"id": "canvas-20x20"}, "id", "the dataset has another map 'canvas-20x20', used by s3"),
    ],
)
def test_a_refused_attach_lists_the_problem_and_writes_nothing(imported, sessions, map_update, field, message):
    before = content_hash(imported)
    with pytest.raises(DatasetError) as err:
        attach_maps(imported, annotated().model_copy(update=map_update), sessions)
    assert any(i.field == field and message in i.message for i in err.value.report.errors), err.value.report.format()
    assert content_hash(imported) == before


def test_a_follower_map_on_another_grid_is_refused(imported):
    other = GridMap(id="f", grid_size=(11, 12), start_cell=(0, 0), landmarks={})
    with pytest.raises(DatasetError, match="both maps need the same grid"):
        attach_maps(imported, annotated(), "s1", follower=other)


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return run_cli(*args, cwd=cwd)


def test_the_command_line_attaches_and_prints_the_metrics(imported, tmp_path):
    map_file = tmp_path / "annotated.json"
    map_file.write_text(map_text(annotated()))
    out = _cli("maps", "attach", str(imported), str(map_file), "--sessions", "s1,s2", "--out", str(tmp_path / "copy"))
    assert out.returncode == 0, out.stderr
    assert "map 'annotated' attached" in out.stdout
    line = next(ln for ln in out.stdout.splitlines() if ln.startswith("s1 "))
    assert line.split()[1:] == [PLACEHOLDER, "0.600", "0.500", "0.867"]
    assert load_dir(tmp_path / "copy").sessions["s2"].map_id == "annotated"
    assert load_dir(imported).sessions["s2"].map_id == PLACEHOLDER  # --out: the source is untouched

    bad = _cli("maps", "attach", str(imported), str(map_file), "--sessions", "s9")
    assert bad.returncode == 1 and "no session 's9'" in bad.stderr and "nothing was changed" in bad.stderr

    gap = tmp_path / "gap.json"
    doc = json.loads(map_text(annotated()))
    doc["route"][1] = [0, 3]  # (0,0) -> (0,3): a gap
    gap.write_text(json.dumps(doc))
    refused = _cli("maps", "attach", str(imported), str(gap), "--sessions", "s1")
    assert refused.returncode == 1 and "not a connected path" in refused.stderr


def test_the_command_line_checks_a_map(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(map_text(annotated()))
    out = _cli("maps", "check", str(good))
    assert out.returncode == 0 and "0 error(s)" in out.stderr
    crossing = annotated().model_copy(update={"landmarks": {"wall": Landmark(cells=[(1, 3)])}})
    bad = tmp_path / "bad.json"
    bad.write_text(map_text(read_map(map_text(crossing))))
    out = _cli("maps", "check", str(bad))
    assert out.returncode == 1
    assert "the route crosses the blocked landmark 'wall'  cells: [1, 3]" in out.stdout


def test_a_dataset_with_prediction_runs_gets_its_map_and_keeps_its_runs(tmp_path):
    """The bundled sample has a predictions/ folder: attaching once failed there with "'Run' object
    is not subscriptable"; the runs are carried over byte for byte."""
    import shutil

    from corpus.loading.dataset import SAMPLE_DATA

    copy = shutil.copytree(SAMPLE_DATA, tmp_path / "sample")
    before = load_dir(copy)
    sid = sorted(before.sessions)[0]
    runs = {p.relative_to(copy): p.read_bytes() for p in (copy / "predictions").rglob("*") if p.is_file()}
    assert runs and before.predictions
    gm = before.maps[before.sessions[sid].map_id].model_copy(update={"id": "redrawn"})
    result = attach_maps(copy, gm, [sid])
    after = load_dir(copy)
    assert after.sessions[sid].map_id == "redrawn"
    assert {p.relative_to(copy): p.read_bytes() for p in (copy / "predictions").rglob("*") if p.is_file()} == runs
    assert sorted(after.predictions) == sorted(before.predictions) and all(r.ok for r in after.predictions.values())
    assert (result.old_hash, result.content_hash) == (before.content_hash, after.content_hash)
    assert result.old_hash != result.content_hash


def test_attaching_in_place_moves_the_coding_tasks_to_the_rewritten_dataset(imported, tmp_path, monkeypatch):
    """Tasks name their dataset by its content hash, which attaching changes: the command line moves
    them (labels and gold stay with the task), so the rewritten dataset keeps them."""
    from corpus import codebook as cbm
    from corpus.store import Store

    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("GROUNDWORK_DB_URL", raising=False)
    store = Store.open(tmp_path / "data")
    lead, ann = store.create_user("lead", "lead-password", "lead"), store.create_user("ann", "ann-password", "coder")
    old = load_dir(imported).content_hash
    task = store.create_task(
        lead, "round 1", "imported", cbm.default(), [{"session_id": "s1", "action_index": 1}], [ann], dataset_hash=old
    )
    store.add_label(ann, task.id, "s1:1", "initiate")
    store.set_gold(lead, task.id, "s1:1", "initiate")
    other = store.create_task(
        lead, "elsewhere", "x", cbm.default(), [{"session_id": "s1", "action_index": 1}], [ann], dataset_hash="f" * 64
    )
    map_file = tmp_path / "annotated.json"
    map_file.write_text(map_text(annotated()))
    out = _cli("maps", "attach", str(imported), str(map_file), "--sessions", "s1")
    assert out.returncode == 0, out.stderr
    assert "coding tasks moved to the rewritten dataset (labels and gold kept): round 1" in out.stdout
    new = load_dir(imported).content_hash
    assert new != old
    assert (store.task(task.id).dataset_hash, store.task(other.id).dataset_hash) == (new, "f" * 64)
    assert store.labels(lead, task.id)["code"].tolist() == ["initiate"]
    assert store.gold(lead, task.id)["code"].tolist() == ["initiate"]
    with pytest.raises(Exception, match="only a lead"):
        store.move_dataset(ann, new, old)
