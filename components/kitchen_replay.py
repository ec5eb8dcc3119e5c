"""The kitchen at one step as a Plotly figure (tiles, the two agents with the way they face and what
they hold), for the coding screen's view of a request's step. (The Kitchen screen's replay is the
in-browser tile player: :mod:`components.tile_player`, fed by :func:`analysis.kitchen.replay.payload`.)
Text from the run goes into Plotly through :func:`corpus.escape.plotly_text`, never as markup."""

from __future__ import annotations

import plotly.graph_objects as go

from analysis.format import fmt
from analysis.kitchen.replay import TILE_FILLS, TILE_LABELS, UTENSIL_FILL, KitchenFrame
from components.chart import figure
from components.palette import BLUISH_GREEN, ORANGE
from components.tile_player import FILL_COLOURS
from corpus.escape import plotly_text

AGENT_COLOURS = (ORANGE, BLUISH_GREEN)  # agent 0 (the Chef), agent 1 (the Assistant)
SYMBOLS = {"north": "triangle-up", "south": "triangle-down", "east": "triangle-right", "west": "triangle-left"}
SHORT = TILE_LABELS  # the short name written on a tile


def tile_fill(kind: str) -> str:
    """A kind of tile's colour: the tile player's shade of its fill (a utensil's when not listed)."""
    return FILL_COLOURS[TILE_FILLS.get(kind, UTENSIL_FILL)][0]


def grid_figure(frame: KitchenFrame, tiles: dict[str, str], names: tuple[str, str]) -> go.Figure:
    """The kitchen at ``frame``: one square per cell filled by its tile (letters read by ``tiles``),
    its name, what lies on it or a utensil's state; each agent a triangle pointing the way it faces,
    in its colour, named with what it holds."""
    shapes, xs, ys, labels = [], [], [], []
    agents: list[dict] = []
    for r, row in enumerate(frame.cells):
        for c, cell in enumerate(row):
            kind = tiles.get(cell.tile, cell.tile)
            fill = tile_fill(kind)
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
