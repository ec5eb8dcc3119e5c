"""Renderers for the Data page: dataset header, Table 1 / Table 8 equivalents, the session list
and the validation report of the last import."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import streamlit as st

from analysis.descriptive import table1, table8
from analysis.format import fmt, fmt_count
from components.dataset import show_report
from components.palette import CONDITION_NAMES, SPLIT_NAMES, group_label
from corpus import schema
from corpus.escape import md_line, md_text
from corpus.loading.dataset import Corpus
from services.datasets import ImportOutcome


def dataset_header(corpus: Corpus) -> None:
    st.caption(md_text(corpus.info.description))
    df = corpus.sessions_df
    cols = st.columns(5)
    cols[0].metric("Sessions", fmt_count(len(df)))
    cols[1].metric("Actions", fmt_count(int(df["n_actions"].sum())))
    present = [c for c in schema.CONDITIONS if (df["condition"] == c).any()]
    for i, cond in enumerate(present[:2], start=2):
        cols[i].metric(
            f"Sessions, {cond.replace('_', ' ')}",
            fmt_count(int((df["condition"] == cond).sum())),
            help=schema.CONDITION_DESCRIPTIONS[cond],
        )
    if len(present) > 2:
        cols[3].caption("Other conditions: " + ", ".join(c.replace("_", " ") for c in present[2:]))
    acc = df["final_accuracy"].dropna()
    cols[4].metric(
        "Mean final accuracy",
        fmt(float(acc.mean()), 2) if len(acc) else "undefined",
        help="Share of drawn cells on the route (the paper's task success)",
    )


def stats_tables(corpus: Corpus, stats: dict) -> None:
    t1, t8 = st.tabs(["Actions per session (Table 1)", "Mental-model labels (Table 8)"])
    with t1:
        st.caption("Mean (SD) over sessions, overall, per condition and per condition x split.")
        st.dataframe(table1(stats).rename(columns=group_label), width="stretch")
    with t8:
        st.caption("Each label's share (%) of a session's annotated actions, mean (SD) over sessions.")
        st.dataframe(table8(stats).rename(columns=group_label), width="stretch")
    st.download_button(
        "Download statistics (JSON)",
        json.dumps(stats, indent=2),
        file_name=f"{corpus.info.name}-stats.json",
        mime="application/json",
        icon=":material/download:",
    )


def replay_links(corpus: Corpus, link_params: dict[str, str]) -> list[str]:
    """Each session's Replay link, relative to the app (``replay?session=ID``, and the dataset when it
    is not the default one, so that the link opens the same data in a new tab)."""
    return [f"replay?{urlencode({'session': sid, **link_params})}" for sid in corpus.sessions_df["session_id"]]


def session_table(corpus: Corpus, links: list[str]) -> None:
    """The sessions, one row each; the first column opens the session in Replay."""
    st.subheader("Sessions")
    df = corpus.sessions_df[
        [
            "session_id",
            "condition",
            "split",
            "map_id",
            "duration_min",
            "n_actions",
            "n_message",
            "n_draw",
            "n_erase",
            "n_undo",
            "n_reset",
            "final_accuracy",
            "route_coverage",
            "distance_weighted",
        ]
    ]
    df.insert(0, "replay", links)
    df = df.assign(  # the names the app uses, not the stored ids ("not visible", not "not_visible")
        condition=df["condition"].map(lambda c: CONDITION_NAMES.get(str(c), str(c).replace("_", " "))),
        split=df["split"].map(lambda c: SPLIT_NAMES.get(str(c), str(c).replace("_", " "))),
    )
    st.dataframe(
        df,
        width="stretch",
        hide_index=True,
        column_config={
            "replay": st.column_config.LinkColumn(
                "Replay", display_text="Replay", width="small", help="Open the session in Replay"
            ),
            "session_id": "Session",
            "condition": st.column_config.TextColumn("Condition"),
            "split": "Split",
            "map_id": "Map",
            "duration_min": st.column_config.NumberColumn("Duration (min)", format="%.1f"),
            "n_actions": "Actions",
            "n_message": "Messages",
            "n_draw": "Draw",
            "n_erase": "Erase",
            "n_undo": "Undo",
            "n_reset": "Reset",
            "final_accuracy": st.column_config.NumberColumn(
                "Final accuracy", format="%.2f", help="Share of drawn cells on the route"
            ),
            "route_coverage": st.column_config.NumberColumn(
                "Route coverage", format="%.2f", help="Share of route cells drawn"
            ),
            "distance_weighted": st.column_config.NumberColumn(
                "Distance-weighted", format="%.2f", help="Chebyshev distance-weighted drawing score (Sec. 4.2)"
            ),
        },
        key="sessions_table",
    )
    no_route = int(df["final_accuracy"].isna().sum())
    if no_route:
        st.caption(
            f"{no_route} of {len(df)} sessions have a map without a route: their final accuracy, route "
            "coverage and distance-weighted score are undefined (shown as None). The Map editor gives "
            "such sessions a map with its route."
        )


def import_report(corpus: Corpus, last: ImportOutcome | None) -> None:
    """The validation report of this session's last upload or opening, and the dataset's warnings."""
    if last:
        report, name = last.report, md_text(last.name)
        with st.expander(f"Validation report: {name}", expanded=not last.imported, icon=":material/fact_check:"):
            if last.imported:
                st.success(f"Imported {name}: {len(report.warnings)} warning(s), no errors.")
            else:
                st.error(f"Nothing was imported from {name}: {len(report.errors)} error(s). Fix them and try again.")
            if last.note:
                st.caption(f":material/search: {md_line(last.note)}")
            show_report(report)
    if corpus.warnings:
        with st.expander(f"{len(corpus.warnings)} warning(s) in this dataset", icon=":material/warning:"):
            show_report(corpus.warnings)
