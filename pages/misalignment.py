"""Why not aligned: the reasons given with "not on the same page", by condition and over progress,
the grounding acts before such reports, and the checkpoint answers beside the action-level labels."""

import streamlit as st

from components.act_charts import act_name
from components.analysis_filters import filter_bar, progress_bin, progress_picker, scope_caption
from components.chart import HOLLOW_BARS, show_chart
from components.dataset import require_corpus, synthetic_banner
from components.drilldown import first_point, show_actions
from components.palette import CONDITION_NAMES
from components.reason_charts import (
    REASON_SHORT,
    acts_before_figure,
    acts_before_sentence,
    checkpoint_table,
    reason_curve_figure,
    reason_share_figure,
    reason_tests_sentence,
)
from services import alignment as svc
from services.alignment import PROGRESS_KINDS, default_progress

corpus = require_corpus()
st.title("Why not aligned")
synthetic_banner(corpus)
scope = filter_bar(corpus)
progress, bins = progress_picker(corpus, default_progress(corpus))
progress_name = PROGRESS_KINDS[progress]
shares, curves, tests = svc.misalignment_reasons(scope, progress, bins)

st.subheader('Reasons given with "not on the same page"')
if shares.empty:
    st.info("No action in the selection was reported as not aligned (a model run does not predict alignment).")
else:
    clicked = first_point(show_chart(reason_share_figure(shares), shares, "misalignment_reasons", key="why_reasons"))
    scope_caption(
        scope,
        note="Share of the not-aligned actions citing each reason (several may be cited), k above the bar, "
        f"n in the legend, Wilson 95% intervals; {HOLLOW_BARS}. {reason_tests_sentence(tests)}",
    )
    if clicked:
        cond, reason = clicked[0], clicked[1]
        show_actions(
            svc.reason_actions(scope, cond, reason),
            f"{REASON_SHORT[reason]}, {CONDITION_NAMES[cond]}",
            "why_reason_rows",
        )

    st.subheader("Reasons over progress")
    clicked = first_point(
        show_chart(
            reason_curve_figure(curves, progress),
            curves,
            "misalignment_reasons_over_progress",
            key="why_curves",
            columns=2,
        )
    )
    scope_caption(
        scope,
        note=f"Progress: {progress_name}, {bins} bins. Each point: share of the bin's not-aligned actions citing "
        "the reason; the number beside it is n (not-aligned actions in the bin).",
    )
    if clicked:
        reason, cond, b = clicked[0], clicked[1], int(clicked[2])
        show_actions(
            svc.reason_actions(scope, cond, reason, progress, bins, b),
            f"{REASON_SHORT[reason]}, {CONDITION_NAMES[cond]}, {progress_bin(progress_name, b, bins)}",
            "why_curve_rows",
        )

st.subheader("Which grounding act came before")
window = st.slider(
    "Look back (actions)",
    1,
    10,
    3,
    key="why_window",
    help="The act before a report is the latest coded act among this many actions before it (either participant's).",
)
before = svc.acts_before(scope, window)
if before is None or before.empty:
    st.info("No annotated action in the selection has a coded grounding act before it within the look-back.")
else:
    clicked = first_point(
        show_chart(acts_before_figure(before), before, "acts_before_alignment_reports", key="why_before")
    )
    scope_caption(
        scope,
        uses_acts=True,
        note=(
            f"For every annotated action, the latest coded act among the {window} actions before it; bars: share of the "
            "'not aligned' (or 'aligned') reports with a coded act before them that had this act, k above the bar. "
            + acts_before_sentence(svc.acts_before_test(before)[0])
        ),
    )
    if clicked:
        group, act = clicked[0], clicked[1]
        show_actions(
            svc.acts_before_actions(scope, window, group, act),
            f"'{group}' reports after {act_name(act)}",
            "why_before_rows",
        )

st.subheader("Checkpoint answers beside the action-level labels")
checkpoint_table(svc.checkpoints(scope), key="why_checkpoints")
scope_caption(
    scope,
    note="Each in-session checkpoint answer (free text, as given) beside the same participant's action-level "
    "labels at that moment: their latest annotation at or before the checkpoint's action.",
)
