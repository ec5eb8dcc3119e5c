"""Every page of the menu opened cold, in headless chromium, on the bundled sample.

A fresh server is started (``make run``'s command, the bundled samples offered); each page is then
opened in a new browser context, as a visitor arriving by a link: ``page_idle_ms_<page>_cold`` is the
time from the navigation to the app idle (connected, script not running, no skeleton: the tests'
``wait_idle``, and the page's title drawn) on that page's **first** visit since the server started,
target <= 2,000 ms. ``page_idle_ms_<page>_new_session`` is the median of three more new contexts
(what every later visitor waits for; reported). The server is given a few seconds after start before
the first page, as a visitor would find it.

The title is waited for because a deep link to a fresh server runs the page's file once on its own
and then again through ``app.py`` (components/router.py): between the two runs the app is briefly
idle with nothing drawn, which is no page a visitor can use.

``page_idle_ms_floor_text`` and ``page_idle_ms_floor_plotly`` are what Streamlit itself takes on
this machine, measured the same way: a page of a title and a line of text, and a page of a title and
one Plotly chart of three points, each served alone (median of four new contexts; reported). No page
with a Plotly chart can be idle sooner than the second.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (ROOT, ROOT / "tests", HERE):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from conftest import _IDLE, CHROMIUM, _wait_healthy, free_port, served_app  # noqa: E402  (the tests' served app and idle check)

AGAIN = 3
SETTLE_S = 5.0
TARGET_MS = 2000


def _open(browser, url: str) -> float:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(url)
    page.wait_for_function(
        f"() => !!document.querySelector('[data-testid=stMain] h1') && {_IDLE}", timeout=120_000, polling=50
    )
    ms = (time.perf_counter() - t0) * 1000
    context.close()
    return ms


def run() -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    import app

    if not Path(CHROMIUM).exists():
        print(f"  bench_pages: no chromium at {CHROMIUM}; skipped", file=sys.stderr)
        return {}
    screens = [s for group in app.PAGES.values() for s in group]
    out: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp, served_app(Path(tmp) / "appdata") as url, sync_playwright() as pw:
        time.sleep(SETTLE_S)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for s in screens:
            path = "" if s is app.DEFAULT else s.file
            first = _open(browser, f"{url}/{path}")
            again = statistics.median(_open(browser, f"{url}/{path}") for _ in range(AGAIN))
            name = s.file.replace("-", "_")
            out[f"page_idle_ms_{name}_cold"] = {"value": first, "unit": "ms", "target": TARGET_MS}
            out[f"page_idle_ms_{name}_new_session"] = {"value": again, "unit": "ms", "target": None}
            print(f"  {s.title}: first {first:.0f} ms, new session {again:.0f} ms", file=sys.stderr)
        for name, script in FLOORS.items():
            runs = [_open(browser, u) for u in _served_alone(Path(tmp), name, script, FLOOR_RUNS)]
            out[f"page_idle_ms_floor_{name}"] = {"value": statistics.median(runs), "unit": "ms", "target": None}
            print(f"  floor, {name}: {statistics.median(runs):.0f} ms (median of {FLOOR_RUNS})", file=sys.stderr)
        browser.close()
    return out


FLOOR_RUNS = 4
FLOORS = {
    "text": 'import streamlit as st\nst.title("A page")\nst.write("A line of text.")\n',
    "plotly": (
        "import plotly.graph_objects as go\nimport streamlit as st\n"
        'st.title("A page")\nst.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3], y=[1, 3, 2])))\n'
    ),
}


def _served_alone(folder: Path, name: str, script: str, times: int):
    """Serve ``script`` alone with the app's Streamlit, as ``make run`` does; yield its URL
    ``times`` times (the first visit after a few seconds' settling), then stop it."""
    path = folder / f"floor_{name}.py"
    path.write_text(script)
    port = free_port()
    command = [sys.executable, "-m", "streamlit", "run", str(path), "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    log = folder / f"floor_{name}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, cwd=folder, stdout=out, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(proc, url, log)
        time.sleep(SETTLE_S)
        for _ in range(times):
            yield url
    finally:
        proc.terminate()
        proc.wait(timeout=10)


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.0f} {r['unit']}")
