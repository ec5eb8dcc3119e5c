"""Safe extraction of an uploaded dataset archive (.zip).

Refused with a message, never a crash: archives over the size limits, zip bombs (a declared or
actual uncompressed size far beyond the limits, or an extreme compression ratio), members that
would land outside the target folder, too many members, and files that are not zips at all.
Sizes are checked against the declared headers first and then counted while extracting, since
headers can lie.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Iterator

from corpus.validate import MAX_FILE_BYTES, Report

MAX_ARCHIVE_BYTES = 256 * 1024 * 1024  # the upload itself
MAX_UNCOMPRESSED_BYTES = 1024 * 1024 * 1024  # everything inside, extracted
MAX_MEMBERS = 50_000
MAX_RATIO = 200  # uncompressed / compressed, per member of any size worth compressing
_CHUNK = 1 << 20


class ArchiveError(Exception):
    def __init__(self, name: str, message: str, member: str = "-"):
        self.report = Report()
        self.report.add(name, member, "(archive)", message)
        super().__init__(f"{name}: {message}")


def _dataset_root(folder: Path) -> Path:
    """The folder holding dataset.json: the archive root or its single top-level folder."""
    if (folder / "dataset.json").exists():
        return folder
    children = [p for p in folder.iterdir() if not p.name.startswith(("__MACOSX", "."))]
    if len(children) == 1 and children[0].is_dir():
        return children[0]
    return folder


def extract_to(archive: str | Path, dest: str | Path) -> Path:
    """Extract ``archive`` into the empty or new folder ``dest``; return the dataset root inside."""
    archive, dest = Path(archive), Path(dest)
    name = archive.name
    size = archive.stat().st_size
    if size > MAX_ARCHIVE_BYTES:
        raise ArchiveError(name, f"archive is {size / 2**20:.1f} MiB; uploads over {MAX_ARCHIVE_BYTES / 2**20:.0f} MiB are refused")
    if not zipfile.is_zipfile(archive):
        raise ArchiveError(name, "not a zip archive")
    dest.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ArchiveError(name, f"archive has {len(infos)} members; more than {MAX_MEMBERS} are refused")
        declared = sum(i.file_size for i in infos)
        if declared > MAX_UNCOMPRESSED_BYTES:
            raise ArchiveError(
                name, f"archive would unpack to {declared / 2**20:.0f} MiB; more than {MAX_UNCOMPRESSED_BYTES / 2**20:.0f} MiB is refused (zip bomb?)"
            )
        total = 0
        for info in infos:
            member = PurePosixPath(info.filename)
            if member.is_absolute() or ".." in member.parts or info.filename.startswith(("/", "\\")):
                raise ArchiveError(name, "member path leaves the archive folder", info.filename)
            if info.file_size > MAX_FILE_BYTES:
                raise ArchiveError(
                    name, f"member is {info.file_size / 2**20:.1f} MiB; files over {MAX_FILE_BYTES / 2**20:.0f} MiB are refused", info.filename
                )
            if info.compress_size and info.file_size > 1_000_000 and info.file_size / info.compress_size > MAX_RATIO:
                raise ArchiveError(
                    name, f"compression ratio {info.file_size / info.compress_size:.0f}:1 is beyond {MAX_RATIO}:1 (zip bomb?)", info.filename
                )
            target = dest.joinpath(*member.parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            written = 0
            with zf.open(info) as src, open(target, "wb") as out:
                while chunk := src.read(_CHUNK):
                    written += len(chunk)
                    total += len(chunk)
                    if written > MAX_FILE_BYTES or total > MAX_UNCOMPRESSED_BYTES:
                        raise ArchiveError(name, "member unpacks beyond its declared size or the limits (zip bomb?)", info.filename)
                    out.write(chunk)
    return _dataset_root(dest)


@contextlib.contextmanager
def extracted(archive: str | Path) -> Iterator[Path]:
    """Extract to a temporary folder that is removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="groundwork-zip-"))
    try:
        yield extract_to(archive, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
