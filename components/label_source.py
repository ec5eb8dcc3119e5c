"""Which labels an analysis page reads: the pickers for the grounding-act and mental-model sources.

Gold from a closed (revealed) coding task on the dataset shown comes first among the grounding-act
sources: it is the adjudicated result of the team's coding. The dataset's own coders (their
majority, or one coder, person or model) remain available, and are the only sources when no task
on the dataset has been closed. Mental models come from the participants' own annotations or from
a model run's predictions. :func:`revealed_gold` is the one place the gold is read.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.label_sources import act_sources, default_act_source, mental_model_sources
from components.remembered import is_restored, remembered
from corpus.dataset import Corpus

SCHEME = "grounding_acts"


def revealed_gold(corpus: Corpus) -> pd.DataFrame:
    """Gold of the closed tasks on this dataset (empty if the label database cannot be read).
    Read on every run (one small query), so a task the lead has just revealed shows at once."""
    from components.auth import get_store

    try:
        return get_store().revealed_gold(corpus.content_hash, SCHEME, dataset_name=corpus.info.name)
    except Exception as exc:  # noqa: BLE001 - an unreachable database must not take the page down
        st.caption(f"The label database could not be read ({exc}); using the dataset's own labels.")
        return pd.DataFrame()


def act_source_picker(corpus: Corpus, gold: pd.DataFrame, key: str = "an_acts") -> str | None:
    """The grounding-act source the user picks (None when the dataset and the store have none)."""
    sources = act_sources(corpus, gold)
    if not sources:
        st.selectbox("Grounding acts from", ["none in this dataset"], disabled=True, key=f"{key}_none",
                     help="The dataset has no labels/grounding_acts.csv and no coding task on it has been closed.")
        return None
    options = list(sources)
    keep = remembered(key, options)
    index = None if is_restored(key) else options.index(default_act_source(sources))
    return st.selectbox("Grounding acts from", options, key=key, format_func=sources.get, **({} if index is None else {"index": index}),
                        help="Gold from a coding task appears here once its lead reveals it (Adjudicate page).", **keep)


def mental_model_picker(corpus: Corpus, key: str = "an_mm") -> str:
    """The mental-model source: the participants' annotations or a model run's predictions."""
    sources = mental_model_sources(corpus)
    options = list(sources)
    return st.selectbox("Mental models from", options, key=key, format_func=sources.get, **remembered(key, options),
                        help="A model run predicts team goal, partner intent and self-reasoning on the actions it covers; "
                             "it does not predict perceived alignment or its reasons.")
