"""The analysis pages under Streamlit's AppTest: filters and label sources apply to every chart and
are stated under it, the model is not refitted on a rerun that changed nothing, dataset text stays
text, and every figure exports as PNG and SVG."""

from __future__ import annotations

import io
import json
import logging
import shutil
import zipfile
from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from corpus.loading.dataset import SAMPLE_DATA, load_dir

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
ANALYSIS_PAGES = ["pages/alignment.py", "pages/acts.py", "pages/misalignment.py", "pages/outcomes.py", "pages/split.py"]


def open_page(tmp_path, monkeypatch, page: str, dataset: Path | None = None) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    if dataset is not None:  # a dataset the server offers: under a configured dataset root
        monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(dataset.parent))
    at = AppTest.from_file(APP, default_timeout=120)
    if dataset is not None:  # opened as a link that names it opens it
        from corpus.loading.catalog import key_of

        at.query_params["dataset"] = key_of(dataset)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def specs(at: AppTest) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


@pytest.mark.parametrize("page", ANALYSIS_PAGES)
def test_every_analysis_chart_states_its_filters_and_has_downloads(page, tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, page)
    assert not at.error, [e.value for e in at.error]
    charts = specs(at)
    assert charts and all(spec["data"] for spec in charts)
    assert captions(at).count("Filters: ") >= len(charts)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels.count("PNG") == labels.count("SVG") == labels.count("CSV") == len(charts)
    for spec in charts:  # axis titles on every chart
        layout = spec["layout"]
        assert any(v.get("title", {}).get("text") for k, v in layout.items() if k.startswith("yaxis"))


def test_the_model_table_reports_slopes_per_condition_and_a_sentence(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/alignment.py")
    table = next(d.value for d in at.dataframe if "quantity" in d.value.columns)
    assert table["quantity"].tolist() == [
        "progress slope, not visible",
        "progress slope, visible",
        "visible - not visible at progress 6% (10th percentile)",
        "visible - not visible at progress 38% (50th percentile)",
        "visible - not visible at progress 74% (90th percentile)",
        "interaction (slope visible - slope not visible)",
        "joint Wald test of progress (both slopes 0)",
    ]
    assert table["test"].iloc[-1].startswith("F(2, 24) = ")
    sentence = next(m.value for m in at.markdown if m.value.startswith("In visible sessions the odds of 'team goal"))
    # The condition difference is quoted inside the observed progress only, and says where.
    assert "inside the observed progress (0% to 93%) at its 10th, 50th and 90th percentiles (6%, 38%, 74%)" in sentence
    assert "at the end" not in sentence and "100 %" not in sentence.split("Visible vs")[1]
    assert "small-sample correction for 25 sessions (< 40): t-based intervals and tests with 24 df" in captions(at)
    assert "Progress: route coverage" in captions(at)


def test_a_rerun_that_changed_nothing_does_not_refit(tmp_path, monkeypatch, caplog):
    st.cache_data.clear()  # the first run fits: nothing from an earlier test in the cache
    st.cache_resource.clear()
    caplog.set_level(logging.INFO, logger="groundwork.services")
    at = open_page(tmp_path, monkeypatch, "pages/alignment.py")

    def fits() -> int:
        return sum("fitting the progress model" in r.getMessage() for r in caplog.records)

    assert fits() == 1
    at.run()
    at.run()
    assert fits() == 1
    at.segmented_control(key="align_model_method").set_value("gee").run()
    assert fits() == 2 and "GEE (statsmodels GEE" in captions(at)
    at.segmented_control(key="align_model_method").set_value("glm").run()
    assert fits() == 2  # back to a model fitted before: from the cache
    at.multiselect(key="an_roles").set_value(["guide"]).run()
    assert fits() == 3


def test_filters_apply_to_every_chart_and_carry_over_to_the_next_page(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/alignment.py")
    at.multiselect(key="an_conditions").set_value(["visible"]).run()
    for spec in specs(at):
        names = {t.get("name") for t in spec["data"] if t.get("name") and t.get("legendgroup") != "interval"}
        assert names == {"visible (Guide saw the canvas)"}
    assert any("only one condition is present" in i.value for i in at.info)
    assert captions(at).count("condition visible") >= 3
    at.switch_page("pages/outcomes.py").run()
    assert not at.exception
    spec = specs(at)[0]
    assert {t["name"] for t in spec["data"]} == {"visible (Guide saw the canvas)"}
    assert "condition visible" in captions(at)


def test_a_model_run_as_the_mental_model_source(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/alignment.py")
    at.selectbox(key="an_mm").set_value("run:sim-llm-persona").run()
    assert not at.exception
    assert "Mental models predicted by the model run 'Simulated LLM (persona prompt)'" in captions(at)
    curves = specs(at)[0]
    panels = {t["customdata"][0][0] for t in curves["data"] if t.get("customdata")}
    assert panels == {"team_goal", "partner_intent", "self_reasoning"}  # a run predicts no alignment


def test_dataset_text_in_captions_stays_text(tmp_path, monkeypatch):
    ds = tmp_path / "ds"
    shutil.copytree(SAMPLE_DATA, ds)
    bad = "S01_[x](http:__e)*$"
    (ds / "sessions" / "S01").rename(ds / "sessions" / bad)
    meta = json.loads((ds / "sessions" / bad / "session.json").read_text())
    meta["id"] = bad
    (ds / "sessions" / bad / "session.json").write_text(json.dumps(meta))
    labels = ds / "labels" / "grounding_acts.csv"
    labels.write_text(
        "\n".join(bad + line[3:] if line.startswith("S01,") else line for line in labels.read_text().splitlines())
        + "\n"
    )
    for path in ds.glob("predictions/*/*.jsonl"):
        path.write_text(path.read_text().replace('"session_id":"S01"', f'"session_id":{json.dumps(bad)}'))
    at = open_page(tmp_path, monkeypatch, "pages/alignment.py", dataset=ds)
    at.multiselect(key="an_sessions").set_value([bad, "S02"]).run()
    assert not at.exception
    text = captions(at)
    assert "S01\\_\\[x\\](http:\\_\\_e)\\*\\$" in text and "[x](" not in text


def test_the_grounding_act_test_is_the_analysis_result(tmp_path, monkeypatch):
    from analysis.alignment import with_acts
    from analysis.contingency import independence_test
    from analysis.label_sources import act_labels

    at = open_page(tmp_path, monkeypatch, "pages/acts.py")
    corpus = load_dir(SAMPLE_DATA)
    coded = with_acts(act_labels(corpus, "majority").frame, corpus.actions_df)
    ref = independence_test(coded[["session_id", "condition", "code"]])
    metrics = {m.label: m.value for m in at.metric}
    assert (
        metrics["Chi-square"] == f"{ref.chi2.estimate:.1f}" and metrics["Cramér's V"] == f"{ref.cramers_v.estimate:.2f}"
    )
    notes = [a["text"] for a in specs(at)[0]["layout"]["annotations"]]
    assert len(notes) == len(ref.residuals.columns)


def test_outcomes_switch_between_welch_and_mann_whitney(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/outcomes.py")
    table = next(d.value for d in at.dataframe if "outcome" in d.value.columns)
    assert len(table) == 5 and "Hedges' g (95% CI)" in table.columns
    assert table["test"].str.startswith("t(").all()
    at.segmented_control(key="out_test").set_value("mannwhitney").run()
    table = next(d.value for d in at.dataframe if "outcome" in d.value.columns)
    assert "rank-biserial correlation (95% CI)" in table.columns and table["test"].str.startswith("U = ").all()


def test_the_split_page_and_the_dataset_it_writes(tmp_path, monkeypatch):
    from analysis.filters import Filters
    from services.alignment import Scope, dataset_with_split_zip, test_split

    at = open_page(tmp_path, monkeypatch, "pages/split.py")
    assert "exhaustive: all 220 subsets of 3 of 12 sessions scored" in captions(at)
    assert [n.value for n in at.number_input] == [3, 3, 0]
    corpus = load_dir(SAMPLE_DATA)
    scope = Scope(corpus, Filters())
    result = test_split(scope, {"not_visible": 3, "visible": 3}, 0)
    data = dataset_with_split_zip(scope, result.assignment())
    out = tmp_path / "unzipped"
    zipfile.ZipFile(io.BytesIO(data)).extractall(out)
    copy = load_dir(next(out.iterdir()))
    assert sorted(copy.sessions_df.loc[copy.sessions_df["split"] == "test", "session_id"]) == sorted(
        result.test_sessions
    )


def test_figures_export_as_png_and_svg_for_a_paper_column(tmp_path):
    if not Path("/usr/bin/chromium").exists() and shutil.which("chromium") is None:
        pytest.skip("chromium is needed by kaleido to export figures")
    from analysis.filters import Filters
    from components.alignment_charts import progress_figure
    from components.chart import figure_bytes
    from services.alignment import Scope, progress_curves

    curves = progress_curves(Scope(load_dir(SAMPLE_DATA), Filters()), "coverage", 5)
    fig = progress_figure(curves, ["team_goal", "aligned"], "coverage")
    png = figure_bytes(fig, "png", columns=1)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (1280, 960)  # 640 x 480 at twice the resolution
    svg = figure_bytes(fig, "svg", columns=2).decode()
    assert svg.lstrip().startswith("<svg") and 'width="1400"' in svg
    assert "route drawn (% of route cells)" in svg and "Team goal clear (t3)" in svg
    (tmp_path / "progress.png").write_bytes(png)


def test_a_model_on_too_few_sessions_is_withheld_until_asked_for(tmp_path, monkeypatch):
    from corpus.generate import generate

    small = generate(seed=3, out=tmp_path / "datasets" / "six", n_sessions=6)
    at = open_page(tmp_path, monkeypatch, "pages/alignment.py", dataset=small)
    warning = next(w.value for w in at.warning if w.value.startswith("Model: not reliably estimable"))
    assert "3 not visible, 3 visible sessions" in warning and "at least 5 sessions in each condition" in warning
    assert not any("quantity" in d.value.columns for d in at.dataframe)
    at.toggle(key="align_model_few").set_value(True).run()
    assert any("quantity" in d.value.columns for d in at.dataframe)
    assert any(w.value.endswith("; shown on request.") for w in at.warning)


def test_the_acts_page_shows_which_cramers_v_and_the_bias_corrected_one(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/acts.py")
    assert [m.value for m in at.metric][1] == "0.62"
    assert "bias-corrected 0.59, 95% CI 0.51 to 0.70" in captions(at)
    assert "Cramér's V of condition and grounding act (no bias correction)" in captions(at)


def test_why_not_aligned_gives_the_test_behind_its_bars(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/misalignment.py")
    text = captions(at)
    assert "per reason, Fisher's exact test, p Holm-adjusted over the 5 reasons: n1 task goal: 47/254 vs 54/408" in text
    assert "Report vs the act before it: chi2(6) = 16.25, p = 0.012, n = 489 reports" in text


def test_the_checkpoint_table_lists_its_first_rows_and_the_csv_all(tmp_path, monkeypatch):
    """A million actions hold some 50,000 checkpoints: the table lists the first rows (here 40) in
    session order and says so; every answer and label is in its CSV."""
    from components import reason_charts

    monkeypatch.setattr(reason_charts, "CHECKPOINT_ROWS", 40)
    at = open_page(tmp_path, monkeypatch, "pages/misalignment.py")
    tables = [d.value for d in at.dataframe if "answer_team_goal" in d.value.columns]
    assert len(tables) == 1 and len(tables[0]) == 40
    shown = tables[0]
    assert list(shown["session_id"]) == sorted(shown["session_id"])  # (the first sessions, in order)
    assert "The first 40 of 138 checkpoints in session order are listed; the CSV holds all." in captions(at)
