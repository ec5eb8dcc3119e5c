"""Report: the paper's results for the current dataset as one file to keep, send or print."""

import tempfile
import time
from pathlib import Path

import streamlit as st

from components.auth import signed_in_user
from components.dataset import require_any, synthetic_banner
from components.label_source import revealed_gold
from components.report import build_requested, building, command, downloads, keep, report_intro
from corpus.dataset import Corpus
from reports import html, reference, reproduction
from reports.cli import chromium, print_pdf
from services.settings import report_refusal

data = require_any("Reproduction report")
synthetic_banner(data)
report_intro(data)
build, pdf = build_requested(data, report_refusal(signed_in_user()))
if build:
    started = time.time()
    with building() as step:
        step("Computing the results, as the pages do...")
        report = reproduction.build_for(
            data,
            gold=revealed_gold(data) if isinstance(data, Corpus) else None,
            command=command(data),
            reference=reference.load() if isinstance(data, Corpus) else None,
            ahead=True,
        )
        step("Drawing the figures...")
        page, tables = html.files(report)
        printed = None
        browser = chromium() if pdf else None
        if pdf and browser is None:
            st.warning("No Chromium on the server to print the PDF; the HTML prints from any browser.")
        elif browser is not None:
            step("Printing the PDF...")
            with tempfile.TemporaryDirectory() as tmp:
                source = Path(tmp) / "report.html"
                source.write_bytes(page)
                print_pdf(source, source.with_suffix(".pdf"), browser)
                printed = source.with_suffix(".pdf").read_bytes()
    keep(data, started, page, tables, printed)
downloads(data)
