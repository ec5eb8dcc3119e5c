"""Agreement: how reliably the dataset's actions were coded, the model coder against the humans,
and two coding schemes compared."""

import json

import streamlit as st

from components import agreement_view as view
from components.dataset import require_corpus, synthetic_banner
from corpus import schema
from services import agreement

corpus = require_corpus()
st.title("Inter-coder agreement")
synthetic_banner(corpus)

schemes = sorted(corpus.labels["scheme"].unique())
if not schemes:
    st.info(
        "This dataset has no coded labels (labels/<scheme>.csv). Code actions on the Code page, "
        "or import labels with the dataset."
    )
    st.stop()

c1, c2, c3 = st.columns([1, 1, 2])
shown_as = {schema.GROUNDING_ACTS_SCHEME: "Grounding acts", schema.HCRC_MOVES_SCHEME: "HCRC moves"}
scheme = c1.selectbox("Coding scheme", schemes, key="agr_scheme", format_func=lambda s: shown_as.get(s, s))
labels = corpus.coded(scheme)
partitions = sorted(labels["partition"].dropna().unique())
partition = c2.selectbox(
    "Items",
    ["all", *partitions],
    key="agr_partition",
    format_func=lambda p: {"all": "all items", "few_shot": "few-shot", "validation": "validation"}.get(p, p),
)
all_coders = sorted(labels["coder"].unique())
model_like = corpus.model_coders(scheme)
coders = c3.multiselect(
    "Coders",
    all_coders,
    default=[c for c in all_coders if c not in model_like] or all_coders,
    key="agr_coders",
    help="Model coders (coder_kind 'model' in the label file) are compared against the humans below, "
    "not pooled with them.",
)
if len(coders) < 2:
    st.info("Choose at least two coders to measure agreement.")
    st.stop()

names = schema.CODING_SCHEMES.get(scheme, {})
level, order = view.alpha_level(list(names) or sorted(labels["code"].unique()))
rep = view.dataset_report(corpus, scheme, coders, None if partition == "all" else partition, level, order)
view.headline(rep)
view.diagnostics(rep, names)

tab_cat, tab_pairs, tab_matrix, tab_items = st.tabs(
    ["Per category", "Coder pairs", "Confusions", "Most disagreed items"]
)
with tab_cat:
    view.per_category(rep, names)
with tab_pairs:
    view.pairwise(rep)
with tab_matrix:
    used = labels[labels["coder"].isin(coders)]
    view.coincidence(rep, corpus, used if partition == "all" else used[used["partition"] == partition], names)
with tab_items:
    view.disagreements(rep, names)

st.download_button(
    "Download the report (JSON)",
    data=json.dumps(rep.to_json(), indent=2),
    file_name=f"agreement_{scheme}.json",
    mime="application/json",
)

if model_like:
    st.header("A model coder against the humans")
    m1, m2 = st.columns(2)
    model = m1.selectbox("Model coder", model_like, key="agr_model")
    part = m2.selectbox(
        "On",
        ["validation", "all"],
        key="agr_model_part",
        help="The paper scores its LLM coder on the validation partition; the few-shot items were its prompt.",
    )
    on = None if part == "all" else part
    result = agreement.model_against_majority(corpus, scheme, model, coders, on)
    view.model_vs_humans(result, names=names)
    view.beside_the_paper(view.dataset_report(corpus, scheme, coders, on, "nominal", None), result, on)

others = [s for s in schemes if s != scheme]
if others:
    st.header("Two coding schemes on the same actions")
    other = st.selectbox("Compare with", others, key="agr_other")
    view.scheme_comparison(agreement.scheme_comparison(corpus, other, scheme), other, scheme)
