"""The Report screen's build of a report, for a signed-in user: the report of the dataset shown
(with the gold of its revealed coding tasks), through the server's queue of heavy work (one turn per
build: :func:`services.jobs.turn`), and its PDF when asked for."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from corpus.domain import Dataset
from corpus.server.workqueue import Place
from reports import html, reference, reproduction
from reports.cli import chromium, print_pdf
from services import jobs


@dataclass(frozen=True)
class Files:
    html: bytes
    tables: bytes
    pdf: bytes | None
    started: float
    printed: bool  # False when a PDF was asked for and the server has no Chromium to print it


def build(
    data: Dataset,
    *,
    gold: pd.DataFrame | None,
    command: str,
    pdf: bool,
    who: str,
    name: str,
    step: Callable[[str], None],
    waiting: Callable[[Place | None], None],
) -> Files:
    """Build the report once it is ``who``'s turn in the server's queue (raises
    :class:`services.jobs.Busy` if it cannot be queued); ``step`` names each step."""
    with jobs.turn(who, f"Building the report of {name}", waiting):
        started = time.time()
        step("Computing the results, as the pages do...")
        report = reproduction.build_for(
            data,
            gold=gold,
            command=command,
            reference=reference.load() if reproduction.report_of(data).reference else None,
            ahead=True,
        )
        step("Drawing the figures...")
        page, tables = html.files(report)
        printed, browser = None, chromium() if pdf else None
        if browser is not None:
            step("Printing the PDF...")
            with tempfile.TemporaryDirectory() as tmp:
                source = Path(tmp) / "report.html"
                source.write_bytes(page)
                print_pdf(source, source.with_suffix(".pdf"), browser)
                printed = source.with_suffix(".pdf").read_bytes()
    return Files(page, tables, printed, started, not pdf or browser is not None)
