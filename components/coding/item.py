"""One item to code: the action, a window of the actions before and after it, the Follower's canvas
at that moment with a legend, and a link to the same moment in Replay.

Every text from the dataset goes through :func:`corpus.escape.md_text`: a message is shown as
typed, never as Markdown or HTML.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from analysis.replay import time_label
from components import grid_canvas
from components.replay import session_frames
from corpus import schema
from corpus.escape import md_text
from corpus.kitchen.dataset import DOMAIN as KITCHEN
from corpus.kitchen.dataset import KitchenCorpus
from corpus.loading.dataset import Corpus
from corpus.store import Task

ROLE_NAMES = {"guide": "Guide", "follower": "Follower"}
CONTEXT_CHOICES = (0, 1, 2, 3, 5, 8, 12, 20)
DEFAULT_AFTER = 2
CANVAS_MARKS = "The coloured squares below the map are its legend; ○ marks the start and × the finish."
MISPLACED_MARK = (
    "A pink outline marks a landmark placed differently on the two maps: solid where the Guide's map "
    "has it, dashed where the Follower's map has it."
)


def replay_url(session_id: str, step: int) -> str:
    """The Replay page at this session and step (a position in the session's time order), relative
    to the app, so it works under any base path."""
    return "replay?" + urlencode({"session": session_id, "step": int(step)})


def describe(a) -> str:
    """An action as Markdown: a message as typed (escaped), any other action in words, in italics."""
    if a.type == "message":
        return md_text(a.text)
    n = len(a.cells)
    verbs = {"draw": "drew", "erase": "erased"}
    if a.type in verbs:
        return f"*{verbs[a.type]} {n} cell{'s' if n != 1 else ''}*"
    return {"undo": "*undid the last edit*", "reset": "*cleared the canvas*"}.get(a.type, f"*{md_text(a.type)}*")


def _line(a, tag: str = "") -> str:
    return f"{tag}`{time_label(a.timestamp)}` **{ROLE_NAMES.get(a.role, md_text(a.role))}** {describe(a)}"


def context_text(actions: list, pos: int, before: int, after: int) -> tuple[str, str]:
    """(the ``before`` actions before position ``pos``, the ``after`` actions after it) as Markdown
    lines; the later ones are tagged as after the item."""
    earlier = actions[max(0, pos - before) : pos] if before > 0 else []
    later = actions[pos + 1 : pos + 1 + after] if after > 0 else []
    head = (
        f"{len(earlier)} earlier action{'s' if len(earlier) != 1 else ''}"
        if earlier
        else "This is the first action of the session."
        if pos == 0 and before > 0
        else ""
    )
    tail = "" if later or after == 0 else "This is the last action of the session."
    lines_before = "  \n".join([f"*{head}*"] * bool(head) + [_line(b) for b in earlier])
    lines_after = "  \n".join([_line(b, ":blue-badge[after the item] ") for b in later] + [f"*{tail}*"] * bool(tail))
    return lines_before, lines_after


def context_window(task: Task, key: str) -> tuple[int, int]:
    """The coder's choice of how many actions to show before and after the item (the task's number
    before, :data:`DEFAULT_AFTER` after, until changed)."""
    choices = sorted(set(CONTEXT_CHOICES) | {int(task.context_k)})
    s = st.session_state
    before, after = s.get(f"{key}_before", int(task.context_k)), s.get(f"{key}_after", DEFAULT_AFTER)
    with st.popover(
        f"Context: {before} before · {after} after",
        icon=":material/tune:",
        width="stretch",
        help="How many actions to show before and after the item",
    ):
        before = st.select_slider("Actions shown before the item", choices, value=before, key=f"{key}_before")
        after = st.select_slider("Actions shown after the item", choices, value=after, key=f"{key}_after")
    return int(before), int(after)


def _locate(corpus: Corpus, session_id: str, action_index: int):
    """(session, actions in time order, position of the action) or (None, reason)."""
    session = corpus.sessions.get(session_id)
    if session is None:
        return None, f"session '{session_id}' is not in the dataset '{corpus.info.name}'"
    actions = sorted(session.actions, key=lambda a: a.index)
    for pos, a in enumerate(actions):
        if a.index == action_index:
            return (session, actions, pos), None
    return None, f"session '{session_id}' has no action {action_index} in the dataset '{corpus.info.name}'"


def item_view(
    corpus: Corpus | KitchenCorpus,
    task: Task,
    session_id: str,
    action_index: int,
    key: str,
    adjustable: bool = False,
) -> bool:
    """The action with the task's number of actions before it (or, if ``adjustable``, as many
    before and after it as the coder chooses), the canvas at that moment and a link to Replay; on
    kitchen runs, the request unit (:func:`components.coding.kitchen_item.unit_view`). False if
    the item is not found."""
    if corpus.domain == KITCHEN:
        from components.coding.kitchen_item import unit_view

        return unit_view(corpus, task, session_id, action_index, key, adjustable)
    found, problem = _locate(corpus, session_id, action_index)
    if found is None:
        st.error(
            f"Item {md_text(session_id)}:{action_index} cannot be shown: {md_text(problem)}. The task was created "
            f"on '{md_text(task.dataset)}'; choose that dataset in the sidebar.",
            icon=":material/error:",
        )
        return False
    session, actions, pos = found
    a = actions[pos]
    st.caption(
        f"Session {md_text(session.id)} · condition {md_text(session.condition)} · action {a.index + 1} "
        f"at {time_label(a.timestamp)}"
    )
    window, link = st.columns(2, vertical_alignment="center", gap="small")
    with window:
        before, after = context_window(task, key) if adjustable else (int(task.context_k), 0)
    link.link_button(
        "Open in Replay",
        replay_url(session.id, pos),
        icon=":material/open_in_new:",
        width="stretch",
        help="This moment of the session in the Replay page, in a new tab",
    )
    earlier, later = context_text(actions, pos, before, after)
    if earlier:
        st.caption(earlier)
    with st.container(border=True):
        kind = "message" if a.type == "message" else f"{a.type} ({len(a.cells)} cells)" if a.cells else a.type
        st.markdown(f"**{ROLE_NAMES.get(a.role, md_text(a.role))}** · {md_text(kind)} · the item to code")
        st.markdown(f"#### {describe(a)}" if a.type == "message" else describe(a))
    if later:
        st.caption(later)
    if task.show_canvas:
        canvas(corpus, session.id, actions, pos, key)
    return True


def canvas(corpus: Corpus, session_id: str, actions: list, pos: int, key: str) -> None:
    """The Guide's map with the Follower's drawing after the action at ``pos``, and its legend."""
    if not any(b.type in schema.DRAWING_TYPES for b in actions[: pos + 1]):
        st.caption("Nothing has been drawn yet at this moment.")
        return
    frames = session_frames(corpus, session_id)
    if frames is None:
        return
    st.plotly_chart(
        grid_canvas.figure(
            frames.grid_map,
            frames.state(pos),
            view="guide",
            height=470,
            title=f"Canvas after action {actions[pos].index + 1}",
            show_legend=True,
        ),
        key=f"{key}_canvas",
        width="stretch",
        config={"displaylogo": False, "displayModeBar": False},
    )
    st.caption(CANVAS_MARKS + (" " + MISPLACED_MARK if frames.grid_map.misplaced_landmarks() else ""))
