"""Map files: the Appendix D JSON a map is exported as and read from, and the editor's drafts.

- :func:`map_text` / :func:`read_map`: the map JSON of docs/data-format.md (``grid_size``,
  ``start_cell``, ``finish_cell``, ``landmarks`` with ``cells``, ``type`` and ``summary``, ``route``,
  ``follower_landmarks``), written by :func:`corpus.loading.write.map_json` and read back through the
  dataset's own validation: ``read_map(map_text(m)) == m``.
- :func:`save_draft` / :func:`open_draft` / :func:`list_drafts` / :func:`delete_draft`: work in
  progress, which may still have problems, kept as ``<name>.json`` (the draft, same field names as a
  map, no checks) and ``<name>.image`` (the background image's bytes) in the saver's own folder of
  the drafts folder: a draft is replaced only by its own author saving under the same name, and
  each account keeps at most :data:`corpus.limits.DRAFTS_PER_ACCOUNT` drafts and
  :data:`corpus.limits.DRAFT_BYTES_PER_ACCOUNT` bytes. Everyone may open every draft.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corpus.importers.asciimap import parse_ascii_map, safe_id
from corpus.limits import DRAFT_BYTES_PER_ACCOUNT, DRAFTS_PER_ACCOUNT
from corpus.loading.jsonsafe import JsonError, loads
from corpus.loading.reading import json_issue
from corpus.loading.report import describe
from corpus.loading.validate import DatasetError, Report, parse
from corpus.loading.write import map_json
from corpus.mapedit.checks import check, errors, fmt_cells
from corpus.mapedit.draft import Draft, EditError, LandmarkDraft, to_gridmap
from corpus.mapedit.image import MapImage, read_map_image
from corpus.model import GridMap

DRAFT_FORMAT = "groundwork-map-draft"
MAX_MAP_BYTES = 64 * 1024 * 1024
_MAP_FIELDS = ("grid_size", "start_cell", "landmarks")


# -- the map JSON -------------------------------------------------------------------------------


def map_text(gm: GridMap) -> str:
    return json.dumps(map_json(gm), indent=1, ensure_ascii=False) + "\n"


def export_text(draft: Draft) -> str:
    """The draft as map JSON; raises :class:`EditError` listing the errors that prevent it."""
    problems = errors(check(draft))
    if problems:
        listed = "; ".join(f"{p.message}" + (f" (cells {fmt_cells(p.cells, 4)})" if p.cells else "") for p in problems)
        raise EditError(f"the map has {len(problems)} problem(s) to fix first: {listed}")
    return map_text(to_gridmap(draft))


def read_map(data: str | bytes, file: str = "map.json") -> GridMap:
    """A map from JSON text, or from an ASCII grid map (a ``.txt`` file: ``#`` landmark, ``.`` route,
    ``S`` start, ``F`` finish, as the platform writes it; any size); raises :class:`DatasetError`
    whose report names file, record and field."""
    report = Report()
    _refuse_oversize(data, file, report)
    if Path(file).suffix.lower() == ".txt":
        return _read_ascii(data, file, report)
    try:
        obj = loads(data)
    except JsonError as exc:
        json_issue(report, file, exc)
        raise DatasetError(report, file) from None
    except UnicodeDecodeError as exc:
        report.add(file, "-", "(encoding)", f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        raise DatasetError(report, file) from None
    if not isinstance(obj, dict) or not any(k in obj for k in _MAP_FIELDS):
        got = f"an object with {', '.join(list(obj)[:6]) or 'no fields'}" if isinstance(obj, dict) else describe(obj)
        report.add(
            file,
            "-",
            "(file)",
            f"not a map: expected an object with grid_size, start_cell, landmarks and route "
            f"(docs/data-format.md), got {got}",
        )
        raise DatasetError(report, file)
    obj.setdefault("id", safe_id(Path(file).stem))
    gm = parse(GridMap, obj, report, file, f"map {obj.get('id')}")
    if gm is None:
        raise DatasetError(report, file)
    return gm


def _refuse_oversize(data: str | bytes, file: str, report: Report) -> None:
    if len(data) > MAX_MAP_BYTES:
        report.add(
            file,
            "-",
            "(file)",
            f"file is {len(data) / 2**20:.1f} MiB; map files over {MAX_MAP_BYTES // 2**20} MiB are refused",
        )
        raise DatasetError(report, file)


def _read_ascii(data: str | bytes, file: str, report: Report) -> GridMap:
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as exc:
        report.add(file, "-", "(encoding)", f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        raise DatasetError(report, file) from None
    stem = Path(file).stem
    gm = parse_ascii_map(text, safe_id(stem), report, file, name=stem)
    if gm is None or not report.ok:
        raise DatasetError(report, file)
    return gm


def read_map_file(path: str | Path) -> GridMap:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        report = Report()
        report.add(str(path), "-", "(file)", f"cannot read: {exc.strerror}")
        raise DatasetError(report, str(path)) from None
    return read_map(data, str(path))


# -- drafts -------------------------------------------------------------------------------------


def draft_json(draft: Draft) -> dict[str, Any]:
    """Everything a draft holds, with a map's field names (no summaries, no checks)."""

    def lms(landmarks):
        return {n: {"cells": [list(c) for c in lm.cells], "type": lm.type} for n, lm in landmarks}

    out: dict[str, Any] = {
        "id": draft.map_id,
        "name": draft.name,
        "grid_size": list(draft.grid_size),
        "start_cell": list(draft.start) if draft.start else None,
        "finish_cell": list(draft.finish) if draft.finish else None,
        "landmarks": lms(draft.landmarks),
        "route": [list(c) for c in draft.route],
    }
    if draft.follower is not None:
        out["follower_landmarks"] = lms(draft.follower)
    return out


def _cell(value: Any, where: str) -> tuple[int, int]:
    if (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return int(value[0]), int(value[1])
    raise EditError(f"{where}: expected a [row, col] cell, got {value!r}")


def draft_from_json(obj: Any, image: str | None = None) -> Draft:
    """The inverse of :func:`draft_json`; raises :class:`EditError` naming the field."""
    if not isinstance(obj, dict):
        raise EditError(f"draft: expected an object, got {describe(obj)}")

    def lms(key: str):
        raw = obj.get(key)
        if not isinstance(raw, dict):
            raise EditError(f"{key}: expected an object of landmarks")
        out = []
        for name, lm in raw.items():
            if (
                not isinstance(lm, dict)
                or not isinstance(lm.get("cells"), list)
                or not isinstance(lm.get("type", "blocked"), str)
            ):
                raise EditError(f"{key}.{name}: expected {{cells: [[row, col], ...], type}}")
            cells = tuple(_cell(c, f"{key}.{name}.cells[{i}]") for i, c in enumerate(lm["cells"]))
            out.append((str(name), LandmarkDraft(cells=cells, type=lm.get("type", "blocked"))))
        return tuple(out)

    grid = _cell(obj.get("grid_size"), "grid_size")
    if not (1 <= grid[0] <= 1000 and 1 <= grid[1] <= 1000):
        raise EditError(f"grid_size: {list(grid)} must be between 1 and 1000 in each direction")
    route = obj.get("route") or []
    if not isinstance(route, list):
        raise EditError("route: expected a list of [row, col] cells")
    return Draft(
        map_id=str(obj.get("id") or "map"),
        name=str(obj.get("name") or ""),
        grid_size=grid,
        landmarks=lms("landmarks"),
        route=tuple(_cell(c, f"route[{i}]") for i, c in enumerate(route)),
        start=None if obj.get("start_cell") is None else _cell(obj["start_cell"], "start_cell"),
        finish=None if obj.get("finish_cell") is None else _cell(obj["finish_cell"], "finish_cell"),
        follower=lms("follower_landmarks") if obj.get("follower_landmarks") is not None else None,
        image=image,
    )


@dataclass(frozen=True)
class DraftInfo:
    name: str
    path: Path
    saved_by: str
    saved_at: str
    map_id: str
    grid_size: tuple[int, int]


def _write_atomic(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def owner_folder(folder: str | Path, owner: str) -> Path:
    """Where ``owner``'s drafts are kept in the drafts ``folder`` (its name readable, and unique even
    where two names read the same once made safe for a file name)."""
    digest = hashlib.sha256(owner.encode("utf-8")).hexdigest()[:10]
    return Path(folder) / f"{safe_id(owner or 'anyone')[:40]}-{digest}"


def _size(stem_path: Path) -> int:
    return sum(
        p.stat().st_size for p in (stem_path.with_suffix(".json"), stem_path.with_suffix(".image")) if p.is_file()
    )


def save_draft(folder: str | Path, name: str, draft: Draft, image: MapImage | None = None, saved_by: str = "") -> Path:
    """Write ``<name>.json`` (and ``<name>.image``) into ``saved_by``'s folder of ``folder``; their own
    draft of that name is replaced. Raises :class:`EditError` past the account's quota."""
    stem = safe_id(name)
    folder = owner_folder(folder, saved_by)
    folder.mkdir(parents=True, exist_ok=True)
    kept = {p.with_suffix("") for p in folder.glob("*.json")} - {folder / stem}
    if len(kept) >= DRAFTS_PER_ACCOUNT:
        raise EditError(f"not saved: you keep {len(kept)} drafts, the most one account may keep; delete one first")
    used = sum(_size(p) for p in kept)
    adding = len(image.data) if image is not None else 0
    if used + adding > DRAFT_BYTES_PER_ACCOUNT:
        raise EditError(
            f"not saved: your drafts take {used / 2**20:.1f} MiB and this one {adding / 2**20:.1f} MiB more; "
            f"one account keeps at most {DRAFT_BYTES_PER_ACCOUNT // 2**20} MiB of drafts; delete one first"
        )
    doc = {
        "format": DRAFT_FORMAT,
        "version": 1,
        "name": name.strip() or stem,
        "saved_by": saved_by,
        "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "draft": draft_json(draft),
        "image": None if image is None else {"name": image.name, "digest": image.digest},
    }
    if image is not None:
        _write_atomic(folder / f"{stem}.image", image.data)
    else:
        (folder / f"{stem}.image").unlink(missing_ok=True)
    path = folder / f"{stem}.json"
    _write_atomic(path, (json.dumps(doc, ensure_ascii=False) + "\n").encode("utf-8"))
    return path


def open_draft(path: str | Path) -> tuple[Draft, MapImage | None]:
    """A saved draft and its image; raises :class:`EditError` saying what is wrong with the file."""
    path = Path(path)
    try:
        doc = loads(path.read_bytes())
    except (OSError, JsonError, UnicodeDecodeError) as exc:
        raise EditError(f"{path.name}: {exc}") from None
    if not isinstance(doc, dict) or doc.get("format") != DRAFT_FORMAT:
        raise EditError(f"{path.name}: not a map editor draft (format is not '{DRAFT_FORMAT}')")
    image = None
    meta = doc.get("image")
    if isinstance(meta, dict):
        image_path = path.with_suffix(".image")
        try:
            image = read_map_image(image_path.read_bytes(), str(meta.get("name") or image_path.name))
        except OSError as exc:
            raise EditError(f"{path.name}: its image {image_path.name} cannot be read: {exc.strerror}") from None
    try:
        draft = draft_from_json(doc.get("draft"), image.digest if image else None)
    except EditError as exc:
        raise EditError(f"{path.name}: {exc}") from None
    return draft, image


def delete_draft(path: str | Path) -> None:
    """Remove a draft and its image."""
    path = Path(path)
    path.with_suffix(".image").unlink(missing_ok=True)
    path.unlink(missing_ok=True)


def list_drafts(folder: str | Path) -> list[DraftInfo]:
    """The drafts of every account in ``folder`` (and any kept there before drafts had owners), newest
    first (unreadable files are left out)."""
    out = []
    for path in [*Path(folder).glob("*.json"), *Path(folder).glob("*/*.json")]:
        try:
            doc = loads(path.read_bytes())
            d = doc["draft"]
            out.append(
                DraftInfo(
                    str(doc.get("name") or path.stem),
                    path,
                    str(doc.get("saved_by") or ""),
                    str(doc.get("saved_at") or ""),
                    str(d.get("id")),
                    tuple(d.get("grid_size")),
                )
            )
        except (OSError, JsonError, UnicodeDecodeError, KeyError, TypeError, AttributeError):
            continue
    return sorted(out, key=lambda i: i.saved_at, reverse=True)
