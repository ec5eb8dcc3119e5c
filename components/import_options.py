"""What an uploader sets for an importer, as the command line's options (docs/importers.md): the
sessions' condition and split, or each session's from a design table, and for the platform the ink
share that fills a cell and an annotated map, for HCRC the map id. Nothing set means as the source
records it ("not recorded" where it records nothing)."""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from components.palette import CONDITION_NAMES, SPLIT_NAMES
from corpus import schema
from corpus.importers.asciimap import DEFAULT_INK_SHARE
from corpus.limits import DESIGN_TABLE_BYTES, NAME_CHARS
from corpus.server.uploads import ImportChoices

FROM_SOURCE = "as the source records it"
MAP_BYTES = 8 * 2**20  # an annotated map file (JSON or ASCII grid)


def form(fmt: str) -> None:
    """The options of importer ``fmt`` (platform or hcrc; kitchen runs and benchmark trials take none)."""
    if fmt == "overcooked":
        st.caption("Kitchen runs take no options: models, roles, recipes and levels are read from the runs.")
        return
    if fmt == "dyntom":
        st.caption("Benchmark trials take no options: questions, gold answers and runs are read from the files.")
        return
    st.selectbox(
        "Condition",
        [None, *schema.CONDITIONS],
        key="dataset_zip_condition",
        format_func=lambda c: FROM_SOURCE if c is None else CONDITION_NAMES[c],
        help="The sessions' condition, when the source does not record it (the HCRC dialogue ids do: "
        "eye contact or none).",
    )
    st.selectbox(
        "Split",
        [None, *schema.SPLITS],
        key="dataset_zip_split",
        format_func=lambda c: FROM_SOURCE if c is None else SPLIT_NAMES[c],
    )
    st.file_uploader(
        "Design table (optional)",
        type=["csv"],
        key="dataset_zip_design",
        max_upload_size=max(1, DESIGN_TABLE_BYTES // 2**20),
        help="Each session's condition and split: a CSV with the columns session, condition and split, one row "
        "per session. session: its name or id as the source gives it (the platform's session name or id, "
        "the HCRC dialogue id such as q1ec1). An empty cell keeps the choice above. A row that names no "
        "session, or a session without a row, is an error in the import's report.",
    )
    if fmt == "platform":
        st.number_input(
            "Ink share that fills a cell",
            min_value=0.01,
            max_value=1.0,
            value=DEFAULT_INK_SHARE,
            step=0.01,
            key="dataset_zip_ink_share",
            help="The share of a grid cell the Follower's ink must cover for the cell to count as drawn.",
        )
        st.file_uploader(
            "Annotated map (optional)",
            type=["json", "txt"],
            key="dataset_zip_map",
            max_upload_size=MAP_BYTES // 2**20,
            help="A map in Groundwork's JSON or the platform's ASCII grid map (.txt), for sessions whose "
            "export does not hold one.",
        )
    elif fmt == "hcrc":
        st.text_input(
            "Map id",
            key="dataset_zip_map_id",
            max_chars=NAME_CHARS,
            help="The HCRC map every dialogue used, e.g. m12 (default: each dialogue's map from a "
            "dialogue_id,map_id CSV in the archive).",
        )


def chosen(fmt: str | None) -> ImportChoices:
    """What the form holds for importer ``fmt`` (nothing for a Groundwork dataset or kitchen runs)."""
    if fmt is None or fmt in ("overcooked", "dyntom"):
        return ImportChoices()
    state = st.session_state
    design = state.get("dataset_zip_design")
    choices = ImportChoices(
        condition=state.get("dataset_zip_condition"),
        split=state.get("dataset_zip_split"),
        design_name=design.name if design is not None else "",
        design_data=design.getvalue() if design is not None else b"",
    )
    if fmt == "platform":
        share = state.get("dataset_zip_ink_share")
        map_file = state.get("dataset_zip_map")
        return replace(
            choices,
            ink_share=None if share is None or share == DEFAULT_INK_SHARE else float(share),
            map_name=map_file.name if map_file is not None else "",
            map_data=map_file.getvalue() if map_file is not None else b"",
        )
    if fmt == "hcrc":
        return replace(choices, map_id=(state.get("dataset_zip_map_id") or "").strip())
    return choices
