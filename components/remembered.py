"""Widget choices remembered for the whole browser session, across pages.

Streamlit forgets a widget's value when its page is left. :func:`remembered` keeps a copy under a
key of its own whenever the user changes the widget, and puts it back (through the Session State
API) before the widget is drawn on any page, unless the current dataset does not offer it (then
the widget starts from its default). Usage: ``st.multiselect(label, options, key=key, **remembered(key, options))``.

The analysis filters and label sources also live in the address (:data:`IN_LINK`: ``?conditions=visible
&roles=guide&mm=...``), written whenever they are set: a reload, a bookmark or a copied link opens the
page with the same choices (a value the dataset does not offer is ignored).
"""

from __future__ import annotations

import streamlit as st

# Widget key -> its name in the address; the multiselects' values are repeated parameters.
IN_LINK = {
    "an_roles": "roles",
    "an_conditions": "conditions",
    "an_splits": "splits",
    "an_sessions": "sessions",
    "an_mm": "mm",
    "an_acts": "acts",
    "an_progress": "progress",
    "an_progress_bins": "bins",
}
MULTI = {"an_roles", "an_conditions", "an_splits", "an_sessions"}


def _saved(key: str) -> str:
    return f"_remembered_{key}"


def _save(key: str) -> None:
    st.session_state[_saved(key)] = st.session_state[key]
    _to_link(key)


def _to_link(key: str) -> None:
    """The saved value of ``key`` into the address (removed when it is empty or none)."""
    name = IN_LINK.get(key)
    if name is None:
        return
    value = st.session_state.get(_saved(key))
    values = [str(v) for v in (value if isinstance(value, (list, tuple)) else [value]) if v is not None]
    if not values:
        if name in st.query_params:
            del st.query_params[name]
        return
    if st.query_params.get_all(name) != values:
        st.query_params[name] = values if key in MULTI else values[0]


def _from_link(key: str, options: list) -> None:
    """A value the address holds for ``key``, kept as if chosen (when the dataset offers it)."""
    name = IN_LINK.get(key)
    if name is None or _saved(key) in st.session_state or name not in st.query_params:
        return
    by_text = {str(o): o for o in options}
    given = st.query_params.get_all(name)
    if given and all(v in by_text for v in given):
        st.session_state[_saved(key)] = [by_text[v] for v in given] if key in MULTI else by_text[given[0]]


def remembered(key: str, options: list) -> dict:
    """Put the saved copy of ``key`` back (if every saved value is among ``options``; else forget
    it); return the ``on_change`` arguments that keep the copy up to date."""
    _from_link(key, options)
    if _saved(key) in st.session_state:
        value = st.session_state[_saved(key)]
        values = value if isinstance(value, (list, tuple)) else [value]
        if all(v in options for v in values):
            st.session_state[key] = value
        else:
            del st.session_state[_saved(key)]
            st.session_state.pop(key, None)
    _to_link(key)
    return {"on_change": _save, "args": (key,)}


def is_restored(key: str) -> bool:
    """Whether the widget's value was put back (then it must be drawn without a default)."""
    return _saved(key) in st.session_state


def filters_in_link() -> list[tuple[str, list[str]]]:
    """(address name, values) of the analysis filters set now, in :data:`IN_LINK`'s order."""
    out = []
    for key, name in IN_LINK.items():
        if key not in MULTI:
            continue
        value = st.session_state.get(_saved(key))
        if value:
            out.append((name, [str(v) for v in value]))
    return out
