"""What the coding screens' AppTests share: a data dir with a team and a task, signing in, every
element's text, and the coding keypad as the browser drives it (its data, and a label event sent
the way the browser sends it)."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from streamlit.components.v2.bidi_component.main import _make_trigger_id
from streamlit.testing.v1 import AppTest

from analysis import coding as ac
from corpus import codebook as cbm
from corpus.loading.dataset import load_sample
from corpus.store import Store

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


@pytest.fixture(scope="module")
def corpus():
    return load_sample()


def data_dir(tmp_path: Path, monkeypatch) -> Path:
    """A fresh data directory that the app under AppTest uses (SQLite in it, no database URL)."""
    data = tmp_path / "data"
    data.mkdir()
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(data))
    monkeypatch.delenv("GROUNDWORK_DB_URL", raising=False)
    return data


def people(store: Store, **roles: str) -> list:
    """Accounts named by keyword with their role (password: the name and "-password"), in order."""
    return [store.create_user(name, f"{name}-password", role) for name, role in roles.items()]


@pytest.fixture
def team(tmp_path, monkeypatch, corpus):
    """A data dir with a lead, two coders, a viewer and a 10-item task on the sample corpus."""
    store = Store.open(data_dir(tmp_path, monkeypatch))
    lead, ann, bob, guest = people(store, lead="lead", ann="coder", bob="coder", guest="viewer")
    items = ac.assign_partitions(ac.sample_items(corpus.actions_df, 10, seed=3), 2, seed=3)
    task = store.create_task(
        lead, "pilot", corpus.info.name, cbm.default(), items, [ann, bob], seed=3, dataset_hash=corpus.content_hash
    )
    return store, lead, ann, bob, guest, task


def signed_in(username: str, password: str, page: str) -> AppTest:
    """The app opened at ``page`` and signed in through its form."""
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page(page).run()
    at.text_input(key="auth_username").input(username)
    at.text_input(key="auth_password").input(password)
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def all_text(at: AppTest) -> str:
    """Every element's content on the page (protos as text; of a custom component, the data it was
    given, not its own code), to search for leaks."""
    out = []

    def walk(node):
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.append(proto.json if hasattr(proto, "js_content") else str(proto))
        children = getattr(node, "children", None)
        if isinstance(children, dict):
            for child in children.values():
                walk(child)

    walk(at._tree)
    return "\n".join(out)


def _keypad_element(at: AppTest, task_id: int):
    found = [e for e in at.get("bidi_component") if e.proto.id.endswith(f"-code_keypad_{task_id}")]
    assert len(found) == 1, [e.proto.id for e in at.get("bidi_component")]
    return found[0]


def keypad(at: AppTest, task_id: int) -> dict:
    """The data the coding keypad of a task was given on the last run."""
    return json.loads(_keypad_element(at, task_id).proto.json)


def press(
    at: AppTest,
    task_id: int,
    code: str,
    note: str = "",
    unsure: bool = False,
    item: str | None = None,
    request_id: str | None = None,
) -> str:
    """Send the keypad's label event as the browser does on a code's key (for the item on screen
    unless ``item`` is given) and run the app; returns the request id."""
    request_id = request_id or uuid.uuid4().hex
    value = {
        "item": item or keypad(at, task_id)["item"],
        "code": code,
        "note": note,
        "unsure": unsure,
        "request_id": request_id,
    }
    states = at._tree.get_widget_states()
    trigger = states.widgets.add()
    trigger.id = _make_trigger_id(_keypad_element(at, task_id).proto.id, "events")
    trigger.json_trigger_value = json.dumps([{"event": "label", "value": value}])
    at._run(states)
    assert not at.exception, [e.value for e in at.exception]
    return request_id
