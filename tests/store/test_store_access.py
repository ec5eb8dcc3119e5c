"""Blind coding, enforced by the store: what coders and viewers may read in each phase, what the
lead lets coders see after the reveal, and shared agreement numbers that cannot be used to infer
another coder's label; an account disabled or deleted that acts from a page still open; the limits
of a note; on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from analysis import agreement as ag
from corpus import codebook as cbm
from corpus.store import AccessDenied, Store, StoreError
from corpus.values import Undefined

CODES = cbm.default().code_ids
COLS = dict(item="item_id", coder="coder", label="code")


def test_a_coder_reads_only_their_own_labels_in_every_phase(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.add_label(bob, task.id, "S01:1", "continue")
    for phase in ("coding", "adjudication", "revealed"):
        store.set_phase(lead, task.id, phase)
        assert store.my_labels(ann, task.id)["code"].tolist() == ["initiate"]
        assert store.history(ann, task.id)["coder"].unique().tolist() == ["ann"]
        for read in (store.labels, store.gold, store.gold_history):
            with pytest.raises(AccessDenied):
                read(ann, task.id)
        with pytest.raises(AccessDenied):
            store.labels_since(ann, task.id, 0)
        with pytest.raises(AccessDenied, match="only a lead"):
            store.aggregate(ann, task.id, len)
    assert sorted(store.labels(lead, task.id)["coder"]) == ["ann", "bob"]
    with pytest.raises(AccessDenied, match="only a lead"):
        store.set_phase(ann, task.id, "coding")


def test_a_viewer_reads_labels_and_gold_once_the_task_is_revealed(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.set_gold(lead, task.id, "S01:1", "initiate")
    for phase in ("coding", "adjudication"):
        store.set_phase(lead, task.id, phase)
        for read in (store.labels, store.gold):
            with pytest.raises(AccessDenied, match="viewer"):
                read(viewer, task.id)
    store.set_phase(lead, task.id, "revealed")
    assert store.labels(viewer, task.id)["code"].tolist() == ["initiate"]
    assert store.gold(viewer, task.id)["code"].tolist() == ["initiate"]


def _revealed_round(store, lead, ann, bob, task):
    for item, a, b in (
        ("S01:1", "initiate", "initiate"),
        ("S01:2", "repair", "continue"),
        ("S01:3", "cancel", "cancel"),
    ):
        store.add_label(ann, task.id, item, a)
        store.add_label(bob, task.id, item, b)
    store.accept_consensus(lead, task.id)
    store.set_gold(lead, task.id, "S01:2", "continue", note="the Follower goes on")
    store.set_gold(lead, task.id, "S01:3", "initiate", note="a new instruction")


def test_after_the_reveal_a_coder_sees_their_own_disagreements_if_the_lead_chose_so(team):
    store, lead, ann, bob, viewer, task = team
    assert task.coder_view == "own_disagreements"
    _revealed_round(store, lead, ann, bob, task)
    with pytest.raises(AccessDenied, match="once the lead reveals"):
        store.feedback(ann, task.id)
    store.set_phase(lead, task.id, "adjudication")
    with pytest.raises(AccessDenied, match="once the lead reveals"):
        store.feedback(ann, task.id)
    store.set_phase(lead, task.id, "revealed")
    fb = store.feedback(ann, task.id)
    assert fb[["item_id", "my_code", "gold_code", "lead_note"]].values.tolist() == [
        ["S01:2", "repair", "continue", "the Follower goes on"],
        ["S01:3", "cancel", "initiate", "a new instruction"],
    ]
    assert "bob" not in fb.to_string()
    assert store.feedback(bob, task.id)["item_id"].tolist() == ["S01:3"]


def test_the_lead_may_show_coders_nothing(team):
    store, lead, ann, bob, viewer, task = team
    _revealed_round(store, lead, ann, bob, task)
    with pytest.raises(AccessDenied, match="only a lead"):
        store.set_coder_view(ann, task.id, "own_disagreements")
    with pytest.raises(StoreError, match="not one of nothing, own_disagreements"):
        store.set_coder_view(lead, task.id, "everything")
    store.set_coder_view(lead, task.id, "nothing")
    store.set_phase(lead, task.id, "revealed")
    assert store.task(task.id).coder_view == "nothing"
    with pytest.raises(AccessDenied, match="shows coders nothing"):
        store.feedback(ann, task.id)
    assert len(store.feedback(lead, task.id)) == 0  # the lead gave no labels; the rule does not bind them


# -- shared agreement numbers -------------------------------------------------------------------


def _percent_agreement(frame) -> float:
    return ag.panel(ag.LabelTable(frame, **COLS)).percent_agreement.estimate


def test_the_relabel_attack_learns_nothing_from_shared_numbers(url):
    """A coder relabels an item with every code in turn and reads what is shared after each. With
    numbers recomputed on demand the code that maximizes percent agreement is the other coder's
    label; snapshots do not move, so every code reads the same and nothing is learnt."""
    from corpus.store import Store

    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", "ann-password", "coder")
    bob = store.create_user("bob", "bob-password", "coder")
    items = [{"session_id": "S", "action_index": i} for i in range(24)]
    task = store.create_task(lead, "blind", "x", cbm.default(), items, [ann, bob], dataset_hash="h")
    secret = {f"S:{i}": CODES[(3 * i + 1) % len(CODES)] for i in range(24)}
    for item, code in secret.items():
        store.add_label(bob, task.id, item, code, note="bob's reason")
        store.add_label(ann, task.id, item, CODES[0])
    store.set_share_agreement(lead, task.id, True, min_items=20)
    snapshot = ag.panel(ag.LabelTable(store.labels(lead, task.id), **COLS))
    store.share_snapshot(lead, task.id, snapshot.to_json())

    recovered_on_demand, seen_by_ann = {}, {}
    for item in list(secret)[:6]:
        reads = {}
        for code in CODES:
            store.add_label(ann, task.id, item, code, note="probe")
            shared = ag.Headline.from_json(store.shared_snapshot(ann, task.id).numbers)
            reads[code] = shared.percent_agreement.estimate
            # What the old on-demand sharing gave: the number recomputed on all current labels.
            recovered_on_demand.setdefault(item, {})[code] = _percent_agreement(store.labels(lead, task.id))
        seen_by_ann[item] = reads
    # On demand, the attack recovers every probed label ...
    assert {i: max(r, key=r.get) for i, r in recovered_on_demand.items()} == {i: secret[i] for i in recovered_on_demand}
    # ... from snapshots it reads one and the same number whatever code it gives.
    assert {v for reads in seen_by_ann.values() for v in reads.values()} == {_first_snapshot_value(store, lead, task)}


def _first_snapshot_value(store, lead, task) -> float:
    (only,) = store.snapshots(lead, task.id)
    return ag.Headline.from_json(only.numbers).percent_agreement.estimate


def test_coders_read_only_the_latest_snapshot_and_only_on_enough_items(team):
    store, lead, ann, bob, viewer, task = team
    with pytest.raises(AccessDenied, match="not shared"):
        store.shared_snapshot(ann, task.id)
    store.set_share_agreement(lead, task.id, True, min_items=3)
    with pytest.raises(AccessDenied, match="not taken a snapshot"):
        store.shared_snapshot(ann, task.id)
    for item in ("S01:1", "S01:2"):
        store.add_label(ann, task.id, item, "initiate")
        store.add_label(bob, task.id, item, "initiate")
    store.add_label(ann, task.id, "S01:3", "initiate")  # one coder only: not covered
    small = store.share_snapshot(
        lead, task.id, {"percent_agreement": 1.0, "fleiss_kappa": Undefined("every label is the same")}
    )
    assert (small.n_items, small.n_labels) == (2, 5)
    with pytest.raises(AccessDenied, match="rest on 2 items; they are shown once a snapshot rests on at least 3"):
        store.shared_snapshot(ann, task.id)
    assert store.shared_snapshot(lead, task.id).id == small.id  # the lead sees every snapshot
    store.add_label(bob, task.id, "S01:3", "continue")
    big = store.share_snapshot(lead, task.id, {"percent_agreement": 2 / 3, "n_items": 3})
    got = store.shared_snapshot(ann, task.id)
    assert (got.id, got.n_items, got.numbers, got.taken_by) == (
        big.id,
        3,
        {"percent_agreement": 2 / 3, "n_items": 3},
        "lead",
    )
    assert store.snapshots(lead, task.id)[1].numbers["fleiss_kappa"] == Undefined("every label is the same")
    with pytest.raises(AccessDenied, match="only a lead"):
        store.share_snapshot(ann, task.id, {"percent_agreement": 1.0})
    with pytest.raises(StoreError, match="numbers.rows: DataFrame is not a number"):
        store.share_snapshot(lead, task.id, {"rows": store.labels(lead, task.id)})
    store.set_share_agreement(lead, task.id, False)
    with pytest.raises(AccessDenied, match="not shared"):
        store.shared_snapshot(ann, task.id)


def _lead_writes(store: Store, actor, task) -> dict:
    """Every write a lead makes, each a call that would change the database."""
    cb = cbm.default().to_dict()
    cb["version"] = "9.9"
    return {
        "set_gold": lambda: store.set_gold(actor, task.id, "S01:1", "initiate"),
        "accept_consensus": lambda: store.accept_consensus(actor, task.id),
        "create_task": lambda: store.create_task(
            actor,
            "another",
            "sample",
            cbm.default(),
            [{"session_id": "S01", "action_index": 1}],
            [],
            dataset_hash="ab" * 32,
        ),
        "assign": lambda: store.assign(
            actor, task.id, [store.user("dan") or store.create_user("dan", "dan-password", "coder")]
        ),
        "set_phase": lambda: store.set_phase(actor, task.id, "adjudication"),
        "set_coder_view": lambda: store.set_coder_view(actor, task.id, "nothing"),
        "set_share_agreement": lambda: store.set_share_agreement(actor, task.id, True),
        "share_snapshot": lambda: store.share_snapshot(actor, task.id, {"kappa": 0.5}),
        "revise_codebook": lambda: store.revise_codebook(actor, task.id, cbm.parse(cb)),
        "import_labels_csv": lambda: store.import_labels_csv(actor, task.id, "item,coder,label\nS01:1,ann,initiate\n"),
        "reset_password": lambda: store.reset_password(actor, "ann", "reset-password"),
        "disable_user": lambda: store.disable_user(actor, "bob"),
        "delete_user": lambda: store.delete_user(actor, "guest"),
    }


@pytest.mark.parametrize("change", ["disabled", "deleted"])
def test_a_lead_disabled_or_deleted_changes_nothing_from_a_page_still_open(team, change):
    """The page holds the lead's User from before; the store checks the account as it is at the
    moment of each write, so none of them changes anything; the active lead's all do."""
    store, lead, ann, bob, viewer, task = team
    gone = store.create_user("second", "second-password", "lead")
    (store.disable_user if change == "disabled" else store.delete_user)(lead, "second")
    with store.engine.connect() as c:
        before = {t: c.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one() for t in store_tables()}
        accounts = c.execute(sa.text("SELECT username, auth_epoch, status FROM users ORDER BY id")).all()
    for write, call in _lead_writes(store, gone, task).items():
        with pytest.raises(AccessDenied, match=f"the account 'second' is {change}"):
            call()
        with store.engine.connect() as c:
            after = {t: c.execute(sa.text(f"SELECT count(*) FROM {t}")).scalar_one() for t in store_tables()}
            now = c.execute(sa.text("SELECT username, auth_epoch, status FROM users ORDER BY id")).all()
        assert after == before and now[: len(accounts)] == accounts, write
    assert store.task(task.id) == task
    for write, call in _lead_writes(store, lead, task).items():  # the active lead's writes all go through
        assert call() is not False, write


def store_tables() -> list[str]:
    return ["labels", "gold", "tasks", "task_coders", "codebooks", "agreement_snapshots"]


def test_a_label_note_and_a_gold_note_have_a_stated_limit(team):
    store, lead, ann, bob, viewer, task = team
    with pytest.raises(StoreError, match="note: 2,001 characters; at most 2,000"):
        store.add_label(ann, task.id, "S01:1", "initiate", note="x" * 2001)
    with pytest.raises(StoreError, match="note: 104,857,600 characters; at most 2,000"):
        store.add_label(ann, task.id, "S01:1", "initiate", note="x" * 100 * 2**20)
    assert store.add_label(ann, task.id, "S01:1", "initiate", note="x" * 2000)
    with pytest.raises(StoreError, match="note: 2,001 characters; at most 2,000"):
        store.set_gold(lead, task.id, "S01:1", "initiate", note="y" * 2001)
    with pytest.raises(StoreError, match="name: 201 characters; at most 200"):
        store.create_task(
            lead,
            "n" * 201,
            "sample",
            cbm.default(),
            [{"session_id": "S01", "action_index": 1}],
            [],
            dataset_hash="ab" * 32,
        )
    with pytest.raises(StoreError, match="nothing imported: labels.csv is 17.0 MiB; a label file is at most 16 MiB"):
        store.import_labels_csv(lead, task.id, b"item,coder,label\n" + b"S01:1,ann,initiate\n" * (17 * 2**20 // 19 + 1))
    assert store.my_labels(ann, task.id)["note"].str.len().tolist() == [2000]
