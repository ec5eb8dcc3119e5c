"""Label CSV imports (all or nothing, every problem named by line and column) and exports (long,
wide, spreadsheet-safe CSV); on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io

import pandas as pd
import pytest

from corpus import codebook as cbm
from corpus.store import StoreError, safe_csv_text, to_csv


def test_csv_import_adds_a_model_coder_all_or_nothing(team):
    store, lead, ann, bob, viewer, task = team
    good = "item,coder,label\nS01:1,gpt,initiate\nS01:2,gpt,continue\n"
    with pytest.raises(StoreError, match="unknown coder 'gpt'"):
        store.import_labels_csv(lead, task.id, good)
    done = store.import_labels_csv(lead, task.id, good, create_coders=True, coder_kind="model")
    assert (done.n_labels, done.n_missing, done.new_coders) == (2, 0, ("gpt",))
    cur = store.labels(lead, task.id)
    assert cur[["item_id", "coder", "code", "coder_kind", "source"]].values.tolist() == [
        ["S01:1", "gpt", "initiate", "model", "import"],
        ["S01:2", "gpt", "continue", "model", "import"],
    ]


_LONG = "x" * 131_073


@pytest.mark.parametrize(
    "data, message",
    [
        ("", "x.csv: the file is empty"),
        ("item,coder\nS01:1,ann\n", "missing column\\(s\\) label"),
        ("item,coder,label\n", "no rows below the header"),
        ("item,coder,label\nS01:1,ann,\nS01:2,bob,\n", "no labels: the label cell of every row \\(2\\) is empty"),
        ("item,coder,label\nS01:1,ann,greet\n", "line 2, column label: 'greet' is not in codebook"),
        ("item,coder,label\nS01:1,zed,initiate\n", "line 2, column coder: unknown coder 'zed'"),
        ("item,coder,label\nS01:1,ann,initiate\nS01:1,ann,repair\n", "line 3: duplicate of line 2"),
        ("item,coder,label\nS77:1,ann,initiate\n", "line 2, column item: 'S77:1' is not an item"),
        (
            "item,coder,label\nS01:1,ann,NA\nS01:2,ann,null\n",
            "line 2, column label: 'NA' is not in codebook(.|\n)*line 3, column label: 'null'",
        ),
        (
            b"item,coder,label\nS01:1,ann,initiate\nS01:2,b\xffb,initiate\n",
            "x.csv line 3: byte 0xff at position 8 is not UTF-8 text; save the file as UTF-8",
        ),
        (
            "item,coder,label\nS01:1,ann,initiate\nS01:2,ann," + _LONG + "\n",
            "x.csv line 3: a field is longer than 131,072 characters",
        ),
        ('item,coder,label\nS01:1,ann,initiate\nS01:2,"ann,initiate\n', "x.csv line 3: not readable as CSV"),
        ("item,coder,label\nS01:1," + "c" * 65 + ",initiate\n", "line 2, column coder: longer than 64 characters"),
    ],
)
def test_bad_csv_imports_change_nothing(team, data, message):
    store, lead, ann, bob, viewer, task = team
    with pytest.raises(StoreError, match=message):
        store.import_labels_csv(lead, task.id, data, file="x.csv", create_coders="longer than" in message)
    assert store.labels(lead, task.id).empty
    assert [u.username for u in store.users()] == ["lead", "ann", "bob", "guest"]


def test_a_label_is_its_text_and_only_an_empty_cell_is_missing(team):
    store, lead, ann, bob, viewer, task = team
    data = cbm.default().to_dict()
    data.update(id="missing_words", version="1")
    for code, word in zip(data["codes"], ["na", "nan", "none", "null"]):
        code["code"] = word
    other = store.create_task(
        lead,
        "words",
        "sample",
        cbm.parse(data),
        [{"session_id": "S", "action_index": i} for i in range(5)],
        [ann],
        dataset_hash="h",
    )
    text = "item,coder,label\nS:0,ann,na\nS:1,ann,nan\nS:2,ann,none\nS:3,ann,null\nS:4,ann,\nS:4,bob,\n"
    done = store.import_labels_csv(lead, other.id, text.encode("utf-8-sig"))  # a spreadsheet's BOM is fine
    assert (done.n_labels, done.n_missing) == (4, 2)
    assert done.summary() == "4 labels (2 rows with an empty label cell had no label and were left out)"
    cur = store.labels(lead, other.id)
    assert cur[["item_id", "code"]].values.tolist() == [["S:0", "na"], ["S:1", "nan"], ["S:2", "none"], ["S:3", "null"]]


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


HOSTILE = ['=HYPERLINK("http://evil.example","x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1"]


def test_csv_exports_are_safe_to_open_in_a_spreadsheet(team):
    store, lead, ann, bob, viewer, task = team
    evil = store.create_user("=cmd|' /C calc'!A0", "evil-password", "coder")
    store.assign(lead, task.id, [evil])
    for i, note in enumerate(HOSTILE):
        store.add_label(evil, task.id, f"S01:{i}", "continue", note=note, seconds=-0.5 if i == 0 else 2.0)
    long = list(csv.DictReader(io.StringIO(to_csv(store.export_long(lead, task.id)))))
    assert [r["note"] for r in long] == ["'" + n.strip() for n in HOSTILE]  # a note is stored stripped
    assert {r["coder"] for r in long} == {"'=cmd|' /C calc'!A0"}
    assert long[0]["seconds"] == "-0.5"  # a number stays a number
    wide_header = next(csv.reader(io.StringIO(to_csv(store.export_wide(lead, task.id)))))
    assert wide_header == ["item_id", "'=cmd|' /C calc'!A0"]
    text = 'statistic,value,note\nkappa,-0.25,=HYPERLINK(1)\nn,+3,@x\nm,1e-5,"\t=1+1"\n'
    assert safe_csv_text(text) == "statistic,value,note\nkappa,-0.25,'=HYPERLINK(1)\nn,+3,'@x\nm,1e-5,'\t=1+1\n"
    # Nothing a spreadsheet would evaluate is left at the start of any cell.
    for row in csv.reader(io.StringIO(to_csv(store.export_long(lead, task.id)))):
        for cell in row:
            assert not cell.startswith(("=", "+", "@", "\t", "\r")) and (not cell.startswith("-") or float(cell) < 0)
