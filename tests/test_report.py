"""The reproduction report: its numbers are the pages' numbers (each page opened under AppTest with
its opening choices, beside the report built on the same sample), two builds give the same tables
byte for byte, the HTML fetches nothing, shows data as text and keeps aligned text aligned, and the
command line writes the files or says what is wrong with the dataset."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from datetime import UTC, datetime
from html import unescape
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analysis.format import fmt
from corpus import codebook
from corpus.loading.dataset import load_sample
from reports import html
from reports.document import file_part
from reports.reproduction import Figure, Reproduction, Section, Table, build

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")

pytestmark = pytest.mark.long


@pytest.fixture(scope="module")
def report() -> Reproduction:
    return build(load_sample(), command="python -m analysis report sample_data OUT")


def _page(tmp_path, monkeypatch, page: str) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _table(report: Reproduction, name: str) -> Table:
    return next(t for t in report.tables() if t.name == name)


def _figure(report: Reproduction, name: str) -> Figure:
    return next(f for s in report.sections for f in s.figures if f.name == name)


def _traces(spec: dict) -> list[tuple]:
    return [(t.get("name"), tuple(t.get("x") or ()), tuple(t.get("y") or ())) for t in spec["data"]]


def test_the_reports_numbers_are_the_pages(report, tmp_path, monkeypatch):
    # Data: Tables 1 and 8 as the Data page shows them.
    at = _page(tmp_path, monkeypatch, "pages/data.py")
    pd.testing.assert_frame_equal(at.dataframe[0].value, _table(report, "table1_actions_per_session").frame)
    pd.testing.assert_frame_equal(at.dataframe[1].value, _table(report, "table8_mental_model_labels").frame)
    # Outcomes: the tests table, and the figure drawn from the same sessions.
    at = _page(tmp_path, monkeypatch, "pages/outcomes.py")
    expected = _table(report, "outcome_tests").view  # the page's wording; the CSV holds the numbers
    shown = next(d.value for d in at.dataframe if list(d.value.columns) == list(expected.columns))
    pd.testing.assert_frame_equal(shown.reset_index(drop=True), expected.reset_index(drop=True))
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert _traces(spec) == _traces(json.loads(_figure(report, "session_outcomes").figure.to_json()))
    # Grounding acts: Fig. 3 and Fig. 4 left, trace by trace, and the chi-square in the text.
    at = _page(tmp_path, monkeypatch, "pages/acts.py")
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    for spec, name in zip(specs, ("grounding_acts_by_condition", "alignment_within_acts")):
        assert _traces(spec) == _traces(json.loads(_figure(report, name).figure.to_json())), name
    chi2 = next(m for m in at.metric if m.label == "Chi-square").value
    acts = next(s for s in report.sections if s.title == "Grounding acts by condition")
    assert "chi2(" in acts.lines[1] and chi2 in acts.lines[1]
    # Alignment: the curves, the model table, and the summary sentence.
    at = _page(tmp_path, monkeypatch, "pages/alignment.py")
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert _traces(specs[0]) == _traces(json.loads(_figure(report, "alignment_over_progress").figure.to_json()))
    expected = _table(report, "progress_model").view  # the page's wording; the CSV holds the numbers
    model = next(d.value for d in at.dataframe if list(d.value.columns) == list(expected.columns))
    pd.testing.assert_frame_equal(model.reset_index(drop=True), expected.reset_index(drop=True))
    sentence = next(m.value for m in at.markdown if m.value.startswith("In visible sessions the odds"))
    alignment = next(s for s in report.sections if s.title.startswith("Alignment over task progress"))
    assert sentence in alignment.lines
    # Agreement: the people pooled, Fleiss' kappa as the page shows it.
    at = _page(tmp_path, monkeypatch, "pages/agreement.py")
    kappa = next(m for m in at.metric if m.label == "Fleiss' kappa").value
    rows = _table(report, "agreement").frame.set_index("statistic")
    assert kappa == fmt(float(rows.loc["fleiss_kappa", "estimate"]), 2)
    agreement = next(s for s in report.sections if s.title.startswith("Agreement"))
    assert agreement.lines[0].startswith("People pooled: coder_a, coder_b, coder_c; model coders compared apart")


def test_the_model_and_outcome_tables_are_numbers(report):
    """progress_model.csv and outcome_tests.csv read back by pandas: estimates, interval ends and p
    as numbers (no formatted text, no leading apostrophe, no "< 0.001"); Welch's test of final
    accuracy is scipy's on the sample's sessions."""
    from scipy import stats

    numeric = {
        "progress_model": ["estimate", "ci_low", "ci_high", "p_value", "odds_ratio", "or_low", "or_high"],
        "outcome_tests": ["difference", "difference_ci_low", "difference_ci_high", "test_statistic", "p_value"],
    }
    for name, columns in numeric.items():
        back = pd.read_csv(io.StringIO(html.table_csv(_table(report, name))))
        for col in columns:
            assert pd.api.types.is_float_dtype(back[col]), (name, col, back[col].tolist())
        text = back.select_dtypes("object").astype(str)
        assert not text.apply(lambda s: s.str.startswith(("'", "<"))).any().any(), name
    back = pd.read_csv(io.StringIO(html.table_csv(_table(report, "outcome_tests")))).set_index("outcome")
    sessions = load_sample().sessions_df
    welch = stats.ttest_ind(
        *(sessions.loc[sessions["condition"] == c, "final_accuracy"] for c in ("visible", "not_visible")),
        equal_var=False,
    )
    assert back.loc["final_accuracy", "test_statistic"] == pytest.approx(welch.statistic, rel=1e-9)
    assert back.loc["final_accuracy", "p_value"] == pytest.approx(welch.pvalue, rel=1e-9)
    assert back.loc["final_accuracy", "visible_n"] + back.loc["final_accuracy", "not_visible_n"] == len(sessions)


def test_the_leaderboards_name_the_split_they_score(report):
    """The report's leaderboards say which split they are scored on and where it stands on Appendix E's
    objective, in the Compare page's words."""
    section = next(s for s in report.sections if s.title == "Models against people")
    [line] = [x for x in section.lines if x.startswith("Scored on the dataset's test split.")]
    assert "not visible: 3 of 12 sessions" in line and "ranks 160 of 220 subsets" in line
    assert "ranks 145 of 286 subsets" in line


def test_two_builds_give_the_same_tables_byte_for_byte(report):
    later = datetime(2031, 5, 4, 3, 2, tzinfo=UTC)  # another moment: the tables do not say when
    again = build(load_sample(), command="python -m analysis report sample_data OUT", when=later)
    assert html.tables_zip(report) == html.tables_zip(again)
    assert again.provenance["created"] == "2031-05-04 03:02 UTC" and "2031-05-04 03:02 UTC" in html.render(again)
    names = zipfile.ZipFile(io.BytesIO(html.tables_zip(report))).namelist()
    assert names[:2] == ["table1_actions_per_session.csv", "table8_mental_model_labels.csv"]
    assert {"agreement.csv", "outcome_tests.csv", "progress_model.csv", "provenance.csv"} <= set(names)
    assert "grounding_acts_by_condition_data.csv" in names


def test_the_provenance_names_what_made_the_report(report):
    p = report.provenance
    sample = load_sample()
    assert p["dataset content hash"] == sample.content_hash and p["synthetic"] == "yes"
    assert p["regenerate with"] == "python -m analysis report sample_data OUT"
    for package in ("numpy", "pandas", "scipy", "statsmodels", "scikit-learn", "krippendorff", "rouge-score"):
        assert p[f"package {package}"][0].isdigit(), package
    assert p["grounding acts from"] and p["seeds"].startswith("0 ")
    # Which codebook, label schema and code made the tables.
    book = codebook.default()
    assert f"grounding_acts: {book.name} v{book.version} (8 codes)" in p["codebooks"]
    assert p["label schema"].startswith("version almanac-1 ")
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:  # a checkout: the commit
        assert p["code revision"].startswith(f"git {head.stdout.strip()}")
    else:  # an installed copy: the version and a hash of the code
        assert p["code revision"].startswith("groundwork ") and " code sha256 " in p["code revision"]


def test_the_page_fetches_nothing_and_shows_data_as_text():
    hostile = "<img src=x onerror=alert(1)>"
    rep = Reproduction(
        f"Report: {hostile}",
        True,
        (Section("Data", (f"a line with {hostile}",), (Table("t", "a table", pd.DataFrame({"name": [hostile]})),)),),
        {"dataset": hostile},
    )
    page = html.render(rep)
    assert "<img" not in page and page.count("&lt;img src=x onerror=alert(1)&gt;") == 5
    assert "synthetic" in page
    full = html.render(build(load_sample()))
    assert "<script" not in full and "http://" not in full.replace("http://www.w3.org", "")
    assert "https://" not in full and full.count("<svg") >= 5


def test_the_agreement_tables_keep_their_columns(report):
    agreement = next(s for s in report.sections if s.title.startswith("Agreement"))
    page = html.render(Reproduction("r", True, (agreement,)))
    body = page[page.index("<h2>Agreement") : page.index("<h2>Provenance")]
    blocks = [unescape(b) for b in re.findall(r"<pre>(.*?)</pre>", body, flags=re.S)]
    assert any(b.startswith("Per-category kappa (Fleiss 1971)\n  category ") for b in blocks)
    shown = "\n".join(blocks).split("\n")
    aligned = [row.rstrip() for row in agreement.lines[1].split("\n") if row.startswith(" ") or "  " in row]
    assert aligned[0].startswith("statistic") and "95% CI" in aligned[0]
    assert [row for row in shown if row in aligned] == aligned  # every aligned line, whole and in order
    paragraphs = [unescape(p) for p in re.findall(r"<p>(.*?)</p>", body, flags=re.S)]
    assert not any(p.startswith(("statistic", " ")) or "  " in p for p in paragraphs)
    assert paragraphs[1].startswith("the dataset's labels: 180 items")
    hostile = "<img src=x onerror=alert(1)>"
    text = html.render(Reproduction("r", True, (Section("s", (f"a {hostile}\n\nname  value\n{hostile}  1",)),)))
    assert "<img" not in text and "<pre>name  value\n&lt;img src=x onerror=alert(1)&gt;  1</pre>" in text


def test_the_command_line_writes_the_report(tmp_path):
    from reports.cli import chromium

    out = tmp_path / "sample_report"
    printed = chromium() is not None  # the PDF is the same page, printed by the machine's Chromium
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "analysis",
            "report",
            str(ROOT / "sample_data"),
            str(out),
            *(["--pdf"] if printed else []),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "No runtime found" not in done.stderr
    page = (tmp_path / "sample_report.html").read_text(encoding="utf-8")
    assert "Reproduction report: Groundwork sample corpus (synthetic)" in page
    assert zipfile.ZipFile(tmp_path / "sample_report_tables.zip").testzip() is None
    if printed:
        pdf = (tmp_path / "sample_report.pdf").read_bytes()
        assert pdf.startswith(b"%PDF") and len(pdf) > 100_000
    bad = subprocess.run(
        [sys.executable, "-m", "analysis", "report", str(tmp_path / "nowhere"), str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert bad.returncode == 1 and "nowhere" in bad.stderr and "not a directory" in bad.stderr


# -- beside the published values -----------------------------------------------------------------


def test_the_almanac_reference_holds_the_papers_tables():
    from reports.reference import load

    ref = load()
    assert ref.groups == ("train", "test", "not_visible/train", "not_visible/test", "visible/train", "visible/test")
    assert ref.table1["actions"][0] == (117.7, 87.7) and ref.table1["reset"][5] == (0.0, 0.0)
    assert sum(len(v) for v in ref.table8.values()) == 15
    assert ref.table8["partner_intent"]["p1"][4] == (65.7, 23.2)  # visible, train


def test_ours_beside_the_papers(report):
    from analysis.descriptive import dataset_stats
    from reports.reference import comparison, load

    sample = load_sample()
    stats = dataset_stats(sample.sessions_df, sample.actions_df)
    table = comparison(stats, load())
    assert len(table) == 6 * (6 + 15)
    row = table[(table["statistic"] == "# actions/session") & (table["group"] == "train")].iloc[0]
    mine = stats["by_split"]["train"]["per_session"]["actions"]
    assert row["ours"] == f"{mine['mean']:.1f} ({mine['sd']:.1f})"
    assert row["ALMANAC (published)"] == "117.7 (87.7)"
    assert float(row["difference"]) == pytest.approx(mine["mean"] - 117.7, abs=0.05)
    with_ref = build(sample, reference=load())
    assert [s.title for s in with_ref.sections][:2] == [
        "The dataset",
        "Beside the published values: ALMANAC (published)",
    ]
    assert "beside_published" in [t.name for t in with_ref.tables()]
    assert with_ref.provenance["published values"].startswith("ALMANAC (published): ALMANAC paper, Table 1")


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "groups: [train]\ntable1:\n  actions: [[1, 2], [3, 4]]\n",
            "field table1.actions: expected 1 [mean, SD] pairs",
        ),
        ("groups: [train]\ntable1:\n  speed: [[1, 2]]\n", "field table1.speed: not one of actions"),
        ("groups: [train]\ntable8:\n  team_goal:\n    t9: [[1, 2]]\n", "field table8.team_goal.t9: not a label"),
        ("groups: [train]\ntable1:\n  actions: [[1, yes]]\n", "field table1.actions[0]: expected [mean, SD]"),
        ("- a list\n", "expected a mapping"),
    ],
)
def test_a_bad_reference_file_names_the_field(tmp_path, text, words):
    from reports.reference import ReferenceError, load

    path = tmp_path / "ref.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReferenceError) as err:
        load(path)
    assert words in str(err.value) and str(path) in str(err.value)


def test_leaderboard_files_are_named_by_task_and_score(report):
    names = {t.name for s in report.sections for t in s.tables}
    assert {
        "next_action_accuracy_action_type",
        "mental_model_team_goal_accuracy",
        "mental_model_rouge_l_rationale",
    } <= names
    assert file_part("ROUGE-L (message)") == "rouge_l_message"


def test_the_leaderboards_are_compares(report):
    """The dataset's own runs scored as Compare scores them: every cell, the best marked as the
    paired test allows."""
    from services import compare

    sample = load_sample()
    cmp = compare.comparison(sample, [r for r in sample.predictions.values() if r.ok])
    section = next(s for s in report.sections if s.title == "Models against people")
    for task in ("next_action", "mental_model"):
        lb = cmp.leaderboard(task, "accuracy")
        hidden = lb.undefined_groups()
        blocks = [(label, cells, best) for label, cells, best in lb.blocks() if label not in hidden]
        by_name = {t.name: t for t in section.tables}
        assert len(blocks) > 0
        for label, cells, best in blocks:
            t = by_name[f"{task}_{file_part(label)}"]  # the file named by its task and score
            assert t.title.endswith(label)
            frame = t.frame.set_index("run")
            for r in range(len(cells)):
                for c in range(cells.shape[1]):
                    want = str(cells.iat[r, c]) + (" *" if best.iat[r, c] else "")
                    assert frame.iat[r, c] == want


def _as(at: AppTest, tmp_path, username: str, role: str) -> AppTest:
    """``at`` signed in as a new account ``username`` of ``role`` (as the sign-in form leaves a session)."""
    from corpus.store import Store

    store = Store.open(tmp_path / "data")
    user = store.user(username) or store.create_user(username, f"{username}-password", role)
    at.session_state["auth_user"], at.session_state["auth_token"] = user, store.issue_token(user)
    store.engine.dispose()
    return at


@pytest.mark.parametrize(
    ("who", "policy", "builds"),
    [
        (None, "anyone", False),  # a visitor who is not signed in never builds, whatever the policy says
        (None, "signed-in", False),
        ("coder", "signed-in", True),
        ("coder", "lead", False),
        ("lead", "lead", True),
    ],
)
def test_the_deployment_says_who_may_build_the_report(tmp_path, monkeypatch, who, policy, builds):
    monkeypatch.setenv("GROUNDWORK_REPORT_POLICY", policy)
    at = _page(tmp_path, monkeypatch, "pages/report.py")
    if who is not None:
        _as(at, tmp_path, f"a-{who}", who).run()
    keys = {b.key for b in at.button}
    assert ("report_build" in keys) is builds
    assert ("report_server" in keys) is not builds  # the others get the server's own report
    if not builds:
        assert any("signed in" in i.value or "signed-in lead" in i.value for i in at.info)


def test_a_visitor_gets_the_servers_report_built_once_for_everyone(tmp_path, monkeypatch):
    """The first visitor who asks waits for the server's one build (through the queue, as the server's
    own task); every visitor after gets the same files from the data directory, built no more."""
    from reports import prebuilt

    first = _page(tmp_path, monkeypatch, "pages/report.py")
    assert [b.proto.label for b in first.get("download_button")] == []
    first.button(key="report_server").click().run()
    assert not first.exception and not first.error, [e.value for e in first.error]
    labels = [b.proto.label for b in first.get("download_button")]
    assert labels == ["Report (HTML)", "Tables (CSV, zip)"]
    kept = sorted((tmp_path / "data" / "reports").iterdir())
    assert [p.suffix for p in kept] == [".html", ".json", ".zip"]
    made = {p.name: p.stat().st_mtime_ns for p in kept}
    second = _page(tmp_path, monkeypatch, "pages/report.py")  # another visitor: the files at once
    assert [b.proto.label for b in second.get("download_button")] == labels
    assert "report_server" not in {b.key for b in second.button}
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "data" / "reports").iterdir()} == made
    page, tables = prebuilt.kept(load_sample().content_hash).read()
    assert b"Provenance" in page and zipfile.ZipFile(io.BytesIO(tables)).namelist()


def test_a_signed_in_build_waits_for_its_turn_in_the_servers_queue(tmp_path, monkeypatch, caplog):
    """Two heavy tasks of other people hold the server's two places: the build waits (its place said)
    until one is done, then runs; a person who holds their share already is told so, and nothing runs."""
    import logging
    import threading

    from corpus.server.workqueue import WorkQueue

    caplog.set_level(logging.INFO, logger="groundwork.jobs")
    queue = WorkQueue(tmp_path / "data" / "queue")
    others = [queue.join(f"user:{900 + i}", "an import of someone else") for i in range(2)]
    assert all(t.running for t in others)
    at = _as(_page(tmp_path, monkeypatch, "pages/report.py"), tmp_path, "cy", "coder").run()
    threading.Timer(1.5, queue.leave, args=(others[0].id,)).start()
    at.button(key="report_build").click().run()
    assert not at.exception and not at.warning, [w.value for w in at.warning]
    assert [b.proto.label for b in at.get("download_button")][:2] == ["Report (HTML)", "Tables (CSV, zip)"]
    assert any(
        "queued Building the report of" in r.getMessage() and "waiting)" in r.getMessage() for r in caplog.records
    )
    queue.leave(others[1].id)
    # Two tasks of this person's own in the queue: a third is refused with the reason.
    cy = at.session_state["auth_user"]
    mine = [queue.join(f"user:{cy.id}", f"an upload of cy's ({i})") for i in range(2)]
    del at.session_state["report_built"]
    at.run()
    at.button(key="report_build").click().run()
    assert any("did not start" in w.value or "Not started" in w.value for w in at.warning)
    assert any("you have 2 heavy tasks running or waiting already" in w.value for w in at.warning)
    for t in mine:
        queue.leave(t.id)


# -- the other domains ----------------------------------------------------------------------------

SAMPLES = ROOT / "samples"


def _linked(tmp_path, monkeypatch, page: str, dataset: Path) -> AppTest:
    from corpus.loading.catalog import key_of

    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = key_of(dataset)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_kitchen_report_is_the_kitchen_screens_numbers(tmp_path, monkeypatch):
    from corpus.kitchen.dataset import load_kitchen
    from reports.reproduction import build_kitchen

    report = build_kitchen(load_kitchen(SAMPLES / "kitchen-synthetic"))
    at = _linked(tmp_path, monkeypatch, "pages/kitchen.py", SAMPLES / "kitchen-synthetic")
    shown = next(d.value for d in at.dataframe if "pairing" in d.value.columns and "FollowRate" in d.value.columns)
    pd.testing.assert_frame_equal(
        shown.reset_index(drop=True), _table(report, "kitchen_metrics_by_pairing").view.reset_index(drop=True)
    )
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert _traces(spec) == _traces(json.loads(_figure(report, "tgco_outcome_composition").figure.to_json()))
    again = build_kitchen(load_kitchen(SAMPLES / "kitchen-synthetic"), when=datetime(2031, 5, 4, 3, 2, tzinfo=UTC))
    assert html.tables_zip(report) == html.tables_zip(again)


@pytest.mark.parametrize("sample", ["kitchen-synthetic", "dyntom-synthetic"])
def test_the_report_screen_builds_every_domains_report(tmp_path, monkeypatch, sample):
    at = _linked(tmp_path, monkeypatch, "pages/report.py", SAMPLES / sample)
    assert not at.error
    assert any("synthetic" in i.value for i in at.info)
    _as(at, tmp_path, "dee", "coder").run()
    at.button(key="report_build").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Report (HTML)" in labels and "Tables (CSV, zip)" in labels


def test_a_benchmark_report_is_compares_leaderboard():
    from corpus.benchmark.dataset import load_benchmark
    from reports.reproduction import build_benchmark
    from services import compare

    bench = load_benchmark(SAMPLES / "dyntom-synthetic")
    report = build_benchmark(bench)
    cmp = compare.benchmark_comparison(bench)
    for by in cmp.slice_fields:
        cells = cmp.leaderboard(by)
        table = _table(report, f"benchmark_accuracy_{by}").frame
        assert table["estimate"].tolist() == cells["estimate"].tolist()
        assert table["best"].tolist() == cells["best"].tolist()


def test_a_run_naming_a_published_model_is_set_beside_its_scores(report, tmp_path):
    import shutil

    from reports.reference import load
    from services import compare

    assert any(
        line.startswith("No run names a model of")
        for s in build(load_sample(), reference=load()).sections
        for line in s.lines
    )
    data = tmp_path / "sample"
    shutil.copytree(ROOT / "sample_data", data)
    info = data / "predictions" / "sim-llm-mental-model" / "model.json"
    info.write_text(json.dumps({**json.loads(info.read_text()), "model": "gpt 5.5"}), encoding="utf-8")
    from corpus.loading.dataset import load as load_dataset

    corpus = load_dataset(data)
    rep = build(corpus, reference=load())
    beside = _table(rep, "models_beside_published").frame
    assert set(beside["run"]) == {"sim-llm-mental-model"}
    assert set(beside["published model"]) == {"GPT-5.5 +Mental Model", "GPT-5.5"}
    row = beside[(beside["score"] == "Team goal accuracy") & (beside["column"] == "C visible · F")].iloc[0]
    assert row["ALMANAC (published)"] == "0.72"
    cells = (
        compare.comparison(corpus, [r for r in corpus.predictions.values() if r.ok])
        .leaderboard("mental_model", "accuracy")
        .cells
    )
    mine = cells[
        (cells["run"] == "sim-llm-mental-model")
        & (cells["dimension"] == "team_goal")
        & (cells["condition"] == "C visible")
        & (cells["role"] == "F")
    ].iloc[0]
    assert row["ours"] == f"{mine['estimate']:.2f} (n = {mine['n']})"
    assert float(row["difference"]) == pytest.approx(round(mine["estimate"], 2) - 0.72, abs=0.011)
    accuracy = beside[beside["score"] == "Accuracy (action type)"]
    assert set(accuracy["published model"]) == {"GPT-5.5 +Mental Model"}  # its setting has mental models
