"""The Replay player in headless chromium, against the app served by this benchmark.

- ``replay_key_to_frame_ms_300x40`` / ``_1000x100``: from a key press (the keydown event's time
  stamp) to the new frame painted: the player sets ``data-step`` once it has drawn the step; a
  MutationObserver sees it, and a task queued from the next animation frame runs once that frame
  is painted. Median over 30 presses (right arrow, then left), on a 300-action session on a 40x40
  grid and a 1,000-action session on a 100x100 grid (built by bench_replay.synthetic_session).
- ``replay_play_drift_steps_8ps``: playing at 8 actions/s for 10 s, the largest step backwards
  between two frames shown; ``replay_play_steps_in_10s_8ps``: the step reached 10 s after Space.
- ``replay_pause_ms``: Space while playing to playback stopped and painted; median of 20 pauses.
- ``kitchen_key_to_frame_ms``: the same measure on the Kitchen screen's replay (the tile player), on
  the longest run of the bundled kitchen sample (40 steps on a 5 x 5 kitchen); median over 20
  presses (right arrow, then left). ``python bench/bench_browser.py kitchen`` runs this one alone.
- ``page_idle_ms_replay_cold``: a new browser context opening a replay link until the app is idle
  (connected, script not running, no skeleton; see tests/conftest.py wait_idle) and the player has
  drawn its first frame. Median of 5 contexts after one visit that warms the server
  (``page_idle_ms_replay_first``: that first visit, reported), and the same for the Data page
  (``page_idle_ms_data_cold``, reported: what any page of the app costs on this machine).
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

from conftest import CHROMIUM, pick_dataset, served_app, wait_idle  # noqa: E402  (the tests' served app and idle check)

SESSIONS = {"300x40": (40, 40, 300, 1), "1000x100": (100, 100, 1000, 2)}
PRESSES = 30
PAUSES = 20
COLD_CONTEXTS = 5

# After the player shows a new step: the time from the key press to the first painted frame.
_WATCH_NEXT_FRAME = """(root) => {
    window.__ms = null;
    addEventListener("keydown", (e) => { window.__key = e.timeStamp; }, { capture: true, once: true });
    const obs = new MutationObserver(() => {
        obs.disconnect();
        requestAnimationFrame(() => setTimeout(() => { window.__ms = performance.now() - window.__key; }, 0));
    });
    obs.observe(root, { attributes: true, attributeFilter: [%s] });
}"""

_RECORD_STEPS = """(root) => {
    window.__steps = [];
    addEventListener("keydown", (e) => { window.__key = e.timeStamp; }, { capture: true, once: true });
    new MutationObserver(() => window.__steps.push([performance.now(), Number(root.dataset.step)]))
        .observe(root, { attributes: true, attributeFilter: ["data-step"] });
}"""


def _dataset(dest: Path) -> Path:
    """A dataset with the two benchmark sessions."""
    from bench_replay import synthetic_session

    from corpus.loading.write import write_dataset
    from corpus.model import DatasetInfo

    maps, sessions = [], []
    for name, (rows, cols, n, seed) in SESSIONS.items():
        session, grid_map = synthetic_session(rows, cols, n, seed=seed, session_id=f"bench-{name}")
        maps.append(grid_map)
        sessions.append(session)
    info = DatasetInfo(
        name="replay benchmark", description="generated sessions for the browser benchmark", synthetic=True
    )
    return write_dataset(dest, info, maps, sessions)


def _timed(page, root, key: str, attribute: str = '"data-step"') -> float:
    root.evaluate(_WATCH_NEXT_FRAME % attribute)
    page.keyboard.press(key)
    page.wait_for_function("window.__ms !== null")
    return page.evaluate("window.__ms")


def _open_dataset(page, url: str) -> None:
    page.goto(f"{url}/replay")
    wait_idle(page, timeout=60_000)
    pick_dataset(page, "replay benchmark")
    page.locator(".rp-root[data-step='0']").wait_for(timeout=60_000)


def _choose(page, name: str):
    page.locator("[data-testid=stSelectbox]").filter(has_text="Session").click()
    page.keyboard.type(f"bench-{name}")
    page.keyboard.press("Enter")
    page.locator(".rp-count", has_text=f"Action 1 of {SESSIONS[name][2]}").wait_for(timeout=30_000)
    wait_idle(page)
    page.get_by_role("heading", name="Replay").click()  # the keyboard goes to the page
    return page.locator(".rp-root")


def key_to_frame(page, root) -> float:
    for _ in range(5):  # warm up
        _timed(page, root, "ArrowRight")
    times = [_timed(page, root, "ArrowRight" if i < PRESSES // 2 else "ArrowLeft") for i in range(PRESSES)]
    return statistics.median(times)


KITCHEN_PRESSES = 20


def kitchen_key_to_frame(browser, url: str) -> float:
    """Median ms from a key press to the painted step in the Kitchen screen's replay, on the longest
    run of the bundled kitchen sample."""
    from urllib.parse import urlencode

    from corpus.kitchen.dataset import load_kitchen
    from corpus.loading.catalog import key_of
    from corpus.settings import SAMPLES

    sample = SAMPLES / "kitchen-synthetic"
    run = max(load_kitchen(sample).runs, key=lambda r: r.n_steps)
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    page.goto(f"{url}/kitchen?" + urlencode({"dataset": key_of(sample), "run": run.id, "step": 0}))
    wait_idle(page, timeout=60_000)
    page.locator(".tp-root[data-step='0']").wait_for(timeout=60_000)
    page.get_by_text("Replay a run", exact=True).click()  # the keyboard goes to the page
    root = page.locator(".tp-root")
    for _ in range(5):  # warm up
        _timed(page, root, "ArrowRight")
    half = KITCHEN_PRESSES // 2
    times = [_timed(page, root, "ArrowRight" if i < half else "ArrowLeft") for i in range(KITCHEN_PRESSES)]
    page.close()
    return statistics.median(times)


def playback(page, root) -> tuple[int, int, float]:
    """(largest step backwards, step reached 10 s after Space, median pause ms) at 8 actions/s,
    from the first action."""
    page.locator(".rp-speed").select_option("8")
    page.get_by_role("heading", name="Replay").click()
    root.evaluate(_RECORD_STEPS)
    page.keyboard.press("Space")
    page.wait_for_timeout(10_500)
    page.keyboard.press("Space")
    key, steps = page.evaluate("[window.__key, window.__steps]")
    shown = [s for _, s in steps]
    backwards = max([0] + [a - b for a, b in zip(shown, shown[1:])])
    reached = max((s for t, s in steps if t <= key + 10_000), default=0)
    pauses = []
    for _ in range(PAUSES):
        page.keyboard.press("Space")
        page.locator(".rp-root[data-playing='true']").wait_for()
        page.wait_for_timeout(250)
        pauses.append(_timed(page, root, "Space", '"data-playing"'))
    return backwards, reached, statistics.median(pauses)


def cold_open(browser, url: str, path: str) -> float:
    """ms from a new browser context opening ``path`` to the app idle (and the player drawn)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(f"{url}{path}")
    if path.startswith("/replay"):
        page.locator(".rp-root[data-step]:not([data-step=''])").wait_for(timeout=60_000)
    wait_idle(page, timeout=60_000)
    ms = (time.perf_counter() - t0) * 1000
    context.close()
    return ms


def run() -> dict[str, dict]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        print(f"  bench_browser: no chromium at {CHROMIUM}; skipped", file=sys.stderr)
        return {}
    with tempfile.TemporaryDirectory() as tmp, served_app(Path(tmp) / "appdata") as url, sync_playwright() as pw:
        _dataset(Path(tmp) / "appdata" / "datasets" / "bench-data")  # a folder the app offers
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        link = "/replay?session=S08&step=100"
        first = cold_open(browser, url, link)
        cold = statistics.median(cold_open(browser, url, link) for _ in range(COLD_CONTEXTS))
        data_page = statistics.median(cold_open(browser, url, "/data") for _ in range(COLD_CONTEXTS))
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        _open_dataset(page, url)
        keys = {"300x40": key_to_frame(page, _choose(page, "300x40"))}
        root = _choose(page, "1000x100")
        backwards, reached, pause = playback(page, root)
        keys["1000x100"] = key_to_frame(page, root)
        kitchen = kitchen_key_to_frame(browser, url)
        browser.close()
    return {
        "replay_key_to_frame_ms_300x40": {"value": keys["300x40"], "unit": "ms", "target": 50},
        "replay_key_to_frame_ms_1000x100": {"value": keys["1000x100"], "unit": "ms", "target": 50},
        "kitchen_key_to_frame_ms": {"value": kitchen, "unit": "ms", "target": 50},
        "replay_play_drift_steps_8ps": {"value": backwards, "unit": "n", "target": 0},
        "replay_play_steps_in_10s_8ps": {"value": reached, "unit": "n", "target": 85, "min": 75},
        "replay_pause_ms": {"value": pause, "unit": "ms", "target": 100},
        "page_idle_ms_replay_cold": {"value": cold, "unit": "ms", "target": 3000},
        "page_idle_ms_replay_first": {"value": first, "unit": "ms", "target": None},
        "page_idle_ms_data_cold": {"value": data_page, "unit": "ms", "target": None},
    }


def run_kitchen() -> dict[str, dict]:
    """Only ``kitchen_key_to_frame_ms``."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, served_app(Path(tmp) / "appdata") as url, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        kitchen = kitchen_key_to_frame(browser, url)
        browser.close()
    return {"kitchen_key_to_frame_ms": {"value": kitchen, "unit": "ms", "target": 50}}


if __name__ == "__main__":
    for name, r in (run_kitchen() if sys.argv[1:] == ["kitchen"] else run()).items():
        print(f"{name}: {r['value']:.1f} {r['unit']}")
