"""Tasks: accounts, uploaded datasets, coding tasks, the live agreement panel and the exports."""

import streamlit as st

from components.agreement_panel import lead_panel
from components.auth import require_user
from components.coding import task_picker
from components.dataset import require_corpus
from components.task_admin import (
    accounts_title,
    exports,
    import_labels,
    new_task_form,
    revise_codebook,
    task_settings,
    users_admin,
)
from components.text import md_line
from components.uploads_admin import uploads_admin

corpus = require_corpus()
st.title("Tasks")
store, lead = require_user(roles=("lead",))
if st.session_state.get("ta_msg"):
    st.success(md_line(st.session_state.pop("ta_msg")))

with st.expander(accounts_title(store, lead), icon=":material/group:"):
    users_admin(store, lead)
with st.expander("Uploaded datasets"):
    uploads_admin(store, lead)
with st.expander("New coding task", expanded=not store.tasks_for(lead)):
    new_task_form(store, lead, corpus)

task = task_picker(store, lead, key="ta_task")
if task is not None:
    task_settings(store, lead, task)
    lead_panel(store, lead, task)
    with st.expander("Revise the codebook"):
        revise_codebook(store, lead, task)
    with st.expander("Import labels"):
        import_labels(store, lead, task)
    st.subheader("Exports")
    exports(store, lead, task)
