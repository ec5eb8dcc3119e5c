"""Adjudicate: turn the coders' labels into gold, then reveal it to them."""

import streamlit as st

from components.adjudication import (
    adjudication_screen,
    consensus_controls,
    curation_progress,
    gold_summary,
    phase_controls,
    task_state,
)
from components.auth import require_user
from components.coding import task_picker
from components.dataset import require_corpus, synthetic_banner

corpus = require_corpus()
st.title("Adjudicate")
store, lead = require_user(roles=("lead",))
synthetic_banner(corpus)

task = task_picker(store, lead, key="adj_task")
if task is not None:
    state = task_state(store, lead, task)
    curation_progress(state.curation)
    phase_controls(store, lead, task, state.curation)
    consensus_controls(store, lead, task)
    gold_summary(store, lead, task, state.gold)
    adjudication_screen(store, lead, task, corpus, state)
