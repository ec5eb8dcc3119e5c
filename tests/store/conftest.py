"""Fixtures of the label store's tests: a database URL on SQLite and on the suite's PostgreSQL, a
clock the tests move by hand, and a small team with one task."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from corpus import codebook as cbm
from corpus.store import Store


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'labels.sqlite'}"
    return request.getfixturevalue("postgres_url")


class Clock:
    """A clock that moves only when told to (``clock.advance(seconds=...)``)."""

    def __init__(self, start: datetime = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)):
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def team(url):
    """A store with a lead, two coders, a viewer and a 6-item grounding-acts task."""
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", "ann-password", "coder")
    bob = store.create_user("bob", "bob-password", "coder")
    viewer = store.create_user("guest", "guest-password", "viewer")
    items = [
        {"session_id": "S01", "action_index": i, "partition": "few_shot" if i == 0 else "validation"} for i in range(6)
    ]
    task = store.create_task(
        lead, "pilot", "sample", cbm.default(), items, [ann, bob], seed=5, dataset_hash="c0ffee" * 10
    )
    yield store, lead, ann, bob, viewer, task
    store.engine.dispose()
