"""The Agreement page's coincidence matrix in headless chromium: a click on a cell lists the actions
behind it (one coder gave the row's code, another the column's), each opening Replay."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import expect_no_error, open_from_menu, wait_idle, wait_plotly_drawn
from playwright.sync_api import expect

from analysis.drilldown import items_with_codes
from corpus.loading.dataset import load
from corpus.schema import CODING_SCHEMES

pytestmark = pytest.mark.browser
SAMPLE = Path(__file__).resolve().parent.parent / "sample_data"


def test_a_coincidence_cell_lists_the_actions_behind_it(page, app_url, artifacts):
    corpus = load(SAMPLE)
    labels = corpus.coded("grounding_acts")
    humans = sorted(set(labels["coder"]) - set(corpus.model_coders("grounding_acts")))
    used = labels[labels["coder"].isin(humans)]
    codes = sorted(used["code"].dropna().astype(str).unique())
    row, col = codes[0], codes[1]
    want = items_with_codes(used, row, col)
    assert len(want) > 0
    page.goto(app_url)
    wait_idle(page)
    open_from_menu(page, "Agreement")
    page.get_by_role("tab", name="Confusions").click()
    wait_idle(page)
    block = page.locator(".st-key-agr_coincidence")
    block.scroll_into_view_if_needed()
    wait_plotly_drawn(page, ".st-key-agr_coincidence")
    grid = block.locator(".nsewdrag").first.bounding_box()
    n = len(codes)
    x = grid["x"] + (codes.index(col) + 0.5) * grid["width"] / n
    y = grid["y"] + (codes.index(row) + 0.5) * grid["height"] / n
    page.mouse.click(x, y)
    wait_idle(page)
    box = page.locator(".st-key-agr_coincidence_items_box")
    expect(box).to_be_visible(timeout=30_000)
    names = CODING_SCHEMES["grounding_acts"]  # the title names the codes as the codebook does
    title = rf"Actions behind: {re.escape(names[row])} with {re.escape(names[col])} \({len(want)}\+? actions\)"
    expect(box.get_by_text(re.compile(title))).to_be_visible()
    expect_no_error(page)
    box.screenshot(path=str(artifacts / "agreement_coincidence_cell.png"))


def test_items_with_codes_by_hand():
    """Three items, three coders: item 1 (a, b, b) is behind (a, b), (b, a) and (b, b); item 2 (a, a, c)
    behind (a, a), (a, c); item 3 (c, -, b) behind (c, b) only; nothing is behind (a, a) in item 1."""
    import pandas as pd

    rows = [("S1", 1, "x", "a"), ("S1", 1, "y", "b"), ("S1", 1, "z", "b"),
            ("S1", 2, "x", "a"), ("S1", 2, "y", "a"), ("S1", 2, "z", "c"),
            ("S2", 0, "x", "c"), ("S2", 0, "y", None), ("S2", 0, "z", "b")]  # fmt: skip
    labels = pd.DataFrame(rows, columns=["session_id", "action_index", "coder", "code"])

    def behind(r: str, c: str, coders=None) -> list[tuple[str, int]]:
        got = items_with_codes(labels, r, c, coders)
        return list(zip(got["session_id"], got["index"]))

    assert behind("a", "b") == behind("b", "a") == [("S1", 1)]
    assert behind("b", "b") == [("S1", 1)]
    assert behind("a", "a") == [("S1", 2)]
    assert behind("c", "b") == [("S2", 0)]
    assert behind("a", "b", ["x", "y"]) == [("S1", 1)] and behind("b", "b", ["x", "y"]) == []
    assert items_with_codes(labels, "a", "b")["labels"].tolist() == ["x: a, y: b, z: b"]
