"""Safe extraction of an uploaded dataset archive (.zip).

Refused with a message, never a crash: archives over the size limits, zip bombs (a declared or
actual uncompressed size far beyond the limits, or an extreme compression ratio), members that
would land outside the target folder, too many members, files that are not zips at all, and
corrupt archives (a damaged directory, a member whose data does not decompress or fails its
checksum, an encrypted member, an unknown compression method), each named by its member.
Sizes are checked against the declared headers first and then counted while extracting, since
headers can lie. A failed extraction removes the folder it created.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from corpus.loading.validate import MAX_FILE_BYTES, DatasetError, Report

MAX_ARCHIVE_BYTES = 256 * 1024 * 1024  # the upload itself
MAX_UNCOMPRESSED_BYTES = 1024 * 1024 * 1024  # everything inside, extracted
MAX_MEMBERS = 50_000
MAX_RATIO = 200  # uncompressed / compressed, per member of any size worth compressing
_CHUNK = 1 << 20


class ArchiveError(DatasetError):
    """An archive refused before or while extracting; ``report`` holds its one error.

    A :class:`DatasetError`, so a caller that refuses bad datasets refuses bad archives too.
    """

    def __init__(self, name: str, message: str, member: str = "-"):
        report = Report()
        report.add(name, member, "(archive)", message)
        super().__init__(report, name)
        self.args = (f"{name}: {message}",)


def _corruption(exc: BaseException) -> str:
    """What a zipfile, zlib or file-system exception raised while extracting a member means."""
    if isinstance(exc, zlib.error):
        return f"corrupt member: its compressed data does not decompress ({exc})"
    if isinstance(exc, EOFError):
        return "corrupt member: its data ends before the end of its compressed stream"
    if isinstance(exc, NotImplementedError):
        return f"member uses a compression method this tool cannot read ({exc})"
    if isinstance(exc, RuntimeError):  # zipfile's "password required" for an encrypted member
        return "member is encrypted; give an archive without a password"
    if isinstance(exc, (FileExistsError, NotADirectoryError, IsADirectoryError)):
        return "cannot extract member: the archive holds a file and a folder of the same path"
    if isinstance(exc, OSError):
        return f"cannot extract member: {exc.strerror or exc}"
    return f"corrupt member: {exc}"  # zipfile.BadZipFile: bad checksum, header, or sizes


_MEMBER_FAILURES = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError, OSError)


def _dataset_root(folder: Path) -> Path:
    """The folder holding dataset.json: the archive root or its single top-level folder."""
    if (folder / "dataset.json").exists():
        return folder
    children = [p for p in folder.iterdir() if not p.name.startswith(("__MACOSX", "."))]
    if len(children) == 1 and children[0].is_dir():
        return children[0]
    return folder


def extract_to(archive: str | Path, dest: str | Path) -> Path:
    """Extract ``archive`` into the empty or new folder ``dest``; return the dataset root inside.

    Raises :class:`ArchiveError` naming the archive and the member at fault; a ``dest`` this call
    created is removed again.
    """
    archive, dest = Path(archive), Path(dest)
    created = not dest.exists()
    try:
        _extract(archive, dest)
    except BaseException:
        if created:
            shutil.rmtree(dest, ignore_errors=True)
        raise
    return _dataset_root(dest)


def _extract(archive: Path, dest: Path) -> None:
    name = archive.name
    size = archive.stat().st_size
    if size > MAX_ARCHIVE_BYTES:
        raise ArchiveError(
            name, f"archive is {size / 2**20:.1f} MiB; uploads over {MAX_ARCHIVE_BYTES / 2**20:.0f} MiB are refused"
        )
    if not zipfile.is_zipfile(archive):
        raise ArchiveError(name, "not a zip archive")
    dest.mkdir(parents=True, exist_ok=True)
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ArchiveError(name, f"corrupt zip archive: {exc}") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_MEMBERS:
            raise ArchiveError(name, f"archive has {len(infos)} members; more than {MAX_MEMBERS} are refused")
        declared = sum(i.file_size for i in infos)
        if declared > MAX_UNCOMPRESSED_BYTES:
            raise ArchiveError(
                name,
                f"archive would unpack to {declared / 2**20:.0f} MiB; more than {MAX_UNCOMPRESSED_BYTES / 2**20:.0f} MiB is refused (zip bomb?)",
            )
        total = 0
        for info in infos:
            _check_member(name, info)
            try:
                total = _extract_member(name, zf, info, dest, total)
            except _MEMBER_FAILURES as exc:
                raise ArchiveError(name, _corruption(exc), info.filename) from None


def _check_member(name: str, info: zipfile.ZipInfo) -> None:
    """Refuse a member by its header: a path leaving the folder, a declared size or ratio too large."""
    member = PurePosixPath(info.filename)
    if member.is_absolute() or ".." in member.parts or info.filename.startswith(("/", "\\")):
        raise ArchiveError(name, "member path leaves the archive folder", info.filename)
    if info.file_size > MAX_FILE_BYTES:
        raise ArchiveError(
            name,
            f"member is {info.file_size / 2**20:.1f} MiB; files over {MAX_FILE_BYTES / 2**20:.0f} MiB are refused",
            info.filename,
        )
    if info.compress_size and info.file_size > 1_000_000 and info.file_size / info.compress_size > MAX_RATIO:
        raise ArchiveError(
            name,
            f"compression ratio {info.file_size / info.compress_size:.0f}:1 is beyond {MAX_RATIO}:1 (zip bomb?)",
            info.filename,
        )


def _extract_member(name: str, zf: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path, total: int) -> int:
    """Write one member under ``dest``, counting the bytes actually produced; the new running total."""
    target = dest.joinpath(*PurePosixPath(info.filename).parts)
    if info.is_dir():
        target.mkdir(parents=True, exist_ok=True)
        return total
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with zf.open(info) as src, open(target, "wb") as out:
        while chunk := src.read(_CHUNK):
            written += len(chunk)
            total += len(chunk)
            if written > MAX_FILE_BYTES or total > MAX_UNCOMPRESSED_BYTES:
                raise ArchiveError(
                    name, "member unpacks beyond its declared size or the limits (zip bomb?)", info.filename
                )
            out.write(chunk)
    return total


@contextlib.contextmanager
def extracted(archive: str | Path) -> Iterator[Path]:
    """Extract to a temporary folder that is removed afterwards."""
    tmp = Path(tempfile.mkdtemp(prefix="groundwork-zip-"))
    try:
        yield extract_to(archive, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
