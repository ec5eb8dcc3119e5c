"""Compare page speed on a theory-of-mind benchmark: 1,000 DynToM-format trials x 71 questions x 10
runs (five simulated models in two settings), server-side render under AppTest.

The trials are written in the released format by :mod:`corpus.generate.tom` and imported as a
benchmark dataset (:mod:`corpus.importers.tom`). AppTest opens the Compare page on it (the first load
reads the dataset and scores every run), visits every view once (each view's first visit computes its
tables) and times a second visit of every view: the entry is the slowest view of that second pass,
as ``compare_page_ms_10x3000`` is for the ALMANAC tasks.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "bench"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

N_TRIALS = 1000
MODELS = {"bench-xl": 1.8, "bench-l": 1.2, "bench-m": 0.6, "bench-s": 0.0, "bench-xs": -0.5}
VIEWS = ["Leaderboard", "Slices", "Confusions", "Ablation", "Instances"]


def make_dataset(dest: Path) -> tuple[Path, float]:
    """The benchmark dataset, and the milliseconds its import took."""
    from corpus.generate.tom import write_dyntom_trials
    from corpus.importers import run_import

    raw = write_dyntom_trials(dest.parent / "raw", N_TRIALS, models=MODELS, seed=5)
    t0 = time.perf_counter()
    out = run_import("dyntom", raw, dest)
    return out, (time.perf_counter() - t0) * 1000


def run() -> dict[str, dict]:
    import os

    from bench_compare import open_compare, visit

    tmp = Path(tempfile.mkdtemp(prefix="gw-bench-tom-"))
    os.environ.setdefault("GROUNDWORK_DATA_DIR", str(tmp / "data"))
    try:
        root, import_ms = make_dataset(tmp / "ds")
        at, first, _ = open_compare(root)
        first_visit = {v: visit(at, v, "bench_tab") for v in VIEWS}
        again = {v: visit(at, v, "bench_tab") for v in VIEWS}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    slowest = max(again, key=again.get)
    print(
        f"  import {import_ms:.0f} ms; first load {first:.0f} ms; first visit per view: "
        + ", ".join(f"{v} {ms:.0f}" for v, ms in first_visit.items())
        + "; again: "
        + ", ".join(f"{v} {ms:.0f}" for v, ms in again.items()),
        file=sys.stderr,
    )
    return {
        "compare_page_ms_tom_1000x10": {"value": again[slowest], "unit": "ms", "target": 2000},
        "compare_first_load_ms_tom_1000x10": {"value": first, "unit": "ms", "target": None},
        "compare_first_view_ms_tom_1000x10": {"value": max(first_visit.values()), "unit": "ms", "target": None},
        "tom_import_ms_1000_trials": {"value": import_ms, "unit": "ms", "target": None},
    }


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.0f} {r['unit']}" + (f" (target <= {r['target']})" if r["target"] else ""))
