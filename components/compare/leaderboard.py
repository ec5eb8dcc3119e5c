"""The leaderboard in the paper's layout, best per column in bold, with CSV and LaTeX downloads."""

from __future__ import annotations

import streamlit as st

from analysis.compare.comparison import Comparison
from analysis.compare.leaderboard import MEASURES
from components.download import csv_button
from corpus.escape import md_line

TASKS = {
    "next_action": "Next-action prediction (Tables 2, 9)",
    "mental_model": "Mental-model prediction (Tables 3, 10)",
}
BEST = "font-weight: 700; background-color: rgba(28, 131, 225, 0.12)"


def render(cmp: Comparison) -> None:
    c1, c2 = st.columns([2, 1])
    task = c1.radio("Task", list(TASKS), format_func=TASKS.get, horizontal=True, key="compare_lb_task")
    measure = "accuracy"
    if task == "mental_model":
        measure = c2.selectbox(
            "Mental-model score",
            list(MEASURES),
            format_func=MEASURES.get,
            key="compare_lb_measure",
            help="The paper reports accuracy; macro recall, macro F1 and Cohen's kappa (model vs "
            "person, chance-corrected) are shown on request.",
        )
    lb = cmp.leaderboard(task, measure)
    hidden = lb.undefined_groups()
    constant = lb.constant_columns()
    for label, cells, best in lb.blocks():
        if label in hidden:
            continue
        st.markdown(f"**{label}**")
        same = constant.get(label, [])
        cells = cells.rename(index=md_line)  # st.table renders its cells as Markdown: run names stay text
        cells = cells.rename(columns={c: f"{c} (=)" for c in same})
        best = best.rename(columns={c: f"{c} (=)" for c in same})
        st.table(cells.style.apply(lambda col, best=best: [BEST if b else "" for b in best[col.name]], axis=0))
        if same:
            st.caption(
                f"(=) every run scores the same in {', '.join(same)}: the column does not separate the runs "
                "(a trivial score, such as the only action type a role has, or a tie)."
            )
    if hidden:
        st.caption(
            "Not shown, undefined for every run: "
            + "; ".join(f"{md_line(label)} ({md_line(why)})" for label, why in hidden.items())
            + "."
        )
    st.caption(
        "The paper's table, one score group at a time. Each cell: score (n items). Bold: the best run in its "
        "column and every run the paired test does not separate from it (Holm-adjusted p >= 0.05 over the column's "
        "tests, on the items both predicted: "
        "McNemar's exact test for accuracy, the paired bootstrap otherwise); nothing is bold where no run is "
        "separated from the best. C visible / C not visible: whether the Guide saw the "
        "Follower's canvas; G: Guide, F: Follower. ! after a cell: its interval is not to be trusted (a label the "
        "people gave to fewer than 5 items, or a bootstrap that loses labels or gives no value in many resamples; the "
        "CSV's note column says which). The downloads hold the whole table; the CSV adds intervals, methods and notes."
    )
    d1, d2, _ = st.columns([1, 1, 3])
    csv_button(
        "Download CSV",
        lb.csv_table,
        f"leaderboard_{task}.csv",
        key=f"compare_lb_csv_{task}",
        where=d1,
        icon=":material/download:",
    )
    caption = f"{TASKS[task]}" + (" ! marks a score whose interval is an artefact." if lb.marked else "")
    d2.download_button(
        "Download LaTeX",
        lambda: lb.to_latex(caption=caption),  # (written when the button is pressed)
        file_name=f"leaderboard_{task}.tex",
        mime="text/x-tex",
        icon=":material/download:",
        key=f"compare_lb_tex_{task}",
        on_click="ignore",
    )
