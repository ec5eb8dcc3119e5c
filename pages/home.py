"""Home: what Groundwork is, the dataset in use, and where each kind of user starts (for Map Task
sessions, kitchen runs or a benchmark)."""

import streamlit as st

from components import home
from components.dataset import require_benchmark, require_corpus, require_kitchen, synthetic_banner
from services.home import facts

domain = home.current_domain()
if domain == "kitchen":
    kitchen = require_kitchen("Groundwork")
    home.kitchen_introduction()
    home.kitchen_in_use(kitchen)
    synthetic_banner(kitchen)
    home.kitchen_entries(kitchen)
elif domain == "benchmark":
    bench = require_benchmark("Groundwork")
    home.benchmark_introduction()
    home.benchmark_in_use(bench)
    synthetic_banner(bench)
    home.benchmark_entries()
else:
    corpus = require_corpus()
    st.title("Groundwork")
    home.introduction()
    home.dataset_in_use(corpus, facts(corpus))
    synthetic_banner(corpus)
    home.entries(facts(corpus))
