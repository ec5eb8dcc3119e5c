"""Taking a session away: the player itself as one self-contained HTML file (plays offline), and
the session as an animated GIF. The frame on screen is saved as PNG by the player.
"""

from __future__ import annotations

import base64
import html
import json

import streamlit as st

from analysis.replay import SessionFrames
from components import grid_canvas
from components.replay.assets import player_css, player_html, player_js, standalone_template
from components.replay.header import condition_sentence

SYNTHETIC_NOTE = "Synthetic data: generated sessions, not recordings of people."


def _script_json(data: dict) -> str:
    """JSON that cannot end the <script> element it sits in, whatever text the data holds."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def standalone_html(data: dict, title: str, assets: tuple[str, str, str] | None = None) -> str:
    """The player with ``data`` (a payload with ``start``, ``title`` and ``note``) as one HTML file
    that needs nothing else: its script is a data: URL, its data a JSON script element. ``assets``
    (HTML, CSS, JavaScript) give another player (the tile player's); the Map Task player's by
    default."""
    markup, css, js = assets or (player_html(), player_css(), player_js())
    js_url = "data:text/javascript;base64," + base64.b64encode(js.encode("utf-8")).decode("ascii")
    page = standalone_template()
    for marker, value in (
        ("<!--TITLE-->", html.escape(title)),
        ("<!--CSS-->", css),
        ("<!--HTML-->", markup),
        ("<!--JS-->", js_url),
        ("<!--DATA-->", _script_json(data)),
    ):
        page = page.replace(marker, value, 1)
    return page


def session_title(frames: SessionFrames) -> str:
    return f"{frames.session_id} · {condition_sentence(frames.condition)}"


def gif_captions(frames: SessionFrames) -> list[str]:
    """One line under each GIF frame: which action of how many, when, who did what."""
    n = frames.n_steps
    return [
        f"{frames.session_id} · action {t + 1} of {n} · {r['time_label']} · {r['role']} {r['type']}"
        for t, r in enumerate(frames.transcript)
    ]


def downloads(frames: SessionFrames, data: dict, pos: dict, synthetic: bool) -> None:
    """Download buttons for the session as an HTML player (at ``pos``) and as a GIF (of the map
    ``pos`` shows). Both files are made when clicked, outside the script run: everything they need
    is captured here."""
    view = "guide" if pos["view"] == "both" else pos["view"]
    show_route = view == "guide" or pos["route"]
    export = {**data, "start": pos, "title": session_title(frames), "note": SYNTHETIC_NOTE if synthetic else ""}
    c = st.columns([1, 0.8, 4], vertical_alignment="center")
    c[0].download_button(
        "HTML player",
        key="replay_html",
        icon=":material/movie:",
        on_click="ignore",
        mime="text/html",
        file_name=f"{frames.session_id}.html",
        data=lambda: standalone_html(export, export["title"]),
        help="The player with this session in one file: opens in any browser, offline, at the action shown now.",
    )
    c[1].download_button(
        "GIF",
        key="replay_gif",
        icon=":material/gif_box:",
        on_click="ignore",
        mime="image/gif",
        file_name=f"{frames.session_id}-{view}.gif",
        help="One frame per action, on the map shown now (the Guide's when both are shown).",
        data=lambda: grid_canvas.to_gif(
            frames.grid_map,
            (frames.state(t) for t in range(frames.n_steps)),
            view=view,
            show_route=show_route,
            captions=gif_captions(frames),
        ),
    )
    c[2].caption(
        "Take the session away: the player in one HTML file (opens offline), or an animated GIF. "
        "The address bar's link opens this session at the action shown, on the map shown."
    )
