"""Streamlit renderers shared by the pages."""
