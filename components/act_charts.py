"""Grounding acts by condition (the paper's Fig. 3, with its test) and perceived alignment within
each act (Fig. 4 left)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.contingency import IndependenceTest
from analysis.format import fmt, fmt_ci, fmt_count, fmt_p, fmt_share, fmt_test, p_clause
from components.chart import WILSON_BARS, bar_with_interval, figure, interval_key
from components.palette import CONDITION, CONDITION_NAMES, PATTERN
from corpus import schema
from corpus.values import Undefined

SIGNIFICANT = 1.96


TREATMENTS = {design[1] for design in schema.DESIGNS}  # whose residuals are printed over the bars


def _order(codes) -> list[str]:
    present = set(codes)
    return [c for c in schema.GROUNDING_ACTS if c in present] + sorted(present - set(schema.GROUNDING_ACTS))


ACT_SHORT = {"request_repair": "Req. repair", "request_ack": "Req. ack.", "other": "Other (none)"}


def act_name(code: str) -> str:
    """A grounding act's name short enough for an axis (the paper's Fig. 3 abbreviations)."""
    return ACT_SHORT.get(code) or schema.GROUNDING_ACTS.get(code, code)


def act_share_figure(shares: pd.DataFrame, test: IndependenceTest | Undefined) -> go.Figure:
    """Share of each act per condition, n on each bar; above each act the adjusted standardized
    residual of the visible condition (the not-visible one is its negative), bold beyond 1.96."""
    order = _order(shares["code"])
    x = [act_name(c) for c in order]
    traces = []
    for cond in schema.CONDITIONS:
        d = shares[shares["condition"] == cond].set_index("code").reindex(order)
        if d["n"].isna().all():
            continue
        n = d["n"].fillna(0).astype(int).tolist()
        total = int(d["total"].dropna().iloc[0])
        traces.append(
            {
                "type": "bar",
                "x": x,
                "y": d["share"].fillna(0).tolist(),
                "name": f"{CONDITION_NAMES[cond]} (n = {total})",
                "marker": {"color": CONDITION[cond], "pattern": {"shape": PATTERN[cond]}},
                "text": [str(v) for v in n],
                "textposition": "outside",
                "textfont": {"size": 11},
                "customdata": [[cond, c, v, total, fmt_share(y, 1)] for c, v, y in zip(order, n, d["share"].fillna(0))],
                "hovertemplate": "%{x}: %{customdata[4]} of coded actions<br>n = %{customdata[2]} of %{customdata[3]}<br>click: list the actions<extra>"
                + CONDITION_NAMES[cond]
                + "</extra>",
            }
        )
    notes = []
    treatment = (
        next((c for c in test.residuals.index if c in TREATMENTS), None) if not isinstance(test, Undefined) else None
    )
    if treatment is not None:
        for code, name in zip(order, x):
            if code in test.residuals.columns:
                r = float(test.residuals.loc[treatment, code])
                notes.append(
                    {
                        "x": name,
                        "y": 1.0,
                        "xref": "x",
                        "yref": "paper",
                        "yanchor": "bottom",
                        "showarrow": False,
                        "text": f"<b>{fmt(r, 1, signed=True)}</b>" if abs(r) >= SIGNIFICANT else fmt(r, 1, signed=True),
                        "font": {"size": 12},
                    }
                )
    layout = {
        "barmode": "group",
        "scattermode": "group",
        "margin": {"l": 10, "r": 10, "t": 50, "b": 10},
        "annotations": notes,
        "yaxis": {"title": {"text": "share of coded actions (%)"}, "tickformat": ".0%", "rangemode": "tozero"},
        "xaxis": {"title": {"text": "grounding act"}},
    }
    return figure(traces, layout, height=420)


def test_summary(test: IndependenceTest | Undefined) -> None:
    """The test of independence in words and numbers, with its warnings."""
    if isinstance(test, Undefined):
        st.info(f"Test of independence: {test}.")
        return
    c = st.columns(3)
    chi2, v = test.chi2, test.cramers_v
    c[0].metric("Chi-square", fmt(chi2.estimate, 1), help=f"{fmt_test(chi2)}; {chi2.method}")
    c[0].caption(f"df = {fmt(chi2.dof)}, {p_clause(chi2.p_value)} (actions as independent)")
    vc = test.cramers_v_corrected
    c[1].metric("Cramér's V", fmt(v.estimate, 2), help=f"{v.method}; 95% interval: {v.interval_method}")
    c[1].caption(
        f"{fmt_ci(v)} (session bootstrap); bias-corrected {fmt(vc.estimate, 2)}, {fmt_ci(vc)}: "
        "plain V is biased upwards with many cells"
    )
    c[2].metric(
        "Permutation p",
        fmt_p(test.permutation_p),
        help=f"Condition labels shuffled across sessions {fmt_count(test.n_permutations)} times (seed 0)",
    )
    c[2].caption(f"{test.n_sessions} sessions, condition labels shuffled {fmt_count(test.n_permutations)} times")
    st.caption(
        f"Pearson's chi-square test of independence of condition and act on {chi2.n} coded actions in "
        f"{test.n_sessions} sessions ({chi2.provenance()}). Numbers above the acts: adjusted standardized residuals of "
        "visible (positive: more frequent when the Guide saw the canvas than independence predicts; bold beyond +-1.96, "
        "i.e. that act clearly differs; not visible has the same residual with the opposite sign). "
        f"Cramér's V: {v.method}; its interval: {v.interval_method}."
    )
    for w in test.warnings[1:]:
        st.warning(w)


def alignment_by_act_figure(by_act: pd.DataFrame) -> go.Figure:
    """Perceived partner-intent alignment within each act, per condition, with Wilson intervals and n."""
    order = _order(by_act["code"])
    traces = []
    for cond in schema.CONDITIONS:
        d = by_act[by_act["condition"] == cond].set_index("code").reindex(order)
        if d["n"].isna().all():
            continue
        traces += bar_with_interval(
            [act_name(c) for c in order],
            d.rename(columns={"share_aligned": "share"}),
            CONDITION_NAMES[cond],
            CONDITION[cond],
            PATTERN[cond],
            [
                [cond, c, 0 if pd.isna(v) else int(v), fmt_share(y)]
                for c, v, y in zip(order, d["n"], d["share_aligned"])
            ],
            d["n"],
            "%{x}: %{customdata[3]} judged the partner on the same page (p1)<br>n = %{customdata[2]}<br>click: list the actions<extra>"
            + CONDITION_NAMES[cond]
            + "</extra>",
            cond,
        )
    traces.append(interval_key(WILSON_BARS))
    layout = {
        "barmode": "group",
        "scattermode": "group",
        "yaxis": {"title": {"text": "partner understood, p1 (% of actions)"}, "tickformat": ".0%", "range": [0, 1.05]},
        "xaxis": {"title": {"text": "grounding act"}},
    }
    return figure(traces, layout, height=420)
