"""Which labels an analysis page reads: the pickers for the grounding-act and mental-model sources.

Gold from a closed (revealed) coding task on the dataset shown comes first among the grounding-act
sources: it is the adjudicated result of the team's coding. The dataset's own coders (their
majority, or one coder, person or model) remain available, and are the only sources when no task
on the dataset has been closed. A gold source says how many items it covers and, under
:data:`GOLD_MIN_ITEMS` items, warns that estimates on it are imprecise. Mental models come from the participants' own annotations or from
a model run's predictions. The gold is read by :func:`services.tasks.revealed_gold`.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.label_sources import act_sources, mental_model_sources
from components.remembered import is_restored, remembered
from corpus.escape import md_line
from corpus.loading.dataset import Corpus
from services import alignment, tasks

# Gold on fewer items than this is shown with a warning wherever an analysis uses it.
GOLD_MIN_ITEMS = 30


def revealed_gold(corpus: Corpus) -> pd.DataFrame:
    """Gold of the closed tasks on this dataset (empty if the label database cannot be read)."""
    try:
        return tasks.revealed_gold(corpus)
    except Exception as exc:  # noqa: BLE001 - an unreachable database must not take the page down
        st.caption(md_line(f"The label database could not be read ({exc}); using the dataset's own labels."))
        return pd.DataFrame()


def gold_counts(gold: pd.DataFrame | None) -> dict[str, int]:
    """Items with gold per gold source key (``gold:TASK_ID``)."""
    if gold is None or gold.empty:
        return {}
    return {f"gold:{t}": int(n) for t, n in gold.groupby("task_id")["item_id"].nunique().items()}


def is_reference(gold: pd.DataFrame | None, key: str) -> bool:
    """Whether the gold source ``key`` is the one a lead marked as the dataset's reference."""
    if gold is None or gold.empty or "reference" not in gold or not key.startswith("gold:"):
        return False
    return bool(gold.loc[gold["task_id"].astype(str) == key.removeprefix("gold:"), "reference"].any())


def small_gold_note(n: int) -> str | None:
    """The warning under a gold source resting on fewer than :data:`GOLD_MIN_ITEMS` items."""
    if n >= GOLD_MIN_ITEMS:
        return None
    return f"Gold on {n} item{'s' if n != 1 else ''} only (under {GOLD_MIN_ITEMS}): estimates on it are imprecise."


def act_source_picker(corpus: Corpus, gold: pd.DataFrame, key: str = "an_acts") -> str | None:
    """The grounding-act source the user picks (None when the dataset and the store have none). A
    gold source says how many items it covers, and warns under :data:`GOLD_MIN_ITEMS`."""
    sources = act_sources(corpus, gold)
    counts = gold_counts(gold)
    titles = {
        k: f"{t} ({counts[k]} items{', the reference' if is_reference(gold, k) else ''})" if k in counts else t
        for k, t in sources.items()
    }
    if not sources:
        st.selectbox(
            "Grounding acts from",
            ["none in this dataset"],
            disabled=True,
            key=f"{key}_none",
            help="The dataset has no labels/grounding_acts.csv and no coding task on it has been closed.",
        )
        return None
    options = list(sources)
    keep = remembered(key, options)
    default = alignment.act_source_default(corpus, gold, sources, GOLD_MIN_ITEMS)
    index = None if is_restored(key) else options.index(default)
    chosen = st.selectbox(
        "Grounding acts from",
        options,
        key=key,
        format_func=titles.get,
        **({} if index is None else {"index": index}),
        help="Gold from a coding task appears here once its lead reveals it (Adjudicate page).",
        **keep,
    )
    note = small_gold_note(counts[chosen]) if chosen in counts else None
    if note:
        st.warning(note, icon=":material/warning:")
    return chosen


def mental_model_picker(corpus: Corpus, key: str = "an_mm") -> str:
    """The mental-model source: the participants' annotations or a model run's predictions."""
    sources = mental_model_sources(corpus)
    options = list(sources)
    return st.selectbox(
        "Mental models from",
        options,
        key=key,
        format_func=sources.get,
        **remembered(key, options),
        help="A model run predicts team goal, partner intent and self-reasoning on the actions it covers; "
        "it does not predict perceived alignment or its reasons.",
    )
