"""Test split: the distribution-matched split of the paper's Appendix E, its objective against the
runners-up and the dataset's own split, the train/test comparison, and the dataset with it. Sessions
the dataset holds out in val are neither train nor test: not candidates, on neither side, kept."""

import streamlit as st

from components.analysis_filters import filter_bar, scope_caption
from components.chart import show_chart
from components.dataset import require_corpus, synthetic_banner
from components.download import csv_button
from components.drilldown import first_point, show_actions
from components.palette import CONDITION_NAMES
from components.split_view import (
    comparison_view,
    held_out_note,
    objective_data,
    objective_figure,
    search_notes,
    split_candidates,
)
from services import alignment as svc
from services.alignment import CONDITIONS

corpus = require_corpus()
st.title("Distribution-matched test split")
synthetic_banner(corpus)
scope = filter_bar(corpus, acts=False)
st.caption(
    "Within each condition, the test sessions are the subset of the chosen size whose session-level proportions of "
    "action types and mental-model labels (per role) differ least from the rest in mean and SD (Appendix E). "
    "Every subset is scored when there are at most 200,000; beyond that a seeded local search is used and said so."
)

selected = svc.split_candidates(scope)
sessions = split_candidates(selected)  # the val sessions are held out: neither train nor test
counts = sessions["condition"].astype(str).value_counts()
conds = [c for c in CONDITIONS if counts.get(c, 0) >= 4]
held_out_note(selected)
if not conds:
    st.info(
        "Each condition needs at least 4 sessions in the selection (2 or more on each side of the split), not "
        "counting the held-out val sessions."
    )
    st.stop()
cols = st.columns(len(conds) + 1)
sizes = {}
for col, cond in zip(cols, conds):
    n = int(counts[cond])
    sizes[cond] = int(
        col.number_input(
            f"Test sessions, {CONDITION_NAMES[cond]} (of {n})",
            2,
            n - 2,
            min(max(2, round(n / 4)), n - 2),
            key=f"split_size_{cond}",
        )
    )
seed = int(cols[-1].number_input("Seed (for the search)", 0, 2**31 - 1, 0, key="split_seed"))

result = svc.test_split(scope, sizes, seed)
current = svc.current_split_objectives(scope, result)
data = objective_data(result, current)
clicked = first_point(
    show_chart(objective_figure(data), data, "test_split_objective", key="split_objective", columns=2)
)
search_notes(result)
scope_caption(
    scope,
    roles=False,
    note="Sessions are the candidates (both roles' actions describe a session); the role and split "
    "filters do not apply to the search. Bars: the imbalance L (Appendix E's objective) of the best subset (#1), the runners-up "
    "and the dataset's own test sessions; lower is better matched.",
)
if clicked:
    cond, rank = clicked[0], int(clicked[1])
    if rank == 0:
        ids = sessions.loc[
            (sessions["condition"].astype(str) == cond) & (sessions["split"].astype(str) == "test"), "session_id"
        ].tolist()
    else:
        ids = list(result.by_condition[cond].subsets[rank - 1])
    rows = svc.session_starts(scope, ids)
    show_actions(
        rows, f"test sessions of {'the dataset' if rank == 0 else f'#{rank}'} in {CONDITION_NAMES[cond]}", "split_rows"
    )

st.subheader("Train and test compared (Table 8 style, % mean (SD) over sessions)")
table = comparison_view(svc.split_comparison(result))
st.dataframe(
    table,
    hide_index=True,
    width="stretch",
    height=420,
    key="split_table",
    column_config={
        "abs_mean_diff": st.column_config.NumberColumn("|mean diff|", format="%.1f"),
        "abs_sd_diff": st.column_config.NumberColumn("|SD diff|", format="%.1f"),
    },
)
c = st.columns(2)
csv_button("Comparison (CSV)", lambda: table, "test_split_comparison.csv", key="split_table_csv", where=c[0])
c[1].download_button(
    "The dataset with this split (.zip)",
    data=lambda: svc.dataset_with_split_zip(scope, result.assignment()),
    file_name="dataset_with_split.zip",
    mime="application/zip",
    key="split_zip",
    on_click="ignore",
    icon=":material/download:",
    help="A copy of the dataset in which only the split of these sessions changed.",
)
