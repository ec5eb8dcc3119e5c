"""Loading speed: the sample corpus, a generated corpus of 1,000 sessions (~100,000 actions) and one
of 10,000 sessions (~1,000,000 actions; written once by `corpus generate` and kept, bench/corpora.py).

Each load runs in a fresh process, timing validation plus the session and action tables the pages
read; peak memory is that process's own high-water mark of resident memory (bench/peak.py). The
first load of a dataset reads every record (and keeps what it made in a new, empty cache folder,
as the app does in its data directory: written on a thread of its own once the load has returned,
so not in its time, but in its peak memory); the million-action corpus is then opened again by another
fresh process, as another replica or a restarted server opens it, from that cache
(corpus.loading.dataset_cache): `load_1m_reopen_ms`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[2])
from bench.peak import peak_mb
from pathlib import Path
from corpus.loading.dataset import load_dir
from corpus.loading.dataset_cache import DatasetCache, written
cache = DatasetCache(Path(sys.argv[3])) if sys.argv[3] else None
t0 = time.perf_counter()
c = load_dir(sys.argv[1], cache=cache)
c.actions_df; c.sessions_df
ms = (time.perf_counter() - t0) * 1000
written()  # (the peak counts the cache entry's write, which goes on after the load returns)
print(json.dumps({"ms": ms, "peak_mb": peak_mb(), "n_actions": int(c.sessions_df["n_actions"].sum())}))
"""


def _cold_load(path: Path, cache: Path | None = None) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), str(ROOT), str(cache or "")],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def run() -> dict[str, dict]:
    from bench.corpora import SESSIONS_1M, generated

    sample = min((_cold_load(ROOT / "sample_data") for _ in range(3)), key=lambda r: r["ms"])
    large = _cold_load(generated(1000).path)
    made = generated(SESSIONS_1M)
    with tempfile.TemporaryDirectory(prefix="groundwork-cache-") as cache:
        million = _cold_load(made.path, Path(cache))
        reopened = _cold_load(made.path, Path(cache))
    out = {
        "load_sample_ms": {"value": sample["ms"], "unit": "ms", "target": 1000},
        "load_100k_ms": {"value": large["ms"], "unit": "ms", "target": 10000},
        "load_100k_peak_mb": {"value": large["peak_mb"], "unit": "MB", "target": 1024},
        "load_100k_n_actions": {"value": large["n_actions"], "unit": "n", "target": None},
        "load_1m_ms": {"value": million["ms"], "unit": "ms", "target": 15000},
        "load_1m_peak_mb": {"value": million["peak_mb"], "unit": "MB", "target": 1500},
        "load_1m_n_actions": {"value": million["n_actions"], "unit": "n", "target": None},
        "load_1m_reopen_ms": {"value": reopened["ms"], "unit": "ms", "target": None},
        "load_1m_reopen_peak_mb": {"value": reopened["peak_mb"], "unit": "MB", "target": None},
    }
    if made.seconds is not None:  # (written by this run)
        out["generate_1m_s"] = {"value": made.seconds, "unit": "s", "target": None}
        out["generate_1m_peak_mb"] = {"value": made.peak_mb, "unit": "MB", "target": None}
    return out
