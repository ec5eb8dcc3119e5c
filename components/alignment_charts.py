"""Alignment over task progress (the paper's Fig. 4 right), dyadic alignment, and the model table.

Every point carries its n (printed beside it and in the hover) and its 95% interval (a band);
each point's ``customdata`` starts with what identifies it, so a click can list the actions
behind it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.alignment import MEASURES
from analysis.format import fmt, fmt_count, fmt_p, fmt_range, fmt_share, fmt_share_ci, fmt_test, p_clause
from analysis.progress import AXIS_TITLES
from analysis.progress_model import METHODS, ProgressModel, summary_sentence
from analysis.results import Test
from components.chart import WILSON_BANDS, axis_suffix, figure, interval_key, on_panel, panels
from components.download import csv_button
from components.palette import CONDITION, CONDITION_DASH, CONDITION_NAMES, CONDITION_SYMBOLS, rgba
from corpus import schema
from corpus.values import Undefined

TREATMENTS = {design[1] for design in schema.DESIGNS}


def label_sides(d: pd.DataFrame, cond: str, other: pd.DataFrame | None = None) -> list[str]:
    """Where each point's n goes, in ``d``'s order: on the side away from the other condition's point
    in the same bin (above the higher of the two, below the lower), so the two numbers never print
    over each other; a design's treatment (visible) above and its reference below where the two tie or
    the other has no point there."""
    theirs = dict(zip(other["bin"], other["share"])) if other is not None else {}
    sides = []
    for b, y in zip(d["bin"], d["share"]):
        o = theirs.get(b)
        above = cond in TREATMENTS if o is None or pd.isna(o) or pd.isna(y) or y == o else y > o
        sides.append("top center" if above else "bottom center")
    return sides


def _share_with_ci(share: float, lo: float, hi: float) -> str:
    """ "27% (95% CI 12% to 34%)", or the share alone without an interval."""
    ci = fmt_share_ci(lo, hi)
    return f"{fmt_share(share)} ({ci})" if ci else fmt_share(share)


def curve_traces(
    d: pd.DataFrame, cond: str, ids: list, legend: bool = True, what: str = "share", other: pd.DataFrame | None = None
) -> list[dict]:
    """One condition's line with its Wilson band and n beside each point (away from ``other``, the
    other condition's points: see :func:`label_sides`). ``d`` has progress, share, n, ci_low,
    ci_high, bin; each point's customdata is ``[*ids, condition, bin, n, ci_low, ci_high]``, then the
    progress and the share with its interval as printed (for the hover)."""
    d = d.sort_values("progress")
    sides = label_sides(d, cond, other)
    color = CONDITION[cond]
    x = d["progress"].tolist()
    band = {
        "type": "scatter",
        "x": x + x[::-1],
        "y": d["ci_high"].tolist() + d["ci_low"].tolist()[::-1],
        "mode": "lines",
        "fill": "toself",
        "fillcolor": rgba(color, 0.15),
        "line": {"width": 0},
        "hoverinfo": "skip",
        "showlegend": False,
        "legendgroup": cond,
    }
    k = len(ids)
    line = {
        "type": "scatter",
        "x": x,
        "y": d["share"].tolist(),
        "mode": "lines+markers+text",
        "name": CONDITION_NAMES[cond],
        "line": {"color": color, "width": 2, "dash": CONDITION_DASH[cond]},
        "marker": {"symbol": CONDITION_SYMBOLS[cond], "size": 8, "color": color},
        "text": [str(int(n)) for n in d["n"]],
        "textposition": sides,
        "textfont": {"size": 10, "color": color},
        "legendgroup": cond,
        "showlegend": legend,
        "customdata": [
            [*ids, cond, int(b), int(n), float(lo), float(hi), fmt_share(p), _share_with_ci(y, lo, hi)]
            for b, n, lo, hi, p, y in zip(d["bin"], d["n"], d["ci_low"], d["ci_high"], x, d["share"])
        ],
        "hovertemplate": (
            f"%{{customdata[{k + 5}]}}<br>{what} %{{customdata[{k + 6}]}}"
            f"<br>n = %{{customdata[{k + 2}]}}<br>click: list the actions<extra>{CONDITION_NAMES[cond]}</extra>"
        ),
    }
    return [band, line]


def curve_panels(
    curves: pd.DataFrame,
    panel_col: str,
    panel_keys: list[str],
    titles: list[str],
    progress: str,
    y_title: str,
    what: str = "share",
    height: int = 400,
    bands: str = WILSON_BANDS,
) -> go.Figure:
    """One panel per key of ``panel_col``: a line per condition against progress (shared y axis);
    ``bands`` says in the legend what the bands are."""
    traces = []
    for i, key in enumerate(panel_keys, start=1):
        d = curves[curves[panel_col] == key]
        for cond in schema.CONDITIONS:
            c, other = d[d["condition"] == cond], d[d["condition"] != cond]
            if not c.empty:
                traces += [on_panel(t, i) for t in curve_traces(c, cond, [key], legend=i == 1, what=what, other=other)]
    traces.append(interval_key(bands, band=True))
    layout = panels(len(panel_keys), titles if len(panel_keys) > 1 else None)
    for i in range(1, len(panel_keys) + 1):
        layout[f"xaxis{axis_suffix(i)}"].update(
            tickformat=".0%",
            range=[-0.02, 1.02],
            title={"text": AXIS_TITLES[progress] if i == (len(panel_keys) + 1) // 2 else ""},
        )
    layout["yaxis"].update(title={"text": y_title}, tickformat=".0%", range=[-0.02, 1.08])
    return figure(traces, layout, height=height)


def progress_figure(curves: pd.DataFrame, measures: list[str], progress: str) -> go.Figure:
    """One panel per measure: share grounded against progress, a line per condition with its 95% CI."""
    return curve_panels(
        curves, "measure", measures, [MEASURES[m] for m in measures], progress, "share of labelled actions (%)"
    )


def dyad_figure(curves: pd.DataFrame, progress: str) -> go.Figure:
    return curve_panels(
        curves.assign(panel="dyad"),
        "panel",
        ["dyad"],
        [],
        progress,
        "moments with the same team goal (%)",
        what="same team goal",
        height=380,
        bands=SESSION_BANDS,
    )


# -- the model ---------------------------------------------------------------------------------


SESSION_BANDS = "bands: 95% bootstrap over sessions; number: n moments"


def dyad_summary(overall: pd.DataFrame, test: Test | Undefined) -> str:
    """Dyadic alignment over whole sessions, per condition, and the test of the difference (by
    session), as one sentence's parts."""
    shares = "; ".join(
        f"{CONDITION_NAMES[r.condition]}: {fmt_share(r.share)} of {fmt_count(r.n)} moments in {r.sessions} sessions "
        f"({fmt_share_ci(r.ci_low, r.ci_high)} by session bootstrap)"
        for r in overall.itertuples()
    )
    if isinstance(test, Undefined):
        return f"{shares}. No test of the difference: {test}"
    return (
        f"{shares}. Sessions' own shares differ by {fmt(100 * float(test.estimate), 1)} percentage points on average "
        f"({test.statistic}; Welch's t-test by session, {fmt_test(test)}, "
        f"{p_clause(test.p_value)}, n = {test.n} sessions)" + "".join(f"; {w}" for w in test.warnings)
    )


def _effect_row(e: Test, log_odds: bool = True) -> dict:
    odds = f"{fmt(np.exp(e.estimate), 2)} ({fmt_range(tuple(np.exp(e.interval)), 2)})" if log_odds else ""
    return {
        "quantity": e.statistic,
        "log-odds (95% CI)": f"{fmt(e.estimate, 2, signed=True)} ({fmt_range(e.interval, 2, missing='undefined')})"
        if log_odds
        else "",
        "odds ratio (95% CI)": odds,
        "test": fmt_test(e),
        "p": p_clause(e.p_value),
        "note": "; ".join(e.warnings),
    }


def model_rows(fit: ProgressModel) -> pd.DataFrame:
    return pd.DataFrame([*(_effect_row(e) for e in fit.effects), _effect_row(fit.joint, log_odds=False)])


def coefficient_rows(fit: ProgressModel) -> pd.DataFrame:
    """The fitted coefficients as shown: p-values as text ("< 0.001", never 0.000)."""
    return fit.coefficients.assign(p=[fmt_p(p) for p in fit.coefficients["p"]])


def model_table(fit: ProgressModel | Undefined, progress_name: str, key: str) -> None:
    """The effects a reader means (per-condition slopes, condition differences, interaction, joint
    test), the plain sentence, and the raw coefficients in an expander."""
    if isinstance(fit, Undefined):
        st.info(f"Model: {fit}.")
        return
    if fit.few_clusters and not st.toggle(
        "Show the model anyway", key=f"{key}_few", help="Its intervals and tests rest on too few sessions."
    ):
        st.warning(f"Model: {fit.few_clusters}.", icon=":material/warning:")
        return
    if fit.few_clusters:
        st.warning(f"Model: {fit.few_clusters}; shown on request.", icon=":material/warning:")
    st.dataframe(
        model_rows(fit),
        hide_index=True,
        width="stretch",
        key=f"{key}_table",
        column_config={
            "quantity": st.column_config.TextColumn(width="large"),
            "note": st.column_config.TextColumn(width="medium"),
        },
    )
    st.markdown(summary_sentence(fit, progress_name))
    st.caption(
        f"{METHODS[fit.method]} on {fmt_count(fit.n)} labelled actions in {fit.n_sessions} sessions: {fit.inference}. "
        f"Slopes are the change in log-odds from 0 % to 100 % {progress_name}. Computed by {fit.package}."
    )
    for w in fit.warnings:
        st.warning(f"Fitting warned: {w}")
    with st.expander("Coefficients as fitted (reference condition: not visible)"):
        st.dataframe(
            coefficient_rows(fit),
            hide_index=True,
            width="stretch",
            key=f"{key}_coefs",
            column_config={
                c: st.column_config.NumberColumn(format="%.3f") for c in ["coef", "se", "stat", "ci_low", "ci_high"]
            },
        )
        st.caption(
            "With the interaction in the model, 'progress' is the slope in not visible only and 'visible' the difference "
            "at progress 0 only; the table above gives the slope in each condition and the difference at each moment."
        )
    csv_button("Model table (CSV)", fit.table, f"progress_model_{fit.measure}_{fit.method}.csv", key=f"{key}_csv")
