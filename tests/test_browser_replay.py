"""The Replay player in headless chromium: keys, playback, seeking, the URL, what the canvas draws,
data that tries to be markup, the exports opened offline, and the layout at 1440x900.

One served app for the module (the ``app_url`` fixture); each test opens its own page."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import pick_dataset, wait_idle
from PIL import Image
from playwright.sync_api import expect

from analysis import replay as rp
from components import grid_canvas
from components.replay import assets as replay_assets
from corpus.loading.dataset import load_sample

pytestmark = pytest.mark.browser

HOSTILE = '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe><img src=x onerror="window.__pwned=2">'


@pytest.fixture(scope="module")
def sample():
    return load_sample()


def _first_of(sample, condition: str) -> str:
    return next(s.id for s in sample.sessions.values() if s.condition == condition)


def _open(page, app_url: str, query: str):
    page.goto(f"{app_url}/replay?{query}")
    wait_idle(page)
    root = page.locator(".rp-root")
    expect(root).not_to_have_attribute("data-step", "", timeout=20_000)
    return root


def _focus_page(page) -> None:
    page.get_by_role("heading", name="Replay").click()  # keyboard focus on the page, not a widget


def _record_steps(root) -> None:
    """Keep every step the player shows, in order, in window.__steps."""
    root.evaluate("""(r) => {
        window.__steps = [Number(r.dataset.step)];
        new MutationObserver(() => window.__steps.push(Number(r.dataset.step)))
            .observe(r, {attributes: true, attributeFilter: ["data-step"]});
    }""")


def test_keys_step_and_the_url_after_stopping_reopens_the_same_moment(page, app_url, sample):
    sid = _first_of(sample, "visible")
    n = len(sample.sessions[sid].actions)
    root = _open(page, app_url, f"session={sid}&step=5")
    expect(root).to_have_attribute("data-step", "5")
    expect(page.locator(".rp-row.rp-cur")).to_have_attribute("data-pos", "5")
    expect(page.locator(".rp-count")).to_have_text(f"Action 6 of {n}")

    _focus_page(page)
    page.keyboard.press("ArrowRight")
    expect(root).to_have_attribute("data-step", "6")
    page.keyboard.press("ArrowRight")
    expect(root).to_have_attribute("data-step", "7")
    page.keyboard.press("ArrowLeft")
    expect(root).to_have_attribute("data-step", "6")
    expect(page.locator(".rp-row.rp-cur")).to_have_attribute("data-pos", "6")
    expect(page.locator(".rp-count")).to_have_text(f"Action 7 of {n}")
    page.locator(".rp-seg [data-view=follower]").click()
    page.locator(".rp-route").check()
    # Reported once the user stops: the URL names the session, the step and the view.
    expect(page).to_have_url(re.compile(rf"session={sid}&step=6&view=follower&route=1$"))

    # Opened again (a new session of the app): the same moment.
    root = _open(page, app_url, page.url.split("?", 1)[1])
    expect(root).to_have_attribute("data-step", "6")
    expect(root).to_have_attribute("data-view", "follower")
    expect(page.locator(".rp-route")).to_be_checked()
    expect(page.locator(".rp-map canvas")).to_have_attribute("data-view", "follower")


def test_space_plays_forward_only_and_pauses_at_once(page, app_url, sample):
    sid = max(sample.sessions, key=lambda s: len(sample.sessions[s].actions))
    root = _open(page, app_url, f"session={sid}&step=0")
    page.locator(".rp-speed").select_option("20")
    _record_steps(root)
    _focus_page(page)
    page.keyboard.press("Space")
    expect(root).to_have_attribute("data-playing", "true")
    page.wait_for_function("() => window.__steps[window.__steps.length - 1] >= 25")
    page.keyboard.press("Space")
    expect(root).to_have_attribute("data-playing", "false")
    stopped = int(root.get_attribute("data-step"))
    steps = page.evaluate("window.__steps")
    assert steps[0] == 0 and stopped >= 25
    assert all(b >= a for a, b in zip(steps, steps[1:])), steps  # never backwards
    expect(page).to_have_url(re.compile(rf"session={sid}&step={stopped}&view=guide$"))
    assert int(root.get_attribute("data-step")) == stopped  # and nothing moved after the pause
    reported = page.url.split("?", 1)[1]

    # Real time: the session's own pace, 20 times faster; forward only as well.
    page.locator(".rp-mode").select_option("real_time")
    _record_steps(root)
    page.keyboard.press("Space")
    page.wait_for_function(f"() => window.__steps[window.__steps.length - 1] >= {stopped + 5}")
    page.keyboard.press("Space")
    expect(root).to_have_attribute("data-playing", "false")
    steps = page.evaluate("window.__steps")
    assert all(b >= a for a, b in zip(steps, steps[1:])), steps

    # The URL reported at the first pause, opened again (a new session of the app): that moment.
    expect(_open(page, app_url, reported)).to_have_attribute("data-step", str(stopped))


def _timeline_layout() -> dict[str, float]:
    """The timeline's own layout (its margins and its rows' heights, in CSS pixels), as its script
    declares it."""
    script = (replay_assets.ASSETS / "timeline.js").read_text(encoding="utf-8")
    body = re.search(r"const TL = \{([^}]*)\}", script).group(1)
    return {name: float(value) for name, value in re.findall(r"(\w+):\s*([\d.]+)", body)}


def test_a_timeline_click_seeks(page, app_url, sample):
    sid = _first_of(sample, "not_visible")
    frames = rp.frames_for(sample, sid)
    root = _open(page, app_url, f"session={sid}&step=0")
    timeline = page.locator(".rp-timeline")
    width = timeline.evaluate("c => c.clientWidth")  # the width the timeline lays its time axis on
    tl = _timeline_layout()
    times = frames.timestamps
    end = max(times[-1], frames.duration_s, 1.0)
    roles = frames.timeline["role"].to_numpy()

    def x(t: int) -> float:
        return tl["left"] + times[t] / end * (width - tl["left"] - tl["right"])

    # An action at least 10 px from the others of its role, past the middle of the session.
    target = next(
        t
        for t in range(frames.n_steps // 2, frames.n_steps)
        if all(abs(x(t) - x(u)) >= 10 for u in range(frames.n_steps) if u != t and roles[u] == roles[t])
    )
    at = {"x": x(target), "y": tl["guide"] if roles[target] == "guide" else tl["follower"]}
    # Pointed at, the timeline names the action under the pointer: the one aimed at.
    timeline.hover(position=at)
    expect(timeline).to_have_attribute("title", re.compile(rf"^Action {target + 1} · "))
    timeline.click(position=at)
    expect(root).to_have_attribute("data-step", str(target))
    expect(page.locator(".rp-row.rp-cur")).to_have_attribute("data-pos", str(target))
    expect(page).to_have_url(re.compile(rf"step={target}&"))


def test_the_canvas_draws_every_cell_in_its_category_colour(page, app_url, sample):
    """The pixel at the centre of every cell is the colour of analysis.replay.cell_codes for that
    step: the base map, the drawing on and off the route, and what this step drew and erased."""
    sid = _first_of(sample, "visible")
    frames = rp.frames_for(sample, sid)
    # An erase while some of the drawing lies on the route: every category of cell is on the map.
    t = next(
        s
        for s in range(frames.n_steps)
        if len(frames.history.removed[s]) and (frames.codes(s, "follower", show_route=True) == rp.DRAWN_ON_ROUTE).any()
    )
    root = _open(page, app_url, f"session={sid}&step={t}&view=follower&route=1")
    page.locator(".rp-names").uncheck()  # names are drawn over cells
    canvas = page.locator(".rp-map canvas")
    rgb = np.asarray(
        canvas.evaluate("""(c) => {
        const px = Number(c.dataset.cellPx), gap = Number(c.dataset.cellGap), dpr = c.width / c.clientWidth;
        const img = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
        const rows = Math.round(c.clientHeight / px), cols = Math.round(c.clientWidth / px), out = [];
        for (let r = 0; r < rows; r++) for (let k = 0; k < cols; k++) {
            const x = Math.floor((k * px + (px - gap) / 2) * dpr), y = Math.floor((r * px + (px - gap) / 2) * dpr);
            const i = (y * c.width + x) * 4;
            out.push([img[i], img[i + 1], img[i + 2]]);
        }
        return out;
    }"""),
        dtype=int,
    ).reshape(*frames.layers.shape, 3)
    codes = frames.codes(t, "follower", show_route=True)
    palette = np.asarray([[int(c[i : i + 2], 16) for i in (1, 3, 5)] for c in grid_canvas.CELL_COLORS.values()])
    want = palette[codes]
    marks = np.zeros(codes.shape, dtype=bool)
    marks[frames.layers.start] = marks[frames.layers.finish] = True  # ring and cross drawn over the cell
    assert (rgb[~marks] == want[~marks]).all(axis=-1).all()
    assert (codes == rp.ERASED).any() and (codes == rp.DRAWN_ON_ROUTE).any()
    expect(root).to_have_attribute("data-step", str(t))


def _hostile_dataset(dest: Path) -> Path:
    from helpers import mm, tiny_map, tiny_session

    from corpus.loading.write import write_dataset
    from corpus.model import Checkpoint, DatasetInfo, Landmark, Participant, Persona

    m = tiny_map()
    m.landmarks[HOSTILE] = Landmark(cells=[(8, 8)])
    m.follower_landmarks[HOSTILE] = Landmark(cells=[(8, 9)])
    s = tiny_session("h1")
    s.actions[0].content = HOSTILE
    s.actions[2].mental_model = mm(False, rationale=HOSTILE)
    s.participants[0] = Participant(role="guide", id=HOSTILE, persona=Persona(teamq=[2] * 14))
    s.checkpoints = [Checkpoint(role="guide", index=1, progress=0.25, action_index=1, elapsed_s=5, team_goal=HOSTILE)]
    return write_dataset(
        dest, DatasetInfo(name="hostile", description="text that looks like markup", synthetic=True), [m], [s]
    )


def _assert_nothing_ran(page) -> None:
    assert page.evaluate("window.__pwned") is None
    assert page.locator("iframe").count() == 0
    assert page.locator("img[src=x]").count() == 0


def test_data_that_looks_like_markup_stays_text_in_the_player_and_its_export(page, app_server, tmp_path, browser):
    _hostile_dataset(app_server.datasets / "hostile")
    page.goto(f"{app_server.url}/replay")
    wait_idle(page)
    pick_dataset(page, "hostile")
    root = page.locator(".rp-root")
    expect(page.locator(".rp-row").first).to_contain_text(HOSTILE)  # the message, as text
    _focus_page(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(root).to_have_attribute("data-step", "2")
    expect(page.locator(".rp-mm")).to_contain_text(f"Rationale: {HOSTILE}")
    expect(page.locator(".rp-anchor")).to_contain_text(HOSTILE)  # the checkpoint answer
    expect(page.get_by_text("Guide " + HOSTILE[:20], exact=False)).to_be_visible()  # the participant id
    _assert_nothing_ran(page)
    expect(page).to_have_url(re.compile(r"step=2&"))  # reported: the export starts here

    with page.expect_download() as download:
        page.get_by_role("button", name="HTML player").click()
    saved = tmp_path / "h1.html"
    download.value.save_as(saved)
    offline = browser.new_context(offline=True, viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    offline.on("request", lambda r: requests.append(r.url))
    other = offline.new_page()
    other.goto(saved.as_uri())
    exported = other.locator(".rp-root")
    expect(exported).to_have_attribute("data-step", "2")
    expect(other.locator(".rp-row").first).to_contain_text(HOSTILE)
    expect(other.locator(".rp-title")).to_contain_text("h1 · The Guide could see")
    expect(other.locator(".rp-note")).to_contain_text("Synthetic data")
    other.keyboard.press("Space")
    expect(exported).to_have_attribute("data-step", "5", timeout=10_000)  # played to the end, offline
    _assert_nothing_ran(other)
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
    offline.close()


def test_frame_as_png_and_session_as_gif(page, app_url, sample, tmp_path):
    sid = _first_of(sample, "not_visible")
    n = len(sample.sessions[sid].actions)
    _open(page, app_url, f"session={sid}&step=3&view=both")
    with page.expect_download() as png:
        page.get_by_role("button", name="Frame as PNG").click()
    assert png.value.suggested_filename == f"{sid}-both-action4.png"
    image = Image.open(png.value.path())
    assert image.format == "PNG" and image.width > 2 * image.height  # two maps side by side
    with page.expect_download() as gif:
        page.get_by_role("button", name="GIF").click()
    anim = Image.open(io.BytesIO(Path(gif.value.path()).read_bytes()))
    assert anim.format == "GIF" and anim.n_frames == n


def _in_view(page, selector: str, height: int = 900) -> None:
    for box in [page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count())]:
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box)


@pytest.mark.parametrize("condition", ["visible", "not_visible"])
def test_map_current_action_and_transcript_fit_at_1440x900(page, app_url, artifacts, sample, condition):
    sid = _first_of(sample, condition)
    n = len(sample.sessions[sid].actions)
    page.set_viewport_size({"width": 1440, "height": 900})
    _open(page, app_url, f"session={sid}&step={n // 2}")
    expect(page.get_by_text(f"Condition: {condition.replace('_', ' ')}.")).to_be_visible()
    for selector in (".rp-map canvas", ".rp-current", ".rp-row.rp-cur", ".rp-count"):
        _in_view(page, selector)
    page.screenshot(path=str(artifacts / f"replay_{condition}.png"))
    if condition == "visible":
        page.locator(".rp-seg [data-view=both]").click()
        expect(page.locator(".rp-map canvas")).to_have_count(2)
        for selector in (".rp-map canvas", ".rp-current"):
            _in_view(page, selector)
        page.screenshot(path=str(artifacts / "replay_both.png"))
