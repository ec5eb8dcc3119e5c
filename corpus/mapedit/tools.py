"""The editor's drawing tools: what a stroke drawn with each one does to the map.

| tool | canvas mode | a stroke |
|---|---|---|
| ``rect`` | rectangle | a new landmark (or cells added to the chosen one) |
| ``polygon`` | polygon | the same, the polygon's area |
| ``freehand`` | free drawing | the same, the brush's ink (or, closed, the outline's area) |
| ``route`` | free drawing | continues the route (:func:`corpus.mapedit.strokes.route_cells`) |
| ``start``, ``finish`` | point | places the start or the finish |

On the Follower's map a landmark stroke moves the chosen landmark there: its cells on the
Follower's map become the stroke's.
"""

from __future__ import annotations

from typing import Any

from corpus.importers.asciimap import DEFAULT_INK_SHARE
from corpus.mapedit import draft as dr
from corpus.mapedit.strokes import CanvasFrame, StrokeError, object_cells, route_cells

TOOLS = {
    "rect": ("Landmark: rectangle", "rect"),
    "polygon": ("Landmark: polygon", "polygon"),
    "freehand": ("Landmark: free stroke", "freedraw"),
    "route": ("Route: path", "freedraw"),
    "start": ("Start: point", "point"),
    "finish": ("Finish: point", "point"),
}
LANDMARK_TOOLS = ("rect", "polygon", "freehand")


def canvas_mode(tool: str) -> str:
    return TOOLS[tool][1]


def apply_stroke(
    draft: dr.Draft,
    obj: dict[str, Any],
    frame: CanvasFrame,
    tool: str,
    *,
    target: str | None = None,
    view: str = dr.GUIDE,
    share: float = DEFAULT_INK_SHARE,
) -> tuple[dr.Draft, str]:
    """The draft after one stroke, and a short description of the edit (for undo).

    ``target``: the landmark a landmark stroke adds cells to (Guide's map) or moves (Follower's
    map); ``None`` on the Guide's map makes a new landmark. Raises :class:`~corpus.mapedit.draft.EditError`.
    """
    if tool not in TOOLS:
        raise dr.EditError(f"unknown tool '{tool}' (expected one of {', '.join(TOOLS)})")
    try:
        if tool == "route":
            if view != dr.GUIDE:
                raise dr.EditError("the route is drawn on the Guide's map")
            cells = route_cells(obj, frame, share)
            return dr.extend_route(draft, cells), f"route +{len(cells)} cells"
        cells = object_cells(obj, frame, share, as_area=tool in LANDMARK_TOOLS)
    except StrokeError as exc:
        raise dr.EditError(str(exc)) from None
    if not cells:
        raise dr.EditError(f"the stroke covers no cell by at least {share:.0%}: nothing was changed")
    if tool == "start":
        return dr.set_start(draft, cells[0]), f"start at {list(cells[0])}"
    if tool == "finish":
        return dr.set_finish(draft, cells[0]), f"finish at {list(cells[0])}"
    if view == dr.FOLLOWER:
        if target is None:
            raise dr.EditError("choose the landmark to move on the Follower's map")
        return dr.set_cells(draft, target, cells, dr.FOLLOWER), f"move '{target}' on the Follower's map"
    if target is None:
        new, name = dr.add_landmark(draft, cells)
        return new, f"add landmark '{name}' ({len(cells)} cells)"
    return dr.add_cells(draft, target, cells), f"add {len(cells)} cells to '{target}'"
