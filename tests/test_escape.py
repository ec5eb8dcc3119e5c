"""The one escaper (corpus/escape.py) against what Streamlit's Markdown acts on: Markdown proper,
bare addresses, and its colon syntax (emoji shortcodes, Material icons, the logo, and directives
such as ``:red[x]``). Each escaped text reads back as typed once Markdown's backslash escapes are
resolved and the invisible word joiners left out; tests/test_browser_escape.py shows the same in
chromium."""

from __future__ import annotations

import re

import pytest

from corpus import escape
from corpus.escape import JOINER, md_line, md_text

# What Streamlit 1.67's Markdown (static/js/StreamlitMarkdown.*.js and remark-emoji) looks for in
# the text once escapes are resolved, as its own patterns: emoji shortcodes, icons (the source's
# ":material/" is read as ":material_" first) and the logo.
EMOJI = re.compile(r":\+1:|:-1:|:[\w-]+:", re.ASCII)
ICON = re.compile(r":material_(\w+):", re.ASCII)
LOGO = ":streamlit:"
# In the source: a directive starts at a colon Markdown reads (not backslash-escaped) before its
# name; the names Streamlit styles are words ("red", "blue-badge", "small", "help"). Under any
# other name a directive shows as its colon and name, but takes its label ("[...]") and attributes
# ("{...}") away.
DIRECTIVE = re.compile(r"(?<!\\):(?=[^\W\d_])")
OPENS = re.compile(r"(?<!\\)[\[{]")

COLON_SYNTAX = [
    ":material/lock:",
    ":material_lock:",
    "x:material/lock:y",
    ":smile:",
    ":+1:",
    ":-1:",
    ":100:",
    ":sm_ile:",
    ":streamlit:",
    ":red[x]",
    ":red-background[x]",
    ":blue-badge[x]",
    ":small[x]",
    ":shimmer[x]",
    ":rainbow[x]",
    ":primary[x]",
    ":help[x]",
    ':color[x]{foreground="#f00"}',
    ":unknown[x]{a=b}",
    "a:red b",
    "::red[x]",
    ":::red",
    "3:30{x}",
]
ORDINARY = ["Note: 3:2 ratio", "at 10:30", "http://x.example/a:b", "s1:4", "a: b", "10:30:15", ":", "::"]


def shown(markdown: str) -> str:
    """What Markdown shows of escaped text: every backslash escape resolved, the joiners left out."""
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace(JOINER, "")


def streamlit_reads(markdown: str) -> list[str]:
    """What Streamlit's Markdown would make of the text beyond plain characters (empty: nothing)."""
    text = re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", markdown).replace(":material/", ":material_")
    found = []
    if EMOJI.search(text):
        found.append(f"an emoji shortcode: {EMOJI.findall(text)}")
    if ICON.search(text) or ":material/" in markdown:
        found.append("an icon")
    if LOGO in text:
        found.append("the logo")
    if DIRECTIVE.search(markdown):
        found.append("a directive")
    if OPENS.search(markdown):
        found.append("a label or attributes")
    return found


@pytest.mark.parametrize("how", [md_line, md_text], ids=["md_line", "md_text"])
@pytest.mark.parametrize("text", COLON_SYNTAX)
def test_colon_syntax_from_data_is_shown_as_typed(how, text):
    out = how(text)
    assert streamlit_reads(out) == [], (text, out)
    assert shown(out) == text, out


@pytest.mark.parametrize("how", [md_line, md_text], ids=["md_line", "md_text"])
@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_colons_read_as_typed(how, text):
    assert shown(how(text)) == text


def test_a_colon_in_a_sentence_is_left_alone_where_markdown_makes_nothing_of_it():
    """A sentence the app builds around data stays searchable as typed: a colon before a space, a
    digit or a slash needs no escape (a shortcode-like run such as "10:30:15" gets a joiner)."""
    for text in ("Note: 3:2 ratio", "at 10:30", "s1:4", "a: b"):
        assert md_line(text) == text
    assert md_line("http://x.example") == f"http{JOINER}://x.example"  # not a link, as before
    assert md_line("10:30:15") == f"10:{JOINER}30:15"


def test_the_joiner_goes_only_after_a_colon_that_opens_a_shortcode():
    assert escape.no_shortcode(":smile: and :material/lock:") == f":{JOINER}smile: and :{JOINER}material/lock:"
    assert escape.no_shortcode(":a:b:") == f":{JOINER}a:{JOINER}b:"
    assert escape.no_shortcode("Note: 3:2, :red[x], a:b") == "Note: 3:2, :red[x], a:b"


def test_a_directive_is_escaped_at_its_colon_and_its_brackets():
    assert md_line(":red[x]") == r"\:red\[x\]"
    assert md_line("a:red b") == r"a\:red b"
    assert md_line('3:30{x="y"}') == r'3:30\{x="y"}'
    assert md_text(":red[x]") == r"\:red\[x\]"


def test_many_lines_and_markdown_around_the_colon_syntax():
    text = "# :red[x]\n- :smile: **b**\n::red[x]\n:::blue\nbody\n:::"
    out = md_text(text)
    assert streamlit_reads(out) == [] and shown(out) == text
    line = md_line(text)
    assert streamlit_reads(line) == [] and shown(line) == " ".join(text.split())
    assert "**" not in line.replace(r"\*", "")
