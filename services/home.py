"""The Home page's facts about the dataset in use: its size and the session the guided tour opens."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from corpus.loading.dataset import Corpus


@dataclass(frozen=True)
class DatasetFacts:
    n_sessions: int
    n_actions: int
    conditions: tuple[str, ...]
    tour_session: str | None  # the session the reviewer's tour replays (None: no session)


@st.cache_data(show_spinner=False, max_entries=8)
def _facts(content_hash: str, _corpus: Corpus) -> DatasetFacts:
    actions = _corpus.actions_df
    tour = None
    if len(actions):
        # The session with the most moments an actor reported not being aligned: the replay shows grounding at work.
        misaligned = (actions["aligned"] == False).groupby(actions["session_id"]).sum()  # noqa: E712 - None is unknown
        tour = str(misaligned.sort_index().idxmax()) if misaligned.max() > 0 else str(actions["session_id"].iloc[0])
    elif _corpus.sessions:
        tour = next(iter(_corpus.sessions))
    conditions = tuple(sorted({_corpus.meta(sid).condition for sid in _corpus.sessions}))
    return DatasetFacts(len(_corpus.sessions), len(actions), conditions, tour)


def facts(corpus: Corpus) -> DatasetFacts:
    return _facts(corpus.content_hash, corpus)
