"""One writer of CSV: every CSV a page offers or a command line prints is written by
corpus.csvsafe.to_csv, so nothing a spreadsheet would run as a formula starts a cell. The source is
read to keep it so (a new download written another way fails here), and the writers that format
their own tables are run on formula text. The pages' download buttons are clicked in the browser
on a dataset whose text starts with formulas (tests/test_browser_hostile.py)."""

from __future__ import annotations

import ast
import csv
import io
import shutil
from pathlib import Path

import pandas as pd
from cli_run import run_cli

from corpus.csvsafe import FORMULA_STARTS, to_csv

ROOT = Path(__file__).resolve().parent.parent
APP_CODE = [p for d in ("analysis", "components", "corpus", "pages", "services") for p in (ROOT / d).rglob("*.py")]
ONE_WRITER = ROOT / "corpus" / "csvsafe.py"
DOWNLOADS = ROOT / "components" / "download.py"
FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1+1"]


def formula_cells(text: str) -> list[str]:
    """The cells of a CSV text that a spreadsheet would run (a bare number is no formula)."""
    found = []
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            if cell.startswith(FORMULA_STARTS):
                try:
                    float(cell)
                except ValueError:
                    found.append(cell)
    return found


def _calls(path: Path):
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            yield node


def test_nothing_but_the_one_writer_writes_csv():
    """No ``.to_csv(...)`` of a frame, no csv.writer, outside corpus/csvsafe.py (corpus/loading/write.py and
    corpus/benchmark/dataset.py write a dataset's own files, data that Groundwork reads back exactly)."""
    found = []
    for path in APP_CODE:
        if path in (ONE_WRITER, ROOT / "corpus" / "loading" / "write.py", ROOT / "corpus" / "benchmark" / "dataset.py"):
            continue
        for call in _calls(path):
            f = call.func
            if isinstance(f, ast.Attribute) and f.attr in ("to_csv", "writer", "DictWriter"):
                found.append(f"{path.relative_to(ROOT)}:{call.lineno}: .{f.attr}(...)")
    assert not found, "\n".join(found)


def test_every_csv_download_button_goes_through_the_one_helper():
    """A download button with the CSV type is made only by components.download.csv_button."""
    found = []
    for path in APP_CODE:
        if path == DOWNLOADS:
            continue
        for call in _calls(path):
            f = call.func
            if isinstance(f, ast.Attribute) and f.attr == "download_button":
                text = ast.unparse(call)
                if "text/csv" in text or ".csv" in text:
                    found.append(f"{path.relative_to(ROOT)}:{call.lineno}: {text[:120]}")
    assert not found, "\n".join(found)


def test_the_one_writer_neutralizes_every_formula_and_keeps_numbers():
    frame = pd.DataFrame(
        {"note": FORMULAS, "value": [-0.25, 3, -1e-5, 0, 1], "text": ["-0.25", "+3", "1e-5", "-", "ok"]}
    )
    text = to_csv(frame)
    assert formula_cells(text) == []
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["note"] for r in rows] == ["'" + f for f in FORMULAS]
    assert [r["value"] for r in rows] == ["-0.25", "3.0", "-1e-05", "0.0", "1.0"]
    assert [r["text"] for r in rows] == ["-0.25", "+3", "1e-5", "'-", "ok"]
    assert next(csv.DictReader(io.StringIO(to_csv(frame.set_index("note"), index=True))))["note"].startswith(
        "'=HYPERLINK"
    )


def test_the_agreement_report_and_the_leaderboard_are_safe(tmp_path):
    """The two results that write their own CSV, on formula text (a coder's name, a run's name)."""
    from analysis import coding as ac

    labels = pd.DataFrame(
        [
            {
                "item_id": f"i{i}",
                "coder": coder,
                "code": "ab"[(i * k) % 2],
                "coder_kind": "human",
                "codebook_version": "1",
            }
            for i in range(12)
            for k, coder in enumerate(["=cmd|' /C calc'!A0", "@bob", "carl"])
        ]
    )
    report = ac.agreement_report(labels, n_boot=0)
    meta = ac.ReportMeta(
        task="=HYPERLINK(1)",
        dataset="+evil",
        codebook_id="cb",
        codebook_name="-x",
        codebook_version="1",
        n_items_in_task=12,
    )
    assert formula_cells(ac.report_csv(report, meta)) == []
    assert "'=HYPERLINK(1)" in ac.report_csv(report, meta)


def test_the_compare_command_line_prints_safe_csv(tmp_path):
    """``python -m analysis compare --csv`` on the sample with a run named like a formula."""
    import json

    from corpus.loading.dataset import SAMPLE_DATA

    copy = shutil.copytree(SAMPLE_DATA, tmp_path / "sample")
    run = next(p for p in (copy / "predictions").iterdir() if p.is_dir())
    info = json.loads((run / "model.json").read_text())
    info.update(name='=HYPERLINK("http://evil.example","x")', setting="@SUM(A1)")
    (run / "model.json").write_text(json.dumps(info))
    out = run_cli("compare", str(copy), "--csv", module="analysis")
    assert out.returncode == 0, out.stderr
    assert '=HYPERLINK(""http://evil.example"",""x"")' in out.stdout.replace("'", "")  # the run is there ...
    assert formula_cells(out.stdout) == []  # ... as data
