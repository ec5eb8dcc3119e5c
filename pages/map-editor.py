"""Map editor: a map image becomes the grid JSON of Appendix D, and sessions get their map.

The file is named after its URL path (map-editor), so a deep link that is a fresh server's first
visit finds it (see components/router.py).
"""

import streamlit as st

from components import map_editor as editor
from components import map_editor_files as files
from components import map_editor_panels as panels
from components.auth import require_user
from components.dataset import require_corpus, synthetic_banner
from components.map_editor_state import EDIT_ROLES, editor_state, show_notices

corpus = require_corpus()
st.title("Map editor")
user = require_user(roles=("lead", "coder", "viewer"))
synthetic_banner(corpus)

ed = editor_state()
ed.can_edit = user.role in EDIT_ROLES
editor.take_strokes(ed)
files.start_panel(ed, corpus, user)
show_notices(ed)

if ed.draft is not None:
    problems = panels.problems(ed)
    drawing, side = st.columns([3, 2])
    with side:
        editor.undo_bar(ed)
        tool, target, brush = editor.tool_bar(ed) if ed.can_edit else ("rect", None, 2)
        panels.landmarks(ed)
    with drawing:
        editor.canvas(ed, tool, target, brush, problems)
    panels.checks_panel(problems)
    panels.follower(ed)
    files.output_panel(ed, corpus, user)
