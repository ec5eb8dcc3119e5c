"""A predictions file with nothing to report is read in one pass (corpus.predictions
``_read_task_at_once``); every other file line by line. The one-pass reading must give exactly the
rows the line-by-line reader gives, and must give up on every line that reader has anything to say
about (an error or a warning), so that the report is the line-by-line reader's own."""

from __future__ import annotations

import json
import pickle
import random

import numpy as np
import pandas as pd
import pytest

from corpus.loading.dataset import SAMPLE_DATA, load_sample
from corpus.loading.report import Report
from corpus.predictions import PackedRows, read_task_text
from corpus.predictions.at_once import _Given, _read_task_at_once

TASKS = ("next_action", "mental_model")


@pytest.fixture(scope="module")
def corpus():
    return load_sample()


def _line_by_line(text: str, task: str, corpus) -> tuple[pd.DataFrame, Report]:
    """The line-by-line reader (a ``failed`` callback that never fires keeps it from the one-pass one)."""
    report = Report()
    frame = read_task_text(text, task, f"{task}.jsonl", corpus.sessions, corpus.maps, report, lambda sid, rel: False)
    return frame, report


def _text(task: str, run: str = "sim-llm-persona") -> str:
    return (SAMPLE_DATA / "predictions" / run / f"{task}.jsonl").read_text(encoding="utf-8")


@pytest.mark.parametrize("run", ["sim-llm-persona", "sim-llm-mental-model"])
@pytest.mark.parametrize("task", TASKS)
def test_the_sample_runs_read_at_once_give_the_same_rows(corpus, task, run):
    text = _text(task, run)
    at_once = _read_task_at_once(text, task, corpus.sessions, corpus.maps)
    slow, report = _line_by_line(text, task, corpus)
    assert report.issues == []
    assert at_once is not None and len(at_once) == text.count("\n") > 500
    pd.testing.assert_frame_equal(at_once, slow)
    # And the dataset reader takes this path: the loaded run holds the same table.
    pd.testing.assert_frame_equal(corpus.predictions[run].table(task), slow)


@pytest.mark.parametrize("task", TASKS)
def test_lines_in_their_usual_shape_are_decoded_typed_and_others_as_json_values_alike(corpus, task):
    """The sample's lines are decoded as typed records; with one extra field on every line the file
    is parsed as JSON values instead: the same rows either way, the extra field a column besides."""
    lines = _text(task).splitlines()
    typed = _Given.of_typed(task, lines)
    assert typed is not None and typed.fields == _Given.parsed(task, lines).fields
    assert typed.sids == [json.loads(line)["session_id"] for line in lines]
    extra = "\n".join(line[:-1] + ', "difficulty": "hard"}' for line in lines) + "\n"
    assert _Given.of_typed(task, extra.splitlines()) is None
    plain = _read_task_at_once("\n".join(lines) + "\n", task, corpus.sessions, corpus.maps)
    with_extra = _read_task_at_once(extra, task, corpus.sessions, corpus.maps)
    assert plain is not None and with_extra is not None
    assert (with_extra["difficulty"] == "hard").all()
    pd.testing.assert_frame_equal(with_extra.drop(columns="difficulty"), plain)
    pd.testing.assert_frame_equal(with_extra, _line_by_line(extra, task, corpus)[0])


def _mutations(task: str) -> list:
    """Changes of one line, each something the line-by-line reader reports, or accepts as is."""
    dims = ("team_goal", "partner_intent", "self_reasoning")
    common = [
        lambda o: o.pop("session_id"),
        lambda o: o.update(session_id=""),
        lambda o: o.update(session_id="   "),
        lambda o: o.update(session_id=7),
        lambda o: o.update(session_id="S99"),
        lambda o: o.pop("action_index"),
        lambda o: o.update(action_index=True),
        lambda o: o.update(action_index=1.0),
        lambda o: o.update(action_index="3"),
        lambda o: o.update(action_index=-1),
        lambda o: o.update(action_index=10**6),
        lambda o: o.update(action_index=2**70),  # (beyond a 64-bit integer)
        lambda o: o.update(role=["guide"]),
        lambda o: o.update(role="guide" if o.get("role") == "follower" else "follower"),
        lambda o: o.update(role="coach"),
        lambda o: o.update(role=None),
        lambda o: o.pop("role", None),  # accepted: the actor is the action's
        lambda o: o.update(rationale=3),
        lambda o: o.update(rationale=None),  # accepted
        lambda o: o.update(rationale="because"),  # accepted
        lambda o: o.update(split="test"),  # reserved name: warned and left out
        lambda o: o.update(h_score=1),  # reserved prefix
        lambda o: o.update(extra=[1, 2]),  # not a scalar: warned and left out
        lambda o: o.update(extra={"a": 1}),
        lambda o: o.update(difficulty="hard"),  # accepted: a slice
        lambda o: o.update(score=0.5, flag=True, nothing=None),  # accepted
    ]
    if task == "mental_model":
        return common + [
            *(lambda o, d=d: o.pop(d) for d in dims),
            *(lambda o, d=d: o.update({d: None}) for d in dims),
            *(lambda o, d=d: o.update({d: 3}) for d in dims),
            *(lambda o, d=d: o.update({d: "nonsense"}) for d in dims),
            *(lambda o, d=d: o.update({d: {"code": o[d]}}) for d in dims),  # accepted
            *(lambda o, d=d: o.update({d: {"text": "x"}}) for d in dims),
            lambda o: o.update(team_goal="T3"),  # accepted: read as t3
            lambda o: o.update(team_goal="Clear on what to do and working on it"),  # accepted: its wording
        ]
    return common + [
        lambda o: o.pop("action_type"),
        lambda o: o.update(action_type=""),
        lambda o: o.update(action_type=4),
        lambda o: o.update(action_type="wave"),
        lambda o: o.update(action_type=" Message "),  # accepted
        lambda o: o.update(action_type="message", content=None),
        lambda o: o.update(action_type="message", content=["a"]),
        lambda o: o.update(action_type="message", content=""),  # accepted
        lambda o: o.update(action_content=o.pop("content", None)),  # accepted: the prompt's name
        lambda o: o.update(action_content="again"),  # both given
        lambda o: o.update(action_type="draw", content=[[1, 2], [3, 4]]),  # accepted
        lambda o: o.update(action_type="draw", content=[]),
        lambda o: o.update(action_type="draw", content="1,2"),
        lambda o: o.update(action_type="draw", content=[[1, 2, 3]]),
        lambda o: o.update(action_type="draw", content=[[1, True]]),
        lambda o: o.update(action_type="draw", content=[[1.0, 2]]),
        lambda o: o.update(action_type="draw", content=[[1, 2], [3]]),
        lambda o: o.update(action_type="draw", content=[[1, 2], 7]),
        lambda o: o.update(action_type="draw", content=[[2**70, 1]]),  # (beyond a 64-bit integer)
        lambda o: o.update(action_type="draw", content=[[1, 2], [3, 4]], action_content=None),  # both given
        lambda o: o.update(action_type="erase", content=[[39, 59]]),  # accepted: the corner of 40 x 60
        lambda o: o.update(action_type="erase", content=[[40, 0]]),
        lambda o: o.update(action_type="erase", content=[[0, -1]]),
        lambda o: o.update(action_type="undo", content=None),  # accepted
        lambda o: o.update(action_type="undo", content=""),  # accepted
        lambda o: o.update(action_type="undo", content=[]),  # accepted
        lambda o: o.update(action_type="reset", content=0),
        lambda o: o.update(action_type="reset", content="x"),
    ]


_RAW = [  # changes of the line's text itself
    lambda line: "",  # a blank line: skipped
    lambda line: "   ",
    lambda line: line + " ",
    lambda line: "\ufeff" + line,
    lambda line: line[:-1],
    lambda line: "[" + line + "]",
    lambda line: "3",
    lambda line: line + "," + line,
    lambda line: line.replace("}", ', "x": NaN}', 1),
    lambda line: line.replace("}", ', "x": Infinity}', 1),
    lambda line: line.replace("}", ', "x": ' + "9" * 5000 + "}", 1),
    lambda line: line.replace("}", ', "x": "' + "9" * 5000 + '"}', 1),  # accepted: digits in a string
    lambda line: line.replace("}", ', "x": "\\ud83d"}', 1),  # a lone surrogate
    lambda line: line.replace("}", ', "x": "\\ud83d\\ude00"}', 1),  # accepted: a pair
    lambda line: line.replace("}", ', "x": "caf\\u00e9"}', 1),  # accepted
]


@pytest.mark.parametrize("task", TASKS)
def test_one_pass_gives_up_on_every_line_the_line_by_line_reader_reports(corpus, task):
    lines = _text(task).splitlines()[:40]
    rng = random.Random(task)
    mutations = _mutations(task)
    cases = [(k, m, None) for k, m in enumerate(mutations)] + [(k, None, r) for k, r in enumerate(_RAW)]
    cases += [(k, None, None) for k in range(3)]  # a line repeated: a duplicate
    accepted = 0
    for k, mutate, raw in cases:
        at = rng.randrange(len(lines))
        changed = list(lines)
        if mutate is not None:
            obj = json.loads(changed[at])
            mutate(obj)
            changed[at] = json.dumps(obj)
        elif raw is not None:
            changed[at] = raw(changed[at])
        else:
            changed.insert(rng.randrange(len(changed) + 1), changed[at])
        text = "\n".join(changed) + "\n"
        at_once = _read_task_at_once(text, task, corpus.sessions, corpus.maps)
        slow, report = _line_by_line(text, task, corpus)
        if report.issues:
            assert at_once is None, (k, changed[at], [i.message for i in report.issues])
        elif at_once is not None:  # (it may give up on a valid line too: a long run of digits in a string)
            pd.testing.assert_frame_equal(at_once, slow)
            accepted += 1
    assert 12 < accepted < len(cases) - 20  # both kinds were tried


def test_a_run_pickles_with_its_cells_packed_and_unpickles_the_same(corpus):
    """A run's tables are pickled with each row's cells packed in one array (a worker hands its rows
    over so, and the dataset cache keeps runs so): unpickled, every table is the same, cells lists
    of [row, column] lists where a row has them and None where it has none."""
    run = next(iter(corpus.predictions.values()))
    again = pickle.loads(pickle.dumps(run))
    assert again.tables.keys() == run.tables.keys() and "next_action" in run.tables
    for task, table in run.tables.items():
        pd.testing.assert_frame_equal(again.tables[task], table)
    cells = again.tables["next_action"]["cells"].tolist()
    assert any(c is None for c in cells) and any(isinstance(c, list) and c and isinstance(c[0], list) for c in cells)
    rows = pd.DataFrame({"a": [1, 2, 3], "cells": [None, [[0, 1], [2, 3]], [[4, 5]]], "z": ["x", "y", "w"]})
    packed = PackedRows.of(rows)
    assert "cells" not in packed.rest and packed.counts is not None and packed.counts.tolist() == [-1, 2, 1]
    assert packed.pairs is not None and np.array_equal(packed.pairs, [[0, 1], [2, 3], [4, 5]])
    pd.testing.assert_frame_equal(packed.frame(), rows)
    for plain in (rows.drop(columns="cells"), pd.DataFrame({"cells": [None, None]}), pd.DataFrame()):
        pd.testing.assert_frame_equal(PackedRows.of(plain).frame(), plain)


def _whole_file_changes(lines: list[str]) -> list[tuple[str, bytes]]:
    """Files of the same lines written otherwise: each either read at once from its bytes, or given
    over to the reading of its text."""
    plain = "\n".join(lines) + "\n"
    first, second = lines[0], lines[1]
    rest = "\n".join(lines[2:]) + "\n"

    def with_rationale(text: str) -> str:  # (the file, its first line giving a rationale, written as it is)
        obj = {**json.loads(first), "rationale": text}
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n" + "\n".join(lines[1:]) + "\n"

    return [
        ("plain", plain.encode()),
        ("no newline at the end", plain[:-1].encode()),
        ("two newlines at the end", (plain + "\n").encode()),
        ("a blank line", (first + "\n\n" + second + "\n" + rest).encode()),
        ("a line of spaces", (first + "\n   \n" + second + "\n" + rest).encode()),
        ("carriage returns", plain.replace("\n", "\r\n").encode()),
        ("a lone carriage return", (first + "\r" + second + "\n" + rest).encode()),
        ("two records on a line", (first + second + "\n" + rest).encode()),
        ("two records on a line, a space between", (first + " " + second + "\n" + rest).encode()),
        ("a record over two lines", (first.replace(",", ",\n", 1) + "\n" + second + "\n" + rest).encode()),
        (
            "two on a line and one over two",
            (first + second + "\n" + lines[2].replace(",", ",\n", 1) + "\n" + "\n".join(lines[3:]) + "\n").encode(),
        ),
        ("a byte-order mark", ("\ufeff" + plain).encode()),
        ("spaces around a line", (" " + first + " \n" + second + "\n" + rest).encode()),
        ("an empty file", b""),
        ("a newline only", b"\n"),
        ("non-ASCII text", with_rationale("caf\u00e9 \u2013 \U0001f600").encode()),
        *((f"U+{ord(ch):04X} in a text", with_rationale(f"a{ch}b").encode()) for ch in ("\x85", "\u2028", "\u2029")),
        ("U+2028 escaped", with_rationale("a\u2028b").encode().replace("\u2028".encode(), b"\\u2028")),
        ("a form feed", (first + "\x0c\n" + second + "\n" + rest).encode()),
        ("a byte that is not UTF-8", plain.encode().replace(b'"', b'"\xff', 1)),
        ("an encoded surrogate", plain.encode().replace(b"}", b', "x": "\xed\xa0\x80"}', 1)),
    ]


@pytest.mark.parametrize("task", TASKS)
def test_a_file_read_from_its_bytes_gives_the_rows_and_digest_of_its_text(corpus, task):
    """A worker reads a task file from its bytes: one in its plainest shape (a record on each line,
    no blank line, no carriage return, no byte-order mark) is decoded at once without being made a
    text; any other goes the way of its text. Both give the rows and the digest reading the text
    gives, or both give up. (U+2028 and its kin in a text break no line: JSON Lines breaks lines at
    newlines only.)"""
    from corpus.loading.reading import records_at_once, text_of
    from corpus.predictions import text_digest
    from corpus.predictions.at_once import _TYPED, _read_task_bytes
    from corpus.predictions.runs import _bytes_digest

    lines = _text(task).splitlines()[:60]
    taken_at_once = []
    for name, data in _whole_file_changes(lines):
        text = text_of(data)
        expected = None if text is None else _read_task_at_once(text, task, corpus.sessions, corpus.maps)
        got = _read_task_bytes(data, task, corpus.sessions, corpus.maps)
        if expected is None:
            assert got is None, name
        else:
            assert got is not None, name
            pd.testing.assert_frame_equal(got.frame(), expected, obj=name)
            assert _bytes_digest(data) == text_digest(text), name
        if records_at_once(data, _TYPED[task]) is not None:
            taken_at_once.append(name)
    assert taken_at_once == [
        "plain",
        "no newline at the end",
        "non-ASCII text",
        "U+0085 in a text",
        "U+2028 in a text",
        "U+2029 in a text",
        "U+2028 escaped",
    ]
    # The sample's whole files are taken at once.
    data = (SAMPLE_DATA / "predictions" / "sim-llm-persona" / f"{task}.jsonl").read_bytes()
    assert len(records_at_once(data, _TYPED[task]) or []) == data.count(b"\n") > 500


@pytest.mark.parametrize("task", TASKS)
def test_a_worker_checks_a_file_against_the_sessions_outlines_alike(corpus, task):
    """A worker is handed each session's map and its actions' roles (a few arrays' worth of bytes
    to pickle), not the sessions: the rows it makes are the ones the sessions give, and a line
    naming an action no session has is refused alike."""
    from corpus.predictions.at_once import _outlines, _read_task_bytes

    outlines = _outlines(corpus.sessions)
    assert set(outlines) == set(corpus.sessions)
    assert len(pickle.dumps(outlines)) < 20 * sum(corpus.n_actions(sid) for sid in corpus.sessions)
    data = (SAMPLE_DATA / "predictions" / "sim-llm-persona" / f"{task}.jsonl").read_bytes()
    from_outlines = _read_task_bytes(data, task, outlines, corpus.maps)
    from_sessions = _read_task_bytes(data, task, corpus.sessions, corpus.maps)
    assert from_outlines is not None and from_sessions is not None
    pd.testing.assert_frame_equal(from_outlines.frame(), from_sessions.frame())
    beyond = data.replace(b'"action_index":1,', b'"action_index":100000,', 1)
    assert beyond != data
    assert _read_task_bytes(beyond, task, outlines, corpus.maps) is None
    assert _read_task_bytes(beyond, task, corpus.sessions, corpus.maps) is None
