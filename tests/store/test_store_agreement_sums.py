"""The store's agreement sums (corpus.store.agreement) against the batch computation: after every
write of a random sequence of labels, relabels, imports and deletes, the headline numbers from the
sums equal analysis.agreement.panel on the current labels, and the sums equal a count from scratch."""

from __future__ import annotations

import math
import random

import pandas as pd
import pytest
import sqlalchemy as sa

from analysis import agreement as ag
from analysis.agreement.sums import headline
from analysis.live_panel import COLS, human_labels
from corpus import codebook as cbm
from corpus.store import Store
from corpus.store.agreement import account_item, recount_agreement
from corpus.store.tables import AGREEMENT_TABLES, labels

CODES = ["initiate", "continue", "repair", "acknowledge"]


def _value(v):
    return None if not ag.is_defined(v) else float(v)


def _same(a, b, where: str) -> None:
    if a is None or b is None:
        assert a is None and b is None, where
        return
    for f in ("n_items", "n_coders", "n_labels", "n_items_complete", "n_items_pairable"):
        assert getattr(a, f) == getattr(b, f), f"{where}: {f}"
    for x, y in zip(a.statistics, b.statistics):
        assert x.key == y.key and x.n == y.n, f"{where}: {x.key} n {x.n} vs {y.n}"
        vx, vy = _value(x.estimate), _value(y.estimate)
        if vx is None or vy is None:
            assert vx is None and vy is None, f"{where}: {x.key} {x.estimate} vs {y.estimate}"
            assert str(x.estimate) == str(y.estimate), f"{where}: {x.key}"
        else:
            assert math.isclose(vx, vy, rel_tol=1e-9, abs_tol=1e-12), f"{where}: {x.key} {vx} vs {vy}"
    px, py = a.fleiss.per_category, b.fleiss.per_category
    assert set(px) == set(py), where
    for c in px:
        vx, vy = _value(px[c]), _value(py[c])
        assert (vx is None) == (vy is None) and (vx is None or math.isclose(vx, vy, abs_tol=1e-12)), f"{where}: {c}"


def _batch(store, lead, task_id, minimum):
    humans = human_labels(store.labels(lead, task_id))
    if humans.empty:
        return None
    return ag.panel(ag.LabelTable(humans, **COLS), min_items=minimum)


def _stored(store, task_id) -> dict[str, pd.DataFrame]:
    with store.engine.connect() as c:
        out = {}
        for table in AGREEMENT_TABLES:
            cols = [col for col in table.c if col.name not in ("value", "n")]
            value = table.c.get("value", table.c.get("n"))
            q = sa.select(table).where(table.c.task_id == task_id)
            if value is not None:
                q = q.where(value != 0)
            out[table.name] = pd.read_sql(q.order_by(*cols), c).reset_index(drop=True)
        return out


@pytest.fixture
def lab(url):
    store = Store(url)
    lead = store.create_user("lead", "lead-password", "lead")
    coders = [store.create_user(f"c{i}", f"c{i}-password", "coder") for i in range(5)]
    items = [{"session_id": "S01", "action_index": i, "partition": "validation"} for i in range(14)]
    task = store.create_task(lead, "sums", "sample", cbm.default(), items, coders, seed=1, dataset_hash="ab" * 32)
    yield store, lead, coders, task
    store.engine.dispose()


def test_the_sums_give_the_batch_numbers_after_every_write(lab):
    store, lead, coders, task = lab
    items = store.items(task.id)["item_id"].tolist()
    rng = random.Random(29)
    checked = 0
    for step in range(90):
        coder = rng.choice(coders[:4] if step < 45 else coders)  # the fifth coder joins half way
        item = rng.choice(items[:10] if step < 60 else items)
        store.add_label(coder, task.id, item, rng.choice(CODES[: 2 if step < 20 else 4]))
        if step == 50:  # labels from outside: a model's (left out of the sums) and a person's
            rows = [f"{it},rule,{rng.choice(CODES)}" for it in items] + [f"{items[0]},c1,repair"]
            store.import_labels_csv(lead, task.id, "item,coder,label\n" + "\n".join(rows), create_coders=True)
        for minimum in (0, ag.PANEL_MIN_ITEMS):
            sums, pairs, who = store.agreement_sums(lead, task.id)
            _same(headline(sums, pairs, who, min_items=minimum), _batch(store, lead, task.id, minimum), f"step {step}")
            checked += 1
    assert checked == 180
    final = headline(*store.agreement_sums(lead, task.id))
    assert final.n_coders == 5 and final.n_items == 14 and final.n_labels > 40
    assert all(ag.is_defined(e.estimate) for e in final.statistics)
    # The sums kept label by label are the sums counted from scratch.
    kept = _stored(store, task.id)
    with store.engine.begin() as c:
        recount_agreement(c, task.id)
    again = _stored(store, task.id)
    for name, frame in kept.items():
        pd.testing.assert_frame_equal(frame, again[name], check_dtype=False, obj=name)


def test_a_deleted_label_leaves_the_sums_and_a_relabel_replaces_it(lab):
    store, lead, coders, task = lab
    items = store.items(task.id)["item_id"].tolist()
    for it, codes in zip(items, [["initiate"] * 3, ["initiate", "repair", "repair"], ["continue"] * 3]):
        for coder, code in zip(coders, codes):
            store.add_label(coder, task.id, it, code)
    store.add_label(coders[0], task.id, items[1], "repair")  # a relabel: the item agrees now
    sums, pairs, who = store.agreement_sums(lead, task.id)
    head = headline(sums, pairs, who)
    assert head.n_labels == 9 and head.n_items_complete == 3
    assert head.percent_agreement.estimate == 1.0
    # A label taken out of the database (no screen does this): the sums follow the item's labels.
    with store.engine.begin() as c:
        newest = c.execute(sa.select(sa.func.max(labels.c.id)).where(labels.c.item_id == items[1])).scalar()
        c.execute(labels.delete().where(labels.c.id == newest))
        account_item(c, task.id, items[1])
    sums, pairs, who = store.agreement_sums(lead, task.id)
    _same(headline(sums, pairs, who), _batch(store, lead, task.id, 0), "after the delete")
    # By hand: item 1 is back to initiate / repair / repair; items 0 and 2 agree.
    assert headline(sums, pairs, who).percent_agreement.estimate == pytest.approx((1 + 1 / 3 + 1) / 3)


def test_a_coder_without_the_right_to_see_labels_gets_no_sums(lab):
    store, lead, coders, task = lab
    with pytest.raises(Exception, match="lead|revealed|see"):
        store.agreement_sums(coders[0], task.id)
