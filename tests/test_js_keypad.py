"""The coding keypad's JavaScript on its own, in headless chromium without Streamlit: code keys and
clicks, the note and the unsure flag, the keys that belong to the note, drafts per item, and the
hand-over while a label is being saved (the server's answer, a refusal, an answer that never comes,
and typing at full speed while the next item arrives).

The page is built here. It mounts ``keypad.js`` the way Streamlit mounts a custom component: its
HTML and CSS in an open shadow root, the module imported from a blob URL (a new module for each
test, so no test sees another's drafts), mounted again with the same parent whenever the data
changes (keeping, as Streamlit 1.67 does, only the cleanup the last call returned, run when the
keypad leaves the page), ``setTriggerValue`` recording into ``window``. The data is what the app sends:
:func:`components.coding.keypad.keypad_data` for the default codebook (codes on keys 1 to 8, the
note on ``n``, the unsure flag on ``?``).

A small stand-in for the app answers labels in the page: told to, it answers each label a set
number of keys after the key that sent it (between that key's keyup and the next keydown, as a
rerun's data arrives between two keys), with the next item's data and the label's request id as
``ack``, as :func:`components.coding.keypad.receive_label` and the screen's next run do. A label
the keypad sends on such an answer (a code key pressed while the last label was being saved, and
queued) is recorded with the item that answer brought.

The module has a tab of its own in a browser context of its own, whose clock is Playwright's fake
clock, paused: the keypad's 8 s unlock happens only when a test runs the clock forward. (The fake
clock belongs to a whole browser context, so it would reach every tab of the suite's shared one.)"""

from __future__ import annotations

import dataclasses
import re

import pytest
from js_harness import fake_clock_tab, page_html

from components.coding.keypad import _asset, keypad_data
from corpus import codebook as cbm
from corpus.store.base import Task

pytestmark = pytest.mark.browser

ORIGIN = "https://keypad.groundwork.test"
ITEMS = ["S01:3", "S01:7", "S02:1", "S02:4", "S03:2"]
UNLOCK_AFTER_MS = 8_000  # keypad.js: a label with no answer unlocks the keypad after this long

HARNESS = page_html(
    "keypad",
    "A field outside the keypad",
    """
// Mounts the module as Streamlit mounts a custom component, records what it sends (gw.calls) and
// which item was shown when each key went down (gw.keys), and stands in for the app (gw.server).
// gw.arriving: the item of the data being rendered, while it is (a label sent then is for it).
window.gw = {
  calls: [],
  keys: [],
  keyups: 0,
  pending: [],
  server: null,
  cleanup: null,
  arriving: null,
  async mount(js, html, css, data) {
    if (gw.cleanup) gw.cleanup();
    gw.cleanup = null;
    const [shadow, module] = await gwShadow(js, html, css);
    gw.module = module;
    Object.assign(gw, {parent: shadow, calls: [], keys: [], keyups: 0, pending: [], server: null});
    gw.render(data);
  },
  // New data from the app: the module again, on the same parent. As Streamlit 1.67 does, only the
  // last call's cleanup is kept, to run when the keypad leaves the page (here: at the next mount).
  render(data) {
    const record = (kind) => (name, value) => {
      gw.calls.push({kind, name, value: JSON.parse(JSON.stringify(value)), key: gw.keys.length - 1,
                     arriving: gw.arriving});
      if (kind === "trigger" && name === "label" && gw.server) gw.answerLater(value);
    };
    gw.arriving = data.item;
    try {
      gw.cleanup = gw.module({name: "keypad", key: "keypad", data, parentElement: gw.parent,
                              setStateValue: record("state"), setTriggerValue: record("trigger")});
    } finally {
      gw.arriving = null;
    }
  },
  shown() {
    const root = gw.parent && gw.parent.querySelector(".kp-root");
    return root ? root.dataset.item : null;
  },
  // The app's answer to a saved label: the next item (the last one stays), acknowledging it.
  answerLater(label) {
    const s = gw.server;
    const next = s.order[Math.min(s.order.indexOf(label.item) + 1, s.order.length - 1)];
    const due = s.after === null ? Infinity : gw.keyups + 1 + s.after;
    gw.pending.push({due, data: {...s.saved[next], ack: label.request_id}});
  },
  flush() {
    while (gw.pending.length) gw.render(gw.pending.shift().data);
  },
};
window.addEventListener("keydown", (e) => gw.keys.push({key: e.key, shown: gw.shown()}), true);
window.addEventListener("keyup", () => {
  gw.keyups += 1;
  while (gw.pending.length && gw.pending[0].due <= gw.keyups) gw.render(gw.pending.shift().data);
}, true);
""",
)


def _task(codebook=None) -> Task:
    return Task(
        id=1,
        name="keys pilot",
        dataset="sample",
        codebook=codebook or cbm.default(),
        seed=21,
        context_k=2,
        show_canvas=False,
        phase="coding",
        share_agreement=False,
        n_items=len(ITEMS),
    )


TASK = _task()


def data(item: str, status: dict | None = None, *, enabled: bool = True, reason: str = "", task: Task = TASK) -> dict:
    """What the app sends the keypad for an item this coder has not labelled yet."""
    return keypad_data(task, item, None, enabled=enabled, disabled_reason=reason, status=status, focus=None)


def saved_reply(item: str) -> dict:
    """The app's data after a saved label, for the item shown next (the stand-in sets ``ack``)."""
    return data(item, {"kind": "success", "text": "Saved.", "ack": None, "saved": True})


@pytest.fixture(scope="module")
def tab(browser, browser_context_args):
    """One tab for the module, on the harness page, in a context whose fake clock is paused."""
    yield from fake_clock_tab(browser, browser_context_args, ORIGIN, HARNESS)


def mount(tab, first: dict):
    """A new keypad module on the page, showing ``first``; its root."""
    tab.evaluate(
        "([js, html, css, data]) => gw.mount(js, html, css, data)",
        [_asset("keypad.js"), _asset("keypad.html"), _asset("keypad.css"), first],
    )
    return tab.locator(".kp-root")


def render(tab, new: dict) -> None:
    """New data from the app for the mounted keypad."""
    tab.evaluate("(data) => gw.render(data)", new)


def serve(tab, after: int | None) -> None:
    """Answer every label from now on as saved, ``after`` keys after its key (None: only on flush)."""
    tab.evaluate(
        "(s) => { gw.server = s; }", {"order": ITEMS, "after": after, "saved": {i: saved_reply(i) for i in ITEMS}}
    )


def labels(tab) -> list[dict]:
    """The labels sent so far, each with the item shown when its key went down or, for a label
    sent when the app's data arrived (its key was queued), the item that data brought (``shown``);
    and ``queued``: whether it was sent then. The keypad sends nothing else."""
    calls, keys = tab.evaluate("[gw.calls, gw.keys]")
    assert all(c["kind"] == "trigger" and c["name"] == "label" for c in calls), calls
    return [
        {
            **c["value"],
            "shown": c["arriving"] or (keys[c["key"]]["shown"] if c["key"] >= 0 else None),
            "queued": c["arriving"] is not None,
        }
        for c in calls
    ]


def shown(tab) -> dict:
    """What the keypad shows: item, note, flag, state, status, and whether the codes are enabled."""
    return tab.evaluate("""() => {
        const q = (s) => gw.parent.querySelector(s);
        const root = q(".kp-root");
        return {
            item: root.dataset.item, note: q(".kp-note").value, unsure: q(".kp-unsure").checked,
            state: root.dataset.state, status: q(".kp-status").textContent, kind: q(".kp-status").dataset.kind,
            codes_enabled: [...gw.parent.querySelectorAll(".kp-code")].map((b) => !b.disabled),
            focus: gw.parent.activeElement ? gw.parent.activeElement.className : null,
        };
    }""")


def press(tab, *keys: str) -> None:
    for key in keys:
        tab.keyboard.press(key, delay=0)


def write_note(tab, text: str, leave: str = "Enter") -> None:
    """Open the note with its key, type ``text``, give the keys back with ``leave``."""
    press(tab, "n")
    tab.keyboard.type(text, delay=0)
    press(tab, leave)


def test_a_code_key_sends_one_label_with_the_note_and_flag_as_they_are(tab):
    """A code's key sends one label: the item shown, the code, the note (trimmed) and the flag as
    they are at that moment, and a fresh request id. The note and flag are then cleared for what
    comes next, and the codes wait for the answer."""
    mount(tab, data(ITEMS[0]))
    write_note(tab, "  repeats the plan  ")
    press(tab, "?", "3")
    [label] = labels(tab)
    assert re.fullmatch(r"[0-9a-f]{32}", label.pop("request_id"))
    assert label == {
        "item": ITEMS[0],
        "code": "acknowledge",
        "note": "repeats the plan",
        "unsure": True,
        "shown": ITEMS[0],
        "queued": False,
    }
    now = shown(tab)
    assert (now["note"], now["unsure"], now["state"]) == ("", False, "saving")
    assert now["status"] == "Saving Acknowledge…" and not any(now["codes_enabled"])


def test_a_click_on_a_code_sends_the_same_label_and_leaves_the_keys_to_the_keypad(tab):
    """A click sends what the code's key sends; the button does not take the focus."""
    mount(tab, data(ITEMS[0]))
    press(tab, "?")
    tab.locator(".kp-code[data-code=repair]").click()
    [label] = labels(tab)
    assert (label["item"], label["code"], label["note"], label["unsure"]) == (ITEMS[0], "repair", "", True)
    assert shown(tab)["focus"] is None  # nothing in the keypad took it
    press(tab, "1")  # the keys still reach the keypad, which queues the code until the answer
    assert len(labels(tab)) == 1
    assert shown(tab)["status"] == "Saving Repair… then Initiate."


def test_the_unsure_key_toggles_the_flag_and_sends_nothing(tab):
    """The unsure key (the data's, here ``?``) flips the box each time and sends no label."""
    mount(tab, data(ITEMS[0]))
    unsure = tab.locator(".kp-unsure")
    press(tab, "?")
    assert unsure.is_checked()
    press(tab, "?")
    assert not unsure.is_checked()
    press(tab, "?")
    assert unsure.is_checked() and labels(tab) == []
    assert tab.locator(".kp-unsure-text").text_content() == "Unsure (?)"


def test_each_key_is_handled_once_however_often_the_app_draws_the_keypad(tab):
    """The app draws the keypad anew with every rerun (the module's function called again on the
    same parent, only the last cleanup kept): a key still flips the flag once and sends one label,
    and once the keypad has left the page its keys are gone with it."""
    mount(tab, data(ITEMS[0]))
    for _ in range(3):
        render(tab, data(ITEMS[0]))
    press(tab, "?")
    assert shown(tab)["unsure"] is True
    press(tab, "1")
    assert len(labels(tab)) == 1 and shown(tab)["status"] == "Saving Initiate…"
    tab.evaluate("() => { document.getElementById('host').remove(); gw.cleanup(); }")
    press(tab, "2")
    assert len(labels(tab)) == 1
    tab.evaluate("() => document.body.append(Object.assign(document.createElement('div'), {id: 'host'}))")


def test_keys_typed_in_the_note_stay_in_the_note_until_enter_or_esc(tab):
    """The note's key opens the note without being typed into it; there, code keys, the note's and
    the flag's keys are text; Enter or Esc gives the keys back to the codes (the focus goes to the
    keypad), and the note key opens the note again at its end."""
    root = mount(tab, data(ITEMS[0]))
    press(tab, "n")
    assert shown(tab)["focus"] == "kp-note"
    tab.keyboard.type("1 n? 8", delay=0)
    now = shown(tab)
    assert (now["note"], now["unsure"], labels(tab)) == ("1 n? 8", False, [])
    press(tab, "Enter")
    assert shown(tab)["focus"] == "kp-root" and root.evaluate("(r) => r.getRootNode().activeElement === r")
    press(tab, "n")
    tab.keyboard.type(" more", delay=0)
    press(tab, "Escape")
    assert shown(tab)["focus"] == "kp-root"
    press(tab, "2")
    [label] = labels(tab)
    assert (label["code"], label["note"], label["unsure"]) == ("continue", "1 n? 8 more", False)


def test_keys_typed_into_another_field_of_the_page_are_left_alone(tab):
    """Code, flag and note keys typed into a field outside the keypad are that field's text."""
    mount(tab, data(ITEMS[0]))
    outside = tab.locator("#outside")
    outside.click()
    tab.keyboard.type("1?n2", delay=0)
    assert outside.input_value() == "1?n2"
    now = shown(tab)
    assert (now["note"], now["unsure"], labels(tab)) == ("", False, [])


def test_the_keypad_follows_the_command_keys_its_data_names(tab):
    """With codes on ``n`` and ``?``, the app names ``/`` for the note and ``!`` for the flag; the
    keypad uses those, and ``n`` and ``?`` give their codes (a letter in either case)."""
    cb = cbm.default()
    codes = (dataclasses.replace(cb.codes[0], key="n"), dataclasses.replace(cb.codes[1], key="?"), *cb.codes[2:])
    task = _task(dataclasses.replace(cb, codes=codes))
    first = data(ITEMS[0], task=task)
    assert (first["note_key"], first["unsure_key"]) == ("/", "!")
    mount(tab, first)
    press(tab, "!", "/")
    tab.keyboard.type("why", delay=0)
    press(tab, "Enter", "N")
    [label] = labels(tab)
    assert (label["code"], label["note"], label["unsure"]) == ("initiate", "why", True)
    render(tab, {**data(ITEMS[1], task=task), "ack": label["request_id"], "saved": True})
    press(tab, "?")
    assert [lab["code"] for lab in labels(tab)] == ["initiate", "continue"]


def test_a_code_that_needs_a_note_is_not_sent_without_one(tab):
    """A code the codebook marks as needing a note says how to add one instead of sending."""
    mount(tab, data(ITEMS[0]))
    press(tab, "8")
    assert labels(tab) == []
    assert shown(tab)["status"] == "Other (not a grounding act) needs a note: press n, write why, press Enter, then 8."
    write_note(tab, "a joke")
    press(tab, "8")
    assert [(lab["code"], lab["note"]) for lab in labels(tab)] == [("other", "a joke")]


def test_a_disabled_keypad_sends_nothing_and_says_why(tab):
    """Where the coder cannot label (here: adjudication), keys neither send, flag nor open the
    note, and the reason shows."""
    reason = "This task is being adjudicated: labels are frozen."
    mount(tab, data(ITEMS[0], enabled=False, reason=reason))
    press(tab, "n", "?", "1")
    now = shown(tab)
    assert labels(tab) == [] and (now["note"], now["unsure"], now["focus"]) == ("", False, None)
    assert now["status"] == reason and not any(now["codes_enabled"])


def test_drafts_are_kept_per_item(tab):
    """A note and flag typed for an item and not sent stay with that item when the coder moves to
    another and come back with it."""
    mount(tab, data(ITEMS[0]))
    write_note(tab, "for the first")
    press(tab, "?")
    render(tab, data(ITEMS[1]))
    assert (shown(tab)["note"], shown(tab)["unsure"]) == ("", False)
    write_note(tab, "for the second")
    render(tab, data(ITEMS[0]))
    assert (shown(tab)["note"], shown(tab)["unsure"]) == ("for the first", True)
    render(tab, data(ITEMS[1]))
    assert (shown(tab)["note"], shown(tab)["unsure"]) == ("for the second", False)
    assert labels(tab) == []


def test_a_refused_label_brings_its_note_and_flag_back(tab):
    """The app's answer naming the label as not saved puts its note and flag back in the item's
    fields (with anything typed since after the note), shows why, and frees the codes."""
    mount(tab, data(ITEMS[0]))
    write_note(tab, "because")
    press(tab, "?", "1")
    assert (shown(tab)["note"], shown(tab)["unsure"]) == ("", False)
    write_note(tab, "and more")
    [label] = labels(tab)
    refused = {"kind": "error", "text": "Not saved: the task is closed.", "ack": label["request_id"], "saved": False}
    render(tab, data(ITEMS[0], refused))
    now = shown(tab)
    assert (now["item"], now["note"], now["unsure"]) == (ITEMS[0], "because and more", True)
    assert (now["state"], now["kind"], now["status"]) == ("ready", "error", "Not saved: the task is closed.")
    assert all(now["codes_enabled"])
    press(tab, "4")
    assert [(lab["item"], lab["code"], lab["note"], lab["unsure"]) for lab in labels(tab)][1:] == [
        (ITEMS[0], "repair", "because and more", True)
    ]


def test_a_saved_label_moves_on_with_what_was_typed_after_its_key(tab):
    """The answer naming the label as saved shows the next item; text typed into the note after
    the label's key belongs to that item, never to the label."""
    mount(tab, data(ITEMS[0]))
    write_note(tab, "first note")
    press(tab, "1")
    write_note(tab, "second note")
    [label] = labels(tab)
    render(tab, {**saved_reply(ITEMS[1]), "ack": label["request_id"]})
    now = shown(tab)
    assert (now["item"], now["note"], now["state"], now["status"]) == (ITEMS[1], "second note", "ready", "Saved.")
    assert label["note"] == "first note"
    render(tab, data(ITEMS[0]))  # back to the first item: its sent note is not a draft any more
    assert shown(tab)["note"] == ""


def test_an_answer_that_never_comes_unlocks_the_keypad_after_8_seconds(tab):
    """With no answer, the codes stay locked for 8 s; then the note and flag come back and the
    keypad asks the coder to check the label."""
    mount(tab, data(ITEMS[0]))
    write_note(tab, "x")
    press(tab, "?", "1")
    tab.clock.run_for(UNLOCK_AFTER_MS - 1)
    assert shown(tab)["state"] == "saving"
    tab.clock.run_for(1)
    now = shown(tab)
    assert (now["item"], now["note"], now["unsure"], now["state"]) == (ITEMS[0], "x", True, "ready")
    assert now["status"] == "No answer from the server yet: check your label below before going on."
    assert all(now["codes_enabled"]) and len(labels(tab)) == 1


def test_an_unanswered_label_gives_its_note_back_to_its_own_item(tab):
    """A label is sent, then the app shows the next item without acknowledging it; 8 s later the
    keypad unlocks. The label's note and flag belong to the item it was for, not to the one shown,
    so the next code key must not send them with the shown item."""
    mount(tab, data(ITEMS[0]))
    write_note(tab, "about the first")
    press(tab, "?", "1")
    render(tab, data(ITEMS[1]))
    tab.clock.run_for(UNLOCK_AFTER_MS)
    press(tab, "2")
    sent = [(lab["item"], lab["code"], lab["note"], lab["unsure"]) for lab in labels(tab)]
    assert sent == [(ITEMS[0], "initiate", "about the first", True), (ITEMS[1], "continue", "", False)]


def test_a_code_key_pressed_while_saving_waits_and_labels_the_item_shown_next(tab):
    """A code's key pressed while the last label is being saved is neither refused nor sent at
    once: it waits, with the note and flag typed before it, and the answer's item gets it (added to
    that item's own draft); what is typed after it stays on screen for the item after."""
    mount(tab, data(ITEMS[1]))
    write_note(tab, "drafted earlier")  # a draft of the second item, from an earlier visit
    render(tab, data(ITEMS[0]))
    press(tab, "1", "?")
    write_note(tab, "then this")
    press(tab, "2")
    write_note(tab, "for the third")
    assert len(labels(tab)) == 1
    now = shown(tab)
    assert (now["item"], now["note"], now["unsure"], now["state"]) == (ITEMS[0], "for the third", False, "saving")
    assert now["status"] == "Saving Initiate… then Continue."
    [first] = labels(tab)
    render(tab, {**saved_reply(ITEMS[1]), "ack": first["request_id"]})
    second = labels(tab)[1]
    assert (second["item"], second["code"], second["note"], second["unsure"], second["queued"]) == (
        ITEMS[1],
        "continue",
        "drafted earlier then this",
        True,
        True,
    )
    now = shown(tab)
    assert (now["item"], now["note"], now["unsure"], now["state"]) == (ITEMS[1], "for the third", False, "saving")
    assert now["status"] == "Saving Continue…"
    render(tab, {**saved_reply(ITEMS[2]), "ack": second["request_id"]})
    now = shown(tab)
    assert (now["item"], now["note"], now["unsure"], now["state"]) == (ITEMS[2], "for the third", False, "ready")
    assert len(labels(tab)) == 2


@pytest.mark.parametrize("end", ["refused", "no answer"])
def test_code_keys_behind_a_label_that_is_not_saved_are_not_sent_and_named(tab, end):
    """When the label on its way is refused, or has no answer in 8 s, the code keys queued behind
    it are not sent (the item they were for never came): the status names them, and their notes,
    like anything typed since, stay on screen after the label's own note."""
    mount(tab, data(ITEMS[0]))
    write_note(tab, "mine")
    press(tab, "1", "?", "2")
    write_note(tab, "next")
    press(tab, "3")
    write_note(tab, "after")
    [label] = labels(tab)
    if end == "refused":
        refused = {
            "kind": "error",
            "text": "Not saved: the task is closed.",
            "ack": label["request_id"],
            "saved": False,
        }
        render(tab, data(ITEMS[0], refused))
        said = "Not saved: the task is closed."
    else:
        tab.clock.run_for(UNLOCK_AFTER_MS)
        said = "No answer from the server yet: check your label below before going on."
    now = shown(tab)
    assert (now["item"], now["note"], now["unsure"], now["state"]) == (ITEMS[0], "mine next after", False, "ready")
    assert now["status"] == f"{said} Not sent, pressed while the label was saving: Continue (unsure), Acknowledge."
    assert len(labels(tab)) == 1 and all(now["codes_enabled"])


# Typing at full speed: a code, the flag, a code, the note with text, Enter, a code, with no pause.
# The coder means: the first item initiate; the second unsure, continue; the third the note "why",
# acknowledge. The app answers each label a set number of keys after the key that sent it (None:
# not before the last key); whenever the answers come, the same labels are sent, each for its
# item with its own note and flag (a code key pressed while a label is saved waits for the next
# item), and the fourth item shows at the end, with no note and no flag.
KEYS = ["1", "?", "2", "n", "w", "h", "y", "Enter", "3"]
MEANT = [(0, "initiate", "", False), (1, "continue", "", True), (2, "acknowledge", "why", False)]
ANSWER_AFTER = {
    "answer at once": 0,
    "answer 1 key later": 1,
    **{f"answer {n} keys later": n for n in range(2, len(KEYS))},
    "answer after the last key": None,
}


def _type_at_full_speed(tab, case: str) -> tuple[list[dict], dict]:
    mount(tab, data(ITEMS[0]))
    serve(tab, ANSWER_AFTER[case])
    tab.keyboard.type("1?2nwhy", delay=0)
    tab.keyboard.press("Enter", delay=0)
    tab.keyboard.type("3", delay=0)
    assert [k["key"] for k in tab.evaluate("gw.keys")] == KEYS
    end = shown(tab)  # before a late answer arrives
    tab.evaluate("gw.flush()")
    return labels(tab), {**shown(tab), "before_answer": end}


@pytest.mark.parametrize("case", list(ANSWER_AFTER))
def test_typing_at_full_speed_sends_each_label_and_note_with_its_item(tab, case):
    """Whenever the next item arrives, each label is for the item shown when its key went down,
    or, pressed while the last label was being saved, for the item the answer shows, with the note
    typed before it; a note typed after a label's key goes to the next item."""
    sent, end = _type_at_full_speed(tab, case)
    assert all(lab["item"] == lab["shown"] for lab in sent), sent
    assert [(lab["item"], lab["code"], lab["note"]) for lab in sent] == [
        (ITEMS[i], code, note) for i, code, note, _ in MEANT
    ]
    assert (end["item"], end["note"], end["state"]) == (ITEMS[3], "", "ready")
    if case == "answer after the last key":  # the later codes wait while the first label is saved
        before = end["before_answer"]
        assert (before["item"], before["note"], before["state"]) == (ITEMS[0], "", "saving")
        assert before["status"] == "Saving Initiate… then Continue, Acknowledge."
        assert [lab["queued"] for lab in sent] == [False, True, True]


@pytest.mark.parametrize("case", list(ANSWER_AFTER))
def test_typing_at_full_speed_sends_each_flag_with_the_next_label(tab, case):
    """The flag typed right after a label's key is not that label's: it goes with the next label
    sent, whenever the next item arrives, and the item shown at the end has none."""
    sent, end = _type_at_full_speed(tab, case)
    assert [lab["unsure"] for lab in sent] == [unsure for *_, unsure in MEANT]
    assert end["unsure"] is False


def test_the_next_item_shows_no_code_as_chosen_or_outlined(tab):
    """After a label the next item's keypad may show the last code's definition (the coder's
    likely next one), but no code looks chosen or outlined there: an uncoded item looks uncoded."""
    mount(tab, data(ITEMS[0]))
    press(tab, "2")
    [label] = labels(tab)
    code = label["code"]
    render(
        tab,
        {
            **keypad_data(TASK, ITEMS[1], None, enabled=True, disabled_reason="", status=None, focus=code),
            "ack": label["request_id"],
        },
    )
    marks = tab.evaluate(
        "() => [...gw.parent.querySelectorAll('.kp-code')].map((b) => [b.dataset.code, b.dataset.focused, b.dataset.chosen])"
    )
    assert shown(tab)["item"] == ITEMS[1]
    assert [m for m in marks if m[1] == "true" or m[2] == "true"] == [], marks
    # Pointing at a code still outlines it and shows its definition.
    tab.locator(".kp-code").nth(3).hover()
    marks = tab.evaluate("() => [...gw.parent.querySelectorAll('.kp-code')].map((b) => b.dataset.focused)")
    assert marks.count("true") == 1 and marks[3] == "true"
