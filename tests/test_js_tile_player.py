"""The tile player's JavaScript on its own, in headless chromium without Streamlit: keys, playback
on a fake clock, the First / Last and jump buttons, the timeline and the scrub bar, the tiles as
they change and change back, the agents, text from the data kept as text, and when the position is
reported back.

The page is built as tests/test_js_player.py builds it for the Map Task player (js_harness): the
tile player's module (the shared core.js and timeline_base.js with the tile_*.js files, joined as
the app sends them) mounted in an open shadow root, ``setStateValue`` recording into ``window``.
The data is what the app sends: :meth:`analysis.tile_replay.TilePayload.to_json` of the toy unit
below, with the palette and start of :func:`components.tile_player.player_data`.

The toy unit, on a 4 x 3 grid of walls (#), floor (.) and a pot (o): five steps; Ann and Bob walk;
at step 11 the pot turns into a spill (x) with a note, at step 13 it is a pot again; marks: a goal
at steps 11 and 13, a fix at step 12."""

from __future__ import annotations

import pytest
from js_harness import fake_clock_tab, page_html

from analysis.tile_replay import (
    Agent,
    AgentAt,
    Grid,
    MarkKind,
    Message,
    MessageKind,
    Step,
    TileChange,
    TileKind,
    TilePayload,
    Timeline,
)
from components.replay.assets import tile_player_css, tile_player_html, tile_player_js
from components.tile_player import AGENT_COLOURS, FILL_COLOURS, player_data

pytestmark = pytest.mark.browser

ORIGIN = "https://tile-player.groundwork.test"
REPORT_AFTER_MS = 300  # core.js: the position is reported this long after the last key or click
HOSTILE = '<img src=x onerror="window.owned=1">'

# tile_timeline.js's layout, in CSS pixels: columns from TT.left to the width less TT.right; a row
# of 14 per kind of mark from y = 6.
TT_LEFT, TT_RIGHT, TT_TOP, TT_ROW = 132, 12, 6, 14

HARNESS = page_html(
    "tile player",
    "A field outside the player",
    """
window.gw = {
  calls: [],
  steps: [],
  cleanup: null,
  async mount(js, html, css, data) {
    if (gw.cleanup) gw.cleanup();
    const [shadow, module] = await gwShadow(js, html, css);
    gw.parent = shadow;
    gw.calls = [];
    const record = (kind) => (name, value) => gw.calls.push({kind, name, value: JSON.parse(JSON.stringify(value))});
    gw.cleanup = module({name: "tile", key: "tile", data, parentElement: shadow,
                         setStateValue: record("state"), setTriggerValue: record("trigger")});
    const root = shadow.querySelector(".tp-root");
    gw.steps = [Number(root.dataset.step)];
    new MutationObserver(() => gw.steps.push(Number(root.dataset.step)))
      .observe(root, {attributes: true, attributeFilter: ["data-step"]});
  },
  // The colour of the grid's pixel at (x, y) CSS pixels from its top left, as [r, g, b].
  pixel(x, y) {
    const canvas = gw.parent.querySelector(".tp-grid");
    const dpr = canvas.width / canvas.getBoundingClientRect().width;
    return Array.from(canvas.getContext("2d").getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data.slice(0, 3));
  },
};
""",
)


def toy() -> TilePayload:
    legend = (
        TileKind("#", "wall", "grey"),
        TileKind(".", "floor", "white"),
        TileKind("o", "pot", "yellow", "pot"),
        TileKind("x", "spill", "red", "spill"),
    )
    steps = (
        Step(10, (AgentAt(1, 1, "east"), AgentAt(0, 1, "south")), messages=(Message("Ann", HOSTILE, "said"),)),
        Step(
            11,
            (AgentAt(1, 1, "north", "key"), AgentAt(0, 2)),
            changes=(TileChange(1, 2, "x", "wet"),),
            messages=(Message("Bob", "mind the spill", "said"), Message("Ann", "wipe(floor)", "did", "took 2 s")),
            panel=(("Score", "1"), ("Holding", "key")),
            marks=("goal",),
            caption="Step 11: score 1",
        ),
        Step(12, (AgentAt(1, 1, "west"), None), panel=(("Score", "1"),), marks=("fix",), caption="Step 12: score 1"),
        Step(13, (AgentAt(1, 1, "west"), None), changes=(TileChange(1, 2, "o"),), marks=("goal",), caption="13"),
        Step(14, (AgentAt(1, 1, "west"), AgentAt(0, 1)), caption="Step 14: the end"),
    )
    return TilePayload(
        unit="toy-1",
        title="Toy episode",
        grid=Grid(4, 3, ("#..#", "#.o#", "####"), legend),
        agents=(Agent("Ann", 0), Agent("Bob", 1)),
        steps=steps,
        timeline=Timeline.count_messages(steps),
        message_kinds=(MessageKind("said", "Said"), MessageKind("did", "Done")),
        mark_kinds=(MarkKind("goal", "goal reached", "green", "circle"), MarkKind("fix", "fix", "red", "x")),
        step_noun="step",
    )


@pytest.fixture(scope="module")
def payload() -> dict:
    return toy().to_json()


@pytest.fixture(scope="module")
def tab(browser, browser_context_args):
    yield from fake_clock_tab(browser, browser_context_args, ORIGIN, HARNESS)


def mount(tab, payload: dict, step: int = 0):
    tab.evaluate(
        "([js, html, css, data]) => gw.mount(js, html, css, data)",
        [tile_player_js(), tile_player_html(), tile_player_css(), player_data(payload, step)],
    )
    return tab.locator(".tp-root")


def step(tab) -> int:
    return int(tab.locator(".tp-root").get_attribute("data-step"))


def reports(tab) -> list[dict]:
    calls = tab.evaluate("gw.calls")
    assert all(c["kind"] == "state" and c["name"] == "position" for c in calls), calls
    return [c["value"] for c in calls]


def press(tab, *keys: str) -> None:
    for key in keys:
        tab.keyboard.press(key)


def rgb(hex_colour: str) -> list[int]:
    return [int(hex_colour[i : i + 2], 16) for i in (1, 3, 5)]


def near(got: list[int], want: list[int]) -> bool:
    return all(abs(a - b) <= 6 for a, b in zip(got, want))


def test_a_player_opens_at_its_start_step_and_reports_nothing(tab, payload):
    """The start step is shown at once with its caption, panel and messages grouped by kind; being
    mounted is not a move of the user's: nothing is reported, however long it is left alone."""
    mount(tab, payload, 1)
    assert step(tab) == 1
    assert tab.locator(".rp-count").text_content() == "Step 11 (2 of 5)"
    assert tab.locator(".tp-caption").text_content() == "Step 11: score 1"
    assert tab.locator(".tp-panel dt").all_text_contents() == ["Score", "Holding"]
    assert tab.locator(".tp-panel dd").all_text_contents() == ["1", "key"]
    assert tab.locator(".tp-kind").all_text_contents() == ["Said", "Done"]
    assert tab.locator(".tp-msg").all_text_contents() == ["Bob mind the spill", "Ann wipe(floor)took 2 s"]
    assert tab.locator(".rp-scrub").input_value() == "1" and tab.locator(".rp-scrub").get_attribute("max") == "4"
    tab.clock.run_for(2_000)
    assert reports(tab) == []


def test_text_from_the_data_stays_text(tab, payload):
    """A message holding markup is shown as written; no element is made from it."""
    mount(tab, payload)
    assert tab.locator(".tp-msg .tp-text").text_content() == HOSTILE
    assert tab.locator(".tp-root img").count() == 0 and tab.evaluate("window.owned") is None


def test_keys_and_the_first_and_last_buttons_step_within_the_unit(tab, payload):
    """Right and Left move a step, Home and End (and First and Last) to the first and the last, never
    past either end; the buttons are disabled at the ends; each key draws once."""
    mount(tab, payload)
    assert tab.locator("[data-act=prev]").is_disabled() and tab.locator("[data-act=first]").is_disabled()
    press(tab, "ArrowLeft", "ArrowRight", "ArrowRight", "ArrowLeft", "End")
    assert step(tab) == 4 and tab.locator("[data-act=last]").is_disabled()
    press(tab, "ArrowRight", "Home")
    tab.locator("[data-act=last]").click()
    tab.locator("[data-act=prev]").click()
    tab.locator("[data-act=first]").click()
    assert tab.evaluate("gw.steps") == [0, 1, 2, 1, 4, 0, 4, 3, 0]
    assert tab.evaluate("() => gw.parent.activeElement") is None  # the buttons leave the keys to the player


def test_the_step_is_reported_once_the_keys_stop(tab, payload):
    """A run of keys is reported once, 300 ms after the last; back at the step reported, nothing."""
    mount(tab, payload)
    press(tab, "ArrowRight")
    tab.clock.run_for(200)
    press(tab, "ArrowRight")
    tab.clock.run_for(REPORT_AFTER_MS - 1)
    assert reports(tab) == []
    tab.clock.run_for(1)
    assert reports(tab) == [{"step": 2}]
    press(tab, "ArrowRight", "ArrowLeft")
    tab.clock.run_for(1_000)
    assert len(reports(tab)) == 1


def test_space_plays_steps_and_pauses_with_a_report(tab, payload):
    """Space plays at 2 steps a second; nothing is reported while it plays; space pauses and
    reports; playing into the last step stops there and reports it."""
    root = mount(tab, payload)
    assert tab.locator(".rp-speed option:checked").text_content() == "2 steps/s"
    press(tab, " ")
    assert root.get_attribute("data-playing") == "true"
    tab.clock.run_for(1_250)
    assert step(tab) == 2 and reports(tab) == []
    press(tab, " ")
    assert root.get_attribute("data-playing") == "false" and reports(tab) == [{"step": 2}]
    press(tab, " ")
    tab.clock.run_for(2_000)
    assert step(tab) == 4 and root.get_attribute("data-playing") == "false"
    assert reports(tab) == [{"step": 2}, {"step": 4}]


def test_jump_buttons_go_to_the_next_step_with_their_mark(tab, payload):
    """One button per kind of mark, titled with the step it goes to, disabled with a reason where
    no later step has it."""
    mount(tab, payload)
    goal, fix = tab.locator("[data-jump=goal]"), tab.locator("[data-jump=fix]")
    assert goal.text_content() == "goal reached" and goal.get_attribute("title") == "Step 11"
    goal.click()
    assert step(tab) == 1
    goal.click()
    assert step(tab) == 3
    assert goal.is_disabled() and goal.get_attribute("title") == "No goal reached after this one"
    assert fix.is_disabled()
    press(tab, "Home")
    fix.click()
    assert step(tab) == 2
    tab.clock.run_for(REPORT_AFTER_MS)
    assert reports(tab) == [{"step": 2}]


def test_a_click_on_the_timeline_seeks_and_the_pointer_names_the_step(tab, payload):
    """A click picks the step of its column; a drag follows the pointer and is reported once it
    stops; the pointer over a column names the step, its counts and its marks. Nothing on the page
    moves as the steps change (the timeline stays under the pointer)."""
    mount(tab, payload)
    box = tab.locator(".rp-timeline").bounding_box()
    for key in ("ArrowRight", "ArrowRight", "ArrowRight", "ArrowRight", "Home"):
        press(tab, key)
        assert tab.locator(".rp-timeline").bounding_box() == box, step(tab)
    tab.evaluate("gw.steps = [0]")
    slot = (box["width"] - TT_LEFT - TT_RIGHT) / 5

    def at(i: int, row: int = 0) -> tuple[float, float]:
        return box["x"] + TT_LEFT + (i + 0.5) * slot, box["y"] + TT_TOP + row * TT_ROW + 7

    tab.mouse.click(*at(3))
    assert step(tab) == 3
    tab.mouse.move(*at(1, 1))
    assert tab.locator(".rp-timeline").get_attribute("title") == "Step 11 · messages 2 · goal reached"
    tab.mouse.move(*at(0))
    tab.mouse.down()
    tab.mouse.move(*at(2))
    tab.mouse.move(*at(4))
    tab.mouse.up()
    assert tab.evaluate("gw.steps") == [0, 3, 0, 2, 4]
    tab.clock.run_for(REPORT_AFTER_MS)
    assert reports(tab) == [{"step": 4}]


def test_tiles_change_and_change_back_and_agents_stand_where_they_are(tab, payload):
    """The pot's tile is a spill from step 11 (the spill's colour) and a pot again at 13, stepping
    forward and back, and at a start past the change; Ann's triangle is on her tile, Bob's on his
    while he is on the grid."""
    mount(tab, payload)
    px = int(tab.locator(".tp-grid").get_attribute("data-cell-px"))
    pot, spill = rgb(FILL_COLOURS["yellow"][0]), rgb(FILL_COLOURS["red"][0])
    corner = (2 * px + 3, 1 * px + 3)  # inside the tile at row 1, column 2, clear of its text
    ann, bob = rgb(AGENT_COLOURS[0]), rgb(AGENT_COLOURS[1])
    centre = lambda r, c: ((c + 0.5) * px, (r + 0.5) * px - px / 10)  # noqa: E731  (an agent's mark)
    seen = []
    for key in (None, "ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft", "ArrowLeft", "Home"):
        if key:
            press(tab, key)
        seen.append(step(tab))
        colour = tab.evaluate("([x, y]) => gw.pixel(x, y)", list(corner))
        assert near(colour, spill if step(tab) in (1, 2) else pot), (seen, colour)
        assert near(tab.evaluate("([x, y]) => gw.pixel(x, y)", list(centre(1, 1))), ann)
        bob_there = near(tab.evaluate("([x, y]) => gw.pixel(x, y)", list(centre(0, 1 if step(tab) == 0 else 2))), bob)
        assert bob_there == (step(tab) in (0, 1)), seen
    assert seen == [0, 1, 2, 3, 2, 1, 0]
    mount(tab, payload, 2)
    assert near(tab.evaluate("([x, y]) => gw.pixel(x, y)", list(corner)), spill)


def test_keys_typed_into_a_field_outside_the_player_stay_there(tab, payload):
    mount(tab, payload)
    outside = tab.locator("#outside")
    outside.click()
    press(tab, "ArrowRight", "End", " ")
    assert step(tab) == 0 and tab.locator(".tp-root").get_attribute("data-playing") == "false"
    outside.blur()
    press(tab, "ArrowRight")
    assert step(tab) == 1


def test_the_legends_name_every_tile_agent_and_mark(tab, payload):
    mount(tab, payload)
    assert tab.locator(".tp-legend .rp-key").all_text_contents() == ["wall", "floor", "pot", "spill", "▲Ann", "▲Bob"]
    assert tab.locator(".rp-tl-legend .rp-key").all_text_contents() == [
        "messages per step",
        "●goal reached",
        "✕fix",
        "current step",
    ]
