"""The map editor's drawing canvas (streamlit-drawable-canvas 0.13), its tools, undo and redo.

Every stroke is taken in on the run that follows it: :func:`take_strokes` reads the canvas's
objects, turns each into an edit of the map (:func:`corpus.mapedit.tools.apply_stroke`), and the
canvas comes back empty under a new key, over a background that now shows the new cells. So the
map, not the canvas, holds the work: undo and redo are the map's, and a stroke that cannot be
taken in is reported without touching what was there. The canvas's own toolbar (its undo, redo,
reset and edit) is hidden, so the map's Undo and Redo are the one history. This is the only module
that imports ``streamlit_drawable_canvas``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from analysis.format import fmt_share
from components import map_editor_image as view_image
from components.map_editor_state import EditorState, commit, notice, plain
from corpus.importers.asciimap import DEFAULT_INK_SHARE
from corpus.mapedit import checks
from corpus.mapedit.draft import FOLLOWER, GUIDE, Draft, EditError
from corpus.mapedit.strokes import CanvasFrame
from corpus.mapedit.tools import LANDMARK_TOOLS, TOOLS, apply_stroke, canvas_mode
from corpus.model import Cell
from services import map_editor as service

MAX_WIDTH, MAX_HEIGHT = 620, 720
_one_history = st.components.v2.component(
    "groundwork_canvas_one_history",
    js=(Path(__file__).parent / "assets" / "canvas_one_history.js").read_text(encoding="utf-8"),
    isolate_styles=False,
)
SHARE = DEFAULT_INK_SHARE
VIEW_LABELS = {GUIDE: "Guide's map", FOLLOWER: "Follower's map (move a landmark)"}
NEW_LANDMARK = "a new landmark"
MORE_CELLS = "more cells for the selected landmark"
_COLORS = {  # stroke, fill
    "rect": ("#7c3aed", "rgba(124, 58, 237, 0.25)"),
    "polygon": ("#7c3aed", "rgba(124, 58, 237, 0.25)"),
    "freehand": ("#7c3aed", "rgba(124, 58, 237, 0.25)"),
    "route": ("#b45309", "rgba(0, 0, 0, 0)"),
    "start": ("#16a34a", "#16a34a"),
    "finish": ("#7c3aed", "#7c3aed"),
}


def rule_text(share: float = SHARE) -> str:
    return (
        f"A cell counts when the stroke covers at least {fmt_share(share)} of it (the rule the platform importer "
        "uses for ink). Rectangles and polygons cover their area, a free stroke its ink (closed, the area it "
        "encloses), a point the cell under it."
    )


def canvas_key(ed: EditorState) -> str:
    return f"me_canvas_{ed.generation}"


def canvas_px(ed: EditorState, draft: Draft) -> tuple[int, int]:
    image = ed.image
    if image is not None:
        return view_image.canvas_size(image.width, image.height, MAX_WIDTH, MAX_HEIGHT)
    rows, cols = draft.grid_size
    return view_image.canvas_size(cols, rows, MAX_WIDTH, MAX_HEIGHT)


def _draw(draft: Draft, size: tuple[int, int], base, view: str, selected: str | None, problems: frozenset) -> bytes:  # noqa: ANN001
    return view_image.png(view_image.render(draft, size, base, view=view, selected=selected, problems=problems))


def view_png(
    ed: EditorState,
    draft: Draft,
    view: str = GUIDE,
    size: tuple[int, int] | None = None,
    problems: frozenset[Cell] = frozenset(),
) -> bytes:
    """The map's ``view`` over its image, as PNG (drawn again only when something in it changed)."""
    return service.view_png(draft, size or canvas_px(ed, draft), ed.image, view, ed.selected, problems, _draw)


def _objects(value) -> list[dict]:
    try:
        objects = value["drawing"]["raw"]["objects"]
    except (KeyError, TypeError):
        return []
    return [o for o in objects or [] if isinstance(o, dict)]


def take_strokes(ed: EditorState) -> None:
    """Turn the strokes on the canvas last shown into edits of the map (one undo step each)."""
    ctx = ed.context
    if ctx is None or ed.draft is None or not ed.can_edit:
        return
    objects = _objects(st.session_state.get(canvas_key(ed)))
    if not objects:
        return
    frame = CanvasFrame(*ctx["frame"])
    draft = ed.draft
    if tuple(draft.grid_size) != (frame.rows, frame.cols):
        objects = []  # the map changed under the canvas (undo, a new map): the stroke is void
    for obj in objects:
        try:
            draft, label = apply_stroke(
                draft, obj, frame, ctx["tool"], target=ctx["target"], view=ctx["view"], share=SHARE
            )
        except EditError as exc:
            notice(ed, "warning", f"Stroke not taken: {exc}")
            continue
        commit(ed, draft, label)
        if ctx["tool"] in LANDMARK_TOOLS and ctx["target"] is None and ctx["view"] == GUIDE:
            ed.selected = draft.names[-1]
    ed.generation += 1  # the next canvas starts empty


def tool_bar(ed: EditorState) -> tuple[str, str | None, int]:
    """The tool, the landmark a landmark stroke goes to (None: a new one), and the brush width."""
    view = ed.view
    tools = list(TOOLS) if view == GUIDE else list(LANDMARK_TOOLS)
    tool = st.radio("Draw", tools, format_func=lambda t: TOOLS[t][0], horizontal=True, key=f"me_tool_{view}")
    target = None
    if tool in LANDMARK_TOOLS:
        if view == FOLLOWER:
            st.caption("A landmark stroke moves the selected landmark on the Follower's map to where it is drawn.")
            target = ed.selected
        elif ed.selected is not None:
            into = st.radio("Landmark strokes make", [NEW_LANDMARK, MORE_CELLS], horizontal=True, key="me_into")
            target = ed.selected if into == MORE_CELLS else None
    brush = 2
    if TOOLS[tool][1] == "freedraw":
        frame_w, frame_h = canvas_px(ed, ed.draft)
        cell = min(frame_w / ed.draft.grid_size[1], frame_h / ed.draft.grid_size[0])
        default = int(max(2, min(40, round(cell * 0.6))))
        if "me_brush" not in st.session_state:
            st.session_state["me_brush"] = default
        brush = st.slider(
            "Brush width (canvas pixels)",
            1,
            40,
            key="me_brush",
            help=f"About {default} px, 0.6 of a cell, draws a route one cell wide.",
        )
    return tool, target, brush


def canvas(ed: EditorState, tool: str, target: str | None, brush: int, problems: list[checks.Problem]) -> None:
    """The canvas over the map's current view; remembers what a stroke on it will mean."""
    from streamlit_drawable_canvas import st_canvas

    draft = ed.draft
    view = ed.view
    width, height = canvas_px(ed, draft)
    marks = frozenset(checks.problem_cells(problems))
    background = view_png(ed, draft, view, (width, height), marks)
    ed.context = {
        "frame": (width, height, draft.grid_size[0], draft.grid_size[1]),
        "tool": tool,
        "target": target,
        "view": view,
    }
    stroke, fill = _COLORS[tool]
    st_canvas(
        fill_color=fill,
        stroke_width=brush if TOOLS[tool][1] == "freedraw" else 2,
        stroke_color=stroke,
        background_image=background,
        height=height,
        width=width,
        drawing_mode=canvas_mode(tool),
        point_display_radius=4,
        key=canvas_key(ed),
        disabled=not ed.can_edit,
        initial_drawing={"objects": []},
    )
    _one_history(key="me_one_history")
    rows, cols = draft.grid_size
    st.caption(
        f"{rows} x {cols} grid over {'the image ' + str(ed.image.width) + ' x ' + str(ed.image.height) if ed.image else 'a blank canvas'}; "
        f"{width} x {height} px on screen. {rule_text()} Each stroke is taken into the map at once; "
        "Undo and Redo above step through the map's edits."
    )


def _step(ed: EditorState, back: bool) -> None:
    draft = ed.history.undo() if back else ed.history.redo()
    if ed.selected not in draft.names:
        ed.selected = draft.names[-1] if draft.names else None
    ed.generation += 1  # a stroke drawn on the old map is not taken in


def undo_bar(ed: EditorState) -> None:
    """Undo, redo, the last edit, and which map the canvas shows."""
    h = ed.history
    cols = st.columns(2)
    cols[0].button(
        "Undo",
        key="me_undo",
        icon=":material/undo:",
        on_click=_step,
        args=(ed, True),
        width="stretch",
        disabled=not (ed.can_edit and h.can_undo),
        help=f"Undo: {plain(h.undo_label)}" if h.can_undo else "Nothing to undo",
    )
    cols[1].button(
        "Redo",
        key="me_redo",
        icon=":material/redo:",
        on_click=_step,
        args=(ed, False),
        width="stretch",
        disabled=not (ed.can_edit and h.can_redo),
        help=f"Redo: {plain(h.redo_label)}" if h.can_redo else "Nothing to redo",
    )
    st.caption(f"Last edit: {plain(h.entries[h.pos][0])} · step {h.pos} of {len(h.entries) - 1}")
    st.radio("Map on the canvas", [GUIDE, FOLLOWER], format_func=VIEW_LABELS.get, horizontal=True, key="me_view")
