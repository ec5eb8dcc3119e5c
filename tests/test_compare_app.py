"""The Compare page under AppTest: every view renders on the sample corpus's two runs, and the
leaderboard shows the numbers `python -m analysis compare sample_data --json` prints."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analysis.cli import main as analysis_main
from corpus.escape import md_line
from corpus.loading.dataset import SAMPLE_DATA

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parent.parent
RUNS = ["sim-llm-mental-model", "sim-llm-persona"]


@pytest.fixture
def at(tmp_path, monkeypatch):
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300).run()
    app.switch_page("pages/compare.py").run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def _open(at, tab: str):
    at.session_state["compare_tab"] = tab
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _cli_json(capsys, *args) -> dict:
    assert analysis_main(["compare", str(ROOT / "sample_data"), "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _cell(estimate, n, note: str = "") -> str:
    """A leaderboard cell: score (n), marked '!' when its note warns (e.g. an interval that is an artefact)."""
    if isinstance(estimate, dict):
        return "undefined"
    return f"{estimate:.2f} ({n})" + (" !" if note else "")


def test_leaderboard_shows_the_numbers_the_command_line_prints(at, capsys):
    out = _cli_json(capsys)
    assert [r["run"] for r in out["runs"]] == RUNS
    for _task, key in (
        ("Next-action prediction (Tables 2, 9)", "next_action"),
        ("Mental-model prediction (Tables 3, 10)", "mental_model"),
    ):
        at.radio(key="compare_lb_task").set_value(key).run()
        labels = [md_line(f"{r['name']} · {r['setting']}") for r in out["runs"]]  # as Markdown shows them
        blocks = [m.value for m in at.markdown if m.value.startswith("**")]
        cli = out["leaderboard"][key]
        checked = 0
        for block, table in zip(blocks, (t.value for t in at.table)):
            assert table.index.tolist() == labels
            for col in table.columns:  # "(=)": a column where every run scores the same, to 3 decimals
                cond, role = col.removesuffix(" (=)").split(" · ")
                scores = {
                    round(r["estimate"], 3)
                    for r in cli
                    if r["condition"] == cond
                    and r["role"] == role
                    and _column_of(r, block.strip("*"))
                    and isinstance(r["estimate"], (int, float))
                }
                assert col.endswith(" (=)") == (len(scores) == 1), (block, col, scores)
            for run, label in zip(RUNS, labels):
                for col in table.columns:
                    cond, role = col.removesuffix(" (=)").split(" · ")
                    match = [
                        r
                        for r in cli
                        if r["run"] == run
                        and r["condition"] == cond
                        and r["role"] == role
                        and _column_of(r, block.strip("*"))
                    ]
                    assert len(match) == 1, (run, block, col)
                    assert table.at[label, col] == _cell(match[0]["estimate"], match[0]["n"], match[0]["note"]), (
                        run,
                        block,
                        col,
                    )
                    checked += 1
        # Every cell the command line prints is on the page, but those of a group no run has a value
        # in (SBERT without the similarity extra), which the page names in one line.
        shown = [r for r in cli if isinstance(r["estimate"], (int, float)) or r["metric"] != "similarity"]
        assert checked == len(shown) and checked > 0
        if key == "next_action":  # the Guide only writes messages: both runs score 1 on its action type
            assert any(c.endswith("G (=)") for t in at.table for c in t.value.columns)
            assert any("every run scores the same" in c.value for c in at.caption)
    assert "synthetic" in " ".join(i.value for i in at.info).lower()


def _column_of(r: dict, label: str) -> bool:
    names = {
        ("accuracy", "action_type"): "Accuracy (action type)",
        ("macro_recall", "action_type"): "Recall (action type)",
        ("similarity", "message"): "SBERT (message)",
        ("rouge_l", "message"): "ROUGE-L (message)",
        ("drawing", "drawing"): "Drawing score",
        ("accuracy", "team_goal"): "Team goal accuracy",
        ("accuracy", "partner_intent"): "Partner intent accuracy",
        ("accuracy", "self_reasoning"): "Self-reasoning accuracy",
        ("similarity", "rationale"): "SBERT (rationale)",
        ("rouge_l", "rationale"): "ROUGE-L (rationale)",
    }
    return names.get((r["metric"], r["dimension"])) == label


def test_every_view_renders_the_two_runs(at):
    assert [m.value for m in at.metric][:1] == ["2"]
    overlay = _open(at, "Overlay")
    spec = json.loads(overlay.get("plotly_chart")[0].proto.spec)
    names = {t.get("name") for t in spec["data"] if not t.get("legendgroup")}  # the colour key aside
    assert names == {
        "person",
        "Simulated LLM (persona prompt) · persona",
        "Simulated LLM (persona + mental model) · persona+mental_model",
    }
    assert sum(len(t["x"]) for t in spec["data"]) > 0
    conf = _open(at, "Confusions")
    charts = conf.get("plotly_chart")
    assert len(charts) == 3  # one matrix per run, and the recall bars
    bars = json.loads(charts[-1].proto.spec)["data"]
    assert len(bars) == 2
    abl = _open(at, "Ablation")
    rows = abl.dataframe[-1].value  # the first is the coverage table above the tabs
    assert "Team goal: accuracy" in rows["score"].tolist()
    assert any(t.startswith("McNemar exact") for t in rows["test"])
    inst = _open(at, "Instances")
    df = inst.dataframe[-1].value
    assert df["replay"].iloc[0].startswith("replay?session=")
    _open(at, "Slices")
    judges = _open(at, "Judges")
    assert any("No run carries judge scores" in i.value for i in judges.info)


def test_a_chart_filter_carries_over_to_the_instances(at):
    at.session_state["compare_filter"] = {
        "dimension": "team_goal",
        "run": "sim-llm-persona",
        "truth": "t3",
        "pred": "t2",
    }
    inst = _open(at, "Instances")
    df = inst.dataframe[-1].value
    assert len(df) > 0
    assert set(df["person"]) == {"t3 Clear on what to do"}
    assert set(df["sim-llm-persona"]) == {"t2 Working toward shared understanding"}


def test_cli_csv_and_latex(capsys):
    assert analysis_main(["compare", str(ROOT / "sample_data"), "--latex", "--no-similarity"]) == 0
    tex = capsys.readouterr().out
    # One booktabs table per task and score group, each a page wide at most (runs x 4 condition-role
    # columns); the groups without a value for any run are named, not printed.
    from analysis.compare.comparison import compare
    from corpus.loading.dataset import load_sample

    sample = load_sample()
    cmp = compare(sample, [r for r in sample.predictions.values() if r.ok], similarity=False)
    shown = sum(
        len(lb.blocks()) - len(lb.undefined_groups())
        for lb in (cmp.leaderboard(t) for t in ("next_action", "mental_model"))
    )
    assert tex.count(r"\begin{table}") == tex.count(r"\toprule") == tex.count(r"\bottomrule") == shown >= 8
    assert all(spec in ("l" * 5, "l" * 3) for spec in re.findall(r"\\begin\{tabular\}\{(l+)\}", tex))
    assert "Not shown, undefined for every run: SBERT" in tex
    assert r"persona+mental\_model" in tex and r"\bfseries " in tex
    assert analysis_main(["compare", str(ROOT / "sample_data"), "--csv", "--no-similarity"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("task,run,model,setting,column,condition,role,metric")
    assert {ln.split(",")[0] for ln in lines[1:]} == {"next_action", "mental_model"}


def test_cli_refuses_a_broken_run_and_compares_the_rest(tmp_path, capsys):
    run = tmp_path / "broken"
    run.mkdir()
    (run / "mental_model.jsonl").write_text(
        '{"session_id": "S05", "action_index": 1, "team_goal": "t9", "partner_intent": "p1", "self_reasoning": "r1"}\n'
    )
    code = analysis_main(
        ["compare", str(ROOT / "sample_data"), str(run), "sim-llm-persona", "--json", "--no-similarity"]
    )
    captured = capsys.readouterr()
    assert code == 1
    assert "broken/mental_model.jsonl" in captured.err and "line 1" in captured.err and "team_goal" in captured.err
    out = json.loads(captured.out)
    assert [r["run"] for r in out["runs"]] == ["sim-llm-persona"]
    assert out["refused"][0]["problems"][0]["field"] == "team_goal"
    acc = [
        r
        for r in out["scores"]
        if r["metric"] == "accuracy"
        and r["dimension"] == "team_goal"
        and r["condition"] == "all"
        and r["role"] == "all"
    ][0]
    from corpus.loading.dataset import load_sample

    n_instances = sum(len(s.actions) - 1 for s in load_sample().sessions.values() if s.split == "test")
    assert math.isclose(acc["estimate"], acc["estimate"]) and acc["n"] == n_instances


def test_the_command_line_offers_every_leaderboard_measure():
    from analysis.compare import cli
    from analysis.compare.leaderboard import MEASURES

    assert tuple(MEASURES) == cli.MEASURES


def test_run_names_and_slice_values_from_files_show_as_text_in_charts():
    """Names and fields come from users' files: in a Plotly string they are escaped, so a tag shows
    as typed and is never read as markup."""
    import pandas as pd

    from components.compare.common import hover, plain
    from components.compare.overlay import overlay_figure

    evil = '<a href="javascript:alert(1)">x</a><b>bold</b>'
    assert plain(evil) == '&lt;a href="javascript:alert(1)"&gt;x&lt;/a&gt;&lt;b&gt;bold&lt;/b&gt;'
    assert "<" not in hover(evil) and "&lt;b&gt;" in hover(evil)
    data = pd.DataFrame(
        {
            "session_id": ["S"],
            "action_index": [3],
            "role": ["guide"],
            "dimension": ["team_goal"],
            "run": [evil],
            "truth": ["t3"],
            "pred": ["t2"],
            "correct": [False],
            "p_rationale": [evil],
            "p_content": [None],
            "h_action_type": ["message"],
            "h_text": [evil],
            "h_rationale": [evil],
        }
    )
    fig = overlay_figure(data, {evil: evil}, ["team_goal"])
    for trace in fig.data:
        assert "<a " not in (trace.name or "") and "<b>bold" not in (trace.name or "")
        assert all("<a " not in t and "<b>bold" not in t for t in (trace.hovertext or ()))
        assert all("<a " not in str(y) for y in trace.y)


def test_compare_says_which_split_it_scores_and_where_that_split_stands(at):
    note = next(c.value for c in at.caption if c.value.startswith("Scored on the dataset's test split."))
    assert "is not the distribution-matched split" in note
    assert "not visible: 3 of 12 sessions" in note and "ranks 160 of 220 subsets" in note
    assert "ranks 145 of 286 subsets" in note and "The Test split page builds the matched one." in note


def test_a_best_is_marked_only_where_the_paired_test_separates_it():
    """Three runs in a column, 0.70, 0.66 and 0.50: if the paired test does not separate 0.66 from
    0.70 (p = 0.40) both are marked and 0.50 (p = 0.01) is not; if it separates neither, none is."""
    import pandas as pd

    from analysis.compare.leaderboard import separated_best

    cells = pd.DataFrame(
        {
            "run": ["a", "b", "c"],
            "column": "Accuracy",
            "condition": "C visible",
            "role": "G",
            "metric": "accuracy",
            "dimension": "team_goal",
            "estimate": [0.70, 0.66, 0.50],
        }
    )
    asked = []

    def p_of(p_b, p_c):
        def paired_p(a, b, condition, role, metric, dimension):
            asked.append((a, b, condition, role, metric, dimension))
            return {"b": p_b, "c": p_c}[b]

        return paired_p

    assert separated_best(cells, p_of(0.40, 0.01)).tolist() == [True, True, False]
    assert asked[0] == ("a", "b", "visible", "guide", "accuracy", "team_goal")
    assert separated_best(cells, p_of(0.40, 0.30)).tolist() == [False, False, False]
    assert separated_best(cells, p_of(0.001, 0.001)).tolist() == [True, False, False]
    # A column's tests are adjusted together (Holm): 0.04 and 0.03 each separate alone, but adjusted
    # (0.06 and 0.06) neither does, so every run would share the mark and the column has no best.
    assert separated_best(cells, p_of(0.04, 0.03)).tolist() == [False, False, False]
    assert separated_best(cells, p_of(0.20, 0.01)).tolist() == [True, True, False]  # 0.01 -> 0.02: separated


def test_holm_is_statsmodels_holm():
    from statsmodels.stats.multitest import multipletests

    from analysis.best import holm

    ps = [0.04, 0.03, 0.2, 0.001, 0.0458]
    assert holm(ps) == pytest.approx(list(multipletests(ps, method="holm")[1]), abs=1e-15)
    assert holm([0.04, 0.03]) == pytest.approx([0.06, 0.06])


def test_on_the_sample_every_unmarked_run_is_separated_from_the_best():
    from analysis.compare.comparison import compare
    from corpus.loading.dataset import load_sample

    corpus = load_sample()
    cmp = compare(corpus, [r for r in corpus.predictions.values() if r.ok], similarity=False)
    lb = cmp.leaderboard("mental_model")
    conditions = {"C visible": "visible", "C not visible": "not_visible"}
    roles = {"G": "guide", "F": "follower"}
    for _, g in lb.cells.groupby(["column", "condition", "role"]):
        if not g["best"].any():
            continue
        top = g.loc[g["best"]].sort_values("estimate").iloc[-1]
        for _, r in g[~g["best"]].iterrows():
            p = cmp.paired_p(
                top["run"], r["run"], conditions[r["condition"]], roles[r["role"]], r["metric"], r["dimension"]
            )
            assert p < 0.05, (r["column"], r["condition"], r["role"], p)


def test_a_score_group_undefined_for_every_run_is_one_line_not_a_table(at):
    """Without the similarity extra, SBERT similarity has no value for any run: the leaderboard says
    so in one line instead of drawing a table of "undefined"."""
    blocks = [m.value for m in at.markdown if m.value.startswith("**")]
    assert not any("SBERT" in b for b in blocks)
    line = next(c.value for c in at.caption if c.value.startswith("Not shown, undefined for every run: "))
    assert "SBERT (rationale)" in line or "SBERT (message)" in line


def _prompts_export_alone() -> None:
    import streamlit as st

    from components.compare.prompts import export
    from corpus.loading.dataset import load_sample

    corpus = load_sample()  # an object of its own: nothing else has computed its tables
    export(corpus)
    st.text(f"splits {corpus.splits}; sessions scored: {'sessions_df' in corpus.__dict__}")


def test_the_prompts_export_offers_the_splits_without_scoring_every_session():
    """Drawn on every first load of Compare, the prompts' split picker reads the splits from the
    sessions: the table that scores every session's drawing (seconds on thousands of sessions) is
    not made for it."""
    from corpus.loading.dataset import load_sample

    at = AppTest.from_function(_prompts_export_alone, default_timeout=60).run()
    assert not at.exception
    from corpus import schema

    corpus = load_sample()
    from_table = [s for s in schema.SPLITS if (corpus.sessions_df["split"] == s).any()]
    assert corpus.splits == from_table == ["train", "test"]
    assert at.text[0].value == f"splits {from_table}; sessions scored: False"
    assert at.selectbox(key="compare_prompts_split").options == from_table
    assert at.selectbox(key="compare_prompts_split").value == "test"


def test_the_missing_instances_listed_are_the_first_few_and_the_csv_holds_all(tmp_path, monkeypatch):
    """A run that left out instances: the page lists the first of them (at most LISTED rows, not
    every one of a large corpus's) and offers a CSV of all of them, written when it is asked for."""
    import shutil

    from components.compare import runs as runs_view
    from corpus.loading.catalog import key_of

    dataset = tmp_path / "roots" / "cut"
    shutil.copytree(ROOT / "sample_data", dataset)
    path = dataset / "predictions" / RUNS[0] / "next_action.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-5]), encoding="utf-8")
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(dataset.parent))
    monkeypatch.setattr(runs_view, "LISTED", 2)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
    at.query_params["dataset"] = key_of(dataset)
    at.run()
    at.switch_page("pages/compare.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(m.value == "**Missing instances** (5; the first 2 listed, the CSV holds all)" for m in at.markdown)
    listed = [d.value for d in at.dataframe if "action_index" in d.value.columns and "task" in d.value.columns]
    assert [len(d) for d in listed] == [2]
    assert "Download missing instances (CSV)" in [b.proto.label for b in at.get("download_button")]


def test_the_command_line_names_the_split_it_scores_and_its_standing(capsys):
    """The CLI's text, JSON and LaTeX say what the Compare page says: the test split, and its rank
    among every subset of its size on Appendix E's objective (160 of 220, 145 of 286 on the sample)."""
    sample = str(SAMPLE_DATA)
    assert analysis_main(["compare", sample, "--no-similarity"]) == 0
    text = capsys.readouterr().out.splitlines()[1]
    assert text.startswith("Scored on the dataset's test split.") and "is not the distribution-matched split" in text
    assert "not visible: 3 of 12 sessions" in text and "ranks 160 of 220 subsets" in text
    assert "ranks 145 of 286 subsets" in text
    assert analysis_main(["compare", sample, "--no-similarity", "--json"]) == 0
    split = json.loads(capsys.readouterr().out)["split"]
    assert split["scored_on"] == "test" and split["matched"] is False
    assert [
        (s["condition"], s["n_test"], s["n_sessions"], s["rank"], s["n_candidates"]) for s in split["standing"]
    ] == [
        ("not_visible", 3, 12, 160, 220),
        ("visible", 3, 13, 145, 286),
    ]
    assert analysis_main(["compare", sample, "--no-similarity", "--latex"]) == 0
    captions = [line for line in capsys.readouterr().out.splitlines() if line.startswith("\\caption{")]
    assert captions and all("Scored on the dataset's test split" in c and "ranks 160 of 220" in c for c in captions)
