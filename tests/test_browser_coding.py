"""Coding in a real browser: two coders code by keyboard in separate contexts, blind to each other,
while the lead's live panel follows every label; then adjudication into gold and the exports."""

from __future__ import annotations

import pandas as pd
import pytest
from coding_team import people
from conftest import open_from_menu, served_app, submit_sign_in, wait_idle
from playwright.sync_api import expect

from analysis import agreement as ag
from analysis import coding as ac
from components.adjudication import PHASE_LABELS
from corpus import codebook as cbm
from corpus.loading.dataset import load_sample
from corpus.store import Store

pytestmark = pytest.mark.browser

SECRET = "ANN-PRIVATE-7731"
N_ITEMS = 4
# The code each coder gives, by the item's place in the task (keys of the grounding-acts codebook).
ANN_KEYS = ["1", "2", "3", "1"]
BOB_KEYS = ["1", "2", "2", "3"]


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    data = tmp_path_factory.mktemp("coding_app")
    corpus = load_sample()
    store = Store.open(data)
    lead, ann, bob = people(store, lead="lead", ann="coder", bob="coder")
    items = ac.assign_partitions(ac.sample_items(corpus.actions_df, N_ITEMS, seed=11), 0, seed=11)
    task = store.create_task(
        lead,
        "browser pilot",
        corpus.info.name,
        cbm.default(),
        items,
        [ann, bob],
        seed=11,
        dataset_hash=corpus.content_hash,
    )
    with served_app(data) as url:
        yield store, task, (lead, ann, bob), url


def _sign_in(page, url: str, path: str, username: str, password: str):
    """Open ``path`` and sign in there: the page answers at its own URL (on the first visit to a
    fresh server too) with the app's sidebar, not the menu Streamlit makes of the pages folder."""
    page.goto(f"{url}/{path}")
    wait_idle(page)
    expect(page.get_by_text("Page not found")).to_have_count(0)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_role("heading", name="Dataset")).to_be_visible()
    expect(sidebar.get_by_role("link", name="app", exact=True)).to_have_count(0)
    submit_sign_in(page, username, password)
    expect(page.get_by_text("Signed in as")).to_be_visible()
    return page


def _reload(page) -> None:
    """Open the page again (its sign-in comes back from the cookie)."""
    page.reload()
    wait_idle(page)


def _press(page, key: str) -> None:
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)
    wait_idle(page)


def _expected_kappa(labels: list[tuple[str, str, str]]) -> str:
    """What the lead's Fleiss' kappa tile says: the number, or why there is none."""
    table = ag.LabelTable(pd.DataFrame(labels, columns=["item_id", "coder", "code"]), item="item_id", label="code")
    return ag.fmt(ag.panel(table, min_items=ag.PANEL_MIN_ITEMS).fleiss.estimate)


def _expect_lead_kappa(lead_page, expected: str) -> None:
    if expected.startswith("undefined"):
        expect(_lead_kappa(lead_page)).to_have_text("undefined", timeout=15_000)
        expect(lead_page.get_by_text(expected, exact=True).first).to_be_visible(timeout=15_000)
    else:
        expect(_lead_kappa(lead_page)).to_have_text(expected, timeout=15_000)


def _lead_kappa(lead_page):
    return lead_page.get_by_test_id("stMetric").filter(has_text="Fleiss' kappa").get_by_test_id("stMetricValue")


def test_two_coders_blind_live_kappa_gold_and_exports(browser, page, team, artifacts):
    store, task, (lead, ann, bob), url = team
    codes = {c.key: c.code for c in task.codebook.codes}
    position = dict(zip(store.items(task.id)["item_id"], store.items(task.id)["position"]))
    # Three people, three browsers (each with its own sign-in cookie): the lead in the run's tab.
    ctx = {name: browser.new_context(viewport={"width": 1440, "height": 1000}) for name in ("ann", "bob")}
    # The first visit to the fresh server is a coder's deep link.
    ann_page = _sign_in(ctx["ann"].new_page(), url, "code", "ann", "ann-password")
    lead_page = _sign_in(page, url, "tasks", "lead", "lead-password")
    expect(lead_page.get_by_role("heading", name="Live agreement")).to_be_visible()
    # (the panel's numbers are drawn after its heading; on a busy machine seconds after)
    expect(_lead_kappa(lead_page)).to_have_text("undefined", timeout=30_000)
    bob_page = _sign_in(ctx["bob"].new_page(), url, "code", "bob", "bob-password")

    given: list[tuple[str, str, str]] = []
    seen_kappas = []

    def code_next(page, user, keys, n_before, note: str | None = None):
        item = store.coder_order(task.id, user)[n_before]
        expect(page.get_by_text(f"Item {n_before + 1} of {N_ITEMS} · {item}")).to_be_visible()
        # The keypad holds this item and has the last label's answer (a key pressed while it saves
        # is refused, not given to an item the coder has not seen).
        pad = page.locator(".kp-root")
        expect(pad).to_have_attribute("data-item", item, timeout=15_000)
        expect(pad).to_have_attribute("data-state", "ready", timeout=15_000)
        key = keys[position[item]]
        if note:
            box = page.get_by_label("Note", exact=False)
            box.fill(note)
            box.press("Enter")
            wait_idle(page)
        _press(page, key)
        expect(page.get_by_text(f"{n_before + 1} of {N_ITEMS} items coded")).to_be_visible()
        given.append((item, user.username, codes[key]))
        # The lead's panel follows on its own (no reload): label count and kappa.
        expect(lead_page.get_by_text(f"{len(given)} labels from")).to_be_visible(timeout=15_000)
        expected = _expected_kappa(given)
        _expect_lead_kappa(lead_page, expected)
        seen_kappas.append(expected)

    # Ann codes half her items (a private note on the first), then Bob all of his, then Ann the rest.
    for k in range(N_ITEMS // 2):
        code_next(ann_page, ann, ANN_KEYS, k, note=SECRET if k == 0 else None)
    ann_page.screenshot(path=str(artifacts / "coding_coder.png"), full_page=True)
    for k in range(N_ITEMS):
        code_next(bob_page, bob, BOB_KEYS, k)
        # Bob never sees Ann's note or her labels, however far he gets.
        assert SECRET not in bob_page.content()
        # Auto-advance: the next item is uncoded (for him); the last one stays and shows his label.
        expect(bob_page.get_by_text("Your label")).to_have_count(0 if k + 1 < N_ITEMS else 1)
    for k in range(N_ITEMS // 2, N_ITEMS):
        code_next(ann_page, ann, ANN_KEYS, k)
    # What the panel said changed as labels completed items; with fewer complete items than the
    # panel's minimum it says so instead of a kappa.
    assert len(set(seen_kappas)) >= 4, seen_kappas
    assert seen_kappas[-1] == _expected_kappa(given) == f"undefined, because too few items ({N_ITEMS} complete)"
    final = ag.report(
        ag.LabelTable(pd.DataFrame(given, columns=["item_id", "coder", "code"]), item="item_id", label="code"), n_boot=0
    ).fleiss.estimate
    # Every label reached the database exactly once, with the time spent on the item.
    stored = store.labels(lead, task.id)
    assert sorted(zip(stored["item_id"], stored["coder"], stored["code"])) == sorted(given)
    assert stored["seconds"].notna().all() and (stored["seconds"] > 0).all()
    assert stored.loc[stored["coder"] == "ann", "note"].tolist().count(SECRET) == 1
    _reload(bob_page)
    expect(bob_page.get_by_text(f"{N_ITEMS} of {N_ITEMS} items coded")).to_be_visible()
    assert SECRET not in bob_page.content()
    lead_page.screenshot(path=str(artifacts / "coding_lead_panel.png"), full_page=True)

    # Adjudication: accept the unanimous items, then adjudicate the first item of the queue.
    ann_code = {i: c for i, u, c in given if u == "ann"}
    bob_code = {i: c for i, u, c in given if u == "bob"}
    unanimous = sum(ann_code[i] == bob_code[i] for i in ann_code)
    open_from_menu(lead_page, "Adjudicate")
    lead_page.get_by_role("button", name="Accept all unanimous").click()
    wait_idle(lead_page)
    expect(lead_page.get_by_text(f"Accepted {unanimous} item(s) as gold (unanimous).")).to_be_visible()
    assert sorted(store.gold(lead, task.id)["provenance"].unique()) == ["unanimous"]
    lead_page.get_by_label("Note for the coders").fill("the Guide corrects the route")
    lead_page.get_by_role("button", name="Save gold").click()
    wait_idle(lead_page)
    expect(lead_page.get_by_text("Gold saved for")).to_be_visible()
    gold = store.gold(lead, task.id)
    assert len(gold) == unanimous + 1
    adjudicated = gold[gold["provenance"] == "adjudicated"]
    assert len(adjudicated) == 1 and adjudicated["note"].iat[0] == "the Guide corrects the route"
    assert ann_code[adjudicated["item_id"].iat[0]] != bob_code[adjudicated["item_id"].iat[0]]
    lead_page.screenshot(path=str(artifacts / "coding_adjudicate.png"), full_page=True)

    # The bar says how far curation has come; the task's gold history lists every decision.
    n_open = N_ITEMS - unanimous - 1
    expect(
        lead_page.get_by_text(f"Curation: {unanimous + 1} of {N_ITEMS} labelled items have gold ({n_open} open)")
    ).to_be_visible()
    lead_page.get_by_text("Gold history (").click()
    expect(
        lead_page.get_by_text(f"Gold history ({unanimous + 1} decisions, 0 replacing an earlier one)")
    ).to_be_visible()

    # Reveal with an item still open: a confirmation saying how many, and nothing revealed until it is given.
    phase = store.task(task.id).phase
    phases = lead_page.get_by_role("radiogroup", name="Phase")
    current, revealed = (phases.get_by_role("radio", name=PHASE_LABELS[p]) for p in (phase, "revealed"))
    expect(current).to_be_checked()
    revealed.click()
    verb = "has" if n_open == 1 else "have"
    expect(lead_page.get_by_text(f"{n_open} of {N_ITEMS} labelled items {verb} no gold yet")).to_be_visible()
    # The server has handled the click (it asks for the confirmation), has finished that run (its
    # last buttons are drawn and the page is idle), and in it set the phase control back to the
    # task's phase, which it read from the store after handling the click.
    expect(lead_page.get_by_role("button", name="Keep adjudicating")).to_be_visible()
    expect(current).to_be_checked()
    expect(revealed).not_to_be_checked()
    wait_idle(lead_page)
    assert store.task(task.id).phase == phase
    lead_page.screenshot(path=str(artifacts / "coding_reveal_confirm.png"), full_page=True)
    lead_page.get_by_role("button", name="Keep adjudicating").click()
    wait_idle(lead_page)
    expect(lead_page.get_by_text("no gold yet. Revealing")).to_have_count(0)
    assert store.task(task.id).phase == phase
    revealed.click()
    lead_page.get_by_role("button", name=f"Reveal with {n_open} item{'s' if n_open != 1 else ''} open").click()
    # The click reaches the server a moment later (an idle page may be idle just before the rerun
    # starts): wait for the run that follows it to show the phase it read from the store, without
    # the confirmation, and to end.
    expect(revealed).to_be_checked(timeout=30_000)
    expect(lead_page.get_by_text("no gold yet. Revealing")).to_have_count(0)
    wait_idle(lead_page)
    assert store.task(task.id).phase == "revealed"
    # The coder whose label differs from gold sees the lead's note.
    item = adjudicated["item_id"].iat[0]
    differs = ann_page if ann_code[item] != adjudicated["code"].iat[0] else bob_page
    _reload(differs)
    expect(differs.get_by_role("heading", name="Feedback")).to_be_visible()
    expect(differs.get_by_text("the Guide corrects the route")).to_be_attached()

    # Exports download from the Tasks page.
    open_from_menu(lead_page, "Tasks")
    lead_page.get_by_role("button", name="Build the exports").click()
    wait_idle(lead_page)
    with lead_page.expect_download() as dl:
        lead_page.get_by_role("button", name="Labels, long (CSV)").click()
    long = pd.read_csv(dl.value.path())
    assert len(long) == len(given) and set(long["coder"]) == {"ann", "bob"}
    with lead_page.expect_download() as dl:
        lead_page.get_by_role("button", name="Labels, wide (CSV)").click()
    wide = pd.read_csv(dl.value.path())
    assert len(wide) == N_ITEMS and {"ann", "bob"} <= set(wide.columns)
    with lead_page.expect_download() as dl:
        lead_page.get_by_role("button", name="Agreement report (Markdown)").click()
    report = open(dl.value.path(), encoding="utf-8").read()
    kappa_row = next(line for line in report.splitlines() if line.startswith("| fleiss_kappa |"))
    assert f"| {final:.3f} |" in kappa_row, kappa_row
    for c in ctx.values():
        c.close()
