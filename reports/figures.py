"""The report's figures as SVG: drawn by the screens' own export (:func:`components.chart.figure_bytes`:
restyled for print, rendered by kaleido's headless Chromium), with anything that could fetch from
the network taken out. :func:`draw_ahead` starts drawing in a background thread, so that the browser
draws the figures already built while the rest of the report is computed."""

from __future__ import annotations

import re
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor

import plotly.graph_objects as go

from components.chart import figure_bytes

# Plotly's SVG may name fonts to fetch: keep the markup, drop anything that could reach out.
_URL = re.compile(r"url\((['\"]?)https?://[^)]*\)")
_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="report-figures")


def svg(figure: go.Figure, columns: int) -> str:
    """The figure as SVG markup to put inside a page."""
    text = figure_bytes(figure, "svg", columns).decode("utf-8")
    return _URL.sub("none", re.sub(r"^<\?xml[^>]*>", "", text.strip()))


def draw_ahead(figures: Iterable[tuple[str, go.Figure, int]]) -> dict[str, Future[str]]:
    """Start drawing each (name, figure, columns); the SVG of each, by name, when it is done."""
    return {name: _POOL.submit(svg, fig, columns) for name, fig, columns in figures}
