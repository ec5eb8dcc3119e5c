"""Writing and reading labels: history, refusals, retried requests, the frozen phases, the cheap
"labels changed since" check, and incremental reads, on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from corpus.store import AccessDenied, StoreError


def test_labels_are_saved_with_history_and_version(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate", seconds=3.5)
    store.add_label(ann, task.id, "S01:1", "continue", note="on reflection", unsure=True)
    mine = store.my_labels(ann, task.id)
    assert mine[["item_id", "code", "note", "unsure"]].values.tolist() == [["S01:1", "continue", "on reflection", True]]
    hist = store.history(ann, task.id, "S01:1")
    assert hist["code"].tolist() == ["initiate", "continue"]
    assert hist["seconds"].iloc[0] == 3.5
    assert set(hist["codebook_version"]) == {"1.0"}


def test_bad_labels_are_refused(team):
    store, lead, ann, bob, viewer, task = team
    with pytest.raises(StoreError, match="'greet' is not in codebook grounding_acts"):
        store.add_label(ann, task.id, "S01:1", "greet")
    with pytest.raises(StoreError, match="needs a note"):
        store.add_label(ann, task.id, "S01:1", "other")
    with pytest.raises(AccessDenied, match="viewers cannot label"):
        store.add_label(viewer, task.id, "S01:1", "initiate")
    with pytest.raises(AccessDenied, match="not a coder of task"):
        store.add_label(lead, task.id, "S01:1", "initiate")
    with pytest.raises(StoreError, match="not an item"):
        store.add_label(ann, task.id, "S99:1", "initiate")
    with pytest.raises(StoreError, match="task #999 does not exist"):
        store.add_label(ann, 999, "S01:1", "initiate")
    with pytest.raises(StoreError, match="request id: must be 1 to 64 characters"):
        store.add_label(ann, task.id, "S01:1", "initiate", request_id="r" * 65)
    assert store.my_labels(ann, task.id).empty


def test_a_retried_request_is_written_once(team):
    store, lead, ann, bob, viewer, task = team
    a = store.add_label(ann, task.id, "S01:2", "repair", request_id="req-1")
    b = store.add_label(ann, task.id, "S01:2", "repair", request_id="req-1")
    assert a == b
    assert len(store.history(ann, task.id)) == 1
    # A request id is one label's: another coder cannot reuse it, nor read the label through it.
    with pytest.raises(StoreError, match="belongs to another label"):
        store.add_label(bob, task.id, "S01:2", "cancel", request_id="req-1")
    assert store.history(bob, task.id).empty


def test_labels_freeze_when_adjudication_starts(team):
    store, lead, ann, bob, viewer, task = team
    first = store.add_label(ann, task.id, "S01:1", "initiate", request_id="r1")
    store.set_phase(lead, task.id, "adjudication")
    with pytest.raises(StoreError, match="being adjudicated: labels are frozen"):
        store.add_label(ann, task.id, "S01:1", "continue")
    # A retry of a label acknowledged before the freeze still gets its answer.
    assert store.add_label(ann, task.id, "S01:1", "initiate", request_id="r1") == first
    store.set_phase(lead, task.id, "revealed")
    with pytest.raises(StoreError, match="closed"):
        store.add_label(bob, task.id, "S01:2", "initiate")
    assert store.history(lead, task.id)["code"].tolist() == ["initiate"]


def test_a_disabled_coder_cannot_label_with_a_user_object_held_from_before(team):
    store, lead, ann, bob, viewer, task = team
    store.disable_user(lead, "ann")
    with pytest.raises(AccessDenied, match="'ann' is disabled"):
        store.add_label(ann, task.id, "S01:1", "initiate")


def test_labels_version_changes_with_every_label(team):
    store, lead, ann, bob, viewer, task = team
    assert store.labels_version(task.id) == (0, 0)
    a = store.add_label(ann, task.id, "S01:1", "initiate")
    assert store.labels_version(task.id) == (1, a)
    b = store.add_label(ann, task.id, "S01:1", "continue")  # a relabel is a change too
    c = store.add_label(bob, task.id, "S01:1", "continue")
    assert store.labels_version(task.id) == (3, c) and a < b < c


def test_labels_version_reads_one_index(team):
    store, *_ = team
    indexes = {ix["name"]: ix["column_names"] for ix in sa.inspect(store.engine).get_indexes("labels")}
    assert indexes["ix_labels_task_id"] == ["task_id", "id"]
    if store.backend == "sqlite":
        q = "SELECT count(*), coalesce(max(id), 0) FROM labels WHERE task_id = 1"
        with store.engine.connect() as c:
            plan = " ".join(str(r[-1]) for r in c.exec_driver_sql("EXPLAIN QUERY PLAN " + q))
        assert "COVERING INDEX ix_labels_task_id" in plan, plan


def test_refreshed_labels_equal_a_full_read_and_stay_blind(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.add_label(bob, task.id, "S01:1", "continue")
    view = store.refresh_labels(lead, task.id)
    store.add_label(ann, task.id, "S01:2", "repair")
    store.add_label(ann, task.id, "S01:1", "cancel", note="changed my mind")  # a relabel replaces
    view = store.refresh_labels(lead, task.id, view)
    full = store.labels(lead, task.id)
    cols = ["id", "item_id", "coder", "code", "note"]
    assert view[cols].sort_values("id").values.tolist() == full[cols].sort_values("id").values.tolist()
    assert sorted(zip(view["item_id"], view["coder"], view["code"])) == [
        ("S01:1", "ann", "cancel"),
        ("S01:1", "bob", "continue"),
        ("S01:2", "ann", "repair"),
    ]
    assert store.refresh_labels(lead, task.id, view) is view  # nothing new: nothing read but the new rows
    for user in (ann, viewer):
        with pytest.raises(AccessDenied):
            store.labels_since(user, task.id, 0)
        with pytest.raises(AccessDenied):
            store.refresh_labels(user, task.id, view)


def test_progress_counts_items_per_coder(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.add_label(ann, task.id, "S01:1", "continue")
    store.add_label(ann, task.id, "S01:2", "continue")
    assert store.progress(task.id).values.tolist() == [["ann", 2, 6], ["bob", 0, 6]]


def test_a_label_committed_late_under_a_lower_id_still_reaches_the_live_view(team):
    """On PostgreSQL ids are handed out at insert and rows become visible at commit, so a label can
    appear after one with a higher id (its writer moves the task's labels version on after the
    other writer did); the refresh must not skip it. (SQLite commits in id order.)"""
    from corpus.store.tables import count_label

    store, lead, ann, bob, viewer, task = team
    view = store.refresh_labels(lead, task.id)
    late = store.engine.connect()
    if store.backend == "postgresql":
        slow = late.begin()
        late_id = late.execute(
            sa.text(
                "INSERT INTO labels (task_id, item_id, coder_id, code, note, unsure, codebook_version, source, created_at) "
                "VALUES (:t, 'S01:3', :c, 'repair', '', false, '1.0', 'ui', now()) RETURNING id"
            ),
            {"t": task.id, "c": ann.id},
        ).scalar_one()
    quick = store.add_label(bob, task.id, "S01:4", "continue")
    view = store.refresh_labels(lead, task.id, view)
    assert view["id"].tolist() == [quick]
    if store.backend == "postgresql":
        count_label(late, task.id, late_id)
        slow.commit()
    else:
        store.add_label(ann, task.id, "S01:3", "repair")
    late.close()
    view = store.refresh_labels(lead, task.id, view)
    assert sorted(zip(view["item_id"], view["code"])) == [("S01:3", "repair"), ("S01:4", "continue")]
    assert view.attrs["labels_version"] == store.labels_version(task.id)
