"""Adjudicate: turn the coders' labels into gold, then reveal it to them."""

import streamlit as st

from components.adjudication import (
    adjudication_screen,
    consensus_controls,
    curation_progress,
    gold_summary,
    phase_controls,
)
from components.auth import require_user
from components.coding import on_task_dataset, task_picker
from components.dataset import require_codable, synthetic_banner
from services.adjudication import task_state

corpus = require_codable()
st.title("Adjudicate")
lead = require_user(roles=("lead",))
synthetic_banner(corpus)

task = task_picker(lead, key="adj_task")
if task is not None and on_task_dataset(task, corpus):
    state = task_state(lead, task)
    curation_progress(state.curation)
    phase_controls(lead, task, state.curation)
    consensus_controls(lead, task)
    gold_summary(lead, task, state.gold)
    adjudication_screen(lead, task, corpus, state)
