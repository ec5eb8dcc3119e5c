"""Kitchen: runs of two agents cooking (Collab-Overcooked), their requests audited with TGCO and
their coordination metrics per directed pairing (each agent's scaffold and model), scaffold and
level ("Beyond Task Success"), the paper's Table 4, and an uploaded reference audit (the authors'
own) set against this one."""

import streamlit as st

from components.auth import signed_in_user
from components.chart import show_chart
from components.dataset import require_kitchen, synthetic_banner
from components.drilldown import first_point
from components.kitchen import (
    composition_figure,
    overview,
    reference_upload,
    replay_controls,
    scaffold_filter,
    show_metrics,
    show_reference,
    show_table4,
    units_table,
    unstructured_view,
)
from components.tile_player import tile_player
from services import kitchen as svc

ROWS = {"pairing": "Pairing", "models": "Models", "scaffold": "Scaffold", "level": "Level"}

kitchen = require_kitchen("Kitchen")
synthetic_banner(kitchen)
st.caption(
    "Two agents cooking together: every request one sends the other (a Collab(...) message, a request(...) in a "
    "plan, or plain language), audited against what the environment recorded (TGCO: Effective, Assisted, "
    "Redundant, Ineffective), and the coordination metrics of each run, averaged per directed pairing: each "
    "agent's scaffold with its model, Chef -> Assistant."
)
c1, c2 = st.columns([3, 2])
window = (
    c1.segmented_control(
        "Acceptance window",
        list(svc.WINDOWS),
        default="level",
        key="kitchen_window",
        format_func={"level": "level-normalized (0.15 x episode length)", "fixed": "fixed, 20 steps"}.get,
        help="How long after a request the partner may carry it out (the paper's Table 5 compares the two).",
    )
    or "level"
)
by = c2.segmented_control("Rows", list(ROWS), default="pairing", key="kitchen_by", format_func=ROWS.get) or "pairing"
scaffolds = scaffold_filter(svc.scaffold_choices(kitchen))
metrics = svc.metrics(kitchen, window, scaffolds)
if not metrics:
    st.info("No run has an agent with the scaffolds chosen.")
    st.stop()
overview(kitchen, metrics)

st.subheader(f"Coordination metrics per {ROWS[by].lower()}")
show_metrics(svc.metric_table(kitchen, window, (by,), scaffolds), (by,), key="kitchen_metrics")

st.subheader("Success and ADR under each scaffold, by task level")
show_table4(svc.table4(kitchen, window, scaffolds), key="kitchen_table4")

st.subheader("What became of the requests, by task level")
comp = svc.composition(kitchen, window, scaffolds)
clicked = first_point(show_chart(composition_figure(comp), comp, "tgco_outcome_composition", key="kitchen_comp"))
st.caption(
    "Share of the request units of each outcome, units pooled over the level's runs (the count in each bar). "
    "Unstructured messages are set apart, as the audit's decision rule does. Click a bar to list its units."
)
if clicked:
    level, outcome = clicked[0], clicked[1]
    st.markdown(f"**{outcome} request units, level {level}**")
    units_table(svc.units(kitchen, window, level, outcome, scaffolds), key="kitchen_units")
with st.expander("Every request unit, with why it was coded so"):
    units_table(svc.units(kitchen, window, scaffolds=scaffolds), key="kitchen_all_units")
unstructured_view(svc.unstructured(kitchen, window, scaffolds), key="kitchen_unstructured")

st.subheader("Against the authors' own audit")
st.caption(
    "Upload the TGCO paper's authors' per-request audit of these runs (tgco_request_units.csv): their units are "
    "matched to these (run, step, sender, action, object), and the two audits' outcomes compared."
)
uploaded = reference_upload(signed_in_user())
if uploaded is not None:
    show_reference(kitchen, svc.reference(kitchen, window, *uploaded), key="kitchen_reference")

st.subheader("Replay a run")
run_id = replay_controls(kitchen, svc.run_ids(kitchen))
tile_player(svc.replay_payload(kitchen, window, run_id), key="kitchen_replay")
st.caption(
    "Left and Right arrows: a step; Home and End: the first and the last; space: play or pause. Above the bars "
    "of messages per step, the timeline marks each request unit sent, validator and format correction and "
    "action completed (at the step it completed); click or drag on it to go there. The grid's letters are read "
    "by the benchmark's drawing rules; what each stands for is inferred from the logs."
)
