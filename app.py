"""Groundwork: the router. Every screen is one st.Page with its own URL; the sidebar picks the dataset.
The menu shows the screens of the current dataset's domain (Map Task sessions, kitchen runs, a
theory-of-mind benchmark, or a domain a lab added: corpus.domain); the others still answer at their
URL, and say what they read."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple

import streamlit as st

HERE = Path(__file__).parent
FAVICON = str(HERE / "components" / "assets" / "favicon.png")


class Screen(NamedTuple):
    """One page: its file ``pages/<file>.py``, served at the URL path ``/<file>`` (see
    components.router), its title and icon in the menu."""

    file: str
    title: str
    icon: str


# The menu, by section ("": above the sections). The first screen is the default page, served at /.
PAGES: dict[str, list[Screen]] = {
    "": [
        Screen("home", "Home", ":material/home:"),
    ],
    "Explore": [
        Screen("data", "Data", ":material/table_chart:"),
        Screen("replay", "Replay", ":material/play_circle:"),
        Screen("alignment", "Alignment", ":material/trending_up:"),
        Screen("acts", "Grounding acts", ":material/forum:"),
        Screen("misalignment", "Why not aligned", ":material/help:"),
        Screen("outcomes", "Outcomes", ":material/flag:"),
        Screen("split", "Test split", ":material/call_split:"),
        Screen("agreement", "Agreement", ":material/handshake:"),
        Screen("compare", "Compare", ":material/compare_arrows:"),
        Screen("kitchen", "Kitchen", ":material/skillet:"),
        Screen("report", "Report", ":material/description:"),
    ],
    "Annotate": [
        Screen("code", "Code", ":material/label:"),
        Screen("adjudicate", "Adjudicate", ":material/gavel:"),
        Screen("tasks", "Tasks", ":material/assignment:"),
        Screen("map-editor", "Map editor", ":material/map:"),
    ],
}
DEFAULT = PAGES[""][0]


def streamlit_pages(shown: Collection[str] | None = None) -> dict[str, list[st.Page]]:
    """The menu as Streamlit pages (in a running app), each at its own URL path; a screen not among
    ``shown`` (None: every one) is left out of the menu, and still answers at its URL."""
    return {
        section: [
            st.Page(
                HERE / "pages" / f"{s.file}.py",
                title=s.title,
                icon=s.icon,
                url_path=s.file,
                default=s == DEFAULT,
                visibility="visible" if shown is None or s.file in shown or s == DEFAULT else "hidden",
            )
            for s in screens
        ]
        for section, screens in PAGES.items()
    }


def screens_shown() -> frozenset[str] | None:
    """The screens of the current dataset's domain (its registry entry's pages); None, so every
    screen, when that cannot be told. Never raises: the menu comes first, whatever the dataset."""
    try:
        from corpus import domain
        from services.datasets import current_domain

        return frozenset(domain.get(current_domain()).pages)
    except Exception:  # noqa: BLE001 - an unreadable or unknown dataset: the pages say why
        return None


def main() -> None:
    st.set_page_config(page_title="Groundwork", page_icon=FAVICON, layout="wide")  # a file: no font fetched
    # Navigation first: nothing before it may raise (see the notes on st.navigation).
    page = st.navigation(streamlit_pages(screens_shown()), expanded=True)
    from components.dataset import sidebar
    from components.errors import guarded
    from services.store import announce_at_start

    announce_at_start()
    guarded(sidebar, "the sidebar")
    guarded(page.run, f"page {page.url_path or '/'}")


if __name__ == "__main__":  # streamlit runs the entry point as __main__; tests import PAGES
    main()
