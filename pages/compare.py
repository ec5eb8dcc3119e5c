"""Compare: model predictions over the people's own labels, scored as the ALMANAC benchmark does."""

import streamlit as st

from components.auth import signed_in_user
from components.compare import ablation, confusions, instances, judges, leaderboard, overlay, runs, slices
from components.dataset import require_corpus, synthetic_banner
from services import compare as svc

VIEWS = {
    "Leaderboard": leaderboard.render,
    "Overlay": overlay.render,
    "Confusions": confusions.render,
    "Slices": slices.render,
    "Ablation": ablation.render,
    "Instances": instances.render,
    "Judges": judges.render,
}

corpus = require_corpus()
st.title("Models against people")
synthetic_banner(corpus)
st.caption(
    "Model predictions of the two benchmark tasks of the ALMANAC paper (next action, mental model) scored "
    "against what the people did and reported."
)

chosen = runs.picker(corpus, signed_in_user())
if not chosen:
    st.info(
        "No run to compare. A dataset's predictions/ folder holds one folder per run (see docs/data-format.md); "
        "add runs above, or export the benchmark instances with `python -m analysis instances`."
    )
    st.stop()

comparison = svc.comparison(corpus, chosen)
runs.coverage(comparison)
runs.split_note(svc.split_standing(corpus))

tabs = st.tabs(list(VIEWS), key="compare_tab", on_change="rerun")
for tab, render in zip(tabs, VIEWS.values()):
    if tab.open:
        with tab:
            render(comparison)
