"""Text from a dataset, a label, a note or an account, put into Streamlit Markdown as written."""

from __future__ import annotations

import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def md_text(text: object) -> str:
    """``text`` escaped so Markdown shows it as written (no links, images, styling or HTML)."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(text))
