"""Import session folders exported by the open-source collaboration research platform.

A session folder as the platform exports it (docs/importers.md has the details)::

    <participant_id>[.<anything>].jsonl      one action log per participant, one JSON row per action
    files/<action_id>_map_image.png          the Follower's ink layer after a stroke (image maps)
    *.txt                                    an ASCII grid map (grid maps)
    *annotation*.json                        optional: post-session annotation payloads
    *checkpoint*.jsonl / .json / .csv        optional: in-session checkpoint rows

Rows of every log are merged into one time-ordered action list per ``session_id``:
``send_message`` becomes a message; ``map_draw_stop`` (brush or eraser release, mouse_leave) a
draw or erase stroke; ``map_tool_click`` reset and undo become reset and undo, while brush and
eraser are tool selections (kept in the session notes, not edits). A stroke's cells are the
difference between the canvas before it and the canvas state it logged: ``metadata.filledCells``
on grid maps, the ink PNG rasterized onto the grid on image maps. An annotation is not dropped
with its stroke: an annotated stroke whose ink image is missing or that changed no grid cell (and
an annotated undo of such a stroke) is imported as an action with no cell change, and the import's
report counts the annotations in the source against those imported, naming each difference. The platform's
``metadata.route_pixel_ratio`` is kept on each action that logs it.

Its parts, one job each: :mod:`.files` (which file is what), :mod:`.rows` (log lines as rows),
:mod:`.roles` (guide and follower), :mod:`.maps` (the session's map), :mod:`.session` (rows made
actions, strokes made cells), :mod:`.annotations` (mental models and checkpoints), :mod:`.folder`
(the whole export).
"""

from corpus.importers.platform.folder import import_folder
from corpus.importers.platform.rows import PlatformOptions, Row, parse_time

__all__ = ["PlatformOptions", "Row", "import_folder", "parse_time"]
