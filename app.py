"""Groundwork: the router. Every screen is one st.Page; the sidebar picks the dataset."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).parent

PAGES = {
    "Explore": [
        st.Page(HERE / "pages" / "data.py", title="Data", icon=":material/table_chart:", url_path="data", default=True),
        st.Page(HERE / "pages" / "replay.py", title="Replay", icon=":material/play_circle:", url_path="replay"),
        st.Page(HERE / "pages" / "alignment.py", title="Alignment", icon=":material/trending_up:", url_path="alignment"),
        st.Page(HERE / "pages" / "acts.py", title="Grounding acts", icon=":material/forum:", url_path="acts"),
        st.Page(HERE / "pages" / "misalignment.py", title="Why not aligned", icon=":material/help:", url_path="misalignment"),
        st.Page(HERE / "pages" / "outcomes.py", title="Outcomes", icon=":material/flag:", url_path="outcomes"),
        st.Page(HERE / "pages" / "split.py", title="Test split", icon=":material/call_split:", url_path="split"),
        st.Page(HERE / "pages" / "agreement.py", title="Agreement", icon=":material/handshake:", url_path="agreement"),
        st.Page(HERE / "pages" / "compare.py", title="Compare", icon=":material/compare_arrows:", url_path="compare"),
    ],
    "Annotate": [
        st.Page(HERE / "pages" / "code.py", title="Code", icon=":material/label:", url_path="code"),
        st.Page(HERE / "pages" / "adjudicate.py", title="Adjudicate", icon=":material/gavel:", url_path="adjudicate"),
        st.Page(HERE / "pages" / "tasks.py", title="Tasks", icon=":material/assignment:", url_path="tasks"),
        st.Page(HERE / "pages" / "map-editor.py", title="Map editor", icon=":material/map:", url_path="map-editor"),
    ],
}


def main() -> None:
    st.set_page_config(page_title="Groundwork", page_icon=":material/route:", layout="wide")
    # Navigation first: nothing before it may raise (see the notes on st.navigation).
    page = st.navigation(PAGES)
    from components.dataset import sidebar

    sidebar()
    page.run()


main()
