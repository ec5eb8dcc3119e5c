"""The Home page: what Groundwork is, the dataset in use, and one way in for each kind of user
(a reviewer's guided path through the demo, an annotator's coding screen, a lead's round)."""

from __future__ import annotations

import streamlit as st

from components.text import md_text
from corpus.dataset import Corpus
from services.home import DatasetFacts


def introduction() -> None:
    st.markdown(
        "A workbench for researchers who study how two people build common ground. It serves Map Task "
        "sessions: a **Guide** who sees a route and a **Follower** who draws it on a grid, talking in a chat, "
        "every action annotated with what its actor believed (team goal, partner's intent, their own "
        "reasoning, whether they felt aligned, and why). Replay sessions step by step, code grounding acts as "
        "a team with agreement computed as you go, and chart alignment against task progress by condition."
    )


def dataset_in_use(corpus: Corpus, facts: DatasetFacts) -> None:
    conditions = ", ".join(c.replace("_", " ") for c in facts.conditions) or "none"
    st.markdown(f"**Dataset in use:** {md_text(corpus.info.name)}: {facts.n_sessions:,} sessions, "
                f"{facts.n_actions:,} actions; conditions: {md_text(conditions)}. Pick another in the sidebar.")


def _step(number: int, page: str, label: str, text: str, icon: str, **query) -> None:
    st.page_link(page, label=f"{number}. {label}", icon=icon, query_params=query or None)
    st.caption(text)


def entries(facts: DatasetFacts) -> None:
    """Three ways in, side by side."""
    review, annotate, lead = st.columns(3, border=True)
    with review:
        st.subheader("Reviewing the demo", anchor=False)
        st.caption("A guided path through what the workbench shows, in three steps.")
        if facts.tour_session:
            _step(1, "pages/replay.py", f"Replay session {facts.tour_session}",
                  "Step through one session: the route, the drawing as it grows, the chat, and what each person "
                  "reported thinking at every action.", ":material/play_circle:", session=facts.tour_session)
        _step(2, "pages/alignment.py", "The alignment figure",
              "The share of actions whose mental-model labels show a shared understanding, over task "
              "progress, with and without the Guide seeing the drawing.", ":material/trending_up:")
        _step(3, "pages/agreement.py", "The agreement report",
              "How reliably the actions were coded: kappa and alpha with their intervals, and what to check "
              "before trusting them.", ":material/handshake:")
    with annotate:
        st.subheader("Annotating", anchor=False)
        st.caption("Sign in with the account your lead made, then code one action at a time by keyboard. "
                   "Every label is saved the moment its key is pressed, blind to the other coders.")
        st.page_link("pages/code.py", label="Code", icon=":material/label:")
    with lead:
        st.subheader("Leading a coding round", anchor=False)
        st.caption("Create accounts and coding tasks, watch agreement live, then turn the labels into gold "
                   "and show the coders where they differed.")
        st.page_link("pages/tasks.py", label="Tasks", icon=":material/assignment:")
        st.page_link("pages/adjudicate.py", label="Adjudicate", icon=":material/gavel:")
