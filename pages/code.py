"""Code: label one item at a time, blind to the other coders."""

import streamlit as st

from components.agreement_panel import coder_panel
from components.auth import require_user
from components.coding import coding_screen, feedback_view, task_picker
from components.dataset import require_codable, synthetic_banner

corpus = require_codable()
heading, picker = st.columns([1, 2.4], vertical_alignment="bottom")
heading.title("Code")
user = require_user(roles=("coder", "lead", "viewer"))
synthetic_banner(corpus)

with picker:
    task = task_picker(user)
if task is not None:
    coding_screen(user, task, corpus)
    coder_panel(user, task.id)
    feedback_view(user, task)
