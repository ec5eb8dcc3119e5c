"""Ink images of the platform import: coverage per cell, memory bounded by one image, progress.

The coverage rule is checked against hand computations on small hand-made images, and, bit for
bit, against the rule applied to the whole image at once in float32 arithmetic. Memory is
checked without timing anything: the image decode is instrumented, and at most one decoded image
may be alive at a time, each file decoded once; the traced memory of an import does not grow with
its number of strokes.
"""

from __future__ import annotations

import json
import tracemalloc
import weakref
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFile
from real_data import PLATFORM, needs_platform

from corpus.importers import asciimap, import_source, run_import
from corpus.importers.asciimap import grid_for_image, ink_coverage, rasterize_ink, read_ink_layer

pytestmark = pytest.mark.long

# ---------------------------------------------------------------------------------------------
# The coverage rule
# ---------------------------------------------------------------------------------------------


def _reference_density(path: Path) -> np.ndarray:
    """The ink density of every pixel as float32 arithmetic on the whole image gives it."""
    with Image.open(path) as im:
        im.load()
        if im.mode in ("RGBA", "LA", "PA") or "transparency" in im.info:
            rgba = np.asarray(im.convert("RGBA"), dtype=np.float32)
            alpha = rgba[..., 3]
            if alpha.min() < 255:
                return alpha / 255.0
            return 1.0 - rgba[..., :3].mean(axis=2) / 255.0
        return 1.0 - np.asarray(im.convert("L"), dtype=np.float32) / 255.0


def _reference_coverage(dens: np.ndarray | Path, grid: tuple[int, int]) -> np.ndarray:
    """The rule on the whole image: float64 sums of the densities over rounded cell edges."""
    if isinstance(dens, Path):
        dens = _reference_density(dens)
    rows, cols = grid
    h, w = dens.shape
    ys = np.round(np.arange(rows) * h / rows).astype(np.int64)
    xs = np.round(np.arange(cols) * w / cols).astype(np.int64)
    sums = np.add.reduceat(np.add.reduceat(dens.astype(np.float64), ys, axis=0), xs, axis=1)
    return sums / np.outer(np.diff(np.append(ys, h)), np.diff(np.append(xs, w)))


def _coverage(path: Path, grid: tuple[int, int]) -> np.ndarray:
    return read_ink_layer(path, [grid]).coverage_of(grid)


def _rgba(size: tuple[int, int]) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    im = Image.new("RGBA", size, (0, 0, 0, 0))
    return im, ImageDraw.Draw(im)


def test_a_filled_square_fills_exactly_its_cells(tmp_path):
    im, draw = _rgba((40, 40))  # 10 x 10 px cells on a 4 x 4 grid
    draw.rectangle([10, 10, 29, 19], fill=(0, 0, 0, 255))  # x 10..29, y 10..19: cells (1, 1) and (1, 2)
    im.save(tmp_path / "square.png")
    expected = np.zeros((4, 4))
    expected[1, 1] = expected[1, 2] = 1.0
    assert np.array_equal(_coverage(tmp_path / "square.png", (4, 4)), expected)
    assert rasterize_ink(tmp_path / "square.png", (4, 4), 0.1) == {(1, 1), (1, 2)}
    assert rasterize_ink(tmp_path / "square.png", (4, 4), 1.0) == {(1, 1), (1, 2)}


def test_a_line_covers_its_share_of_each_cell(tmp_path):
    im, draw = _rgba((40, 40))
    draw.rectangle([0, 24, 39, 25], fill=(0, 0, 0, 255))  # 2 px of each 10 px high cell of row 2
    im.save(tmp_path / "line.png")
    cov = _coverage(tmp_path / "line.png", (4, 4))
    assert np.array_equal(cov[2], [20 / 100] * 4) and not cov[[0, 1, 3]].any()
    assert rasterize_ink(tmp_path / "line.png", (4, 4), 0.1) == {(2, c) for c in range(4)}
    assert rasterize_ink(tmp_path / "line.png", (4, 4), 0.25) == set()


def test_a_half_covered_cell_of_a_non_integer_size(tmp_path):
    # 25 px over 2 cells: the edge is rounded to pixel 12 (12.5 rounds to even), so the cells are
    # 12 and 13 px wide and high.
    im, draw = _rgba((25, 25))
    draw.rectangle([0, 0, 11, 5], fill=(0, 0, 0, 255))  # 12 x 6 of the 12 x 12 px of cell (0, 0)
    draw.point((24, 24), fill=(0, 0, 0, 255))  # 1 of the 13 x 13 px of cell (1, 1)
    draw.rectangle([12, 0, 24, 11], fill=(0, 0, 0, 128))  # cell (0, 1) at half opacity
    im.save(tmp_path / "half.png")
    cov = _coverage(tmp_path / "half.png", (2, 2))
    half_alpha = float(np.float32(128) / np.float32(255))
    assert cov.tolist() == [[72 / 144, 13 * 12 * half_alpha / (13 * 12)], [0.0, 1 / 169]]
    assert cov[0, 0] == 0.5
    assert rasterize_ink(tmp_path / "half.png", (2, 2), 0.5) == {(0, 0), (0, 1)}
    assert rasterize_ink(tmp_path / "half.png", (2, 2), 0.501) == {(0, 1)}


def test_an_opaque_image_is_read_as_darkness(tmp_path):
    im = Image.new("L", (20, 20), 255)
    ImageDraw.Draw(im).rectangle([0, 0, 9, 9], fill=0)  # black: cell (0, 0)
    ImageDraw.Draw(im).rectangle([10, 10, 19, 19], fill=204)  # light grey: cell (1, 1)
    im.save(tmp_path / "paper.png")
    cov = _coverage(tmp_path / "paper.png", (2, 2))
    assert cov.tolist() == [[1.0, 0.0], [0.0, float(np.float32(1.0) - np.float32(204) / np.float32(255))]]
    assert rasterize_ink(tmp_path / "paper.png", (2, 2), 0.1) == {(0, 0), (1, 1)}


def test_an_empty_image_has_no_ink_and_a_small_image_is_refused(tmp_path):
    _rgba((30, 20))[0].save(tmp_path / "empty.png")
    layer = read_ink_layer(tmp_path / "empty.png", [(4, 3)])
    assert (layer.height, layer.width, layer.has_ink) == (20, 30, False)
    assert rasterize_ink(tmp_path / "empty.png", (40, 40)) == set()  # no ink: no cells, whatever the grid
    im, draw = _rgba((30, 20))
    draw.point((3, 3), fill=(0, 0, 0, 255))
    im.save(tmp_path / "dot.png")
    with pytest.raises(ValueError, match="a 30x20 image is smaller than the 40x40 grid"):
        rasterize_ink(tmp_path / "dot.png", (40, 40))


def _images_of_every_kind(folder: Path) -> list[Path]:
    """Random images in every mode the rule distinguishes, with every alpha and grey level."""
    rng = np.random.default_rng(5)
    h, w = 173, 250
    rgb = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    alpha = rng.integers(0, 256, (h, w), dtype=np.uint8)
    alpha[rng.random((h, w)) < 0.7] = 0  # mostly transparent, as ink is
    gray = rng.integers(0, 256, (h, w), dtype=np.uint8)
    images = {
        "rgba.png": Image.fromarray(np.dstack([rgb, alpha]), "RGBA"),
        "rgba_opaque.png": Image.fromarray(np.dstack([rgb, np.full((h, w), 255, np.uint8)]), "RGBA"),
        "rgb.png": Image.fromarray(rgb, "RGB"),
        "gray.png": Image.fromarray(gray, "L"),
        "gray_alpha.png": Image.fromarray(np.dstack([gray, alpha]), "LA"),
        "palette.png": Image.fromarray(rgb, "RGB").quantize(64),
    }
    paths = []
    for name, im in images.items():
        extra = {"transparency": 3} if name == "palette.png" else {}
        im.save(folder / name, **extra)
        paths.append(folder / name)
    return paths


def test_coverage_equals_the_rule_on_the_whole_image_bit_for_bit(tmp_path):
    grids = [(1, 1), (4, 3), (60, 41), (97, 61), (173, 250)]
    for path in _images_of_every_kind(tmp_path):
        dens = _reference_density(path)
        layer = read_ink_layer(path, grids)
        for grid in grids:
            assert np.array_equal(layer.coverage_of(grid), _reference_coverage(dens, grid)), (path.name, grid)


def test_several_grids_come_from_one_decode(tmp_path, monkeypatch):
    (path,) = [p for p in _images_of_every_kind(tmp_path) if p.name == "rgba.png"]
    decodes = []
    original = asciimap.read_ink_levels
    monkeypatch.setattr(asciimap, "read_ink_levels", lambda p: decodes.append(p) or original(p))
    grids = [(4, 3), (60, 41), (97, 61)]
    layer = read_ink_layer(path, grids)
    assert decodes == [path]
    for grid in grids:
        assert np.array_equal(layer.coverage_of(grid), _reference_coverage(path, grid))


def test_the_float_coverage_of_the_map_editor_is_unchanged():
    mask = np.zeros((90, 70), dtype=np.float32)
    mask[10:50, 5:33] = 1.0
    dens = mask * np.float32(0.3)
    for grid in ((9, 7), (13, 11)):
        rows, cols = grid
        ys = np.round(np.arange(rows) * 90 / rows).astype(np.int64)
        xs = np.round(np.arange(cols) * 70 / cols).astype(np.int64)
        for img in (mask, dens):
            sums = np.add.reduceat(np.add.reduceat(img.astype(np.float64), ys, axis=0), xs, axis=1)
            expected = sums / np.outer(np.diff(np.append(ys, 90)), np.diff(np.append(xs, 70)))
            assert np.array_equal(ink_coverage(img, grid), expected)


@needs_platform
def test_the_real_ink_images_give_the_rule_bit_for_bit():
    for path in sorted((PLATFORM / "files").glob("*.png")):
        with Image.open(path) as im:
            w, h = im.size
        dens = _reference_density(path)
        grids = [g for g in {grid_for_image(w, h), (60, 41), (37, 23)} if h >= g[0] and w >= g[1]]
        layer = read_ink_layer(path, grids)
        for grid in grids:
            assert np.array_equal(layer.coverage_of(grid), _reference_coverage(dens, grid)), (path.name, grid)


# ---------------------------------------------------------------------------------------------
# A session of many ink images: bounded memory and progress
# ---------------------------------------------------------------------------------------------

SID = "5e55104b-0000-4000-8000-000000000001"
GUIDE = "6d1de000-0000-4000-8000-00000000a001"
FOLLOWER = "f0110e00-0000-4000-8000-00000000b002"


def _row(pid: str, k: int, kind: str, content: str, **extra) -> dict:
    """A log row in the platform's shape, ``k`` seconds into the session."""
    row = {
        "action_id": extra.pop("action_id", f"{pid[:8]}-{k:04d}"),
        "timestamp": f"2026-04-10T10:{k // 60:02d}:{k % 60:02d}.000000Z",
        "session_id": SID,
        "participant_id": pid,
        "session_name": "ink",
        "participant_name": "someone",
        "is_human": True,
        "action_type": kind,
        "action_content": content,
        "result": "success",
        "metadata": extra.pop("metadata", {}),
        "page": "map_task",
        "experiment_type": "maptask",
        "session_elapsed_seconds": k,
    }
    row.update(extra)
    return row


def _ink_session(folder: Path, n_strokes: int, size=(300, 400)) -> list[str]:
    """A session whose Follower draws ``n_strokes`` strokes, each a new short line on the ink layer
    (saved whole after every stroke); the Follower's opening reset logs a smaller image, as on the
    platform. Returns the stroke images' file names."""
    w, h = size
    files = folder / "files"
    files.mkdir(parents=True, exist_ok=True)
    Image.new("RGBA", (w // 2, h // 4), (0, 0, 0, 0)).save(files / "reset_map_image.png")
    guide = [
        _row(GUIDE, 1, "send_message", "go down", page="social_panel", metadata={"receiver": FOLLOWER}),
    ]
    follower = [_row(FOLLOWER, 0, "map_tool_click", "reset", map_image="files/reset_map_image.png")]
    canvas, draw = _rgba(size)
    names = []
    per_column = (h - 20) // 12
    for k in range(n_strokes):
        x0 = 10 + (k // per_column) * (w // 3)
        y = 10 + (k % per_column) * 12
        draw.line([(x0, y), (x0 + w // 4, y + 3)], fill=(0, 0, 0, 255), width=4)
        name = f"{k:04d}-stroke_map_image.png"
        canvas.save(files / name)
        names.append(name)
        follower.append(
            _row(
                FOLLOWER,
                2 + k,
                "map_draw_stop",
                "brush_release",
                action_id=f"{k:04d}-stroke",
                metadata={"stroke_tool": "brush"},
                map_image=f"files/{name}",
            )
        )
    for pid, rows in ((GUIDE, guide), (FOLLOWER, follower)):
        (folder / f"{pid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return names


class _DecodeWatch:
    """Counts the decodes of each image file and the decoded images (and their ink levels) alive."""

    def __init__(self, monkeypatch) -> None:
        self.decodes: dict[str, int] = {}
        self.alive: set[int] = set()
        self.most_alive = 0
        load, close = ImageFile.ImageFile.load, Image.Image.close
        read_levels = asciimap.read_ink_levels
        watch = self

        def counted_load(im):
            if getattr(im, "filename", None) and id(im) not in watch.alive:
                watch.decodes[Path(im.filename).name] = watch.decodes.get(Path(im.filename).name, 0) + 1
                watch._born(im)
            return load(im)

        def counted_close(im):
            watch.alive.discard(id(im))
            return close(im)

        def counted_levels(path):
            levels, density = read_levels(path)
            watch._born(levels)
            return levels, density

        monkeypatch.setattr(ImageFile.ImageFile, "load", counted_load)
        monkeypatch.setattr(Image.Image, "close", counted_close)
        monkeypatch.setattr(asciimap, "read_ink_levels", counted_levels)

    def _born(self, obj) -> None:
        key = id(obj)
        self.alive.add(key)
        weakref.finalize(obj, self.alive.discard, key)
        self.most_alive = max(self.most_alive, len(self.alive))


def test_one_decoded_image_at_a_time_each_file_decoded_once(tmp_path, monkeypatch):
    names = _ink_session(tmp_path, 40)
    watch = _DecodeWatch(monkeypatch)
    result = import_source("platform", tmp_path)
    assert result.report.ok, result.report.format()
    (s,) = result.sessions
    assert sum(a.type == "draw" for a in s.actions) == 40
    # Every stroke's image decoded once; the reset's image, only measured from its header.
    assert watch.decodes == dict.fromkeys(names, 1)
    # At most one decoded image, or the ink levels of one image, alive at any time.
    assert watch.most_alive == 1
    assert not watch.alive
    # The grid comes from the largest image's header: 60 cells on its longer side.
    assert tuple(result.maps[0].grid_size) == grid_for_image(300, 400)


def _traced_peak(folder: Path) -> int:
    tracemalloc.start()
    try:
        result = import_source("platform", folder)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.report.ok, result.report.format()
    return peak


def test_memory_does_not_grow_with_the_number_of_strokes(tmp_path):
    size = (600, 800)
    _ink_session(tmp_path / "few", 8, size)
    _ink_session(tmp_path / "many", 48, size)
    _traced_peak(tmp_path / "few")  # modules loaded before measuring
    few, many = _traced_peak(tmp_path / "few"), _traced_peak(tmp_path / "many")
    # One image's pixels as float32 (what keeping each image would cost per stroke) is 1.9 MB; 40
    # more strokes add their log rows and actions, far less than one image.
    one_image = size[0] * size[1] * 4
    assert many - few < one_image / 2, (few, many)


def test_progress_hears_of_every_ink_stroke(tmp_path):
    _ink_session(tmp_path / "export", 12)
    # A stroke whose image is not in the export is left out, and not counted.
    log = tmp_path / "export" / f"{FOLLOWER}.jsonl"
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    rows.append(_row(FOLLOWER, 99, "map_draw_stop", "brush_release", map_image="files/gone_map_image.png", metadata={}))
    log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    calls: list[tuple[int, int]] = []
    result = import_source("platform", tmp_path / "export", progress=lambda done, total: calls.append((done, total)))
    assert result.report.ok, result.report.format()
    assert calls == [(k, 12) for k in range(13)]
    calls.clear()
    run_import("platform", tmp_path / "export", tmp_path / "out", progress=lambda d, t: calls.append((d, t)))
    assert calls == [(k, 12) for k in range(13)]
    # Other formats take the option too.
    result = import_source("hcrc", tmp_path / "nothing", progress=lambda d, t: calls.append((d, t)))
    assert not result.report.ok and not any(i.field == "progress" for i in result.report.issues)
