"""The escaper's output as Streamlit 1.67 draws it in chromium: Streamlit's colon syntax from data
(emoji shortcodes, Material icons, the logo, directives such as ``:red[x]``) and ordinary colons
show as typed in Markdown, captions, widget labels and options, tab names, metrics and table
cells, and no icon, emoji, coloured or styled span, logo or help icon is made of them. A small
script of its own is served (``streamlit run``), one text per row of keyed containers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest
from conftest import ROOT, _wait_healthy, wait_idle
from local import free_port
from test_escape import COLON_SYNTAX, ORDINARY

from corpus.escape import JOINER

pytestmark = pytest.mark.browser

TEXTS = [*COLON_SYNTAX, *ORDINARY, "a :smile: b :red[x] c :material/lock: d"]
EMOJI = ["\N{SMILING FACE WITH OPEN MOUTH AND SMILING EYES}", "\N{THUMBS UP SIGN}", "\N{THUMBS DOWN SIGN}"]
EMOJI += ["\N{HUNDRED POINTS SYMBOL}"]
THE_APPS_OWN = "\N{GRINNING CAT FACE WITH SMILING EYES}"  # ":smile_cat:", written by the script itself
# Each way a text reaches the page: (name, the script's lines; ``s`` is the escaped text).
WAYS = {
    "markdown": "st.markdown(s)",
    "beside_emoji": "st.markdown(':smile_cat: ' + s)",  # the emoji plugin runs on this element
    "caption": "st.caption(s)",
    "radio": "st.radio('Radio', ['-', s], key=k + 'w')",
    "pills": "st.pills('Pills', ['-', s], key=k + 'w')",
    "tabs": "st.tabs(['-', s])",
    "expander": "st.expander(s).write('-')",
    "metric": "st.metric(s, s)",
    "button": "st.button(s, key=k + 'w')",
    "table": "st.table(pd.DataFrame({'cell': [s]}))",
    "error": "st.error(s)",
}
SCRIPT = """
import json, sys
import pandas as pd
import streamlit as st
sys.path.insert(0, {root!r})
from corpus.escape import md_line, md_text

texts = json.loads({texts!r})
escape = {{"md_line": md_line, "md_text": md_text}}[st.query_params.get("escape", "md_line")]
st.markdown("Loaded :smile_cat:")
for i, text in enumerate(texts):
    s = escape(text)
{ways}
"""
# What Markdown makes of the colon syntax: elements inside a text's container, as one query of the
# page (a widget's own parts, as an expander's arrow icon, are not counted).
MADE = """(keys) => Object.fromEntries(keys.map(key => {
    const box = document.querySelector('.st-key-' + key);
    if (!box) return [key, null];
    const all = selector => [...box.querySelectorAll(selector)];
    const made = {
        'an icon': all('span[role=img]').length
            + all('[data-testid=stIconMaterial]').filter(e => e.textContent.trim() === 'lock').length,
        'a coloured or styled span': all(
            '[class*=stMarkdownColored], .stMarkdownBadge, .stMarkdownShimmer, [data-testid=stMarkdownContainer] span[style]'
        ).length,
        'an image (the logo)': all('img').length,
        'a help icon': all('[data-testid=stTooltipIcon]').length,
        'a link': all('a[href]').length,
    };
    return [key, {text: box.innerText, made}];
}))"""


@pytest.fixture(scope="module")
def script_url(tmp_path_factory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("escape_page")
    ways = "\n".join(
        f"    k = f'{name}_{{i}}'\n    with st.container(key=k):\n        {line}" for name, line in WAYS.items()
    )
    script = folder / "page.py"
    script.write_text(SCRIPT.format(root=str(ROOT), texts=json.dumps(TEXTS), ways=ways), encoding="utf-8")
    port = free_port()
    log = folder / "server.log"
    command = [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port)]
    command += ["--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"]
    command += ["--server.fileWatcherType", "none"]
    with open(log, "wb") as out:
        proc = subprocess.Popen(command, cwd=folder, env=dict(os.environ), stdout=out, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(proc, url, log)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.mark.parametrize("escape", ["md_line", "md_text"])
def test_the_colon_syntax_shows_as_typed_everywhere(page, script_url, escape):
    page.goto(f"{script_url}/?escape={escape}")
    wait_idle(page, 60_000)
    # The emoji plugin is loaded once a text needs it: the script's own shortcode shows it is.
    page.wait_for_function("(cat) => document.body.innerText.includes(cat)", arg=THE_APPS_OWN, polling=100)
    keys = {f"{name}_{i}": (name, text) for name in WAYS for i, text in enumerate(TEXTS)}
    found = page.evaluate(MADE, list(keys))
    problems = []
    for key, (name, text) in keys.items():
        if found[key] is None:
            problems.append(f"{name} {text!r}: not drawn")
            continue
        shown = found[key]["text"].replace(JOINER, "")
        if text not in shown:
            problems.append(f"{name} {text!r}: shows {shown!r}")
        problems += [f"{name} {text!r}: {what} ({n})" for what, n in found[key]["made"].items() if n]
    body = page.locator("body").inner_text()
    problems += [f"an emoji {e} was made" for e in EMOJI if e in body]
    assert not problems, "\n".join(problems)
