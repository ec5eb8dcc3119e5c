"""Data is text, never markup, on every page: a dataset and a coding round with markup in every text
field (tests/hostile_data.py), served as the only dataset root; the lead goes through every screen of
the menu (a failed sign-in and a map draft named with markup too) and the Replay player, the coder the Code page, and in headless chromium no script runs, no
element is injected, no address in the text becomes a link, Streamlit's colon syntax makes no icon,
coloured span or emoji, no page fails, and the text shows as written. On every screen the lead downloads every CSV the page offers: no cell of any starts a
formula (the data's text starts with one)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from conftest import module_tab, open_from_menu, pick_dataset, served_app, sign_in, wait_idle
from hostile_data import (
    CODER_PASSWORD,
    COLON_SYNTAX,
    HOSTILE,
    HOSTILE_ID,
    HOSTILE_USER,
    LEAD_PASSWORD,
    coding_round,
    write_hostile_benchmark,
    write_hostile_dataset,
)
from playwright.sync_api import expect
from test_csv_exports import formula_cells

import app
from corpus.store import Store

pytestmark = pytest.mark.browser

# What any of the payloads would leave behind in the page if it were rendered as HTML or Markdown.
INJECTED = {
    "an iframe with srcdoc": "iframe[srcdoc]",
    "an image with onerror": "img[onerror]",
    "an element with the payload's class": ".pwn",
    "a javascript: link": "a[href^='javascript:' i]",
    "a link made from an address in the data": "a[href*='evil.example' i], a[*|href*='evil.example' i]",
    "Markdown emphasis of the payload": "strong:text-is('md'), b:text-is('md')",
    "an HTML form with a password field": "form:has(input[type=password])",
    # The app's own icons come from widgets' icon parameters; Markdown makes an icon of
    # ":material/lock:" in text (and a button group of an option that starts with one).
    "an icon made from the data's :material/lock:": (
        "span[role=img][aria-label='lock icon' i], [data-testid=stButtonGroup] [data-testid=stIconMaterial]:text-is('lock')"
    ),
    # ":red[x]" makes a coloured span around "x"; a bare ":red" an empty one. The app's own coloured
    # text (a badge on the Code page) is never empty nor "x".
    "a coloured span made from the data's :red[x]": (
        "[class*=stMarkdownColored]:empty, [class*=stMarkdownColored]:text-is('x'), "
        ".stMarkdownBadge:empty, .stMarkdownBadge:text-is('x')"
    ),
}
SHOWN_AS_TEXT = ["**md** [l](javascript:alert(1))", COLON_SYNTAX]
EMOJI = "\N{SMILING FACE WITH OPEN MOUTH AND SMILING EYES}"  # what ":smile:" becomes
JOINER = "\u2060"  # the escaper's invisible word joiner (corpus/escape.py), left out when text is compared


# Every screen in the menu: its URL path (the test's id) and its title.
SCREENS = [(s.file, s.title) for screens in app.PAGES.values() for s in screens]


@pytest.fixture(scope="module")
def hostile_app(tmp_path_factory):
    data = tmp_path_factory.mktemp("hostile_app")
    root = data / "roots"
    dataset = write_hostile_dataset(root / "hostile")
    write_hostile_benchmark(root / "hostile_tom")  # offered second: the same name, a later folder
    store = Store.open(data)
    lead, coder, task_id = coding_round(store, dataset)
    store.authenticate(HOSTILE, "a wrong password", client="203.0.113.9")  # the lead's table of failed sign-ins
    from corpus.mapedit import draft as dr
    from corpus.mapedit.mapfile import save_draft

    save_draft(data / "map_drafts", HOSTILE, dr.new_draft("m", (5, 5)), saved_by=HOSTILE_USER)  # the drafts list
    with served_app(data, {"GROUNDWORK_DATASET_ROOTS": str(root)}) as url:
        yield url, store, task_id


@pytest.fixture(scope="module")
def lead_tab(shared_context, hostile_app) -> Iterator[tuple]:
    """A tab signed in as the lead, which goes from screen to screen through the menu (one session of
    the app, as a lead's visit is), and the dialogs it opens (each one dismissed)."""
    with module_tab(shared_context) as page:
        dialogs, _ = _watch(page)
        _sign_in(page, hostile_app[0], "tasks", "lead", LEAD_PASSWORD)
        yield page, dialogs


@pytest.fixture
def dialogs(page) -> Iterator[list[str]]:
    """The dialogs the test's tab opens (each one dismissed)."""
    seen, handler = _watch(page)
    yield seen
    page.remove_listener("dialog", handler)


def _watch(page) -> tuple[list[str], Callable]:
    """Record every dialog the page opens, and dismiss it: the record, and the listener."""
    dialogs: list[str] = []

    def on_dialog(dialog):
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    return dialogs, on_dialog


def _open(page, title: str) -> None:
    """Open a screen from the menu; what the screens before it ran, they reported themselves."""
    page.evaluate("delete window.__pwned")
    open_from_menu(page, title, 60_000)


def _sign_in(page, url: str, path: str, username: str, password: str) -> None:
    sign_in(page, url, path, username, password, timeout=60_000)
    expect(page.get_by_text("Signed in as")).to_be_visible()


def _where_in_page(element) -> str:
    """The test ids of an element's ancestors and its text: where a finding is."""
    return element.evaluate("""e => {
        const ids = [];
        for (let a = e; a; a = a.parentElement) if (a.dataset && a.dataset.testid) ids.push(a.dataset.testid);
        return ids.reverse().join(' > ') + ': ' + (e.parentElement || e).outerHTML.slice(0, 200);
    }""")


def _problems(page, where: str, dialogs: list[str]) -> list[str]:
    """What ran or was injected on the page, and whether the payload shows as text (empty: none)."""
    # An injected image's onerror fires as its load fails, which is when it counts as complete.
    page.wait_for_function("() => [...document.images].every(image => image.complete)")
    found = []
    errors = page.get_by_test_id("stException")
    if errors.count():
        found.append(f"{where}: an exception: {errors.first.inner_text()[:300]}")
    failed = page.locator(".st-key-gw-page-error")
    if failed.count():
        found.append(f"{where}: the page failed: {failed.first.inner_text()[:300]}")
    if page.evaluate("window.__pwned") is not None:
        found.append(f"{where}: script from the data ran")
    if dialogs:
        found.append(f"{where}: the data opened a dialog: {dialogs}")
        dialogs.clear()
    for what, selector in INJECTED.items():
        n = page.locator(selector).count()
        if n:
            found.append(
                f"{where}: {what} was injected {n} times ({selector}), e.g. in "
                + _where_in_page(page.locator(selector).first)
            )
    # Shown as text: in the page's text, or as the value of a field (a select box shows its choice so).
    values = page.evaluate("[...document.querySelectorAll('input')].map(i => i.value).join(' ')")
    text = page.locator("body").inner_text() + " " + values
    if EMOJI in text:
        found.append(f"{where}: an emoji was made from the data's :smile:")
    shown = text.replace(JOINER, "")
    for part in SHOWN_AS_TEXT:
        if part not in shown:
            found.append(f"{where}: the hostile text {part!r} is not shown as written")
    return found


# Every CSV downloaded on the screens, by file name: its cells that a spreadsheet would run.
DOWNLOADED: dict[str, list[str]] = {}
# The CSV downloads the screens offer on this dataset, at least (each chart's CSV besides; with two
# sessions the Test split screen has no split to offer).
EXPECTED_CSV = {
    "checkpoints_beside_labels.csv",
    "leaderboard_",
    "_labels_long.csv",
    "_labels_wide.csv",
    "_gold.csv",
    "_agreement.csv",
    "outcome_tests_",
    "alignment_over_progress.csv",
}


def _download_every_csv(page, title: str = "") -> None:
    """Click every CSV download button the screen shows (on Tasks, once the exports are built) and
    keep what each file holds."""
    if title == "Tasks":
        build = page.get_by_role("button", name="Build the exports")
        expect(build).to_be_visible(timeout=30_000)
        build.click()
        wait_idle(page)
        expect(page.get_by_role("button", name="Labels, long (CSV)")).to_be_visible(timeout=60_000)
    buttons = page.get_by_test_id("stDownloadButton").locator("button")
    for i in range(buttons.count()):
        button = buttons.nth(i)
        if "CSV" not in button.inner_text() or not button.is_visible():
            continue
        with page.expect_download(timeout=60_000) as download:
            button.click()
        text = open(download.value.path(), encoding="utf-8").read()
        DOWNLOADED[download.value.suggested_filename] = formula_cells(text)


@pytest.mark.parametrize("title", [pytest.param(title, id=file) for file, title in SCREENS])
def test_a_page_shows_hostile_data_as_text(lead_tab, title):
    page, dialogs = lead_tab
    _open(page, title)
    expect(page.get_by_text("Page not found")).to_have_count(0)
    problems = _problems(page, title, dialogs)
    _download_every_csv(page, title)
    assert not problems, "\n".join(problems)


def test_no_csv_download_leaves_a_formula(lead_tab):
    names = sorted(DOWNLOADED)
    missing = [want for want in EXPECTED_CSV if not any(want in name for name in names)]
    assert not missing, (missing, names)
    live = {name: cells for name, cells in DOWNLOADED.items() if cells}
    assert not live, live


def test_the_replay_player_shows_hostile_data_as_text(lead_tab, artifacts):
    page, dialogs = lead_tab
    _open(page, "Replay")
    root = page.locator(".rp-root")
    expect(root).not_to_have_attribute("data-step", "", timeout=20_000)
    page.get_by_role("heading", name="Replay").click()
    page.keyboard.press("End")  # the last action: every message is in the transcript
    expect(root).to_have_attribute("data-step", "5")
    problems = _problems(page, "the replay player", dialogs)
    assert HOSTILE in root.inner_text()
    page.screenshot(path=str(artifacts / "hostile_replay.png"), full_page=True)
    assert not problems, "\n".join(problems)


def test_the_code_page_shows_hostile_data_as_text_to_the_coder(page, dialogs, hostile_app, artifacts):
    url, store, task_id = hostile_app
    page.set_viewport_size({"width": 1440, "height": 900})
    _sign_in(page, url, "code", HOSTILE_USER, CODER_PASSWORD)
    # The item left open is the hostile session's second action (numbered from 1, as Replay numbers
    # it): its context is the hostile message.
    expect(page.get_by_text(f"Session {HOSTILE_ID} · condition visible · action 2", exact=False)).to_be_visible()
    problems = _problems(page, "code (coding)", dialogs)
    page.screenshot(path=str(artifacts / "hostile_code.png"), full_page=True)
    # Revealed: the coder sees gold with the lead's notes.
    store.set_phase(store.user("lead"), task_id, "revealed")
    page.reload()
    wait_idle(page, 60_000)
    expect(page.get_by_role("heading", name="Feedback")).to_be_visible()
    problems += _problems(page, "code (revealed)", dialogs)
    assert not problems, "\n".join(problems)


def test_a_benchmark_shows_hostile_data_as_text(lead_tab):
    """A theory-of-mind benchmark with markup in its questions, options, question types and story:
    Compare's leaderboard (a column per question type) and an instance with its options and story.
    Last in the module: the lead's tab stays on this dataset."""
    page, dialogs = lead_tab
    pick_dataset(page, "(hostile_tom)")
    _open(page, "Compare")
    main = page.get_by_test_id("stMain")
    expect(main.get_by_role("heading", name="Models on a benchmark")).to_be_visible()
    expect(main.get_by_test_id("stTable").first).to_contain_text("synth-large")
    problems = _problems(page, "Compare on a benchmark (leaderboard)", dialogs)
    main.get_by_role("tab", name="Instances").click()
    wait_idle(page)
    expect(main.get_by_text("tests: ", exact=False).first).to_be_visible()  # the options of the question shown
    expect(main.get_by_text("Main character:", exact=False).first).to_be_visible()  # and its story
    problems += _problems(page, "Compare on a benchmark (an instance)", dialogs)
    assert not problems, "\n".join(problems)
