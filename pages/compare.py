"""Compare: model predictions over the people's own labels, scored as the ALMANAC benchmark does;
or, on a benchmark dataset (DynToM trials and the like), every run scored as its authors report it."""

import streamlit as st

from components.auth import signed_in_user
from components.compare import (
    ablation,
    benchmark,
    confusions,
    instances,
    judges,
    leaderboard,
    overlay,
    prompts,
    runs,
    slices,
)
from components.dataset import current_is_benchmark, require_benchmark, require_corpus, synthetic_banner
from components.queue import in_turn
from services import compare as svc

VIEWS = {
    "Leaderboard": leaderboard.render,
    "Overlay": overlay.render,
    "Confusions": confusions.render,
    "Slices": slices.render,
    "Ablation": ablation.render,
    "Instances": instances.render,
    "Judges": judges.render,
}
BENCHMARK_VIEWS = {
    "Leaderboard": benchmark.leaderboard,
    "Slices": benchmark.slices,
    "Per trial": benchmark.per_trial,
    "Confusions": benchmark.confusions,
    "Ablation": benchmark.ablation,
    "Instances": benchmark.instances,
}


def show_tabs(views: dict, key: str, comparison) -> None:
    tabs = st.tabs(list(views), key=key, on_change="rerun")
    for tab, render in zip(tabs, views.values()):
        if tab.open:
            with tab:
                render(comparison)


if current_is_benchmark():
    bench = require_benchmark("Models on a benchmark")
    benchmark.banner(bench)
    if bench.kind == "synchtom":  # judged on each item's rubric: no answers to score against a gold
        benchmark.rubric_benchmark(bench)
        st.stop()
    comparison = in_turn(lambda who, line: svc.benchmark_comparison(bench, who, line), "Scoring the runs")
    benchmark.coverage(comparison)
    if not comparison.run_ids:
        st.info("No run of this benchmark could be scored (see Runs and coverage).")
        st.stop()
    show_tabs(BENCHMARK_VIEWS, "bench_tab", comparison)
    st.stop()

corpus = require_corpus()
st.title("Models against people")
synthetic_banner(corpus)
st.caption(
    "Model predictions of the two benchmark tasks of the ALMANAC paper (next action, mental model) scored "
    "against what the people did and reported."
)

prompts.export(corpus)
chosen = runs.picker(corpus, signed_in_user())
if not chosen:
    st.info(
        "No run to compare. A dataset's predictions/ folder holds one folder per run (see docs/data-format.md); "
        "add runs above, or export the benchmark instances with `python -m analysis instances`."
    )
    st.stop()

standing = svc.split_standing(corpus)  # (worked out while the runs are scored and shown)
comparison = in_turn(lambda who, line: svc.comparison(corpus, chosen, who, line), "Scoring the runs")
runs.coverage(comparison)
split_note = st.container()
show_tabs(VIEWS, "compare_tab", comparison)
with split_note:
    runs.split_note(standing.result())
