"""Ablation: one run against a baseline on the items both predicted: every score's difference
with its interval and the paired test."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.compare.comparison import Comparison
from analysis.compare.leaderboard import setting_rank
from analysis.format import fmt, fmt_interval, fmt_p
from components.compare.common import DIMENSIONS, figure_layout, plain, run_color, run_label
from corpus import schema
from corpus.values import is_defined

METRICS = {
    "accuracy": "accuracy",
    "macro_recall": "macro recall",
    "macro_f1": "macro F1",
    "kappa": "kappa",
    "rouge_l": "ROUGE-L",
    "similarity": "SBERT",
    "drawing": "drawing score",
}
WHAT = {**DIMENSIONS, "rationale": "Rationale", "message": "Message", "drawing": "Follower drawing"}


def _default_baseline(cmp: Comparison) -> str:
    return min(cmp.run_ids, key=lambda r: (setting_rank(cmp.infos[r].setting), cmp.run_ids.index(r)))


def _rows(table: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "score": [f"{WHAT.get(d, d)}: {METRICS.get(m, m)}" for m, d in zip(table["metric"], table["dimension"])],
            "baseline": [fmt(v, 2) for v in table["value_a"]],
            "this run": [fmt(v, 2) for v in table["value_b"]],
            "difference": [fmt(v, 3) for v in table["estimate"]],
            "95% CI": [fmt_interval(ci, 3) for ci in zip(table["ci_low"], table["ci_high"])],
            "p": [fmt_p(v) for v in table["p_value"]],
            "test": table["test"],
            "n": table["n"],
        }
    )


def forest(tables: dict[str, pd.DataFrame], cmp: Comparison) -> go.Figure:
    fig = go.Figure()
    for run, t in tables.items():
        ok = t[[is_defined(v) and is_defined(lo) for v, lo in zip(t["estimate"], t["ci_low"])]]
        labels = [f"{WHAT.get(d, d)}: {METRICS.get(m, m)}" for m, d in zip(ok["metric"], ok["dimension"])]
        est = ok["estimate"].astype(float)
        fig.add_trace(
            go.Scatter(
                x=est,
                y=labels,
                mode="markers",
                name=plain(run_label(cmp, run)),
                marker={"color": run_color(cmp, run), "size": 9},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": ok["ci_high"].astype(float) - est,
                    "arrayminus": est - ok["ci_low"].astype(float),
                },
                text=[fmt(v) for v in est],
                hovertemplate="%{y}<br>difference %{text}<extra></extra>",
            )
        )
    fig.add_vline(x=0, line={"color": "#888", "dash": "dot"})
    fig.update_layout(showlegend=True)
    fig.update_xaxes(title_text="difference from the baseline (95% CI)")
    fig.update_yaxes(autorange="reversed")
    figure_layout(fig, height=120 + 22 * max((len(t) for t in tables.values()), default=1))
    return fig


def render(cmp: Comparison) -> None:
    if len(cmp.run_ids) < 2:
        st.info("An ablation compares two or more runs on the same items: add another run.")
        return
    c1, c2 = st.columns([1, 2])
    base_default = _default_baseline(cmp)
    base = c1.selectbox(
        "Baseline",
        cmp.run_ids,
        index=cmp.run_ids.index(base_default),
        key="compare_abl_base",
        format_func=lambda r: run_label(cmp, r),
    )
    others = [r for r in cmp.run_ids if r != base]
    same_model = [r for r in others if cmp.infos[r].model_id == cmp.infos[base].model_id]
    chosen = c2.multiselect(
        "Against",
        others,
        default=same_model or others,
        key="compare_abl_runs",
        help="Runs by id (the run folder's name). By default the other settings of the baseline's model (model.json 'model', else "
        "its name); every other run when the baseline's model has no other setting.",
    )
    c3, c4 = st.columns(2)
    conditions = [c for c in schema.CONDITIONS if (cmp.truth["condition"].astype(str) == c).any()]
    cond = c3.selectbox("Condition", ["all", *conditions], key="compare_abl_cond")
    role = c4.selectbox("Role", ["all", *schema.ROLES], key="compare_abl_role")
    if not chosen:
        st.info("Choose a run to compare with the baseline.")
        return
    tables = {r: cmp.paired(base, r, cond, role).to_frame() for r in chosen}
    st.plotly_chart(forest(tables, cmp), key="compare_abl_forest", width="stretch")
    for run, t in tables.items():
        st.markdown("**Against the baseline:**")
        st.text(run_label(cmp, run))
        st.dataframe(_rows(t), hide_index=True, width="stretch")
    first = next(iter(tables.values()))
    st.caption(
        f"Items both runs predicted only. Accuracy: McNemar's exact test on the discordant items; other scores: "
        f"paired bootstrap. {first['interval_method'].iat[0] if len(first) else ''}."
    )
