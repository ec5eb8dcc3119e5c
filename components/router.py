"""Deep links on a fresh server.

Streamlit decides once per process whether the app uses the ``pages/`` folder's automatic menu,
and only learns otherwise when ``app.py`` calls ``st.navigation``. If the very first visit to a
fresh server is a deep link (``/replay?session=...``), Streamlit runs that page file directly,
without ``app.py``: no sidebar, no dataset picker, the automatic menu. A page that finds itself
run that way hands over to ``app.py`` with one rerun; the URL (and so the page) is kept.
"""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager


def ensure_routed() -> None:
    """Rerun through ``app.py`` if this page was started by the ``pages/`` folder fallback."""
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()
