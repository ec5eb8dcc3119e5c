"""What the map editor needs from outside the browser session: the image at the canvas's size
(decoded and scaled once), the drafts folder, and attaching a map to sessions of a dataset."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from corpus.mapedit.attach import AttachResult, attach_maps
from corpus.mapedit.image import MapImage, fit_image
from corpus.model import GridMap
from corpus.store import data_dir


def drafts_dir() -> Path:
    """Where drafts are saved: ``map_drafts`` in the app's data directory."""
    return data_dir() / "map_drafts"


@st.cache_data(show_spinner=False, max_entries=6)
def _fitted(_image: MapImage, digest: str, size: tuple[int, int]):
    return fit_image(_image, size)


def fitted_image(image: MapImage, size: tuple[int, int]):
    """The map image scaled to the canvas (decoded once per image and size)."""
    return _fitted(image, image.digest, size)


def attach(dataset: Path, guide: GridMap, sessions: list[str]) -> AttachResult:
    """Give ``sessions`` the map; the dataset's loader sees the rewritten files on the next run."""
    return attach_maps(dataset, guide, sessions)
