"""Adjudicate: turn the coders' labels into gold, then reveal it to them."""

import streamlit as st

from components.adjudication import adjudication_screen, consensus_controls, gold_summary, phase_controls
from components.auth import require_user
from components.coding import task_picker
from components.dataset import require_corpus, synthetic_banner

corpus = require_corpus()
st.title("Adjudicate")
store, lead = require_user(roles=("lead",))
synthetic_banner(corpus)

task = task_picker(store, lead, key="adj_task")
if task is not None:
    phase_controls(store, lead, task)
    consensus_controls(store, lead, task)
    gold_summary(store, lead, task)
    adjudication_screen(store, lead, task, corpus)
