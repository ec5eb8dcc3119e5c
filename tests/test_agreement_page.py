"""The Agreement page under AppTest, on the synthetic sample corpus: the numbers it shows are
the report's, Krippendorff's level is offered (ordinal with an order; interval and ratio say why
grounding acts do not fit), and the model coder is scored against the humans."""

from __future__ import annotations

from pathlib import Path

import pytest
from statsmodels.stats.inter_rater import fleiss_kappa
from streamlit.testing.v1 import AppTest

from analysis import agreement as ag
from corpus.loading.dataset import load_sample
from corpus.schema import GROUNDING_ACTS

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def page(tmp_path, monkeypatch) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.switch_page("pages/agreement.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def humans() -> ag.LabelTable:
    labels = load_sample().coded("grounding_acts")
    return ag.LabelTable(labels[labels["coder_kind"] == "human"], item="item_id", label="code")


def metric(at: AppTest, label: str) -> str:
    return next(m for m in at.metric if m.label == label).value


def test_the_page_shows_the_reports_numbers(page):
    rep = ag.report(humans(), n_boot=1000, seed=0, scale=GROUNDING_ACTS)  # AC1's Q: the codebook's 8 acts
    assert rep.ac1.method.endswith("Q = 8 categories (the codebook's)")
    assert any("synthetic" in i.value for i in page.info)
    assert metric(page, "Fleiss' kappa") == f"{rep.fleiss.estimate:.2f}"
    assert metric(page, "Krippendorff's alpha") == f"{rep.alpha.estimate:.2f}"
    assert metric(page, "Gwet's AC1") == f"{rep.ac1.estimate:.2f}"
    lo, hi = rep.fleiss.interval
    assert any(c.value == f"95% CI {lo:.2f} to {hi:.2f}" for c in page.caption)
    labels = load_sample().coded("grounding_acts")
    gold = ag.coder_vs_gold(
        ag.LabelTable(labels, item="item_id", label="code"),
        "llm_coder",
        "majority",
        "validation",
        exclude_coders=["llm_coder"],
    )  # the model coder on the validation partition
    assert metric(page, "Items compared") == str(gold.cohen.n)
    assert metric(page, "Cohen's kappa vs gold") == f"{gold.cohen.estimate:.2f}" == "0.76"


def test_krippendorff_levels_are_offered(page):
    assert page.selectbox(key="agr_level").options == ["Nominal", "Ordinal", "Interval", "Ratio"]
    page.selectbox(key="agr_level").set_value("ordinal").run()
    order = page.text_input(key="agr_level_order")
    # The codebook's list is not an order: none is filled in, and alpha stays nominal until one is given.
    assert order.value == "" and order.placeholder == ", ".join(GROUNDING_ACTS)
    assert any("until then alpha is nominal" in i.value for i in page.info)
    nominal = ag.krippendorff_alpha(humans(), level="nominal", n_boot=0)
    assert metric(page, "Krippendorff's alpha") == f"{nominal.estimate:.2f}"
    order.input(", ".join(GROUNDING_ACTS)).run()
    expected = ag.krippendorff_alpha(
        ag.LabelTable(humans().frame, item="item_id", label="code", categories=list(GROUNDING_ACTS)),
        level="ordinal",
        n_boot=0,
    )
    assert metric(page, "Krippendorff's alpha") == f"{expected.estimate:.2f}"
    order.input("initiate, continue").run()  # an order that leaves codes out
    assert any("is not one of the categories" in e.value for e in page.error)
    page.selectbox(key="agr_level").set_value("interval").run()
    assert any("interval level needs numeric labels" in e.value for e in page.error)
    assert not page.exception


def test_categories_are_shown_by_their_names_not_their_ids(page):
    """The coincidence and model heatmaps' axes and the most-disagreed table name each code as the
    codebook does ("Request Acknowledgement"), while a click still carries the code itself."""
    import json

    from corpus.schema import CODING_SCHEMES

    names = CODING_SCHEMES["grounding_acts"]
    specs = [json.loads(c.proto.spec) for c in page.get("plotly_chart")]
    heat = [s for s in specs if any(t.get("type") == "heatmap" for t in s["data"])]
    assert heat, "no heatmap on the page"
    for spec in heat:
        trace = next(t for t in spec["data"] if t.get("type") == "heatmap")
        shown = set(trace["x"]) | set(trace["y"])
        assert "Request Acknowledgement" in shown and not shown & {"request_ack", "request_repair"}, shown
    coincidence = next(s for s in heat if any(t.get("type") == "scatter" for t in s["data"]))
    cells = next(t for t in coincidence["data"] if t.get("type") == "scatter")["customdata"]
    assert ["request_ack", "request_ack"] in cells  # the click carries the code
    assert any("the commonest code, 'Acknowledge'" in s.value for s in page.success)
    table = next(d.value for d in page.dataframe if "modal_label" in d.value.columns)
    assert set(table["modal_label"]) <= set(names.values())
    assert not any("=request_" in v for v in table["labels"])


def test_the_papers_numbers_are_set_beside_ours_on_the_same_items(page):
    """The paper's 0.81 (people) and 0.76 (GPT) are on its validation actions: the page sets beside them
    the people's and the model's kappas on the validation items alone, named, not the headline over
    every item (few-shot included)."""
    labels = load_sample().coded("grounding_acts")
    people = labels[(labels["coder_kind"] == "human") & (labels["partition"] == "validation")]
    table = ag.LabelTable(people, item="item_id", label="code")
    wide = people.pivot(index="item_id", columns="coder", values="code")
    counts = wide.apply(lambda row: row.value_counts(), axis=1).fillna(0).to_numpy()
    kappa = fleiss_kappa(counts)  # statsmodels, every validation item coded by the three people
    assert ag.fleiss(table, n_boot=0).estimate == pytest.approx(kappa, abs=1e-12)
    [note] = [c.value for c in page.caption if "ALMANAC paper" in c.value]
    assert note.startswith(f"On the {table.n_items} validation items: the people's Fleiss' kappa {kappa:.2f}")
    assert "both on its 172 validation actions" in note
    assert f"{kappa:.2f}" != metric(page, "Fleiss' kappa") or table.n_items == humans().n_items
    page.selectbox(key="agr_model_part").set_value("all").run()
    [note] = [c.value for c in page.caption if "ALMANAC paper" in c.value]
    assert note.startswith(f"On all {humans().n_items} items (few-shot items included")
