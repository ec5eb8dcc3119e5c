"""A dataset read by worker processes (corpus/loading/validate.py `_read_in_workers`) is the dataset read
here: the same tables, session.jsons, outlines, predictions and report, whether every session is
clean, one has a warning, or one has an error. The sample (every part of a dataset in it) is read
with the threshold lowered, so that worker processes read it in runs of a session or two."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from corpus.loading import validate
from corpus.loading.dataset import SAMPLE_DATA, DatasetError, load_dir

BUDGET = 300  # actions kept whole (read here, the first few sessions are kept as they are read)
_READ_IN_WORKERS = validate._read_in_workers
READ_WORKERS = "GROUNDWORK_READ_WORKERS"


def _load(root, monkeypatch, workers: int):
    monkeypatch.setenv(READ_WORKERS, str(workers))
    monkeypatch.setattr(validate, "PARALLEL_SESSIONS", 2)
    calls = []

    def counted(*args, **kwargs):
        calls.append(len(args[1]))
        return _READ_IN_WORKERS(*args, **kwargs)

    monkeypatch.setattr(validate, "_read_in_workers", counted)
    try:
        return load_dir(root, keep_actions=BUDGET), calls
    except DatasetError as exc:
        return exc, calls


def _same(a, b) -> None:
    pd.testing.assert_frame_equal(a.actions_df, b.actions_df)
    pd.testing.assert_frame_equal(a.sessions_df, b.sessions_df)
    assert np.array_equal(a.tables.coverage, b.tables.coverage, equal_nan=True)
    assert list(a.sessions) == list(b.sessions)
    assert [a.meta(s) for s in a.sessions] == [b.meta(s) for s in b.sessions]
    assert [i.as_dict() for i in a.warnings] == [i.as_dict() for i in b.warnings]
    assert a.predictions.keys() == b.predictions.keys()
    for run_id, run in a.predictions.items():
        assert run.tables.keys() == b.predictions[run_id].tables.keys()
        assert run.digest == b.predictions[run_id].digest  # (a file a worker read counts as one read here)
        for task, table in run.tables.items():
            pd.testing.assert_frame_equal(table, b.predictions[run_id].tables[task])
    for sid in list(a.sessions)[:: max(1, len(a.sessions) // 5)]:  # (whole sessions, read again on demand)
        assert a.session(sid) == b.session(sid)


def _sample(tmp_path):
    root = tmp_path / "ds"
    shutil.copytree(SAMPLE_DATA, root)
    return root


def test_a_clean_dataset_read_by_workers_is_the_dataset_read_here(tmp_path, monkeypatch):
    root = _sample(tmp_path)
    here, none = _load(root, monkeypatch, 0)
    there, calls = _load(root, monkeypatch, 2)
    assert len(none) == 1  # (asked once, and declined: no workers)
    assert calls == [25]  # (every session went to the workers)
    assert len(there.actions_df) > 1_000
    # No session was built whole as they read: the first one asked for is read then, and kept.
    assert there.sessions.kept == 0 and here.sessions.kept > 0
    first = list(there.sessions)[0]
    assert there.session(first) == here.session(first) and there.sessions.kept == 1
    _same(here, there)


def _edit_line(path, k: int, **changes) -> None:
    lines = path.read_text().splitlines()
    lines[k] = json.dumps({**json.loads(lines[k]), **changes})
    path.write_text("\n".join(lines) + "\n")


def test_a_session_with_a_warning_or_an_error_reads_and_reports_as_here(tmp_path, monkeypatch):
    root = _sample(tmp_path)
    actions = root / "sessions" / "S14" / "actions.jsonl"
    k, line = next((k, json.loads(t)) for k, t in enumerate(actions.read_text().splitlines()) if '"draw"' in t)
    _edit_line(actions, k, role="guide")  # (a warning: only the follower draws)
    here, _ = _load(root, monkeypatch, 0)
    there, calls = _load(root, monkeypatch, 2)
    assert calls and any("only the follower draws" in i.message for i in there.warnings)
    _same(here, there)

    _edit_line(root / "sessions" / "S19" / "actions.jsonl", 3, timestamp="soon")  # (an error)
    here, _ = _load(root, monkeypatch, 0)
    there, _ = _load(root, monkeypatch, 2)
    assert isinstance(here, DatasetError) and isinstance(there, DatasetError)
    assert [i.as_dict() for i in here.report.issues] == [i.as_dict() for i in there.report.issues]
    assert any(i.file == "sessions/S19/actions.jsonl" and i.field == "timestamp" for i in there.report.issues)


@pytest.mark.parametrize(
    "n,env,want", [(10_000, "0", 0), (10_000, "1", 0), (10_000, "3", 3), (10, "3", 0), (10_000, "many", None)]
)
def test_how_many_workers_read(monkeypatch, n, env, want):
    monkeypatch.setenv(READ_WORKERS, env)
    if want is None:  # (a setting that does not read: one per processor, as by default)
        monkeypatch.setattr(validate, "processors", lambda: 4)
        want = 4
    assert validate.readers(n) == want


def test_runs_a_worker_cannot_read_are_read_here(tmp_path, monkeypatch):
    root = _sample(tmp_path)
    here, _ = _load(root, monkeypatch, 0)
    monkeypatch.setattr(validate, "read_whole_sessions", lambda *args: None)  # (no worker can run it)
    there, calls = _load(root, monkeypatch, 2)
    assert calls == [25]
    _same(here, there)


def test_a_run_with_a_problem_read_by_workers_reports_as_here(tmp_path, monkeypatch):
    """A prediction file a worker finds a problem in is read here, line by line: the same report
    (the run refused whole) and the same other runs."""
    root = _sample(tmp_path)
    run = sorted(p for p in (root / "predictions").iterdir() if p.is_dir())[0]
    path = run / "next_action.jsonl"
    lines = path.read_text().splitlines()
    lines[3] = json.dumps({**json.loads(lines[3]), "action_index": 99_999})  # (no such action)
    path.write_text("\n".join(lines) + "\n")
    here, _ = _load(root, monkeypatch, 0)
    there, calls = _load(root, monkeypatch, 2)
    assert calls == [25]
    assert any(i.file == f"predictions/{run.name}/next_action.jsonl" for i in there.warnings)
    assert not there.predictions[run.name].ok and len(there.predictions) >= 2
    _same(here, there)


def test_the_tables_are_made_while_the_workers_read_the_runs(tmp_path, monkeypatch):
    """The tables of the sessions are made once the runs' files are handed to the workers (this
    process would otherwise wait for them idle), and not at all for a dataset with an error."""
    import corpus.loading.dataset as dataset
    import corpus.predictions.runs as predictions

    root = _sample(tmp_path)
    events: list[str] = []
    handed = predictions._ReadAtOnce.__init__
    made = dataset._Taken.sessions_read

    def hand(self, *args, **kwargs):
        handed(self, *args, **kwargs)
        events.append(f"handed {len(self)} files")

    def make(self):
        events.append("tables")
        made(self)

    monkeypatch.setattr(predictions._ReadAtOnce, "__init__", hand)
    monkeypatch.setattr(dataset._Taken, "sessions_read", make)
    here, _ = _load(root, monkeypatch, 0)
    assert events == ["tables"]
    events.clear()
    there, _ = _load(root, monkeypatch, 2)
    assert events == ["handed 4 files", "tables"]
    _same(here, there)
    events.clear()
    _edit_line(root / "sessions" / "S19" / "actions.jsonl", 3, timestamp="soon")
    assert isinstance(_load(root, monkeypatch, 2)[0], DatasetError) and "tables" not in events


def _duration(text: str, value: str) -> str:
    return re.sub(r'"duration_s": [^,\n]+', lambda _: f'"duration_s": {value}', text, count=1)


# session.json texts a worker could read otherwise than here: each is changed in one place.
_META_CHANGES = [
    lambda t: t,
    lambda t: "\ufeff" + t,
    lambda t: _duration(t, "NaN"),
    lambda t: _duration(t, "Infinity"),
    lambda t: _duration(t, "1e400"),
    lambda t: _duration(t, "9" * 4301),
    lambda t: _duration(t, "700000"),  # (beyond 7 days)
    lambda t: _duration(t, "9" * 400),
    lambda t: _duration(t, "1234.5"),
    lambda t: t.replace('"id": "', '"id": "\\ud83d', 1),  # a lone surrogate
    lambda t: t.replace('"id": "', '"id": "\\\\ud83d', 1),  # an escaped backslash: text
    lambda t: t.replace('"id": "', '"notes": "\u2028 \\u00e9", "id": "', 1),
    lambda t: t.replace('"id": "', '"id": "x", "id": "', 1),  # the same key twice: the last one counts
    lambda t: t.replace('"id": ', '"id": "other", "id": ', 1),
    lambda t: t.replace('"map_id": "', '"map_id": "no_such_', 1),
    lambda t: (
        t.replace('"notes"', '"note"', 1) if '"notes"' in t else t.replace('"id"', '"nested": [[[[[1]]]]], "id"', 1)
    ),
    lambda t: t.replace('"split": "', '"split": "x', 1),
    lambda t: t[:-3],
    lambda t: "[" * 300 + "]" * 300,
    lambda t: "null",
]


def _read_at_once_as_here(tmp_path, change: int) -> bool:
    """Whether a worker reads the sample's first session.json, changed, at once; asserts that it
    then reads what this process reads, and gives up where this process reports anything."""
    root = _sample(tmp_path)
    d = next(p for p in sorted((root / "sessions").iterdir()) if p.is_dir())
    text = json.dumps(json.loads((d / "session.json").read_text()), indent=1)
    (d / "session.json").write_text(_META_CHANGES[change](text), encoding="utf-8")
    raw = validate.RawDataset(root=root)
    report = validate.Report()
    validate._read_maps(root, raw, report)
    here, grid_map = validate._read_meta(d, raw, report)
    at_once = validate._meta_at_once(d, raw)
    if report.issues or here is None or grid_map is None or here.id != d.name:
        assert at_once is None, [i.message for i in report.issues]
    else:
        assert at_once is not None and at_once[0] == here and at_once[1] is grid_map
        # (the text handed over validates again, where it is taken, to the same session.json)
        assert validate.SessionMeta.model_validate_json(at_once[2], strict=True) == here
    return at_once is not None


def test_a_session_json_a_worker_reads_at_once_is_read_as_here_or_left_to_this_process(tmp_path):
    """A worker validates session.json by the model at once (corpus/loading/validate_session.py ``_meta_at_once``),
    without the careful JSON parser first: it must give the session.json read here, or give up where
    reading here reports anything."""
    taken = [_read_at_once_as_here(tmp_path / str(k), k) for k in range(len(_META_CHANGES))]
    assert taken[0]  # (a clean session.json is read at once)
    assert 5 <= sum(taken) < len(taken) - 8  # (and both kinds were tried)


def test_a_file_a_worker_reads_at_once_is_the_text_read_here_or_left_to_this_process(tmp_path, monkeypatch):
    """Workers read a session's files with one open and one read (corpus.loading.reading ``text_at_once``):
    the text read_text gives, or None wherever read_text reports anything."""
    from corpus.loading import reading

    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 64)
    files = {
        "plain.json": b'{"a": "caf\xc3\xa9"}\n',
        "bom.json": b"\xef\xbb\xbf{}\n",
        "latin1.json": b'{"a": "caf\xe9"}\n',
        "big.json": b"x" * 65,
        "limit.json": b"x" * 64,
        "empty.json": b"",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "folder.json").mkdir()
    for name in [*files, "folder.json", "missing.json"]:
        report = validate.Report()
        here = reading.read_text(tmp_path / name, report, name)
        at_once = reading.text_at_once(tmp_path / name)
        assert at_once == (None if report.issues else here), name
    assert reading.text_at_once(tmp_path / "bom.json") == "{}\n"
