"""The coding screen: one item at a time, a code by click or key, every label saved at once.

A coder works through the task's items in their own order (``Store.coder_order``: shuffled per
coder, the same on every visit) and starts at the first item they have not coded. Beside the item
(the action, the k actions before it and the canvas at that moment) sits the codebook; each code
is a button showing its key, and pressing the key presses the button
(``st.button(shortcut=...)``; keys are ignored while typing in the note). A click writes the label
to the store immediately (with a fresh request id, the seconds since the item was shown, the note
and the unsure flag) and moves on to the next item.

The screen reads only this coder's own labels (``Store.my_labels`` and their own history): other
coders' labels are never fetched here, so they cannot leak into the page. Session-state keys start
with ``code_``.
"""

from __future__ import annotations

import time
import uuid

import streamlit as st

from analysis.replay import time_label
from components import grid_canvas
from components.replay import session_frames
from components.text import md_text
from corpus import schema
from corpus.dataset import Corpus
from corpus.store import AccessDenied, Store, StoreError, Task, User
from services.coding import order_and_items

RESERVED_SHORTCUT_KEYS = {"c", "r"}  # Streamlit keeps these for itself
ROLE_NAMES = {"guide": "Guide", "follower": "Follower"}
PHASE_TEXT = {
    "coding": "Coding: labels are blind.",
    "adjudication": "Adjudication: the lead is deciding the gold labels.",
    "revealed": "Revealed: the task is closed; see where the gold label differs from yours.",
}


def _k(task_id: int, name: str) -> str:
    return f"code_{name}_{task_id}"


def shortcut_for(key: str) -> str | None:
    """The Streamlit shortcut for a codebook key, or None when Streamlit cannot bind that key."""
    k = (key or "").strip().lower()
    if len(k) != 1 or not k.isalnum() or k in RESERVED_SHORTCUT_KEYS:
        return None
    return k


# -- choosing a task ----------------------------------------------------------------------------


def task_picker(store: Store, user: User, key: str = "code_task") -> Task | None:
    """A select box of the tasks this user works on (coders: theirs; leads and viewers: all)."""
    tasks = store.tasks_for(user)
    if not tasks:
        if user.role == "coder":
            st.info("No coding task is assigned to you yet. A lead assigns coders on the Tasks page.")
        else:
            st.info("There are no coding tasks yet. A lead creates them on the Tasks page.")
        return None
    by_id = {t.id: t for t in tasks}
    ids = list(by_id)
    if st.session_state.get(key) not in by_id:
        st.session_state[key] = ids[-1]
    chosen = st.selectbox(
        "Task", ids, key=key,
        format_func=lambda i: f"{by_id[i].name} ({by_id[i].n_items} items, {by_id[i].codebook.name} v{by_id[i].codebook.version})",
    )
    return by_id.get(chosen)


# -- the item and its context -------------------------------------------------------------------


def _locate(corpus: Corpus, session_id: str, action_index: int):
    """(session, position of the action in time order) or (None, reason)."""
    session = corpus.sessions.get(session_id)
    if session is None:
        return None, f"session '{session_id}' is not in the dataset '{corpus.info.name}'"
    actions = sorted(session.actions, key=lambda a: a.index)
    for pos, a in enumerate(actions):
        if a.index == action_index:
            return (session, actions, pos), None
    return None, f"session '{session_id}' has no action {action_index} in the dataset '{corpus.info.name}'"


def _describe(a) -> str:
    if a.type == "message":
        return a.text
    n = len(a.cells)
    verbs = {"draw": "drew", "erase": "erased"}
    if a.type in verbs:
        return f"*{verbs[a.type]} {n} cell{'s' if n != 1 else ''}*"
    return {"undo": "*undid the last edit*", "reset": "*cleared the canvas*"}.get(a.type, f"*{a.type}*")


def item_view(corpus: Corpus, task: Task, session_id: str, action_index: int, key: str) -> bool:
    """The action, the k actions before it and the canvas at that moment. False if not found."""
    found, problem = _locate(corpus, session_id, action_index)
    if found is None:
        st.error(
            f"Item {session_id}:{action_index} cannot be shown: {problem}. The task was created on "
            f"'{task.dataset}'; choose that dataset in the sidebar.", icon=":material/error:")
        return False
    session, actions, pos = found
    a = actions[pos]
    st.caption(f"Session {session.id} · condition {session.condition} · action {a.index} at {time_label(a.timestamp)}")
    if task.context_k > 0:
        before = actions[max(0, pos - task.context_k):pos]
        with st.container(border=True):
            st.caption(f"The {len(before)} action(s) before" if before else "This is the first action of the session.")
            for b in before:
                st.markdown(f"<span style='color:#64748b'>{time_label(b.timestamp)} **{ROLE_NAMES.get(b.role, b.role)}**</span> {_describe(b)}",
                            unsafe_allow_html=True)
    with st.container(border=True):
        kind = "message" if a.type == "message" else f"{a.type} ({len(a.cells)} cells)" if a.cells else a.type
        st.markdown(f"**{ROLE_NAMES.get(a.role, a.role)}** · {kind}")
        st.markdown(f"### {_describe(a)}" if a.type == "message" else _describe(a))
    if task.show_canvas:
        drawn_before = any(b.type in schema.DRAWING_TYPES for b in actions[: pos + 1])
        if drawn_before:
            frames = session_frames(corpus, session.id)
            if frames is not None:
                st.plotly_chart(
                    grid_canvas.figure(frames.grid_map, frames.state(pos), view="guide", height=430,
                                       title=f"Canvas after action {a.index}", show_legend=False),
                    key=f"{key}_canvas", width="stretch", config={"displaylogo": False, "displayModeBar": False},
                )
        else:
            st.caption("Nothing has been drawn yet at this moment.")
    return True


def codebook_view(task: Task) -> None:
    cb = task.codebook
    st.caption(f"{cb.name} v{cb.version}")
    for c in cb.codes:
        with st.expander(f"**{c.key}** · {c.name}" + (" (needs a note)" if c.requires_note else "")):
            st.write(c.definition)
            if c.positive:
                st.markdown("**Examples**\n" + "\n".join(f"- {p}" for p in c.positive))
            if c.negative:
                st.markdown("**Not this code**\n" + "\n".join(f"- {n}" for n in c.negative))


# -- actions ------------------------------------------------------------------------------------


def _give_label(store: Store, user: User, task: Task, order: list[str], pos: int, code: str) -> None:
    """Button callback: write the label now, then move on."""
    s = st.session_state
    item = order[pos]
    note = s.get(_k(task.id, f"note_{item}"), "") or ""
    unsure = bool(s.get(_k(task.id, f"unsure_{item}"), False))
    shown_item, shown_at = s.get(_k(task.id, "shown"), (None, None))
    seconds = round(time.time() - shown_at, 2) if shown_item == item and shown_at else None
    try:
        store.add_label(user, task.id, item, code, note=note, unsure=unsure, seconds=seconds,
                        request_id=uuid.uuid4().hex)
    except (StoreError, AccessDenied) as exc:
        s[_k(task.id, "msg")] = ("error", str(exc), item)
        return
    name = task.codebook.by_code(code).name
    s[_k(task.id, "msg")] = ("success", f"Saved **{name}** for item {pos + 1}.", item)
    if s.get("code_autoadvance", True) and pos + 1 < len(order):
        s[_k(task.id, "pos")] = pos + 1


def _move(task: Task, pos: int) -> None:
    st.session_state[_k(task.id, "pos")] = pos
    st.session_state.pop(_k(task.id, "msg"), None)


def _next_uncoded(order: list[str], done: set[str], pos: int) -> int | None:
    n = len(order)
    for step in range(1, n + 1):
        j = (pos + step) % n
        if order[j] not in done:
            return j
    return None


# -- the screen ---------------------------------------------------------------------------------


def coding_screen(store: Store, user: User, task: Task, corpus: Corpus) -> None:
    """The whole coding screen for one task (reruns on its own when a code is given)."""
    st.caption(PHASE_TEXT.get(task.phase, task.phase))
    if task.dataset_hash not in (None, corpus.content_hash):
        st.warning(f"This task was made on the dataset '{md_text(task.dataset)}', but the sidebar shows "
                   f"'{md_text(corpus.info.name)}' (other data). Items are looked up in the dataset shown.")
    _screen(store, user, task.id, corpus)


@st.fragment
def _screen(store: Store, user: User, task_id: int, corpus: Corpus) -> None:
    task = store.task(task_id)
    order, items = order_and_items(store, user, task_id)
    mine = store.my_labels(user, task.id)
    done = set(mine["item_id"])
    current = mine.set_index("item_id") if not mine.empty else mine
    assigned = any(c.id == user.id for c in store.coders(task.id))
    can_label = assigned and user.role != "viewer" and task.phase == "coding"

    s = st.session_state
    pos_key = _k(task.id, "pos")
    if pos_key not in s:  # resume at the first item this coder has not coded
        first = next((i for i, it in enumerate(order) if it not in done), None)
        s[pos_key] = first if first is not None else 0
    pos = max(0, min(int(s[pos_key]), len(order) - 1))
    item = order[pos]
    if s.get(_k(task.id, "shown"), (None,))[0] != item:
        s[_k(task.id, "shown")] = (item, time.time())

    if not can_label:
        if user.role == "viewer":
            st.info("You are signed in as a viewer: you can look at the coding screen, but nothing you do is saved.",
                    icon=":material/visibility:")
        elif task.phase == "revealed":
            st.info("This task is closed: the gold labels have been revealed.", icon=":material/lock:")
        elif task.phase == "adjudication":
            st.info("This task is being adjudicated: labels are frozen.", icon=":material/lock:")
        else:
            st.info("You are not a coder of this task: the code buttons are disabled.", icon=":material/lock:")

    n_done = len(done)
    st.progress(n_done / max(len(order), 1), text=f"{n_done} of {len(order)} items coded")
    nav = st.columns([1, 1, 1.4, 1.4, 3])
    nav[0].button("Back", key=_k(task.id, "back"), on_click=_move, args=(task, pos - 1), disabled=pos == 0,
                  icon=":material/arrow_back:", shortcut="Left", width="stretch")
    nav[1].button("Next", key=_k(task.id, "next"), on_click=_move, args=(task, pos + 1), disabled=pos >= len(order) - 1,
                  icon=":material/arrow_forward:", shortcut="Right", width="stretch")
    nxt = _next_uncoded(order, done, pos)
    nav[2].button("Next uncoded", key=_k(task.id, "uncoded"), on_click=_move, args=(task, nxt if nxt is not None else pos),
                  disabled=nxt is None, icon=":material/skip_next:", width="stretch")
    nav[3].toggle("Auto-advance", value=True, key="code_autoadvance")
    nav[4].markdown(f"Item **{pos + 1}** of {len(order)} · `{item}`")

    left, right = st.columns([3, 2], gap="large")
    with left:
        row = items.loc[item]
        item_view(corpus, task, str(row["session_id"]), int(row["action_index"]), key=_k(task.id, "item"))
    with right:
        msg = s.get(_k(task.id, "msg"))
        if msg:
            kind, text, about = msg
            if kind == "error" and about == item:
                st.error(text, icon=":material/error:")
            elif kind == "success":
                st.success(text, icon=":material/check:")
        if item in done:
            cur = current.loc[item]
            extra = []
            if cur["note"]:
                extra.append(f"note: “{cur['note']}”")
            if bool(cur["unsure"]):
                extra.append("unsure")
            st.info(f"Your label: **{task.codebook.by_code(cur['code']).name if cur['code'] in task.codebook.code_ids else cur['code']}**"
                    + (f" ({'; '.join(extra)})" if extra else "") + ". Pick another code to relabel; the history is kept.",
                    icon=":material/check_circle:")
        cols = st.columns(2)
        for i, c in enumerate(task.codebook.codes):
            shortcut = shortcut_for(c.key)
            cols[i % 2].button(
                c.name if shortcut else f"{c.key} {c.name}", key=_k(task.id, f"btn_{c.code}"), on_click=_give_label,
                args=(store, user, task, order, pos, c.code), disabled=not can_label,
                shortcut=shortcut, width="stretch",
                type="primary" if item in done and current.loc[item]["code"] == c.code else "secondary",
                help=c.definition,
            )
        st.text_input("Note" + (" (required for: " + ", ".join(c.name for c in task.codebook.codes if c.requires_note) + ")"
                                if any(c.requires_note for c in task.codebook.codes) else " (optional)"),
                      key=_k(task.id, f"note_{item}"), disabled=not can_label,
                      placeholder="Why this code? Press Enter, then the code's key.")
        st.checkbox("Unsure", key=_k(task.id, f"unsure_{item}"), disabled=not can_label)
        if item in done:
            hist = store.history(user, task.id, item)
            hist = hist[hist["coder"] == user.username]  # this coder's own history, in every phase
            with st.expander(f"My history for this item ({len(hist)} label{'s' if len(hist) != 1 else ''})"):
                st.dataframe(
                    hist[["created_at", "code", "note", "unsure", "seconds", "codebook_version"]],
                    hide_index=True, width="stretch",
                )
        st.divider()
        codebook_view(task)


# -- what a coder may see of the others ---------------------------------------------------------


def feedback_view(store: Store, user: User, task: Task) -> None:
    """After the reveal: the items where gold differs from this coder's label, with the lead's note."""
    if task.phase != "revealed":
        return
    st.subheader("Feedback")
    try:
        fb = store.feedback(user, task.id)
    except AccessDenied as exc:
        st.info(str(exc))
        return
    mine = store.my_labels(user, task.id)
    if mine.empty:
        st.info("You gave no labels in this task.")
        return
    agree = len(mine) - len(fb)
    st.write(f"Gold agrees with your label on {agree} of {len(mine)} items you coded.")
    if fb.empty:
        st.success("Gold agrees with every label you gave.")
        return
    names = {c.code: c.name for c in task.codebook.codes}
    view = fb.assign(my_code=fb["my_code"].map(lambda c: names.get(c, c)), gold_code=fb["gold_code"].map(lambda c: names.get(c, c)))
    st.dataframe(view[["item_id", "my_code", "gold_code", "provenance", "lead_note", "error_type", "my_note"]],
                 hide_index=True, width="stretch",
                 column_config={"my_code": "My label", "gold_code": "Gold", "lead_note": "Lead's note", "my_note": "My note"})
