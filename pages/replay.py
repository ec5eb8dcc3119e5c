"""Replay: step through one unit of the current dataset: a Map Task session on the grid canvas,
with the chat, mental models and a timeline, or a unit of any domain with a replay hook in the tile
player (components.domain_replay)."""

from components import domain_replay
from components.dataset import require_screen, synthetic_banner

data = require_screen("replay", "Replay")
synthetic_banner(data)
domain_replay.show(data)
