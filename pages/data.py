"""Data: what the current dataset holds, as the paper's Tables 1 and 8, and its sessions."""

import streamlit as st

from components.dataset import require_corpus, synthetic_banner
from components.overview import dataset_header, import_report, session_table, stats_tables

corpus = require_corpus()
st.title(f"Data: {corpus.info.name}")
synthetic_banner(corpus)
import_report(corpus)
dataset_header(corpus)
stats_tables(corpus)
session_table(corpus)
