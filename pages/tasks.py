"""Tasks: accounts, uploaded datasets, coding tasks, the live agreement panel and the exports."""

import streamlit as st

from components.accounts_admin import accounts_title, users_admin
from components.agreement_panel import lead_panel
from components.auth import require_user
from components.coding import task_picker
from components.dataset import require_codable
from components.task_admin import exports, import_labels, new_task_form, revise_codebook, task_settings
from components.uploads_admin import uploads_admin
from corpus.escape import md_line
from services.tasks import tasks_for

corpus = require_codable()
st.title("Tasks")
lead = require_user(roles=("lead",))
if st.session_state.get("ta_msg"):
    st.success(md_line(st.session_state.pop("ta_msg")))

with st.expander(accounts_title(lead)):  # no icon: it would take the place of the arrow
    users_admin(lead)
with st.expander("Uploaded datasets"):
    uploads_admin(lead)
with st.expander("New coding task", expanded=not tasks_for(lead)):
    new_task_form(lead, corpus)

task = task_picker(lead, key="ta_task")
if task is not None:
    task_settings(lead, task)
    panel, below = st.container(), st.container()
    # The exports are drawn first, shown last: a run that a new label cuts short in the panel has
    # already offered their files again, so a click never finds them gone.
    with below:
        with st.expander("Revise the codebook"):
            revise_codebook(lead, task)
        with st.expander("Import labels"):
            import_labels(lead, task)
        st.subheader("Exports")
        exports(lead, task)
    with panel:
        lead_panel(lead, task)
