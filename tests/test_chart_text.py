"""What the analysis charts and tables print: p-values never as 0.000, and every interval chart
names its intervals in its legend."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from analysis.filters import Filters
from analysis.format import fmt_p
from components.act_charts import alignment_by_act_figure
from components.alignment_charts import SESSION_BANDS, coefficient_rows, dyad_figure, progress_figure
from components.chart import WILSON_BANDS, WILSON_BARS, WILSON_BARS_K
from components.reason_charts import acts_before_figure, reason_share_figure
from corpus.loading.dataset import load_sample
from services import alignment as svc


def test_p_values_below_a_thousandth_print_as_less_than():
    assert fmt_p(0.0) == fmt_p(0) == fmt_p(np.int64(0)) == fmt_p(4e-4) == "< 0.001"
    assert fmt_p(1) == fmt_p(np.int64(1)) == "1.000" and fmt_p(0.0123) == "0.012" and fmt_p(0.001) == "0.001"


def test_the_coefficient_table_prints_p_through_fmt_p():
    fit = svc.fit_model(svc.Scope(load_sample(), Filters()), "team_goal", "coverage")
    shown = coefficient_rows(fit)
    assert shown["p"].tolist() == [fmt_p(p) for p in fit.coefficients["p"]]
    assert (fit.coefficients["p"] < 0.001).any()  # the sample has such a p: it prints as "< 0.001"
    assert "< 0.001" in shown["p"].tolist() and "0.000" not in shown["p"].tolist()
    assert shown["coef"].tolist() == fit.coefficients["coef"].tolist()


def _legend_names(fig: go.Figure) -> list[str]:
    go.Figure(fig.to_dict())  # a valid figure
    return [t.name for t in fig.data if t.showlegend is not False and t.name]


def test_every_interval_chart_names_its_intervals():
    scope = svc.Scope(load_sample(), Filters(), acts="majority")
    shares, by_act, test = svc.acts_by_condition(scope)
    assert WILSON_BARS in _legend_names(alignment_by_act_figure(by_act))
    assert WILSON_BANDS in _legend_names(
        progress_figure(svc.progress_curves(scope, "coverage", 5), ["team_goal"], "coverage")
    )
    reason_shares, _, _ = svc.misalignment_reasons(scope, "coverage", 5)
    assert WILSON_BARS_K in _legend_names(reason_share_figure(reason_shares))
    assert WILSON_BARS_K in _legend_names(acts_before_figure(svc.acts_before(scope, 1)))
    curves, _, _ = svc.dyad_alignment(scope, "coverage", 5)
    assert SESSION_BANDS in _legend_names(dyad_figure(curves, "coverage"))


def test_each_points_n_prints_on_the_side_away_from_the_other_conditions_point():
    scope = svc.Scope(load_sample(), Filters())
    curves = svc.progress_curves(scope, "coverage", 5).copy()
    # In the sample visible sessions are above the others at every bin; put the last bin's visible
    # point below, so that one figure has both cases.
    last = (curves["measure"] == "team_goal") & (curves["bin"] == curves["bin"].max())
    low = curves.loc[last & (curves["condition"] == "not_visible"), "share"].iloc[0] - 0.1
    curves.loc[last & (curves["condition"] == "visible"), "share"] = low
    fig = progress_figure(curves, ["team_goal"], "coverage")
    lines = {t.legendgroup: t for t in fig.data if t.mode == "lines+markers+text"}
    vis, notvis = lines["visible"], lines["not_visible"]
    assert list(vis.x) == list(notvis.x)
    for k, (a, b) in enumerate(zip(vis.y, notvis.y)):
        higher, lower = ("visible", "not_visible") if a >= b else ("not_visible", "visible")
        assert lines[higher].textposition[k] == "top center" and lines[lower].textposition[k] == "bottom center", k
    # At the last bin visible sessions are below the others: the numbers swap sides.
    assert vis.y[-1] < notvis.y[-1] and (vis.textposition[-1], notvis.textposition[-1]) == (
        "bottom center",
        "top center",
    )


def test_an_empty_cell_is_drawn_empty_with_n_0_not_as_a_bar_at_0_percent():
    """Fig. 4 left: a condition x act cell with no actions has no bar (not a 0 % bar) and reads n = 0;
    a cell of 0 aligned among n actions is a real 0 %."""
    by_act = pd.DataFrame(
        [
            ("not_visible", "acknowledge", 3, 10),
            ("not_visible", "request_ack", 0, 4),
            ("visible", "acknowledge", 6, 8),
        ],
        columns=["condition", "code", "k", "n"],
    )
    by_act["share_aligned"] = by_act["k"] / by_act["n"]
    by_act["ci_low"], by_act["ci_high"] = by_act["share_aligned"] - 0.1, by_act["share_aligned"] + 0.1
    fig = alignment_by_act_figure(by_act)
    bars = {t.name: t for t in fig.data if t.type == "bar"}
    texts = [t for t in fig.data if t.type == "scatter" and t.mode == "text"]
    visible = next(t for name, t in bars.items() if name.startswith("visible"))
    x = list(visible.x)
    ack, req = x.index("Acknowledge"), x.index("Req. ack.")
    assert visible.y[ack] == 0.75 and visible.y[req] is None  # no visible request-ack actions: no bar
    not_visible = next(t for name, t in bars.items() if name.startswith("not visible"))
    assert not_visible.y[req] == 0.0  # 0 of 4: a real 0 %
    visible_n = next(t for t in texts if t.legendgroup == "visible")
    assert visible_n.text[req] == "0" and visible_n.text[ack] == "8"


def test_an_export_whose_browser_stalls_is_tried_again_with_a_browser_of_its_own(monkeypatch):
    """kaleido's shared browser very rarely stops answering (the report's command line once waited
    for it for good): past the export timeout the figure is drawn again, the shared server is
    dropped, and nothing waits for it at exit."""
    import threading
    from types import SimpleNamespace

    import kaleido

    from components import chart

    stalled = threading.Event()
    calls = []

    def to_image(fig, format, scale):  # noqa: A002 - plotly's own argument name
        calls.append(format)
        if len(calls) == 1:
            stalled.wait(30)  # the shared browser that never answers
        return b"<svg/>"

    shared = SimpleNamespace(_initialized=True)
    monkeypatch.setattr(chart.pio, "to_image", to_image)
    monkeypatch.setattr(chart, "_server", {"started": True})
    monkeypatch.setattr(chart, "EXPORT_TIMEOUT_S", 0.5)
    monkeypatch.setattr(kaleido, "_global_server", shared)
    fig = go.Figure(go.Bar(x=["a"], y=[1]))
    assert chart.figure_bytes(fig, "svg") == b"<svg/>"
    assert calls == ["svg", "svg"] and chart._server["started"] is False and shared._initialized is False
    # A browser that never answers at all: a clear error, not a wait without end.
    monkeypatch.setattr(chart.pio, "to_image", lambda fig, format, scale: stalled.wait(30))
    with pytest.raises(chart.ExportStalled, match="did not answer in 0 s"):
        chart.figure_bytes(fig, "svg")
    stalled.set()
