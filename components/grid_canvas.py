"""The Map Task grid: its colours, a Plotly figure of one step, and images of the session.

:data:`CELL_COLORS` gives each cell category (:data:`analysis.replay.CELL_NAMES`) its colour, for
every drawing of the grid: the replay player's canvas (which receives them with the session), the
coding screen's figure and the image exports.

:func:`figure` is pure (no streamlit): one map (the Guide's or the Follower's) with the
Follower's drawing at one step, as one heatmap trace with gaps between cells as grid lines;
landmark names are annotations at their centroids; a landmark placed differently on the two maps
is outlined on each map, solid where this map has it and dashed where the other map has it.

:func:`frame_image` and :func:`to_gif` draw with Pillow, straight from the cell categories (no
browser needed): the session as an animated GIF, one frame per step.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

import numpy as np
import plotly.graph_objects as go
from PIL import Image, ImageDraw, ImageFont

from analysis.replay import (
    ADDED,
    BLOCKED,
    CELL_NAMES,
    DRAWN,
    DRAWN_ON_ROUTE,
    EMPTY,
    ERASED,
    FINISH,
    LANDMARK,
    N_CODES,
    ROUTE,
    START,
    VIEW_TITLES,
    MapLayers,
    StepState,
    cell_codes,
    map_layers,
)
from corpus.escape import plotly_text
from corpus.model import GridMap

CELL_COLORS = {
    EMPTY: "#ffffff",
    LANDMARK: "#c4b5fd",
    BLOCKED: "#64748b",
    ROUTE: "#fde68a",
    START: "#16a34a",
    FINISH: "#7c3aed",
    DRAWN: "#3b82f6",
    DRAWN_ON_ROUTE: "#0f766e",
    ADDED: "#f97316",
    ERASED: "#e11d48",
}
GRID_COLOR = "#e2e8f0"
MISPLACED_COLOR = "#db2777"


def palette() -> dict:
    """The colours as the replay player reads them (beside the payload's cell names and codes)."""
    return {
        "colors": [CELL_COLORS[k] for k in range(N_CODES)],
        "grid_color": GRID_COLOR,
        "misplaced_color": MISPLACED_COLOR,
    }


_RGB = np.array([[int(CELL_COLORS[k][i : i + 2], 16) for i in (1, 3, 5)] for k in range(N_CODES)], dtype=np.uint8)
_GRID_RGB = np.array([int(GRID_COLOR[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)


def _colorscale() -> list[list]:
    """A stepped colorscale: code k (with zmin=-0.5, zmax=N-0.5) gets exactly CELL_COLORS[k]."""
    scale = []
    for k in range(N_CODES):
        scale.append([k / N_CODES, CELL_COLORS[k]])
        scale.append([(k + 1) / N_CODES, CELL_COLORS[k]])
    return scale


COLORSCALE = _colorscale()


def _view_landmarks(grid_map: GridMap, view: str):
    return grid_map.landmarks if view == "guide" else grid_map.follower_view


def _other_view(view: str) -> str:
    return "follower" if view == "guide" else "guide"


def _bbox(lm) -> tuple[int, int, int, int]:
    b = lm.summary.bbox
    return b.row_min, b.row_max, b.col_min, b.col_max


def figure(
    grid_map: GridMap,
    step_state: StepState | None = None,
    *,
    view: str = "guide",
    show_route: bool | None = None,
    layers: MapLayers | None = None,
    title: str | None = None,
    height: int | None = None,
    show_legend: bool = True,
    show_labels: bool = True,
) -> go.Figure:
    """The grid of one view with the drawing of ``step_state`` (None: the map alone).

    ``show_route`` defaults to True on the Guide's map and False on the Follower's; pass True on
    the Follower's map to see where the drawing leaves the route.
    """
    layers = layers or map_layers(grid_map)
    if show_route is None:
        show_route = view == "guide"
    codes = cell_codes(layers, step_state, view, show_route)
    rows, cols = layers.shape
    gap = 1 if max(rows, cols) <= 120 else 0

    data: list = [
        go.Heatmap(
            z=codes,
            x0=0,
            dx=1,
            y0=0,
            dy=1,
            zmin=-0.5,
            zmax=N_CODES - 0.5,
            colorscale=COLORSCALE,
            showscale=False,
            xgap=gap,
            ygap=gap,
            hovertemplate="row %{y}, col %{x}<extra></extra>",
            name="cells",
            showlegend=False,
        )
    ]
    # The start (and finish, where the route is shown) stay visible under the drawing.
    marks = [(layers.start, "start", "circle-open")]
    if show_route and layers.finish is not None:
        marks.append((layers.finish, "finish", "x-thin-open"))
    marker_px = max(6, min(18, int(640 / max(rows, cols))))
    data.append(
        go.Scatter(
            x=[c for (r, c), _, _ in marks],
            y=[r for (r, c), _, _ in marks],
            mode="markers",
            showlegend=False,
            name="start/finish",
            marker={
                "symbol": [s for _, _, s in marks],
                "size": marker_px,
                "color": "#111827",
                "line": {"width": 2, "color": "#111827"},
            },
            text=[n for _, n, _ in marks],
            hovertemplate="%{text}: row %{y}, col %{x}<extra></extra>",
        )
    )
    if show_legend:
        present = set(np.unique(codes).tolist()) - {EMPTY}
        for k in range(N_CODES):
            if k in present:
                data.append(
                    go.Scatter(
                        x=[None],
                        y=[None],
                        mode="markers",
                        name=CELL_NAMES[k],
                        marker={
                            "symbol": "square",
                            "size": 11,
                            "color": CELL_COLORS[k],
                            "line": {"width": 1, "color": "#94a3b8"},
                        },
                        hoverinfo="skip",
                    )
                )

    annotations: list[dict] = []
    shapes: list[dict] = []
    if show_labels:
        font_px = 11 if max(rows, cols) <= 60 else 9
        for name, lm in _view_landmarks(grid_map, view).items():
            r, c = lm.summary.centroid
            annotations.append(
                {
                    "x": c,
                    "y": r,
                    "text": plotly_text(name),
                    "showarrow": False,
                    "font": {"size": font_px, "color": "#0f172a"},
                    "bgcolor": "rgba(255,255,255,0.75)",
                    "borderpad": 1,
                }
            )
    here, there = _view_landmarks(grid_map, view), _view_landmarks(grid_map, _other_view(view))
    for name in layers.misplaced:
        for lms, dash, where in ((here, "solid", None), (there, "dash", _other_view(view))):
            if name not in lms:
                continue
            r0, r1, c0, c1 = _bbox(lms[name])
            shapes.append(
                {
                    "type": "rect",
                    "xref": "x",
                    "yref": "y",
                    "x0": c0 - 0.5,
                    "x1": c1 + 0.5,
                    "y0": r0 - 0.5,
                    "y1": r1 + 0.5,
                    "line": {"color": MISPLACED_COLOR, "width": 2.5, "dash": dash},
                    "fillcolor": "rgba(0,0,0,0)",
                }
            )
            if where is not None:
                annotations.append(
                    {
                        "x": c0 - 0.5,
                        "y": r1 + 0.5,
                        "xanchor": "left",
                        "yanchor": "top",
                        "showarrow": False,
                        "text": f"{plotly_text(name)} on the {where}'s map",
                        "font": {"size": 10, "color": MISPLACED_COLOR},
                        "bgcolor": "rgba(255,255,255,0.8)",
                    }
                )

    if height is None:
        height = int(min(760, max(380, 560 * rows / max(cols, 1) + 90)))
    layout = dict(
        title={
            "text": title if title is not None else VIEW_TITLES.get(view, view),
            "x": 0,
            "xanchor": "left",
            "font": {"size": 15},
        },
        height=height,
        margin={"l": 36, "r": 8, "t": 36, "b": 8},
        plot_bgcolor=GRID_COLOR if gap else "#ffffff",
        paper_bgcolor="#ffffff",
        xaxis={
            "range": [-0.5, cols - 0.5],
            "showgrid": False,
            "zeroline": False,
            "side": "top",
            "constrain": "domain",
            "ticks": "",
            "tickfont": {"size": 9},
        },
        yaxis={
            "range": [rows - 0.5, -0.5],
            "showgrid": False,
            "zeroline": False,
            "scaleanchor": "x",
            "scaleratio": 1,
            "constrain": "domain",
            "ticks": "",
            "tickfont": {"size": 9},
        },
        showlegend=show_legend,
        legend={
            "orientation": "h",
            "yanchor": "top",
            "y": -0.01,
            "x": 0,
            "font": {"size": 11},
            "itemclick": False,
            "itemdoubleclick": False,
        },
        annotations=annotations,
        shapes=shapes,
        uirevision=f"{grid_map.id}:{view}",  # keep a zoom while stepping
    )
    # Passing the layout to the constructor validates it once (update_layout walks it path by path).
    return go.Figure(data=data, layout=layout)


# -- images -------------------------------------------------------------------------------------


def _font(size: int):
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def _grid_pixels(codes: np.ndarray, cell_px: int) -> np.ndarray:
    """RGB pixels of a category array, ``cell_px`` per cell, with grid lines between cells."""
    img = _RGB[codes]
    img = np.repeat(np.repeat(img, cell_px, axis=0), cell_px, axis=1)
    if cell_px >= 4:
        img[::cell_px, :, :] = _GRID_RGB
        img[:, ::cell_px, :] = _GRID_RGB
    return img


def _decorate(
    draw: ImageDraw.ImageDraw,
    grid_map: GridMap,
    layers: MapLayers,
    view: str,
    cell_px: int,
    ox: int,
    oy: int,
    show_route: bool,
) -> None:
    font = _font(max(10, min(16, cell_px + 2)))

    def box(r0, r1, c0, c1):
        return (ox + c0 * cell_px, oy + r0 * cell_px, ox + (c1 + 1) * cell_px - 1, oy + (r1 + 1) * cell_px - 1)

    here, there = _view_landmarks(grid_map, view), _view_landmarks(grid_map, _other_view(view))
    for name in layers.misplaced:
        if name in there:
            x0, y0, x1, y1 = box(*_bbox(there[name]))
            for x in range(x0, x1, 8):  # dashed: where the other map has it
                draw.line([(x, y0), (min(x + 4, x1), y0)], fill=MISPLACED_COLOR, width=2)
                draw.line([(x, y1), (min(x + 4, x1), y1)], fill=MISPLACED_COLOR, width=2)
            for y in range(y0, y1, 8):
                draw.line([(x0, y), (x0, min(y + 4, y1))], fill=MISPLACED_COLOR, width=2)
                draw.line([(x1, y), (x1, min(y + 4, y1))], fill=MISPLACED_COLOR, width=2)
        if name in here:
            draw.rectangle(box(*_bbox(here[name])), outline=MISPLACED_COLOR, width=2)
    marks = [layers.start] + ([layers.finish] if show_route and layers.finish is not None else [])
    for r, c in marks:
        x0, y0, x1, y1 = box(r, r, c, c)
        draw.ellipse((x0 + 1, y0 + 1, x1 - 1, y1 - 1), outline="#111827", width=2)
    for name, lm in here.items():
        r, c = lm.summary.centroid
        x, y = ox + (c + 0.5) * cell_px, oy + (r + 0.5) * cell_px
        bbox = draw.textbbox((x, y), name, font=font, anchor="mm")
        draw.rectangle((bbox[0] - 2, bbox[1] - 1, bbox[2] + 2, bbox[3] + 1), fill=(255, 255, 255))
        draw.text((x, y), name, fill="#0f172a", font=font, anchor="mm")


def frame_image(
    grid_map: GridMap,
    step_state: StepState | None = None,
    *,
    view: str = "guide",
    show_route: bool | None = None,
    layers: MapLayers | None = None,
    cell_px: int | None = None,
    caption: str = "",
) -> Image.Image:
    """The frame as a Pillow image (drawn from the cell categories; no browser needed)."""
    layers = layers or map_layers(grid_map)
    if show_route is None:
        show_route = view == "guide"
    rows, cols = layers.shape
    if cell_px is None:
        cell_px = max(4, min(20, 900 // max(rows, cols)))
    codes = cell_codes(layers, step_state, view, show_route)
    pad, head = 8, (28 if caption else 0)
    grid = Image.fromarray(_grid_pixels(codes, cell_px), "RGB")
    img = Image.new("RGB", (grid.width + 2 * pad, grid.height + 2 * pad + head), "white")
    img.paste(grid, (pad, pad + head))
    draw = ImageDraw.Draw(img)
    if caption:
        draw.text((pad, pad + 4), caption, fill="#0f172a", font=_font(15))
    _decorate(draw, grid_map, layers, view, cell_px, pad, pad + head, show_route)
    return img


def to_gif(
    grid_map: GridMap,
    states: Iterable[StepState],
    *,
    view: str = "guide",
    show_route: bool | None = None,
    cell_px: int | None = None,
    frame_ms: int = 150,
    captions: Iterable[str] | None = None,
) -> bytes:
    """An animated GIF with one frame per step."""
    layers = map_layers(grid_map)
    rows, cols = layers.shape
    if cell_px is None:
        cell_px = max(3, min(12, 480 // max(rows, cols)))
    captions = iter(captions) if captions is not None else None
    frames = [
        frame_image(
            grid_map,
            s,
            view=view,
            show_route=show_route,
            layers=layers,
            cell_px=cell_px,
            caption=next(captions, "") if captions is not None else "",
        )
        for s in states
    ]
    if not frames:
        frames = [frame_image(grid_map, None, view=view, show_route=show_route, layers=layers, cell_px=cell_px)]
    # One shared palette: the cell colours are few, so an adaptive palette from the first frame
    # plus every category colour keeps all frames exact and fast to encode.
    palette_src = Image.new("RGB", (N_CODES + 1, 1))
    palette_src.putdata([tuple(int(v) for v in c) for c in _RGB] + [tuple(int(v) for v in _GRID_RGB)])
    sample = Image.new("RGB", (frames[-1].width, frames[-1].height + 1))
    sample.paste(frames[-1], (0, 0))
    sample.paste(palette_src, (0, frames[-1].height))
    pal = sample.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    quantized = [f.quantize(palette=pal, dither=Image.Dither.NONE) for f in frames]
    buf = io.BytesIO()
    quantized[0].save(
        buf,
        format="GIF",
        save_all=True,
        append_images=quantized[1:],
        duration=frame_ms,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return buf.getvalue()
