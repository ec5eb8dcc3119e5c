"""The sign-in's proof of work in the browser (components/assets/proof_of_work.js), without
Streamlit: its SHA-256 and its count of leading zero bits give the very counter the server's check
(:func:`corpus.store.signin.proof_holds`) finds first, it reports once, and it refuses what is no
challenge."""

from __future__ import annotations

from pathlib import Path

import pytest
from js_harness import page_html

from corpus.store import proof_holds, solve_proof

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
JS = (ROOT / "components" / "assets" / "proof_of_work.js").read_text(encoding="utf-8")
ORIGIN = "https://proof.groundwork.test"

HARNESS = page_html(
    "proof",
    "A field outside the proof",
    """
window.gw = {
  calls: [],
  async mount(js, data) {
    const [shadow, module] = await gwShadow(js, "", "");
    gw.calls = [];
    gw.shadow = shadow;
    gw.module = module;
    gw.cleanup = module({name: "proof", key: "proof", data, parentElement: shadow,
                         setStateValue: () => {}, setTriggerValue: (name, value) => gw.calls.push({name, value})});
  },
  again(data) {
    gw.module({name: "proof", key: "proof", data, parentElement: gw.shadow,
               setStateValue: () => {}, setTriggerValue: (name, value) => gw.calls.push({name, value})});
  },
};
""",
)


@pytest.fixture
def tab(page):
    page.route(f"{ORIGIN}/**", lambda route: route.fulfill(body=HARNESS, content_type="text/html"))
    page.goto(f"{ORIGIN}/")
    return page


def _answer(tab, deadline_s: float = 60.0) -> list[dict]:
    tab.wait_for_function("gw.calls.length > 0", timeout=deadline_s * 1000)
    return tab.evaluate("gw.calls")


@pytest.mark.parametrize(
    ("challenge", "bits"),
    [
        ("1.1765000000.0123456789abcdef0123456789abcdef.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde", 12),
        ("3.1765000123.ffffffffffffffffffffffffffffffff.zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", 16),
        ("6.1.00000000000000000000000000000000." + "A" * 43, 1),
    ],
)
def test_the_browser_finds_the_counter_the_server_finds_first(tab, challenge, bits):
    tab.evaluate("([js, data]) => gw.mount(js, data)", [JS, {"challenge": challenge, "bits": bits}])
    calls = _answer(tab)
    assert calls == [{"name": "solved", "value": {"challenge": challenge, "counter": solve_proof(challenge, bits)}}]
    assert proof_holds(challenge, calls[0]["value"]["counter"], bits)
    assert tab.evaluate("gw.shadow.querySelector('.gw-proof').textContent") == "Proof done: checking your password..."


def test_drawn_again_with_the_same_challenge_it_reports_once(tab):
    data = {"challenge": "2.1765000000." + "ab" * 16 + "." + "B" * 43, "bits": 10}
    tab.evaluate("([js, data]) => gw.mount(js, data)", [JS, data])
    _answer(tab)
    tab.evaluate("data => gw.again(data)", data)
    tab.evaluate("data => gw.again(data)", data)
    # Drawn again, it starts no new work: no worker runs, and the answer stays the only call.
    assert tab.evaluate("gw.shadow.querySelector('.gw-proof').worker") is None
    assert len(tab.evaluate("gw.calls")) == 1


@pytest.mark.parametrize(
    "data",
    [
        {"challenge": "<img src=x onerror=alert(1)>", "bits": 4},
        {"challenge": "1.2.3.4", "bits": 0},
        {"challenge": "1.2.3.4", "bits": 99},
        {"challenge": "", "bits": 4},
    ],
)
def test_what_is_no_challenge_is_not_worked_on(tab, data):
    tab.evaluate("([js, data]) => gw.mount(js, data)", [JS, data])
    root = "gw.shadow.querySelector('.gw-proof')"
    assert tab.evaluate(f"[{root}.worker === undefined, {root}.textContent, gw.calls.length]") == [True, "", 0]
    assert tab.evaluate("gw.shadow.querySelector('img')") is None
