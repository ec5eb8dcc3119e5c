"""The Replay screen for every domain that replays: Map Task sessions in their own player
(:mod:`components.replay`: the canvas, the chat, the mental models and a timeline), and a unit of any
domain whose registry entry has a replay hook (:attr:`corpus.domain.Domain.replay`) in the tile
player (:mod:`components.tile_player`), its payload built once per unit by
:func:`services.datasets.replay_payload`. :func:`show` picks by the dataset's domain
(:data:`PLAYERS`, else the tile player)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from components.replay import participants, player, session_frames, session_header, session_picker
from corpus import domain as registry
from corpus.domain import MAP_TASK, UNIT_ID, Dataset
from corpus.escape import md_line, md_text
from services import datasets

UNIT_KEY = "replay_unit"  # the unit picked (and ?unit= in the URL)
PLAYER_KEY = "replay_tiles"  # the tile player's place on the page


def map_task_replay(corpus: Any) -> None:
    """A Map Task session: the session picker and its facts, then the player."""
    pick, about = st.columns([1, 2.6], vertical_alignment="bottom")
    with pick:
        session_id = session_picker(corpus)
    frames = session_frames(corpus, session_id) if session_id else None
    if frames is not None:
        with about:
            session_header(frames)
            participants(frames)
        player(corpus, frames)


def _unit_picked() -> None:
    """Picker callback: the unit goes in the URL, so a link opens it (the player starts another
    unit at its first step)."""
    st.query_params["unit"] = st.session_state[UNIT_KEY]


def unit_picker(data: Dataset, noun: str) -> str | None:
    """A select box over the dataset's units; the first visit takes the unit from the URL
    (``?unit=``)."""
    units = data.units[UNIT_ID].astype(str).tolist()
    if not units:
        st.info(f"This dataset has no {md_text(noun)}s.")
        return None
    if st.session_state.get(UNIT_KEY) not in units:
        wanted = st.query_params.get("unit")
        if wanted is not None and wanted not in units:
            st.warning(f"The link names no {md_text(noun)} {md_line(wanted)} in this dataset: the first is shown.")
        st.session_state[UNIT_KEY] = wanted if wanted in units else units[0]
    if st.query_params.get("unit") != st.session_state[UNIT_KEY]:
        st.query_params["unit"] = st.session_state[UNIT_KEY]
    return st.selectbox(noun.capitalize(), units, key=UNIT_KEY, on_change=_unit_picked)


def tile_replay(data: Dataset) -> None:
    """A unit of a domain with a replay hook, in the tile player; a domain without one says so."""
    from components.tile_player import tile_player

    domain = registry.of(data)
    if domain.replay is None:
        st.info(f"The {md_text(domain.title)} of this dataset have no replay.", icon=":material/info:")
        return
    unit = unit_picker(data, domain.unit)
    if unit is None:
        return
    try:
        payload = datasets.replay_payload(data, unit)
    except (ValueError, KeyError) as exc:  # a payload its hook could not make (TileReplayError among them)
        st.error(
            f"The {md_text(domain.unit)} {md_text(unit)} cannot be replayed: {md_line(exc)}", icon=":material/error:"
        )
        return
    tile_player(dict(payload), PLAYER_KEY)


# Each domain with a player of its own; any other domain's units go to the tile player.
PLAYERS: dict[str, Callable[[Any], None]] = {MAP_TASK: map_task_replay}


def show(data: Dataset) -> None:
    """The replay of one unit of ``data``, by its domain's player."""
    PLAYERS.get(data.domain, tile_replay)(data)
