"""Alignment: mental-model alignment over task progress by condition, and by grounding act."""

import streamlit as st

from analysis.alignment import MEASURES, act_shares, alignment_by_act, progress_curves, progress_model
from components.alignment_charts import act_share_figure, alignment_by_act_figure, model_table, progress_figure
from components.dataset import require_corpus, synthetic_banner
from components.label_source import grounding_act_labels

corpus = require_corpus()
st.title("Alignment over task progress")
synthetic_banner(corpus)

c1, c2, c3 = st.columns([2, 1, 1])
measures = c1.multiselect("Measures", list(MEASURES), default=list(MEASURES), format_func=MEASURES.get, key="align_measures")
role = c2.selectbox("Actor", ["both", "guide", "follower"], key="align_role")
bins = c3.slider("Progress bins", 3, 10, 5, key="align_bins")
actions = corpus.actions_df if role == "both" else corpus.actions_df[corpus.actions_df["role"] == role]

if not measures:
    st.warning("Choose at least one measure.")
else:
    st.plotly_chart(progress_figure(progress_curves(actions, bins=bins), measures), width="stretch", key="align_progress")
    st.caption(
        "Share of annotated actions whose label is the grounded one on each dimension, by position in the "
        "session (0 % = first action, 100 % = last); bands are Wilson 95 % intervals."
    )
    st.subheader("Does alignment rise with progress, and more when the Guide sees the canvas?")
    model_measure = st.selectbox("Outcome", measures, format_func=MEASURES.get, key="align_model_measure")
    model_table(progress_model(actions, model_measure))

st.subheader("Grounding acts")
gold = grounding_act_labels(corpus, key="align_act_source")
if gold is None:
    st.info("This dataset carries no grounding-act labels (labels/grounding_acts.csv), and no coding task on it "
            "has been closed yet (Annotate pages).")
else:
    a, b = st.columns(2)
    with a:
        st.markdown("**Share of each act by condition**")
        st.plotly_chart(act_share_figure(act_shares(gold, actions)), width="stretch", key="align_acts")
    with b:
        st.markdown("**Partner judged aligned, within each act**")
        st.plotly_chart(alignment_by_act_figure(alignment_by_act(gold, actions)), width="stretch", key="align_by_act")
