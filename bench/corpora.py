"""The generated corpora the benchmarks load, made once and kept in ``bench/.corpora/`` (not in
git): a corpus of a million actions takes minutes to write, and is the same for the same
generator version, seed and size, so a later run reads the one already written."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / ".corpora"
SEED = 11
SESSIONS_1M = 10_000  # about 100 actions a session: a million actions


@dataclass(frozen=True)
class Generated:
    path: Path
    seconds: float | None  # how long `corpus generate` took to write it; None when already written
    peak_mb: float | None  # that process's peak resident memory


def generated(n_sessions: int, seed: int = SEED) -> Generated:
    """The generated corpus of ``n_sessions`` sessions, written by ``python -m corpus generate`` in a
    process of its own when not already there."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from corpus.generate import GENERATOR_VERSION

    dest = CACHE / f"maptask-v{GENERATOR_VERSION}-seed{seed}-{n_sessions}"
    if dest.is_dir():  # moved into place only once complete (corpus.loading.write.folder_in_place)
        return Generated(dest, None, None)
    cmd = [sys.executable, "-c", _CHILD, str(ROOT), str(seed), str(n_sessions), str(dest)]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT)
    seconds = time.perf_counter() - t0
    return Generated(dest, seconds, float(out.stdout.strip().splitlines()[-1]))


# `python -m corpus generate` in a child that prints its own peak resident memory (MB) at the end.
_CHILD = r"""
import sys
sys.path.insert(0, sys.argv[1])
from bench.peak import peak_mb
from corpus.cli import main
code = main(["generate", "--seed", sys.argv[2], "--sessions", sys.argv[3], sys.argv[4]])
print(peak_mb())
sys.exit(code)
"""
