"""The Home page: what Groundwork is, the dataset in use, and one way in for each kind of user
(a reviewer's guided path through the demo, an annotator's coding screen, a lead's round)."""

from __future__ import annotations

import streamlit as st

from analysis.format import fmt_count
from corpus.dataset import Corpus
from corpus.escape import md_text
from services.home import DatasetFacts


def introduction() -> None:
    st.markdown(
        "A workbench for studying how two people build common ground, on Map Task sessions: a **Guide** who "
        "sees a route, a **Follower** who draws it on a grid, a chat between them, and every action annotated "
        "with what its actor believed. Replay the sessions, code grounding acts as a team with agreement "
        "computed as you go, and chart alignment against task progress by condition."
    )


def dataset_in_use(corpus: Corpus, facts: DatasetFacts) -> None:
    conditions = " and ".join(c.replace("_", " ") for c in facts.conditions) or "none"
    st.markdown(
        f"**Dataset in use:** {md_text(corpus.info.name)}: {fmt_count(facts.n_sessions)} sessions, "
        f"{fmt_count(facts.n_actions)} actions, conditions {md_text(conditions)} (another one: the sidebar)."
    )


def _step(page: str, label: str, text: str, icon: str, **query) -> None:
    st.page_link(page, label=label, icon=icon, query_params=query or None)
    st.caption(text)


def entries(facts: DatasetFacts) -> None:
    """Three ways in, side by side."""
    review, annotate, lead = st.columns(3, border=True)
    with review:
        st.subheader("Reviewing the demo", anchor=False)
        if facts.tour_session:
            _step(
                "pages/replay.py",
                f"1. Replay session {facts.tour_session}",
                "The route, the drawing as it grows, the chat, and what each person reported thinking.",
                ":material/play_circle:",
                session=facts.tour_session,
            )
        _step(
            "pages/alignment.py",
            "2. The alignment figure",
            "Shared understanding over task progress, with and without the Guide seeing the drawing.",
            ":material/trending_up:",
            view="figure",
        )
        _step(
            "pages/agreement.py",
            "3. The agreement report",
            "How reliably actions were coded: kappa and alpha, their intervals, what to check first.",
            ":material/handshake:",
        )
    with annotate:
        st.subheader("Annotating", anchor=False)
        _step(
            "pages/code.py",
            "Code",
            "Sign in with the account your lead made and code one action at a time by keyboard; each label is "
            "saved as its key is pressed, blind to the other coders.",
            ":material/label:",
        )
    with lead:
        st.subheader("Leading a coding round", anchor=False)
        _step(
            "pages/tasks.py",
            "Tasks",
            "Accounts, coding tasks, the live agreement panel, exports.",
            ":material/assignment:",
        )
        _step(
            "pages/adjudicate.py",
            "Adjudicate",
            "Turn the labels into gold, then show each coder where they differed.",
            ":material/gavel:",
        )
