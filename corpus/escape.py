"""Text from a dataset, a label, a note or an account, made safe for each kind of output that reads
markup in text: the one escaper of the app, its downloads and its reports (CSV has its own:
:mod:`corpus.csvsafe`).

- **Markdown** (Streamlit's Markdown, captions, alerts, `st.table` cells and headers, every widget's
  label and help text, the options of radio buttons, pills, segmented controls and select sliders,
  tab names, expander and popover labels, metrics, the Markdown report; a select box's and a
  multiselect's options are plain text, and take text from data as it is): Streamlit never renders
  raw HTML from Markdown unless told to, but Markdown itself turns a name or a label into a link or
  an image that loads from anywhere (``[..](..)``), emphasis, code, LaTeX (``$..$``), a directive
  (``:red[..]``, ``:red-background[..]``, ``:blue-badge[..]``, ``:small[..]``, ``:help[..]``; a
  colon before a letter starts one, which styles its word or, under a name Streamlit does not know,
  drops what follows it in brackets or braces) or, at the start of a line, a heading or a list.
  :func:`md_text` escapes every Markdown-significant character (a name or a message on its own);
  :func:`md_line` folds the text onto one line and escapes what Markdown acts on there, leaving
  ordinary punctuation alone so a sentence the app builds around data reads (and is searched) as
  typed (captions, headings, table cells, labels). Both also keep a bare address from becoming a
  link: Streamlit's Markdown links ``https://...``, ``www....`` and ``name@host`` found in the text
  after escapes are resolved, so an invisible word joiner (U+2060) goes after the scheme, the
  ``www`` and the ``@``; and keep a shortcode from becoming an emoji (``:smile:``, ``:+1:``,
  ``:100:``), an icon (``:material/lock:``) or Streamlit's logo (``:streamlit:``): those too are
  found in the text after escapes are resolved (a backslash before the colon does not stop them), so
  a word joiner goes after the colon that opens one.
- **Plotly text** (trace names, hover text, annotations, axis labels): Plotly reads a few HTML tags
  (``<b>``, ``<i>``, ``<a href>``, ``<br>``, ...) in them; :func:`plotly_text` escapes them.
- **LaTeX** (the leaderboard's table): :func:`latex` escapes LaTeX's special characters, as pandas'
  Styler does with ``escape="latex"`` (a test holds the two to the same result).
"""

from __future__ import annotations

import html
import re

_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
# Within a line: also a colon before a letter (a directive's name), and an opening brace (the
# attributes a directive takes, ``:30{..}`` included, which would vanish with it).
_IN_LINE = re.compile(r"([\\`*_\[\]{$~<>|#]|:(?=[^\W\d_]))")
_LINE_START = re.compile(r"^(\s*)([-+]|\d+[.)])(\s)")

JOINER = "\u2060"  # WORD JOINER: invisible, and no address pattern matches across it
_AUTOLINK = re.compile(r"(?<=[A-Za-z])(?=://)|(?<=\bwww)(?=\.)|(?<=@)", re.IGNORECASE)
# The colon that opens a shortcode: Streamlit's emoji (``:name:``, ``:+1:``), its logo
# (``:streamlit:``) and icons (``:material/name:``, read as ``:material_name:``).
_SHORTCODE = re.compile(r":(?=[\w+\-]+:|material/)")

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


def no_shortcode(text: str) -> str:
    """``text`` with a word joiner after each colon that would otherwise open an emoji, an icon or
    the logo."""
    return _SHORTCODE.sub(":" + JOINER, text)


def md_text(text: object) -> str:
    """``text`` escaped so Markdown shows it as written (no links, images, styling, emoji, icons or
    HTML)."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", no_shortcode(no_autolink(str(text))))


def md_line(text: object) -> str:
    """``text`` on one line with every character Markdown acts on within a line backslash-escaped
    (and a list marker at its start), and no shortcode left to become an emoji or an icon."""
    flat = _IN_LINE.sub(r"\\\1", no_shortcode(no_autolink(" ".join(str(text).split()))))
    return _LINE_START.sub(lambda m: f"{m.group(1)}\\{m.group(2)}{m.group(3)}", flat)


def plotly_text(text: object) -> str:
    """``text`` for a Plotly string: the tags Plotly reads show as typed."""
    return html.escape(str(text), quote=False)


def latex(text: object) -> str:
    """``text`` for LaTeX: its special characters escaped (as pandas' Styler does)."""
    return "".join(_LATEX.get(ch, ch) for ch in str(text))
