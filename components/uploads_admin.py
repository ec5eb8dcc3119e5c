"""The lead's view of the uploaded datasets the server keeps: what they are, how much of the quota
they use, which coding tasks are on them, and deleting old ones."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.format import fmt_count
from corpus.escape import md_line
from corpus.server.uploads import mib
from corpus.store import User
from services import uploads


def uploads_admin(lead: User) -> None:
    kept = uploads.kept(lead)
    used, allowed, files, files_allowed = uploads.usage()
    st.caption(
        f"{len(kept)} upload(s) kept: {mib(used)} of {mib(allowed)}, {fmt_count(files)} of {fmt_count(files_allowed)} files "
        "(the quota for all uploads together; `python -m corpus uploads list|reclaim` on the server)."
    )
    if not kept:
        return
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "key": u.key,
                    "name": u.name,
                    "format": u.fmt or "dataset",
                    "size": mib(u.bytes),
                    "files": u.members,
                    "uploaded": u.uploaded_at,
                    "by": u.uploaded_by,
                    "coding tasks": ", ".join(tasks),
                }
                for u, tasks in kept
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    names = {u.key: f"{u.name} ({u.key}, {u.uploaded_at[:10]})" for u, _ in kept}
    chosen = st.multiselect("Uploads to delete", list(names), format_func=names.get, key="ta_reclaim")
    in_use = [names[u.key] for u, tasks in kept if u.key in chosen and tasks]
    if in_use:
        st.warning(
            f"Coding tasks use {md_line(', '.join(in_use))}: their labels stay, and their items show again once the "
            "same dataset is uploaded again."
        )
    if st.button("Delete the chosen uploads", key="ta_reclaim_go", disabled=not chosen, icon=":material/delete:"):
        gone = uploads.reclaim(chosen)
        st.session_state["ta_msg"] = f"Deleted {len(gone)} upload(s): {', '.join(u.name for u in gone)}."
        st.rerun()
