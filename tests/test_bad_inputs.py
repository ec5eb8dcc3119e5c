"""The bad-input corpus (tests/bad_inputs/cases.yaml): every case is refused with its message.

Each case damages a copy of the tiny dataset (or its zip) as its recipe says; validation must
report an error naming the expected file, record and field with the expected message, and
loading must raise DatasetError, never anything else. A bad prediction run is left out instead:
its problem is a warning, the dataset loads, and the run is not usable.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from bad_inputs.recipes import apply
from helpers import write_tiny

from corpus.loading.dataset import load, validate
from corpus.loading.validate import DatasetError

CASES = yaml.safe_load((Path(__file__).parent / "bad_inputs" / "cases.yaml").read_text(encoding="utf-8"))


def test_the_corpus_holds_at_least_sixty_distinct_cases_and_the_readme_says_how_many():
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))
    assert len(CASES) >= 60
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"holds\s+{len(CASES)}\s+bad inputs", readme), (
        "README.md's Reliability section gives another count"
    )


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bad_input_is_refused_with_its_message(tmp_path, case):
    target = apply(write_tiny(tmp_path / "ds"), case["recipe"])
    report = validate(target)
    file, record, field, message = case["expect"]
    run = case.get("refused_run")
    found = [
        i
        for i in (report.warnings if run else report.errors)
        if i.file == file and i.record.startswith(record) and i.field == field and message in i.message
    ]
    assert found, f"expected {case['expect']} in:\n{report.format()}"
    if "errors" in case:
        assert len(report.errors) == case["errors"], report.format()
    if run:
        assert report.ok, report.format()
        assert not load(target).predictions[run].ok
        return
    with pytest.raises(DatasetError):
        load(target)
