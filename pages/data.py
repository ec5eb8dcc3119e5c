"""Data: what the current dataset holds, as the paper's Tables 1 and 8, and its sessions."""

import streamlit as st

from components.dataset import require_corpus, synthetic_banner
from components.overview import dataset_header, import_report, replay_links, session_table, stats_tables
from corpus.escape import md_text
from services import datasets, overview

corpus = require_corpus()
st.title(f"Data: {md_text(corpus.info.name)}")
synthetic_banner(corpus)
import_report(corpus, datasets.last_outcome())
dataset_header(corpus)
stats_tables(corpus, overview.stats(corpus))
session_table(corpus, replay_links(corpus, datasets.link_params(datasets.current_source())))
