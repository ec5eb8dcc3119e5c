"""The sidebar's dataset picker and upload, and what every page shows about the current dataset.

The picker lists the datasets under the server's dataset roots (:mod:`services.datasets`); there
is no free path. An upload (a Groundwork dataset, or raw data for one of the importers) is for
whoever the upload policy allows (a signed-in lead by default, :mod:`services.uploads`); it is
validated in full before anything is kept: if any record is wrong, nothing is kept and the Data
page shows the report.
"""

from __future__ import annotations

from typing import cast

import pandas as pd
import streamlit as st

from analysis.format import fmt, fmt_count
from components import import_options
from components.errors import failure_sentence
from corpus import domain as registry
from corpus.benchmark.dataset import Benchmark
from corpus.domain import MAP_TASK, Dataset
from corpus.escape import md_line, md_text
from corpus.kitchen.dataset import KitchenCorpus
from corpus.loading.catalog import OutsideRoots
from corpus.loading.dataset import Corpus
from corpus.loading.report import grouped
from corpus.loading.validate import DatasetError, Report
from corpus.store import User
from services import datasets, sessions, uploads

PICK_KEY = "dataset_pick"
JOB_KEY = "dataset_upload_job"  # the upload being imported in the worker (services.uploads.PendingImport)
DETECTED_KEY = "dataset_zip_detected"  # (file id, what its names tell) of the chosen archive


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
    datasets.forget_unknown_link()
    try:
        previous = datasets.current_source()
        source = datasets.open_dataset(path)
        datasets.check(source.path)
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
    _dataset_in_link(current)
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


def _dataset_in_link(current: datasets.Source) -> None:
    """The address names the current dataset (``?dataset=KEY``; nothing for the default), so a
    reload or a copied link opens the same one on every page."""
    want = datasets.link_params(current).get(datasets.QUERY_KEY)
    if st.query_params.get(datasets.QUERY_KEY) == want:
        return
    if want is None:
        del st.query_params[datasets.QUERY_KEY]
    else:
        st.query_params[datasets.QUERY_KEY] = want


def _choice() -> tuple[str | None, str] | str:
    """(importer format, what it was read as) for the chosen file: the format picked under
    'Archive holds', or the one its file names tell; a string when neither says."""
    up = st.session_state.get("dataset_zip")
    picked = uploads.FORMATS.get(st.session_state.get("dataset_zip_format") or "", uploads.DETECT)
    if up is None:
        return "Choose a .zip first."
    if picked != uploads.DETECT:
        return picked, ""
    found = _detected(up.file_id, up)
    if isinstance(found, str):
        return found
    return found.fmt, found.sentence()


def _detected(file_id: str, up) -> uploads.Detection | str:  # noqa: ANN001 - an UploadedFile
    """What the upload holds, told once per file (its names only: nothing is extracted)."""
    held = st.session_state.get(DETECTED_KEY)
    if held is None or held[0] != file_id:
        held = (file_id, uploads.detected(up.getvalue()))
        st.session_state[DETECTED_KEY] = held
    return held[1]


def _failed(name: str, exc: Exception, note: str = "") -> None:
    """An upload that failed unexpectedly: logged with an error id, and recorded (the sidebar and
    the Data page say so, naming the id)."""
    uploads.record_failure(name, failure_sentence(exc, f"the upload of {name!r}", "the import"), note)


def _import() -> None:
    """Upload button callback: start the import in the worker (the fragment below follows it)."""
    up = st.session_state.get("dataset_zip")
    if up is None:
        return
    try:
        chosen = _choice()
        if isinstance(chosen, str):
            datasets.set_outcome(up.name, _one_issue(chosen), False)
            return
        fmt, note = chosen
        choices = import_options.chosen(fmt)
        user = _signed_in()
        pending = uploads.start_import(up.name, up.getvalue(), fmt, user, uploads.job_owner(user), choices, note)
    except Exception as exc:  # noqa: BLE001 - every failure of an upload is told and logged with an id
        _failed(up.name, exc)
        return
    if pending is not None:
        st.session_state[JOB_KEY] = pending


@st.fragment(run_every=0.5)
def _importing() -> None:
    """While an upload is imported: how far it has got; once done, the page opens the dataset."""
    pending = st.session_state[JOB_KEY]
    state = uploads.import_progress(pending)
    if state is not None and state.waiting is not None:
        st.caption(f":material/hourglass_top: Importing {md_line(pending.name)}. {state.waiting}")
        return
    if state is not None:
        seconds, strokes = state.seconds, state.strokes
        text = f"Importing {md_line(pending.name)}: {fmt(seconds, 0)} s so far."
        if strokes and strokes[1]:
            done, total = strokes
            st.progress(done / total, text=f"{text} Ink of {fmt_count(done)} of {fmt_count(total)} strokes read.")
        else:
            st.caption(f":material/hourglass_top: {text} Other pages stay usable meanwhile.")
        return
    st.session_state.pop(JOB_KEY, None)
    try:
        uploads.finish_import(pending, _signed_in())
    except Exception as exc:  # noqa: BLE001 - the import failed unexpectedly: told and logged with an id
        _failed(pending.name, exc, pending.note)
    st.rerun(scope="app")


def _upload_box() -> None:
    busy = JOB_KEY in st.session_state
    with st.expander("Upload a .zip", icon=":material/upload:", expanded=busy):
        user = _signed_in()
        why = uploads.refusal(user)
        if why is not None:
            st.caption(why)
            return
        sessions.watch()  # the archive's bytes go when this session ends, not minutes later
        up = st.file_uploader("Dataset archive", type=["zip"], key="dataset_zip")
        st.selectbox(
            "Archive holds",
            list(uploads.FORMATS),
            key="dataset_zip_format",
            help="Detected from the file names, or chosen: a Groundwork dataset, the collaboration "
            "platform's session logs or export bundle, HCRC Map Task transcripts / NXT move files, or kitchen "
            "runs (Collab-Overcooked run logs, Overcooked-AI trajectories; see docs/importers.md).",
        )
        chosen = _choice() if up is not None else None
        if isinstance(chosen, str):
            st.caption(f":material/help: {md_line(chosen)}")
        elif chosen is not None:
            if chosen[1]:
                st.caption(f":material/search: {md_line(chosen[1])}")
            if chosen[0] is not None:
                import_options.form(chosen[0])
        st.caption(uploads.allowance_text(user))
        st.button(
            "Validate and import",
            key="import_zip",
            on_click=_import,
            disabled=up is None or busy or isinstance(chosen, str),
        )
        if busy:
            _importing()


def sidebar() -> None:
    with st.sidebar:
        st.subheader("Dataset")
        synthetic = _picker()
        _upload_box()
        last = datasets.last_outcome()
        if last and not last.imported:
            _not_opened(last)
        if synthetic:
            st.caption(":material/science: This dataset is synthetic.")


SIDEBAR_PROBLEMS = 20  # problems listed in the sidebar (one repeated on many records counts once)


def _problem(file: str, record: str, field: str, message: str) -> str:
    """One problem on one line: where it is (file, record, field) and what it is."""
    where = ", ".join(md_line(part) for part in (file, record, field) if part and part != "-")
    return f"{where}: {md_line(message)}"


def _not_opened(last: datasets.ImportOutcome) -> None:
    """Why the last upload or opening failed, in the sidebar, whatever the page: the count and the
    first problem with its file, record and field, then the others below it, a line each (the Data
    page shows them as a table too, beside a Map Task dataset)."""
    report = last.report
    errors = report.errors
    text = f"{md_text(last.name)} was not opened: {report.error_count} error(s)."
    if errors:
        first = errors[0]
        text += " " + _problem(first.file, first.record, first.field, first.message)
    st.error(text, icon=":material/error:")
    rows = grouped(errors)
    if len(errors) > 1 or report.dropped_errors:
        with st.expander(f"Every problem ({report.error_count})", icon=":material/fact_check:"):
            shown = rows[:SIDEBAR_PROBLEMS]
            st.markdown("\n".join(f"- {_problem(r['file'], r['record'], r['field'], r['message'])}" for r in shown))
            more = len(rows) - len(shown) + report.dropped_errors
            if more:
                st.caption(f"... and {fmt_count(more)} more not listed.")


def require_corpus() -> Corpus:
    """For pages: the current dataset, or stop the page with the reason shown.

    Every page starts here, so this is also where a deep link on a fresh server is routed through
    ``app.py`` (see :mod:`components.router`).
    """
    from components.router import ensure_routed

    ensure_routed()
    return cast(Corpus, _current((MAP_TASK,)))


def _domain() -> str:
    """The current dataset's domain; "map_task" when it cannot be read (that route says why)."""
    from components.router import ensure_routed

    ensure_routed()
    try:
        return datasets.current_domain()
    except (OutsideRoots, OSError):
        return MAP_TASK


def screen_domains(screen: str) -> tuple[str, ...]:
    """The domains whose menu shows ``screen`` (a page's file name)."""
    return tuple(d.name for d in registry.domains() if screen in d.pages)


def require_codable() -> Corpus | KitchenCorpus:
    """For the coding screens (Tasks, Code, Adjudicate): the current dataset's Map Task sessions, or
    its kitchen runs (whose request units are the items), or stop the page with the reason shown."""
    _domain()  # (routed)
    return cast("Corpus | KitchenCorpus", _current(screen_domains("code")))


def require_any(title: str) -> Dataset:
    """For screens that read every domain (Home, the Report): the screen's ``title``, then the current
    dataset as its domain reads it, or stop the page saying why it does not load."""
    domain = _domain()
    st.title(title)
    return _current((domain,))


def require_screen(screen: str, title: str) -> Dataset:
    """For a screen that some domains show (its file name): the screen's ``title``, then the current
    dataset if its domain shows the screen, or stop the page saying what the screen reads."""
    _domain()  # (routed)
    st.title(title)
    return _current(screen_domains(screen))


def _not_this_domain(label: str, wanted: tuple[str, ...]) -> None:
    """What the current dataset holds, what this screen reads instead and how to get it, and the
    screen that shows the current dataset."""
    current = registry.get(datasets.current_domain())
    reads = [registry.get(name) for name in wanted if registry.known(name)]
    text = f"The dataset {label} holds {current.what_it_holds}. This screen reads " + " or ".join(
        d.title for d in reads
    )
    if len(reads) == 1:
        text += f"{reads[0].sources}: {reads[0].how_to_get}."
    else:
        text += ": choose such a dataset in the sidebar."
    text += f" The **{current.main_title}** screen {current.main_does or 'shows it'}."
    st.info(text, icon=current.icon)
    st.page_link(f"pages/{current.main_page}.py", label=f"Open {current.main_title}", icon=current.icon)


def _current(wanted: tuple[str, ...]) -> Dataset:
    """The current dataset, loaded by its domain's reader, when its domain is one of ``wanted``;
    otherwise, or when it does not load, the page says why and stops."""
    label = "the dataset"
    try:
        label = md_text(datasets.current_source().label)
        if datasets.current_domain() not in wanted:
            if registry.known(datasets.current_domain()):
                _not_this_domain(label, wanted)
                st.stop()
        return datasets.current()
    except DatasetError as exc:
        st.error(f"The dataset {label} has {len(exc.report.errors)} error(s) and was not loaded.")
        show_report(exc.report)
    except OutsideRoots as exc:
        st.error(f"No dataset to show: {exc}.")
    except OSError as exc:
        st.error(f"Cannot read {label}: {md_text(exc.strerror or exc)}")
    st.stop()


def current_is_benchmark() -> bool:
    """Whether the current dataset is a benchmark (False when there is none to read)."""
    return _domain() == "benchmark"


def require_benchmark(title: str) -> Benchmark:
    """For the Compare screen on a benchmark: the screen's ``title``, then the current dataset's items
    and runs, or stop the page saying why they do not load."""
    st.title(title)
    return cast(Benchmark, _current(("benchmark",)))


def require_kitchen(title: str) -> KitchenCorpus:
    """For the kitchen screens: the screen's ``title``, then the current dataset's kitchen runs, or
    stop the page saying why (a Map Task dataset is current, or the runs do not load)."""
    from components.router import ensure_routed

    ensure_routed()
    st.title(title)
    return cast(KitchenCorpus, _current(("kitchen",)))


REPORT_ROWS_UNSCROLLED = 12  # a longer report scrolls within a fixed height


def show_report(report: Report | list) -> None:
    """The problems of a validation as a table that wraps long messages: severity, file, record,
    field, message; a problem repeated on many records is one row with its count."""
    issues = report.issues if isinstance(report, Report) else report
    if not issues:
        st.success("No problems found.")
        return
    rows = pd.DataFrame(grouped(issues))
    if (rows["count"] == "1").all():
        rows = rows.drop(columns="count")
    dropped = report.dropped_errors if isinstance(report, Report) else 0
    st.table(
        rows.map(md_line),  # st.table reads Markdown in its cells: data stays text
        hide_index=True,
        height=420 if len(rows) > REPORT_ROWS_UNSCROLLED else "content",
    )
    if dropped:
        st.caption(f"... and {fmt_count(dropped)} more error(s) not listed.")


def synthetic_banner(data: Dataset) -> None:
    """Says, under the page's title, that the dataset is synthetic (its name is data: shown as
    written, never as Markdown), in its domain's words, and before that, while it holds, that the link
    the page was opened by named a dataset this server does not offer."""
    unknown = datasets.unknown_link()
    if unknown is not None:
        st.warning(
            f"The link named a dataset this server does not offer ({md_line(unknown)}): "
            f"{md_text(datasets.current_source().label)} is shown instead.",
            icon=":material/link_off:",
        )
    if data.synthetic:
        st.info(f"**{md_text(data.name)}** {registry.of(data).synthetic_note}", icon=":material/science:")
