"""A coder's labels against gold after the reveal, counted over the items that have gold; on SQLite
and PostgreSQL."""

from __future__ import annotations

import pytest

from corpus.store import AccessDenied, FeedbackCounts


def test_feedback_counts_only_items_with_gold(team):
    store, lead, ann, bob, viewer, task = team
    for i, code in enumerate(["initiate", "continue", "repair", "cancel", "acknowledge"]):
        store.add_label(ann, task.id, f"S01:{i}", code)
    store.add_label(bob, task.id, "S01:5", "initiate")
    store.set_gold(lead, task.id, "S01:0", "initiate")  # agrees
    store.set_gold(lead, task.id, "S01:1", "continue")  # agrees
    store.set_gold(lead, task.id, "S01:2", "request_repair")  # differs
    store.set_gold(lead, task.id, "S01:5", "initiate")  # an item only bob coded
    with pytest.raises(AccessDenied):
        store.feedback_counts(ann, task.id)  # not before the reveal
    store.set_phase(lead, task.id, "revealed")
    counts = store.feedback_counts(ann, task.id)
    assert counts == FeedbackCounts(coded=5, with_gold=3, agree=2) and counts.without_gold == 2
    assert len(store.feedback(ann, task.id)) == counts.with_gold - counts.agree
    assert store.feedback_counts(bob, task.id) == FeedbackCounts(coded=1, with_gold=1, agree=1)
    # A later decision replaces the earlier one: the count follows the current gold.
    store.set_gold(lead, task.id, "S01:2", "repair")
    assert store.feedback_counts(ann, task.id) == FeedbackCounts(coded=5, with_gold=3, agree=3)
