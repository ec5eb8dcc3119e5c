"""The reproduction report of the bundled sample, built and written as the command line does
(``python -m analysis report``): every result through the pages' services, the figures rendered to
SVG by kaleido, the tables zipped. ``report_ms_sample``: one build in a fresh process (the figure
renderer's browser started inside it), target <= 10,000 ms."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run() -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "analysis", "report", str(ROOT / "sample_data"), str(Path(tmp) / "sample")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        ms = (time.perf_counter() - t0) * 1000
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-1000:])
    return {"report_ms_sample": {"value": ms, "unit": "ms", "target": 10_000}}


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.0f} {r['unit']}")
