"""Text from a dataset inside Streamlit's Markdown (captions, labels): escaped, so it stays text.

Streamlit never renders raw HTML from Markdown unless told to, but Markdown itself can still turn
a session name or a label into a link or an image that loads from anywhere (``[..](..)``),
emphasis, code, LaTeX (``$..$``), a coloured directive (``:red[..]``) or, at the start of a line, a
heading or a list. :func:`escape` backslash-escapes those characters and folds the text onto one
line; ordinary punctuation is left alone so the text reads as typed.
"""

from __future__ import annotations

import re

_SPECIAL = re.compile(r"([\\`*_\[\]$~<>|#])")
_LINE_START = re.compile(r"^(\s*)([-+]|\d+[.)])(\s)")


def escape(text: object) -> str:
    """``text`` on one line with every Markdown-significant character backslash-escaped."""
    flat = _SPECIAL.sub(r"\\\1", " ".join(str(text).split()))
    return _LINE_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}{m.group(3)}", flat)
