"""Home: what Groundwork is, the dataset in use, and where each kind of user starts (for Map Task
sessions or for kitchen runs)."""

import streamlit as st

from components import home
from components.dataset import require_corpus, require_kitchen, synthetic_banner
from services.home import facts

if home.kitchen_is_current():
    kitchen = require_kitchen("Groundwork")
    home.kitchen_introduction()
    home.kitchen_in_use(kitchen)
    synthetic_banner(kitchen)
    home.kitchen_entries(kitchen)
else:
    corpus = require_corpus()
    st.title("Groundwork")
    home.introduction()
    home.dataset_in_use(corpus, facts(corpus))
    synthetic_banner(corpus)
    home.entries(facts(corpus))
