"""The Replay screen: one session step by step in the browser.

- the session as the player receives it: :mod:`analysis.replay_payload` (pure), computed once per
  dataset and session by :mod:`services.replay`; :mod:`.frames` shows why a session cannot be
  replayed;
- :mod:`.position`: session, step and view in session state and the URL;
- :mod:`.header`: the session picker, the session's facts and its participants;
- :mod:`.player`: the player component (``assets/``: its HTML, CSS and JavaScript) and the downloads;
- :mod:`.expressions`: beside the player, the GMMT reference expressions of the current action;
- :mod:`.export`: the player as a self-contained HTML file, the session as a GIF.
"""

from components.replay.frames import session_frames
from components.replay.header import participants, session_header, session_picker
from components.replay.player import player

__all__ = ["participants", "player", "session_frames", "session_header", "session_picker"]
