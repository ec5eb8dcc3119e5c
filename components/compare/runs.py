"""Which runs are compared: the dataset's own, plus uploads; refused runs with every problem; and
how many predictions were scored, had no human label, or were missing.

Uploading runs follows the server's upload policy and the per-session allowance of dataset uploads
(:mod:`services.uploads`); the files are validated in a worker process (:mod:`services.jobs`), one
upload at a time per visitor, while the page shows how long it has been at it."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from analysis.compare.comparison import Comparison
from analysis.format import fmt, fmt_count
from analysis.split import standing_sentence
from components.compare.common import run_label
from components.download import csv_button
from components.errors import failure_sentence
from components.palette import CONDITION_NAMES
from corpus.escape import md_line
from corpus.limits import PREDICTION_ERRORS, PREDICTION_LINES, PREDICTION_UPLOAD_BYTES
from corpus.loading.dataset import Corpus
from corpus.predictions import Run, issues_frame
from corpus.store import User
from services import compare as svc
from services import jobs, sessions, uploads

UPLOADS_KEY = "compare_uploads"  # {dataset content hash: {run id: Run}}
PICKED = "compare_runs"
JOB = "compare_upload_job"  # (job id, dataset content hash) of the upload being validated
NOTICE = "compare_upload_notice"  # (kind, text) of the last upload attempt


def _uploads(corpus: Corpus) -> dict[str, Run]:
    """The runs this session uploaded for ``corpus`` (held for the session, released when it ends:
    :mod:`services.sessions`)."""
    held = sessions.held(UPLOADS_KEY)
    if held is None:
        held = sessions.hold(UPLOADS_KEY, {})
    return held.setdefault(corpus.content_hash, {})


def _start(corpus: Corpus, user: User | None) -> None:
    """Send the chosen files to the worker, within the upload policy and allowance."""
    files = [(f.name, f.getvalue()) for f in st.session_state.get("compare_upload") or []]
    if not files:
        st.session_state[NOTICE] = ("warning", "Choose one or more .zip or .jsonl files first.")
        return
    n_bytes = sum(len(data) for _, data in files)
    why = uploads.refusal(user, datasets=False) or uploads.refusal_of_bytes(user, n_bytes)
    if why is None:
        too_big = [name for name, data in files if len(data) > PREDICTION_UPLOAD_BYTES]
        why = (
            f"{', '.join(too_big)}: an upload of predictions is at most {PREDICTION_UPLOAD_BYTES // 2**20} MiB"
            if too_big
            else None
        )
    if why is not None:
        st.session_state[NOTICE] = ("error", why)
        return
    try:
        job = svc.start_upload_check(corpus, files, uploads.job_owner(user))
    except jobs.Busy as exc:
        st.session_state[NOTICE] = ("warning", f"Not started: {exc}.")
        return
    except Exception as exc:  # noqa: BLE001 - told and logged with an error id, the page goes on
        st.session_state[NOTICE] = ("error", failure_sentence(exc, "Compare: an upload of runs", "The upload"))
        return
    uploads.charge(user, n_bytes)
    st.session_state[JOB] = (job.id, corpus.content_hash)
    st.session_state.pop(NOTICE, None)


def _finish(corpus: Corpus, found: list[Run]) -> None:
    kept = _uploads(corpus)
    added = []
    for run in found:
        if run.run_id in corpus.predictions:
            run = replace(run, run_id=f"{run.run_id} (upload)")
        kept[run.run_id] = run
        added += [run.run_id] if run.ok else []
    if PICKED in st.session_state:  # show the new runs at once
        st.session_state[PICKED] = list(dict.fromkeys([*st.session_state[PICKED], *added]))


@st.fragment(run_every=0.5)
def _pending(corpus: Corpus) -> None:
    """While the upload is validated: how long it has taken; once done, its runs join the page."""
    job_id, digest = st.session_state[JOB]
    job = jobs.get(job_id)
    if job is None or digest != corpus.content_hash:
        st.session_state.pop(JOB, None)
        return
    if not job.done:
        place = job.place()
        if place is not None and not place.started:
            st.info(f"{md_line(job.what)}. {jobs.place_text(place)}", icon=":material/hourglass_top:")
            return
        st.info(
            f"{md_line(job.what)}: {fmt(job.seconds, 0)} s so far. The page stays usable meanwhile.",
            icon=":material/hourglass_top:",
        )
        return
    st.session_state.pop(JOB, None)
    try:
        _finish(corpus, jobs.take(job_id))
    except Exception as exc:  # noqa: BLE001 - the worker failed: told and logged with an error id, the page goes on
        st.session_state[NOTICE] = (
            "error",
            failure_sentence(exc, f"Compare: {job.what!r}", "The validation of the uploaded runs"),
        )
    st.rerun(scope="app")


def uploader(corpus: Corpus, user: User | None) -> None:
    with st.expander(
        "Add runs: a .zip of run folders, or one task's .jsonl",
        icon=":material/upload:",
        expanded=JOB in st.session_state or NOTICE in st.session_state,
    ):
        why = uploads.refusal(user, datasets=False)
        if why is not None:
            st.caption(why)
        else:
            sessions.watch()  # the files' bytes and the runs read from them go when this session ends
            st.file_uploader(
                "Prediction files",
                type=["zip", "jsonl"],
                accept_multiple_files=True,
                key="compare_upload",
                max_upload_size=PREDICTION_UPLOAD_BYTES // 2**20,
                help="A .zip holds run folders (model.json, next_action.jsonl, mental_model.jsonl, "
                "judge_scores.jsonl) or a dataset's predictions/ folder; a .jsonl named "
                "<run>.mental_model.jsonl holds one task of one run. Each run is validated against "
                "this dataset and refused whole if any line is wrong.",
            )
            st.caption(
                f"Each file at most {PREDICTION_UPLOAD_BYTES // 2**20} MiB and {fmt_count(PREDICTION_LINES)} lines per "
                f"predictions file; a run's first {PREDICTION_ERRORS} problems are listed. "
                + uploads.session_allowance_text(user)
            )
            st.button(
                "Validate and add",
                key="compare_add",
                icon=":material/playlist_add:",
                on_click=_start,
                args=(corpus, user),
                disabled=JOB in st.session_state,
            )
        if NOTICE in st.session_state:
            kind, text = st.session_state.pop(NOTICE)
            (st.error if kind == "error" else st.warning)(md_line(text))
        if JOB in st.session_state:
            _pending(corpus)
        if _uploads(corpus) and st.button("Remove uploaded runs", key="compare_clear_uploads"):
            _uploads(corpus).clear()


def refused(runs: list[Run]) -> None:
    bad = [r for r in runs if not r.ok]
    if not bad:
        return
    st.error(
        f"{len(bad)} run(s) refused: a run is compared only if every line of it is valid. "
        "Each problem is listed with its file, line and field.",
        icon=":material/error:",
    )
    st.dataframe(issues_frame(bad), hide_index=True, width="stretch", key="compare_refused")


LISTED = 1000  # rows of the unmatched and missing lists shown on the page (the CSV holds all)


def picker(corpus: Corpus, user: User | None = None) -> list[Run]:
    """The dataset's runs and the uploaded ones; returns the valid runs the user keeps."""
    uploader(corpus, user)
    runs = [*corpus.predictions.values(), *_uploads(corpus).values()]
    refused(runs)
    valid = [r for r in runs if r.ok]
    if not valid:
        return []
    names = {r.run_id: f"{r.info.name} · {r.info.setting or 'no setting'} ({r.run_id})" for r in valid}
    # Every run at first; later the user's choice, less the runs removed since.
    st.session_state[PICKED] = [r for r in st.session_state.get(PICKED, list(names)) if r in names]
    chosen = st.multiselect("Runs", list(names), key=PICKED, format_func=names.get)
    return [r for r in valid if r.run_id in chosen]


def coverage(cmp: Comparison) -> None:
    cov = cmp.coverage()
    cols = st.columns(5)
    cols[0].metric("Runs", fmt_count(len(cmp.run_ids)))
    cols[1].metric("Predictions", fmt_count(int(cov["predictions"].sum())))
    cols[2].metric(
        "Scored", fmt_count(int(cov["scored"].sum())), help="Predictions with a human label to compare against"
    )
    cols[3].metric(
        "Unmatched",
        fmt_count(int(cov["unmatched"].sum())),
        help="Predictions with no human label to compare against (listed below, never dropped in silence)",
    )
    cols[4].metric(
        "Missing",
        fmt_count(int(cov["missing"].sum())),
        help="Benchmark instances of the runs' split(s) that a run did not predict",
    )
    with st.expander("Per run: predictions, scored, unmatched and missing items"):
        shown = cov.assign(run=[run_label(cmp, r) for r in cov["run"]])
        st.dataframe(shown, hide_index=True, width="stretch", key="compare_coverage")
        for title, table, name in (
            ("Unmatched predictions", cmp.unmatched, "unmatched_predictions.csv"),
            ("Missing instances", cmp.missing, "missing_instances.csv"),
        ):
            frame = table()
            if len(frame):
                more = f"; the first {fmt_count(LISTED)} listed, the CSV holds all" if len(frame) > LISTED else ""
                st.markdown(f"**{title}** ({fmt_count(len(frame))}{more})")
                st.dataframe(pd.DataFrame(frame.head(LISTED)), hide_index=True, width="stretch")
                if more:
                    csv_button(f"Download {title.lower()} (CSV)", table, name, key=f"compare_cov_{name}")
    if cmp.similarity_missing:
        st.caption(f"SBERT similarity: undefined, because {cmp.similarity_missing}.")


def split_note(standing: list) -> None:
    """Which split the runs are scored on, and how it stands on Appendix E's objective (the
    sentence holds only the schema's conditions and numbers: no text from the data)."""
    if not standing:
        return
    matched = all(s.rank == 1 for s in standing)
    hint = "" if matched else " The Test split page builds the matched one."
    st.caption(standing_sentence(standing, CONDITION_NAMES) + hint)
