"""Text from a dataset, a label, a note or an account, made safe for each kind of output that reads
markup in text: the one escaper of the app, its downloads and its reports (CSV has its own:
:mod:`corpus.csvsafe`).

- **Markdown** (Streamlit's Markdown, captions, labels, `st.table` cells, radio options, the
  Markdown report): Streamlit never renders raw HTML from Markdown unless told to, but Markdown
  itself turns a name or a label into a link or an image that loads from anywhere (``[..](..)``),
  emphasis, code, LaTeX (``$..$``), a coloured directive (``:red[..]``) or, at the start of a line,
  a heading or a list. :func:`md_text` escapes every Markdown-significant character (a name or a
  message on its own); :func:`md_line` folds the text onto one line and escapes what Markdown acts
  on there, leaving ordinary punctuation alone so a sentence the app builds around data reads (and
  is searched) as typed (captions, headings, table cells). Both also keep a bare address from
  becoming a link: Streamlit's Markdown links ``https://...``, ``www....`` and ``name@host`` found in
  the text after escapes are resolved, so an invisible word joiner (U+2060) goes after the scheme,
  the ``www`` and the ``@``.
- **Plotly text** (trace names, hover text, annotations, axis labels): Plotly reads a few HTML tags
  (``<b>``, ``<i>``, ``<a href>``, ``<br>``, ...) in them; :func:`plotly_text` escapes them.
- **LaTeX** (the leaderboard's table): :func:`latex` escapes LaTeX's special characters, as pandas'
  Styler does with ``escape="latex"`` (a test holds the two to the same result).
"""

from __future__ import annotations

import html
import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
_IN_LINE = re.compile(r"([\\`*_\[\]$~<>|#])")
_LINE_START = re.compile(r"^(\s*)([-+]|\d+[.)])(\s)")

JOINER = "\u2060"  # WORD JOINER: invisible, and no address pattern matches across it
_AUTOLINK = re.compile(r"(?<=[A-Za-z])(?=://)|(?<=\bwww)(?=\.)|(?<=@)", re.IGNORECASE)

_LATEX = {
    "\\": r"\textbackslash ",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde ",
    "^": r"\textasciicircum ",
}


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


def plotly_text(text: object) -> str:
    """``text`` for a Plotly string: the tags Plotly reads show as typed."""
    return html.escape(str(text), quote=False)


def latex(text: object) -> str:
    """``text`` for LaTeX: its special characters escaped (as pandas' Styler does)."""
    return "".join(_LATEX.get(ch, ch) for ch in str(text))
