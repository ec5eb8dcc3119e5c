"""Home: what Groundwork is, the dataset in use, and where each kind of user starts."""

import streamlit as st

from components import home
from components.dataset import require_corpus, synthetic_banner
from services.home import facts

corpus = require_corpus()
st.title("Groundwork")
home.introduction()
home.dataset_in_use(corpus, facts(corpus))
synthetic_banner(corpus)
home.entries(facts(corpus))
