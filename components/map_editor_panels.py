"""The map editor's side panels: the landmark list and its edits, the checks, the Follower's map."""

from __future__ import annotations

import streamlit as st

from analysis.format import fmt
from components.map_editor import canvas_px, view_png
from components.map_editor_state import EditorState, commit, controlled, notice, plain
from corpus.mapedit import checks
from corpus.mapedit import draft as dr
from corpus.model import summarize_cells

SIDE_BY_SIDE_WIDTH = 420


def _edit(ed: EditorState, fn, label: str, *args) -> None:
    """Apply an edit of the map; a refused edit leaves the map as it was and says why."""
    try:
        commit(ed, fn(ed.draft, *args), label)
    except dr.EditError as exc:
        notice(ed, "error", str(exc))


def _select(ed: EditorState) -> None:
    ed.selected = st.session_state.get("me_selected")


def _rename(ed: EditorState, old: str) -> None:
    new = str(st.session_state.get(f"me_name_{old}", old)).strip()
    _edit(ed, dr.rename_landmark, f"rename '{old}' to '{new}'", old, new)
    if ed.draft.landmark(new) is not None:
        ed.selected = new


def _retype(ed: EditorState, name: str) -> None:
    blocked = bool(st.session_state.get(f"me_blocked_{name}"))
    _edit(ed, dr.set_type, f"'{name}' {'blocked' if blocked else 'open'}", name, dr.BLOCKED if blocked else dr.OPEN)


def _delete(ed: EditorState, name: str) -> None:
    _edit(ed, dr.delete_landmark, f"delete '{name}'", name)


def _span(lo: int, hi: int) -> str:
    return str(lo) if lo == hi else f"{lo}-{hi}"


def landmark_rows(draft: dr.Draft) -> list[dict]:
    """One row per landmark: name, type, cell count, bounding box, centroid, moved on the Follower's map."""
    moved = set(draft.moved())
    rows = []
    for name, lm in draft.landmarks:
        s = summarize_cells(list(lm.cells)) if lm.cells else None
        rows.append(
            {
                "landmark": name,
                "type": lm.type,
                "cells": len(lm.cells),
                "rows": _span(s.bbox.row_min, s.bbox.row_max) if s else "",
                "columns": _span(s.bbox.col_min, s.bbox.col_max) if s else "",
                "centroid": f"{fmt(s.centroid[0], 2)}, {fmt(s.centroid[1], 2)}" if s else "",
                "moved for the Follower": name in moved,
            }
        )
    return rows


def landmarks(ed: EditorState) -> None:
    draft = ed.draft
    st.subheader("Landmarks")
    if not draft.landmarks:
        st.caption("No landmark yet: draw one with a landmark tool.")
        return
    st.dataframe(landmark_rows(draft), hide_index=True, width="stretch", key="me_landmark_table")
    controlled("me_selected", ed.selected if ed.selected in draft.names else draft.names[-1])
    name = st.selectbox("Selected landmark", draft.names, key="me_selected", on_change=_select, args=(ed,))
    ed.selected = name
    if not ed.can_edit:
        return
    lm = draft.landmark(name)
    st.text_input(
        "Name", value=name, key=f"me_name_{name}", on_change=_rename, args=(ed, name), help="Press Enter to rename."
    )
    c2, c3 = st.columns(2, vertical_alignment="center")
    c2.toggle(
        "Blocked",
        value=lm.blocked,
        key=f"me_blocked_{name}",
        on_change=_retype,
        args=(ed, name),
        help="The route may not cross a blocked landmark.",
    )
    c3.button("Delete", key="me_delete", icon=":material/delete:", on_click=_delete, args=(ed, name))


def problems(ed: EditorState) -> list[checks.Problem]:
    """Every problem of the map as it is now (checked on every run: the checks are cheap)."""
    return checks.check(ed.draft)


def checks_panel(problems: list[checks.Problem]) -> None:
    st.subheader("Checks")
    if not problems:
        st.success(
            "No problems: the route is connected, runs from the start to the finish and crosses no blocked "
            "landmark; the landmarks lie inside the grid and do not overlap."
        )
        return
    n_err = len(checks.errors(problems))
    st.caption(
        f"{n_err} error(s), {len(problems) - n_err} warning(s). Cells with an error are boxed in red on the map."
    )
    st.dataframe(
        [p.as_dict() for p in problems],
        hide_index=True,
        width="stretch",
        key="me_problems",
        column_config={
            "severity": st.column_config.TextColumn(width="small"),
            "problem": st.column_config.TextColumn(width="large"),
        },
    )


def _shift(ed: EditorState, name: str) -> None:
    rows, cols = int(st.session_state.get("me_shift_rows", 0)), int(st.session_state.get("me_shift_cols", 0))
    _edit(ed, dr.shift_on_follower, f"move '{name}' by {rows}, {cols} on the Follower's map", name, rows, cols)


def _reset_follower(ed: EditorState) -> None:
    _edit(ed, dr.reset_follower, "Follower's map = Guide's")


def follower(ed: EditorState) -> None:
    """The Follower's variant: move one landmark; both maps side by side."""
    draft = ed.draft
    st.subheader("The Follower's map")
    moved = draft.moved()
    st.caption(
        "In the task the Follower's map differs from the Guide's in one landmark. Select it, pick "
        '"Follower\'s map" above the canvas and draw it where the Follower sees it, or move it here. '
        + (f"Moved: {plain(', '.join(moved))}." if moved else "No landmark is moved yet.")
    )
    if ed.can_edit and ed.selected is not None:
        c1, c2, c3, c4 = st.columns([1, 1, 2, 2], vertical_alignment="bottom")
        c1.number_input("Rows down", -draft.grid_size[0], draft.grid_size[0], 0, key="me_shift_rows")
        c2.number_input("Columns right", -draft.grid_size[1], draft.grid_size[1], 0, key="me_shift_cols")
        c3.button(
            "Move the selected landmark",
            key="me_shift",
            on_click=_shift,
            args=(ed, ed.selected),
            help="On the Follower's map only.",
        )
        c4.button(
            "Follower's map = Guide's",
            key="me_reset_follower",
            on_click=_reset_follower,
            args=(ed,),
            disabled=draft.follower is None,
        )
    left, right = st.columns(2)
    for col, view in ((left, dr.GUIDE), (right, dr.FOLLOWER)):
        with col:
            st.image(
                view_png(ed, draft, view, _small(ed, draft)),
                caption=checks.VIEW_NAMES[view].removeprefix("the ").capitalize(),
            )


def _small(ed: EditorState, draft: dr.Draft) -> tuple[int, int]:
    w, h = canvas_px(ed, draft)
    scale = min(1.0, SIDE_BY_SIDE_WIDTH / w)
    return max(1, round(w * scale)), max(1, round(h * scale))
