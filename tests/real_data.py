"""Where the real data samples are: ``GROUNDWORK_REAL_DATA`` if set, else the first ``shared/real_data``
found beside this checkout or any folder above it (a clone next to ``shared/``, or a worktree a few
levels down). Tests that need them skip, saying where they looked, when there is none.

Releases whose licence lets nothing of them be kept here are read from a mirror of their repository
(a bare git directory) found the same way: the folder an environment variable names, else the first
``.mirror/<owner>+<name>/repo`` beside the checkout or a folder above it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def real_data_dir() -> Path:
    named = os.environ.get("GROUNDWORK_REAL_DATA", "").strip()
    if named:
        return Path(named).expanduser()
    for base in ROOT.parents:
        found = base / "shared" / "real_data"
        if found.is_dir():
            return found
    return ROOT.parent / "shared" / "real_data"


REAL = real_data_dir()
PLATFORM = REAL / "neuhai_platform_sample"
HCRC = REAL / "hcrc_maptask"


def mirror(repo: str, variable: str) -> Path:
    """The mirror of the repository ``repo`` ("owner/name"): the folder ``variable`` names, else the
    first ``.mirror/<owner>+<name>/repo`` beside this checkout or a folder above it (where it would be
    when there is none)."""
    named = os.environ.get(variable, "").strip()
    if named:
        return Path(named).expanduser()
    where = Path(".mirror") / repo.replace("/", "+") / "repo"
    for base in ROOT.parents:
        if (base / where).is_dir():
            return base / where
    return ROOT.parent / where


SYNCHTOM_REPO = mirror("THUNLP-MT/SynchToM", "GROUNDWORK_SYNCHTOM_REPO")
DYNTOM_REPO = mirror("GAIR-NLP/DynToM", "GROUNDWORK_DYNTOM_REPO")


def no_mirror(folder: Path, repo: str, variable: str) -> str:
    return (
        f"no mirror of {repo} at {folder} (set {variable}, or put .mirror/{repo.replace('/', '+')}/repo beside "
        "the checkout or a folder above it)"
    )


def absent(folder: Path, what: str) -> str:
    return (
        f"{what} not available at {folder} (set GROUNDWORK_REAL_DATA, or put shared/real_data beside "
        "the checkout or a folder above it)"
    )


needs_platform = pytest.mark.skipif(not PLATFORM.is_dir(), reason=absent(PLATFORM, "real platform sample"))
needs_hcrc = pytest.mark.skipif(not HCRC.is_dir(), reason=absent(HCRC, "HCRC Map Task sample"))
