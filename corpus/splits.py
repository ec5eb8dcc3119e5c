"""A copy of a dataset with another train/test split.

:func:`write_with_splits` copies a dataset (a directory or a ``.zip`` of one) to a new directory
and rewrites the ``split`` field of the sessions named in the assignment; every other file is
copied byte for byte. The copy is validated before it is moved into place, so a failed write
leaves nothing behind.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from corpus import schema
from corpus.loading.validate import DatasetError, read_dataset
from corpus.loading.write import folder_in_place


def _copy_source(src: Path, tmp: Path) -> None:
    if src.suffix.lower() == ".zip" and src.is_file():
        from corpus.server.archive import extracted

        with extracted(src) as root:
            shutil.copytree(root, tmp, dirs_exist_ok=True)
    else:
        shutil.copytree(src, tmp, dirs_exist_ok=True)


def write_with_splits(src: str | Path, dest: str | Path, splits: dict[str, str], overwrite: bool = False) -> Path:
    """Copy the dataset at ``src`` to ``dest`` with ``splits`` (session_id -> "train"/"test")."""
    src, dest = Path(src), Path(dest)
    bad = {s: v for s, v in splits.items() if v not in schema.SPLITS}
    if bad:
        raise ValueError(f"unknown split(s) {bad} (expected {', '.join(schema.SPLITS)})")
    if dest.resolve() == src.resolve():
        raise ValueError("the copy must go to another place than the dataset itself")
    with folder_in_place(dest, overwrite) as tmp:
        _copy_source(src, tmp)
        for sid, split in splits.items():
            path = tmp / "sessions" / sid / "session.json"
            if not path.is_file():
                raise KeyError(f"no session '{sid}' in {src}")
            meta = json.loads(path.read_text(encoding="utf-8"))
            meta["split"] = split
            path.write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        _, report = read_dataset(tmp)
        if not report.ok:
            raise DatasetError(report, str(dest))
    return dest
