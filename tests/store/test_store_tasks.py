"""Codebooks and tasks: stored versions, revisions, the per-coder item order, and what a task must
name; on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest

from corpus import codebook as cbm
from corpus.store import AccessDenied, StoreError


def test_codebook_files_are_checked_field_by_field():
    from corpus.loading.validate import DatasetError

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


# -- a rule's codes written with the task -------------------------------------------------------


def _units(n: int) -> list[dict]:
    return [{"session_id": "run-1", "action_index": i, "partition": "validation"} for i in range(n)]


def test_a_rules_codes_are_written_with_the_task_as_a_model_coder(url):
    from corpus.store import Store

    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", "ann-password", "coder")
    tgco = cbm.bundled()["tgco"]
    codes = {"run-1:0": "effective", "run-1:1": "redundant", "run-1:2": "ineffective"}
    task = store.create_task(
        lead, "audit", "kitchen", tgco, _units(3), [ann], dataset_hash="ab" * 32, model_labels={"tgco_rule": codes}
    )
    rule = store.user("tgco_rule")
    assert (rule.kind, rule.role) == ("model", "coder")
    assert {u.username for u in store.coders(task.id)} == {"ann", "tgco_rule"}
    got = store.labels(lead, task.id)
    assert dict(zip(got["item_id"], got["code"])) == codes
    assert set(got["coder"]) == {"tgco_rule"} and set(got["coder_kind"]) == {"model"}
    # A second task reuses the model account.
    store.create_task(
        lead,
        "audit 2",
        "kitchen",
        tgco,
        _units(1),
        [],
        dataset_hash="ab" * 32,
        model_labels={"tgco_rule": {"run-1:0": "assisted"}},
    )
    assert [u.username for u in store.users(include_inactive=True)].count("tgco_rule") == 1
    store.engine.dispose()


@pytest.mark.parametrize(
    ("codes", "words"),
    [
        ({"run-1:0": "effective", "run-1:9": "effective"}, "'run-1:9' is not an item of the task"),
        ({"run-1:0": "initiate"}, "'initiate' is not in codebook tgco v1.0"),
    ],
)
def test_a_bad_rule_code_leaves_no_task_and_no_account(url, codes, words):
    from corpus.store import Store

    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    with pytest.raises(StoreError, match=words):
        store.create_task(
            lead,
            "audit",
            "kitchen",
            cbm.bundled()["tgco"],
            _units(2),
            [],
            dataset_hash="ab" * 32,
            model_labels={"tgco_rule": codes},
        )
    assert store.tasks_for(lead) == []
    assert "tgco_rule" not in {u.username for u in store.users(include_inactive=True)}
    store.engine.dispose()


def test_a_rules_codes_never_go_to_a_human_account(url):
    from corpus.store import Store

    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    store.create_user("tgco_rule", "a-person-password", "coder")
    with pytest.raises(StoreError, match="'tgco_rule' is not an active model coder"):
        store.create_task(
            lead,
            "audit",
            "kitchen",
            cbm.bundled()["tgco"],
            _units(1),
            [],
            dataset_hash="ab" * 32,
            model_labels={"tgco_rule": {"run-1:0": "effective"}},
        )
    assert store.tasks_for(lead) == []
    store.engine.dispose()
