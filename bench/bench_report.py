"""The reproduction report of the bundled sample, built and written as the command line does
(``python -m analysis report``): every result through the pages' services, the figures rendered to
SVG by kaleido, the tables zipped, each build in a fresh process (the figure renderer's browser
started inside it). ``report_ms_sample``: the bundled sample, target <= 10,000 ms;
``report_ms_100k``: a generated corpus of 1,000 sessions (~100,000 actions, ``python -m corpus
generate --seed 11 --sessions 1000``, as bench_analysis), target <= 60,000 ms."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _report_ms(dataset: Path, out: Path) -> float:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "analysis", "report", str(dataset), str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-1000:])
    return (time.perf_counter() - t0) * 1000


def run() -> dict[str, dict]:
    sys.path.insert(0, str(ROOT))
    from corpus.generate import generate

    with tempfile.TemporaryDirectory() as tmp:
        sample = _report_ms(ROOT / "sample_data", Path(tmp) / "sample")
        big = generate(seed=11, out=Path(tmp) / "big", n_sessions=1000)
        large = _report_ms(big, Path(tmp) / "big_report")
    return {
        "report_ms_sample": {"value": sample, "unit": "ms", "target": 10_000},
        "report_ms_100k": {"value": large, "unit": "ms", "target": 60_000},
    }


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.0f} {r['unit']}")
