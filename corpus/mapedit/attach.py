"""Give sessions of a dataset a map: the Guide's map, and the Follower's when it is a separate file.

The sessions' ``map_id`` points to the new map, and the whole dataset is written again with
:func:`corpus.loading.write.write_dataset` into a staging folder next to it, read back with the same
validation the app uses, and only then put in place of the old folder (files the writer does not
produce, e.g. a README, are carried over). Any problem (an unknown session, a session drawn on
another grid, a map id already used by other sessions for another map) raises
:class:`corpus.loading.validate.DatasetError` listing every problem, and nothing is written.

The dataset's content hash changes with it: coding tasks name their dataset by that hash, so the
caller moves them to the new one (:meth:`corpus.store.Store.move_dataset`), gold and all.

The Follower's drawing was recorded as cells of the grid of the session's current map, so the new
map must have the same grid; the importer's placeholder for an image map is ``canvas-<rows>x<cols>``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from corpus.loading.dataset import load_dir
from corpus.loading.validate import WARNING, DatasetError, Report, read_dataset
from corpus.loading.write import map_json, write_dataset
from corpus.metrics import DrawingScores
from corpus.model import GridMap


@dataclass
class AttachResult:
    dest: Path
    map_id: str
    previous: dict[str, str]  # session -> the map it had
    scores: dict[str, DrawingScores]  # session -> accuracy, coverage, distance-weighted after
    warnings: list = field(default_factory=list)
    old_hash: str = ""  # the dataset's content hash before (coding tasks name their dataset by it)
    content_hash: str = ""  # and after


def combine(guide: GridMap, follower: GridMap | None, report: Report, file: str = "follower map") -> GridMap | None:
    """The Guide's map with the Follower's landmarks taken from ``follower`` (same grid)."""
    if follower is None:
        return guide
    if tuple(follower.grid_size) != tuple(guide.grid_size):
        report.add(
            file,
            f"map {follower.id}",
            "grid_size",
            f"the Follower's map is {follower.grid_size[0]} x {follower.grid_size[1]}, the Guide's "
            f"{guide.grid_size[0]} x {guide.grid_size[1]}: both maps need the same grid",
        )
        return None
    return GridMap.model_validate({**map_json(guide), "follower_landmarks": map_json(follower)["landmarks"]})


def parse_sessions(text: str | Iterable[str]) -> list[str]:
    """``"S1,S2"`` (or a list) as session ids, each once, in order."""
    parts = text.split(",") if isinstance(text, str) else list(text)
    return list(dict.fromkeys(p.strip() for p in parts if p and p.strip()))


def attach_maps(
    dataset: str | Path,
    guide: GridMap,
    sessions: str | Iterable[str],
    follower: GridMap | None = None,
    dest: str | Path | None = None,
) -> AttachResult:
    """Point ``sessions`` of the dataset directory ``dataset`` to ``guide`` (with ``follower``'s landmarks).

    The result is written to ``dest`` (default: the dataset itself). Raises :class:`DatasetError`.
    """
    dataset = Path(dataset)
    dest = Path(dest) if dest is not None else dataset
    report = Report()
    if not dataset.is_dir():
        report.add(str(dataset), "-", "(path)", "not a dataset directory (extract a .zip first)")
        raise DatasetError(report, str(dataset))
    corpus = load_dir(dataset)
    gm = combine(guide, follower, report)
    ids = parse_sessions(sessions)
    if not ids:
        report.add("(options)", "-", "sessions", "no session given")
    rows, cols = guide.grid_size
    for sid in ids:
        s = corpus.meta(sid) if sid in corpus.sessions else None
        if s is None:
            known = ", ".join(sorted(corpus.sessions)[:10])
            report.add(
                "(options)",
                f"session {sid}",
                "sessions",
                f"no session '{sid}' in the dataset (it has {known}{', ...' if len(corpus.sessions) > 10 else ''})",
            )
            continue
        current = corpus.maps[s.map_id]
        if tuple(current.grid_size) != (rows, cols):
            report.add(
                f"sessions/{sid}/session.json",
                f"session {sid}",
                "map_id",
                f"the session was drawn on the {current.grid_size[0]} x {current.grid_size[1]} grid of map "
                f"'{current.id}'; the map to attach is {rows} x {cols}: draw it on the session's grid",
            )
    existing = corpus.maps.get(guide.id)
    if gm is not None and existing is not None and existing != gm:
        others = sorted(sid for sid in corpus.sessions if corpus.meta(sid).map_id == guide.id and sid not in ids)
        if others:
            report.add(
                f"maps/{guide.id}.json",
                f"map {guide.id}",
                "id",
                f"the dataset has another map '{guide.id}', used by {', '.join(others[:10])}: give the new map another id",
            )
    if not report.ok or gm is None:
        raise DatasetError(report, str(dataset))

    maps = {**corpus.maps, gm.id: gm}
    previous = {sid: corpus.meta(sid).map_id for sid in ids}
    sessions_out = [s.model_copy(update={"map_id": gm.id}) if s.id in previous else s for s in corpus.sessions.values()]
    written = _rewrite(dataset, dest, corpus, list(maps.values()), sessions_out)
    after = load_dir(dest)
    return AttachResult(
        dest=dest,
        map_id=gm.id,
        previous=previous,
        scores={sid: after.scores(sid) for sid in ids},
        warnings=written.warnings,
        old_hash=corpus.content_hash,
        content_hash=after.content_hash,
    )


def _rewrite(src: Path, dest: Path, corpus, maps: list[GridMap], sessions) -> Report:
    """Write the dataset into a staging folder, validate it, carry other files over, swap it in."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-maps-", dir=dest.parent))
    try:
        # Prediction runs (predictions/) are carried over as files below, as they were.
        staged = write_dataset(
            staging / "dataset",
            corpus.info,
            maps,
            sessions,
            labels=corpus.labels.drop(columns="item_id").to_dict("records"),
        )
        for path in sorted(p for p in src.rglob("*") if p.is_file()):
            target = staged / path.relative_to(src)
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)
        _, report = read_dataset(staged)
        if not report.ok:
            failed = Report()
            for i in report.errors:
                failed.add(i.file, i.record, i.field, f"the rewritten dataset would not load: {i.message}")
            raise DatasetError(failed, str(src))
        old = dest.with_name(f".{dest.name}-old-{uuid.uuid4().hex[:8]}") if dest.exists() else None
        if old is not None:
            os.replace(dest, old)
        try:
            os.replace(staged, dest)
        except BaseException:
            if old is not None:
                os.replace(old, dest)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return Report([i for i in report.issues if i.severity == WARNING])
    finally:
        shutil.rmtree(staging, ignore_errors=True)
