"""Coding the request units of kitchen runs: the units as a task's items, the TGCO rule as a model
coder in the label store, the coding screen showing a unit without the rule's outcome, and the
rule's agreement with the people on the lead's live panel (AppTest, on the bundled kitchen sample)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from coding_team import APP, all_text, data_dir, keypad, people, press
from sklearn.metrics import cohen_kappa_score
from streamlit.testing.v1 import AppTest

from analysis import coding as ac
from analysis.kitchen import coding as kc
from analysis.kitchen.agreement import RULE
from analysis.kitchen.metrics import kitchen_metrics
from analysis.kitchen.tgco import OUTCOMES
from corpus import codebook as cbm
from corpus.escape import md_text
from corpus.kitchen.dataset import load_kitchen
from corpus.loading.catalog import key_of
from corpus.store import Store

pytestmark = pytest.mark.long

KITCHEN = Path(__file__).resolve().parent.parent / "samples" / "kitchen-synthetic"


@pytest.fixture(scope="module")
def kitchen():
    return load_kitchen(KITCHEN)


@pytest.fixture(scope="module")
def metrics(kitchen):
    return kitchen_metrics(kitchen.runs)


@pytest.fixture(scope="module")
def units(metrics):
    return kc.unit_table(metrics)


# -- the units as items -------------------------------------------------------------------------


def test_every_request_unit_is_an_item_with_the_rules_outcome(metrics, units):
    assert len(units) == sum(m.requests for m in metrics) == 350
    for m in metrics:
        mine = units[units["session_id"] == m.run_id]
        assert mine["index"].tolist() == list(range(m.requests))
        assert mine["rule"].tolist() == [u.outcome for u in m.audit.units]
        assert mine["request"].tolist() == [u.unit.text for u in m.audit.units]
    counts = units["rule"].value_counts()
    for outcome in OUTCOMES:
        assert counts.get(outcome, 0) == sum(getattr(m, outcome) for m in metrics)
    assert set(units["level"]) == {str(m.level) for m in metrics}


def test_a_stratified_sample_of_units_keeps_each_levels_share(units):
    items = ac.sample_items(units, 70, seed=4, stratify=["level"])
    assert len(items) == 70 and len({(i["session_id"], i["action_index"]) for i in items}) == 70
    share = units["level"].value_counts(normalize=True)
    got = pd.Series([i["stratum"] for i in items]).value_counts()
    for level, p in share.items():
        assert abs(got.get(level, 0) - 70 * p) <= 1, level
    codes = kc.rule_codes(units, items)
    by_id = {kc.item_id(r, i): o for r, i, o in zip(units["session_id"], units["index"], units["rule"])}
    assert codes == {
        kc.item_id(i["session_id"], i["action_index"]): by_id[kc.item_id(i["session_id"], i["action_index"])]
        for i in items
    }


def test_what_a_coder_sees_of_a_unit(kitchen, metrics):
    m = next(m for m in metrics if m.requests >= 3)
    run = next(r for r in kitchen.runs if r.id == m.run_id)
    ctx = kc.unit_context(run, m, 2, before=1)
    assert not isinstance(ctx, str)
    unit = m.audit.units[2].unit
    assert ctx.unit == unit and (ctx.index, ctx.n_units) == (2, m.requests)
    assert unit.text in ctx.message
    assert ctx.window == m.window
    assert len(ctx.earlier) <= 1 and (ctx.earlier["step"] <= unit.step).all()
    # The trace is every completed action and correction, each placed relative to the request.
    assert len(ctx.trace) == len(run.completed) + len(run.corrections)
    for step, when in zip(ctx.trace["step"], ctx.trace["when"]):
        expected = "at the request" if step == unit.step else f"{step - unit.step:+d} step"
        assert when.startswith(expected)
    assert run.steps[ctx.place].step == unit.step
    assert kc.unit_context(run, m, m.requests, before=1) == (
        f"run '{run.id}' has {m.requests} request unit(s), so no unit {m.requests}"
    )


# -- in the app ---------------------------------------------------------------------------------


def _app(page: str, username: str) -> AppTest:
    """The app on the kitchen sample (by its link), at ``page``, signed in as ``username``."""
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = key_of(KITCHEN)
    at.run()
    at.switch_page(page).run()
    at.text_input(key="auth_username").input(username)
    at.text_input(key="auth_password").input(f"{username}-password")
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_lead_codes_units_with_people_and_the_rule(tmp_path, monkeypatch, units):
    store = Store.open(data_dir(tmp_path, monkeypatch))
    lead, ann, bob = people(store, lead="lead", ann="coder", bob="coder")
    at = _app("pages/tasks.py", "lead")
    assert "350 request units in 48 runs" in "\n".join(c.value for c in at.caption)
    assert at.selectbox(key="ta_new_cb").value == "tgco"  # the one codebook for kitchen units
    at.text_input(key="ta_new_name").input("TGCO round 1")
    at.number_input(key="ta_new_n").set_value(40)
    at.multiselect(key="ta_new_strat").set_value(["level"])
    at.multiselect(key="ta_new_coders").set_value(["ann", "bob"])
    at.run()
    assert at.toggle(key="ta_new_rule").value is True
    at.button(key="ta_new_create").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    task = store.tasks_for(lead)[0]
    assert (task.n_items, task.codebook.id) == (40, "tgco")
    items = store.items(task.id)
    expected = ac.assign_partitions(ac.sample_items(units, 40, 180, ["level"]), 8, 180)
    assert sorted(items["item_id"]) == sorted(kc.item_id(i["session_id"], i["action_index"]) for i in expected)
    labels = store.labels(lead, task.id)
    assert set(labels["coder"]) == {RULE} and set(labels["coder_kind"]) == {"model"}
    rule = kc.rule_codes(units, expected)
    assert dict(zip(labels["item_id"], labels["code"])) == rule

    # A coder sees the unit on screen, never the rule's outcome or its reason.
    at = _app("pages/code.py", "ann")
    item = keypad(at, task.id)["item"]
    run_id, n = item.rsplit(":", 1)
    row = units[(units["session_id"] == run_id) & (units["index"] == int(n))].iloc[0]
    shown = "\n".join(m.value for m in at.markdown)
    assert md_text(row["request"]) in shown
    assert f"request unit {int(n) + 1} of" in "\n".join(c.value for c in at.caption)
    text = all_text(at)
    m = next(m for m in kitchen_metrics(load_kitchen(KITCHEN).runs) if m.run_id == run_id)
    assert m.audit.units[int(n)].reason not in text
    press(at, task.id, "effective")
    mine = store.my_labels(ann, task.id)
    assert dict(zip(mine["item_id"], mine["code"])) == {item: "effective"}

    # The people code the rest; the rule is measured against their majority on the live panel.
    order = list(items["item_id"])
    people_codes = {i: ("ineffective" if k % 5 == 0 else rule[i]) for k, i in enumerate(order)}
    for coder in (ann, bob):
        for i in order:
            store.add_label(coder, task.id, i, people_codes[i])
    at = _app("pages/tasks.py", "lead")
    table = next(d.value for d in at.dataframe if "cohen_kappa" in d.value.columns)
    row = table[table["coder"] == RULE].iloc[0]
    validation = items.loc[items["partition"] == "validation", "item_id"].tolist()
    assert row["items"] == len(validation) == 32
    kappa = cohen_kappa_score([rule[i] for i in validation], [people_codes[i] for i in validation])
    assert float(row["cohen_kappa"]) == pytest.approx(kappa, abs=5e-4)


def test_the_coding_screens_open_on_kitchen_runs_and_say_so_on_a_benchmark(tmp_path, monkeypatch):
    store = Store.open(data_dir(tmp_path, monkeypatch))
    people(store, lead="lead")
    for page in ("pages/tasks.py", "pages/code.py", "pages/adjudicate.py"):
        at = _app(page, "lead")
        assert not at.exception and not at.error, page
    tom = KITCHEN.parent / "dyntom-synthetic"
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = key_of(tom)
    at.run()
    at.switch_page("pages/code.py").run()
    assert not at.exception
    assert any("holds a benchmark" in i.value for i in at.info)


def test_map_task_tasks_offer_no_kitchen_codebook(tmp_path, monkeypatch):
    store = Store.open(data_dir(tmp_path, monkeypatch))
    people(store, lead="lead")
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("pages/tasks.py").run()
    at.text_input(key="auth_username").input("lead")
    at.text_input(key="auth_password").input("lead-password")
    at.button[0].click().run()
    options = at.selectbox(key="ta_new_cb").options
    assert not any("TGCO" in o for o in options) and any("Grounding" in o for o in options)
    assert "tgco" in cbm.bundled()


def test_adjudication_shows_the_rule_beside_the_people_untimed(tmp_path, monkeypatch, units):
    store = Store.open(data_dir(tmp_path, monkeypatch))
    lead, ann = people(store, lead="lead", ann="coder")
    items = ac.assign_partitions(ac.sample_items(units, 3, seed=5), 0, seed=5)
    task = store.create_task(
        lead,
        "TGCO",
        "kitchen",
        cbm.bundled()["tgco"],
        items,
        [ann],
        dataset_hash=load_kitchen(KITCHEN).content_hash,
        model_labels={RULE: kc.rule_codes(units, items)},
    )
    for it in store.items(task.id)["item_id"]:
        store.add_label(ann, task.id, it, "redundant", seconds=4.25)
    at = _app("pages/adjudicate.py", "lead")
    assert not at.exception and not at.error
    table = next(d.value for d in at.dataframe if "time" in d.value.columns)
    assert dict(zip(table["kind"], table["time"])) == {"model": "not timed", "human": "4.2 s"}
    assert "Redundant" in set(table["label"])


def test_a_coder_codes_a_task_on_its_own_dataset_whatever_the_sidebar_shows(tmp_path, monkeypatch, units):
    """A coder who opens the Code page on another dataset (the default Map Task sample) gets the
    task's own dataset, and the unit on screen is the one labelled; a task whose dataset the server
    does not offer shows why and offers no keypad (a label is never given to an item not shown)."""
    store = Store.open(data_dir(tmp_path, monkeypatch))
    lead, ann = people(store, lead="lead", ann="coder")
    items = ac.assign_partitions(ac.sample_items(units, 3, seed=5), 0, seed=5)
    task = store.create_task(
        lead, "TGCO", "kitchen", cbm.bundled()["tgco"], items, [ann], dataset_hash=load_kitchen(KITCHEN).content_hash
    )
    at = AppTest.from_file(APP, default_timeout=120).run()  # no link: the sidebar shows the Map Task sample
    at.switch_page("pages/code.py").run()
    at.text_input(key="auth_username").input("ann")
    at.text_input(key="auth_password").input("ann-password")
    at.button[0].click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert at.query_params.get("dataset") == key_of(KITCHEN)
    item = keypad(at, task.id)["item"]
    run_id, n = item.rsplit(":", 1)
    row = units[(units["session_id"] == run_id) & (units["index"] == int(n))].iloc[0]
    assert md_text(row["request"]) in "\n".join(m.value for m in at.markdown)
    press(at, task.id, "effective")
    assert store.my_labels(ann, task.id)["item_id"].tolist() == [item]

    elsewhere = store.create_task(lead, "elsewhere", "gone", cbm.bundled()["tgco"], items, [ann], dataset_hash="f" * 64)
    at = _app("pages/code.py", "ann")
    at.selectbox(key="code_task").set_value(elsewhere.id).run()
    assert any("which this server does not offer" in e.value for e in at.error)
    assert not [e for e in at.get("bidi_component") if e.proto.id.endswith(f"-code_keypad_{elsewhere.id}")]
