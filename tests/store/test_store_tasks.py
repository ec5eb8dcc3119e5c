"""Codebooks and tasks: stored versions, revisions, the per-coder item order, and what a task must
name; on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from corpus import codebook as cbm
from corpus.store import AccessDenied, StoreError


def test_codebook_files_are_checked_field_by_field():
    from corpus.validate import DatasetError

    bad = """
id: Bad Id
name: x
version: "1"
codes:
  - {code: a, name: A, key: "1", definition: first}
  - {code: a, name: A again, key: "1", definition: dup}
  - {code: b, key: "xy", definition: ""}
"""
    with pytest.raises(DatasetError) as err:
        cbm.loads(bad, "book.yaml")
    got = {(i.record, i.field) for i in err.value.report.issues}
    assert {
        ("-", "id"),
        ("codes[1]", "code"),
        ("codes[1]", "key"),
        ("codes[2]", "name"),
        ("codes[2]", "key"),
        ("codes[2]", "definition"),
    } <= got
    assert all(i.file == "book.yaml" for i in err.value.report.issues)
    books = cbm.bundled()
    assert books["grounding_acts"].code_ids == [
        "initiate",
        "continue",
        "acknowledge",
        "repair",
        "request_repair",
        "request_ack",
        "cancel",
        "other",
    ]
    assert books["grounding_acts"].by_code("other").requires_note
    assert "uncodable" in books["hcrc_moves"].code_ids


def test_a_changed_codebook_needs_a_new_version(team):
    store, lead, *_ = team
    data = cbm.default().to_dict()
    data["codes"][0]["definition"] = "A revised definition."
    with pytest.raises(StoreError, match="new version"):
        store.save_codebook(cbm.parse(data))
    data["version"] = "1.1"
    store.save_codebook(cbm.parse(data))
    assert store.codebook_versions("grounding_acts") == [("grounding_acts", "1.0"), ("grounding_acts", "1.1")]


def test_a_task_moves_to_a_revised_codebook_and_labels_keep_their_version(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    data = cbm.default().to_dict()
    data["codes"][3]["definition"] = "Repair: now also covers self-corrections."
    with pytest.raises(StoreError, match="new version"):
        store.revise_codebook(lead, task.id, cbm.parse(data))
    data["version"] = "1.1"
    with pytest.raises(AccessDenied):
        store.revise_codebook(ann, task.id, cbm.parse(data))
    other = dict(data, id="dialogue_moves")
    with pytest.raises(StoreError, match="keep that id"):
        store.revise_codebook(lead, task.id, cbm.parse(other))
    revised = store.revise_codebook(lead, task.id, cbm.parse(data))
    assert revised.codebook.version == "1.1" and store.task(task.id).codebook.version == "1.1"
    store.add_label(ann, task.id, "S01:1", "repair")  # a relabel under the new guidelines
    store.add_label(bob, task.id, "S01:1", "repair")
    hist = store.history(lead, task.id)
    assert hist[["coder", "code", "codebook_version"]].values.tolist() == [
        ["ann", "initiate", "1.0"],
        ["ann", "repair", "1.1"],
        ["bob", "repair", "1.1"],
    ]


def test_coder_order_is_shuffled_per_coder_and_stable(team):
    store, lead, ann, bob, viewer, task = team
    a1, a2, b = store.coder_order(task.id, ann), store.coder_order(task.id, ann), store.coder_order(task.id, bob)
    assert a1 == a2
    assert sorted(a1) == sorted(b) == sorted(store.items(task.id)["item_id"])
    big = store.create_task(
        lead,
        "big",
        "sample",
        cbm.default(),
        [{"session_id": "S02", "action_index": i} for i in range(40)],
        [ann, bob],
        seed=1,
        dataset_hash="h",
    )
    assert store.coder_order(big.id, ann) != store.coder_order(big.id, bob)


def test_a_task_names_its_dataset_by_content_hash(team):
    store, lead, ann, bob, viewer, task = team
    items = [{"session_id": "S", "action_index": 0}]
    with pytest.raises(StoreError, match="dataset_hash: a task must name its dataset's content hash"):
        store.create_task(lead, "no hash", "sample", cbm.default(), items, [ann], dataset_hash=" ")
    with pytest.raises(AccessDenied, match="only a lead"):
        store.create_task(ann, "mine", "sample", cbm.default(), items, [ann], dataset_hash="h")
    t = store.task(task.id)
    assert (t.dataset, t.dataset_hash, t.n_items) == ("sample", "c0ffee" * 10, 6)
    assert [x.name for x in store.tasks_for(ann)] == ["pilot"]
    with pytest.raises(StoreError, match="phase: 'done' is not one of coding, adjudication, revealed"):
        store.set_phase(lead, task.id, "done")
    with pytest.raises(StoreError, match="task #999 does not exist"):
        store.set_phase(lead, 999, "coding")
