"""The sidebar's dataset picker and the access every page uses to the current dataset.

Sources: the bundled sample corpus (default), a dataset directory on the server, or an uploaded
.zip: a Groundwork dataset, or a collaboration-platform session export or HCRC Map Task dialogues,
converted by :mod:`corpus.importers`. An upload is validated in full before anything is kept: if
any record is wrong, nothing is imported and the Data page shows the report.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import streamlit as st

from corpus.archive import ArchiveError, extract_to
from corpus.dataset import SAMPLE_DATA, Corpus, load_dir
from corpus.store import data_dir as store_data_dir
from corpus.validate import DatasetError, Report, read_dataset

STATE_KEY = "dataset_source"
REPORT_KEY = "import_report"

# What an uploaded archive holds: label -> importer format (None: a Groundwork dataset).
UPLOAD_FORMATS = {
    "Groundwork dataset": None,
    "Collaboration platform session": "platform",
    "HCRC Map Task dialogues": "hcrc",
}


def data_dir() -> Path:
    """Where uploads and the label database live (GROUNDWORK_DATA_DIR, default ./.groundwork)."""
    d = store_data_dir()
    d.mkdir(parents=True, exist_ok=True)
    return d


def _signature(root: Path) -> tuple:
    """A cheap change token for a dataset directory (names, sizes and mtimes of its files)."""
    sig = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            st_ = path.stat()
            sig.append((str(path.relative_to(root)), st_.st_size, st_.st_mtime_ns))
    return tuple(sig)


@st.cache_resource(show_spinner="Loading and validating the dataset...", max_entries=4)
def _load_cached(root: str, signature: tuple) -> Corpus:
    return load_dir(root)


def load_source(root: Path) -> Corpus:
    return _load_cached(str(root), _signature(root))


def current_source() -> dict:
    return st.session_state.get(STATE_KEY) or {"kind": "sample", "path": str(SAMPLE_DATA), "label": "Sample corpus (synthetic)"}


def current_corpus() -> Corpus | None:
    """The selected dataset, or None (with the problem shown) if it cannot be loaded."""
    src = current_source()
    try:
        return load_source(Path(src["path"]))
    except DatasetError as exc:
        st.error(f"The dataset at `{src['path']}` has {len(exc.report.errors)} error(s) and was not loaded.")
        show_report(exc.report)
    except OSError as exc:
        st.error(f"Cannot read the dataset at `{src['path']}`: {exc}")
    return None


def require_corpus() -> Corpus:
    """For pages: the current dataset, or stop the page with the reason shown.

    Every page starts here, so this is also where a deep link on a fresh server is routed through
    ``app.py`` (see :mod:`components.router`).
    """
    from components.router import ensure_routed

    ensure_routed()
    corpus = current_corpus()
    if corpus is None:
        st.stop()
    return corpus


def show_report(report: Report | list) -> None:
    """The problems of a validation as a table: severity, file, record, field, message."""
    issues = report.issues if isinstance(report, Report) else report
    if not issues:
        st.success("No problems found.")
        return
    st.dataframe([i.as_dict() for i in issues], width="stretch", hide_index=True)


def synthetic_banner(corpus: Corpus) -> None:
    if corpus.synthetic:
        st.info(
            f"**{corpus.info.name}** is a synthetic corpus: generated sessions, not recordings of "
            "people. Patterns in it are there by design.",
            icon=":material/science:",
        )


def _convert_upload(name: str, fmt: str, root: Path, digest: str) -> None:
    """Convert an extracted platform or HCRC archive into a dataset, all or nothing."""
    from corpus.importers import run_import

    report = Report()
    final = data_dir() / "datasets" / f"{digest}-{fmt}"
    try:
        run_import(fmt, root, final, overwrite=True, name=f"{Path(name).stem} (imported)", report=report)
    except DatasetError as exc:
        st.session_state[REPORT_KEY] = {"name": name, "report": exc.report, "imported": False}
        return
    st.session_state[REPORT_KEY] = {"name": name, "report": report, "imported": True}
    st.session_state[STATE_KEY] = {"kind": "upload", "path": str(final), "label": f"Upload: {name}"}


def _import_upload(name: str, data: bytes, fmt: str | None = None) -> None:
    digest = hashlib.sha256(data).hexdigest()[:16]
    uploads = data_dir() / "uploads"
    uploads.mkdir(exist_ok=True)
    archive = uploads / f"{digest}.zip"
    archive.write_bytes(data)
    staging = data_dir() / "staging" / digest
    shutil.rmtree(staging, ignore_errors=True)
    try:
        root = extract_to(archive, staging)
        if fmt is not None:
            try:
                _convert_upload(name, fmt, root, digest)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
            return
        _, report = read_dataset(root)
    except ArchiveError as exc:
        report = exc.report
        root = None
    if root is None or not report.ok:
        shutil.rmtree(staging, ignore_errors=True)
        st.session_state[REPORT_KEY] = {"name": name, "report": report, "imported": False}
        return
    final = data_dir() / "datasets" / digest
    shutil.rmtree(final, ignore_errors=True)
    final.parent.mkdir(exist_ok=True)
    shutil.move(str(root), str(final))
    shutil.rmtree(staging, ignore_errors=True)
    st.session_state[REPORT_KEY] = {"name": name, "report": report, "imported": True}
    st.session_state[STATE_KEY] = {"kind": "upload", "path": str(final), "label": f"Upload: {name}"}


def _on_choice() -> None:
    if st.session_state.get("dataset_choice") == "Sample corpus":
        st.session_state[STATE_KEY] = None


def sidebar() -> None:
    with st.sidebar:
        st.subheader("Dataset")
        choice = st.radio(
            "Source",
            ["Sample corpus", "Directory on the server", "Upload a .zip"],
            key="dataset_choice",
            label_visibility="collapsed",
            on_change=_on_choice,
        )
        if choice == "Directory on the server":
            path = st.text_input("Dataset directory", key="dataset_dir", placeholder="/path/to/dataset")
            if st.button("Open directory", key="open_dir") and path:
                p = Path(path).expanduser()
                _, report = read_dataset(p)
                st.session_state[REPORT_KEY] = {"name": str(p), "report": report, "imported": report.ok}
                if report.ok:
                    st.session_state[STATE_KEY] = {"kind": "dir", "path": str(p.resolve()), "label": str(p)}
        else:
            kind = st.selectbox(
                "Archive holds", list(UPLOAD_FORMATS), key="dataset_zip_format",
                help="A Groundwork dataset, a session folder exported by the collaboration platform, "
                "or HCRC Map Task transcripts / NXT move files (see docs/importers.md).",
            )
            up = st.file_uploader("Dataset archive", type=["zip"], key="dataset_zip")
            if up is not None and st.button("Validate and import", key="import_zip"):
                _import_upload(up.name, up.getvalue(), UPLOAD_FORMATS[kind])
        src = current_source()
        st.caption(f"Showing: {src['label']}")
        last = st.session_state.get(REPORT_KEY)
        if last and not last["imported"]:
            st.error(f"{last['name']} was not imported: {len(last['report'].errors)} error(s). See the Data page.")
        if src["kind"] == "sample":
            st.caption(":material/science: The sample corpus is synthetic.")
