"""Uploaded datasets on the server: accepted within quotas, kept once, reclaimable.

An upload (a ``.zip`` of a Groundwork dataset, or raw data for one of the importers) goes through
:meth:`Uploads.add`:

1. Identical uploads are stored once: the same bytes in the same format, or an archive that unpacks
   to the same dataset (its content hash), return the upload already kept.
2. The archive's directory is read before anything is extracted: its member count and the sizes its
   members declare must fit the per-upload quota, what is left of the total quota, and (for
   uploaders other than a lead) what is left of their session's quota. Every refusal states the
   quota. (Members cannot unpack beyond their declared size: the zip reader stops there.)
3. The archive is extracted (:func:`corpus.server.archive.extract_to`: paths, sizes, ratios), validated, or
   converted by its importer, in a private folder under ``staging/``, and only a complete, valid
   dataset is moved into ``datasets/``, with a small record in ``uploads/``. Whatever happens, the
   private staging folder is removed: a refused archive or a failed extraction leaves nothing.

:meth:`Uploads.reclaim` deletes kept uploads (by digest, or those older than some days) and anything
a crashed server may have left in ``staging/`` or ``uploads/``; ``python -m corpus uploads
list|reclaim`` and the Tasks page offer it.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import shutil
import tempfile
import time
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path, PurePosixPath
from typing import Any

from corpus.design import DesignFile
from corpus.loading.validate import DatasetError, Report, read_dataset
from corpus.server.archive import ArchiveError, extract_to

RECORD_SUFFIX = ".json"


def mib(n: int) -> str:
    """A byte count as people read it: 512 MiB, 1.5 GiB, 300 KiB."""
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.0f} {unit}" if value >= 10 or value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


class UploadRefused(DatasetError):
    """An upload refused before extraction (quota, not a zip): one issue naming the upload."""

    def __init__(self, name: str, message: str, member: str = "-"):
        report = Report()
        report.add(name, member, "(upload)", message)
        super().__init__(report, name)


@dataclass(frozen=True)
class Quota:
    """How much an upload may unpack to: per upload, for all kept uploads together, and what is left
    of the uploader's session allowance (None: no session limit, as for a lead)."""

    upload_bytes: int
    upload_members: int
    total_bytes: int
    total_members: int
    session_bytes_left: int | None = None

    @classmethod
    def from_settings(cls, settings, session_bytes_left: int | None = None) -> Quota:  # noqa: ANN001
        return cls(
            int(settings.upload_max_bytes),
            int(settings.upload_max_members),
            int(settings.uploads_total_bytes),
            int(settings.uploads_total_members),
            session_bytes_left,
        )


@dataclass(frozen=True)
class ImportChoices:
    """What the uploader sets for an importer, as the command line's options do: the sessions'
    condition and split (None: as the source records them), a design table giving each session's
    (its file's name and bytes, read in the worker with the archive: :mod:`corpus.design`), the ink
    share that fills a cell and an annotated map file (platform), the map id (HCRC)."""

    condition: str | None = None
    split: str | None = None
    ink_share: float | None = None
    map_name: str = ""
    map_data: bytes = b""
    map_id: str = ""
    design_name: str = ""
    design_data: bytes = b""

    def key(self) -> str:
        """A short digest of the choices (part of an upload's key: other choices, another dataset)."""
        if self == ImportChoices():
            return ""
        fields = [self.condition, self.split, self.ink_share, self.map_name, self.map_id]
        text = json.dumps(fields) + hashlib.sha256(self.map_data).hexdigest()
        if self.design_data:  # (an upload's key without a table stays what it was)
            text += hashlib.sha256(self.design_data).hexdigest()
        return hashlib.sha256(text.encode()).hexdigest()[:8]

    def options(self, fmt: str, folder: Path) -> dict[str, Any]:
        """The importer's options (writing the map file into ``folder``)."""
        out: dict[str, Any] = {}
        if self.condition:
            out["condition"] = self.condition
        if self.split:
            out["split"] = self.split
        if self.design_data:
            out["design"] = DesignFile(_file_name(self.design_name or "design.csv"), self.design_data)
        if fmt == "platform":
            if self.ink_share is not None:
                out["ink_share"] = self.ink_share
            if self.map_data:
                folder.mkdir(parents=True, exist_ok=True)
                out["map_path"] = folder / _file_name(self.map_name or "map.json")
                out["map_path"].write_bytes(self.map_data)
        elif fmt == "hcrc" and self.map_id:
            out["map_id"] = self.map_id
        return out


@dataclass(frozen=True)
class Upload:
    """A kept upload: the dataset it became, and what it was."""

    key: str  # the upload's digest (and importer format): its folder name under datasets/
    name: str  # the file name it was uploaded as
    fmt: str | None  # importer format, None for a Groundwork dataset
    bytes: int  # the dataset's size on disk
    members: int  # files in the dataset
    uploaded_at: str  # ISO 8601, UTC
    uploaded_by: str  # a username, or "(not signed in)"
    content_hash: str  # the dataset's content hash (what coding tasks refer to)
    extracted: int = 0  # bytes the archive unpacked to (what a session's allowance counts)

    @property
    def when(self) -> datetime:
        return datetime.fromisoformat(self.uploaded_at)


def _usage(folder: Path) -> tuple[int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


class Uploads:
    """The uploads kept in a data directory (``datasets/``, ``uploads/``, ``staging/``)."""

    def __init__(self, data_dir: str | Path):
        self.data_dir = Path(data_dir)
        self.datasets = self.data_dir / "datasets"
        self.records = self.data_dir / "uploads"
        self.staging = self.data_dir / "staging"

    # -- what is kept ------------------------------------------------------------------------------

    def list(self) -> list[Upload]:
        """Every kept upload, oldest first (a record whose dataset is gone is skipped)."""
        out = []
        for path in sorted(self.records.glob(f"*{RECORD_SUFFIX}")) if self.records.is_dir() else []:
            try:
                up = Upload(**json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError, TypeError):
                continue
            if (self.datasets / up.key).is_dir():
                out.append(up)
        return sorted(out, key=lambda u: u.uploaded_at)

    def usage(self) -> tuple[int, int]:
        """(bytes, files) of all kept uploads together."""
        kept = self.list()
        return sum(u.bytes for u in kept), sum(u.members for u in kept)

    def path(self, up: Upload) -> Path:
        return self.datasets / up.key

    def find(self, key: str) -> Upload | None:
        return next((u for u in self.list() if u.key == key), None)

    def leftovers(self) -> builtins.list[Path]:
        """What does not belong: staging folders (a server stopped mid-upload), archives and records
        without their dataset in ``uploads/``."""
        kept = {u.key for u in self.list()}
        stray = [p for p in self.staging.iterdir()] if self.staging.is_dir() else []
        if self.records.is_dir():
            stray += [p for p in self.records.iterdir() if p.stem not in kept or p.suffix != RECORD_SUFFIX]
        return sorted(stray)

    # -- adding ------------------------------------------------------------------------------------

    def add(
        self,
        name: str,
        data: bytes,
        quota: Quota,
        *,
        fmt: str | None = None,
        choices: ImportChoices | None = None,
        by: str = "(not signed in)",
        report: Report | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> tuple[Upload, bool]:
        """Keep the upload ``data`` (file name ``name``) as a dataset: (the upload, whether it is new).

        ``fmt`` is the importer format (None: a Groundwork dataset), ``choices`` what the uploader
        set for it, ``progress(done, total)`` is called as an importer works through the sessions'
        ink. Raises :class:`corpus.loading.validate.DatasetError` (:class:`UploadRefused` for a quota) with
        every problem; nothing is kept then. Warnings of a valid dataset are added to ``report``."""
        report = report if report is not None else Report()
        choices = choices or ImportChoices()
        digest = hashlib.sha256(data).hexdigest()[:16]
        key = "-".join(filter(None, (digest, fmt, choices.key() if fmt else "")))
        kept = self.find(key)
        if kept is not None:
            return kept, False
        self.staging.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f"{key}-", dir=self.staging))
        try:
            (work / "archive").mkdir()
            archive = work / "archive" / _file_name(name)
            archive.write_bytes(data)
            extracted = self._check(name, archive, quota)
            options = choices.options(fmt, work / "options") if fmt else {}
            if progress is not None and fmt == "platform":
                options["progress"] = progress
            dataset = self._unpack(name, archive, work, fmt, options, report)
            content = _content_hash(dataset)
            same = next((u for u in self.list() if u.content_hash == content), None)
            if same is not None:  # other bytes (another zip tool), the same dataset
                return same, False
            size, members = _usage(dataset)
            self._check_total(name, size, members, quota)
            when = datetime.now(UTC).isoformat(timespec="seconds")
            up = Upload(key, _file_name(name), fmt, size, members, when, by, content, extracted)
            return self._keep(up, dataset)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _check(self, name: str, archive: Path, quota: Quota) -> int:
        """Refuse, before extracting, an archive whose member count or declared sizes do not fit;
        the bytes it declares it unpacks to."""
        try:
            with zipfile.ZipFile(archive) as zf:
                infos = zf.infolist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
            raise UploadRefused(name, f"not a readable zip archive ({exc})") from None
        members, declared = len(infos), sum(i.file_size for i in infos)
        if members > quota.upload_members:
            raise UploadRefused(
                name, f"the archive holds {members:,} files; one upload may hold at most {quota.upload_members:,}"
            )
        if declared > quota.upload_bytes:
            raise UploadRefused(
                name,
                f"the archive unpacks to {mib(declared)}; one upload may unpack to at most {mib(quota.upload_bytes)}",
            )
        if quota.session_bytes_left is not None and declared > quota.session_bytes_left:
            raise UploadRefused(
                name,
                f"the archive unpacks to {mib(declared)}; this session may upload {mib(quota.session_bytes_left)} more",
            )
        self._check_total(name, declared, members, quota)
        return declared

    def _check_total(self, name: str, size: int, members: int, quota: Quota) -> None:
        used_bytes, used_members = self.usage()
        hint = "; a lead can reclaim old uploads on the Tasks page or with `python -m corpus uploads reclaim`"
        if used_bytes + size > quota.total_bytes:
            raise UploadRefused(
                name,
                f"the kept uploads use {mib(used_bytes)} of the {mib(quota.total_bytes)} all "
                f"uploads may take, and this one needs {mib(size)}{hint}",
            )
        if used_members + members > quota.total_members:
            raise UploadRefused(
                name,
                f"the kept uploads hold {used_members:,} of the {quota.total_members:,} files all "
                f"uploads may hold, and this one has {members:,}{hint}",
            )

    @staticmethod
    def _unpack(name: str, archive: Path, work: Path, fmt: str | None, options: dict[str, Any], report: Report) -> Path:
        """The extracted (and, for an importer format, converted) dataset inside ``work``."""
        try:
            root = extract_to(archive, work / "extracted")
        except ArchiveError as exc:
            raise DatasetError(exc.report, name) from None
        except (
            zipfile.BadZipFile,
            zlib.error,
            EOFError,
            OSError,
            RuntimeError,
            ValueError,
            NotImplementedError,
        ) as exc:
            raise UploadRefused(name, f"the archive cannot be extracted ({type(exc).__name__}: {exc})") from None
        if fmt is not None:
            from corpus.importers import run_import

            return run_import(
                fmt,
                root,
                work / "dataset",
                overwrite=True,
                name=f"{PurePosixPath(name).stem} (imported)",
                source_name=PurePosixPath(name.replace("\\", "/")).name[:120] or "upload.zip",
                report=report,
                **options,
            )
        _, checked = read_dataset(root)
        report.issues.extend(checked.issues)
        if not checked.ok:
            raise DatasetError(checked, name)
        return root

    def _keep(self, up: Upload, dataset: Path) -> tuple[Upload, bool]:
        self.datasets.mkdir(parents=True, exist_ok=True)
        self.records.mkdir(parents=True, exist_ok=True)
        final = self.datasets / up.key
        try:
            dataset.rename(final)
        except OSError:  # the same upload was kept meanwhile by another session
            kept = self.find(up.key)
            if kept is not None:
                return kept, False
            shutil.rmtree(final, ignore_errors=True)
            dataset.rename(final)
        record = self.records / f"{up.key}{RECORD_SUFFIX}"
        tmp = record.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(up), indent=2), encoding="utf-8")
        tmp.replace(record)
        return up, True

    # -- reclaiming --------------------------------------------------------------------------------

    def reclaim(
        self, keys: builtins.list[str] | None = None, older_than: timedelta | None = None, now: datetime | None = None
    ) -> tuple[builtins.list[Upload], builtins.list[Path]]:
        """Delete the kept uploads named by ``keys`` and/or older than ``older_than`` (both None:
        none), and every leftover. Returns (uploads deleted, leftovers deleted)."""
        now = now or datetime.now(UTC)
        wanted = set(keys or [])
        gone = [u for u in self.list() if u.key in wanted or (older_than is not None and now - u.when >= older_than)]
        for up in gone:
            (self.records / f"{up.key}{RECORD_SUFFIX}").unlink(missing_ok=True)
            shutil.rmtree(self.datasets / up.key, ignore_errors=True)
        stray = self.leftovers()
        for path in stray:
            shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
        return gone, stray


def _file_name(name: str) -> str:
    """The upload's own file name, safe as a file name here (what an archive error names)."""
    safe = "".join(ch if ch.isalnum() or ch in "._- ()" else "_" for ch in PurePosixPath(name.replace("\\", "/")).name)
    return safe.strip(". ")[:120] or "upload.zip"


def _content_hash(folder: Path) -> str:
    from corpus.loading.dataset import content_hash

    return content_hash(folder)


# -- in a worker process -------------------------------------------------------------------------


class _ProgressFile:
    """``progress(done, total)`` written to a small JSON file (at most every quarter second, and
    always the last), for a page in another process to read."""

    def __init__(self, path: Path):
        self.path, self.last = path, 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.25:
            return
        self.last = now
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"done": done, "total": total}), encoding="utf-8")
        tmp.replace(self.path)


def read_progress(path: str | Path) -> tuple[int, int] | None:
    """(done, total) an import has reported in ``path`` so far, or None before its first report."""
    try:
        held = json.loads(Path(path).read_text(encoding="utf-8"))
        return int(held["done"]), int(held["total"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def add_upload(
    data_dir: str,
    name: str,
    data: bytes,
    quota: Quota,
    fmt: str | None,
    choices: ImportChoices,
    by: str,
    progress_path: str | None = None,
) -> tuple[Upload | None, bool, Report]:
    """:meth:`Uploads.add` for a worker process: (the upload or None if refused, whether it is new,
    the report), with progress written to ``progress_path``."""
    report = Report()
    progress = _ProgressFile(Path(progress_path)) if progress_path else None
    try:
        up, new = Uploads(data_dir).add(
            name, data, quota, fmt=fmt, choices=choices, by=by, report=report, progress=progress
        )
    except DatasetError as exc:
        return None, False, exc.report
    finally:
        if progress_path:
            Path(progress_path).unlink(missing_ok=True)
    return up, new, report
