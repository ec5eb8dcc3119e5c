"""The Report screen's parts: what the report holds, the build button (one build per visitor at a
time, and not more often than :data:`MIN_SECONDS` apart), the steps shown while it is built, and
the downloads of the files built."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import streamlit as st

from analysis.format import fmt, fmt_time
from corpus.benchmark import Benchmark
from corpus.dataset import Corpus
from corpus.kitchen_dataset import KitchenCorpus
from services.datasets import current_source

Data = Corpus | KitchenCorpus | Benchmark

KEY = "report_built"
MIN_SECONDS = 20.0  # between two builds by one visitor


@dataclass(frozen=True)
class BuiltReport:
    content_hash: str
    name: str
    built_at: float
    seconds: float
    html: bytes
    tables: bytes
    pdf: bytes | None


def _name(data: Data) -> str:
    return data.name if isinstance(data, Benchmark | KitchenCorpus) else data.info.name


def command(data: Data) -> str:
    """The command that builds the same report from the dataset's folder (as the server's working
    folder names it, where it is inside it: the server's own folders stay out of a shared report)."""
    path = current_source().path
    try:
        shown = path.relative_to(Path.cwd())
    except ValueError:
        shown = path
    return f"python -m analysis report {shown} OUT"


def report_intro(data: Data) -> None:
    if isinstance(data, KitchenCorpus):
        st.caption(
            "The Kitchen screen's results for the runs shown in the sidebar: the coordination metrics per directed "
            "pairing and per task level with their intervals over runs, and what became of the requests by level "
            "(TGCO), with a provenance block. One HTML file that opens offline, and every table as CSV in a zip."
        )
        return
    if isinstance(data, Benchmark):
        st.caption(
            "Compare's results for the benchmark shown in the sidebar: every run's accuracy overall and by each "
            "slice, with intervals over the benchmark's clusters and the best marked as McNemar's test allows, and a "
            "provenance block. One HTML file that opens offline, and every table as CSV in a zip."
        )
        return
    st.caption(
        "The paper's results for the dataset shown in the sidebar, in the paper's order: the dataset (Tables 1 and "
        "8), task outcomes by condition, agreement among the people coding grounding acts, grounding acts by "
        "condition (Fig. 3) and alignment within each act (Fig. 4 left), alignment over task progress (Fig. 4 right) "
        "with its model and dyadic alignment, and a provenance block (the dataset's content hash, label sources, "
        "seeds, package versions and the command that makes the same report). Each number is the page's number, "
        "with the pages' opening choices. One HTML file that opens offline, its figures inside, and every table as "
        "CSV in a zip."
    )


def _file_stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_")[:80] or "dataset"


def build_requested(data: Data, refusal: str | None = None) -> tuple[bool, bool]:
    """(whether to build now, whether to print a PDF too): the button (disabled with ``refusal``,
    the deployment's reason, when there is one), held back for :data:`MIN_SECONDS` after this
    visitor's last build."""
    built: BuiltReport | None = st.session_state.get(KEY)
    wait = MIN_SECONDS - (time.time() - built.built_at) if built is not None else 0.0
    c1, c2 = st.columns([1, 3], vertical_alignment="center")
    pdf = c2.toggle("Also a PDF (printed by the server's Chromium)", key="report_pdf")
    pressed = c1.button(
        "Build the report",
        type="primary",
        icon=":material/description:",
        key="report_build",
        disabled=refusal is not None,
        help=refusal,
    )
    if refusal is not None:
        st.info(refusal, icon=":material/lock:")
    if pressed and wait > 0:
        st.info(
            f"One build per {fmt(MIN_SECONDS, 0)} s: the next can start in {fmt(wait, 0)} s.", icon=":material/timer:"
        )
    return pressed and wait <= 0, pdf


@contextmanager
def building() -> Iterator[Callable[[str], None]]:
    """The steps of a build as they happen; yields a function that announces the next step."""
    with st.status("Building the report...", expanded=True) as status:
        yield lambda text: st.write(text)
        status.update(label="Report built", state="complete", expanded=False)


def keep(data: Data, started: float, html: bytes, tables: bytes, pdf: bytes | None) -> None:
    """Keep the files built, and draw the page again (the button now waits, the downloads show)."""
    now = time.time()
    st.session_state[KEY] = BuiltReport(data.content_hash, _name(data), now, now - started, html, tables, pdf)
    st.rerun()


def downloads(data: Data) -> None:
    """The files of the last build of this dataset's report, or nothing."""
    built: BuiltReport | None = st.session_state.get(KEY)
    if built is None or built.content_hash != data.content_hash:
        return
    st.caption(
        f"Built {fmt_time(datetime.fromtimestamp(built.built_at, UTC))} UTC in {fmt(built.seconds, 1)} s. "
        "The HTML file opens in any browser with no network."
    )
    stem = f"{_file_stem(built.name)}_report"
    c = st.columns(3)
    c[0].download_button(
        "Report (HTML)",
        built.html,
        f"{stem}.html",
        "text/html",
        key="report_dl_html",
        on_click="ignore",
        icon=":material/download:",
    )
    c[1].download_button(
        "Tables (CSV, zip)",
        built.tables,
        f"{stem}_tables.zip",
        "application/zip",
        key="report_dl_zip",
        on_click="ignore",
        icon=":material/download:",
    )
    if built.pdf is not None:
        c[2].download_button(
            "Report (PDF)",
            built.pdf,
            f"{stem}.pdf",
            "application/pdf",
            key="report_dl_pdf",
            on_click="ignore",
            icon=":material/download:",
        )
