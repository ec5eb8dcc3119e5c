"""The map a platform session was drawn on: a map file given as an option, the ASCII map of the
export folder, or a placeholder grid shaped like the ink images."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from corpus.importers.asciimap import grid_for_image, placeholder_map, read_ascii_map, safe_id
from corpus.importers.platform.rows import PlatformOptions, Row
from corpus.importers.platform.session import InkImages, ink_shape_of
from corpus.loading.reading import read_json
from corpus.loading.report import shown
from corpus.loading.validate import Report, parse
from corpus.model import GridMap

PLATFORM_GRID = (40, 60)  # the platform's ASCII grid maps: 40 rows of 60 cells


def read_map_option(path: Path, report: Report, names: Path | None) -> GridMap | None:
    """The ``map_path`` option: our JSON map, a JSON ``{"grid_size": [rows, cols]}`` placeholder, or an
    ASCII grid map."""
    rel = str(path)
    if not path.is_file():
        report.add(rel, "-", "(file)", "map file not found")
        return None
    if path.suffix.lower() == ".json":
        obj = read_json(path, report, rel)
        if obj is None:
            return None
        if isinstance(obj, dict) and set(obj) <= {"grid_size", "id", "name"} and "grid_size" in obj:
            gs = obj["grid_size"]
            if not (isinstance(gs, list) and len(gs) == 2 and all(isinstance(x, int) and x > 0 for x in gs)):
                report.add(rel, "-", "grid_size", f"expected [rows, cols], got {shown(gs)}")
                return None
            mid = safe_id(str(obj.get("id") or path.stem))
            return placeholder_map(
                mid, str(obj.get("name") or f"{mid} (placeholder: grid only, no landmarks or route)"), tuple(gs)
            )
        return parse(GridMap, obj, report, rel, "map")
    return read_ascii_map(path, report, rel, names_path=names)


def _folder_map(rows: list[Row], folder_maps: dict[str, GridMap], report: Report, label: str) -> GridMap | None:
    """A grid session's map: the folder's one ASCII map, when the session's cells fit it; None (reported) else."""
    fits = [
        gm
        for gm in folder_maps.values()
        if all(0 <= r < gm.grid_size[0] and 0 <= c < gm.grid_size[1] for row in rows for r, c in (row.filled or []))
    ]
    if len(folder_maps) == 1 and fits:
        return fits[0]
    if not folder_maps:
        report.add(
            rows[0].file,
            label,
            "metadata.filledCells",
            "the session draws on a grid map but the folder holds no ASCII map (*.txt); pass map_path=",
        )
    else:
        report.add(
            rows[0].file,
            label,
            "metadata.filledCells",
            f"cannot tell which ASCII map the session used ({', '.join(sorted(folder_maps)) or 'none fits its cells'}); pass map_path=",
        )
    return None


def _ink_grid(rows: list[Row], report: Report, ink: InkImages) -> tuple[int, int] | None:
    """The grid for the largest ink image of the session (from the PNG headers: nothing is decoded
    here); None when there is none, or at the first image that cannot be read (reported)."""
    best = None
    for r in rows:
        if not r.map_image:
            continue
        n_errors = len(report.errors)
        shape = ink_shape_of(r, ink, report)
        if len(report.errors) > n_errors:
            return None
        if shape is None:
            continue
        area = shape[0] * shape[1]
        if best is None or area > best[0]:
            best = (area, shape)
    if best is None:
        return None
    h, w = best[1]
    return grid_for_image(w, h)


def session_map(
    rows: list[Row],
    map_kind: str,
    option_map: GridMap | None,
    folder_maps: dict[str, GridMap],
    options: PlatformOptions,
    report: Report,
    label: str,
    ink: InkImages,
) -> GridMap | None:
    """The session's map; None (reported) when a grid session's ASCII map cannot be told."""
    if option_map is not None:
        if options.grid and tuple(option_map.grid_size) != tuple(options.grid):
            report.add(
                "(options)",
                label,
                "grid",
                f"grid {list(options.grid)} differs from the map file's {list(option_map.grid_size)}",
            )
            return None
        return option_map
    if map_kind == "grid":
        return _folder_map(rows, folder_maps, report, label)
    grid = cast(tuple[int, int], tuple(options.grid)) if options.grid else None
    if grid is None and map_kind == "image":
        n_errors = len(report.errors)
        grid = _ink_grid(rows, report, ink)
        if len(report.errors) > n_errors:
            return None
    if grid is None:
        grid = PLATFORM_GRID
    rows_n, cols_n = grid
    what = "image map not in the export" if map_kind == "image" else "map not in the export"
    return placeholder_map(
        f"canvas-{rows_n}x{cols_n}", f"{what} (placeholder: {rows_n}x{cols_n} grid, no landmarks or route)", grid
    )
