"""The live panel's refresh against a real database: a check costs one query (the labels version),
everything is recomputed only when a label came in, and every number rests on the same labels."""

from __future__ import annotations

from contextlib import contextmanager

import pandas as pd
import sqlalchemy as sa

from analysis import agreement as ag
from analysis.live_panel import lead_refresh
from services.coding import live_panel


@contextmanager
def statements(store):
    """The SQL statements the store runs inside the block."""
    seen: list[str] = []

    def count(conn, cursor, statement, *args):  # noqa: ANN001, ANN002
        seen.append(statement)

    sa.event.listen(store.engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        sa.event.remove(store.engine, "before_cursor_execute", count)


def _selects(seen: list[str]) -> list[str]:
    return [s for s in seen if s.lstrip().upper().startswith(("SELECT", "WITH"))]


def test_a_check_without_a_new_label_reads_only_the_version(team):
    store, lead, ann, bob, viewer, task = team
    items = store.items(task.id)["item_id"].tolist()
    store.add_label(ann, task.id, items[0], "initiate")
    store.add_label(bob, task.id, items[0], "continue")
    state: dict = {}
    first = live_panel(lead, task.id, task.n_items, state=state, store=store)
    assert first.version == store.labels_version(task.id) == (2, int(first.labels["id"].max()))
    with statements(store) as seen:
        again = live_panel(lead, task.id, task.n_items, state=state, store=store)
    assert again is first  # nothing recomputed
    # One statement, reading the task's own row: no count over the task's labels.
    assert len(_selects(seen)) == 1 and "from tasks" in _selects(seen)[0].lower()
    assert "labels" not in _selects(seen)[0].lower().split("from")[1]


def test_a_new_label_is_read_and_everything_recomputed_on_the_same_labels(team):
    store, lead, ann, bob, viewer, task = team
    items = store.items(task.id)["item_id"].tolist()
    state: dict = {}
    empty = live_panel(lead, task.id, task.n_items, state=state, store=store)
    assert empty.agreement.headline is None and empty.version == (0, 0)
    codes = [("initiate", "initiate"), ("continue", "repair"), ("repair", "repair")]
    for it, (a, b) in zip(items, codes):
        store.add_label(ann, task.id, it, a)
        store.add_label(bob, task.id, it, b)
    store.add_label(ann, task.id, items[1], "repair")  # a relabel replaces ann's earlier label
    live = live_panel(lead, task.id, task.n_items, state=state, store=store)
    assert live is not empty and live.version == store.labels_version(task.id)
    assert live.version[0] == 7 and len(live.labels) == 6
    head, rep = live.agreement.headline, live.agreement.report
    # One refresh, one count: headline, report and progress rest on the same 6 labels on 3 items.
    assert (head.n_labels, head.n_items, head.n_items_complete) == (6, 3, 3)
    assert (rep.n_labels, rep.n_items) == (6, 3)
    assert live.labels.groupby("coder").size().to_dict() == {"ann": 3, "bob": 3}
    # Every pair agrees after the relabel: percent agreement 1, but under the panel's minimum.
    full = ag.panel(ag.LabelTable(store.labels(lead, task.id), item="item_id", label="code"))
    assert full.percent_agreement.estimate == 1.0
    assert str(head.fleiss.estimate) == "undefined, because too few items (3 complete)"
    again = lead_refresh(store.labels(lead, task.id), task.n_items).headline
    assert [str(e.estimate) for e in again.statistics] == [str(e.estimate) for e in head.statistics]


def test_the_page_running_again_recomputes_for_gold(team):
    """Gold does not change the labels version: a run of the page itself (``fresh``) recomputes the
    model coders against the new gold."""
    store, lead, ann, bob, viewer, task = team
    items = store.items(task.id)["item_id"].tolist()
    csv = "item,coder,label\n" + "".join(f"{it},gpt,initiate\n" for it in items[1:4])
    store.import_labels_csv(lead, task.id, csv.encode(), file="gpt.csv", create_coders=True, coder_kind="model")
    for it in items[1:4]:
        store.add_label(ann, task.id, it, "initiate")
        store.add_label(bob, task.id, it, "continue")
    state: dict = {}
    before = live_panel(lead, task.id, task.n_items, state=state, store=store)
    assert before.models.rows["against"].tolist() == ["majority of ann, bob"]
    for it in items[1:4]:
        store.set_gold(lead, task.id, it, "initiate")
    assert live_panel(lead, task.id, task.n_items, state=state, store=store) is before
    after = live_panel(lead, task.id, task.n_items, state=state, fresh=True, store=store)
    rows = after.models.rows
    assert rows["against"].tolist() == ["gold"] and rows["items"].tolist() == [3]
    assert rows["percent_agreement"].tolist() == ["1.000"]
    assert isinstance(after.labels, pd.DataFrame) and after.version == before.version


def test_the_drift_and_the_tiles_follow_one_rule():
    """Kappa's drift plots no point on fewer complete items than the tiles need: with 8 complete
    items the tiles and every drift point are undefined for the same reason; from 10 on both have a value."""
    import pandas as pd

    from analysis import agreement as ag

    def labels(n_items: int) -> pd.DataFrame:
        rows = []
        for i in range(n_items):
            for coder, code in (("ann", "a" if i % 3 else "b"), ("bob", "a" if i % 4 else "b")):
                rows.append(
                    {
                        "item_id": f"S01:{i}",
                        "coder": coder,
                        "coder_kind": "human",
                        "code": code,
                        "created_at": pd.Timestamp("2026-01-01") + pd.Timedelta(seconds=i),
                        "codebook_version": "1.0",
                    }
                )
        return pd.DataFrame(rows)

    few = lead_refresh(labels(8), 60)
    assert few.drift["kappa"].isna().all() and not ag.is_defined(few.headline.fleiss.estimate)
    assert set(few.drift["reason"]) == {f"too few items (under {ag.PANEL_MIN_ITEMS} complete)"}
    enough = lead_refresh(labels(12), 60)
    assert enough.drift.loc[enough.drift["n_items"] >= 10, "kappa"].notna().all()
    assert enough.drift.loc[enough.drift["n_items"] < 10, "kappa"].isna().all()
    assert ag.is_defined(enough.headline.fleiss.estimate)


def test_postgresql_tells_the_panels_when_a_label_comes_in(url, team):
    """On PostgreSQL a label write is announced (NOTIFY at its commit): another store on the same
    database (another replica) sees its mark for the task move without asking the database, and
    only that task's; a rolled-back write announces nothing. SQLite has no notices: None."""
    import time

    from corpus.store import Store

    store, lead, ann, bob, viewer, task = team
    other = Store(url)
    if not url.startswith("postgresql"):
        assert other.label_changes(task.id) is None
        return

    def settled(what, timeout=10.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got = what()
            if got:
                return got
            time.sleep(0.05)
        raise AssertionError("nothing changed in time")

    start = settled(lambda: other.label_changes(task.id))
    items = store.items(task.id)["item_id"].tolist()
    second = store.create_task(
        lead, "second", "sample", task.codebook, [{"session_id": "S09", "action_index": 1}], [ann], dataset_hash="h"
    )
    before = other.label_changes(second.id)
    store.add_label(ann, second.id, "S09:1", "initiate")
    settled(lambda: (m := other.label_changes(second.id)) != before and m)  # its notice came in
    assert other.label_changes(task.id) == start  # another task's label
    with statements(other) as seen:
        store.add_label(ann, task.id, items[0], "initiate")
        moved = settled(lambda: (m := other.label_changes(task.id)) != start and m)
    assert moved[1] == start[1] + 1 and moved[0] == start[0]
    assert seen == []  # the mark came from memory: no statement on the other store's connections
    try:
        store.add_label(ann, task.id, "no-such-item", "initiate")
    except Exception:  # noqa: BLE001 - refused: its transaction rolls back
        pass
    store.import_labels_csv(lead, task.id, f"item,coder,label\n{items[1]},ext,repair\n", create_coders=True)
    after = settled(lambda: (m := other.label_changes(task.id)) != moved and m)
    assert after[1] == moved[1] + 1  # the import's one notice; the refused label sent none
    other.engine.dispose()
