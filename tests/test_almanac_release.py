"""The real, annotated ALMANAC session the project page publishes (study13, the "visible"
condition), as the platform's newer export writes it, imported as published: with its ``files/``
folder of ink images and without it, from the command line and as an upload.

The newer export writes ``{}`` where a participant has no checkpoint rows and carries
``participant_id`` inside ``by_participant.<name>``; every action of the session is annotated. The
tests count the source's annotations from the JSON themselves, and work out from the ink images
which strokes changed no grid cell, to hold the import to them: every annotation is imported, the
strokes without a cell change are imported flagged with their reason and counted in the report, and
the replayed final canvas is the last ink image, cell for cell. The platform's per-stroke
``route_pixel_ratio`` is kept on the actions and offered as a progress measure."""

from __future__ import annotations

import json
import logging
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli
from helpers import tiny_map, tiny_session
from real_data import REAL, absent

from analysis import progress
from analysis.alignment import progress_curves
from corpus.importers.asciimap import DEFAULT_INK_SHARE, rasterize_ink
from corpus.importers.platform import parse_time
from corpus.loading.dataset import Corpus, load_dir
from corpus.loading.write import write_dataset
from corpus.model import DatasetInfo
from corpus.server.uploads import Quota, Uploads
from corpus.settings import Settings

ALMANAC = REAL / "almanac_release_study13"
EXPORT = "study13_actions_and_annotations.json"

pytestmark = pytest.mark.skipif(
    not (ALMANAC / EXPORT).is_file(), reason=absent(ALMANAC, "the real ALMANAC study13 export")
)


def _source() -> dict:
    return json.loads((ALMANAC / EXPORT).read_text(encoding="utf-8"))


def _answered(annotation: dict) -> bool:
    return any(isinstance(v, str) and v.strip() for v in annotation.values())


def _annotated_in_source(obj: dict) -> int:
    """The source's annotated actions, counted from its timelines: entries with any answer."""
    return sum(
        _answered(item["annotation"])
        for entry in obj["by_participant"].values()
        for item in entry["post_session_annotations_timeline"]
    )


def _rows_in_time_order(obj: dict) -> list[dict]:
    """The export's actions in the order the session imports them (by time; ties in file order)."""
    return sorted(obj["human_actions_all"], key=lambda a: a["timestamp"])


def _strokes_with_no_cell_change(obj: dict, grid: tuple[int, int]) -> list[str]:
    """The action ids of the strokes whose ink image fills the same cells as the canvas before it
    (for a brush stroke no new cell, for an eraser stroke no cell cleared): each map action logs the
    whole ink layer after it, so the canvas before a stroke is the image of the map action before."""
    before: set = set()
    out = []
    for row in _rows_in_time_order(obj):
        if not row.get("map_image"):
            continue
        after = rasterize_ink(ALMANAC / row["map_image"], grid, DEFAULT_INK_SHARE)
        if row["action_type"] == "map_draw_stop":
            eraser = row["metadata"].get("stroke_tool") == "eraser"
            if not (before - after if eraser else after - before):
                out.append(row["action_id"])
        before = after
    return out


def _import(src: Path, dest: Path, caplog) -> list[str]:
    """``python -m corpus import --from platform SRC DEST``: what it warned."""
    with caplog.at_level(logging.WARNING, logger="corpus.importers"):
        done = run_cli("import", "--from", "platform", str(src), str(dest))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"wrote {dest}")
    return [r.getMessage() for r in caplog.records if r.name == "corpus.importers"]


def _without_files(tmp_path: Path) -> Path:
    """The export as published, without the files/ folder beside it."""
    folder = tmp_path / "export"
    folder.mkdir()
    shutil.copy(ALMANAC / EXPORT, folder / EXPORT)
    return folder


def _said(warnings: list[str], start: str) -> str:
    (line,) = [w for w in warnings if start in w]
    return line


def test_the_export_as_published_imports_every_annotation_and_replays_to_the_last_ink_image(tmp_path, caplog):
    obj = _source()
    assert all(entry["in_session_annotations"] == {} for entry in obj["by_participant"].values())
    assert {e["participant_id"] for e in obj["by_participant"].values()} == set(obj["participant_ids"])
    warned = _import(ALMANAC, tmp_path / "ds", caplog)
    corpus = load_dir(tmp_path / "ds")
    (s,) = corpus.sessions.values()
    source_annotations = _annotated_in_source(obj)
    assert source_annotations == len(obj["human_actions_all"]) == 209
    assert len(s.actions) == 209 and sum(a.mental_model is not None for a in s.actions) == source_annotations
    # The strokes that changed no grid cell, worked out from the images here, are the ones flagged.
    grid = tuple(corpus.maps[s.map_id].grid_size)
    no_change = _strokes_with_no_cell_change(obj, grid)
    assert len(no_change) == 3
    rows = _rows_in_time_order(obj)
    flagged = [r["action_id"] for r, a in zip(rows, s.actions) if a.no_cell_change is not None]
    assert flagged == no_change
    for r, a in zip(rows, s.actions):
        assert a.timestamp == pytest.approx(s.actions[0].timestamp + _seconds_between(rows[0], r), abs=1e-3)
        if a.no_cell_change is not None:
            assert (a.type, a.no_cell_change, a.content) == ("draw", "changed_no_cell", None)
            assert a.mental_model is not None
    # The report counts them and reconciles the annotations.
    assert _said(warned, "strokes changed no grid cell").endswith(
        "3 strokes changed no grid cell: imported as draw or erase actions with no cell change "
        "(no_cell_change 'changed_no_cell'), their annotations kept"
    )
    assert _said(warned, "annotations in the source").endswith(
        "209 annotations in the source, 209 imported (3 of them on actions with no cell change)"
    )
    assert "imported with no cell change, for their annotations: 3 strokes that changed no grid cell" in s.notes
    # The replayed final canvas is the last ink image the platform logged, cell for cell.
    last = [r for r in rows if r.get("map_image")][-1]
    final = {tuple(c) for c in corpus.history(s.id).cells(len(s.actions) - 1).tolist()}
    assert final == rasterize_ink(ALMANAC / last["map_image"], grid, DEFAULT_INK_SHARE)
    assert len(final) > 100


def _seconds_between(a: dict, b: dict) -> float:
    return (parse_time(b["timestamp"]) - parse_time(a["timestamp"])).total_seconds()


def test_without_its_files_folder_every_annotated_stroke_is_imported_flagged(tmp_path, caplog):
    obj = _source()
    warned = _import(_without_files(tmp_path), tmp_path / "ds", caplog)
    (s,) = load_dir(tmp_path / "ds").sessions.values()
    assert len(s.actions) == 209
    assert sum(a.mental_model is not None for a in s.actions) == _annotated_in_source(obj)
    strokes = [r for r in obj["human_actions_all"] if r["action_type"] == "map_draw_stop"]
    flagged_strokes = [a for a in s.actions if a.type in ("draw", "erase")]
    assert len(flagged_strokes) == len(strokes) == 57
    assert {(a.no_cell_change, a.content) for a in flagged_strokes} == {("ink_missing", None)}
    # The platform's undo stack on an image map holds every stroke (a reset empties it): each undo of
    # a stroke whose ink is missing changes no known cell either, and is flagged with that reason.
    stack, undone = 0, 0
    for row in _rows_in_time_order(obj):
        content = row["action_content"]
        if row["action_type"] == "map_draw_stop":
            stack += 1
        elif content == "reset":
            stack = 0
        elif content == "undo" and stack:
            stack, undone = stack - 1, undone + 1
    undos = [a for a in s.actions if a.type == "undo"]
    assert undone == 18 and [a.no_cell_change for a in undos] == ["ink_missing"] * undone
    assert not any(a.cells for a in s.actions)
    assert _said(warned, "have no ink image").endswith(
        "57 strokes on an image map have no ink image (files/<action_id>_map_image.png, which a stroke's cells "
        "come from, is not there): imported as draw or erase actions with no cell change (no_cell_change "
        "'ink_missing'), their annotations kept; put the session's files/ folder beside the export to have "
        "their cells"
    )
    assert _said(warned, "undos of such strokes").endswith(
        "18 undos of such strokes change no cell either: imported as undo actions with no cell change, "
        "their annotations kept"
    )
    assert _said(warned, "annotations in the source").endswith(
        "209 annotations in the source, 209 imported (75 of them on actions with no cell change)"
    )
    assert "no ink image is there: the drawing is not known" in s.notes


@pytest.mark.parametrize("with_files", [True, False], ids=["with files", "without files"])
def test_the_upload_imports_the_export_too(tmp_path, monkeypatch, with_files):
    for name in Settings.model_fields:
        monkeypatch.delenv(f"GROUNDWORK_{name.upper()}", raising=False)
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    settings = Settings.load({})
    archive = tmp_path / "study13.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.write(ALMANAC / EXPORT, f"visible_data/{EXPORT}")
        if with_files:
            for png in sorted((ALMANAC / "files").iterdir()):
                zf.write(png, f"visible_data/files/{png.name}")
    uploads = Uploads(settings.data_dir)
    up, new = uploads.add(archive.name, archive.read_bytes(), Quota.from_settings(settings), fmt="platform")
    assert new and up.fmt == "platform"
    (s,) = load_dir(uploads.path(up)).sessions.values()
    assert sum(a.mental_model is not None for a in s.actions) == _annotated_in_source(_source()) == len(s.actions)
    reasons = {a.no_cell_change for a in s.actions if a.no_cell_change is not None}
    assert reasons == ({"changed_no_cell"} if with_files else {"ink_missing"})


# ---------------------------------------------------------------------------------------------
# The platform's route pixel ratio as a progress measure
# ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def study13(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("study13") / "ds"
    done = run_cli("import", "--from", "platform", str(ALMANAC), str(dest))
    assert done.returncode == 0, done.stderr
    return dest


def test_the_route_pixel_ratio_is_kept_on_each_action_as_the_source_logs_it(study13):
    corpus = load_dir(study13)
    rows = _rows_in_time_order(_source())
    logged = [r["metadata"].get("route_pixel_ratio") for r in rows]
    assert sum(v is not None for v in logged) == 82  # every stroke, undo and reset; no message
    (s,) = corpus.sessions.values()
    assert [a.route_pixel_ratio for a in s.actions] == logged
    table = corpus.actions_df["route_pixel_ratio"].to_numpy()
    np.testing.assert_array_equal(table, np.array([np.nan if v is None else v for v in logged]))
    assert corpus.sessions_df["n_route_pixel_ratio"].tolist() == [82]


@pytest.fixture(scope="module")
def mixed(study13, tmp_path_factory) -> Path:
    """The real session (as "visible") beside a hand-made one (as "not visible") that logs no route
    pixel ratio."""
    loaded = load_dir(study13)
    (real,) = loaded.sessions.values()
    return write_dataset(
        tmp_path_factory.mktemp("mixed") / "mixed",
        DatasetInfo(name="mixed", description="study13 and a hand-made session", synthetic=False),
        [*loaded.maps.values(), tiny_map()],
        [real.model_copy(update={"condition": "visible"}), tiny_session("hand-made", condition="not_visible")],
    )


def test_the_route_pixel_ratio_is_a_progress_measure(mixed):
    """At each action: the last value logged at or before it (0 before the first), as a share of the
    session's largest. A session that logs none is named, and its actions have no value."""
    assert progress.PROGRESS_KINDS["pixel_ratio"] == "route pixel ratio"
    corpus = load_dir(mixed)
    real = corpus.session(next(sid for sid in corpus.sessions if sid != "hand-made"))
    assert progress.pixel_ratio_sessions(corpus) == ([real.id], ["hand-made"])
    table = progress.progress_table(corpus)
    measured = table.loc[table["session_id"] == real.id, progress.COLUMNS["pixel_ratio"]].to_numpy()
    logged = [r["metadata"].get("route_pixel_ratio") for r in _rows_in_time_order(_source())]
    largest = max(v for v in logged if v is not None)
    carried, expected = 0.0, []
    for v in logged:
        carried = carried if v is None else v
        expected.append(carried / largest)
    np.testing.assert_allclose(measured, expected, rtol=0, atol=1e-12)
    at = [k for k, v in enumerate(logged) if v is not None]
    np.testing.assert_allclose(measured[at] * largest, [logged[k] for k in at], rtol=1e-12)
    assert measured.max() == 1.0 and measured[0] == 0.0
    assert np.isnan(table.loc[table["session_id"] == "hand-made", progress.COLUMNS["pixel_ratio"]]).all()
    # The alignment curves by this measure count every annotated action of the real session.
    frame = corpus.actions_df.merge(table, on=["session_id", "index"])
    curves = progress_curves(frame, progress.COLUMNS["pixel_ratio"], 5)
    aligned = curves[curves["measure"] == "aligned"]
    assert aligned["n"].sum() == sum(a.mental_model is not None for a in real.actions) == 209
    assert set(aligned["condition"]) == {"visible"}


@pytest.mark.long
def test_the_alignment_page_offers_it_and_names_the_sessions_without_it(mixed, tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from corpus.loading.catalog import key_of

    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(mixed.parent))
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=120)
    at.query_params["dataset"] = key_of(mixed)
    at.run()
    at.switch_page("pages/alignment.py").run()
    picker = at.segmented_control(key="an_progress")
    assert picker.options == ["route coverage", "action position", "elapsed time", "route pixel ratio"]
    picker.set_value("pixel_ratio").run()
    assert not at.exception, [e.value for e in at.exception]
    said = "\n".join(c.value for c in at.caption)
    assert "1 of 2 sessions log no route pixel ratio (hand-made): their actions are left out" in said
    figure = json.loads(at.get("plotly_chart")[0].proto.spec)
    titles = [v["title"]["text"] for k, v in figure["layout"].items() if k.startswith("xaxis") and v.get("title")]
    assert "route pixel ratio (% of the session's largest)" in titles
    # The sample logs none: the measure is not offered there.
    monkeypatch.delenv("GROUNDWORK_DATASET_ROOTS")
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "sample-data"))
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/alignment.py").run()
    assert "route pixel ratio" not in at.segmented_control(key="an_progress").options


def test_a_dataset_without_route_pixel_ratios_has_no_such_measure():
    from corpus.loading.dataset import load_sample

    corpus: Corpus = load_sample()
    logged, unlogged = progress.pixel_ratio_sessions(corpus)
    assert logged == [] and len(unlogged) == len(corpus.sessions)
    assert np.isnan(progress.progress_table(corpus)[progress.COLUMNS["pixel_ratio"]]).all()
