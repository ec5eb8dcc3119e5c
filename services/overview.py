"""The Data page's numbers: the paper's Table 1 and Table 8 statistics, once per dataset."""

from __future__ import annotations

import streamlit as st

from analysis.descriptive import dataset_stats
from corpus.loading.dataset import Corpus


@st.cache_data(show_spinner=False, max_entries=8)
def _stats(content_hash: str, _corpus: Corpus) -> dict:
    return dataset_stats(_corpus.sessions_df, _corpus.actions_df)


def stats(corpus: Corpus) -> dict:
    """Actions per session by type and mental-model label shares, overall, per condition and per
    condition x split (:func:`analysis.descriptive.dataset_stats`)."""
    return _stats(corpus.content_hash, corpus)
