"""Write a dataset directory in the format :mod:`corpus.loading.validate` reads.

Used by the sample-corpus generator and the importers. The directory is written next to its
destination and moved into place only when complete, so a failed write leaves nothing behind.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from corpus import schema
from corpus.model import DatasetInfo, GridMap, ReferenceExpression, Session, SessionMeta

LABEL_FIELDS = ["session_id", "action_index", "coder", "coder_kind", "code", "partition"]


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def map_json(gm: GridMap) -> dict[str, Any]:
    return gm.model_dump(mode="json", exclude_none=True)


def action_json(a) -> dict[str, Any]:
    d = a.model_dump(mode="json", exclude_none=True)
    mm = d.get("mental_model")
    if mm is not None:
        # Keep files compact and readable: drop empty optional parts.
        if not mm.get("misalignment_reasons"):
            mm.pop("misalignment_reasons", None)
    return d


@contextmanager
def folder_in_place(dest: Path, overwrite: bool = False) -> Iterator[Path]:
    """A new folder next to ``dest`` to write into: moved into place (replacing ``dest`` when
    ``overwrite``) once the block ends without error, removed otherwise."""
    if dest.exists() and not overwrite:
        raise FileExistsError(f"{dest} exists; pass overwrite=True to replace it")
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
    try:
        yield tmp
        if dest.exists():
            shutil.rmtree(dest)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


class DatasetWriter:
    """Writes the parts of a dataset folder as they come: one session at a time, label and
    prediction rows as they are made. Only what is being written is held in memory, so a corpus
    of a million actions is written as easily as the sample. :func:`write_dataset` writes one
    from collections in memory."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def info(self, info: DatasetInfo) -> None:
        (self.root / "dataset.json").write_text(
            # A Map Task dataset (the default domain) does not name its domain: files stay as before.
            json.dumps(
                info.model_dump(mode="json", exclude_none=True, exclude={"domain"}), indent=2, ensure_ascii=False
            )
            + "\n",
            encoding="utf-8",
        )

    def maps(self, maps: Iterable[GridMap]) -> None:
        (self.root / "maps").mkdir(exist_ok=True)
        for gm in maps:
            (self.root / "maps" / f"{gm.id}.json").write_text(
                json.dumps(map_json(gm), ensure_ascii=False) + "\n", encoding="utf-8"
            )

    def session(self, s: Session) -> None:
        d = self.root / "sessions" / s.id
        d.mkdir(parents=True)
        meta = {k: getattr(s, k) for k in SessionMeta.model_fields}
        meta_json = SessionMeta.model_construct(**meta).model_dump(mode="json", exclude_none=True)
        (d / "session.json").write_text(json.dumps(meta_json, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        with open(d / "actions.jsonl", "w", encoding="utf-8") as f:
            for a in s.actions:
                f.write(_dump(action_json(a)) + "\n")

    def labels(self, rows: Iterable[dict[str, Any]]) -> None:
        """Coded labels, one CSV per scheme (a row without a scheme is a grounding-act label)."""
        by_scheme: dict[str, list[dict[str, Any]]] = {}
        for r in rows:
            by_scheme.setdefault(r.get("scheme", schema.GROUNDING_ACTS_SCHEME), []).append(r)
        for scheme_id, scheme_rows in by_scheme.items():
            (self.root / "labels").mkdir(exist_ok=True)
            with open(self.root / "labels" / f"{scheme_id}.csv", "w", encoding="utf-8", newline="") as f:
                w = csv.DictWriter(f, fieldnames=LABEL_FIELDS)
                w.writeheader()
                for r in scheme_rows:
                    w.writerow(
                        {**{k: r.get(k, "") for k in LABEL_FIELDS}, "coder_kind": r.get("coder_kind") or "human"}
                    )

    def expressions(self, rows: Iterable[dict[str, Any]]) -> None:
        """The landmark reference expressions behind the ``gmmt`` labels (fields of
        :class:`corpus.model.ReferenceExpression`), in ``labels/gmmt_expressions.jsonl``."""
        details = [ReferenceExpression.model_validate(e).model_dump(mode="json", exclude_none=True) for e in rows]
        if details:
            (self.root / "labels").mkdir(exist_ok=True)
            with open(self.root / "labels" / "gmmt_expressions.jsonl", "w", encoding="utf-8") as f:
                for row in details:
                    f.write(_dump(row) + "\n")

    @contextmanager
    def predictions(self, model_id: str, info: dict[str, Any]) -> Iterator[Callable[[str, dict[str, Any]], None]]:
        """A model's folder (``model.json`` from ``info``); the block gets ``emit(task, row)``, which
        appends a row to the task's file (a file is made by its first row: a task without rows has
        none)."""
        d = self.root / "predictions" / model_id
        d.mkdir(parents=True)
        (d / "model.json").write_text(json.dumps(info, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        files: dict[str, TextIO] = {}

        def emit(task: str, row: dict[str, Any]) -> None:
            if task not in files:
                files[task] = open(d / f"{task}.jsonl", "w", encoding="utf-8")  # noqa: SIM115  (closed below)
            files[task].write(_dump(row) + "\n")

        try:
            yield emit
        finally:
            for f in files.values():
                f.close()


def write_dataset(
    dest: str | Path,
    info: DatasetInfo,
    maps: Iterable[GridMap],
    sessions: Iterable[Session],
    labels: Iterable[dict[str, Any]] = (),
    predictions: dict[str, dict[str, Any]] | None = None,
    overwrite: bool = False,
    expressions: Iterable[dict[str, Any]] = (),
) -> Path:
    """Write the dataset to ``dest`` (a new folder; ``overwrite`` replaces an existing one).

    ``predictions``: model id -> {"info": model.json's content, task: rows, ...};
    ``expressions``: see :meth:`DatasetWriter.expressions`."""
    dest = Path(dest)
    with folder_in_place(dest, overwrite) as tmp:
        w = DatasetWriter(tmp)
        w.info(info)
        w.maps(maps)
        (tmp / "sessions").mkdir()
        for s in sessions:
            w.session(s)
        w.labels(labels)
        w.expressions(expressions)
        for model_id, entry in (predictions or {}).items():
            with w.predictions(model_id, entry["info"]) as emit:
                for task in schema.PREDICTION_TASKS:
                    for row in entry.get(task) or ():
                        emit(task, row)
    return dest
