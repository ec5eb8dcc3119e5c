"""The fast read of a session's actions (corpus/loading/action_rows.py): the same columns as the actions
built as models, and never a record the models would refuse or warn about."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from corpus import schema
from corpus.generate import generate
from corpus.loading.action_rows import ActionColumns, _records, columns_at_once
from corpus.loading.dataset import SAMPLE_DATA
from corpus.loading.reading import parse_jsonl
from corpus.loading.report import Report
from corpus.model import MAX_SECONDS, Action


def _sessions(root: Path) -> list[tuple[str, str, list[int]]]:
    """(session id, actions.jsonl text, grid size) of every session of a dataset directory."""
    grids = {p.stem: json.loads(p.read_text())["grid_size"] for p in (root / "maps").glob("*.json")}
    out = []
    for d in sorted((root / "sessions").iterdir()):
        meta = json.loads((d / "session.json").read_text())
        out.append((d.name, (d / "actions.jsonl").read_text(), grids[meta["map_id"]]))
    return out


def _as_models(text: str) -> tuple[list[Action], Report]:
    report = Report()
    parsed = parse_jsonl(Action, text, report, "actions.jsonl")
    return [a for _, a in parsed if a is not None], report


def _same(fast: ActionColumns, models: list[Action]) -> None:
    slow = ActionColumns.of(models)
    # (cells come as [row, col] lists from the fast read, as (row, col) tuples from the models)
    fast_cells = [[tuple(c) for c in x] if isinstance(x, list) else x for x in fast.content]
    assert fast_cells == slow.content
    for name in ("index", "timestamp", "role", "type", "team_goal", "partner_intent", "self_reasoning"):
        assert getattr(fast, name) == getattr(slow, name), name
    assert (fast.aligned, fast.reasons, fast.rationale) == (slow.aligned, slow.reasons, slow.rationale)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    return generate(seed=3, out=tmp_path_factory.mktemp("gen") / "ds", n_sessions=40)


def test_every_session_of_the_sample_and_a_generated_corpus_is_read_fast_and_the_same(generated):
    for root in (SAMPLE_DATA, Path(generated)):
        sessions = _sessions(root)
        n_reasons = 0
        for sid, text, grid in sessions:
            fast = columns_at_once(text, grid)
            models, report = _as_models(text)
            assert fast is not None, f"{root.name}/{sid} was not read fast"
            assert report.ok and not report.warnings
            _same(fast, models)
            n_reasons += sum(bool(r) for r in fast.reasons)
        assert n_reasons > 0  # (misalignment reasons are among what was compared)


# One record changed in one place: (where, value). ``None`` as a key path's end deletes it.
_CHANGES = [
    (("index",), 5),
    (("index",), True),
    (("index",), 0.0),
    (("index",), "0"),
    (("index",), None),
    (("timestamp",), -1),
    (("timestamp",), True),
    (("timestamp",), "3.5"),
    (("timestamp",), MAX_SECONDS + 1),
    (("timestamp",), MAX_SECONDS),
    (("timestamp",), 0),
    (("timestamp",), 10**30),
    (("role",), "Guide"),
    (("role",), ["guide"]),
    (("role",), "guide"),
    (("type",), "Message"),
    (("type",), "draw"),
    (("type",), "undo"),
    (("type",), ["message"]),
    (("type",), None),
    (("content",), ""),
    (("content",), "   "),
    (("content",), 5),
    (("content",), [[1, 2]]),
    (("content",), None),
    (("extra",), 1),
    (("mental_model",), None),
    (("mental_model",), "t1"),
    (("mental_model",), []),
    (("mental_model", "extra"), 1),
    (("mental_model", "aligned"), 1),
    (("mental_model", "aligned"), "true"),
    (("mental_model", "aligned"), False),
    (("mental_model", "misalignment_reasons"), [{"code": "n2"}]),
    (("mental_model", "misalignment_reasons"), None),
    (("mental_model", "misalignment_reasons"), "n2"),
    (("mental_model", "rationale"), None),
    (("mental_model", "rationale"), 3),
    (("mental_model", "team_goal"), "t2"),
    (("mental_model", "team_goal"), "T2"),
    (("mental_model", "team_goal"), " t2"),
    (("mental_model", "team_goal"), "other"),
    (("mental_model", "team_goal"), "n1"),
    (("mental_model", "team_goal"), 2),
    (("mental_model", "team_goal"), {"code": "t2"}),
    (("mental_model", "team_goal"), {"code": "t2", "text": ""}),
    (("mental_model", "team_goal"), {"code": "t2", "text": None}),
    (("mental_model", "team_goal"), {"code": "t2", "text": "Clear on what to do"}),
    (("mental_model", "team_goal"), {"code": "t2", "text": "wrong words"}),
    (("mental_model", "team_goal"), {"code": "t2", "text": 5}),
    (("mental_model", "team_goal"), {"code": "t2", "other_text": "mine"}),
    (("mental_model", "team_goal"), {"code": "t2", "other_text": 5}),
    (("mental_model", "team_goal"), {"code": "t2", "dimension": "team_goal"}),
    (("mental_model", "team_goal"), {"code": "other"}),
    (("mental_model", "team_goal"), {"code": "other", "other_text": "  "}),
    (("mental_model", "team_goal"), {"code": "other", "other_text": "my own words"}),
    (("mental_model", "team_goal"), {"code": "other", "text": "Other", "other_text": "mine"}),
    (("mental_model", "team_goal"), {"code": "OTHER", "other_text": "mine"}),
    (("mental_model", "team_goal"), {"text": "Other"}),
    (("mental_model", "team_goal"), {"text": "Working toward a shared understanding", "code": "t2"}),
    (("mental_model", "team_goal"), {"text": "Working toward a shared understanding ", "code": "t2"}),
    (("mental_model", "misalignment_reasons"), [{"code": "other"}]),
    (("mental_model", "misalignment_reasons"), [{"code": "other", "other_text": "my reason"}]),
    (("mental_model", "misalignment_reasons"), ["n1", {"code": "n2", "text": None}]),
    (("mental_model", "misalignment_reasons"), ["other"]),
    (("mental_model", "partner_intent"), "t1"),
    (("mental_model", "self_reasoning", "code"), "r9"),
    (("mental_model", "team_goal", None), None),
    (("mental_model", "aligned", None), None),
    (("mental_model", "rationale", None), None),
    (("content", None), None),
]

# Changes the models take as they are: the fast read takes them too (where the record allows).
_READ_FAST = [
    (("mental_model",), None),
    (("mental_model", "team_goal"), "t2"),
    (("mental_model", "team_goal"), {"code": "t2", "text": ""}),
    (("mental_model", "team_goal"), {"code": "t2", "text": None}),
    (("mental_model", "team_goal"), {"code": "t2", "other_text": "mine"}),
    (("mental_model", "team_goal"), {"code": "other", "other_text": "my own words"}),
    (("mental_model", "team_goal"), {"text": "Working toward a shared understanding", "code": "t2"}),
    (("mental_model", "misalignment_reasons"), [{"code": "other", "other_text": "my reason"}]),
    (("mental_model", "misalignment_reasons"), ["n1", {"code": "n2", "text": None}]),
    (("mental_model", "rationale", None), None),
]


def _changed(record: dict, path: tuple, value) -> dict:
    out = copy.deepcopy(record)
    target = out
    for key in path[:-2] if path[-1] is None else path[:-1]:
        target = target.get(key) if isinstance(target, dict) else None
    if not isinstance(target, dict):
        return out
    if path[-1] is None:
        target.pop(path[-2], None)
    else:
        target[path[-1]] = value
    return out


@pytest.mark.parametrize("path,value", _CHANGES, ids=[f"{'.'.join(map(str, p))}={v!r}" for p, v in _CHANGES])
def test_a_changed_record_read_fast_only_when_the_models_take_it_as_is(path, value):
    """Each change is made to a message, a drawing, an undo and a misaligned action of a sample
    session: the fast read either gives up or reads exactly what the models read, with nothing to
    report."""
    _, text, grid = next(s for s in _sessions(SAMPLE_DATA) if '"undo"' in s[1] and '"aligned":false' in s[1])
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    picks = {
        next(k for k, r in enumerate(records) if test(r))
        for test in (
            lambda r: r["type"] == "message",
            lambda r: r["type"] == "draw",
            lambda r: r["type"] == "undo",
            lambda r: (r.get("mental_model") or {}).get("aligned") is False,
        )
    }
    taken = refused = 0
    for k in sorted(picks):
        changed = records[:k] + [_changed(records[k], path, value)] + records[k + 1 :]
        changed_text = "\n".join(json.dumps(r) for r in changed) + "\n"
        fast = columns_at_once(changed_text, grid)
        models, report = _as_models(changed_text)
        clean = report.ok and len(models) == len(changed) and _reader_has_nothing_to_say(models, grid)
        if fast is None:
            refused += 1
            continue
        taken += 1
        assert clean, f"read fast, but the models report: {report.issues[:1]}"
        _same(fast, models)
    assert taken + refused == len(picks) >= 3
    if (path, value) in _READ_FAST:
        assert taken > 0


def _reader_has_nothing_to_say(actions: list[Action], grid: list[int]) -> bool:
    """What the dataset reader checks across records (corpus.loading.validate): indices 0, 1, 2, ...,
    timestamps in order and within the limit, cells inside the grid, only the follower drawing."""
    if [a.index for a in actions] != list(range(len(actions))):
        return False
    times = [a.timestamp for a in actions]
    if times != sorted(times) or times[-1] > MAX_SECONDS:
        return False
    for a in actions:
        if a.type != "message" and a.role == "guide":
            return False
        if any(not (0 <= r < grid[0] and 0 <= c < grid[1]) for r, c in a.cells):
            return False
    return True


def test_cells_outside_the_grid_a_guide_drawing_and_time_going_back_are_left_to_the_models():
    _, text, grid = _sessions(SAMPLE_DATA)[0]
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    draw = next(k for k, r in enumerate(records) if r["type"] == "draw")

    def read(k: int, **changes) -> ActionColumns | None:
        changed = [dict(r, **changes) if i == k else r for i, r in enumerate(records)]
        return columns_at_once("\n".join(json.dumps(r) for r in changed), grid)

    assert read(draw) is not None
    assert read(draw, content=[[grid[0], 0]]) is None
    assert read(draw, content=[[0, -1]]) is None
    assert read(draw, content=[[0, 0, 0]]) is None
    assert read(draw, content=[[0, True]]) is None
    assert read(draw, role="guide") is None
    assert read(1, timestamp=records[0]["timestamp"] - 0.5) is None
    assert read(1, index=0) is None
    assert columns_at_once("", grid) is None
    assert columns_at_once(text.replace("}", "", 1), grid) is None  # (not JSON)
    assert columns_at_once(text.replace("2", "NaN", 1), grid) is None


def test_what_the_models_parser_refuses_is_left_to_the_models_and_escapes_read_alike():
    """Each line is parsed on its own, as the models parse it: NaN, Infinity, a lone surrogate and a
    record split over two lines (with two records on another) are refused, and any other escape
    reads as the models read it."""
    _, text, grid = _sessions(SAMPLE_DATA)[0]
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    message = next(k for k, r in enumerate(records) if r["type"] == "message")

    def with_content(raw: str) -> str:
        lines = [json.dumps(r) for r in records]
        lines[message] = lines[message].replace(json.dumps(records[message]["content"]), raw, 1)
        return "\n".join(lines) + "\n"

    for raw in ('"\\ud800 alone"', '"x\\udc00"'):
        assert columns_at_once(with_content(raw), grid) is None
        assert not _as_models(with_content(raw))[1].ok
    first = json.dumps(records[0])
    assert [r.index for r in _records([first, json.dumps(records[1])]) or ()] == [0, 1]
    for constant in ("Infinity", "-Infinity", "NaN"):
        assert _records([first.replace(json.dumps(records[0]["timestamp"]), constant, 1)]) is None
    assert _records([first.replace(json.dumps(records[0]["role"]), '"\\ud800"', 1)]) is None
    lines = [json.dumps(r) for r in records[:3]]
    split = [lines[0][:-1] + ', "x": [{"y": 1}', '{"z": 2}]}, ' + lines[1], lines[2]]  # (3 lines, 3 values)
    assert len(json.loads("[" + ",".join(split) + "]")) == 3
    assert columns_at_once("\n".join(split), grid) is None and _records(split) is None
    escaped = with_content('"caf\\u00e9 \\ud83d\\ude00 \\"quoted\\""')
    fast = columns_at_once(escaped, grid)
    models, report = _as_models(escaped)
    assert fast is not None and report.ok and fast.content[message] == 'café 😀 "quoted"'
    _same(fast, models)
    plain = columns_at_once(text, grid)
    assert plain is not None and {id(r) for r in plain.role} | {id(t) for t in plain.type} <= {
        id(v) for v in (*schema.ROLE_OF.values(), *schema.ACTION_TYPE_OF.values())
    }  # (each role and type one shared string)


def test_a_file_read_from_its_bytes_gives_the_columns_of_its_text():
    """Workers read a session's actions.jsonl from its bytes: a file in its plainest shape is
    decoded at once without being made a text (corpus.loading.reading ``records_at_once``), any other goes
    the way of its text; both give the same columns, or both give up."""
    from corpus.loading.action_rows import _DECODER, columns_of_bytes
    from corpus.loading.reading import records_at_once, text_of

    sid, text, grid = _sessions(SAMPLE_DATA)[0]
    lines = text.splitlines()
    first, second, rest = lines[0], lines[1], "\n".join(lines[2:]) + "\n"
    obj = json.loads(first)
    assert obj["type"] == "message"
    with_text = {**obj, "content": "caf\u00e9 \u2013 \U0001f600"}

    def first_as(record: dict) -> str:
        return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n" + "\n".join(lines[1:]) + "\n"

    plain = "\n".join(lines) + "\n"
    files = {
        "plain": plain.encode(),
        "no newline at the end": plain[:-1].encode(),
        "blank lines": (first + "\n\n" + second + "\n  \n" + rest).encode(),
        "carriage returns": plain.replace("\n", "\r\n").encode(),
        "a lone carriage return": (first + "\r" + second + "\n" + rest).encode(),
        "two records on a line": (first + second + "\n" + rest).encode(),
        "a record over two lines": (first.replace(",", ",\n", 1) + "\n" + second + "\n" + rest).encode(),
        "a byte-order mark": ("\ufeff" + plain).encode(),
        "non-ASCII text": first_as(with_text).encode(),
        **{f"U+{ord(ch):04X} in a text": first_as({**obj, "content": f"a{ch}b"}).encode() for ch in "\x85\u2028\u2029"},
        "a byte that is not UTF-8": plain.encode().replace(b'"', b'"\xff', 1),
        "an empty file": b"",
    }
    at_once = []
    for name, data in files.items():
        text_of_data = text_of(data)
        expected = None if text_of_data is None else columns_at_once(text_of_data, grid)
        got = columns_of_bytes(data, grid)
        assert (got is None) == (expected is None), name
        if got is not None:
            assert got == expected, name
        if records_at_once(data, _DECODER) is not None:
            at_once.append(name)
    assert at_once == [
        "plain",
        "no newline at the end",
        "non-ASCII text",
        *(f"U+{c:04X} in a text" for c in (0x85, 0x2028, 0x2029)),
    ]
    assert columns_of_bytes(files["blank lines"], grid) == columns_of_bytes(files["plain"], grid) is not None
