"""Report: the paper's results for the current dataset as one file to keep, send or print."""

import tempfile
import time
from pathlib import Path

import streamlit as st

from components.auth import signed_in_user
from components.dataset import require_corpus, synthetic_banner
from components.label_source import revealed_gold
from components.report import build_requested, building, downloads, keep, report_intro
from reports import html, reference, reproduction
from reports.cli import chromium, print_pdf
from services.settings import report_refusal

corpus = require_corpus()
st.title("Reproduction report")
synthetic_banner(corpus)
report_intro()
build, pdf = build_requested(corpus, report_refusal(signed_in_user()))
if build:
    started = time.time()
    with building() as step:
        step("Computing the results, as the pages do...")
        report = reproduction.build(
            corpus,
            gold=revealed_gold(corpus),
            command=f"python -m analysis report {corpus.root} OUT",
            reference=reference.load(),
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
    keep(corpus, started, page, tables, printed)
downloads(corpus)
