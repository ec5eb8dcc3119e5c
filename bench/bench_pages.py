"""Every page of the menu opened cold, in headless chromium, on the bundled sample.

A fresh server is started (``make run``'s command, the bundled samples offered); each page is then
opened in a new browser context, as a visitor arriving by a link: ``page_idle_ms_<page>_cold`` is the
time from the navigation to the app idle (connected, script not running, no skeleton: the tests'
``wait_idle``) on that page's **first** visit since the server started, target <= 2,000 ms.
``page_idle_ms_<page>_new_session`` is the median of three more new contexts (what every later
visitor waits for; reported). The server is given a few seconds after start before the first page,
as a visitor would find it.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (ROOT, ROOT / "tests", HERE):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from conftest import CHROMIUM, served_app, wait_idle  # noqa: E402  (the tests' served app and idle check)

AGAIN = 3
SETTLE_S = 5.0
TARGET_MS = 2000


def _open(browser, url: str) -> float:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(url)
    wait_idle(page, timeout=120_000)
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
        browser.close()
    return out


if __name__ == "__main__":
    for name, r in run().items():
        print(f"{name}: {r['value']:.0f} {r['unit']}")
