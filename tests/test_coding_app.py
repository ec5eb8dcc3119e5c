"""The annotation screens under AppTest (sign-in, live panel, adjudication, task admin) and the pure
parts behind them (item sampling, the agreement report, the users CLI); the coding screen itself is
in test_coding_screen.py."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pandas as pd
import pytest
from cli_run import run_cli
from coding_team import APP, ROOT, corpus, signed_in, team  # noqa: F401 - fixtures
from streamlit.testing.v1 import AppTest

from analysis import agreement as ag
from analysis import coding as ac
from corpus import codebook as cbm
from corpus.store import Store

pytestmark = pytest.mark.long


# -- access -------------------------------------------------------------------------------------


def test_first_lead_is_created_with_the_console_token(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "fresh"))
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/tasks.py").run()
    assert not at.exception
    printed = capsys.readouterr().out
    token = next(
        line.split(": ", 1)[1].strip() for line in printed.splitlines() if line.startswith("Groundwork setup token: ")
    )
    assert len(token) >= 12
    # A wrong token is refused with the reason; nothing is created.
    at.text_input(key="setup_token").input("not-the-token")
    at.text_input(key="setup_username").input("pi")
    at.text_input(key="setup_password").input("pi-password")
    at.text_input(key="setup_password2").input("pi-password")
    at.button[0].click().run()
    assert "does not match" in at.error[0].value
    store = Store.open(tmp_path / "fresh")
    assert not store.has_lead()
    at.text_input(key="setup_token").input(token)
    at.button[0].click().run()
    assert not at.exception
    assert store.user("pi").role == "lead"
    assert at.title[0].value == "Tasks"
    # The token is printed once per process, not on every page run.
    at.run()
    assert "setup token" not in capsys.readouterr().out


def test_wrong_password_is_refused(team):
    at = AppTest.from_file(APP, default_timeout=60).run()
    at.switch_page("pages/code.py").run()
    at.text_input(key="auth_username").input("ann")
    at.text_input(key="auth_password").input("not-her-password")
    at.button[0].click().run()
    assert "wrong password" in at.error[0].value
    # No coding keypad (the only custom component left is the sign-in cookie's writer).
    assert [c.key for c in at.get("bidi_component") if not c.key.startswith("auth_cookie")] == []


def test_coder_pages_are_closed_to_coders(team):
    at = signed_in("ann", "ann-password", "pages/tasks.py")
    assert "for a lead" in at.warning[0].value
    at.switch_page("pages/adjudicate.py").run()
    assert "for a lead" in at.warning[0].value


# -- the lead's panel and adjudication ---------------------------------------------------------


def panel_of(frame: pd.DataFrame) -> ag.Headline:
    """The numbers the live panel shows for these labels."""
    return ag.panel(ag.LabelTable(frame, item="item_id", label="code"), min_items=ag.PANEL_MIN_ITEMS)


def metric_value(at: AppTest, label: str) -> str:
    return next(m for m in at.metric if m.label == label).value


def test_the_lead_panel_shows_the_live_kappa_with_its_interval(team):
    store, lead, ann, bob, guest, task = team
    items = store.items(task.id)["item_id"].tolist()
    codes = [
        "initiate",
        "continue",
        "acknowledge",
        "repair",
        "continue",
        "continue",
        "acknowledge",
        "initiate",
        "repair",
        "continue",
    ]
    for i, it in enumerate(items):
        store.add_label(ann, task.id, it, codes[i])
        store.add_label(bob, task.id, it, codes[i] if i % 3 else "continue")
    expected = panel_of(store.labels(lead, task.id))
    at = signed_in("lead", "lead-password", "pages/tasks.py")
    assert metric_value(at, "Fleiss' kappa") == f"{expected.fleiss.estimate:.3f}"
    assert metric_value(at, "Krippendorff's alpha") == f"{expected.alpha.estimate:.3f}"
    # The interval of the same report, and the counts it rests on, beside the numbers.
    report = ag.report(ag.LabelTable(store.labels(lead, task.id), item="item_id", label="code"), n_boot=200, seed=0)
    lo, hi = report.fleiss.interval
    assert any(c.value == f"95% CI {lo:.3f} to {hi:.3f}" for c in at.caption)
    assert any(
        c.value.startswith("20 labels from 2 coders on 10 items; Fleiss' kappa on the 10 items") for c in at.caption
    )
    assert any("Too few items" in w.value for w in at.warning)
    # A new label changes the number the lead sees.
    store.add_label(bob, task.id, items[1], "cancel")
    at.run()
    after = panel_of(store.labels(lead, task.id)).fleiss.estimate
    assert after != expected.fleiss.estimate
    assert metric_value(at, "Fleiss' kappa") == f"{after:.3f}"


def test_below_the_minimum_the_panel_says_too_few_items(team):
    store, lead, ann, bob, guest, task = team
    items = store.items(task.id)["item_id"].tolist()
    store.add_label(ann, task.id, items[0], "initiate")
    store.add_label(bob, task.id, items[0], "continue")  # one complete item: kappa would be -0.5
    store.add_label(ann, task.id, items[1], "initiate")
    at = signed_in("lead", "lead-password", "pages/tasks.py")
    assert metric_value(at, "Fleiss' kappa") == "undefined"
    assert any(c.value == "undefined, because too few items (1 complete)" for c in at.caption)
    assert any(
        c.value.startswith("3 labels from 2 coders on 2 items; Fleiss' kappa on the 1 items") for c in at.caption
    )
    # The details come from the same refresh: the same counts.
    assert any(w.value.startswith("Too few items: 1 coded by every coder") for w in at.warning)


def test_agreement_is_shown_per_codebook_version(team, corpus):
    store, lead, ann, bob, guest, task = team
    items20 = ac.assign_partitions(ac.sample_items(corpus.actions_df, 20, seed=4), 2, seed=4)
    big = store.create_task(
        lead, "versions", corpus.info.name, cbm.default(), items20, [ann, bob], seed=4, dataset_hash=corpus.content_hash
    )
    items = store.items(big.id)["item_id"].tolist()
    before = ["initiate", "continue", "acknowledge", "repair", "continue"] * 2
    for i, it in enumerate(items[:10]):
        store.add_label(ann, big.id, it, before[i])
        store.add_label(bob, big.id, it, before[i] if i % 2 else "continue")
    data = cbm.default().to_dict()
    data["version"] = "1.1"
    data["codes"][1]["definition"] = "Continue: the same speaker goes on with the same contribution."
    store.revise_codebook(lead, big.id, cbm.parse(data))
    after = ["initiate", "continue", "repair", "continue", "acknowledge"] * 2
    for i, it in enumerate(items[10:]):
        store.add_label(ann, big.id, it, after[i])
        store.add_label(bob, big.id, it, after[i])
    at = signed_in("lead", "lead-password", "pages/tasks.py")
    at.selectbox(key="ta_task").select_index(1).run()
    table = next(d.value for d in at.dataframe if "codebook version" in d.value.columns)
    cur = store.labels(lead, big.id)
    expected = {v: panel_of(cur[cur["codebook_version"] == v]).fleiss.estimate for v in ("1.0", "1.1")}
    assert table["codebook version"].tolist() == ["1.0", "1.1"]
    assert table["Fleiss' kappa"].tolist() == [f"{expected['1.0']:.3f}", f"{expected['1.1']:.3f}"]
    assert expected["1.1"] == 1.0 and expected["1.0"] < 1.0
    assert at.selectbox(key="ta_task").options[1] == "versions (20 items, Grounding acts (Traum, 1995) v1.1)"


def _array(value):
    """A Plotly JSON array: a list, or a typed array ({"dtype", "bdata"} in base64)."""
    import base64

    import numpy as np

    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    return list(value)


def test_the_grounding_acts_page_offers_the_gold_of_a_closed_task(team, corpus):
    store, lead, ann, bob, guest, task = team
    items = store.items(task.id)
    for it in items["item_id"]:
        store.add_label(ann, task.id, it, "repair")
        store.add_label(bob, task.id, it, "repair")
    store.accept_consensus(lead, task.id)
    store.set_gold(lead, task.id, items["item_id"].iat[0], "cancel", note="withdrawn")

    def acts_on_page(at=None):
        if at is None:
            at = AppTest.from_file(APP, default_timeout=60).run()
            at.switch_page("pages/acts.py").run()
        assert not at.exception, [e.value for e in at.exception]
        spec = json.loads(at.get("plotly_chart")[0].proto.spec)
        counts = {}
        for trace in spec["data"]:
            if trace["type"] == "bar":
                for name, custom in zip(trace["x"], trace["customdata"]):
                    counts[name] = counts.get(name, 0) + int(custom[2])
        return at, counts

    # While the task is open its gold stays private: the page shows the dataset's own coders.
    at, counts = acts_on_page()
    assert any("Majority label of the human coders" in c.value for c in at.caption)
    assert sum(counts.values()) > 100
    store.set_phase(lead, task.id, "revealed")
    # Revealed, its 10 items are one choice away; the page still opens on the source covering the most
    # actions (the coders' majority), as a 10-item round must not take over everyone's charts.
    at, counts = acts_on_page()
    assert any("Majority label of the human coders" in c.value for c in at.caption)
    assert sum(counts.values()) > 100
    at.selectbox(key="an_acts").set_value(f"gold:{task.id}").run()
    at, counts = acts_on_page(at)
    assert any(
        "Gold labels of the closed coding task 'pilot' on 10 actions (9 unanimous, 1 adjudicated)" in c.value
        for c in at.caption
    )
    assert {k: v for k, v in counts.items() if v} == {"Repair": 9, "Cancel": 1}
    # And back to the dataset's own labels.
    at.selectbox(key="an_acts").set_value("majority").run()
    at, counts = acts_on_page(at)
    assert any("Majority label of the human coders" in c.value for c in at.caption)
    assert sum(counts.values()) > 100


def test_an_undefined_kappa_is_said_in_words(team):
    store, lead, ann, bob, guest, task = team
    for it in store.items(task.id)["item_id"]:
        store.add_label(ann, task.id, it, "continue")
        store.add_label(bob, task.id, it, "continue")
    at = signed_in("lead", "lead-password", "pages/tasks.py")
    assert metric_value(at, "Fleiss' kappa") == "undefined"
    assert any(c.value == f"undefined, because {ag.ALL_SAME}" for c in at.caption)


def test_adjudication_makes_gold_and_feedback(team):
    store, lead, ann, bob, guest, task = team
    items = store.items(task.id)["item_id"].tolist()
    store.add_label(ann, task.id, items[0], "initiate")
    store.add_label(bob, task.id, items[0], "initiate")
    store.add_label(ann, task.id, items[1], "repair", note="ann thinks repair")
    store.add_label(bob, task.id, items[1], "request_repair")
    at = signed_in("lead", "lead-password", "pages/adjudicate.py")
    at.button(key=f"adj_unanimous_{task.id}").click().run()
    assert "Accepted 1 item(s)" in at.success[0].value
    assert at.selectbox(key=f"adj_item_{task.id}").value == items[1]
    # Names hidden: "Coder 1", "Coder 2".
    shown = at.dataframe[-1].value
    assert sorted(shown["coder"]) == ["Coder 1", "Coder 2"] and "ann thinks repair" in shown["note"].tolist()
    at.selectbox(key=f"adj_code_{task.id}_{items[1]}").select("repair")
    at.text_input(key=f"adj_note_{task.id}_{items[1]}").input("the Guide corrects the route")
    at.selectbox(key=f"adj_error_{task.id}_{items[1]}").select("coder_error")
    at.checkbox(key=f"adj_flag_{task.id}_{items[1]}").check()
    next(b for b in at.button if b.label == "Save gold").click().run()
    assert not at.exception
    gold = store.gold(lead, task.id).set_index("item_id")
    assert gold.loc[items[0], ["code", "provenance"]].tolist() == ["initiate", "unanimous"]
    assert gold.loc[items[1], ["code", "provenance", "error_type", "flag_codebook"]].tolist() == [
        "repair",
        "adjudicated",
        "coder_error",
        True,
    ]
    # Reveal: bob sees where gold differs from his label, with the lead's note.
    at.segmented_control(key=f"adj_phase_{task.id}").set_value("revealed").run()
    assert store.task(task.id).phase == "revealed"
    bob_at = signed_in("bob", "bob-password", "pages/code.py")
    fb = bob_at.dataframe[-1].value
    assert fb["lead_note"].tolist() == ["the Guide corrects the route"]
    assert fb["gold_code"].tolist() == ["Repair"]


# -- task admin -------------------------------------------------------------------------------


def test_the_lead_creates_accounts_and_a_task(team, corpus):
    store, lead, ann, bob, guest, task = team
    at = signed_in("lead", "lead-password", "pages/tasks.py")
    at.text_input(key="ta_new_name").input("round 2")
    at.number_input(key="ta_new_n").set_value(24)
    at.multiselect(key="ta_new_strat").set_value(["condition", "role"])
    at.number_input(key="ta_new_few").set_value(4)
    at.multiselect(key="ta_new_coders").set_value(["ann", "bob"])
    at.run()
    at.button(key="ta_new_create").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    new = next(t for t in store.tasks_for(lead) if t.name == "round 2")
    its = store.items(new.id)
    assert len(its) == 24 and (its["partition"] == "few_shot").sum() == 4
    assert sorted(u.username for u in store.coders(new.id)) == ["ann", "bob"]
    # Stratified by condition and role: every stratum of the corpus gets its proportional share.
    shares = corpus.actions_df.groupby(["condition", "role"], observed=True).size() / len(corpus.actions_df)
    got = its["stratum"].value_counts()
    for (cond, role), share in shares.items():
        assert abs(got.get(f"{cond}/{role}", 0) - share * 24) < 1


# -- pure parts ---------------------------------------------------------------------------------


def test_stratified_sample_is_seeded_and_proportional(corpus):
    a = ac.sample_items(corpus.actions_df, 180, seed=1, stratify=["condition", "role"])
    b = ac.sample_items(corpus.actions_df, 180, seed=1, stratify=["condition", "role"])
    c = ac.sample_items(corpus.actions_df, 180, seed=2, stratify=["condition", "role"])
    assert a == b and a != c
    assert len({(i["session_id"], i["action_index"]) for i in a}) == 180
    sizes = corpus.actions_df.groupby(["condition", "role"], observed=True).size()
    got = pd.Series([i["stratum"] for i in a]).value_counts()
    for (cond, role), n in sizes.items():
        assert abs(got[f"{cond}/{role}"] - 180 * n / sizes.sum()) < 1
    parted = ac.assign_partitions(a, 8, seed=1)
    assert sum(p["partition"] == "few_shot" for p in parted) == 8
    assert len(ac.all_items(corpus.actions_df)) == len(corpus.actions_df)


def test_id_lists_are_checked_line_by_line():
    known = {"S01:1", "S01:2", "S02:5"}
    assert ac.items_from_csv("item_id\nS01:1\nS02:5\n", known=known) == [
        {"session_id": "S01", "action_index": 1, "stratum": ""},
        {"session_id": "S02", "action_index": 5, "stratum": ""},
    ]
    assert len(ac.items_from_csv(b"session_id,action_index\nS01,2\n", known=known)) == 1
    with pytest.raises(ac.ItemListError) as err:
        ac.items_from_csv("session_id,action_index\nS01,x\nS09,1\nS01,2\nS01,2\n", "ids.csv", known)
    assert err.value.problems == [
        "line 2, column action_index: 'x' is not an action index (a whole number >= 0)",
        "line 3, column action_index: action S09:1 is not in the current dataset",
        "line 5: S01:2 repeats line 4",
    ]
    with pytest.raises(ac.ItemListError, match="needs columns"):
        ac.items_from_csv("foo\n1\n")
    with pytest.raises(ac.ItemListError, match="empty"):
        ac.items_from_csv("")


def test_the_agreement_report_has_every_statistic(corpus):
    lab = corpus.coded()
    lab = lab.assign(codebook_version="1.0")
    rep = ac.agreement_report(lab, n_boot=50)
    assert rep.excluded_coders == ["llm_coder"]
    humans = lab[lab["coder_kind"] == "human"]
    direct = ag.report(ag.LabelTable(humans, item="item_id", label="code"), n_boot=50, seed=0)
    assert rep.overall.fleiss.estimate == direct.fleiss.estimate
    meta = ac.ReportMeta(
        task="pilot",
        dataset="sample",
        codebook_id="grounding_acts",
        codebook_name="Grounding acts",
        codebook_version="1.0",
        n_items_in_task=180,
    )
    table = pd.read_csv(io.StringIO(ac.report_csv(rep, meta)))
    row = table.set_index("statistic").loc["fleiss_kappa"]
    assert float(row["estimate"]) == pytest.approx(direct.fleiss.estimate) and int(row["n"]) == direct.fleiss.n
    assert float(row["ci_low"]) == pytest.approx(direct.fleiss.interval[0])
    assert row["computed_by"].startswith("analysis.agreement.fleiss (vectorized) (groundwork ")
    assert row["interval_method"].startswith("percentile bootstrap over items (50 resamples, seed 0)")
    stats = set(table["statistic"])
    assert {
        "krippendorff_alpha",
        "percent_agreement",
        "mean_pairwise_cohen_kappa",
        "gwet_ac1",
        "fleiss_kappa[acknowledge]",
        "cohen_kappa[coder_a,coder_b]",
        "coder_bias_chi2",
        "n_missing_labels",
        "package:groundwork",
        "package:krippendorff",
        "package:scipy",
        "package:numpy",
        "package:pandas",
    } <= stats
    # Only the packages that computed a number are named.
    assert "package:statsmodels" not in stats and "package:scikit-learn" not in stats
    md = ac.report_markdown(rep, meta)
    assert f"| fleiss_kappa | {direct.fleiss.estimate:.3f} | {direct.fleiss.n} |" in md
    assert "(grounding\\_acts v1.0)" in md and "tested equal to statsmodels.stats.inter_rater.fleiss_kappa" in md
    assert "Krippendorff's alpha (nominal): " in md and "krippendorff.alpha (krippendorff " in md
    # Two codebook versions: reported apart as well.
    two = lab.assign(codebook_version=["1.0" if i % 2 else "1.1" for i in range(len(lab))])
    rep2 = ac.agreement_report(two, n_boot=0)
    assert sorted(rep2.by_version) == ["1.0", "1.1"]
    assert "## Codebook v1.1" in ac.report_markdown(rep2, meta)


def test_an_undefined_statistic_is_written_in_words():
    lab = pd.DataFrame(
        {
            "item_id": ["a", "a", "b", "b"],
            "coder": ["x", "y", "x", "y"],
            "code": ["c"] * 4,
            "coder_kind": "human",
            "codebook_version": "1",
        }
    )
    rep = ac.agreement_report(lab, n_boot=0)
    meta = ac.ReportMeta("t", "d", "cb", "CB", "1", 2)
    table = pd.read_csv(io.StringIO(ac.report_csv(rep, meta))).set_index("statistic")
    assert pd.isna(table.loc["fleiss_kappa", "estimate"])
    assert table.loc["fleiss_kappa", "note"] == f"undefined, because {ag.ALL_SAME}"
    assert f"undefined, because {ag.ALL_SAME}" in ac.report_markdown(rep, meta)
    assert "No labels yet" in ac.report_markdown(ac.agreement_report(lab.iloc[:0], n_boot=0), meta)


def test_text_from_the_data_cannot_break_the_markdown_report():
    lab = pd.DataFrame(
        {
            "item_id": ["a|b", "a|b", "c", "c"],
            "coder": ["x", "y", "x", "y"],
            "code": ["p", "q|r", "p", "p"],
            "coder_kind": "human",
            "codebook_version": "1",
        }
    )
    md = ac.report_markdown(ac.agreement_report(lab, n_boot=0), ac.ReportMeta("t|x", "d", "cb", "CB", "1", 2))
    assert "| a\\|b | 0.00 | x=p; y=q\\|r |" in md and "# Agreement report: t\\|x" in md


def test_long_export_as_jsonl():
    df = pd.DataFrame(
        {
            "item_id": ["S01:1"],
            "coder": ["ann"],
            "code": ["initiate"],
            "created_at": pd.to_datetime(["2025-01-02T03:04:05Z"]),
        }
    )
    rows = [json.loads(line) for line in ac.long_jsonl(df).splitlines()]
    assert rows == [{"item_id": "S01:1", "coder": "ann", "code": "initiate", "created_at": "2025-01-02T03:04:05+00:00"}]


def test_cli_adds_a_lead(tmp_path):
    env = {"GROUNDWORK_DATA_DIR": str(tmp_path / "d"), "GROUNDWORK_DB_URL": None}

    def run(pw: str):
        return run_cli("users", "add", "pi", "--role", "lead", "--password-stdin", stdin=pw, env=env)

    r = run("pi-password\n")
    assert r.returncode == 0, r.stderr
    store = Store.open(tmp_path / "d")
    assert store.authenticate("pi", "pi-password").role == "lead"
    r = run("pi-password\n")
    assert r.returncode == 1 and "'pi' is taken" in r.stderr


def test_cli_uses_the_database_of_the_apps_secrets_file(tmp_path):
    db = tmp_path / "elsewhere.sqlite"
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text(f'[database]\nurl = "sqlite:///{db}"\n')
    env = {**os.environ, "GROUNDWORK_DATA_DIR": str(tmp_path / "d"), "PYTHONPATH": str(ROOT)}
    env.pop("GROUNDWORK_DB_URL", None)
    r = subprocess.run(
        [sys.executable, "-m", "corpus", "users", "add", "pi", "--role", "lead", "--password-stdin"],
        input="pi-password\n",
        text=True,
        capture_output=True,
        cwd=tmp_path,
        env=env,
    )
    assert r.returncode == 0, r.stderr
    assert Store(f"sqlite:///{db}").authenticate("pi", "pi-password").role == "lead"
    assert not (tmp_path / "d" / "groundwork.sqlite").exists()


# -- a label the database does not take ---------------------------------------------------------


def test_a_label_the_database_does_not_take_is_shown_not_saved_then_saved_once_when_sent_again(team, monkeypatch):
    """Another connection holds SQLite's write lock for longer than the app's store may wait (made
    short here): the keypad is answered that the label was not saved, and why, and stays on the
    item. The same label sent again once the lock is free is saved, once, under the first try's
    request id (had that try reached the database, it would not be written twice)."""
    import sqlite3

    import sqlalchemy as sa
    from coding_team import keypad, press

    from corpus.store import WritePolicy

    monkeypatch.setattr("corpus.store.base.DEFAULT_WRITES", WritePolicy(seconds=0.5, busy_seconds=0.1))
    store, lead, ann, bob, guest, task = team
    at = signed_in("ann", "ann-password", "pages/code.py")
    order = store.coder_order(task.id, ann)
    holder = sqlite3.connect(store.engine.url.database, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        first = press(at, task.id, "repair", note="the Follower fixes a stroke", unsure=True)
    finally:
        holder.close()
    pad = keypad(at, task.id)
    assert (pad["item"], pad["ack"], pad["saved"]) == (order[0], first, False)
    assert pad["status"]["kind"] == "error"
    said = pad["status"]["text"]
    assert said.startswith("The label was not saved: other writes held the database locked ("), said
    assert said.endswith(". Press 4 (Repair) on item 1 to try again: its note and flag are kept."), said
    assert store.history(lead, task.id).empty
    again = press(at, task.id, "repair", note="the Follower fixes a stroke", unsure=True)
    pad = keypad(at, task.id)
    assert pad["status"] == {"kind": "success", "text": "Saved Repair for item 1."}
    assert (pad["item"], pad["ack"], pad["saved"]) == (order[1], again, True)
    hist = store.history(lead, task.id)
    assert hist[["item_id", "code", "note", "unsure"]].values.tolist() == [
        [order[0], "repair", "the Follower fixes a stroke", True]
    ]
    with store.engine.connect() as c:
        assert c.execute(sa.text("SELECT request_id FROM labels")).scalars().all() == [first]
