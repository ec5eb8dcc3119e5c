"""Outcomes: per-session task results by condition (final accuracy, route coverage, distance-weighted
score, actions, duration, and the route deviation where the source records one), each with the test
of the difference and an effect size."""

import streamlit as st

from components.analysis_filters import filter_bar, scope_caption
from components.chart import show_chart
from components.dataset import require_corpus, synthetic_banner
from components.download import csv_button
from components.drilldown import first_point, show_actions
from components.outcome_charts import outcome_caption, outcome_data, outcome_figure, outcome_table
from services import alignment as svc
from services.alignment import TESTS

corpus = require_corpus()
st.title("Outcomes by condition")
synthetic_banner(corpus)
scope = filter_bar(corpus, acts=False)
test = (
    st.segmented_control("Test of the difference", list(TESTS), default="welch", format_func=TESTS.get, key="out_test")
    or "welch"
)

sessions = svc.selected_sessions(scope)
if sessions.empty:
    st.info("No session in the selection.")
    st.stop()
data = outcome_data(sessions)
clicked = first_point(show_chart(outcome_figure(sessions), data, "session_outcomes", key="out_figure", columns=2))
scope_caption(
    scope,
    roles=False,
    uses_mm=False,
    note=(
        "Each point is a session; boxes show the quartiles and the median; n under each box. Final accuracy: share of the "
        "drawn cells on the route; route coverage: share of the route drawn; distance-weighted score: drawn cells scored by "
        "their distance to the route (1, 2/3, 1/3, 0)."
        + (
            " Route deviation: the deviation score the source records (HCRC: the area between the giver's route "
            "and the one the follower drew; larger is further off)."
            if "route_deviation" in data
            else ""
        )
    ),
)
if clicked:
    show_actions(svc.session_actions(scope, clicked[0]), f"session {clicked[0]}", "out_rows")

results = svc.session_outcomes(scope, test)
table = outcome_table(results, test)
st.dataframe(table, hide_index=True, width="stretch", key="out_table")
outcome_caption(results, test)
csv_button("Tests (CSV)", lambda: table, f"outcome_tests_{test}.csv", key="out_table_csv")
