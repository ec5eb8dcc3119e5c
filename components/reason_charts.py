"""Why not aligned: reasons by condition and over progress, the acts before a report, and the
checkpoint answers beside the action-level labels."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.drilldown import replay_link
from analysis.format import fmt, fmt_count, fmt_share, fmt_test, p_clause
from analysis.results import ChiSquare
from components.act_charts import act_name
from components.alignment_charts import curve_panels
from components.chart import WILSON_BARS_K, bar_with_interval, figure, interval_key
from components.download import csv_button
from components.palette import ALIGNMENT, CONDITION, CONDITION_NAMES, CONDITION_SHORT, PATTERN
from corpus import schema

REASON_SHORT = {
    "n1": "n1 task goal",
    "n2": "n2 current state",
    "n3": "n3 missing info",
    "n4": "n4 unclear talk",
    "n5": "n5 interface",
}


def reason_share_figure(shares: pd.DataFrame) -> go.Figure:
    """Share of not-aligned actions citing each reason, per condition (k above the bar, n in the legend)."""
    reasons = list(schema.MISALIGNMENT_REASON)
    traces = []
    for cond in schema.CONDITIONS:
        d = shares[shares["condition"] == cond].set_index("reason").reindex(reasons)
        if d["n"].isna().all():
            continue
        n = int(d["n"].dropna().iloc[0])
        traces += bar_with_interval(
            [REASON_SHORT[r] for r in reasons],
            d,
            f"{CONDITION_NAMES[cond]} (n = {n} not aligned)",
            CONDITION[cond],
            PATTERN[cond],
            [[cond, r, int(k), n, fmt_share(y)] for r, k, y in zip(reasons, d["k"].fillna(0), d["share"])],
            d["k"],
            "%{x}: %{customdata[4]} of not-aligned actions<br>k = %{customdata[2]} of n = %{customdata[3]}<br>click: list the actions<extra>"
            + CONDITION_NAMES[cond]
            + "</extra>",
            cond,
            base=d["n"],
        )
    traces.append(interval_key(WILSON_BARS_K))
    layout = {
        "barmode": "group",
        "scattermode": "group",
        "yaxis": {"title": {"text": "not-aligned actions citing it (%)"}, "tickformat": ".0%", "rangemode": "tozero"},
        "xaxis": {"title": {"text": "reason for not being on the same page"}},
    }
    return figure(traces, layout, height=400)


def reason_curve_figure(curves: pd.DataFrame, progress: str) -> go.Figure:
    """One panel per reason: its share of the not-aligned actions over progress, per condition."""
    reasons = list(schema.MISALIGNMENT_REASON)
    return curve_panels(
        curves,
        "reason",
        reasons,
        [REASON_SHORT[r] for r in reasons],
        progress,
        "not-aligned actions citing it (%)",
        what="cites it",
        height=380,
    )


def acts_before_figure(before: pd.DataFrame) -> go.Figure:
    """Which act came before actions reported not aligned, against those reported aligned."""
    acts = [a for a in schema.GROUNDING_ACTS if a in set(before["act"])]
    traces = []
    for group in ("not aligned", "aligned"):
        d = before[before["group"] == group].set_index("act").reindex(acts)
        if d["n"].isna().all():
            continue
        n = int(d["n"].dropna().iloc[0])
        traces += bar_with_interval(
            [act_name(a) for a in acts],
            d.fillna({"share": 0}),
            f"before '{group}' reports (n = {n})",
            ALIGNMENT[group],
            PATTERN[group],
            [[group, a, int(k), n, fmt_share(y)] for a, k, y in zip(acts, d["k"].fillna(0), d["share"].fillna(0))],
            d["k"],
            "%{x}: %{customdata[4]} of the reports with a coded act before them<br>k = %{customdata[2]} of n = %{customdata[3]}"
            "<br>click: list the actions<extra>" + group + "</extra>",
            group,
            base=d["n"],
        )
    traces.append(interval_key(WILSON_BARS_K))
    layout = {
        "barmode": "group",
        "scattermode": "group",
        "yaxis": {"title": {"text": "reports preceded by the act (%)"}, "tickformat": ".0%", "rangemode": "tozero"},
        "xaxis": {"title": {"text": "grounding act before the report"}},
    }
    return figure(traces, layout, height=400)


CHECKPOINT_ROWS = 2000  # rows shown in the checkpoint table (its CSV holds all)


def checkpoint_table(table: pd.DataFrame, key: str) -> None:
    """Checkpoint answers (free text) beside the participant's labels at that moment, as text: the
    first :data:`CHECKPOINT_ROWS` in session order (a million actions hold some 50,000 checkpoints,
    every answer and label sent to the browser on every run), the CSV all of them."""
    if table.empty:
        st.info("No checkpoint answers in the selection.")
        return
    shown = table.head(CHECKPOINT_ROWS)
    shown = shown.assign(replay=[replay_link(s, t) for s, t in zip(shown["session_id"], shown["step"])])
    if "condition" in shown:  # as every screen names the conditions (the CSV keeps the ids)
        shown["condition"] = [CONDITION_SHORT.get(str(c), str(c)) for c in shown["condition"]]
    shown = shown[["replay", *[c for c in table.columns]]]
    st.dataframe(
        shown,
        hide_index=True,
        width="stretch",
        key=key,
        height=420,
        column_config={
            "replay": st.column_config.LinkColumn("Replay", display_text="open", width="small"),
            "drawing_progress": st.column_config.NumberColumn("checkpoint at", format="percent"),
            **{
                c: st.column_config.TextColumn(c.replace("_", " "), width="medium")
                for c in table.columns
                if c.startswith(("answer_", "label_"))
            },
        },
    )
    if len(table) > CHECKPOINT_ROWS:
        st.caption(
            f"The first {fmt_count(CHECKPOINT_ROWS)} of {fmt_count(len(table))} checkpoints in session order are "
            "listed; the CSV holds all."
        )
    csv_button("Checkpoints and labels (CSV)", lambda: table, "checkpoints_beside_labels.csv", key=f"{key}_csv")


def reason_tests_sentence(tests: pd.DataFrame) -> str:
    """The test behind each pair of bars, one clause per reason."""
    if tests.empty:
        return "No test: a condition has no not-aligned action."
    parts = [
        f"{REASON_SHORT[r.reason]}: {r.k_treatment}/{r.n_treatment} vs {r.k_reference}/{r.n_reference}, "
        f"odds ratio {fmt(r.odds_ratio, 2)}, {p_clause(r.p_holm)}"
        for r in tests.itertuples()
    ]
    return (
        "By condition (visible vs not visible), per reason, Fisher's exact test, p Holm-adjusted over the "
        f"{len(tests)} reasons: " + "; ".join(parts) + "."
    )


def acts_before_sentence(chi2: ChiSquare) -> str:
    """The test of independence of the report and the act before it."""
    if not chi2.defined:
        return f"No test of the report against the act before it: {chi2.estimate}."
    return (
        f"Report vs the act before it: {fmt_test(chi2)}, {p_clause(chi2.p_value)}, n = {chi2.n} {chi2.n_of} "
        "(Pearson's chi-square test of independence; reports of one session are not independent, so p is optimistic)."
    )
