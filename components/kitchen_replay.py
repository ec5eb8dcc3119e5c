"""The kitchen replay's parts: the grid at one step (tiles, the two agents with the way they face and
what they hold), what happened at that step beside it, and the run's timeline with the validator's
corrections marked. Text from the run goes into Plotly through :func:`corpus.escape.plotly_text`
and into tables as cells, never as markup."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from analysis.format import fmt
from analysis.kitchen_replay import KitchenFrame
from components.chart import figure
from components.palette import BLUISH_GREEN, LIGHT_GREY, ORANGE, SKY_BLUE, VERMILLION, YELLOW
from corpus.escape import md_text, plotly_text

AGENT_COLOURS = (ORANGE, BLUISH_GREEN)  # agent 0 (the Chef), agent 1 (the Assistant)
SYMBOLS = {"north": "triangle-up", "south": "triangle-down", "east": "triangle-right", "west": "triangle-left"}
TILE_FILL = {
    "floor": "#FFFFFF",
    "counter": LIGHT_GREY,
    "serving": "#CDEBDD",
    "ingredient_dispenser": "#D3ECFA",
    "onion_dispenser": "#D3ECFA",
    "tomato_dispenser": "#D3ECFA",
    "dish_dispenser": "#D3ECFA",
}
UTENSIL_FILL = "#FBF3B5"  # pots, ovens, boards, blenders
SHORT = {
    "counter": "counter",
    "pot": "pot",
    "oven": "oven",
    "chopping_board": "board",
    "blender": "blender",
    "ingredient_dispenser": "ingredients",
    "onion_dispenser": "onions",
    "tomato_dispenser": "tomatoes",
    "dish_dispenser": "dishes",
    "serving": "serve",
}


def grid_figure(frame: KitchenFrame, tiles: dict[str, str], names: tuple[str, str]) -> go.Figure:
    """The kitchen at ``frame``: one square per cell filled by its tile (letters read by ``tiles``),
    its name, what lies on it or a utensil's state; each agent a triangle pointing the way it faces,
    in its colour, named with what it holds."""
    shapes, xs, ys, labels = [], [], [], []
    agents: list[dict] = []
    for r, row in enumerate(frame.cells):
        for c, cell in enumerate(row):
            kind = tiles.get(cell.tile, cell.tile)
            fill = TILE_FILL.get(kind, UTENSIL_FILL if kind != "floor" else "#FFFFFF")
            shapes.append(
                {
                    "type": "rect",
                    "x0": c - 0.5,
                    "x1": c + 0.5,
                    "y0": r - 0.5,
                    "y1": r + 0.5,
                    "fillcolor": fill,
                    "line": {"color": "#888888", "width": 1},
                    "layer": "below",
                }
            )
            if cell.agent is not None:
                agents.append({"agent": cell.agent, "x": c, "y": r, "facing": cell.facing, "held": cell.held})
                continue
            label = SHORT.get(kind, "" if kind == "floor" else kind)
            extra = " ".join(filter(None, (f"holds {cell.held}" if cell.held else "", cell.state)))
            if label or extra:
                xs.append(c)
                ys.append(r)
                labels.append("<br>".join(plotly_text(part) for part in (label, extra) if part))
    traces: list[dict] = [
        {
            "type": "scatter",
            "mode": "text",
            "x": xs,
            "y": ys,
            "text": labels,
            "textfont": {"size": 12, "color": "#333333"},
            "hoverinfo": "skip",
            "showlegend": False,
        }
    ]
    for a in agents:
        who = names[a["agent"]] if a["agent"] in (0, 1) else f"player {a['agent']}"
        colour = AGENT_COLOURS[a["agent"] % 2]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers+text",
                "x": [a["x"]],
                "y": [a["y"]],
                "marker": {"symbol": SYMBOLS.get(a["facing"], "circle"), "size": 30, "color": colour},
                "text": [plotly_text(who + (f" ({a['held']})" if a["held"] else ""))],
                "textposition": "bottom center",
                "textfont": {"size": 12, "color": "#111111"},
                "name": plotly_text(who),
                "hovertemplate": plotly_text(f"{who}, facing {a['facing'] or '?'}, holding {a['held'] or 'nothing'}")
                + "<extra></extra>",
            }
        )
    n_rows = len(frame.cells)
    n_cols = max((len(r) for r in frame.cells), default=0)
    layout = {
        "shapes": shapes,
        "xaxis": {"visible": False, "range": [-0.6, n_cols - 0.4], "fixedrange": True},
        "yaxis": {
            "visible": False,
            "range": [n_rows - 0.4, -0.6],
            "scaleanchor": "x",
            "fixedrange": True,
        },
        "margin": {"l": 10, "r": 10, "t": 30, "b": 10},
        "title": {
            "text": f"Step {frame.step}: score {fmt(frame.score, 0 if float(frame.score).is_integer() else 2)}",
            "font": {"size": 14},
        },
    }
    return figure(traces, layout, height=90 * max(n_rows, 1) + 60)


def timeline_figure(tl, current: int) -> go.Figure:
    """Messages per step as bars, the validator's and the format checker's corrections as marks
    above them, completed actions as dots; the current step outlined. A click on a step selects it."""
    steps = tl["step"].tolist()
    top = max(int(tl["messages"].max() if len(tl) else 0), 1) + 1
    traces = [
        {
            "type": "bar",
            "x": steps,
            "y": tl["messages"].tolist(),
            "name": "messages",
            "marker": {"color": SKY_BLUE, "line": {"color": ["#000" if s == current else SKY_BLUE for s in steps]}},
            "customdata": [[s] for s in steps],
            "hovertemplate": "step %{x}: %{y} message(s)<br>click: show this step<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [s for s, n in zip(steps, tl["validator"]) if n],
            "y": [top] * int((tl["validator"] > 0).sum()),
            "name": "validator correction",
            "marker": {"symbol": "x", "size": 11, "color": VERMILLION},
            "customdata": [[s] for s, n in zip(steps, tl["validator"]) if n],
            "hovertemplate": "step %{x}: validator correction<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [s for s, n in zip(steps, tl["format"]) if n],
            "y": [top + 0.6] * int((tl["format"] > 0).sum()),
            "name": "format correction",
            "marker": {"symbol": "diamond", "size": 9, "color": YELLOW, "line": {"color": "#555", "width": 1}},
            "customdata": [[s] for s, n in zip(steps, tl["format"]) if n],
            "hovertemplate": "step %{x}: format correction<extra></extra>",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "x": [s for s, n in zip(steps, tl["completed"]) if n],
            "y": [-0.4] * int((tl["completed"] > 0).sum()),
            "name": "action completed",
            "marker": {"symbol": "circle", "size": 8, "color": BLUISH_GREEN},
            "customdata": [[s] for s, n in zip(steps, tl["completed"]) if n],
            "hovertemplate": "step %{x}: action completed<extra></extra>",
        },
    ]
    layout = {
        "xaxis": {"title": {"text": "step"}, "dtick": 1 if len(steps) <= 40 else None},
        "yaxis": {"title": {"text": "messages"}, "range": [-1, top + 1.2]},
        "shapes": [
            {
                "type": "line",
                "x0": current,
                "x1": current,
                "y0": -1,
                "y1": top + 1.2,
                "line": {"color": "#000", "width": 1, "dash": "dot"},
            }
        ],
        "bargap": 0.2,
    }
    return figure(traces, layout, height=230)


def step_panel(frame: KitchenFrame, key: str) -> None:
    """What happened at the step: actions in progress, turns, completed actions, corrections, and the
    request units sent, each with its outcome and why."""
    st.caption(
        f"Step {frame.step} · reward {fmt(frame.reward, 2)} · actions in progress: "
        + " · ".join(md_text(a) for a in frame.actions)
    )
    for title, table in (
        ("Conversation", frame.turns),
        ("Request units sent", frame.units),
        ("Completed", frame.completed),
        ("Corrections", frame.corrections),
    ):
        if len(table):
            st.markdown(f"**{title}**")
            st.dataframe(table, hide_index=True, width="stretch", key=f"{key}_{title}")
    if not (len(frame.turns) or len(frame.completed) or len(frame.corrections)):
        st.caption("Nothing said, completed or corrected at this step.")


# -- taking a run away: the step as PNG, the run as an animated GIF (drawn with Pillow) ----------

CELL_PX = 64


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def frame_image(frame: KitchenFrame, tiles: dict[str, str], names: tuple[str, str], caption: str = ""):
    """The kitchen at ``frame`` as a Pillow image, drawn as the grid figure draws it (tiles, their
    names, each agent a triangle pointing the way it faces), with ``caption`` above (what does not
    fit the width is cut: put what tells frames apart first)."""
    from PIL import Image, ImageDraw

    n_rows = len(frame.cells)
    n_cols = max((len(r) for r in frame.cells), default=0)
    pad, head, px = 8, 24, CELL_PX
    img = Image.new("RGB", (n_cols * px + 2 * pad, n_rows * px + 2 * pad + head), "white")
    draw = ImageDraw.Draw(img)
    small, big = _font(11), _font(14)
    if caption:
        while caption and draw.textlength(caption, font=big) > img.width - 2 * pad:
            caption = caption[:-2]  # cut to the width: what tells frames apart comes first
        draw.text((pad, pad), caption, fill="#0f172a", font=big)
    for r, row in enumerate(frame.cells):
        for c, cell in enumerate(row):
            x0, y0 = pad + c * px, pad + head + r * px
            kind = tiles.get(cell.tile, cell.tile)
            fill = TILE_FILL.get(kind, UTENSIL_FILL if kind != "floor" else "#FFFFFF")
            draw.rectangle((x0, y0, x0 + px - 1, y0 + px - 1), fill=fill, outline="#888888")
            if cell.agent is not None:
                colour = AGENT_COLOURS[cell.agent % 2]
                cx, cy, h = x0 + px / 2, y0 + px / 2 - 6, px / 4
                tip = {"north": (0, -1), "south": (0, 1), "east": (1, 0), "west": (-1, 0)}.get(cell.facing, (0, -1))
                dx, dy = tip
                points = [
                    (cx + dx * h, cy + dy * h),
                    (cx - dx * h + dy * h * 0.8, cy - dy * h + dx * h * 0.8),
                    (cx - dx * h - dy * h * 0.8, cy - dy * h - dx * h * 0.8),
                ]
                draw.polygon(points, fill=colour)
                who = names[cell.agent] if cell.agent in (0, 1) else f"player {cell.agent}"
                draw.text((cx, y0 + px - 10), who[:10], fill="#111111", font=small, anchor="mm")
                continue
            label = SHORT.get(kind, "" if kind == "floor" else kind)
            if label:
                draw.text((x0 + px / 2, y0 + px / 2), label[:11], fill="#333333", font=small, anchor="mm")
    return img


def png_bytes(image) -> bytes:
    import io

    buf = io.BytesIO()
    image.save(buf, format="PNG")
    return buf.getvalue()


def run_gif(
    frames: list[KitchenFrame], tiles: dict[str, str], names: tuple[str, str], run_id: str, ms: int = 600
) -> bytes:
    """The run as an animated GIF, one frame per step, each captioned with its step and score."""
    import io

    images = [
        frame_image(
            f, tiles, names, f"Step {f.step} ({f.index + 1} of {len(frames)}) · score {fmt(f.score, 0)} · {run_id}"
        )
        for f in frames
    ]
    buf = io.BytesIO()  # RGB frames: Pillow gives each its palette (few colours: exact)
    images[0].save(buf, format="GIF", save_all=True, append_images=images[1:], duration=ms, loop=0)
    return buf.getvalue()


def replay_downloads(run, frame: KitchenFrame) -> None:
    """The step on screen as PNG and the whole run as an animated GIF; both made when clicked."""
    from analysis.kitchen_replay import agent_name, tile_names
    from analysis.kitchen_replay import frame as frame_of

    tiles, names = tile_names(run), (agent_name(0, run), agent_name(1, run))
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in run.id)[:80]
    row = st.container(horizontal=True, key="kitchen_downloads")  # each button as wide as its label
    row.download_button(
        "Step (PNG)",
        data=lambda: png_bytes(
            frame_image(frame, tiles, names, f"Step {frame.step} · score {fmt(frame.score, 0)} · {run.id}")
        ),
        file_name=f"{safe}_step{frame.step}.png",
        mime="image/png",
        key="kitchen_png",
        on_click="ignore",
        icon=":material/image:",
    )
    row.download_button(
        "Run (GIF)",
        data=lambda: run_gif([frame_of(run, i) for i in range(run.n_steps)], tiles, names, run.id),
        file_name=f"{safe}.gif",
        mime="image/gif",
        key="kitchen_gif",
        on_click="ignore",
        icon=":material/animation:",
    )
