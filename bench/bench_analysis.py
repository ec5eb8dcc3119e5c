"""Analysis screens: server-side time of one run of each analysis page (Streamlit's AppTest).

Measured on the sample corpus and on generated corpora of 1,000 and 10,000 sessions (~100,000 and
~1,000,000 actions, ``python -m corpus generate --seed 11 --sessions N``, kept by bench/corpora.py). In a fresh process per corpus, the app
runs once with the corpus loaded and every page visited (so modules are imported and the dataset
is loaded and validated: that is ``load_*_ms``' job); then, for each page, the analysis caches are
cleared and one run of the page is timed: everything the page computes and draws from a loaded
dataset, with nothing cached. The figure per page is the median of three such runs; the
benchmark reports the slowest page (``analysis_screen_ms_*``) and each page separately.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["pages/alignment.py", "pages/acts.py", "pages/misalignment.py", "pages/outcomes.py", "pages/split.py"]
REPEATS = 3

_CHILD = r"""
import json, os, statistics, sys, time
sys.path.insert(0, sys.argv[2])
os.environ["GROUNDWORK_DATA_DIR"] = sys.argv[3]
os.environ["GROUNDWORK_DATASET_ROOTS"] = os.path.dirname(os.path.abspath(sys.argv[1]))
from pathlib import Path
from streamlit.testing.v1 import AppTest
from corpus.loading.catalog import key_of
from streamlit.runtime.pages_manager import PagesManager
import streamlit as st
from services import alignment as svc

pages = json.loads(sys.argv[4])
at = AppTest.from_file(os.path.join(sys.argv[2], "app.py"), default_timeout=300)
at.query_params["dataset"] = key_of(Path(sys.argv[1]))  # the dataset measured, as a link opens it
at.run()
assert at.session_state["dataset_source"].path == Path(sys.argv[1]).resolve(), at.session_state["dataset_source"]
out = {}
for page in pages:
    PagesManager.uses_pages_directory = False
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    times = []
    for _ in range(int(sys.argv[5])):
        svc._frame.clear()
        svc._mental_models.clear()
        st.cache_data.clear()
        t0 = time.perf_counter()
        at.run()
        times.append((time.perf_counter() - t0) * 1000)
        assert not at.exception, [e.value for e in at.exception]
    out[page] = statistics.median(times)
print(json.dumps(out))
"""


def screen_times(dataset: Path) -> dict[str, float]:
    """Median cold-cache run time (ms) of each analysis page on ``dataset``."""
    with tempfile.TemporaryDirectory() as data_dir:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, str(dataset), str(ROOT), data_dir, json.dumps(PAGES), str(REPEATS)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
    if proc.returncode != 0:
        raise RuntimeError(f"analysis bench failed on {dataset}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _entries(label: str, times: dict[str, float], target: float) -> dict[str, dict]:
    out = {f"analysis_screen_ms_{label}": {"value": max(times.values()), "unit": "ms", "target": target}}
    for page, ms in times.items():
        out[f"analysis_{Path(page).stem}_ms_{label}"] = {"value": ms, "unit": "ms", "target": None}
    return out


def run() -> dict[str, dict]:
    from bench.corpora import SESSIONS_1M, generated

    results = _entries("sample", screen_times(ROOT / "sample_data"), 1000)
    results.update(_entries("100k", screen_times(generated(1000).path), 5000))
    results.update(_entries("1m", screen_times(generated(SESSIONS_1M).path), 5000))
    return results


if __name__ == "__main__":
    arg = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "sample_data"
    for page, ms in screen_times(arg).items():
        print(f"{page:28s} {ms:8.1f} ms")
