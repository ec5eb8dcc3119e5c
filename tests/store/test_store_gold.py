"""Gold: consensus as exact fractions, adjudication, the history of every decision, the reveal, and
the revealed gold the analysis pages read by the dataset's content hash; on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from corpus import codebook as cbm
from corpus.store import AccessDenied, Store, StoreError


def test_consensus_adjudication_and_reveal(team):
    store, lead, ann, bob, viewer, task = team
    carl = store.create_user("carl", "carl-password", "coder")
    store.assign(lead, task.id, [carl])
    votes = {
        "S01:1": ("initiate", "initiate", "initiate"),
        "S01:2": ("continue", "continue", "acknowledge"),
        "S01:3": ("repair", "request_repair", "cancel"),
    }
    for item, codes in votes.items():
        for coder, code in zip((ann, bob, carl), codes):
            store.add_label(coder, task.id, item, code)
    assert store.accept_consensus(lead, task.id, threshold=1) == 1
    assert store.accept_consensus(lead, task.id, threshold=0.67) == 0  # 2 of 3 is below 67/100
    assert store.accept_consensus(lead, task.id, threshold="2/3") == 1  # ... and reaches 2/3 exactly
    store.set_gold(
        lead,
        task.id,
        "S01:3",
        "repair",
        note="the Guide corrects the route",
        error_type="ambiguous",
        flag_codebook=True,
    )
    g = store.gold(lead, task.id).set_index("item_id")
    assert g.loc["S01:1", ["code", "provenance"]].tolist() == ["initiate", "unanimous"]
    # The note is the lead's words to the coders: accepting a majority writes none.
    assert g.loc["S01:2", ["code", "provenance", "note"]].tolist() == ["continue", "majority", ""]
    assert g.loc["S01:3", ["code", "provenance", "error_type"]].tolist() == ["repair", "adjudicated", "ambiguous"]
    store.set_phase(lead, task.id, "revealed")
    fb = store.feedback(carl, task.id).set_index("item_id")
    assert fb.index.tolist() == ["S01:2", "S01:3"]
    assert fb.loc["S01:3", "lead_note"] == "the Guide corrects the route"


def test_a_coders_feedback_tells_nothing_of_the_other_coders(team):
    """After the reveal a coder sees gold beside their own label and the lead's note: not whether gold
    was unanimous, a majority or adjudicated, nor the "2 of 3 coders" that accepting a majority wrote
    as its note before schema version 4."""
    store, lead, ann, bob, viewer, task = team
    carl = store.create_user("carl", "carl-password", "coder")
    store.assign(lead, task.id, [carl])
    for coder, code in zip((ann, bob, carl), ("continue", "continue", "acknowledge")):
        store.add_label(coder, task.id, "S01:2", code)
    store.accept_consensus(lead, task.id, threshold="2/3")
    with store.engine.begin() as c:  # the note as an older version wrote it
        c.execute(sa.text("UPDATE gold SET note = '2 of 3 coders' WHERE item_id = 'S01:2'"))
    store.set_phase(lead, task.id, "revealed")
    fb = store.feedback(carl, task.id)
    assert fb.columns.tolist() == ["item_id", "my_code", "my_note", "gold_code", "lead_note", "error_type"]
    assert fb[["item_id", "my_code", "gold_code", "lead_note"]].values.tolist() == [
        ["S01:2", "acknowledge", "continue", ""]
    ]
    assert store.gold(lead, task.id)["note"].tolist() == ["2 of 3 coders"]  # the lead still sees what was written


def test_gold_history_says_who_decided_when_how_and_what_it_replaced(team, clock):
    store, lead, ann, bob, viewer, task = team
    store = Store(store.url, clock=clock)
    second = store.create_user("second", "second-password", "lead")
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.add_label(bob, task.id, "S01:1", "initiate")
    store.accept_consensus(lead, task.id)
    clock.advance(minutes=5)
    store.set_gold(second, task.id, "S01:1", "repair", note="the Guide corrects", error_type="coder_error")
    clock.advance(minutes=5)
    store.set_gold(lead, task.id, "S01:1", "initiate", note="back to the coders' label")
    store.set_gold(lead, task.id, "S01:2", "continue")
    h = store.gold_history(lead, task.id, "S01:1")
    assert h[["code", "provenance", "decided_by", "replaced_code", "replaced_provenance", "note"]].values.tolist() == [
        ["initiate", "unanimous", "lead", "", "", ""],
        ["repair", "adjudicated", "second", "initiate", "unanimous", "the Guide corrects"],
        ["initiate", "adjudicated", "lead", "repair", "adjudicated", "back to the coders' label"],
    ]
    minutes = [(t - h["created_at"].iloc[0]).total_seconds() / 60 for t in h["created_at"]]
    assert minutes == [0, 5, 10]
    assert store.gold_history(lead, task.id)["item_id"].tolist() == ["S01:1", "S01:1", "S01:1", "S01:2"]
    assert store.gold(lead, task.id).set_index("item_id").loc["S01:1", "code"] == "initiate"


def test_revealed_gold_is_what_the_analysis_pages_read(team):
    store, lead, ann, bob, viewer, task = team
    sample = task.dataset_hash
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.add_label(bob, task.id, "S01:1", "initiate")
    store.add_label(ann, task.id, "S01:2", "repair")
    store.add_label(bob, task.id, "S01:2", "continue")
    store.accept_consensus(lead, task.id)
    store.set_gold(lead, task.id, "S01:2", "continue", note="a continuation")
    store.set_gold(lead, task.id, "S01:2", "repair", note="on second thoughts")  # the latest decision counts
    assert store.revealed_gold(sample).empty  # still being coded: nothing is published
    store.set_phase(lead, task.id, "adjudication")
    assert store.revealed_gold(sample).empty
    store.set_phase(lead, task.id, "revealed")
    g = store.revealed_gold(sample)
    assert g[["task", "scheme", "session_id", "action_index", "code", "provenance"]].values.tolist() == [
        ["pilot", "grounding_acts", "S01", 1, "initiate", "unanimous"],
        ["pilot", "grounding_acts", "S01", 2, "repair", "adjudicated"],
    ]
    assert store.revealed_gold("another hash").empty and store.revealed_gold(sample, "hcrc_moves").empty
    # A dataset is its content, not its name: another dataset called "sample" does not get this gold.
    assert store.revealed_gold("another hash", dataset_name="sample").empty


def test_a_revealed_task_keeps_its_codebook(team):
    store, lead, ann, bob, viewer, task = team
    data = cbm.default().to_dict()
    data["version"] = "1.1"
    store.set_phase(lead, task.id, "revealed")
    with pytest.raises(StoreError, match="closed \\(revealed\\); its codebook cannot change"):
        store.revise_codebook(lead, task.id, cbm.parse(data))
    assert store.task(task.id).codebook.version == "1.0"
    store.set_phase(lead, task.id, "adjudication")  # still open: a revision is allowed
    assert store.revise_codebook(lead, task.id, cbm.parse(data)).codebook.version == "1.1"


def test_a_lead_marks_a_tasks_gold_as_the_datasets_reference(team):
    """One reference per dataset, leads only, and a disabled lead's open page changes nothing; the
    revealed gold says which task is the reference and its version changes with it."""
    store, lead, ann, bob, viewer, task = team
    sample = task.dataset_hash
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.add_label(bob, task.id, "S01:1", "initiate")
    store.accept_consensus(lead, task.id)
    store.set_phase(lead, task.id, "revealed")
    before = store.gold_version(sample)
    assert store.reference_task(sample) is None and not store.revealed_gold(sample)["reference"].any()
    for who in (ann, viewer):
        with pytest.raises(AccessDenied):
            store.set_reference(who, task.id)
    store.set_reference(lead, task.id)
    assert store.reference_task(sample) == task.id and store.revealed_gold(sample)["reference"].all()
    assert store.gold_version(sample) != before and store.gold_version(sample)[3] == task.id
    # Another task on the dataset takes its place; unmarking a task that is not the reference changes nothing.
    other = store.create_task(
        lead,
        "round two",
        "sample",
        cbm.default(),
        [{"session_id": "S02", "action_index": 0}],
        [ann],
        seed=1,
        dataset_hash=sample,
    )
    store.set_reference(lead, other.id)
    assert store.reference_task(sample) == other.id
    store.set_reference(lead, task.id, on=False)
    assert store.reference_task(sample) == other.id
    store.set_reference(lead, other.id, on=False)
    assert store.reference_task(sample) is None
    # A lead disabled since their page opened changes nothing.
    second = store.create_user("second", "second-password", "lead")
    store.disable_user(lead, second.username)
    with pytest.raises(AccessDenied):
        store.set_reference(second, task.id)
    assert store.reference_task(sample) is None
