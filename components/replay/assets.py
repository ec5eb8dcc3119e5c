"""The replay player's HTML, CSS and JavaScript, read from ``assets/`` as text.

The JavaScript is one ES module made of four files, joined in this order (each one uses what the
ones before it define): the text panels and legends, the map canvas, the timeline canvas, and the
player, which ends with the module's ``export default``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

ASSETS = Path(__file__).parent / "assets"
JS_FILES = ("panels.js", "grid.js", "timeline.js", "player.js")


def _read(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


@cache
def player_html() -> str:
    return _read("player.html")


@cache
def player_css() -> str:
    return _read("player.css")


@cache
def player_js() -> str:
    return "\n".join(_read(name) for name in JS_FILES)


@cache
def standalone_template() -> str:
    return _read("standalone.html")
