"""``python -m analysis report DATASET OUT [--pdf]``: the reproduction report of a dataset (a Map
Task dataset, a folder or a .zip; or kitchen runs, or a benchmark) as ``OUT.html`` (self-contained), ``OUT_tables.zip`` (every table as CSV) and,
with ``--pdf``, ``OUT.pdf`` printed by the headless Chromium the figure export already uses."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "chrome")


def chromium() -> str | None:
    """The headless browser that prints the PDF (the first one on PATH), or None."""
    return next((p for p in map(shutil.which, CHROMIUMS) if p), None)


def print_pdf(html_path: Path, pdf_path: Path, browser: str, timeout: float = 120) -> None:
    """Chromium's print of the HTML page to a PDF (no network: the page fetches nothing)."""
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--user-data-dir={profile}",
                "--no-pdf-header-footer",
                f"--print-to-pdf={pdf_path}",
                html_path.resolve().as_uri(),
            ],
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    if done.returncode != 0 or not pdf_path.is_file():
        raise RuntimeError(f"{browser} did not print {pdf_path.name}: {done.stderr.decode(errors='replace')[-400:]}")


def run(dataset: str, out: str, pdf: bool = False, reference: str = "almanac") -> int:
    from streamlit import logger

    logger.set_log_level("error")  # the screens' caches run here without a server, as they may
    from components.chart import warm_up

    threading.Thread(target=warm_up, daemon=True).start()  # the figures' browser starts while results are computed

    from corpus import domain as registry
    from corpus.loading.validate import DatasetError
    from reports import html
    from reports.reference import ALMANAC, ReferenceError
    from reports.reference import load as load_reference
    from reports.reproduction import build_for, report_of

    t0 = time.perf_counter()
    command = "python -m analysis report " + " ".join(shlex.quote(a) for a in (dataset, out))
    command += (" --pdf" if pdf else "") + (f" --reference {shlex.quote(reference)}" if reference != "almanac" else "")
    try:
        data = registry.read_path(dataset)  # by the reader of its domain
        try:
            how = report_of(data)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        ref = None
        if how.reference and reference != "none":
            ref = load_reference(ALMANAC if reference == "almanac" else reference)
        report = build_for(data, command=command, reference=ref, ahead=True)
    except DatasetError as exc:
        print(f"error: {dataset} was not loaded: {len(exc.report.errors)} error(s)", file=sys.stderr)
        print(exc.report.format(), file=sys.stderr)
        return 1
    except ReferenceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: cannot read {dataset}: {exc}", file=sys.stderr)
        return 1
    page, tables = html.write(report, Path(out))
    print(f"wrote {page} and {tables} ({len(report.tables())} tables) in {time.perf_counter() - t0:.1f} s")
    if pdf:
        browser = chromium()
        if browser is None:
            print("error: no chromium on PATH to print the PDF (apt-get install chromium)", file=sys.stderr)
            return 1
        print_pdf(page, page.with_suffix(".pdf"), browser)
        print(f"wrote {page.with_suffix('.pdf')}")
    return 0
