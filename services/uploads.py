"""Uploads from the sidebar: who may upload, within which quotas, and reclaiming old uploads.

The rules live in :mod:`corpus.server.uploads` (quotas, storing once, leaving nothing behind on a refusal);
this module applies the settings' upload policy to the person asking and keeps the per-session
allowance of uploaders other than a lead.
"""

from __future__ import annotations

import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from corpus.importers.detect import Detection, NotRecognised, detect_zip
from corpus.loading.validate import Report
from corpus.server.uploads import ImportChoices, Quota, Upload, UploadRefused, Uploads, add_upload, mib, read_progress
from corpus.store import User
from services import jobs
from services.datasets import open_dataset, set_outcome
from services.settings import settings
from services.store import get_store

SESSION_KEY = "upload_allowance_used"  # (uploads, bytes) this session has kept, when it is not a lead's

# What an uploaded archive holds: label -> importer format (None: a Groundwork dataset; DETECT: told
# from its file names).
DETECT = "detect"
FORMATS: dict[str, str | None] = {
    "Detect from the files": DETECT,
    "Groundwork dataset": None,
    "Collaboration platform sessions (logs or export bundle)": "platform",
    "HCRC Map Task dialogues": "hcrc",
    "Kitchen runs (Collab-Overcooked, Overcooked-AI)": "overcooked",
    "Theory-of-mind benchmark trials (DynToM)": "dyntom",
}


def _is_lead(user: User | None) -> bool:
    return user is not None and user.role == "lead"


def refusal(user: User | None, datasets: bool = True) -> str | None:
    """Why ``user`` (None: not signed in) may not upload now, or None if they may (``datasets``:
    an upload that is kept as a dataset, which needs the datasets folder among the roots)."""
    s = settings()
    if datasets and s.datasets_dir not in s.dataset_roots:
        return "Uploading is turned off on this server."
    if _is_lead(user):
        return None
    if s.upload_policy == "lead":
        return "Uploading needs a signed-in lead: sign in on an Annotate page (e.g. Tasks)."
    if s.upload_policy == "signed-in" and user is None:
        return "Uploading needs you to be signed in: sign in on an Annotate page (e.g. Code)."
    count, _ = st.session_state.get(SESSION_KEY, (0, 0))
    if count >= s.upload_session_count:
        return f"This session has made {count} uploads, the most one session may make ({s.upload_session_count})."
    return None


def refusal_of_bytes(user: User | None, n_bytes: int) -> str | None:
    """Why ``n_bytes`` more would go over this session's allowance (None: they would not)."""
    if _is_lead(user):
        return None
    allowed = int(settings().upload_session_bytes)
    _, used = st.session_state.get(SESSION_KEY, (0, 0))
    if used + n_bytes > allowed:
        return (
            f"This session has uploaded {mib(used)}; {mib(n_bytes)} more would go over the {mib(allowed)} "
            "one session may upload."
        )
    return None


def charge(user: User | None, n_bytes: int) -> None:
    """Count one upload of ``n_bytes`` against this session's allowance (a lead's are not counted)."""
    if not _is_lead(user):
        count, used = st.session_state.get(SESSION_KEY, (0, 0))
        st.session_state[SESSION_KEY] = (count + 1, used + n_bytes)


def session_allowance_text(user: User | None) -> str:
    """What is left of this session's allowance (empty for a lead, who has none)."""
    if _is_lead(user):
        return ""
    s = settings()
    count, used = st.session_state.get(SESSION_KEY, (0, 0))
    return (
        f"This session: {count} of {s.upload_session_count} uploads, "
        f"{mib(used)} of {mib(int(s.upload_session_bytes))} used."
    )


def allowance_text(user: User | None) -> str:
    """The limits that apply to ``user``'s next dataset upload, in one line."""
    s = settings()
    text = f"Up to {mib(int(s.upload_max_bytes))} and {s.upload_max_members:,} files unpacked per upload."
    return " ".join(filter(None, (text, session_allowance_text(user))))


def detected(data: bytes) -> Detection | str:
    """What the archive ``data`` holds, told from its file names, or why that cannot be told."""
    try:
        return detect_zip(data)
    except NotRecognised as exc:
        return f"{exc}. Choose what it holds."
    except (zipfile.BadZipFile, OSError, ValueError, EOFError):
        return "This is not a readable zip archive."


def _admitted(name: str, user: User | None) -> Quota | None:
    """The quota ``user``'s upload ``name`` is held to, or None (the refusal recorded for the Data
    page) when they may not upload now."""
    why = refusal(user)
    if why is not None:
        set_outcome(name, UploadRefused(name, why).report, False)
        return None
    s = settings()
    _, used = st.session_state.get(SESSION_KEY, (0, 0))
    return Quota.from_settings(s, None if _is_lead(user) else max(int(s.upload_session_bytes) - used, 0))


def _kept(name: str, up: Upload | None, new: bool, report: Report, user: User | None, note: str) -> bool:
    """Open a kept upload and charge the session what it unpacked to; record the outcome."""
    if up is None:
        set_outcome(name, report, False, note)
        return False
    if new and not _is_lead(user):
        charge(user, up.extracted or up.bytes)
    open_dataset(Uploads(settings().data_dir).path(up))
    set_outcome(name, report, True, note)
    return True


def job_owner(user: User | None) -> str:
    """Whose share of the server's queue of heavy work an upload counts against
    (:func:`services.jobs.owner`: the account, else the client address: every tab of one person is
    one person)."""
    return jobs.owner(user)


def _by(user: User | None) -> str:
    return user.username if user else "(not signed in)"


def upload(
    name: str, data: bytes, fmt: str | None, user: User | None, choices: ImportChoices | None = None, note: str = ""
) -> bool:
    """Keep and open an uploaded archive here and now, or record why not (the Data page shows the
    report). ``fmt`` is the importer format (None: a Groundwork dataset)."""
    quota = _admitted(name, user)
    if quota is None:
        return False
    up, new, report = add_upload(
        str(settings().data_dir), name, data, quota, fmt, choices or ImportChoices(), _by(user)
    )
    return _kept(name, up, new, report, user, note)


@dataclass(frozen=True)
class PendingImport:
    """An upload being imported in the worker: its job, and what the page says when it is done."""

    job_id: str
    name: str
    note: str
    progress_path: str


def start_import(
    name: str, data: bytes, fmt: str | None, user: User | None, owner: str, choices: ImportChoices, note: str
) -> PendingImport | None:
    """Start importing an uploaded archive in the worker (:mod:`services.jobs`), so the server's
    pages stay with their users; None (the reason recorded for the Data page) when it may not."""
    quota = _admitted(name, user)
    if quota is None:
        return None
    s = settings()
    s.data_dir.mkdir(parents=True, exist_ok=True)
    progress = tempfile.NamedTemporaryFile(prefix=".progress-", suffix=".json", dir=s.data_dir, delete=False)
    progress.close()
    Path(progress.name).unlink()
    args = (str(s.data_dir), name, data, quota, fmt, choices, _by(user), progress.name)
    try:
        job = jobs.submit(owner, f"Importing {name}", add_upload, *args)
    except jobs.Busy as exc:
        set_outcome(name, UploadRefused(name, f"not started: {exc}").report, False, note)
        return None
    return PendingImport(job.id, name, note, progress.name)


@dataclass(frozen=True)
class Progress:
    """How far an import has got: its place in the server's queue while it waits (``waiting``, in
    words), then the seconds it has run and (strokes done, total) once the importer has said."""

    waiting: str | None
    seconds: float
    strokes: tuple[int, int] | None


def import_progress(pending: PendingImport) -> Progress | None:
    """How far the import has got; None once it is done (or gone)."""
    job = jobs.get(pending.job_id)
    if job is None or job.done:
        return None
    place = job.place()
    if place is not None and not place.started:
        return Progress(jobs.place_text(place), 0.0, None)
    return Progress(None, job.seconds, read_progress(pending.progress_path))


def finish_import(pending: PendingImport, user: User | None) -> bool:
    """Take the finished import's result: open the dataset, or record why not (the importer's report).

    An import that failed unexpectedly (its worker killed, an error that no report names) raises
    that error here, for the page to log with an error id and record (:func:`record_failure`)."""
    if jobs.get(pending.job_id) is None:  # forgotten: another server process, or kept past its time
        Path(pending.progress_path).unlink(missing_ok=True)
        why = (
            f"the import's result is gone (the server was restarted, or it waited more than "
            f"{jobs.KEEP_SECONDS // 60} minutes); upload the archive again"
        )
        set_outcome(pending.name, UploadRefused(pending.name, why).report, False, pending.note)
        return False
    try:
        up, new, report = jobs.take(pending.job_id)
    finally:
        Path(pending.progress_path).unlink(missing_ok=True)
    return _kept(pending.name, up, new, report, user, pending.note)


def record_failure(name: str, message: str, note: str = "") -> None:
    """Record that the upload ``name`` failed unexpectedly, as ``message`` says (nothing was kept)."""
    set_outcome(name, UploadRefused(name, message).report, False, note)


# -- the kept uploads (a lead's Tasks page) -------------------------------------------------------


def kept(lead: User) -> list[tuple[Upload, list[str]]]:
    """Every kept upload, oldest first, with the names of the coding tasks on its dataset."""
    tasks: dict[str, list[str]] = {}
    for t in get_store().tasks_for(lead):
        tasks.setdefault(t.dataset_hash or "", []).append(t.name)
    return [(u, tasks.get(u.content_hash, [])) for u in Uploads(settings().data_dir).list()]


def usage() -> tuple[int, int, int, int]:
    """(bytes used, bytes allowed, files kept, files allowed) of all kept uploads."""
    s = settings()
    used, files = Uploads(s.data_dir).usage()
    return used, int(s.uploads_total_bytes), files, s.uploads_total_members


def reclaim(keys: list[str]) -> list[Upload]:
    """Delete the kept uploads ``keys`` (and any leftover of an interrupted upload)."""
    gone, _ = Uploads(settings().data_dir).reclaim(keys)
    return gone
