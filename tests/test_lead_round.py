"""The lead's side of a coding round under AppTest: curation progress and the confirmation before a
reveal with open items, the gold history, the size of the gold an analysis uses, and adding coder
accounts from an empty coders picker."""

from __future__ import annotations

import pytest
from coding_team import APP, corpus, data_dir, people, signed_in  # noqa: F401 - fixtures
from streamlit.testing.v1 import AppTest

from analysis import coding as ac
from analysis.curation import Curation, curation
from components.label_source import GOLD_MIN_ITEMS
from corpus import codebook as cbm
from corpus.store import Store

N_ITEMS = 30


@pytest.fixture
def data(tmp_path, monkeypatch):
    return data_dir(tmp_path, monkeypatch)


@pytest.fixture
def round_(data, corpus):
    """A 30-item task: 23 items labelled by two coders, 14 of them with gold (12 unanimous, then 2
    adjudicated, one of which replaces a unanimous decision... on an item counted once)."""
    store = Store.open(data)
    lead, ann, bob = people(store, lead="lead", ann="coder", bob="coder")
    items = ac.assign_partitions(ac.sample_items(corpus.actions_df, N_ITEMS, seed=8), 0, seed=8)
    task = store.create_task(
        lead, "round one", corpus.info.name, cbm.default(), items, [ann, bob], seed=8, dataset_hash=corpus.content_hash
    )
    ids = store.items(task.id)["item_id"].tolist()
    for k, it in enumerate(ids[:23]):
        store.add_label(ann, task.id, it, "initiate")
        store.add_label(bob, task.id, it, "initiate" if k < 12 else "continue")
    assert store.accept_consensus(lead, task.id) == 12
    store.set_gold(lead, task.id, ids[0], "repair", note="a correction, not a start")  # replaces unanimous
    store.set_gold(lead, task.id, ids[12], "continue", note="bob is right")
    store.set_gold(lead, task.id, ids[13], "initiate")
    return store, lead, task, ids


def test_curation_counts_labelled_items_by_humans():
    import pandas as pd

    labels = pd.DataFrame(
        {"item_id": ["a", "a", "b", "c", "d"], "coder_kind": ["human", "human", "human", "model", "human"]}
    )
    gold = pd.DataFrame({"item_id": ["a", "c", "z"]})
    c = curation(labels, gold, n_items=6)
    # Labelled by a person: a, b, d; with gold among them: a (c was labelled by a model only).
    assert c == Curation(n_items=6, n_labelled=3, n_gold=1) and c.n_open == 2
    assert c.share == pytest.approx(1 / 3)
    assert c.sentence() == "1 of 3 labelled items have gold (2 open); 6 items in the task"
    assert c.reveal_warning().startswith("2 of 3 labelled items have no gold yet.")
    assert curation(labels, pd.DataFrame({"item_id": ["a", "b", "d"]}), 6).reveal_warning() is None
    empty = curation(labels.iloc[0:0], gold.iloc[0:0], 6)
    assert str(empty.share) == "undefined, because no item has a label yet"
    assert empty.reveal_warning().startswith("No item has a label yet")


def test_reveal_with_open_items_waits_for_a_confirmation(round_):
    store, lead, task, ids = round_
    at = signed_in("lead", "lead-password", "pages/adjudicate.py")
    bar = at.get("progress")[0].proto
    assert bar.text == "Curation: 14 of 23 labelled items have gold (9 open); 30 items in the task."
    assert bar.value == 100 * 14 // 23
    at.segmented_control(key=f"adj_phase_{task.id}").set_value("revealed").run()
    assert store.task(task.id).phase == "coding"  # not revealed
    warning = next(w.value for w in at.warning if w.value.startswith("Not revealed yet."))
    assert "9 of 23 labelled items have no gold yet" in warning and "gold of 14 items only" in warning
    at.button(key=f"adj_reveal_no_{task.id}").click().run()
    assert store.task(task.id).phase == "coding"
    assert not [w for w in at.warning if w.value.startswith("Not revealed yet.")]
    at.segmented_control(key=f"adj_phase_{task.id}").set_value("revealed").run()
    yes = at.button(key=f"adj_reveal_yes_{task.id}")
    assert yes.label == "Reveal with 9 items open"
    yes.click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert store.task(task.id).phase == "revealed"
    assert at.segmented_control(key=f"adj_phase_{task.id}").value == "revealed"


def test_a_reveal_with_every_labelled_item_curated_needs_no_confirmation(round_):
    store, lead, task, ids = round_
    for it in ids[14:23]:
        store.set_gold(lead, task.id, it, "continue")
    at = signed_in("lead", "lead-password", "pages/adjudicate.py")
    assert at.get("progress")[0].proto.text == "Curation: 23 of 23 labelled items have gold; 30 items in the task."
    at.segmented_control(key=f"adj_phase_{task.id}").set_value("revealed").run()
    assert store.task(task.id).phase == "revealed"


def history(at: AppTest, with_item: bool):
    """The gold history table on the page: the task's (with an item column) or the item's."""
    return next(
        d.value for d in at.dataframe if "set by" in d.value.columns and ("item" in d.value.columns) == with_item
    )


def test_the_gold_history_says_who_when_from_what_and_what_it_replaced(round_):
    store, lead, task, ids = round_
    at = signed_in("lead", "lead-password", "pages/adjudicate.py")
    table = history(at, with_item=True)
    assert len(table) == 15  # 12 unanimous + 3 adjudicated decisions
    newest = table.iloc[0]
    assert (newest["item"], newest["gold"], newest["from"], newest["set by"]) == (
        ids[13],
        "Initiate (initiate)",
        "adjudicated",
        "lead",
    )
    replacing = table[table["item"] == ids[0]]
    assert replacing["gold"].tolist() == ["Repair (repair)", "Initiate (initiate)"]
    assert replacing["from"].tolist() == ["adjudicated", "unanimous"]
    assert replacing["replaced"].tolist() == ["Initiate (initiate), unanimous", "(first decision)"]
    assert replacing["note"].tolist() == ["a correction, not a start", ""]
    stamps = store.gold_history(lead, task.id, ids[0])["created_at"]
    assert replacing["when (UTC)"].tolist() == [f"{t:%Y-%m-%d %H:%M:%S}" for t in stamps.iloc[::-1]]
    assert any(e.label.startswith("Gold history (15 decisions, 1 replacing an earlier one)") for e in at.expander)
    # Per item: the queue shows every labelled item once "only items without gold" is off.
    at.toggle(key=f"adj_open_{task.id}").set_value(False).run()
    at.selectbox(key=f"adj_item_{task.id}").set_value(ids[0]).run()
    per_item = history(at, with_item=False)
    assert per_item["gold"].tolist() == ["Repair (repair)", "Initiate (initiate)"]
    assert "item" not in per_item.columns


def test_a_small_revealed_round_does_not_take_over_the_charts(round_):
    """A revealed 14-item round is offered, says its size and warns under the minimum, but the pages
    open on the coders' majority (175 actions), even once a lead marks the round as the dataset's
    reference: a reference becomes the default only from 30 items."""
    store, lead, task, ids = round_
    store.set_phase(lead, task.id, "revealed")
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/acts.py").run()
    assert not at.exception, [e.value for e in at.exception]
    picker = at.selectbox(key="an_acts")
    assert picker.value == "majority"
    assert picker.format_func(f"gold:{task.id}") == "Gold of the coding task 'round one' (14 items)"
    assert not [w for w in at.warning if w.value.startswith("Gold on ")]
    picker.set_value(f"gold:{task.id}").run()
    assert GOLD_MIN_ITEMS == 30
    note = next(w.value for w in at.warning if w.value.startswith("Gold on "))
    assert note == "Gold on 14 items only (under 30): estimates on it are imprecise."
    assert any("Gold labels of the closed coding task 'round one' on 14 actions" in c.value for c in at.caption)
    # Marked as the reference, the round says so, and still does not become the default at 14 items.
    store.set_reference(lead, task.id)
    fresh = AppTest.from_file(APP, default_timeout=60).run()
    fresh.switch_page("pages/acts.py").run()
    picker = fresh.selectbox(key="an_acts")
    assert picker.value == "majority"
    assert picker.format_func(f"gold:{task.id}") == "Gold of the coding task 'round one' (14 items, the reference)"


def test_an_empty_coders_picker_offers_to_add_a_coder_account(data, corpus):
    store = Store.open(data)
    store.create_user("lead", "lead-password", "lead")
    at = signed_in("lead", "lead-password", "pages/tasks.py")
    assert any(i.value.startswith("No coder accounts yet: add coder accounts first") for i in at.info)
    assert not [m for m in at.multiselect if m.label == "Coders"]
    at.button(key="ta_new_coders_add").click().run()
    assert not at.exception, [e.value for e in at.exception]
    form = [t for t in at.text_input if t.label == "Username"][-1]
    form.input("carol")
    [t for t in at.text_input if t.label.startswith("Password (8")][-1].input("carol-password")
    [b for b in at.button if b.label == "Add account"][-1].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert store.user("carol").role == "coder"
    assert any(s.value == "Added coder 'carol'." for s in at.success)
    assert next(m for m in at.multiselect if m.label == "Coders").options == ["carol"]


def test_the_lead_marks_a_rounds_gold_as_the_reference_on_the_tasks_page(round_):
    store, lead, task, ids = round_
    at = signed_in("lead", "lead-password", "pages/tasks.py")
    toggle = at.toggle(key=f"ta_reference_{task.id}")
    assert toggle.value is False and "at least 30 actions" in toggle.help
    toggle.set_value(True).run()
    assert not at.exception, [e.value for e in at.exception]
    assert store.reference_task(task.dataset_hash) == task.id
    at.toggle(key=f"ta_reference_{task.id}").set_value(False).run()
    assert store.reference_task(task.dataset_hash) is None
