"""Text from a dataset, a label, a note or an account, put into Streamlit Markdown as written.

Streamlit never renders raw HTML from Markdown unless told to, but Markdown itself can still turn
a session name or a label into a link or an image that loads from anywhere (``[..](..)``),
emphasis, code, LaTeX (``$..$``), a coloured directive (``:red[..]``) or, at the start of a line, a
heading or a list.

- :func:`md_text` escapes every Markdown-significant character: for a name or a message on its own.
- :func:`md_line` folds the text onto one line and escapes what Markdown would act on there, leaving
  ordinary punctuation alone so that a sentence the app builds around data reads (and is searched)
  as typed: for captions and headings that mix the app's words with data.

Both also keep a bare address from becoming a link: Streamlit's Markdown links ``https://...``,
``www....`` and ``name@host`` found in the text after escapes are resolved, so an invisible word
joiner (U+2060) goes after the scheme, the ``www`` and the ``@``; the text reads as written.
"""

from __future__ import annotations

import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
_IN_LINE = re.compile(r"([\\`*_\[\]$~<>|#])")
_LINE_START = re.compile(r"^(\s*)([-+]|\d+[.)])(\s)")


JOINER = "\u2060"  # WORD JOINER: invisible, and no address pattern matches across it
_AUTOLINK = re.compile(r"(?<=[A-Za-z])(?=://)|(?<=\bwww)(?=\.)|(?<=@)", re.IGNORECASE)


def no_autolink(text: str) -> str:
    """``text`` with a word joiner where Markdown would otherwise start a link of its own."""
    return _AUTOLINK.sub(JOINER, text)


def md_text(text: object) -> str:
    """``text`` escaped so Markdown shows it as written (no links, images, styling or HTML)."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", no_autolink(str(text)))


def md_line(text: object) -> str:
    """``text`` on one line with every character Markdown acts on within a line backslash-escaped
    (and a list marker at its start)."""
    flat = _IN_LINE.sub(r"\\\1", no_autolink(" ".join(str(text).split())))
    return _LINE_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}{m.group(3)}", flat)
