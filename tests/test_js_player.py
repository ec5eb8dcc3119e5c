"""The replay player's JavaScript on its own, in headless chromium without Streamlit: keys, playback
on a fake clock, jumps, the timeline and the scrub bar, and when the position is reported back.

The page is built here. It mounts the player's module (the four asset files joined as the app
sends them) the way Streamlit mounts a custom component: the HTML and CSS in an open shadow root,
the module imported from a blob URL, ``setStateValue`` recording into ``window``. The data is what
the app sends: :func:`analysis.replay_payload.player_payload` of the tiny hand-made session, with
the palette and start position of :func:`components.replay.player.player_data`.

The tiny session: six actions at 0, 5, 9, 12, 15 and 20 s of a 60 s session (guide message,
follower draw, follower draw (not aligned), guide message (not aligned), follower erase, follower
undo), with a checkpoint at actions 2 and 4.

The module has a tab of its own in a browser context of its own, whose clock is Playwright's fake
clock, paused: time moves only when a test runs it forward, so playback and the 300 ms wait before
a report are exact and cost no waiting. (The fake clock belongs to a whole browser context, so it
would reach every tab of the suite's shared one.)"""

from __future__ import annotations

import pytest
from helpers import tiny_map, tiny_session
from js_harness import fake_clock_tab, page_html

from analysis import replay as rp
from analysis.replay_payload import player_payload
from components.replay.assets import player_css, player_html, player_js
from components.replay.player import player_data
from corpus.model import Action, Checkpoint

pytestmark = pytest.mark.browser

ORIGIN = "https://player.groundwork.test"
START = {"step": 0, "view": "guide", "route": False}
REPORT_AFTER_MS = 300  # player.js: the position is reported this long after the last key or click

# timeline.js's layout, in CSS pixels: the time axis runs from TL.left to the width less TL.right;
# the guide's row is at y = 34, the follower's at 58, the coverage band between 78 and 122.
TL_LEFT, TL_RIGHT = 70, 14
ROW_Y = {"guide": 34, "follower": 58, "coverage": 100}

HARNESS = page_html(
    "player",
    "A field outside the player",
    """
// Mounts the module as Streamlit mounts a custom component and records what it sends back
// (gw.calls) and every step the player shows, in order (gw.steps).
window.gw = {
  calls: [],
  steps: [],
  cleanup: null,
  async mount(js, html, css, data) {
    if (gw.cleanup) gw.cleanup();
    const [shadow, module] = await gwShadow(js, html, css);
    gw.module = module;
    gw.parent = shadow;
    gw.calls = [];
    const record = (kind) => (name, value) => gw.calls.push({kind, name, value: JSON.parse(JSON.stringify(value))});
    gw.cleanup = gw.module({name: "player", key: "player", data, parentElement: shadow,
                            setStateValue: record("state"), setTriggerValue: record("trigger")});
    const root = shadow.querySelector(".rp-root");
    gw.steps = [Number(root.dataset.step)];
    new MutationObserver(() => gw.steps.push(Number(root.dataset.step)))
      .observe(root, {attributes: true, attributeFilter: ["data-step"]});
  },
};
""",
)


@pytest.fixture(scope="module")
def payload() -> dict:
    """The tiny session's payload, with a follower checkpoint at action 2 and a guide one at 4."""
    session = tiny_session()
    session.checkpoints = [
        Checkpoint(role="follower", index=1, progress=0.25, action_index=2, elapsed_s=9, team_goal="drawing"),
        Checkpoint(role="guide", index=1, progress=0.5, action_index=4, elapsed_s=15, team_goal="the lake"),
    ]
    return player_payload(rp.build_frames(session, tiny_map()))


@pytest.fixture(scope="module")
def tab(browser, browser_context_args):
    """One tab for the module, on the harness page, in a context whose fake clock is paused."""
    yield from fake_clock_tab(browser, browser_context_args, ORIGIN, HARNESS)


def mount(tab, payload: dict, start: dict | None = None):
    """A new player of the session at ``start`` (the app's data for it); its root."""
    data = player_data(payload, start or START)
    tab.evaluate(
        "([js, html, css, data]) => gw.mount(js, html, css, data)", [player_js(), player_html(), player_css(), data]
    )
    return tab.locator(".rp-root")


def step(tab) -> int:
    return int(tab.locator(".rp-root").get_attribute("data-step"))


def reports(tab) -> list[dict]:
    """The positions reported so far; the player reports nothing else."""
    calls = tab.evaluate("gw.calls")
    assert all(c["kind"] == "state" and c["name"] == "position" for c in calls), calls
    return [c["value"] for c in calls]


def press(tab, *keys: str) -> None:
    for key in keys:
        tab.keyboard.press(key)


def focused_in_player(tab) -> str | None:
    """The class of the element focused inside the player (None: nothing in it has the focus)."""
    return tab.evaluate("() => gw.parent.activeElement ? gw.parent.activeElement.className : null")


def test_a_player_opens_at_its_start_position_and_reports_nothing(tab, payload):
    """The start position (step, view, route overlay) is shown at once, and being mounted is not a
    move of the user's: nothing is reported, however long the player is left alone."""
    root = mount(tab, payload, {"step": 3, "view": "follower", "route": True})
    assert step(tab) == 3 and root.get_attribute("data-view") == "follower"
    assert tab.locator(".rp-count").text_content() == "Action 4 of 6"
    assert tab.locator(".rp-clock").text_content() == "· 0:12 into the session"
    assert tab.locator("button[data-view=follower]").get_attribute("aria-pressed") == "true"
    assert tab.locator("button[data-view=guide]").get_attribute("aria-pressed") == "false"
    assert tab.locator(".rp-route").is_checked() and tab.locator(".rp-scrub").input_value() == "3"
    assert tab.locator(".rp-transcript .rp-cur").get_attribute("data-pos") == "3"
    assert tab.locator(".rp-current blockquote").text_content() == "no, go right of the lake"
    tab.clock.run_for(2_000)
    assert reports(tab) == []


def test_arrow_keys_home_and_end_step_within_the_session(tab, payload):
    """Right and Left move one action, Home and End to the first and last, never past either end;
    Prev and Next are disabled at the ends."""
    mount(tab, payload)
    press(tab, "ArrowLeft")
    assert step(tab) == 0 and tab.locator("[data-act=prev]").is_disabled()
    press(tab, "ArrowRight", "ArrowRight")
    assert step(tab) == 2
    press(tab, "ArrowLeft")
    assert step(tab) == 1
    press(tab, "End")
    assert step(tab) == 5 and tab.locator("[data-act=next]").is_disabled()
    press(tab, "ArrowRight")
    assert step(tab) == 5
    press(tab, "Home")
    assert step(tab) == 0
    assert tab.evaluate("gw.steps") == [0, 1, 2, 1, 5, 0]  # each key drew once, nothing in between


def test_the_position_is_reported_once_the_keys_stop(tab, payload):
    """A run of keys is reported once, 300 ms after the last of them (each key restarts the wait);
    moving away and back to the position last reported reports nothing."""
    mount(tab, payload)
    press(tab, "ArrowRight")
    tab.clock.run_for(200)
    press(tab, "ArrowRight")
    tab.clock.run_for(200)
    press(tab, "ArrowRight")
    tab.clock.run_for(REPORT_AFTER_MS - 1)
    assert reports(tab) == []  # 699 ms after the first key, 299 ms after the last
    tab.clock.run_for(1)
    assert reports(tab) == [{"step": 3, "view": "guide", "route": False}]
    press(tab, "ArrowRight", "ArrowLeft")
    tab.clock.run_for(1_000)
    assert len(reports(tab)) == 1  # back where it was reported: not reported again


def test_space_plays_and_pauses_and_the_position_is_reported_on_pause_only(tab, payload):
    """Space plays at the default speed (2 actions a second, uniform) through every action; nothing
    is reported while it plays, however long; a key while playing moves on without a report and
    playback goes on from there; space again pauses, and the pause reports the position at once.
    A held space (repeated keydown) toggles once."""
    root = mount(tab, payload)
    press(tab, " ")
    assert root.get_attribute("data-playing") == "true"
    assert tab.locator(".rp-play").text_content() == "❚❚ Pause"
    tab.clock.run_for(1_250)  # 2.5 actions' worth of time
    assert step(tab) == 2 and tab.evaluate("gw.steps") == [0, 1, 2]
    press(tab, "ArrowRight")
    assert step(tab) == 3
    tab.clock.run_for(400)  # the next action is due 500 ms after the key
    assert step(tab) == 3
    tab.clock.run_for(200)
    assert step(tab) == 4
    assert reports(tab) == []
    tab.keyboard.down(" ")  # pauses
    tab.keyboard.down(" ")  # the key held down: a repeat, which would play again if it toggled
    tab.keyboard.up(" ")
    assert root.get_attribute("data-playing") == "false"
    assert tab.locator(".rp-play").text_content() == "▶︎ Play"
    assert reports(tab) == [{"step": 4, "view": "guide", "route": False}]
    tab.clock.run_for(2_000)
    assert step(tab) == 4 and len(reports(tab)) == 1


def test_playback_stops_at_the_last_action_and_plays_again_from_the_first(tab, payload):
    """Playing into the last action pauses there and reports it; space at the end starts again
    from the first action."""
    root = mount(tab, payload, {"step": 3, "view": "guide", "route": False})
    press(tab, " ")
    tab.clock.run_for(1_250)
    assert step(tab) == 5 and root.get_attribute("data-playing") == "false"
    assert reports(tab) == [{"step": 5, "view": "guide", "route": False}]
    press(tab, " ")
    assert step(tab) == 0 and root.get_attribute("data-playing") == "true"
    tab.clock.run_for(600)
    assert step(tab) == 1 and len(reports(tab)) == 1
    press(tab, " ")
    assert reports(tab)[1:] == [{"step": 1, "view": "guide", "route": False}]


def test_speed_and_real_time_playback(tab, payload):
    """At 8 actions a second playback moves 8 times as fast; in real time it keeps the session's own
    clock, sped up (at 2x the action at 5 s shows after 2.5 s, the one at 9 s after 4.5 s)."""
    mount(tab, payload)
    tab.locator(".rp-speed").select_option("8")
    assert focused_in_player(tab) is None  # the select gives the keys back
    press(tab, " ")
    tab.clock.run_for(300)
    assert step(tab) == 2
    press(tab, " ", "Home")
    tab.locator(".rp-mode").select_option("real_time")
    assert tab.locator(".rp-speed option:checked").text_content() == "8x"
    tab.locator(".rp-speed").select_option("2")
    tab.evaluate("gw.steps = []")
    press(tab, " ")
    tab.clock.run_for(2_400)
    assert step(tab) == 0
    tab.clock.run_for(300)
    assert step(tab) == 1
    tab.clock.run_for(1_600)
    assert step(tab) == 1
    tab.clock.run_for(300)
    assert step(tab) == 2
    assert tab.evaluate("gw.steps") == [1, 2]  # each reached once, in order


def test_jump_buttons_go_to_the_next_action_of_their_kind(tab, payload):
    """Message, Drawing, Checkpoint and Not aligned go to the next such action (the payload's
    ``next`` lookups), are disabled with a reason where there is none, leave the keys with the
    player, and report once the clicks stop."""
    mount(tab, payload)
    jump = lambda kind: tab.locator(f"[data-jump={kind}]")  # noqa: E731
    assert payload["next"]["message"][0] == 3 and jump("message").get_attribute("title") == "Action 4"
    jump("checkpoint").click()
    assert step(tab) == 2
    assert tab.locator(".rp-anchor summary").text_content().startswith("Memory anchor: checkpoint 1 (follower")
    jump("checkpoint").click()
    assert step(tab) == 4
    assert (
        jump("checkpoint").is_disabled() and jump("checkpoint").get_attribute("title") == "No checkpoint after this one"
    )
    assert jump("message").is_disabled() and jump("not_aligned").is_disabled()
    jump("drawing").click()
    assert step(tab) == 5 and jump("drawing").is_disabled()
    assert focused_in_player(tab) is None
    press(tab, "Home")
    jump("not_aligned").click()
    jump("not_aligned").click()
    assert step(tab) == 3
    assert jump("message").is_disabled()  # no message after the last one
    press(tab, "ArrowLeft")  # the keys are still the player's
    assert step(tab) == 2
    assert reports(tab) == []
    tab.clock.run_for(REPORT_AFTER_MS)
    assert reports(tab) == [{"step": 2, "view": "guide", "route": False}]


def _timeline(tab, payload: dict):
    """Where on the page a moment of the session is drawn on the timeline, in a row: a function of
    (seconds, row) giving (x, y) for the mouse. The timeline is in view at this viewport."""
    box = tab.locator(".rp-timeline").bounding_box()
    end = max(payload["steps"]["time"][-1], payload["duration"], 1)

    def at(seconds: float, row: str) -> tuple[float, float]:
        x = TL_LEFT + seconds / end * (box["width"] - TL_LEFT - TL_RIGHT)
        return box["x"] + x, box["y"] + ROW_Y[row]

    return at


def test_a_click_on_the_timeline_seeks_to_the_nearest_action_in_its_row(tab, payload):
    """A click on an actor's row picks that actor's nearest action; elsewhere, the nearest of
    anyone's. A pointer over an action names it."""
    mount(tab, payload)
    at = _timeline(tab, payload)
    tab.mouse.click(*at(12, "guide"))
    assert step(tab) == 3
    tab.mouse.click(*at(9.5, "follower"))
    assert step(tab) == 2
    tab.mouse.click(*at(5, "guide"))  # the follower's action 1 is at 5 s; the guide's nearest is action 0
    assert step(tab) == 0
    tab.mouse.click(*at(5, "follower"))
    assert step(tab) == 1
    tab.mouse.click(*at(14, "coverage"))  # guide at 12 s, follower at 15 s: the nearer one
    assert step(tab) == 4
    tab.mouse.move(*at(20, "follower"))
    assert tab.locator(".rp-timeline").get_attribute("title") == "Action 6 · 0:20 · follower undo · aligned"
    tab.clock.run_for(REPORT_AFTER_MS)
    assert reports(tab) == [{"step": 4, "view": "guide", "route": False}]


def test_dragging_on_the_timeline_follows_the_pointer_and_reports_where_it_stops(tab, payload):
    """A drag seeks at every point it passes; the position is reported once, after it stops."""
    mount(tab, payload)
    at = _timeline(tab, payload)
    tab.mouse.move(*at(0, "guide"))
    tab.mouse.down()
    tab.mouse.move(*at(9, "follower"))
    tab.clock.run_for(200)
    tab.mouse.move(*at(12, "guide"))
    tab.clock.run_for(200)
    tab.mouse.move(*at(15, "follower"))
    tab.mouse.up()
    tab.mouse.move(*at(20, "follower"))  # after the button is up, a move only hovers
    assert tab.evaluate("gw.steps") == [0, 2, 3, 4]
    tab.clock.run_for(REPORT_AFTER_MS - 1)
    assert reports(tab) == []
    tab.clock.run_for(1)
    assert reports(tab) == [{"step": 4, "view": "guide", "route": False}]


def test_the_scrub_bar_seeks_and_keeps_the_arrow_keys_the_players(tab, payload):
    """Moving the scrub bar seeks; with the focus on it, the arrow keys still step the player by one
    (not the slider's own step), and the bar follows."""
    mount(tab, payload)
    scrub = tab.locator(".rp-scrub")
    assert scrub.get_attribute("max") == "5"
    scrub.fill("4")
    assert step(tab) == 4
    scrub.focus()
    press(tab, "ArrowLeft", "ArrowLeft")
    assert step(tab) == 2 and scrub.input_value() == "2"
    tab.clock.run_for(REPORT_AFTER_MS)
    assert reports(tab) == [{"step": 2, "view": "guide", "route": False}]


def test_keys_typed_into_a_field_outside_the_player_stay_there(tab, payload):
    """The player listens on the window, but keys typed into another field of the page (or with
    Ctrl) are not its."""
    mount(tab, payload)
    outside = tab.locator("#outside")
    outside.click()
    press(tab, "ArrowRight", "End", " ")
    outside.type("a b")
    assert step(tab) == 0 and outside.input_value() == " a b"
    assert tab.locator(".rp-root").get_attribute("data-playing") == "false"
    outside.blur()
    press(tab, "Control+ArrowRight")
    assert step(tab) == 0
    press(tab, "ArrowRight")
    assert step(tab) == 1


def test_the_map_view_and_route_overlay_are_reported_with_the_step(tab, payload):
    """The view buttons and the route box change what is shown at once and are reported, with the
    step, once the user stops; the route box is for the Follower's map only."""
    root = mount(tab, payload)
    route = tab.locator(".rp-route")
    assert route.is_disabled() and tab.locator(".rp-maps canvas").count() == 1
    press(tab, "ArrowRight")
    tab.locator("button[data-view=both]").click()
    assert root.get_attribute("data-view") == "both" and tab.locator(".rp-maps canvas").count() == 2
    assert route.is_enabled()
    route.check()
    assert focused_in_player(tab) is None  # the box gives the keys back
    tab.clock.run_for(REPORT_AFTER_MS)
    assert reports(tab) == [{"step": 1, "view": "both", "route": True}]
    tab.locator("button[data-view=follower]").click()
    tab.clock.run_for(REPORT_AFTER_MS)
    assert reports(tab)[1:] == [{"step": 1, "view": "follower", "route": True}]


# ---------------------------------------------------------------------------------------------
# A stroke with no cell change, flagged
# ---------------------------------------------------------------------------------------------

NO_CHANGE_RGB = (180, 83, 9)  # timeline.js's NO_CHANGE_COLOR, #b45309


@pytest.fixture(scope="module")
def flagged_payload() -> dict:
    """The tiny session with its second stroke (action 2, at 9 s) one that changed no grid cell."""
    session = tiny_session()
    actions = list(session.actions)
    actions[2] = Action.model_validate(
        {**actions[2].model_dump(), "content": None, "no_cell_change": "changed_no_cell"}
    )
    return player_payload(rp.build_frames(session.model_copy(update={"actions": actions}), tiny_map()))


def _no_change_pixels(tab, payload: dict, seconds: float, row: str) -> int:
    """How many pixels of the timeline around an action's marker are drawn in the no-change colour."""
    box = tab.locator(".rp-timeline").bounding_box()
    end = max(payload["steps"]["time"][-1], payload["duration"], 1)
    x = TL_LEFT + seconds / end * (box["width"] - TL_LEFT - TL_RIGHT)
    return tab.evaluate(
        """([x, y, rgb]) => {
          const canvas = gw.parent.querySelector(".rp-timeline");
          const dpr = canvas.width / canvas.getBoundingClientRect().width;
          const r = Math.round(10 * dpr);
          const px = canvas.getContext("2d").getImageData(Math.round(x * dpr) - r, Math.round(y * dpr) - r, 2 * r, 2 * r).data;
          let n = 0;
          for (let i = 0; i < px.length; i += 4) {
            if (Math.abs(px[i] - rgb[0]) < 25 && Math.abs(px[i + 1] - rgb[1]) < 25 && Math.abs(px[i + 2] - rgb[2]) < 25 && px[i + 3] > 100) n++;
          }
          return n;
        }""",
        [x, ROW_Y[row], list(NO_CHANGE_RGB)],
    )


def test_a_stroke_with_no_cell_change_is_flagged_with_its_reason(tab, payload, flagged_payload):
    """The current action's panel says it changed no cell and why; its transcript line is marked
    and names the reason; the timeline marks it (and only it) and names the reason on hover; the
    legend says what the mark is."""
    mount(tab, flagged_payload, {"step": 2, "view": "guide", "route": False})
    reason = "changed no grid cell"
    assert tab.locator(".rp-current .rp-act").text_content() == f"✏ brush stroke with no cell change ({reason})"
    assert tab.locator(".rp-current .rp-flag").text_content() == (
        f"No cell change: {reason}. The canvas stays as it was; the annotation is the actor's."
    )
    row = tab.locator(".rp-transcript .rp-row[data-pos='2']")
    assert "rp-nochange" in row.get_attribute("class") and row.get_attribute("title") == f"No cell change: {reason}"
    assert tab.locator(".rp-transcript .rp-nochange").count() == 1
    press(tab, "Home")  # (the current action's ring away from the follower's markers)
    assert _no_change_pixels(tab, flagged_payload, 9, "follower") > 20
    assert _no_change_pixels(tab, flagged_payload, 5, "follower") == 0
    assert _no_change_pixels(tab, flagged_payload, 15, "follower") == 0
    at = _timeline(tab, flagged_payload)
    tab.mouse.move(*at(9, "follower"))
    assert tab.locator(".rp-timeline").get_attribute("title") == (
        f"Action 3 · 0:09 · follower draw · not aligned · no cell change: {reason}"
    )
    assert "no cell change (kept for its annotation)" in tab.locator(".rp-tl-legend").text_content()
    press(tab, "End")
    assert step(tab) == 5 and tab.locator(".rp-current .rp-flag").count() == 0
    # The same session without it: no flag, no mark, no legend key.
    mount(tab, payload)
    assert tab.locator(".rp-current .rp-flag").count() == 0 and tab.locator(".rp-nochange").count() == 0
    assert "no cell change" not in tab.locator(".rp-tl-legend").text_content()
    assert _no_change_pixels(tab, payload, 9, "follower") == 0
