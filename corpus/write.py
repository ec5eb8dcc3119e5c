"""Write a dataset directory in the format :mod:`corpus.validate` reads.

Used by the sample-corpus generator and the importers. The directory is written next to its
destination and moved into place only when complete, so a failed write leaves nothing behind.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from corpus.model import DatasetInfo, GridMap, ReferenceExpression, Session, SessionMeta


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

    ``expressions``: the landmark reference expressions behind the ``gmmt`` labels (fields of
    :class:`corpus.model.ReferenceExpression`), written to ``labels/gmmt_expressions.jsonl``."""
    dest = Path(dest)
    with folder_in_place(dest, overwrite) as tmp:
        (tmp / "dataset.json").write_text(
            # A Map Task dataset (the default domain) does not name its domain: files stay as before.
            json.dumps(
                info.model_dump(mode="json", exclude_none=True, exclude={"domain"}), indent=2, ensure_ascii=False
            )
            + "\n",
            encoding="utf-8",
        )
        (tmp / "maps").mkdir()
        for gm in maps:
            (tmp / "maps" / f"{gm.id}.json").write_text(
                json.dumps(map_json(gm), ensure_ascii=False) + "\n", encoding="utf-8"
            )
        (tmp / "sessions").mkdir()
        for s in sessions:
            d = tmp / "sessions" / s.id
            d.mkdir()
            meta = {k: getattr(s, k) for k in SessionMeta.model_fields}
            meta_json = SessionMeta.model_construct(**meta).model_dump(mode="json", exclude_none=True)
            (d / "session.json").write_text(
                json.dumps(meta_json, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            with open(d / "actions.jsonl", "w", encoding="utf-8") as f:
                for a in s.actions:
                    f.write(_dump(action_json(a)) + "\n")
        by_scheme: dict[str, list[dict[str, Any]]] = {}
        for r in labels:
            by_scheme.setdefault(r.get("scheme", "grounding_acts"), []).append(r)
        for scheme_id, rows in by_scheme.items():
            (tmp / "labels").mkdir(exist_ok=True)
            with open(tmp / "labels" / f"{scheme_id}.csv", "w", encoding="utf-8", newline="") as f:
                w = csv.DictWriter(
                    f, fieldnames=["session_id", "action_index", "coder", "coder_kind", "code", "partition"]
                )
                w.writeheader()
                for r in rows:
                    w.writerow(
                        {**{k: r.get(k, "") for k in w.fieldnames}, "coder_kind": r.get("coder_kind") or "human"}
                    )
        details = [
            ReferenceExpression.model_validate(e).model_dump(mode="json", exclude_none=True) for e in expressions
        ]
        if details:
            (tmp / "labels").mkdir(exist_ok=True)
            with open(tmp / "labels" / "gmmt_expressions.jsonl", "w", encoding="utf-8") as f:
                for row in details:
                    f.write(_dump(row) + "\n")
        for model_id, entry in (predictions or {}).items():
            d = tmp / "predictions" / model_id
            d.mkdir(parents=True)
            (d / "model.json").write_text(
                json.dumps(entry["info"], indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
            )
            for task in ("next_action", "mental_model"):
                if entry.get(task):
                    with open(d / f"{task}.jsonl", "w", encoding="utf-8") as f:
                        for row in entry[task]:
                            f.write(_dump(row) + "\n")
    return dest
