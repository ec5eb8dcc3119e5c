"""Alignment: grounded mental models over task progress by condition (Fig. 4 right), the model that
tests it, and dyadic alignment (do Guide and Follower report the same team goal?)."""

import streamlit as st

from components.alignment_charts import dyad_figure, dyad_summary, model_table, progress_figure
from components.analysis_filters import (
    figure_first,
    filter_bar,
    folded_filters,
    progress_bin,
    progress_picker,
    scope_caption,
)
from components.chart import show_chart
from components.dataset import require_corpus, synthetic_banner
from components.drilldown import first_point, show_actions
from components.palette import CONDITION_NAMES
from services import alignment as svc
from services.alignment import MEASURES, METHODS, PROGRESS_KINDS, default_progress

corpus = require_corpus()
st.title("Alignment over task progress")
synthetic_banner(corpus)
with folded_filters(figure_first()):
    scope = filter_bar(corpus, acts=False)
    progress, bins = progress_picker(corpus, default_progress(corpus))
    measures = st.multiselect(
        "Measures", list(MEASURES), default=list(MEASURES), format_func=MEASURES.get, key="align_measures"
    )
progress_name = PROGRESS_KINDS[progress]

st.subheader("Share of grounded labels over progress")
if not measures:
    st.warning("Choose at least one measure.")
else:
    curves = svc.progress_curves(scope, progress, bins)
    curves = curves[curves["measure"].isin(measures)]
    if curves.empty:
        st.info("No labelled action in the selection has these measures.")
    else:
        clicked = first_point(
            show_chart(
                progress_figure(curves, measures, progress),
                curves,
                "alignment_over_progress",
                key="align_progress",
                columns=2,
            )
        )
        scope_caption(
            scope,
            note=(
                f"Progress: {progress_name}, in {bins} equal bins. Each point: share of labelled actions whose label is the grounded "
                "one (t3, p1, r1, aligned yes); the number beside it is n, the band a Wilson 95% interval (actions taken as "
                "independent; the model below accounts for sessions)."
            ),
        )
        if clicked:
            measure, cond, b = clicked[0], clicked[1], int(clicked[2])
            show_actions(
                svc.curve_actions(scope, progress, bins, measure, cond, b),
                f"{MEASURES[measure]}, {CONDITION_NAMES[cond]}, {progress_bin(progress_name, b, bins)}",
                "align_progress_rows",
            )

    st.subheader("Does alignment rise with progress, and more when the Guide sees the canvas?")
    c = st.columns([2, 3, 1.3])
    measure = c[0].selectbox("Outcome", measures, format_func=MEASURES.get, key="align_model_measure")
    method = (
        c[1].segmented_control(
            "Estimator", list(METHODS), default="glm", format_func=METHODS.get, key="align_model_method"
        )
        or "glm"
    )
    small = {"auto (< 40 sessions)": None, "on": True, "off": False}[
        c[2].selectbox("Small-sample correction", ["auto (< 40 sessions)", "on", "off"], key="align_model_small")
    ]
    model_table(svc.fit_model(scope, measure, progress, method, small), progress_name, key="align_model")
    scope_caption(scope)

st.subheader("Dyadic alignment: do Guide and Follower report the same team goal?")
curves, overall, dyad_test = svc.dyad_alignment(scope, progress, bins)
if curves.empty:
    st.info("No moment in the selection where both participants had annotated their team goal.")
else:
    clicked = first_point(show_chart(dyad_figure(curves, progress), curves, "dyadic_alignment", key="align_dyads"))
    summary = dyad_summary(overall, dyad_test)
    scope_caption(
        scope,
        roles=False,
        note=(
            "At each action, each participant's team goal is their latest annotation so far; a moment counts once both have "
            f"annotated. Share of moments where the two codes are the same, by {progress_name} ({bins} bins), n beside each point, "
            f"95% bands from a bootstrap over sessions (a session's moments carry its annotations forward, so they are "
            f"not independent). Over the whole session: {summary}."
        ),
    )
    if clicked:
        cond, b = clicked[1], int(clicked[2])
        show_actions(
            svc.dyad_actions(scope, progress, bins, cond, b),
            f"dyadic team goal, {CONDITION_NAMES[cond]}, {progress_bin(progress_name, b, bins)}",
            "align_dyad_rows",
        )
