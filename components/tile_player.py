"""The tile player: a custom component that holds one unit of a tile-grid domain (a kitchen run, or
any domain's :class:`analysis.tile_replay.TilePayload`) in the browser.

:func:`tile_player` is the one entry point a page calls, with the payload's JSON
(``payload.to_json()``, built once per unit by a service) and a key for the place on the page.
Stepping, playing, pausing, jumping, seeking and the step as PNG all happen in the browser (the
assets ``components/replay/assets/tile_*``, on the stepping, keys and timeline the Map Task player
shares: ``core.js``, ``timeline_base.js``); no step waits for the server. The component reports
the step only when the user stops, on pause or 300 ms after the last key; the report reruns only
the player's fragment, which keeps the position (unit and step) in session state and the step in
the URL (``?step=12``), so a link opens the same moment, as the Map Task replay does
(:mod:`components.replay.position`). Beside it: the unit as an animated GIF (drawn here with
Pillow from the payload, one frame per step) and the player as one self-contained HTML file.

Text from the data reaches the page only through ``textContent`` and canvas text (the assets), and
the images only as drawn text.
"""

from __future__ import annotations

import hashlib
import io

import streamlit as st
from PIL import Image, ImageDraw, ImageFont

from analysis.tile_replay import clean_step, tile_states
from components.palette import BLUE, BLUISH_GREEN, ORANGE, REDDISH_PURPLE, SKY_BLUE, VERMILLION, YELLOW
from components.replay.assets import tile_player_css, tile_player_html, tile_player_js
from components.replay.export import standalone_html

# Each fill name's shade on a tile (pale, so text on it reads) and as a mark on the timeline.
FILL_COLOURS = {
    "white": ("#FFFFFF", "#94A3B8"),
    "grey": ("#BBBBBB", "#64748B"),
    "blue": ("#D3ECFA", BLUE),
    "green": ("#CDEBDD", BLUISH_GREEN),
    "yellow": ("#FBF3B5", "#C9A800"),
    "orange": ("#FBE3B0", ORANGE),
    "red": ("#F8CDB8", VERMILLION),
    "purple": ("#EFD3E3", REDDISH_PURPLE),
    "brown": ("#E4D2BF", "#8C5A2B"),
    "black": ("#475569", "#000000"),
}
# The agents' colours, by their colour index: agent 0 (the Chef) orange, agent 1 (the Assistant)
# bluish green, as on every kitchen figure.
AGENT_COLOURS = (ORANGE, BLUISH_GREEN, SKY_BLUE, VERMILLION, REDDISH_PURPLE, BLUE, YELLOW)
FACING_VECTORS = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}

_mount_player = st.components.v2.component(
    "groundwork_tile_player",
    html=tile_player_html(),
    css=tile_player_css(),
    js=tile_player_js(),
    isolate_styles=True,
)


def palette() -> dict:
    """The colours as the player reads them: each fill name's tile and mark shade, the agents'."""
    return {
        "tiles": {name: tile for name, (tile, _) in FILL_COLOURS.items()},
        "marks": {name: mark for name, (_, mark) in FILL_COLOURS.items()},
        "agents": list(AGENT_COLOURS),
    }


def player_data(data: dict, step: int, title: str = "", note: str = "") -> dict:
    """What the component (and its HTML export) receives: the payload with the palette, the step
    to start at, and the title and note shown above the player (none on a page, which has its own
    headings; the export's)."""
    return {**data, "palette": palette(), "start": {"step": step}, "title": title, "note": note}


def component_key(key: str, unit: str) -> str:
    """The component's widget key for a unit: one per unit (the browser keeps the player while the
    unit stays), made of hex digits because a unit's id may hold anything, including the ``__`` a
    component key must not contain."""
    return f"{key}_{hashlib.sha256(unit.encode('utf-8')).hexdigest()[:16]}"


def position_key(key: str) -> str:
    """Where session state keeps the player's position: ``{"unit": ..., "step": ...}``."""
    return f"{key}_position"


def _start(key: str, unit: str, n_steps: int) -> int:
    """The step to show: the one kept for this unit; on the first visit the link's; for another
    unit than the one kept, its first step."""
    held = st.session_state.get(position_key(key))
    if held is None:
        step = clean_step(st.query_params.get("step"), n_steps) or 0
    elif held.get("unit") != unit:
        step = 0
    else:
        step = clean_step(held, n_steps) or 0
    _store(key, unit, step)
    return step


def _store(key: str, unit: str, step: int) -> None:
    """Keep a position (already checked) and put its step in the URL."""
    st.session_state[position_key(key)] = {"unit": unit, "step": step}
    if st.query_params.get("step") != str(step):
        st.query_params["step"] = str(step)


def _reported() -> None:
    """A report from the browser: read in the fragment's body (see :func:`_player`)."""


def tile_player(data: dict, key: str) -> None:
    """The player of one unit (``data``: :meth:`analysis.tile_replay.TilePayload.to_json`) at the
    position kept under ``key`` (or the link's), with the unit's GIF and HTML downloads."""
    unit, n_steps = str(data["unit"]), len(data["steps"])
    step = _start(key, unit, n_steps)
    # The data (and so the start) stays the same while the fragment reruns on reports: the browser
    # keeps its player instead of building a new one.
    st.fragment(_player)(player_data(data, step), data, key)


def _player(shown: dict, data: dict, key: str) -> None:
    unit, n_steps = str(data["unit"]), len(data["steps"])
    result = _mount_player(
        data=shown,
        key=component_key(key, unit),
        on_position_change=_reported,
        width="stretch",
        height="content",
    )
    held = st.session_state.get(position_key(key), {})
    reported = clean_step(result.get("position"), n_steps)
    if reported is not None and reported != held.get("step"):
        _store(key, unit, reported)
    downloads(data, key, st.session_state[position_key(key)]["step"])


def file_stem(unit: str) -> str:
    """A unit's id as a file name: letters, digits, ".", "_" and "-" kept, anything else "_"."""
    return "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in unit)[:80] or "replay"


def downloads(data: dict, key: str, step: int) -> None:
    """The unit as an animated GIF and the player as one HTML file (at ``step``); both made when
    clicked, outside the script run. The step on show is saved as PNG by the player itself."""
    stem = file_stem(str(data["unit"]))
    export = player_data(data, step, str(data.get("title", "")), str(data.get("note", "")))
    row = st.container(horizontal=True, key=f"{key}_downloads")  # each button as wide as its label
    row.download_button(
        f"{str(data.get('unit_noun') or 'unit').capitalize()} (GIF)",
        data=lambda: gif_bytes(data),
        file_name=f"{stem}.gif",
        mime="image/gif",
        key=f"{key}_gif",
        on_click="ignore",
        icon=":material/animation:",
        help=f"One frame per {data.get('step_noun') or 'step'}, each captioned.",
    )
    row.download_button(
        "HTML player",
        data=lambda: standalone_html(
            export, export["title"] or stem, (tile_player_html(), tile_player_css(), tile_player_js())
        ),
        file_name=f"{stem}.html",
        mime="text/html",
        key=f"{key}_html",
        on_click="ignore",
        icon=":material/movie:",
        help="The player with this replay in one file: opens in any browser, offline, at the step shown now.",
    )


# -- still images (drawn with Pillow, as the player's canvas draws them) ---------------------------

CELL_PX = 64


def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _fit(draw: ImageDraw.ImageDraw, text: str, font, width: float) -> str:
    """``text`` cut to ``width`` pixels (what tells frames apart goes first)."""
    text = text[: int(width // 3) + 1]  # no glyph is narrower than 3 pixels: the rest never fits
    while text and draw.textlength(text, font=font) > width:
        text = text[:-1]
    return text


def frame_image(data: dict, cells: list[list[tuple[str, str]]], index: int, caption: str = "") -> Image.Image:
    """The grid after step ``index`` (its ``cells``: :func:`analysis.tile_replay.tile_states`) as a
    Pillow image: each tile filled by its kind, its label and note, each agent a triangle pointing
    the way it faces, named with what it holds; ``caption`` above."""
    rows, cols = data["grid"]["height"], data["grid"]["width"]
    kinds = {k["letter"]: k for k in data["grid"]["legend"]}
    pad, head, px = 8, 24, CELL_PX
    img = Image.new("RGB", (max(cols * px, 240) + 2 * pad, rows * px + 2 * pad + head), "white")
    draw = ImageDraw.Draw(img)
    small, big = _font(11), _font(14)
    if caption:
        draw.text((pad, pad), _fit(draw, caption, big, img.width - 2 * pad), fill="#0f172a", font=big)
    for r, row in enumerate(cells):
        for c, (letter, note) in enumerate(row):
            x0, y0 = pad + c * px, pad + head + r * px
            kind = kinds.get(letter, {})
            draw.rectangle(
                (x0, y0, x0 + px - 1, y0 + px - 1), fill=FILL_COLOURS[kind.get("fill", "white")][0], outline="#888888"
            )
            label = kind.get("label", letter)
            lines = [t for t in (label, note) if t]
            for k, text in enumerate(lines):
                y = y0 + px / 2 + (k - (len(lines) - 1) / 2) * 13
                draw.text((x0 + px / 2, y), _fit(draw, text, small, px - 4), fill="#333333", font=small, anchor="mm")
    step = data["steps"][index] if data["steps"] else None
    for agent, at in zip(data["agents"], step["agents"] if step else []):
        if at is None:
            continue
        r, c, facing, holding = at
        colour = AGENT_COLOURS[agent["colour"] % len(AGENT_COLOURS)]
        x0, y0 = pad + c * px, pad + head + r * px
        cx, cy, h = x0 + px / 2, y0 + px / 2 - 6, px / 4
        if facing in FACING_VECTORS:
            dx, dy = FACING_VECTORS[facing]
            points = [
                (cx + dx * h, cy + dy * h),
                (cx - dx * h + dy * h * 0.8, cy - dy * h + dx * h * 0.8),
                (cx - dx * h - dy * h * 0.8, cy - dy * h - dx * h * 0.8),
            ]
            draw.polygon(points, fill=colour)
        else:
            draw.ellipse((cx - h * 0.8, cy - h * 0.8, cx + h * 0.8, cy + h * 0.8), fill=colour)
        who = f"{agent['name']} ({holding})" if holding else agent["name"]
        draw.text((cx, y0 + px - 9), _fit(draw, who, small, px - 2), fill="#111111", font=small, anchor="mm")
    return img


def gif_bytes(data: dict, ms: int = 600) -> bytes:
    """The unit as an animated GIF, one frame per step, each captioned with its caption, its place
    and the unit."""
    n = len(data["steps"])
    unit = str(data["unit"])
    images = [
        frame_image(data, cells, i, f"{data['steps'][i]['caption']} ({i + 1} of {n}) · {unit}")
        for i, cells in enumerate(tile_states(data))
    ] or [frame_image(data, [[(letter, "") for letter in row] for row in data["grid"]["tiles"]], 0, unit)]
    buf = io.BytesIO()  # RGB frames: Pillow gives each its palette (few colours: exact)
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=ms, loop=0)
    return buf.getvalue()
