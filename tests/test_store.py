"""The label store on a real SQLite file and a real PostgreSQL server: access, history, gold,
imports, exports, concurrent writers and a killed writer."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa

from corpus import codebook as cbm
from corpus.store import AccessDenied, Store, StoreError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'labels.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def team(url):
    """A store with a lead, two coders, a viewer and a 6-item grounding-acts task."""
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", "ann-password", "coder")
    bob = store.create_user("bob", "bob-password", "coder")
    viewer = store.create_user("guest", "guest-password", "viewer")
    items = [{"session_id": "S01", "action_index": i, "partition": "few_shot" if i == 0 else "validation"} for i in range(6)]
    task = store.create_task(lead, "pilot", "sample", cbm.default(), items, [ann, bob], seed=5)
    return store, lead, ann, bob, viewer, task


def test_schema_is_versioned_and_passwords_are_hashed(team, url):
    store, *_ = team
    assert store.schema_version() == 1
    with store.engine.connect() as c:
        stored = [r[0] for r in c.execute(sa.text("select password_hash from users"))]
    assert all(h.startswith("pbkdf2_sha256$") and "password" not in h for h in stored)
    assert store.authenticate("ann", "ann-password").username == "ann"
    assert store.authenticate("ann", "wrong-password") is None
    with pytest.raises(StoreError, match="at least 8"):
        store.create_user("eve", "short", "coder")
    with pytest.raises(StoreError, match="'ann' is taken"):
        store.create_user("ann", "another-password", "coder")


def test_first_lead_needs_the_console_token(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite'}")
    token = store.issue_setup_token()
    assert token and len(token) >= 12
    with pytest.raises(AccessDenied, match="does not match"):
        store.claim_setup("guess", "mallory", "mallory-password")
    # A refused password does not use the token up.
    with pytest.raises(StoreError, match="at least 8"):
        store.claim_setup(token, "pi", "short")
    assert not store.has_lead()
    lead = store.claim_setup(token, "pi", "pi-password")
    assert lead.role == "lead"
    assert store.issue_setup_token() is None
    with pytest.raises(AccessDenied, match="exists already"):
        store.claim_setup(token, "second", "second-password")


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
    assert store.my_labels(ann, task.id).empty


def test_a_retried_request_is_written_once(team):
    store, lead, ann, bob, viewer, task = team
    a = store.add_label(ann, task.id, "S01:2", "repair", request_id="req-1")
    b = store.add_label(ann, task.id, "S01:2", "repair", request_id="req-1")
    assert a == b
    assert len(store.history(ann, task.id)) == 1


def test_blind_coding_is_enforced_by_the_store(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.add_label(bob, task.id, "S01:1", "continue")
    # Ann sees her own label only, through every read.
    assert store.my_labels(ann, task.id)["code"].tolist() == ["initiate"]
    assert store.history(ann, task.id)["coder"].unique().tolist() == ["ann"]
    for user in (ann, bob, viewer):
        with pytest.raises(AccessDenied, match="blind coding"):
            store.labels(user, task.id)
        with pytest.raises(AccessDenied):
            store.gold(user, task.id)
    with pytest.raises(AccessDenied, match="not shared"):
        store.aggregate(ann, task.id, lambda f: len(f))
    # Counts of progress are not labels: everyone may see them.
    assert store.progress(task.id)["coded"].tolist() == [1, 1]
    # The lead shares aggregate numbers: a number passes, a frame does not.
    store.set_share_agreement(lead, task.id, True)
    assert store.aggregate(ann, task.id, lambda f: float(f["code"].nunique())) == 2.0
    with pytest.raises(AccessDenied, match="only aggregate"):
        store.aggregate(ann, task.id, lambda f: f)
    # The lead sees everything; opening adjudication lifts the blind.
    assert sorted(store.labels(lead, task.id)["coder"]) == ["ann", "bob"]
    store.set_phase(lead, task.id, "adjudication")
    assert len(store.labels(ann, task.id)) == 2
    with pytest.raises(AccessDenied, match="only a lead"):
        store.set_phase(ann, task.id, "coding")


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
        ("S01:1", "ann", "cancel"), ("S01:1", "bob", "continue"), ("S01:2", "ann", "repair")]
    assert store.refresh_labels(lead, task.id, view) is view  # nothing new: nothing read but the new rows
    for user in (ann, viewer):
        with pytest.raises(AccessDenied, match="blind coding"):
            store.labels_since(user, task.id, 0)
        with pytest.raises(AccessDenied, match="blind coding"):
            store.refresh_labels(user, task.id, view)


def test_coder_order_is_shuffled_per_coder_and_stable(team):
    store, lead, ann, bob, viewer, task = team
    a1, a2, b = store.coder_order(task.id, ann), store.coder_order(task.id, ann), store.coder_order(task.id, bob)
    assert a1 == a2
    assert sorted(a1) == sorted(b) == sorted(store.items(task.id)["item_id"])
    big = store.create_task(lead, "big", "sample", cbm.default(),
                            [{"session_id": "S02", "action_index": i} for i in range(40)], [ann, bob], seed=1)
    assert store.coder_order(big.id, ann) != store.coder_order(big.id, bob)


def test_consensus_adjudication_reveal_and_feedback(team):
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
    store.set_gold(lead, task.id, "S01:3", "repair", note="the Guide corrects the route", error_type="ambiguous", flag_codebook=True)
    g = store.gold(lead, task.id).set_index("item_id")
    assert g.loc["S01:1", ["code", "provenance"]].tolist() == ["initiate", "unanimous"]
    assert g.loc["S01:2", ["code", "provenance"]].tolist() == ["continue", "majority"]
    assert g.loc["S01:3", ["code", "provenance", "error_type"]].tolist() == ["repair", "adjudicated", "ambiguous"]
    with pytest.raises(AccessDenied, match="reveals"):
        store.feedback(carl, task.id)
    store.set_phase(lead, task.id, "revealed")
    fb = store.feedback(carl, task.id).set_index("item_id")
    assert fb.index.tolist() == ["S01:2", "S01:3"]
    assert fb.loc["S01:3", "lead_note"] == "the Guide corrects the route"
    with pytest.raises(StoreError, match="closed"):
        store.add_label(ann, task.id, "S01:4", "initiate")


def test_csv_import_adds_a_model_coder_all_or_nothing(team):
    store, lead, ann, bob, viewer, task = team
    good = "item,coder,label\nS01:1,gpt,initiate\nS01:2,gpt,continue\n"
    with pytest.raises(StoreError, match="unknown coder 'gpt'"):
        store.import_labels_csv(lead, task.id, good)
    assert store.import_labels_csv(lead, task.id, good, create_coders=True, coder_kind="model") == 2
    cur = store.labels(lead, task.id)
    assert cur[["item_id", "coder", "code", "coder_kind", "source"]].values.tolist() == [
        ["S01:1", "gpt", "initiate", "model", "import"], ["S01:2", "gpt", "continue", "model", "import"]]


@pytest.mark.parametrize("text, message", [
    ("", "the file is empty"),
    ("item,coder\nS01:1,ann\n", "missing column\\(s\\) label"),
    ("item,coder,label\n", "no rows below the header"),
    ("item,coder,label\nS01:1,ann,greet\n", "line 2, column label: 'greet' is not in codebook"),
    ("item,coder,label\nS01:1,zed,initiate\n", "line 2, column coder: unknown coder 'zed'"),
    ("item,coder,label\nS01:1,ann,initiate\nS01:1,ann,repair\n", "line 3: duplicate of line 2"),
    ("item,coder,label\nS77:1,ann,initiate\n", "line 2, column item: 'S77:1' is not an item"),
])
def test_bad_csv_imports_change_nothing(team, text, message):
    store, lead, ann, bob, viewer, task = team
    with pytest.raises(StoreError, match=message):
        store.import_labels_csv(lead, task.id, text, file="x.csv")
    assert store.labels(lead, task.id).empty
    assert [u.username for u in store.users()] == ["lead", "ann", "bob", "guest"]


def test_exports_long_and_wide(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.add_label(bob, task.id, "S01:1", "continue")
    store.add_label(bob, task.id, "S01:2", "repair")
    long = store.export_long(lead, task.id)
    assert len(long) == 3 and set(long["partition"]) == {"validation"}
    wide = store.export_wide(lead, task.id).set_index("item_id")
    assert wide.loc["S01:1", "ann"] == "initiate" and wide.loc["S01:1", "bob"] == "continue"
    assert pd.isna(wide.loc["S01:2", "ann"])
    assert len(wide) == 6  # every item, coded or not


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
    assert {("-", "id"), ("codes[1]", "code"), ("codes[1]", "key"), ("codes[2]", "name"),
            ("codes[2]", "key"), ("codes[2]", "definition")} <= got
    assert all(i.file == "book.yaml" for i in err.value.report.issues)
    books = cbm.bundled()
    assert books["grounding_acts"].code_ids == ["initiate", "continue", "acknowledge", "repair",
                                               "request_repair", "request_ack", "cancel", "other"]
    assert books["grounding_acts"].by_code("other").requires_note
    assert "uncodable" in books["hcrc_moves"].code_ids


def test_a_changed_codebook_needs_a_new_version(team):
    store, lead, *_ = team
    cb = cbm.default()
    data = cb.to_dict()
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
        ["ann", "initiate", "1.0"], ["ann", "repair", "1.1"], ["bob", "repair", "1.1"]]


def test_revealed_gold_is_what_the_analysis_pages_read(team):
    store, lead, ann, bob, viewer, task = team
    store.add_label(ann, task.id, "S01:1", "initiate")
    store.add_label(bob, task.id, "S01:1", "initiate")
    store.add_label(ann, task.id, "S01:2", "repair")
    store.add_label(bob, task.id, "S01:2", "continue")
    store.accept_consensus(lead, task.id)
    store.set_gold(lead, task.id, "S01:2", "continue", note="a continuation")
    store.set_gold(lead, task.id, "S01:2", "repair", note="on second thoughts")  # the latest decision counts
    assert store.revealed_gold("sample").empty  # still being coded: nothing is published
    store.set_phase(lead, task.id, "adjudication")
    assert store.revealed_gold("sample").empty
    store.set_phase(lead, task.id, "revealed")
    g = store.revealed_gold("sample")
    assert g[["task", "scheme", "session_id", "action_index", "code", "provenance"]].values.tolist() == [
        ["pilot", "grounding_acts", "S01", 1, "initiate", "unanimous"],
        ["pilot", "grounding_acts", "S01", 2, "repair", "adjudicated"]]
    assert store.revealed_gold("another dataset").empty and store.revealed_gold("sample", "hcrc_moves").empty


# -- concurrency and durability ------------------------------------------------------------------


def _writer(url: str, task_id: int, username: str, items: list[str], out) -> None:
    store = Store(url)
    user = store.user(username)
    ids = [store.add_label(user, task_id, item, "continue", request_id=f"{username}-{item}") for item in items]
    out.put((username, ids))


@pytest.mark.parametrize("url", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_ten_concurrent_writers_lose_and_duplicate_nothing(url):
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    coders = [store.create_user(f"c{i}", None, "coder", kind="model") for i in range(10)]
    items = [{"session_id": "S", "action_index": i} for i in range(500)]
    task = store.create_task(lead, "load", "x", cbm.default(), items, coders)
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(url, task.id, c.username, [f"S:{i}" for i in range(500)], out)) for c in coders]
    for p in procs:
        p.start()
    results = dict(out.get(timeout=300) for _ in procs)
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    acked = [i for ids in results.values() for i in ids]
    assert len(acked) == 5000 and len(set(acked)) == 5000
    cur = store.labels(lead, task.id)
    assert len(cur) == 5000
    assert cur.groupby("coder").size().tolist() == [500] * 10
    assert len(store.history(lead, task.id)) == 5000


_KILLED_WRITER = r"""
import sys
sys.path.insert(0, sys.argv[3])
from corpus.store import Store
store = Store(sys.argv[1])
user = store.user("ann")
for i in range(100000):
    lid = store.add_label(user, int(sys.argv[2]), f"S:{i % 200}", "repair")
    print(lid, flush=True)
"""


@pytest.mark.parametrize("url", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_a_killed_writer_loses_no_acknowledged_label(url):
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    ann = store.create_user("ann", "ann-password", "coder")
    task = store.create_task(lead, "kill", "x", cbm.default(), [{"session_id": "S", "action_index": i} for i in range(200)], [ann])
    proc = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, url, str(task.id), str(ROOT)], stdout=subprocess.PIPE, text=True)
    acked = []
    for line in proc.stdout:
        acked.append(int(line))
        if len(acked) >= 150:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    stored = set(Store(url).history(lead, task.id)["id"])
    assert set(acked) <= stored
