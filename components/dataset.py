"""The sidebar's dataset picker and upload, and what every page shows about the current dataset.

The picker lists the datasets under the server's dataset roots (:mod:`services.datasets`); there
is no free path. An upload (a Groundwork dataset, or raw data for one of the importers) is for
whoever the upload policy allows (a signed-in lead by default, :mod:`services.uploads`); it is
validated in full before anything is kept: if any record is wrong, nothing is kept and the Data
page shows the report.
"""

from __future__ import annotations

import streamlit as st

from corpus.catalog import OutsideRoots
from corpus.dataset import Corpus
from corpus.escape import md_text
from corpus.store import User
from corpus.validate import DatasetError, Report
from services import datasets, uploads

PICK_KEY = "dataset_pick"


def _signed_in() -> User | None:
    """Who is signed in, for the upload policy (None when no one is, or the store cannot say)."""
    from components.auth import signed_in_user

    try:
        return signed_in_user()
    except Exception:  # noqa: BLE001 - an unreachable database: treat as signed out
        return None


def _picked() -> None:
    """Picker callback: switch to the chosen dataset if it loads; else keep the current one and
    record why (the Data page shows the report)."""
    path = st.session_state.get(PICK_KEY)
    if not path:
        return
    try:
        previous = datasets.current_source()
        source = datasets.open_dataset(path)
        datasets.load(source.path)
    except OutsideRoots as exc:
        datasets.set_outcome("that folder", _one_issue(str(exc)), False)
    except DatasetError as exc:
        datasets.open_dataset(previous.path)
        datasets.set_outcome(source.label, exc.report, False)
    except OSError as exc:
        datasets.open_dataset(previous.path)
        datasets.set_outcome(source.label, _one_issue(f"cannot be read ({exc.strerror or exc})"), False)
    else:
        st.session_state.pop(datasets.REPORT_KEY, None)


def _one_issue(message: str) -> Report:
    report = Report()
    report.add("(dataset)", "-", "(path)", message)
    return report


def _picker() -> bool:
    """The dataset select box; True if the current dataset is marked synthetic."""
    entries = datasets.offered()
    labels = {str(e.path): e.label + (" · synthetic" if e.synthetic else "") for e in entries}
    current = datasets.current_source()
    labels.setdefault(str(current.path), current.label)
    if st.session_state.get(PICK_KEY) != str(current.path):
        st.session_state[PICK_KEY] = str(current.path)
    st.selectbox(
        "Dataset",
        list(labels),
        key=PICK_KEY,
        format_func=labels.get,
        on_change=_picked,
        label_visibility="collapsed",
        help="The datasets this server offers: the sample corpus, uploads, and the folders its "
        "settings name (GROUNDWORK_DATASET_ROOTS).",
    )
    return any(e.synthetic and e.path == current.path for e in entries)


def _import() -> None:
    """Upload button callback (before the script runs, so the picker can show the new dataset)."""
    up = st.session_state.get("dataset_zip")
    if up is None:
        return
    fmt = uploads.FORMATS.get(st.session_state.get("dataset_zip_format"))
    uploads.upload(up.name, up.getvalue(), fmt, _signed_in())


def _upload_box() -> None:
    with st.expander("Upload a .zip", icon=":material/upload:"):
        user = _signed_in()
        why = uploads.refusal(user)
        if why is not None:
            st.caption(why)
            return
        st.selectbox(
            "Archive holds",
            list(uploads.FORMATS),
            key="dataset_zip_format",
            help="A Groundwork dataset, a session folder exported by the collaboration platform, "
            "or HCRC Map Task transcripts / NXT move files (see docs/importers.md).",
        )
        up = st.file_uploader("Dataset archive", type=["zip"], key="dataset_zip")
        st.caption(uploads.allowance_text(user))
        st.button("Validate and import", key="import_zip", on_click=_import, disabled=up is None)


def sidebar() -> None:
    with st.sidebar:
        st.subheader("Dataset")
        synthetic = _picker()
        _upload_box()
        last = datasets.last_outcome()
        if last and not last.imported:
            st.error(f"{md_text(last.name)} was not opened: {len(last.report.errors)} error(s). See the Data page.")
        if synthetic:
            st.caption(":material/science: This dataset is synthetic.")


def require_corpus() -> Corpus:
    """For pages: the current dataset, or stop the page with the reason shown.

    Every page starts here, so this is also where a deep link on a fresh server is routed through
    ``app.py`` (see :mod:`components.router`).
    """
    from components.router import ensure_routed

    ensure_routed()
    label = "the dataset"
    try:
        label = md_text(datasets.current_source().label)
        return datasets.current_corpus()
    except DatasetError as exc:
        st.error(f"The dataset {label} has {len(exc.report.errors)} error(s) and was not loaded.")
        show_report(exc.report)
    except OutsideRoots as exc:
        st.error(f"No dataset to show: {exc}.")
    except OSError as exc:
        st.error(f"Cannot read {label}: {md_text(exc.strerror or exc)}")
    st.stop()


def show_report(report: Report | list) -> None:
    """The problems of a validation as a table: severity, file, record, field, message."""
    issues = report.issues if isinstance(report, Report) else report
    if not issues:
        st.success("No problems found.")
        return
    st.dataframe([i.as_dict() for i in issues], width="stretch", hide_index=True)


def synthetic_banner(corpus: Corpus) -> None:
    """Says that the dataset is synthetic (its name is data: shown as written, never as Markdown)."""
    if corpus.synthetic:
        st.info(
            f"**{md_text(corpus.info.name)}** is a synthetic corpus: generated sessions, not recordings of "
            "people. Patterns in it are there by design.",
            icon=":material/science:",
        )
