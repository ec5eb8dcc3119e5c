"""The benchmark's prompts to take away: for a task, a split and a setting, every instance's prompt
as the ALMANAC paper's Appendix H lays it out (:mod:`analysis.compare.prompts`), with the answer
fields its prediction line carries back, so that a lab runs any model and brings the run back here."""

from __future__ import annotations

import streamlit as st

from analysis.compare.instances import SETTINGS
from analysis.compare.prompts import prompts_jsonl
from corpus.loading.dataset import Corpus

TASKS = {"next_action": "Next action", "mental_model": "Mental model"}
SETTING_NAMES = {"base": "base", "mental_model": "+ the actor's earlier mental models"}


def export(corpus: Corpus) -> None:
    with st.expander("Benchmark prompts: run a model of your own", icon=":material/output:"):
        splits = corpus.splits
        c = st.columns(3)
        task = c[0].selectbox("Task", list(TASKS), format_func=TASKS.get, key="compare_prompts_task")
        split = c[1].selectbox(
            "Split", splits, index=splits.index("test") if "test" in splits else 0, key="compare_prompts_split"
        )
        setting = c[2].selectbox(
            "Setting", list(SETTINGS), format_func=SETTING_NAMES.get, key="compare_prompts_setting"
        )
        st.download_button(
            "Prompts (JSONL)",
            lambda: prompts_jsonl(corpus, task, split, setting),
            f"prompts_{task}_{split}_{setting}.jsonl",
            "application/jsonl",
            key="compare_prompts_dl",
            on_click="ignore",
            icon=":material/download:",
        )
        st.caption(
            "One line per instance: its id, the prompt (the paper's Appendix H template for the actor's role, filled with "
            "the persona, the actor's own map, the drawing the actor sees and the interaction history up to the item), "
            "and `answer`: the fields a prediction line carries back, with the instance's ids (a reply's "
            "`action_content`, as the next-action prompt asks for it, reads as `content`). Send each prompt to a model, write its answers one JSON line per instance "
            "(docs/data-format.md, predictions), and add the file under **Add runs** below: it is scored here like "
            "any other. The same from "
            "`python -m analysis instances DATASET OUT.jsonl --task TASK --split SPLIT --setting SETTING --prompts`."
        )
