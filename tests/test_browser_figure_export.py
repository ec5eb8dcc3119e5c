"""Every exported analysis figure keeps every label on its canvas: each figure of the analysis pages
is rendered as the SVG its download gives, at one and at two journal columns, and every text box
(axis titles, tick labels, the n printed over bars and points, legends) is measured by chromium
against the canvas."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# The text boxes outside the SVG's own width and height (a rotated title measured whole).
_OUTSIDE = """() => {
    const svg = document.querySelector('svg');
    const W = +svg.getAttribute('width'), H = +svg.getAttribute('height');
    const r0 = svg.getBoundingClientRect();
    const out = [];
    for (const t of svg.querySelectorAll('text')) {
        if (!t.textContent.trim()) continue;
        const b = t.getBoundingClientRect();
        if (b.width === 0) continue;
        const x0 = b.left - r0.left, y0 = b.top - r0.top;
        if (x0 < -0.5 || y0 < -0.5 || x0 + b.width > W + 0.5 || y0 + b.height > H + 0.5) out.push(t.textContent);
    }
    return out;
}"""


def _figures() -> dict:
    from analysis.filters import Filters
    from components.act_charts import act_share_figure, alignment_by_act_figure
    from components.alignment_charts import dyad_figure, progress_figure
    from components.outcome_charts import outcome_figure
    from components.reason_charts import acts_before_figure, reason_curve_figure, reason_share_figure
    from components.split_view import objective_data, objective_figure
    from corpus.loading.dataset import load_sample
    from services import alignment as svc

    scope = svc.Scope(load_sample(), Filters(), acts="majority")
    shares, by_act, test = svc.acts_by_condition(scope)
    reasons, reason_curves, _ = svc.misalignment_reasons(scope, "coverage", 5)
    dyads, _, _ = svc.dyad_alignment(scope, "coverage", 5)
    split = svc.test_split(scope, {"not_visible": 3, "visible": 3}, 0)
    return {
        "alignment_over_progress": progress_figure(
            svc.progress_curves(scope, "coverage", 5), ["team_goal", "partner_intent", "aligned"], "coverage"
        ),
        "dyadic_alignment": dyad_figure(dyads, "coverage"),
        "grounding_acts_by_condition": act_share_figure(shares, test),
        "alignment_within_acts": alignment_by_act_figure(by_act),
        "misalignment_reasons": reason_share_figure(reasons),
        "misalignment_reasons_over_progress": reason_curve_figure(reason_curves, "coverage"),
        "acts_before_alignment_reports": acts_before_figure(svc.acts_before(scope, 3)),
        "session_outcomes": outcome_figure(svc.selected_sessions(scope)),
        "test_split_objective": objective_figure(objective_data(split, svc.current_split_objectives(scope, split))),
    }


def test_every_exported_figure_keeps_its_labels_on_the_canvas(page):
    from components.chart import figure_bytes

    outside = {}
    for name, fig in _figures().items():
        for columns in (1, 2):
            page.set_content(f"<html><body style='margin:0'>{figure_bytes(fig, 'svg', columns).decode()}</body></html>")
            cut = page.evaluate(_OUTSIDE)
            if cut:
                outside[(name, columns)] = cut
    assert not outside, outside
