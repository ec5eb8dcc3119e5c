"""The Report screen's parts: what the report holds, the build button of a signed-in user (a build
through the server's queue, not more often than :data:`MIN_SECONDS` apart), the steps shown while it
is built and its place while it waits for a turn, the server's own report for a visitor who may not
build, and the downloads of the files built."""

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
from corpus.domain import MAP_TASK, Dataset
from corpus.escape import md_line
from corpus.server.workqueue import Place
from services import jobs
from services.datasets import current_source

Data = Dataset

KEY = "report_built"
NO_PDF = "report_no_pdf"  # the last build asked for a PDF the server could not print
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


def name_of(data: Data) -> str:
    return data.name


def command(data: Data) -> str:
    """The command that builds the same report from the current dataset's folder."""
    return command_for(current_source().path)


def command_for(path: Path) -> str:
    """The command that builds the same report from the dataset's folder (as the server's working
    folder names it, where it is inside it: the server's own folders stay out of a shared report)."""
    try:
        shown = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        shown = path
    return f"python -m analysis report {shown} OUT"


# What the report holds, by domain (the registry's names: corpus.domain).
INTROS = {
    "kitchen": (
        "The Kitchen screen's results for the runs shown in the sidebar: the coordination metrics per directed "
        "pairing and per task level with their intervals over runs, and what became of the requests by level "
        "(TGCO), with a provenance block. One HTML file that opens offline, and every table as CSV in a zip."
    ),
    "benchmark": (
        "Compare's results for the benchmark shown in the sidebar: every run's accuracy overall and by each "
        "slice, with intervals over the benchmark's clusters and the best marked as McNemar's test allows, and a "
        "provenance block. One HTML file that opens offline, and every table as CSV in a zip."
    ),
    MAP_TASK: (
        "The paper's results for the dataset shown in the sidebar, in the paper's order: the dataset (Tables 1 and "
        "8), task outcomes by condition, agreement among the people coding grounding acts, grounding acts by "
        "condition (Fig. 3) and alignment within each act (Fig. 4 left), alignment over task progress (Fig. 4 right) "
        "with its model and dyadic alignment, and a provenance block (the dataset's content hash, label sources, "
        "seeds, package versions and the command that makes the same report). Each number is the page's number, "
        "with the pages' opening choices. One HTML file that opens offline, its figures inside, and every table as "
        "CSV in a zip."
    ),
}
GENERIC_INTRO = "The results for the dataset shown in the sidebar, with a provenance block, as one HTML file."


def report_intro(data: Data) -> None:
    st.caption(INTROS.get(data.domain, GENERIC_INTRO))


def _file_stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_")[:80] or "dataset"


def build_requested(data: Data) -> tuple[bool, bool]:
    """(whether to build now, whether to print a PDF too): the button, held back for
    :data:`MIN_SECONDS` after this visitor's last build."""
    built: BuiltReport | None = st.session_state.get(KEY)
    wait = MIN_SECONDS - (time.time() - built.built_at) if built is not None else 0.0
    c1, c2 = st.columns([1, 3], vertical_alignment="center")
    pdf = c2.toggle("Also a PDF (printed by the server's Chromium)", key="report_pdf")
    pressed = c1.button("Build the report", type="primary", icon=":material/description:", key="report_build")
    if pressed and wait > 0:
        st.info(
            f"One build per {fmt(MIN_SECONDS, 0)} s: the next can start in {fmt(wait, 0)} s.", icon=":material/timer:"
        )
    return pressed and wait <= 0, pdf


@dataclass(frozen=True)
class Progress:
    """What a build tells the page: the next step, and its place while it waits for a turn."""

    step: Callable[[str], None]
    waiting: Callable[[Place | None], None]


@contextmanager
def building(label: str = "Building the report...") -> Iterator[Progress]:
    """The steps of a build as they happen, and its place in the server's queue while it waits; a build
    that cannot be queued (the person's share, or a full queue) is said, and nothing else happens."""
    with st.status(label, expanded=True) as status:
        line = st.empty()

        def waiting(place: Place | None) -> None:
            if place is None:
                line.info(
                    "The server is building this report for someone else right now: it is yours as soon as it is done.",
                    icon=":material/hourglass_top:",
                )
            else:
                line.info(jobs.place_text(place), icon=":material/hourglass_top:")

        def step(text: str) -> None:
            line.empty()
            st.write(text)

        try:
            yield Progress(step, waiting)
        except jobs.Busy as exc:
            line.empty()
            status.update(label="Not started", state="error", expanded=True)
            st.warning(md_line(f"Not started: {exc}."), icon=":material/block:")
            return
        status.update(label="Report built", state="complete", expanded=False)


def keep(data: Data, html: bytes, tables: bytes, pdf: bytes | None, started: float, printed: bool) -> None:
    """Keep the files built, and draw the page again (the button now waits, the downloads show);
    ``printed`` is False when a PDF was asked for and the server could not print it."""
    now = time.time()
    st.session_state[NO_PDF] = not printed
    st.session_state[KEY] = BuiltReport(data.content_hash, name_of(data), now, now - started, html, tables, pdf)
    st.rerun()


def server_report_requested(data: Data, refusal: str, offered: bool) -> bool:
    """For a visitor who may not build: why, and the button that asks for the server's own report
    of a dataset it offers (an upload has none: it was not the server's to build)."""
    st.info(refusal, icon=":material/lock:")
    if not offered:
        st.caption("This dataset was uploaded: the server keeps no report of its own for it.")
        return False
    st.caption(
        "The server builds its own report of each dataset it offers once, for everyone (the dataset's own "
        "labels, the pages' opening choices), and keeps it until the dataset or the code changes."
    )
    return st.button("Get the server's report", type="primary", icon=":material/description:", key="report_server")


def server_report_coming(done: Callable[[], bool]) -> None:
    """The server is building its own report of this dataset now: say so, and show the page again
    once it is done (``done()``: whether it is kept)."""
    st.info(
        "The server is building its own report of this dataset now (once, for everyone): it appears here as "
        "soon as it is done.",
        icon=":material/hourglass_top:",
    )
    _poll_until(done)


@st.fragment(run_every=2.0)
def _poll_until(done: Callable[[], bool]) -> None:
    if done():
        st.rerun(scope="app")


def server_downloads(data: Data, page: bytes, tables: bytes, built_at: float, seconds: float) -> None:
    """The files of the server's own report of this dataset."""
    st.caption(
        f"The server's report, built {fmt_time(datetime.fromtimestamp(built_at, UTC))} UTC in "
        f"{fmt(seconds, 1)} s. The HTML file opens in any browser with no network."
    )
    _download_buttons(name_of(data), page, tables, None)


def downloads(data: Data) -> None:
    """The files of the last build of this dataset's report, or nothing."""
    built: BuiltReport | None = st.session_state.get(KEY)
    if built is None or built.content_hash != data.content_hash:
        return
    st.caption(
        f"Built {fmt_time(datetime.fromtimestamp(built.built_at, UTC))} UTC in {fmt(built.seconds, 1)} s. "
        "The HTML file opens in any browser with no network."
    )
    if st.session_state.get(NO_PDF):
        st.warning("No Chromium on the server to print the PDF; the HTML prints from any browser.")
    _download_buttons(built.name, built.html, built.tables, built.pdf)


def _download_buttons(name: str, page: bytes, tables: bytes, pdf: bytes | None) -> None:
    stem = f"{_file_stem(name)}_report"
    c = st.columns(3)
    c[0].download_button(
        "Report (HTML)",
        page,
        f"{stem}.html",
        "text/html",
        key="report_dl_html",
        on_click="ignore",
        icon=":material/download:",
    )
    c[1].download_button(
        "Tables (CSV, zip)",
        tables,
        f"{stem}_tables.zip",
        "application/zip",
        key="report_dl_zip",
        on_click="ignore",
        icon=":material/download:",
    )
    if pdf is not None:
        c[2].download_button(
            "Report (PDF)",
            pdf,
            f"{stem}.pdf",
            "application/pdf",
            key="report_dl_pdf",
            on_click="ignore",
            icon=":material/download:",
        )
