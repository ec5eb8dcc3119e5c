"""Which runs are compared: the dataset's own, plus uploads; refused runs with every problem; and
how many predictions were scored, had no human label, or were missing."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from analysis.compare.comparison import Comparison
from components.compare.common import run_label
from corpus.dataset import Corpus
from corpus.predictions import Run, issues_frame
from services import compare as svc

UPLOADS_KEY = "compare_uploads"  # {dataset content hash: {run id: Run}}
PICKED = "compare_runs"


def _uploads(corpus: Corpus) -> dict[str, Run]:
    return st.session_state.setdefault(UPLOADS_KEY, {}).setdefault(corpus.content_hash, {})


def _add_uploads(corpus: Corpus) -> None:
    files = st.session_state.get("compare_upload") or []
    kept = _uploads(corpus)
    added = []
    for f in files:
        for run in svc.read_uploaded(corpus, f.name, f.getvalue()):
            if run.run_id in corpus.predictions:
                run = replace(run, run_id=f"{run.run_id} (upload)")
            kept[run.run_id] = run
            added += [run.run_id] if run.ok else []
    if PICKED in st.session_state:  # show the new runs at once
        st.session_state[PICKED] = list(dict.fromkeys([*st.session_state[PICKED], *added]))


def uploader(corpus: Corpus) -> None:
    with st.expander("Add runs: a .zip of run folders, or one task's .jsonl", icon=":material/upload:"):
        st.file_uploader("Prediction files", type=["zip", "jsonl"], accept_multiple_files=True, key="compare_upload",
                         help="A .zip holds run folders (model.json, next_action.jsonl, mental_model.jsonl, "
                              "judge_scores.jsonl) or a dataset's predictions/ folder; a .jsonl named "
                              "<run>.mental_model.jsonl holds one task of one run. Each run is validated against "
                              "this dataset and refused whole if any line is wrong.")
        if st.button("Validate and add", key="compare_add", icon=":material/playlist_add:"):
            _add_uploads(corpus)
        if _uploads(corpus) and st.button("Remove uploaded runs", key="compare_clear_uploads"):
            _uploads(corpus).clear()


def refused(runs: list[Run]) -> None:
    bad = [r for r in runs if not r.ok]
    if not bad:
        return
    st.error(f"{len(bad)} run(s) refused: a run is compared only if every line of it is valid. "
             "Each problem is listed with its file, line and field.", icon=":material/error:")
    st.dataframe(issues_frame(bad), hide_index=True, width="stretch", key="compare_refused")


def picker(corpus: Corpus) -> list[Run]:
    """The dataset's runs and the uploaded ones; returns the valid runs the user keeps."""
    uploader(corpus)
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
    cols[0].metric("Runs", len(cmp.run_ids))
    cols[1].metric("Predictions", int(cov["predictions"].sum()))
    cols[2].metric("Scored", int(cov["scored"].sum()), help="Predictions with a human label to compare against")
    cols[3].metric("Unmatched", int(cov["unmatched"].sum()),
                   help="Predictions with no human label to compare against (listed below, never dropped in silence)")
    cols[4].metric("Missing", int(cov["missing"].sum()),
                   help="Benchmark instances of the runs' split(s) that a run did not predict")
    with st.expander("Per run: predictions, scored, unmatched and missing items"):
        shown = cov.assign(run=[run_label(cmp, r) for r in cov["run"]])
        st.dataframe(shown, hide_index=True, width="stretch", key="compare_coverage")
        for title, frame in (("Unmatched predictions", cmp.unmatched()), ("Missing instances", cmp.missing())):
            if len(frame):
                st.markdown(f"**{title}** ({len(frame)})")
                st.dataframe(pd.DataFrame(frame), hide_index=True, width="stretch")
    if cmp.similarity_missing:
        st.caption(f"SBERT similarity: undefined, because {cmp.similarity_missing}.")
