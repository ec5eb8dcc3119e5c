"""Which grounding-act labels an analysis page uses.

Gold from a closed (revealed) coding task on the dataset shown comes first: it is the adjudicated
result of the team's coding. The dataset's own coded labels (majority of its human coders) remain
available, and are the only source when no task on the dataset has been closed.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from corpus.consensus import majority
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


def grounding_act_labels(corpus: Corpus, key: str) -> pd.DataFrame | None:
    """One grounding act per action (session_id, action_index, code) from the source the user picks,
    with a caption saying where the labels come from; None when there are none."""
    sources: dict[str, tuple[str, pd.DataFrame, str]] = {}
    gold = revealed_gold(corpus)
    if not gold.empty:
        for (task_id, task), g in gold.groupby(["task_id", "task"], sort=False):
            counts = g["provenance"].value_counts()
            how = ", ".join(f"{n} {p}" for p, n in counts.items())
            sources[f"gold:{task_id}"] = (
                f"Gold of the coding task '{task}'",
                g[["session_id", "action_index", "code"]].reset_index(drop=True),
                f"Gold labels of the closed coding task '{task}' on {len(g)} actions ({how}).",
            )
    coded = corpus.coded(SCHEME)
    if not coded.empty:
        models = corpus.model_coders(SCHEME)
        humans = sorted(set(coded["coder"]) - set(models))
        labels = majority(coded, exclude_coders=models)
        sources["dataset"] = (
            "The dataset's coders (majority)",
            labels,
            f"Majority label of the human coders ({', '.join(humans)}) on {len(labels)} actions; "
            "items without a majority are left out.",
        )
    if not sources:
        return None
    choice = st.selectbox("Grounding-act labels", list(sources), key=key, format_func=lambda k: sources[k][0],
                          help="Gold from a coding task appears here once its lead reveals it (Adjudicate page).")
    _, labels, caption = sources[choice]
    st.caption(caption)
    return labels
