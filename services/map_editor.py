"""What the map editor needs from outside the browser session: an uploaded image checked and decoded
once, the image at the canvas's size (scaled once), the drawn views (once per draft state, view and
size), the drafts folder, and attaching a map to sessions of a dataset."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import streamlit as st

from corpus.mapedit.attach import AttachResult, attach_maps
from corpus.mapedit.draft import Draft
from corpus.mapedit.image import MapImage, fit_image, read_map_image
from corpus.model import GridMap
from corpus.store import AccessDenied, User
from services.settings import settings
from services.store import get_store


def drafts_dir() -> Path:
    """Where drafts are saved: ``map_drafts`` in the app's data directory."""
    return settings().data_dir / "map_drafts"


@st.cache_data(show_spinner=False, max_entries=4)
def checked_image(data: bytes, name: str) -> MapImage:
    """An uploaded map image, checked and decoded (raises as :func:`read_map_image` does)."""
    return read_map_image(data, name)


@st.cache_data(show_spinner=False, max_entries=6)
def _fitted(_image: MapImage, digest: str, size: tuple[int, int]):
    return fit_image(_image, size)


def fitted_image(image: MapImage, size: tuple[int, int]):
    """The map image scaled to the canvas (decoded once per image and size)."""
    return _fitted(image, image.digest, size)


@st.cache_data(show_spinner=False, max_entries=24)
def _view_png(
    draft: Draft,
    size: tuple[int, int],
    digest: str | None,
    view: str,
    selected: str | None,
    problems: frozenset,
    _image: MapImage | None,
    _render: Callable,
) -> bytes:
    return _render(draft, size, fitted_image(_image, size) if _image is not None else None, view, selected, problems)


def view_png(
    draft: Draft,
    size: tuple[int, int],
    image: MapImage | None,
    view: str,
    selected: str | None,
    problems: frozenset,
    render: Callable,
) -> bytes:
    """The PNG ``render(draft, size, fitted image, view, selected, problems)`` draws, drawn again only
    when the draft, its image, the view, the selection or the problems changed."""
    return _view_png(draft, size, image.digest if image else None, view, selected, problems, image, render)


def attach(lead: User, dataset: Path, guide: GridMap, sessions: list[str]) -> tuple[AttachResult, list[str]]:
    """Give ``sessions`` the map (a lead's action: the dataset is written again) and move the coding
    tasks on the dataset to its new content hash; the result and the names of the tasks moved. The
    dataset's loader sees the rewritten files on the next run."""
    if not lead.is_lead:
        raise AccessDenied(
            f"{lead.username} is a {lead.role}; attaching a map rewrites the dataset, which only a lead can do"
        )
    result = attach_maps(dataset, guide, sessions)
    return result, get_store().move_dataset(lead, result.old_hash, result.content_hash)
