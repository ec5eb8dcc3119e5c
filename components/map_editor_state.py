"""The map editor's work in the browser session: the edit history, the images, the canvas context.

It lives under one plain ``st.session_state`` key (not a widget's), so it survives reruns and
switching to another page and back. Every change of the map goes through :func:`commit`, which
records it for undo; problems of an edit go to :func:`notice` and are shown once, while the work
is kept as it was.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from corpus.escape import md_text
from corpus.mapedit.draft import GUIDE, Draft
from corpus.mapedit.history import History
from corpus.mapedit.image import MapImage

STATE_KEY = "map_editor"
EDIT_ROLES = ("lead", "coder")
plain = md_text  # text from a map or a file, safe inside Streamlit Markdown


@dataclass
class EditorState:
    history: History | None = None
    images: dict[str, MapImage] = field(default_factory=dict)
    generation: int = 0  # the canvas's key changes after every stroke taken in (a fresh canvas)
    context: dict | None = None  # frame, tool, target and view of the canvas last shown
    selected: str | None = None  # the landmark being edited
    notices: list[tuple[str, str]] = field(default_factory=list)  # about the latest action
    notices_shown: bool = False  # the notices have been on screen (the next action replaces them)
    can_edit: bool = False
    last_attach: Any = None  # the last AttachResult, shown under the attach button

    @property
    def draft(self) -> Draft | None:
        return self.history.current if self.history is not None else None

    @property
    def image(self) -> MapImage | None:
        d = self.draft
        return self.images.get(d.image) if d is not None and d.image else None

    @property
    def view(self) -> str:
        return st.session_state.get("me_view", GUIDE)


def editor_state() -> EditorState:
    ed = st.session_state.get(STATE_KEY)
    if not isinstance(ed, EditorState):
        ed = EditorState()
        st.session_state[STATE_KEY] = ed
    return ed


def commit(ed: EditorState, draft: Draft, label: str, image: MapImage | None = None) -> None:
    """Make ``draft`` the current map (undoable); keep ``image`` if one comes with it."""
    if image is not None:
        ed.images[image.digest] = image
    _forget_shown_notices(ed)  # what an earlier action said was about the map before this edit
    if ed.history is None:
        ed.history = History.starting(draft, label)
    else:
        ed.history.push(draft, label)
    if ed.selected not in draft.names:
        ed.selected = draft.names[-1] if draft.names else None


def notice(ed: EditorState, kind: str, text: str) -> None:
    """A message about the action just taken (``kind``: success, info, warning, error). It stays on
    screen until the next action says something or edits the map: a run the canvas asks for on its
    own does not take it away before it is read."""
    _forget_shown_notices(ed)
    ed.notices.append((kind, text))


def _forget_shown_notices(ed: EditorState) -> None:
    """Drop the notices once they have been on screen (a new action is speaking)."""
    if ed.notices_shown:
        ed.notices.clear()
        ed.notices_shown = False


def show_notices(ed: EditorState) -> None:
    for kind, text in ed.notices:
        getattr(st, kind)(plain(text))
    ed.notices_shown = True


def controlled(key: str, value: Any) -> None:
    """Set a widget's value from the editor's state before the widget is drawn."""
    if st.session_state.get(key) != value:
        st.session_state[key] = value
