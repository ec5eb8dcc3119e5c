"""Property: validating a damaged dataset returns a report and never raises.

Hypothesis damages one file of a small dataset cut from the sample corpus (two sessions, their
maps, labels and predictions) in one of five ways: truncate it, flip a byte, change a value's
JSON type, nest a value in brackets, or grow a number past every limit. Validation must return
a report naming file, record, field and message for every problem, and must not raise. A
truncated JSON file, a changed type, a nested value and a grown number always break the format,
so for those the report must hold an error (a warning for a prediction run, which is left out);
a flipped byte or a truncated CSV may leave valid data.

The run is derandomized with a fixed number of examples, so CI sees the same inputs every time.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bad_inputs.recipes import set_value, with_fragment
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from corpus.loading.dataset import SAMPLE_DATA, validate

pytestmark = pytest.mark.long

SESSIONS = ("S05", "S06")  # one per map, with predictions
FREE_FORM = ("generator",)  # dataset.json's record of how it was made: any JSON is valid there
RETYPED = {
    str: [7, True, [1], {"x": 1}],
    int: ["5", True, [1], {"x": 1}],
    float: ["0.5", False, [1], {"x": 1}],
    bool: ["true", 1, [1], {"x": 1}],
    list: ["x", 7, {"x": 1}],
    dict: ["x", 7, [1]],
}
GROWN = ["1" + "0" * 5000, "1e300", "-1e300", "1e400", "NaN", "Infinity", "-Infinity"]
NESTED = [1, 250, 100_000]


def _mini_sample(dest: Path) -> Path:
    """dataset.json, the maps and the folders of SESSIONS, and only their labels and predictions."""
    shutil.copy(SAMPLE_DATA / "dataset.json", dest / "dataset.json")
    (dest / "maps").mkdir()
    for sid in SESSIONS:
        shutil.copytree(SAMPLE_DATA / "sessions" / sid, dest / "sessions" / sid)
        map_id = json.loads((dest / "sessions" / sid / "session.json").read_text())["map_id"]
        shutil.copy(SAMPLE_DATA / "maps" / f"{map_id}.json", dest / "maps" / f"{map_id}.json")
    for path in sorted(SAMPLE_DATA.glob("labels/*.csv")) + sorted(SAMPLE_DATA.glob("predictions/*/*")):
        rel = path.relative_to(SAMPLE_DATA)
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if path.suffix in (".csv", ".jsonl"):
            keep = lines[:1] if path.suffix == ".csv" else []
            lines = keep + [
                ln for ln in lines[len(keep) :] if any(f"{sid}," in ln or f'"{sid}"' in ln for sid in SESSIONS)
            ]
        (dest / rel).write_text("".join(lines), encoding="utf-8")
    return dest


class Sample:
    """The mini sample on disk and the bytes of each of its files (to restore after damage)."""

    def __init__(self, root: Path):
        self.root = root
        self.files = {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    def __repr__(self) -> str:
        return f"Sample({self.root.name}: {len(self.files)} files)"


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Sample:
    root = _mini_sample(tmp_path_factory.mktemp("mini"))
    report = validate(root)
    assert report.ok, report.format()
    return Sample(root)


def _paths(value: Any, path: tuple = ()) -> Iterator[tuple[tuple, Any]]:
    """(path, value) of every value inside a JSON document but the document itself and nulls."""
    if path and path[0] in FREE_FORM:
        return
    if path and value is not None:
        yield path, value
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, (*path, key))


def _damage(data, name: str, text: str) -> tuple[str, str, bool]:
    """(kind, damaged text, whether it must be an error) for one file."""
    kind = data.draw(st.sampled_from(["truncate", "flip", "retype", "nest", "grow"]), label="kind")
    if kind == "flip":
        raw = bytearray(text.encode("utf-8"))
        at = data.draw(st.integers(0, len(raw) - 1), label="at")
        raw[at] ^= data.draw(st.integers(1, 255), label="mask")
        return kind, raw.decode("utf-8", errors="surrogateescape"), False
    if kind == "truncate":
        body = text.rstrip()
        at = data.draw(st.integers(1, len(body) - 1), label="at")
        while name.endswith(".jsonl") and at > 1 and "\n" in (body[at - 1], body[at]):
            at -= 1  # cut inside a line, so one record is incomplete
        return kind, text[:at], not name.endswith(".csv")
    if name.endswith(".csv"):  # no JSON inside: grow an action index instead
        rows = text.splitlines(keepends=True)
        k = data.draw(st.integers(1, len(rows) - 1), label="row")
        first, rest = rows[k].split(",", 1)
        _, rest = rest.split(",", 1)
        rows[k] = f"{first},{'9' * 5001},{rest}"
        return "grow", "".join(rows), True
    lines = text.splitlines() if name.endswith(".jsonl") else [text]
    k = data.draw(st.integers(0, len(lines) - 1), label="line")
    doc = json.loads(lines[k])
    candidates = [(p, v) for p, v in _paths(doc) if kind != "grow" or type(v) in (int, float)]
    if not candidates:
        return kind, text, False
    path, value = data.draw(st.sampled_from(candidates), label="path")
    if kind == "retype":
        set_value(doc, path, data.draw(st.sampled_from(RETYPED[type(value)]), label="value"))
        lines[k] = json.dumps(doc)
    elif kind == "nest":
        depth = data.draw(st.sampled_from(NESTED), label="depth")
        lines[k] = with_fragment(doc, path, "[" * depth + json.dumps(value) + "]" * depth)
    else:
        lines[k] = with_fragment(doc, path, data.draw(st.sampled_from(GROWN), label="number"))
    return kind, "\n".join(lines) + "\n", True


@settings(
    max_examples=200,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_validation_of_a_damaged_file_returns_errors_and_never_raises(sample, data):
    root, files = sample.root, sample.files
    name = data.draw(st.sampled_from(sorted(files)), label="file")
    original = files[name]
    kind, damaged, must_fail = _damage(data, name, original.decode("utf-8"))
    event(f"{kind} of {name.split('/')[-1]}")
    try:
        (root / name).write_bytes(damaged.encode("utf-8", errors="surrogateescape"))
        report = validate(root)
    finally:
        (root / name).write_bytes(original)
    for issue in report.issues:
        assert issue.file and issue.record and issue.field and issue.message, issue
    if must_fail:  # a damaged prediction run is left out with a warning; anything else is an error
        found = report.warnings if name.startswith("predictions/") else report.errors
        assert found, f"{kind} of {name} passed validation:\n{damaged[:2000]}"
