"""Uploads from the sidebar: who may upload, within which quotas, and reclaiming old uploads.

The rules live in :mod:`corpus.uploads` (quotas, storing once, leaving nothing behind on a refusal);
this module applies the settings' upload policy to the person asking and keeps the per-session
allowance of uploaders other than a lead.
"""

from __future__ import annotations

import streamlit as st

from corpus.store import User
from corpus.uploads import Quota, Upload, UploadRefused, Uploads, mib
from corpus.validate import DatasetError, Report
from services.datasets import open_dataset, set_outcome
from services.settings import settings
from services.store import get_store

SESSION_KEY = "upload_allowance_used"  # (uploads, bytes) this session has kept, when it is not a lead's

# What an uploaded archive holds: label -> importer format (None: a Groundwork dataset).
FORMATS = {
    "Groundwork dataset": None,
    "Collaboration platform session": "platform",
    "HCRC Map Task dialogues": "hcrc",
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


def upload(name: str, data: bytes, fmt: str | None, user: User | None) -> bool:
    """Keep and open an uploaded archive, or record why not (the Data page shows the report)."""
    why = refusal(user)
    if why is not None:
        set_outcome(name, UploadRefused(name, why).report, False)
        return False
    s = settings()
    count, used = st.session_state.get(SESSION_KEY, (0, 0))
    quota = Quota.from_settings(s, None if _is_lead(user) else max(int(s.upload_session_bytes) - used, 0))
    report = Report()
    try:
        up, new = Uploads(s.data_dir).add(
            name, data, quota, fmt=fmt, by=user.username if user else "(not signed in)", report=report
        )
    except DatasetError as exc:
        set_outcome(name, exc.report, False)
        return False
    if new and not _is_lead(user):
        st.session_state[SESSION_KEY] = (count + 1, used + up.bytes)
    open_dataset(Uploads(s.data_dir).path(up))
    set_outcome(name, report, True)
    return True


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
