"""The command lines read by a program that stops early (``python -m analysis compare ... | head``):
the command ends quietly, with no traceback, when its reader has gone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_data"


@pytest.mark.parametrize(
    "command",
    [
        ["analysis", "compare", str(SAMPLE)],
        ["corpus", "stats", str(SAMPLE)],
    ],
    ids=["analysis compare", "corpus stats"],
)
def test_a_reader_that_stops_early_gets_no_traceback(command):
    proc = subprocess.Popen([sys.executable, "-m", *command], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader has gone before the first line: every write meets a closed pipe
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 1
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_a_run_without_a_task_is_not_predicted_in_the_leaderboard(tmp_path, capsys):
    """A run with no next-action file: its next-action row says "not predicted" (its mental-model
    row has numbers); "undefined" stays for a number that cannot be computed (SBERT without its
    extra)."""
    import shutil

    from analysis.cli import main

    run = tmp_path / "mm-only"
    run.mkdir()
    for name in ("model.json", "mental_model.jsonl"):
        shutil.copy(SAMPLE / "predictions" / "sim-llm-persona" / name, run / name)
    assert main(["compare", str(SAMPLE), str(run), "--no-similarity"]) == 0
    out = capsys.readouterr().out
    next_action = out.split("Next-action prediction")[1].split("Mental-model prediction")[0]
    mental = out.split("Mental-model prediction")[1].split("Coverage")[0]
    [row] = [line for line in next_action.splitlines() if "mm-only" in line]
    assert row.count("not predicted") == 18 and "undefined" not in row.replace("not predicted", "")
    [row] = [line for line in mental.splitlines() if "mm-only" in line]
    assert "not predicted" not in row and "0.64 (115)" in row
