"""Schema migrations: a version-1 database, written with version 1's DDL, is upgraded in place on
SQLite and PostgreSQL with every row kept; the result has the current schema; a version-2 database
gets the revoked tokens' table; a version-3 database gets sign-in keys; a version-6 database's failed
sign-ins learn their devices; a failed upgrade changes nothing; racing openers upgrade once; a
newer database is refused."""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from corpus import codebook as cbm
from corpus.store import SCHEMA_VERSION, Store, StoreError, metadata
from store.v1_schema import DDL, TYPES, rows


def _write_v1(url: str, extra_ddl: str = "") -> None:
    eng = sa.create_engine(url)
    with eng.begin() as c:
        for stmt in (DDL.format(**TYPES[eng.dialect.name]) + extra_ddl).split(";"):
            if stmt.strip():
                c.exec_driver_sql(stmt)
        for sql, params in rows(eng.dialect.name):
            c.execute(sa.text(sql), params)
    eng.dispose()


def test_a_version_1_database_is_upgraded_in_place_and_keeps_every_row(url):
    _write_v1(url)
    store = Store(url)
    assert (store.migrated, store.schema_version(), SCHEMA_VERSION) == ([2, 3, 4, 5, 6, 7], 7, 7)
    # The labels version was counted from the labels kept: 5 label rows, the newest id 5.
    assert store.labels_version(1) == (5, 5)
    lead = store.sign_in("lead", "lead-password")  # a version-1 (PBKDF2) password still signs in
    hist = store.history(lead, 1)
    assert hist[["item_id", "coder", "code", "note", "seconds"]].values.tolist() == [
        ["S01:0", "ann", "initiate", "", 2.5],
        ["S01:0", "bob", "initiate", "", 2.5],
        ["S01:1", "ann", "repair", "a repair", 2.5],
        ["S01:1", "bob", "continue", "", 2.5],
        ["S01:1", "ann", "continue", "", 2.5],
    ]
    assert hist["created_at"].iloc[0].strftime("%Y-%m-%d %H:%M") == "2024-05-03 10:00"
    assert sorted(map(tuple, store.labels(lead, 1)[["item_id", "coder", "code"]].values.tolist())) == [
        ("S01:0", "ann", "initiate"),
        ("S01:0", "bob", "initiate"),
        ("S01:1", "ann", "continue"),
        ("S01:1", "bob", "continue"),
    ]
    assert store.gold(lead, 1)[["item_id", "code"]].values.tolist() == [["S01:0", "initiate"], ["S01:1", "continue"]]
    assert store.gold_history(lead, 1)["replaced_code"].tolist() == ["", "", "repair"]
    task = store.task(1)
    assert (task.name, task.dataset, task.dataset_hash, task.phase, task.share_agreement, task.n_items) == (
        "pilot",
        "sample",
        None,
        "revealed",
        True,
        3,
    )
    assert (task.coder_view, task.share_min_items, task.codebook) == ("own_disagreements", 20, cbm.default())
    assert [(u.username, u.status) for u in store.users()] == [("lead", "active"), ("ann", "active"), ("bob", "active")]
    # A task from before tasks carried a hash is found by its dataset's name.
    assert store.revealed_gold("hash-of-sample", dataset_name="sample")["code"].tolist() == ["initiate", "continue"]
    assert store.revealed_gold("hash-of-sample").empty
    # A retried version-1 request still returns its label; new rows continue the old ids.
    ann = store.user("ann")
    assert store.add_label(ann, 1, "S01:0", "initiate", request_id="r-1") == 1
    new = store.create_task(
        lead,
        "round 2",
        "sample",
        cbm.default(),
        [{"session_id": "S01", "action_index": 9}],
        [ann],
        dataset_hash="hash-of-sample",
    )
    assert new.id == 2 and store.add_label(ann, new.id, "S01:9", "repair") == 6
    assert Store(url).migrated == []  # opened again: nothing left to do


def test_the_upgraded_schema_is_the_current_one(url):
    _write_v1(url)
    store = Store(url)
    inspect = sa.inspect(store.engine)
    assert set(inspect.get_table_names()) == set(metadata.tables)
    for table in metadata.sorted_tables:
        got = {c["name"]: c["nullable"] for c in inspect.get_columns(table.name)}
        assert got == {c.name: c.nullable for c in table.columns}, table.name
        indexes = {
            ix["name"]: ix["column_names"]
            for ix in inspect.get_indexes(table.name)
            if not ix.get("duplicates_constraint")
        }  # PostgreSQL lists a unique constraint's index too
        assert indexes == {ix.name: [c.name for c in ix.columns] for ix in table.indexes}, table.name


def test_a_failed_upgrade_changes_nothing(url):
    # A table in the way makes the upgrade fail half way through its steps.
    _write_v1(url, "CREATE TABLE agreement_snapshots (id INTEGER PRIMARY KEY);")
    with pytest.raises(sa.exc.DatabaseError):
        Store(url)
    eng = sa.create_engine(url)
    with eng.connect() as c:
        assert c.execute(sa.text("SELECT value FROM schema_meta")).scalar_one() == "1"
        assert "status" not in {col["name"] for col in sa.inspect(c).get_columns("users")}
        assert not sa.inspect(c).has_table("signin_throttle")
        assert c.execute(sa.text("SELECT count(*) FROM labels")).scalar_one() == 5
    eng.dispose()


def test_openers_racing_on_an_old_database_upgrade_it_once(url):
    _write_v1(url)
    done, errors = [], []

    def open_it() -> None:
        try:
            done.append(Store(url).migrated)
        except Exception as exc:  # noqa: BLE001 - collected and shown by the assertion
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and sorted(done) == [[], [], [], [2, 3, 4, 5, 6, 7]]


def _as_version(store: Store, version: int, *statements: str) -> None:
    with store.engine.begin() as c:
        for sql in statements:
            c.execute(sa.text(sql))
        c.execute(sa.text(f"UPDATE schema_meta SET value = '{version}' WHERE \"key\" = 'schema_version'"))
    store.engine.dispose()


_V5 = (
    *(f"DROP TABLE {name}" for name in ("agreement_labels", "agreement_sums", "agreement_pairs", "agreement_coders")),
    "ALTER TABLE tasks DROP COLUMN n_items",
)
_V4 = (*_V5, "ALTER TABLE tasks DROP COLUMN labels_count", "ALTER TABLE tasks DROP COLUMN labels_newest")
_V3 = (
    *_V4,
    "DROP TABLE signin_failures",
    "DROP INDEX ix_signin_throttle_last_failure",
    "ALTER TABLE users DROP COLUMN sign_in_key",
)


def test_a_version_2_database_gets_the_revoked_tokens(url):
    store = Store(url)
    ann = store.create_user("ann", "ann-password", "coder")
    _as_version(store, 2, "DROP TABLE revoked_tokens", *_V3)
    upgraded = Store(url)
    assert (upgraded.migrated, upgraded.schema_version()) == ([3, 4, 5, 6, 7], 7)
    token = upgraded.issue_token(ann)
    assert upgraded.revoke_token(token) and upgraded.user_for_token(token) is None


def test_a_version_3_database_gives_every_account_its_own_sign_in_key(url):
    """Version 4 ends the sign-ins of version 3 (their tokens name no key), starts the backoff's
    counts afresh per (account, client) and keeps failed sign-ins from then on."""
    store = Store(url)
    ann = store.create_user("ann", "ann-password", "coder")
    store.create_user("bob", "bob-password", "coder")
    store.authenticate("ann", "wrong-password", client="203.0.113.9")
    payload = f"{ann.id}.0.{2**40}"
    v3_token = f"{payload}.{store._signature(payload)}"  # a version-3 token, signed with the same secret
    _as_version(
        store,
        3,
        *_V3,
        "INSERT INTO signin_throttle (key, failures, last_failure) VALUES ('account:ann', 9, CURRENT_TIMESTAMP)",
    )
    upgraded = Store(url)
    assert (upgraded.migrated, upgraded.schema_version()) == ([4, 5, 6, 7], 7)
    with upgraded.engine.connect() as c:
        keys = c.execute(sa.text("SELECT sign_in_key FROM users")).scalars().all()
        assert c.execute(sa.text("SELECT count(*) FROM signin_throttle")).scalar_one() == 0
    assert len(set(keys)) == 2 and all(len(k) == 32 for k in keys)
    assert upgraded.user_for_token(v3_token) is None
    assert upgraded.user_for_token(upgraded.issue_token(ann)) == ann
    assert upgraded.sign_in("ann", "ann-password", client="203.0.113.9") == ann


def test_a_newer_database_is_refused(url):
    store = Store(url)
    with store.engine.begin() as c:
        c.execute(sa.text("UPDATE schema_meta SET value = '8' WHERE \"key\" = 'schema_version'"))
    with pytest.raises(StoreError, match="schema version 8, newer than this app's 7; upgrade the app"):
        Store(url)


def test_a_version_4_database_counts_each_tasks_labels_version(url):
    """Version 5 keeps each task's labels version on its row, counted from the labels kept when the
    database is upgraded, and moved on by every label written after."""
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", "ann-password", "coder")
    items = [{"session_id": "S01", "action_index": i} for i in range(3)]
    task = store.create_task(lead, "pilot", "sample", cbm.default(), items, [ann], dataset_hash="h")
    empty = store.create_task(lead, "empty", "sample", cbm.default(), items, [ann], dataset_hash="h")
    ids = [store.add_label(ann, task.id, f"S01:{i}", "initiate") for i in range(3)]
    store.add_label(ann, task.id, "S01:0", "repair")  # a relabel is a row too
    _as_version(store, 4, *_V4)
    upgraded = Store(url)
    assert (upgraded.migrated, upgraded.schema_version()) == ([5, 6, 7], 7)
    assert upgraded.labels_version(task.id) == (4, ids[-1] + 1)
    assert upgraded.labels_version(empty.id) == (0, 0)
    new = upgraded.add_label(ann, task.id, "S01:1", "repair")
    assert upgraded.labels_version(task.id) == (5, new)
    with upgraded.engine.connect() as c:  # the kept version is what counting the labels gives
        counted = c.execute(sa.text("SELECT count(*), max(id) FROM labels WHERE task_id = :t"), {"t": task.id}).one()
    assert tuple(counted) == upgraded.labels_version(task.id)


def test_a_version_5_database_counts_each_tasks_agreement_sums(url):
    """Version 6 keeps each task's agreement in sufficient statistics: counted from the labels kept
    when the database is upgraded (the human coders' current labels), then moved on by every label."""
    from analysis import agreement as ag
    from analysis.agreement.sums import headline
    from analysis.live_panel import COLS, human_labels

    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    ann, bob = store.create_user("ann", "ann-password", "coder"), store.create_user("bob", "bob-password", "coder")
    items = [{"session_id": "S01", "action_index": i} for i in range(3)]
    task = store.create_task(lead, "pilot", "sample", cbm.default(), items, [ann, bob], dataset_hash="h")
    for i, (a, b) in enumerate([("initiate", "initiate"), ("repair", "initiate"), ("continue", "continue")]):
        store.add_label(ann, task.id, f"S01:{i}", a)
        store.add_label(bob, task.id, f"S01:{i}", b)
    store.add_label(bob, task.id, "S01:1", "repair")  # a relabel: only the latest counts
    _as_version(store, 5, *_V5)
    upgraded = Store(url)
    assert (upgraded.migrated, upgraded.schema_version()) == ([6, 7], 7)
    assert upgraded.task(task.id).n_items == 3  # counted on the upgrade
    head = headline(*upgraded.agreement_sums(lead, task.id))
    assert (head.n_labels, head.n_items_complete, head.percent_agreement.estimate) == (6, 3, 1.0)
    upgraded.add_label(ann, task.id, "S01:2", "repair")
    head = headline(*upgraded.agreement_sums(lead, task.id))
    batch = ag.panel(ag.LabelTable(human_labels(upgraded.labels(lead, task.id)), **COLS))
    assert head.percent_agreement.estimate == batch.percent_agreement.estimate == 2 / 3
    assert head.fleiss.estimate == pytest.approx(batch.fleiss.estimate, abs=1e-12)


def test_a_version_6_database_keeps_its_failed_sign_ins_and_learns_their_devices(url):
    """Version 7: a failed sign-in names the known device it came from and what was attempted; the
    waits of the old backoff are lifted (a browser proves work instead)."""
    store = Store(url)
    store.create_user("ann", "ann-password", "coder")
    for _ in range(5):
        store.authenticate("ann", "wrong-password", client="203.0.113.9")
    store.engine.dispose()
    eng = sa.create_engine(url)
    with eng.begin() as c:
        for column in ("device", "attempt"):
            c.exec_driver_sql(f"ALTER TABLE signin_failures DROP COLUMN {column}")
        c.exec_driver_sql("UPDATE signin_throttle SET locked_until = last_failure")
        c.exec_driver_sql("UPDATE schema_meta SET value = '6' WHERE key = 'schema_version'")
    eng.dispose()
    store = Store(url)
    assert (store.migrated, store.schema_version()) == ([7], 7)
    with store.engine.connect() as c:
        rows = c.execute(sa.text("SELECT account, client, device, attempt FROM signin_failures")).all()
        locks = c.execute(sa.text("SELECT count(*) FROM signin_throttle WHERE locked_until IS NOT NULL")).scalar()
    assert rows == [("ann", "203.0.113.9", None, None)] * 5 and locks == 0
    assert store.proof_level("ann", "203.0.113.9") == 1
    store.engine.dispose()
