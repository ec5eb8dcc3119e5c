"""The coding keypad in a real browser: a note typed, Enter, then a code's key saves the label with
exactly that note; text typed after a label's key never reaches that label; keys work wherever the
focus is outside a text field; full code names and the focused code's examples are on screen; the
feedback after the reveal counts only the items that have gold; and a coder typing a whole round at
full speed, with no pause between items, gets every code, flag and note saved on its own item. Ann
signs in once and codes on through the module's tests, as a coder works through a task."""

from __future__ import annotations

import time

import pytest
from coding_team import people
from conftest import module_tab, served_app, sign_in, wait_idle
from playwright.sync_api import expect  # noqa: E402

from analysis import coding as ac
from corpus import codebook as cbm
from corpus.loading.dataset import load_sample
from corpus.store import Store

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """A coding task for ann, and a revealed task where cat gave 5 labels and 3 items have gold (2 agree)."""
    data = tmp_path_factory.mktemp("coding_keys")
    corpus = load_sample()
    store = Store.open(data)
    lead, ann, cat = people(store, lead="lead", ann="coder", cat="coder")
    items = ac.assign_partitions(ac.sample_items(corpus.actions_df, 8, seed=21), 0, seed=21)
    task = store.create_task(
        lead, "keys pilot", corpus.info.name, cbm.default(), items, [ann], seed=21, dataset_hash=corpus.content_hash
    )
    done = store.create_task(
        lead, "closed round", corpus.info.name, cbm.default(), items, [cat], seed=22, dataset_hash=corpus.content_hash
    )
    order = store.coder_order(done.id, cat)
    for item, code in zip(order[:5], ["initiate", "continue", "repair", "cancel", "acknowledge"]):
        store.add_label(cat, done.id, item, code)
    for item, code in zip(order[:3], ["initiate", "continue", "request_repair"]):
        store.set_gold(lead, done.id, item, code)
    store.set_phase(lead, done.id, "revealed")
    with served_app(data) as url:
        yield store, task, ann, url


def _sign_in(page, url: str, username: str, password: str):
    page.set_viewport_size({"width": 1440, "height": 900})
    sign_in(page, url, "code", username, password)
    expect(page.get_by_text("Signed in as")).to_be_visible()


@pytest.fixture(scope="module")
def ann_tab(shared_context, team):
    """A tab where Ann has signed in on the Code page (once for the module)."""
    with module_tab(shared_context) as page:
        _sign_in(page, team[3], "ann", "ann-password")
        yield page


def _keypad(page):
    pad = page.locator(".kp-root")
    expect(pad).to_have_attribute("data-state", "ready")
    return pad


def _at_the_keypad(page):
    """The keypad ready, the keys on the page (not in a field): the keypad and the item it shows."""
    pad = _keypad(page)
    page.get_by_role("heading", name="Code", exact=True).click()
    return pad, pad.get_attribute("data-item")


def _after_label(page, pad, item: str) -> str:
    """Wait until the keypad shows the next item and the app is idle; the new item."""
    expect(pad).not_to_have_attribute("data-item", item, timeout=15_000)
    wait_idle(page)
    expect(pad).to_have_attribute("data-state", "ready")
    return pad.get_attribute("data-item")


def test_note_enter_then_key_saves_the_label_with_exactly_that_note(ann_tab, team, artifacts):
    page = ann_tab
    store, task, ann, url = team
    pad, first = _at_the_keypad(page)  # nothing focused
    order = store.coder_order(task.id, ann)
    assert first == order[0]
    note = page.locator(".kp-note")
    page.keyboard.press("n")
    expect(note).to_be_focused()
    page.keyboard.type("small talk, no grounding function")
    page.keyboard.press("ArrowRight")  # moves the caret; the item stays
    page.keyboard.press("Enter")
    expect(note).not_to_be_focused()
    expect(note).to_have_value("small talk, no grounding function")  # the opening key was not typed
    page.keyboard.press("8")
    second = _after_label(page, pad, order[0])
    assert second == order[1]
    mine = store.my_labels(ann, task.id)
    assert mine[["item_id", "code", "note", "unsure"]].values.tolist() == [
        [order[0], "other", "small talk, no grounding function", False]
    ]
    expect(page.locator(".kp-status")).to_have_text("Saved Other (not a grounding act) for item 1.")
    expect(note).to_have_value("")  # the next item starts with an empty note
    page.screenshot(path=str(artifacts / "coding_keypad.png"))


def test_text_typed_after_a_labels_key_is_not_saved_into_that_label(ann_tab, team):
    page = ann_tab
    store, task, ann, url = team
    pad, item = _at_the_keypad(page)
    before = len(store.history(ann, task.id))
    page.keyboard.press("n")
    page.keyboard.type("the Follower goes on")
    page.keyboard.press("Enter")
    # The code's key, then at once more typing: a note for what comes next, and stray letters.
    page.keyboard.press("2")
    page.keyboard.type("xq")
    page.keyboard.press("n")
    page.keyboard.type("typed after the key")
    following = _after_label(page, pad, item)
    hist = store.history(ann, task.id)
    assert len(hist) == before + 1
    assert hist.iloc[-1][["item_id", "code", "note"]].tolist() == [item, "continue", "the Follower goes on"]
    assert not hist["note"].str.contains("typed after|xq").any()
    # What was typed after the key is kept, in the note of the item now shown, and saved with its label.
    note = page.locator(".kp-note")
    expect(note).to_have_value("typed after the key")
    page.keyboard.press("Enter")
    page.keyboard.press("3")
    _after_label(page, pad, following)
    last = store.history(ann, task.id).iloc[-1]
    assert [last["item_id"], last["code"], last["note"]] == [following, "acknowledge", "typed after the key"]


def test_keys_work_with_the_focus_on_the_unsure_box(ann_tab, team):
    page = ann_tab
    store, task, ann, url = team
    pad, item = _at_the_keypad(page)
    page.keyboard.press("n")
    page.keyboard.type("hesitant")
    page.keyboard.press("Tab")  # out of the note, onto the Unsure box
    unsure = page.locator(".kp-unsure")
    expect(unsure).to_be_focused()
    page.keyboard.press("Space")
    expect(unsure).to_be_checked()
    page.keyboard.press("4")
    _after_label(page, pad, item)
    last = store.history(ann, task.id).iloc[-1]
    assert [last["item_id"], last["code"], last["note"], bool(last["unsure"])] == [item, "repair", "hesitant", True]


def test_a_move_right_after_a_code_key_leaves_the_keypad_ready(ann_tab, team):
    """A code's key and at once the next item's key: the label is saved, and its answer still
    reaches the keypad (a move keeps it), which is ready again at once, not after the 8 s it waits
    for an answer that never comes."""
    page = ann_tab
    store, task, ann, url = team
    pad, item = _at_the_keypad(page)
    expect(pad.locator(".kp-code").first).to_be_enabled()
    before = len(store.history(ann, task.id))
    page.keyboard.press("5")
    page.keyboard.press("ArrowRight")
    expect(pad).not_to_have_attribute("data-item", item, timeout=15_000)
    wait_idle(page)
    expect(pad).to_have_attribute("data-state", "ready", timeout=3_000)
    expect(page.locator(".kp-status")).not_to_contain_text("No answer")
    hist = store.history(ann, task.id)
    assert len(hist) == before + 1
    assert hist.iloc[-1][["item_id", "code"]].tolist() == [item, "request_repair"]


def test_a_refused_label_gives_the_note_back(ann_tab, team):
    page = ann_tab
    store, task, ann, url = team
    pad, item = _at_the_keypad(page)
    before = len(store.history(ann, task.id))
    page.keyboard.press("8")  # Other needs a note: the keypad says so and sends nothing
    expect(page.locator(".kp-status")).to_contain_text("Other (not a grounding act) needs a note: press n")
    page.keyboard.press("n")
    page.keyboard.type("said before the freeze")
    page.keyboard.press("Enter")
    lead = store.user("lead")
    store.set_phase(lead, task.id, "adjudication")  # the lead freezes the labels meanwhile
    try:
        page.keyboard.press("1")
        expect(page.locator(".kp-status")).to_contain_text("labels are frozen", timeout=15_000)
        expect(page.locator(".kp-note")).to_have_value("said before the freeze")
        assert pad.get_attribute("data-item") == item
        assert len(store.history(ann, task.id)) == before
    finally:
        store.set_phase(lead, task.id, "coding")


def test_full_code_names_and_the_focused_codes_examples_are_on_screen(ann_tab, team):
    page = ann_tab
    store, task, ann, url = team
    _keypad(page)
    codes = task.codebook.codes
    names = page.locator(".kp-code .kp-name")
    expect(names).to_have_count(len(codes))
    for i, c in enumerate(codes):
        expect(names.nth(i)).to_contain_text(c.name)
        clipped = names.nth(i).evaluate("n => n.scrollWidth > n.clientWidth || n.scrollHeight > n.clientHeight")
        assert not clipped, c.name
    repair = task.codebook.by_code("repair")
    page.locator(".kp-code", has_text="Repair").first.hover()
    detail = page.locator(".kp-detail")
    expect(detail.locator(".kp-detail-title")).to_contain_text("Repair")
    expect(detail).to_contain_text(repair.positive[0])
    expect(detail).to_contain_text(repair.negative[0])
    expect(detail.get_by_text(repair.positive[0])).to_be_visible()


def test_feedback_counts_only_the_items_with_gold(page, team):
    store, task, ann, url = team
    _sign_in(page, url, "cat", "cat-password")
    expect(page.get_by_role("heading", name="Feedback")).to_be_visible()
    expect(
        page.get_by_text(
            "Gold agrees with your label on 2 of 3 items that have gold; 2 items you coded have no gold label."
        )
    ).to_be_visible()


@pytest.fixture(scope="module")
def speed_round(team):
    """A task of 20 items for dan alone, on the module's server."""
    store, _, _, url = team
    [dan] = people(store, dan="coder")
    corpus = load_sample()
    items = ac.assign_partitions(ac.sample_items(corpus.actions_df, 20, seed=23), 0, seed=23)
    task = store.create_task(
        store.user("lead"),
        "speed round",
        corpus.info.name,
        cbm.default(),
        items,
        [dan],
        seed=23,
        dataset_hash=corpus.content_hash,
    )
    return store, task, dan, url


# A round typed at full speed, item by item in dan's order: the keys typed for the item (a token of
# one character or a key's name is pressed, a longer one typed into the note) and what must be
# saved for it (code, unsure, note). Each item ends with its code's key, so a flag or a note right
# after a code's key is typed while that label is being saved: it belongs to the next item.
SPEED_ROUND = [
    (["1"], ("initiate", False, "")),
    (["?", "2"], ("continue", True, "")),
    (["n", "note 03", "Enter", "3"], ("acknowledge", False, "note 03")),
    (["4"], ("repair", False, "")),
    (["?", "n", "note 05", "Enter", "5"], ("request_repair", True, "note 05")),
    (["n", "note 06", "Enter", "?", "6"], ("request_ack", True, "note 06")),
    (["7"], ("cancel", False, "")),
    (["?", "?", "1"], ("initiate", False, "")),  # flagged, then unflagged
    (["n", "why 09", "Enter", "8"], ("other", False, "why 09")),  # Other needs a note
    (["?", "2"], ("continue", True, "")),
    (["n", "1? n 8", "Enter", "3"], ("acknowledge", False, "1? n 8")),  # code, flag and note keys as text
    (["4"], ("repair", False, "")),
    (["?", "5"], ("request_repair", True, "")),
    (["n", "note 14", "Escape", "6"], ("request_ack", False, "note 14")),
    (["?", "n", "note 15", "Enter", "7"], ("cancel", True, "note 15")),
    (["1"], ("initiate", False, "")),
    (["?", "2"], ("continue", True, "")),
    (["n", "note 18", "Enter", "3"], ("acknowledge", False, "note 18")),
    (["4"], ("repair", False, "")),
    (["?", "n", "note 20", "Enter", "8"], ("other", True, "note 20")),
]


def test_a_round_typed_at_full_speed_saves_every_flag_and_note_on_its_item(page, speed_round):
    """Twenty items typed with no pause between keys or items (the app answers each label a rerun
    later, so most keys go down while a label is being saved): every label is saved once, for its
    item, with its own code, flag and note."""
    store, task, dan, url = speed_round
    assert len(SPEED_ROUND) == task.n_items == 20
    _sign_in(page, url, "dan", "dan-password")
    pad, first = _at_the_keypad(page)
    order = store.coder_order(task.id, dan)
    assert first == order[0]
    started = time.monotonic()
    for keys, _ in SPEED_ROUND:
        for token in keys:
            if len(token) == 1 or token in ("Enter", "Escape"):
                page.keyboard.press(token)
            else:
                page.keyboard.type(token)
    typed = time.monotonic() - started
    # The last item's label is answered on the last item (there is no next one).
    expect(page.locator(".kp-status")).to_have_text("Saved Other (not a grounding act) for item 20.", timeout=30_000)
    expect(pad).to_have_attribute("data-state", "ready")
    saved = time.monotonic() - started
    hist = store.history(dan, task.id)
    got = [(r.item_id, r.code, bool(r.unsure), r.note) for r in hist.itertuples()]
    want = [(item, code, unsure, note) for item, (_, (code, unsure, note)) in zip(order, SPEED_ROUND)]
    assert got == want, f"typed in {typed:.2f} s, saved in {saved:.2f} s"
