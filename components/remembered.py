"""Widget choices remembered for the whole browser session, across pages.

Streamlit forgets a widget's value when its page is left. :func:`remembered` keeps a copy under a
key of its own whenever the user changes the widget, and puts it back (through the Session State
API) before the widget is drawn on any page, unless the current dataset does not offer it (then
the widget starts from its default). Usage: ``st.multiselect(label, options, key=key, **remembered(key, options))``.
"""

from __future__ import annotations

import streamlit as st


def _saved(key: str) -> str:
    return f"_remembered_{key}"


def _save(key: str) -> None:
    st.session_state[_saved(key)] = st.session_state[key]


def remembered(key: str, options: list) -> dict:
    """Put the saved copy of ``key`` back (if every saved value is among ``options``; else forget
    it); return the ``on_change`` arguments that keep the copy up to date."""
    if _saved(key) in st.session_state:
        value = st.session_state[_saved(key)]
        values = value if isinstance(value, (list, tuple)) else [value]
        if all(v in options for v in values):
            st.session_state[key] = value
        else:
            del st.session_state[_saved(key)]
            st.session_state.pop(key, None)
    return {"on_change": _save, "args": (key,)}


def is_restored(key: str) -> bool:
    """Whether the widget's value was put back (then it must be drawn without a default)."""
    return _saved(key) in st.session_state
