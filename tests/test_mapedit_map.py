"""The map being edited (corpus.mapedit): edits and the Follower's variant, checks with their cells,
the summary fields of exported landmarks, the map JSON round trip, bad files, drafts, undo/redo and
map images."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from corpus.loading.dataset import SAMPLE_DATA
from corpus.loading.validate import DatasetError
from corpus.mapedit import draft as dr
from corpus.mapedit import image as mi
from corpus.mapedit import mapfile
from corpus.mapedit.checks import ERROR, WARNING, check, problem_cells
from corpus.mapedit.history import History
from corpus.mapedit.mapfile import export_text, list_drafts, map_text, open_draft, read_map, read_map_file, save_draft

L_SHAPE = [(2, 3), (3, 3), (4, 3), (4, 4), (4, 5)]
ROUTE = [(0, 0), (0, 1), (1, 2), (2, 2), (3, 2), (4, 1), (5, 1)]


def good_draft() -> dr.Draft:
    d = dr.new_draft("m-test", (8, 10), name="test map")
    d, _ = dr.add_landmark(d, L_SHAPE, "old mill")
    d, _ = dr.add_landmark(d, dr.LandmarkDraft.of([(6, 6), (6, 7), (7, 6), (7, 7)]).cells, "lake", type=dr.OPEN)
    d = dr.extend_route(d, ROUTE[:3])
    d = dr.extend_route(d, ROUTE[2:])  # continues from the route's end: (1, 2) is not repeated
    d = dr.set_start(d, ROUTE[0])
    return dr.set_finish(d, ROUTE[-1])


def codes(d: dr.Draft) -> dict[str, tuple]:
    return {p.code: p.cells for p in check(d)}


def png_bytes(size=(30, 20), mode="RGBA", fmt="PNG") -> bytes:
    buf = io.BytesIO()
    Image.new(mode, size, (10, 20, 30, 255) if mode == "RGBA" else (10, 20, 30)).save(buf, format=fmt)
    return buf.getvalue()


# -- edits ---------------------------------------------------------------------------------------


def test_edits_build_the_map_and_the_route_continues_without_repeating_a_cell():
    d = good_draft()
    assert d.names == ["old mill", "lake"]
    assert d.route == tuple(ROUTE)
    assert d.landmark("lake").type == "open" and d.landmark("old mill").blocked
    assert check(d) == []
    d2 = dr.rename_landmark(d, "old mill", "fossil bed")
    assert d2.names == ["fossil bed", "lake"] and d.names == ["old mill", "lake"]  # drafts are immutable
    with pytest.raises(dr.EditError, match="already a landmark named 'lake'"):
        dr.rename_landmark(d, "old mill", "lake")
    with pytest.raises(dr.EditError, match="outside the 8 x 10 grid"):
        dr.add_cells(d, "lake", [(8, 0)])
    assert dr.delete_landmark(d, "lake").names == ["old mill"]
    assert dr.set_type(d, "lake", dr.BLOCKED).landmark("lake").blocked
    d3, name = dr.add_landmark(d, [(0, 9)])
    assert name == "landmark_3"
    assert dr.set_id(d, "ink-map_2").map_id == "ink-map_2"
    with pytest.raises(dr.EditError, match="use letters, digits"):
        dr.set_id(d, "maps/../x")


def test_the_follower_s_map_moves_one_landmark_and_follows_the_other_edits():
    d = good_draft()
    assert d.follower is None and d.moved() == []
    d = dr.shift_on_follower(d, "lake", -3, 1)
    assert d.moved() == ["lake"]
    assert d.landmark("lake", dr.FOLLOWER).cells == ((3, 7), (3, 8), (4, 7), (4, 8))
    assert d.landmark("lake").cells == ((6, 6), (6, 7), (7, 6), (7, 7))  # the Guide's stays
    # An edit of a landmark both maps agree on is made on both; the moved one keeps its place.
    d = dr.add_cells(d, "old mill", [(5, 3)])
    assert (5, 3) in d.landmark("old mill", dr.FOLLOWER).cells
    d = dr.add_cells(d, "lake", [(5, 6)])
    assert (5, 6) not in d.landmark("lake", dr.FOLLOWER).cells
    d = dr.rename_landmark(d, "lake", "pond")
    assert d.moved() == ["pond"] and [n for n, _ in d.follower] == ["old mill", "pond"]
    d = dr.set_type(d, "pond", dr.BLOCKED)
    assert d.landmark("pond", dr.FOLLOWER).blocked
    with pytest.raises(dr.EditError, match="would leave the grid"):
        dr.shift_on_follower(d, "pond", 10, 0)
    assert dr.reset_follower(d).moved() == []
    assert dr.delete_landmark(d, "pond").follower == (("old mill", d.landmark("old mill")),)


def test_checks_name_every_problem_with_its_cells():
    d = dr.new_draft("m", (6, 6))
    assert set(codes(d)) == {"no_start", "no_route"}
    assert [p.severity for p in check(d)] == [ERROR, WARNING]
    d, _ = dr.add_landmark(d, [(2, 2), (2, 3)], "wall")
    d, _ = dr.add_landmark(d, [(2, 3), (3, 3)], "tower")
    d = dr.set_start(d, (0, 1))
    d = dr.extend_route(d, [(1, 1), (2, 2), (2, 3)])
    d = dr.extend_route(d, [(4, 5), (5, 5)])  # a second stroke that does not join the first
    got = codes(d)
    assert got["route_gap"] == ((2, 3), (4, 5))
    assert got["route_start"] == ((1, 1), (0, 1))
    assert got["no_finish"] == ((5, 5),)
    assert got["route_blocked"] == ((2, 3),)  # tower: the cell the route crosses (wall is reported too)
    assert [p.cells for p in check(d) if p.code == "route_blocked"] == [((2, 2), (2, 3)), ((2, 3),)]
    assert got["overlap"] == ((2, 3),)
    d = dr.set_finish(d, (4, 4))
    assert codes(d)["route_finish"] == ((5, 5), (4, 4))
    d = dr.set_start(d, (3, 3))
    assert codes(d)["start_blocked"] == ((3, 3),)
    assert {(2, 3), (4, 5), (5, 5), (4, 4), (3, 3)} <= problem_cells(check(d))


def test_follower_checks_concern_the_moved_landmark_and_the_one_move_rule():
    d = dr.shift_on_follower(good_draft(), "lake", -6, -6)  # to rows 0-1, columns 0-1: clear of the old mill
    got = {p.code: p for p in check(d)}
    assert "overlap" not in got and "follower_moves" not in got
    d = dr.set_cells(d, "lake", [(4, 4), (4, 5)], dr.FOLLOWER)  # now on the old mill, Follower's map only
    overlap = [p for p in check(d) if p.code == "overlap"]
    assert len(overlap) == 1 and "Follower's map" in overlap[0].message and overlap[0].cells == ((4, 4), (4, 5))
    d = dr.set_cells(d, "old mill", [(0, 9)], dr.FOLLOWER)
    moves = [p for p in check(d) if p.code == "follower_moves"]
    assert moves[0].severity == WARNING and "2 landmarks (old mill, lake)" in moves[0].message


# -- export: Appendix D JSON ---------------------------------------------------------------------


def test_exported_landmarks_carry_hand_computed_summaries():
    doc = json.loads(export_text(good_draft()))
    mill = doc["landmarks"]["old mill"]
    assert mill["type"] == "blocked"
    assert mill["cells"] == [list(c) for c in L_SHAPE]
    assert mill["summary"]["bbox"] == {"row_min": 2, "row_max": 4, "col_min": 3, "col_max": 5}
    assert mill["summary"]["corners"] == {
        "top_left": [2, 3],
        "top_right": [2, 5],
        "bottom_left": [4, 3],
        "bottom_right": [4, 5],
    }
    assert mill["summary"]["centroid"] == [3.4, 3.6]  # rows (2+3+4+4+4)/5, columns (3+3+3+4+5)/5
    assert mill["summary"]["boundary_cells"] == [list(c) for c in L_SHAPE]  # a one-cell-wide L: all on its edge
    d, _ = dr.add_landmark(good_draft(), [(r, c) for r in range(0, 3) for c in range(7, 10)], "square")
    square = json.loads(export_text(d))["landmarks"]["square"]["summary"]
    assert square["centroid"] == [1.0, 8.0]
    assert [1, 8] not in square["boundary_cells"] and len(square["boundary_cells"]) == 8
    assert doc["grid_size"] == [8, 10] and doc["start_cell"] == [0, 0] and doc["finish_cell"] == [5, 1]
    assert doc["route"] == [list(c) for c in ROUTE] and "follower_landmarks" not in doc


def test_export_is_refused_while_the_map_has_errors():
    d = dr.extend_route(good_draft(), [(7, 9)])
    with pytest.raises(dr.EditError, match=r"the route jumps from \[5, 1\] to \[7, 9\]"):
        export_text(d)


def test_round_trip_is_lossless():
    d = dr.shift_on_follower(good_draft(), "lake", -1, 0)
    text = export_text(d)
    gm = read_map(text, "m-test.json")
    assert gm == dr.to_gridmap(d)
    assert dr.from_gridmap(gm) == d
    assert map_text(gm) == text
    assert gm.misplaced_landmarks() == ["lake"]


@pytest.mark.parametrize("name", ["map_a", "map_b"])
def test_the_sample_maps_round_trip(name):
    path = SAMPLE_DATA / "maps" / f"{name}.json"
    gm = read_map_file(path)
    d = dr.from_gridmap(gm)
    assert dr.to_gridmap(d) == gm
    assert json.loads(export_text(d)) == json.loads(path.read_text())
    assert check(d) == []


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        (b"{not json", "(json)", "bad JSON"),
        (b'{"id": "s1", "condition": "visible", "participants": []}', "(file)", "not a map"),
        (b"[1, 2, 3]", "(file)", "not a map"),
        (
            b'{"id": "m", "grid_size": [5, 5], "start_cell": [0, 0], "landmarks": {}, "route": [[0, 0], [0, 1], [0, 3]]}',
            "route",
            "not a connected path: route[1] [0, 1] and route[2] [0, 3] are not neighbours",
        ),
        (
            b'{"id": "m", "grid_size": [5, 5], "start_cell": [0, 0], "landmarks": {"x": {"cells": [[9, 9]]}}}',
            "landmarks.x.cells",
            "outside the 5x5 grid",
        ),
    ],
)
def test_a_file_that_is_not_a_good_map_is_refused_naming_the_field(data, field, message):
    with pytest.raises(DatasetError) as err:
        read_map(data, "upload.json")
    issue = err.value.report.errors[0]
    assert issue.file == "upload.json" and issue.field == field and message in issue.message


# -- drafts, history, images ---------------------------------------------------------------------


def test_a_draft_keeps_unfinished_work_and_its_image(tmp_path):
    d = dr.extend_route(good_draft(), [(7, 9)])  # a gap: not a valid map yet
    image = mi.read_map_image(png_bytes(), "ink.png")
    d = dr.with_image(d, image.digest)
    save_draft(tmp_path, "my draft", d, image, saved_by="ann")
    [info] = list_drafts(tmp_path)
    assert (info.name, info.saved_by, info.map_id, info.grid_size) == ("my draft", "ann", "m-test", (8, 10))
    back, back_image = open_draft(info.path)
    assert back == d and back_image == image
    info.path.write_text('{"format": "something else"}')
    with pytest.raises(dr.EditError, match="not a map editor draft"):
        open_draft(info.path)


def test_undo_redo_walk_the_edits_and_a_new_edit_drops_the_redo():
    d0 = dr.new_draft("m", (5, 5))
    h = History.starting(d0)
    d1 = dr.set_start(d0, (1, 1))
    h.push(d1, "start")
    d2 = dr.set_finish(d1, (4, 4))
    h.push(d2, "finish")
    assert h.undo() == d1 and h.undo_label == "start" and h.redo_label == "finish"
    assert h.undo() == d0 and not h.can_undo and h.undo() == d0
    assert h.redo() == d1
    d3 = dr.extend_route(d1, [(1, 1), (1, 2)])
    h.push(d3, "route")
    assert not h.can_redo and h.current == d3 and len(h.entries) == 3
    h.push(d3, "the same again")
    assert len(h.entries) == 3


def test_map_images_are_checked_before_use(monkeypatch):
    ok = mi.read_map_image(png_bytes((40, 25)), "map.png")
    assert (ok.width, ok.height, ok.format) == (40, 25, "PNG")
    assert mi.read_map_image(png_bytes(mode="RGB", fmt="JPEG"), "scan.jpg").format == "JPEG"
    with pytest.raises(dr.EditError, match="notes.txt: not an image"):
        mi.read_map_image(b"these are my notes", "notes.txt")
    with pytest.raises(dr.EditError, match="a GIF image; map images are PNG or JPEG, at most 20 MiB and 20 megapixels"):
        mi.read_map_image(png_bytes(mode="RGB", fmt="GIF"), "anim.gif")
    with pytest.raises(dr.EditError, match="cannot be read"):
        mi.read_map_image(png_bytes((400, 400))[:200], "cut.png")
    monkeypatch.setattr(mi, "MAX_IMAGE_BYTES", 100)
    with pytest.raises(dr.EditError, match="map.png: the file is"):
        mi.read_map_image(png_bytes((40, 25)), "map.png")
    monkeypatch.setattr(mi, "MAX_IMAGE_BYTES", 20 * 2**20)
    monkeypatch.setattr(mi, "MAX_IMAGE_PIXELS", 999)
    with pytest.raises(dr.EditError, match="40 x 25 pixels"):
        mi.read_map_image(png_bytes((40, 25)), "map.png")


def _png16(side: int) -> bytes:
    """A 16-bit greyscale PNG of side x side pixels that compresses to a few kilobytes."""
    import io

    import numpy as np
    from PIL import Image

    a = np.zeros((side, side), dtype=np.uint16)
    a[::97, :] = 40_000
    buf = io.BytesIO()
    Image.fromarray(a).save(buf, format="PNG", compress_level=9)
    return buf.getvalue()


def test_a_huge_image_in_a_small_file_is_refused_before_a_pixel_is_decoded(monkeypatch):
    """6,324 x 6,324 16-bit pixels in 76 KB once cost 5 s and 650 MB to decode and fit; the size is
    read from the header and refused first."""
    from PIL import ImageFile

    data = _png16(6324)
    assert len(data) < 100_000

    def no_decoding(self):  # noqa: ANN001
        raise AssertionError("pixels were decoded")

    monkeypatch.setattr(ImageFile.ImageFile, "load", no_decoding)
    with pytest.raises(
        dr.EditError,
        match=r"big\.png: 6324 x 6324 pixels \(40 megapixels\); map images are PNG or JPEG, "
        r"at most 20 MiB and 20 megapixels",
    ):
        mi.read_map_image(data, "big.png")


def test_an_accepted_image_keeps_a_working_copy_and_is_not_decoded_again(monkeypatch):
    from PIL import ImageFile

    image = mi.read_map_image(_png16(4400), "scan.png")  # 19.4 megapixels, 16-bit
    assert (image.width, image.height) == (4400, 4400)
    assert image.working.size == (2048, 2048) and image.working.mode == "RGBA"
    monkeypatch.setattr(
        ImageFile.ImageFile, "load", lambda self: (_ for _ in ()).throw(AssertionError("decoded again"))
    )
    fitted = mi.fit_image(image, (620, 620))
    assert fitted.size == (620, 620) and fitted.getpixel((300, 1))[3] == 255


def test_a_draft_of_the_same_name_by_another_person_is_another_draft(tmp_path):
    """Saving under a name another person used once overwrote their draft; each account keeps its own."""
    mine, theirs = good_draft(), dr.set_start(good_draft(), (1, 1))
    save_draft(tmp_path, "route", mine, saved_by="ann")
    save_draft(tmp_path, "route", theirs, saved_by="bob")
    drafts = {i.saved_by: i for i in list_drafts(tmp_path)}
    assert sorted(drafts) == ["ann", "bob"] and {i.name for i in drafts.values()} == {"route"}
    assert open_draft(drafts["ann"].path)[0] == mine and open_draft(drafts["bob"].path)[0] == theirs
    save_draft(tmp_path, "route", theirs, saved_by="ann")  # ann replaces her own
    assert open_draft({i.saved_by: i for i in list_drafts(tmp_path)}["ann"].path)[0] == theirs
    assert len(list_drafts(tmp_path)) == 2
    # Names that read the same once made safe for a file are still two accounts.
    assert mapfile.owner_folder(tmp_path, "a b") != mapfile.owner_folder(tmp_path, "a_b")


def test_drafts_have_a_quota_per_account(tmp_path, monkeypatch):
    import os

    monkeypatch.setattr(mapfile, "DRAFTS_PER_ACCOUNT", 3)
    monkeypatch.setattr(mapfile, "DRAFT_BYTES_PER_ACCOUNT", 2 * 2**20)
    for i in range(3):
        save_draft(tmp_path, f"d{i}", good_draft(), saved_by="ann")
    with pytest.raises(
        dr.EditError, match="not saved: you keep 3 drafts, the most one account may keep; delete one first"
    ):
        save_draft(tmp_path, "d3", good_draft(), saved_by="ann")
    save_draft(tmp_path, "d2", good_draft(), saved_by="ann")  # replacing one is no new draft
    buf = io.BytesIO()
    Image.frombytes("RGB", (1000, 500), os.urandom(1_500_000)).save(buf, format="PNG")  # noise: 1.4 MiB
    image = mi.read_map_image(buf.getvalue(), "scan.png")
    save_draft(tmp_path, "d0", good_draft(), image, saved_by="bob")  # another account has its own quota
    with pytest.raises(
        dr.EditError,
        match=r"not saved: your drafts take 1\.4 MiB and this one 1\.4 MiB more; one "
        r"account keeps at most 2 MiB of drafts; delete one first",
    ):
        save_draft(tmp_path, "d1", good_draft(), image, saved_by="bob")
    mapfile.delete_draft(next(i.path for i in list_drafts(tmp_path) if i.saved_by == "ann" and i.name == "d1"))
    save_draft(tmp_path, "d3", good_draft(), saved_by="ann")
    assert sorted(i.name for i in list_drafts(tmp_path) if i.saved_by == "ann") == ["d0", "d2", "d3"]


def test_an_ascii_grid_map_opens_and_is_checked_at_any_size(tmp_path):
    """The platform's ASCII maps (# landmark, . route, S start, F finish) open as maps, 60 x 41 to
    200 x 160, through the same reader as the JSON ("maps check" and the Map editor)."""
    rows, cols = 160, 200
    grid = [[" "] * cols for _ in range(rows)]
    grid[80][10:190] = ["."] * 180
    grid[80][10], grid[80][189] = "S", "F"
    for r in range(20, 30):
        grid[r][40:60] = ["#"] * 20
    text = "\n".join("".join(r) for r in grid) + "\n"
    gm = read_map(text, "big_map.txt")
    assert tuple(gm.grid_size) == (160, 200) and (gm.start_cell, gm.finish_cell) == ((80, 10), (80, 189))
    assert len(gm.route) == 180 and [len(lm.cells) for lm in gm.landmarks.values()] == [200]
    (tmp_path / "big_map.txt").write_text(text)
    from cli_run import run_cli

    out = run_cli("maps", "check", str(tmp_path / "big_map.txt"))
    assert out.returncode == 0 and "big_map.txt: 0 error(s), 0 warning(s)" in out.stderr
    with pytest.raises(DatasetError) as err:
        read_map("S.X.F\n", "bad.txt")
    assert [(i.file, i.record, i.field, i.message) for i in err.value.report.errors] == [
        (
            "bad.txt",
            "line 1",
            "column 3",
            "unknown map character 'X' (expected '#' landmark, '.' route, 'S' start, 'F' finish or a space)",
        )
    ]
