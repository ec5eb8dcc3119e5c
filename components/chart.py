"""Every analysis chart the same way: drawn, clickable, and downloadable as PNG, SVG and CSV.

:func:`show_chart` draws a Plotly figure with point selection (a click on a bar or a point reruns
the page and returns what was clicked, from the points' ``customdata``), and below it three
download buttons:

- **PNG** and **SVG**, rendered on the server by Plotly's kaleido (it drives a headless
  Chromium, found on the machine; one browser is started at the first export and kept). The file
  is made only when its button is pressed (deferred download). The exported figure is restyled
  for print (:func:`print_figure`): 640 px wide for one paper column or 1,400 px for two, with 22 px
  text, which is 8 pt when the figure is printed at the column's width (3.3 in, or 7 in for two
  columns); PNG at twice that resolution.
- **CSV**: the numbers behind the chart, one row per bar or point (n included).

The figure's own toolbar keeps Plotly's client-side camera button, set to SVG. Figures are drawn
without Streamlit's theme (``theme=None``) so the screen and the exported file look the same.
"""

from __future__ import annotations

import atexit
import copy
import functools
import logging
import re
import threading
import warnings

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from analysis.format import fmt as fmt_value
from analysis.format import fmt_count
from analysis.results import MIN_N_RANKED, ranked
from components.download import csv_button
from components.remembered import filters_in_link

log = logging.getLogger("groundwork.export")

PRINT = {1: {"width": 640, "height": 480}, 2: {"width": 1400, "height": 560}}
PRINT_FONT = 22
SCREEN_FONT = 14
_export_lock = threading.Lock()
_server: dict[str, bool] = {}
# One figure's export: kaleido's browser answers in well under a second once started, but very rarely
# stops answering altogether (its render timeout does not cover that); past this, the export is tried
# once more with a browser of its own.
EXPORT_TIMEOUT_S = 60.0


class ExportStalled(RuntimeError):
    """The exporting browser did not answer in time."""


@functools.cache
def _template() -> dict:
    return pio.templates["simple_white"].to_plotly_json()


def axis_suffix(i: int) -> str:
    """Plotly's axis suffix of panel ``i`` (1-based): "" for the first, then "2", "3", ..."""
    return "" if i == 1 else str(i)


def on_panel(trace: dict, i: int, shared_y: bool = True) -> dict:
    """``trace`` placed on panel ``i`` of a :func:`panels` layout."""
    return {**trace, "xaxis": f"x{axis_suffix(i)}", "yaxis": "y" if shared_y else f"y{axis_suffix(i)}"}


def panels(n: int, titles: list[str] | None = None, shared_y: bool = True, spacing: float = 0.04) -> dict:
    """A layout of ``n`` panels side by side (what ``make_subplots(1, n)`` makes, without its cost)."""
    width = (1 - spacing * (n - 1)) / n
    layout: dict = {"annotations": []}
    for i in range(1, n + 1):
        x0 = (i - 1) * (width + spacing)
        s = axis_suffix(i)
        layout[f"xaxis{s}"] = {"domain": [x0, x0 + width], "anchor": "y" if shared_y else f"y{s}"}
        if not shared_y or i == 1:
            layout[f"yaxis{s}"] = {"domain": [0, 1], "anchor": f"x{s}"}
        if titles:
            layout["annotations"].append(
                {
                    "text": titles[i - 1],
                    "x": x0 + width / 2,
                    "xref": "paper",
                    "y": 1.0,
                    "yref": "paper",
                    "xanchor": "center",
                    "yanchor": "bottom",
                    "showarrow": False,
                    "font": {"size": 14},
                }
            )
    return layout


def figure(traces: list[dict], layout: dict | None = None, height: int = 380) -> go.Figure:
    """A figure from plain trace and layout dicts, in the look every analysis chart shares.

    Plotly's per-property validation makes building a figure of a few dozen traces cost 100-300 ms;
    the dicts here are built by this package's chart functions (whose output the tests validate
    with ``go.Figure(fig.to_dict())``), so validation is skipped on the screen. Exports validate."""
    base = {
        "template": _template(),
        "height": height,
        "font": {"size": SCREEN_FONT, "family": "Arial, Helvetica, sans-serif"},
        "margin": {"l": 10, "r": 10, "t": 40, "b": 10},
        "legend": {"orientation": "h", "yref": "container", "yanchor": "bottom", "y": 0, "x": 0},
        "clickmode": "event+select",
        "hoverlabel": {"font": {"size": 13}},
    }
    merged = {**base, **(layout or {})}
    for key, value in list(merged.items()):
        if key.startswith(("xaxis", "yaxis")):
            merged[key] = {"automargin": True, **value}
    return go.Figure(data=traces, layout=merged, _validate=False)


def bar_with_interval(
    x: list[str],
    d: pd.DataFrame,
    name: str,
    color: str,
    pattern: str,
    customdata: list,
    counts: pd.Series,
    hovertemplate: str,
    group: str,
    base: pd.Series | None = None,
) -> list[dict]:
    """A bar trace of ``d["share"]`` with its Wilson interval (``ci_low``/``ci_high``) as error bars,
    and ``counts`` printed above each interval (a text trace in the same offset group; the layout
    needs ``scattermode="group"`` so the text sits over its own bar). An empty cell (no share) has no
    bar, not a bar at 0 %, and its n reads 0; a bar on fewer than
    :data:`analysis.results.MIN_N_RANKED` units (``base``, the shares' denominators, where ``counts``
    are not) is drawn hollow (its outline), never leading the eye."""
    shown_on = counts if base is None else base  # the units each share is of (n), when counts are k
    bar = {
        "type": "bar",
        "x": x,
        "y": [None if pd.isna(v) else float(v) for v in d["share"]],
        "name": name,
        "offsetgroup": group,
        "legendgroup": group,
        # A bar on fewer than MIN_N_RANKED units is hollow: its outline only (analysis.results.ranked).
        "marker": {
            "color": [color if ok else "rgba(0,0,0,0)" for ok in ranked(shown_on)],
            "line": {"color": color, "width": [0 if ok else 1.5 for ok in ranked(shown_on)]},
            "pattern": {"shape": pattern},
        },
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": (d["ci_high"] - d["share"]).fillna(0).tolist(),
            "arrayminus": (d["share"] - d["ci_low"]).fillna(0).tolist(),
            "color": "#444",
            "thickness": 1,
        },
        "customdata": customdata,
        "hovertemplate": hovertemplate,
    }
    labels = {
        "type": "scatter",
        "mode": "text",
        "x": x,
        "y": d["ci_high"].fillna(d["share"]).fillna(0).tolist(),
        "offsetgroup": group,
        "legendgroup": group,
        "showlegend": False,
        "hoverinfo": "skip",
        "textposition": "top center",
        "text": [("0" if pd.isna(v) else str(int(v))) for v in counts],
        "textfont": {"size": 11, "color": color},
    }
    return [bar, labels]


# What a hollow bar means (bar_with_interval), for a chart's caption.
HOLLOW_BARS = f"a hollow bar rests on fewer than {fmt_count(MIN_N_RANKED)} actions and is never ranked"
WILSON_BARS = "whiskers: 95% Wilson interval; number: n"
WILSON_BARS_K = "whiskers: 95% Wilson interval; number: k, actions counted"
WILSON_BANDS = "bands: 95% Wilson interval; number: n"


def interval_key(text: str, band: bool = False) -> dict:
    """A legend entry that says what a chart's error bars (or bands) and numbers are, so the figure
    says it on the screen and in its exported files alike."""
    marker = (
        {"symbol": "square", "size": 12, "color": "rgba(68, 68, 68, 0.25)"}
        if band
        else {"symbol": "line-ns-open", "size": 14, "color": "#444", "line": {"width": 1.5, "color": "#444"}}
    )
    return {
        "type": "scatter",
        "x": [None],
        "y": [None],
        "mode": "markers",
        "marker": marker,
        "name": text,
        "hoverinfo": "skip",
        "showlegend": True,
        "legendgroup": "interval",
    }


def print_figure(fig: go.Figure, columns: int = 1) -> go.Figure:
    """A copy of ``fig`` sized and lettered for a paper: one or two columns wide (see module doc)."""
    out = go.Figure(copy.deepcopy(fig.to_dict()))
    size = PRINT[columns]
    out.update_layout(
        width=size["width"],
        height=size["height"],
        font={"size": PRINT_FONT},
        margin={"l": 20, "r": 20, "t": 60, "b": 20},
    )
    out.update_annotations(font_size=PRINT_FONT)
    _fit_axis_titles(out, size["width"], size["height"])
    for trace in out.data:
        if getattr(trace, "textfont", None) is not None and trace.type in ("bar", "scatter"):
            trace.textfont.size = PRINT_FONT - 4
            # An n printed above the top of the plot stays in print (the canvas check keeps it on the page).
            trace.cliponaxis = False
    return out


CHAR_WIDTH = 0.55  # a character's width in Arial, as a share of the font size (a generous average)


def _wrapped(text: str, max_chars: int) -> str:
    """``text`` on two lines, broken at the space nearest its middle, when it is longer than
    ``max_chars`` (a title printed across the whole length of its axis would run off the canvas)."""
    if len(text) <= max_chars or " " not in text or "<br>" in text:
        return text
    middle = len(text) // 2
    spaces = [i for i, c in enumerate(text) if c == " "]
    cut = min(spaces, key=lambda i: abs(i - middle))
    return text[:cut] + "<br>" + text[cut + 1 :]


def _fit_axis_titles(fig: go.Figure, width: int, height: int) -> None:
    """Break the axis titles that would not fit along their axis at print size (a y title along
    the plot's height, an x title along its panel's width), and the panels' titles over their panel."""
    per_char = CHAR_WIDTH * PRINT_FONT
    layout = fig.layout
    x_axes = [k for k in layout.to_plotly_json() if k.startswith("xaxis")]
    for key in [k for k in layout.to_plotly_json() if k.startswith(("xaxis", "yaxis"))]:
        axis = layout[key]
        text = axis.title.text if axis.title is not None else None
        if not text:
            continue
        if key.startswith("y"):
            room = height - 190  # the title above the plot, the x axis, its title and the legend below
        else:
            room = width / max(len(x_axes), 1) - 40
        axis.title.text = _wrapped(text, int(room / per_char))
    panel = width / max(len(x_axes), 1) - 20
    for note in layout.annotations:  # a panel's title over its panel
        if note.text:
            note.text = _wrapped(note.text, int(panel / per_char))


def _ensure_server() -> None:
    """Start kaleido's browser once per process (later exports take ~0.3 s instead of ~4 s)."""
    if _server.get("started") is not None:
        return
    try:
        import kaleido

        kaleido.start_sync_server(silence_warnings=True)
        atexit.register(kaleido.stop_sync_server, silence_warnings=True)
        _server["started"] = True
    except Exception as exc:  # noqa: BLE001 - fall back to one browser per export
        log.warning("kaleido's export server did not start (%s); each export starts its own browser", exc)
        _server["started"] = False


def warm_up() -> None:
    """Start kaleido's browser now (from a thread, while other work goes on), so that the first
    export does not wait for it."""
    with _export_lock:
        _ensure_server()


def _within(seconds: float, export):  # noqa: ANN001, ANN202 - a function of nothing, its bytes
    """``export()`` in a thread of its own, given ``seconds`` (:class:`ExportStalled` after)."""
    box: dict = {}

    def run() -> None:
        try:
            box["value"] = export()
        except BaseException as exc:  # noqa: BLE001 - given to the caller as it is
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True, name="figure-export")
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise ExportStalled(f"the exporting browser did not answer in {fmt_value(seconds, 0)} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _abandon_server() -> None:
    """kaleido's shared browser stopped answering: from now on each export starts a browser of its
    own, and nothing waits for the stalled one (its thread is a daemon) when the process ends."""
    import kaleido

    _server["started"] = False
    atexit.unregister(kaleido.stop_sync_server)
    shared = getattr(kaleido, "_global_server", None)
    if shared is not None and getattr(shared, "_initialized", False):
        shared._initialized = False  # kaleido has no public way to drop a server that stopped answering


def figure_bytes(fig: go.Figure, fmt: str, columns: int = 1) -> bytes:
    """The figure as a PNG or SVG file, styled for print; tried once more, with a browser of its own,
    if the shared one does not answer within :data:`EXPORT_TIMEOUT_S`."""
    printed = print_figure(fig, columns)

    def export() -> bytes:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The kopts argument is ignored")
            return pio.to_image(printed, format=fmt, scale=2 if fmt == "png" else 1)

    with _export_lock:
        _ensure_server()
        try:
            return _within(EXPORT_TIMEOUT_S, export)
        except ExportStalled:
            log.warning(
                "a figure export stalled for %s s; trying again with a browser of its own",
                fmt_value(EXPORT_TIMEOUT_S, 0),
            )
            _abandon_server()
            return _within(EXPORT_TIMEOUT_S, export)


def _points(event) -> list[dict]:
    try:
        points = event.selection.points
    except AttributeError:
        return []
    return [p for p in points if p.get("customdata") is not None]


def show_chart(
    fig: go.Figure, data: pd.DataFrame, name: str, key: str, columns: int = 1, clickable: bool = True
) -> list[dict]:
    """Draw ``fig`` with its PNG / SVG / CSV downloads; return the clicked points (each a dict
    with the point's ``customdata`` among others; empty when nothing is selected)."""
    config = {
        "displaylogo": False,
        "toImageButtonOptions": {"format": "svg", "filename": name},
        "modeBarButtonsToRemove": ["lasso2d", "select2d"],
    }
    filters = filters_in_link()
    if filters:  # a filtered figure says its filters in its file names and its CSV's first line
        name += "".join(f"_{n}-{'+'.join(re.sub(r'[^A-Za-z0-9.-]', '_', v) for v in vals)}" for n, vals in filters)[
            :120
        ]
    header = "Filters: " + "; ".join(f"{n} = {', '.join(vals)}" for n, vals in filters) if filters else ""
    with st.container(key=f"{key}_block"):
        event = st.plotly_chart(
            fig,
            key=key,
            theme=None,
            config=config,
            width="stretch",
            on_select="rerun" if clickable else "ignore",
            selection_mode="points",
        )
        c = st.columns([1, 1, 1, 5])
        c[0].download_button(
            "PNG",
            data=lambda: figure_bytes(fig, "png", columns),
            file_name=f"{name}.png",
            mime="image/png",
            key=f"{key}_png",
            on_click="ignore",
            icon=":material/image:",
        )
        c[1].download_button(
            "SVG",
            data=lambda: figure_bytes(fig, "svg", columns),
            file_name=f"{name}.svg",
            mime="image/svg+xml",
            key=f"{key}_svg",
            on_click="ignore",
            icon=":material/draw:",
        )
        csv_button("CSV", lambda: data, f"{name}.csv", key=f"{key}_csv", where=c[2], header=header)
    return _points(event) if clickable else []
