"""The replay players' HTML, CSS and JavaScript, read from ``assets/`` as text.

Each player's JavaScript is one ES module made of several files, joined in order (each one uses
what the ones before it define). Both players begin with the same three: the elements and legend
keys (``dom.js``), the stepping, keys, playback and reports (``core.js``) and the timeline's canvas
and pointer (``timeline_base.js``). The Map Task player then has its text panels, the map canvas,
its timeline and the player, which ends with the module's ``export default``; the tile player
(:mod:`components.tile_player`) has its own four, ``tile_*.js``. Their CSS is ``core.css`` then
the player's own.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

ASSETS = Path(__file__).parent / "assets"
SHARED_JS = ("dom.js", "core.js", "timeline_base.js")
JS_FILES = (*SHARED_JS, "panels.js", "grid.js", "timeline.js", "player.js")
TILE_JS_FILES = (*SHARED_JS, "tile_grid.js", "tile_panels.js", "tile_timeline.js", "tile_player.js")


def _read(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


@cache
def player_html() -> str:
    return _read("player.html")


@cache
def player_css() -> str:
    return _read("core.css") + "\n" + _read("player.css")


@cache
def player_js() -> str:
    return "\n".join(_read(name) for name in JS_FILES)


@cache
def tile_player_html() -> str:
    return _read("tile_player.html")


@cache
def tile_player_css() -> str:
    return _read("core.css") + "\n" + _read("tile_player.css")


@cache
def tile_player_js() -> str:
    return "\n".join(_read(name) for name in TILE_JS_FILES)


@cache
def standalone_template() -> str:
    return _read("standalone.html")
