"""Where the real data samples are: ``GROUNDWORK_REAL_DATA`` if set, else the first ``shared/real_data``
found beside this checkout or any folder above it (a clone next to ``shared/``, or a worktree a few
levels down). Tests that need them skip, saying where they looked, when there is none."""

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


def absent(folder: Path, what: str) -> str:
    return (
        f"{what} not available at {folder} (set GROUNDWORK_REAL_DATA, or put shared/real_data beside "
        "the checkout or a folder above it)"
    )


needs_platform = pytest.mark.skipif(not PLATFORM.is_dir(), reason=absent(PLATFORM, "real platform sample"))
needs_hcrc = pytest.mark.skipif(not HCRC.is_dir(), reason=absent(HCRC, "HCRC Map Task sample"))
