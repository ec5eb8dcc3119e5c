"""The coding screen under AppTest: labels given through the keypad's event (code, note and unsure
flag together, once per request id), resume and moving between items, blind access, viewers, the
context window, the canvas legend, the Replay link and the feedback after the reveal; and the
keypad's pure parts (its command keys, its event check)."""

from __future__ import annotations

import json
import re

import pytest
from coding_team import all_text, corpus, keypad, press, signed_in, team  # noqa: F401 - fixtures

from analysis.live_panel import human_panel
from analysis.replay import CELL_NAMES, time_label
from components.coding.item import context_text, replay_url
from components.coding.keypad import command_keys, label_event
from corpus import codebook as cbm


def _item_line(at) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("Item **"))


# -- giving labels ------------------------------------------------------------------------------


def test_a_key_saves_the_label_with_its_note_and_relabel_keeps_history(team):
    store, lead, ann, bob, guest, task = team
    at = signed_in("ann", "ann-password", "pages/code.py")
    order = store.coder_order(task.id, ann)
    pad = keypad(at, task.id)
    assert pad["item"] == order[0]  # starts at her first item
    # Every code with its key and full name, in the codebook's order; the note key is no code's key.
    assert [(c["key"], c["name"]) for c in pad["codes"]] == [
        ("1", "Initiate"),
        ("2", "Continue"),
        ("3", "Acknowledge"),
        ("4", "Repair"),
        ("5", "Request Repair"),
        ("6", "Request Acknowledgement"),
        ("7", "Cancel"),
        ("8", "Other (not a grounding act)"),
    ]
    assert (pad["note_key"], pad["unsure_key"], pad["enabled"]) == ("n", "?", True)
    assert pad["codes"][0]["positive"] == list(task.codebook.codes[0].positive)  # examples go to the keypad
    press(at, task.id, "initiate", unsure=True)
    mine = store.my_labels(ann, task.id)
    assert mine[["item_id", "code", "note", "unsure"]].values.tolist() == [[order[0], "initiate", "", True]]
    assert mine["seconds"].iloc[0] >= 0
    # Auto-advance: now on her second item, progress counts one, the keypad says what was saved.
    pad = keypad(at, task.id)
    assert pad["item"] == order[1] and pad["current"] is None
    assert pad["status"] == {"kind": "success", "text": "Saved Initiate for item 1."} and pad["saved"]
    assert at.get("progress")[0].proto.text.startswith("1 of 10 items coded")
    # Back to the first item and relabel it with a note: the note is saved with the label; history keeps both.
    at.button(key=f"code_back_{task.id}").click().run()
    assert keypad(at, task.id)["current"] == {"code": "initiate", "name": "Initiate", "note": "", "unsure": True}
    press(at, task.id, "continue", note="  the Guide starts a new instruction ")
    hist = store.history(ann, task.id, order[0])
    assert hist["code"].tolist() == ["initiate", "continue"]
    assert hist["note"].tolist() == ["", "the Guide starts a new instruction"]
    assert store.my_labels(ann, task.id).set_index("item_id").loc[order[0], "code"] == "continue"
    at.button(key=f"code_back_{task.id}").click().run()
    assert keypad(at, task.id)["current"]["note"] == "the Guide starts a new instruction"
    assert any(e.label.startswith("My history for this item (2 labels)") for e in at.expander)


def test_an_event_delivered_twice_writes_one_label_and_moves_on_once(team):
    store, lead, ann, bob, guest, task = team
    at = signed_in("ann", "ann-password", "pages/code.py")
    order = store.coder_order(task.id, ann)
    rid = press(at, task.id, "repair", note="the Follower fixes a stroke")
    press(at, task.id, "repair", note="the Follower fixes a stroke", item=order[0], request_id=rid)
    assert store.history(lead, task.id)[["item_id", "code", "note"]].values.tolist() == [
        [order[0], "repair", "the Follower fixes a stroke"]
    ]
    assert keypad(at, task.id)["item"] == order[1]  # advanced once, not twice


def test_a_label_is_saved_for_the_item_its_key_was_pressed_on(team):
    store, lead, ann, bob, guest, task = team
    at = signed_in("ann", "ann-password", "pages/code.py")
    order = store.coder_order(task.id, ann)
    at.button(key=f"code_next_{task.id}").click().run()  # the coder moved on before the event arrived
    press(at, task.id, "cancel", item=order[0])
    assert store.my_labels(ann, task.id)[["item_id", "code"]].values.tolist() == [[order[0], "cancel"]]
    assert keypad(at, task.id)["item"] == order[1]  # and stays where she is


def test_resume_and_next_uncoded(team):
    store, lead, ann, bob, guest, task = team
    order = store.coder_order(task.id, ann)
    for it in order[:3]:
        store.add_label(ann, task.id, it, "continue")
    at = signed_in("ann", "ann-password", "pages/code.py")
    assert keypad(at, task.id)["item"] == order[3]  # resumes at the first uncoded item
    assert _item_line(at).startswith("Item **4** of 10")
    at.button(key=f"code_back_{task.id}").click().run()
    at.button(key=f"code_back_{task.id}").click().run()
    assert keypad(at, task.id)["item"] == order[1]
    assert keypad(at, task.id)["current"]["code"] == "continue"
    at.button(key=f"code_uncoded_{task.id}").click().run()
    assert keypad(at, task.id)["item"] == order[3]


def test_a_code_that_needs_a_note_is_refused_without_one(team):
    store, lead, ann, bob, guest, task = team
    at = signed_in("ann", "ann-password", "pages/code.py")
    first = store.coder_order(task.id, ann)[0]
    press(at, task.id, "other")
    pad = keypad(at, task.id)
    assert pad["status"]["kind"] == "error" and "needs a note" in pad["status"]["text"] and not pad["saved"]
    assert pad["item"] == first
    assert store.my_labels(ann, task.id).empty
    press(at, task.id, "other", note="a greeting")
    assert store.my_labels(ann, task.id)[["code", "note"]].values.tolist() == [["other", "a greeting"]]


def test_a_coder_never_sees_another_coders_labels(team):
    store, lead, ann, bob, guest, task = team
    secret = "bob-private-note-7741"
    for it in store.items(task.id)["item_id"]:
        store.add_label(bob, task.id, it, "cancel", note=secret)
    store.add_label(ann, task.id, store.coder_order(task.id, ann)[-1], "cancel")  # one item both coded
    store.set_share_agreement(lead, task.id, True, min_items=1)  # aggregates may be shown; labels never
    store.share_snapshot(
        lead, task.id, human_panel(store.labels(lead, task.id)).to_json()
    )  # ... as the lead's snapshot
    at = signed_in("ann", "ann-password", "pages/code.py")
    order = store.coder_order(task.id, ann)
    for i in range(len(order)):
        text = all_text(at)
        assert secret not in text
        # The name as a word (a random sign-in token in the page may hold the letters b-o-b).
        assert not re.search(r"(?<![A-Za-z0-9_-])bob(?![A-Za-z0-9_-])", text)
        if i < len(order) - 1:
            at.button(key=f"code_next_{task.id}").click().run()
    # The shared team numbers are there, as numbers only.
    assert "Team agreement" in [h.value for h in at.subheader]
    assert any(m.label == "Fleiss' kappa" for m in at.metric)


def test_a_viewer_cannot_label(team):
    store, lead, ann, bob, guest, task = team
    at = signed_in("guest", "guest-password", "pages/code.py")
    assert any("viewer" in i.value for i in at.info)
    pad = keypad(at, task.id)
    assert not pad["enabled"] and "viewer" in pad["disabled_reason"]
    press(at, task.id, "initiate")  # a crafted event is refused by the store
    assert "viewers cannot label" in keypad(at, task.id)["status"]["text"]
    assert store.history(lead, task.id).empty


# -- the keypad's parts -------------------------------------------------------------------------


def test_the_note_and_unsure_keys_are_never_a_codes_key():
    assert sorted(cbm.bundled()) == ["grounding_acts", "hcrc_moves", "tgco"]
    for cb in cbm.bundled().values():
        assert command_keys(cb) == ("n", "?")
    taken = cbm.parse(
        {
            **cbm.default().to_dict(),
            "codes": [
                {**c, "key": key}
                for c, key in zip(cbm.default().to_dict()["codes"], ["N", "/", "?", "4", "5", "6", "7", "8"])
            ],
        },
        "test",
    )
    assert command_keys(taken) == (".", "!")


def test_the_label_event_is_checked_field_by_field():
    cb = cbm.default()
    ok = {"item": "S01:3", "code": "repair", "note": " why ", "unsure": False, "request_id": "ab12"}
    event = label_event(ok, cb, ["S01:3"])
    assert (event.item, event.code, event.note, event.unsure, event.request_id) == (
        "S01:3",
        "repair",
        "why",
        False,
        "ab12",
    )
    for change, field in [
        ({"item": "S09:1"}, "item"),
        ({"code": "fix"}, "code"),
        ({"note": 3}, "note"),
        ({"unsure": "yes"}, "unsure"),
        ({"request_id": ""}, "request id"),
    ]:
        with pytest.raises(ValueError, match=f"^{field}"):
            label_event({**ok, **change}, cb, ["S01:3"])


# -- the item in its context --------------------------------------------------------------------


def test_the_context_window_shows_earlier_and_later_actions(team, corpus):
    store, lead, ann, bob, guest, task = team
    at = signed_in("ann", "ann-password", "pages/code.py")
    item = keypad(at, task.id)["item"]
    sid, index = item.rsplit(":", 1)
    actions = sorted(corpus.sessions[sid].actions, key=lambda a: a.index)
    pos = next(i for i, a in enumerate(actions) if a.index == int(index))
    captions = [c.value for c in at.caption]
    earlier = actions[max(0, pos - 3) : pos]
    later = actions[pos + 1 : pos + 3]
    before_caption = next(c for c in captions if "earlier action" in c or "first action" in c)
    assert before_caption.count("  \n") == len(earlier) and "after the item" not in before_caption
    assert all(f"`{time_label(a.timestamp)}`" in before_caption for a in earlier)
    after_caption = next(c for c in captions if "after the item" in c)
    assert after_caption.count(":blue-badge[after the item]") == len(later) == 2
    assert [f"`{time_label(a.timestamp)}`" in after_caption for a in later] == [True, True]
    # More after the item when asked for.
    at.select_slider(key=f"code_item_{task.id}_after").set_value(5).run()
    after_caption = next(c.value for c in at.caption if "after the item" in c.value)
    assert after_caption.count(":blue-badge[after the item]") == len(actions[pos + 1 : pos + 6])
    # The Replay link opens this moment: the session and the action's position in it.
    link = at.get("link_button")[0].proto
    assert (link.label, link.url) == ("Open in Replay", f"replay?session={sid}&step={pos}")


def test_context_text_counts_and_tags_by_hand(corpus):
    actions = sorted(corpus.sessions["S01"].actions, key=lambda a: a.index)
    before, after = context_text(actions, 0, 3, 2)
    assert before == "*This is the first action of the session.*"
    assert after.count("after the item") == 2
    before, after = context_text(actions, len(actions) - 1, 1, 4)
    assert before.startswith("*1 earlier action*") and after == "*This is the last action of the session.*"
    assert context_text(actions, 5, 0, 0) == ("", "")
    assert replay_url("S 1&x", 7) == "replay?session=S+1%26x&step=7"


def test_the_canvas_has_a_legend_of_its_colours(team):
    store, lead, ann, bob, guest, task = team
    at = signed_in("ann", "ann-password", "pages/code.py")
    order = store.coder_order(task.id, ann)
    for _ in range(len(order)):  # the first item with a drawing before it
        if at.get("plotly_chart"):
            break
        at.button(key=f"code_next_{task.id}").click().run()
    fig = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert fig["layout"]["showlegend"] is True
    names = [t["name"] for t in fig["data"] if t.get("showlegend", True) and t["name"] in CELL_NAMES.values()]
    assert "target route" in names and ("drawn" in names or "drawn on the route" in names)
    assert any("○ marks the start" in c.value for c in at.caption)


# -- after the reveal ---------------------------------------------------------------------------


def test_feedback_counts_only_items_with_gold(team):
    store, lead, ann, bob, guest, task = team
    order = store.coder_order(task.id, ann)
    codes = ["initiate", "continue", "repair", "cancel", "acknowledge"]
    for item, code in zip(order[:5], codes):
        store.add_label(ann, task.id, item, code)
    store.set_gold(lead, task.id, order[0], "initiate")  # agrees
    store.set_gold(lead, task.id, order[1], "continue")  # agrees
    store.set_gold(lead, task.id, order[2], "request_repair", note="she asks, she does not fix")  # differs
    store.set_gold(lead, task.id, order[7], "initiate")  # an item she did not code
    store.set_phase(lead, task.id, "revealed")
    at = signed_in("ann", "ann-password", "pages/code.py")
    said = [m.value for m in at.markdown if m.value.startswith("Gold agrees")]
    assert said == ["Gold agrees with your label on 2 of 3 items that have gold; 2 items you coded have no gold label."]
    fb = at.dataframe[-1].value
    assert fb["item_id"].tolist() == [order[2]] and fb["lead_note"].tolist() == ["she asks, she does not fix"]
