"""The Compare screen on a benchmark dataset (AppTest): the bundled synthetic ToM benchmark's
leaderboard, slices, confusions, ablation and an instance with its story; the Map Task screens
say where a benchmark is read."""

from __future__ import annotations

from pathlib import Path

from test_analysis_pages import open_page

from analysis.benchmark import compare_benchmark
from corpus.benchmark.dataset import load_benchmark

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "dyntom-synthetic"


def test_the_leaderboard_shows_every_run_with_the_scored_numbers(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/compare.py", dataset=SAMPLE)
    assert not at.error, [e.value for e in at.error]
    assert at.title[0].value == "Models on a benchmark"
    assert any("is synthetic" in i.value for i in at.info)
    cmp = compare_benchmark(load_benchmark(SAMPLE))
    table = at.table[0].value
    assert len(table) == 6
    overall = cmp.accuracy(None).set_index("run")
    first = overall.index[0]
    cell = table.iloc[0, 0]
    assert cell.startswith(f"{overall.loc[first, 'estimate']:.3f} [")
    assert "over 12 trials" in "\n".join(c.value for c in at.caption)
    # The strongest simulated model in its CoT setting is separated from every other run.
    styled = at.table[0].proto.arrow_data.styler.styles
    assert "font-weight: 700" in styled


def test_the_other_views_render_on_the_benchmark(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/compare.py", dataset=SAMPLE)
    for view in ("Slices", "Confusions", "Ablation", "Instances"):
        at.session_state["bench_tab"] = view
        at.run()
        assert not at.exception, (view, [e.value for e in at.exception])
        assert not at.error, (view, [e.value for e in at.error])
    # Instances: the question chosen is shown with its options (gold marked) and its story.
    assert at.selectbox(key="bench_inst_item").value.startswith("trial1/")
    text = "\n".join(m.value for m in at.markdown)
    assert "**gold**" in text and "Main character:" in text


def test_a_map_task_screen_on_the_benchmark_says_where_it_is_read(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/alignment.py", dataset=SAMPLE)
    assert any("holds a benchmark" in i.value for i in at.info)


def test_the_address_names_the_chosen_dataset_on_every_page(tmp_path, monkeypatch):
    """A dataset other than the default is named in the link (?dataset=KEY) on whatever page is
    open, so a reload opens it again; the default (the Map Task sample) is not named."""
    from streamlit.testing.v1 import AppTest

    from corpus.loading.catalog import key_of

    root = SAMPLE.parent.parent
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", f"{root / 'sample_data'}:{root / 'samples'}")
    at = AppTest.from_file(str(root / "app.py"), default_timeout=120).run()
    assert "dataset" not in at.query_params
    at.sidebar.selectbox(key="dataset_pick").set_value(str(SAMPLE)).run()
    at.switch_page("pages/compare.py").run()
    assert at.title[0].value == "Models on a benchmark"
    assert at.query_params["dataset"] in (key_of(SAMPLE), [key_of(SAMPLE)])
    at.switch_page("pages/home.py").run()
    assert at.query_params["dataset"] in (key_of(SAMPLE), [key_of(SAMPLE)])
    # A new session opened with that address (a reload) shows the benchmark.
    again = AppTest.from_file(str(root / "app.py"), default_timeout=120)
    again.query_params["dataset"] = key_of(SAMPLE)
    again.run()
    again.switch_page("pages/compare.py").run()
    assert again.title[0].value == "Models on a benchmark"


def test_home_greets_the_benchmark_sample(tmp_path, monkeypatch):
    """Home on the bundled benchmark: its title, what it holds, that it is synthetic, and the way to
    Compare; nothing about reading Map Task sessions."""
    bench = load_benchmark(SAMPLE)
    at = open_page(tmp_path, monkeypatch, "pages/home.py", dataset=SAMPLE)
    assert not at.error and not at.exception
    assert [t.value for t in at.title] == ["Groundwork"]
    texts = [e.value for e in (*at.markdown, *at.info, *at.caption)]
    assert not any("reads Map Task sessions" in t for t in texts), texts
    held = next(m.value for m in at.markdown if m.value.startswith("**Dataset in use:**"))
    assert f"{len(bench.items):,} questions" in held and f"{len(bench.ok_runs)} runs" in held, held
    assert any("is synthetic" in i.value for i in at.info)
    assert [link.proto.page for link in at.get("page_link")][:2] == ["compare", "report"]


def test_per_trial_accuracy_and_crossed_slices_on_the_page(tmp_path, monkeypatch):
    """The Per trial view draws every run's per-trial accuracies and their spread; Slices crossed with a
    second slice tabulates each cell of the two, with its count, as the analysis gives them."""
    import json

    at = open_page(tmp_path, monkeypatch, "pages/compare.py", dataset=SAMPLE)
    cmp = compare_benchmark(load_benchmark(SAMPLE))
    at.session_state["bench_tab"] = "Per trial"
    at.run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    boxes = [t for t in spec["data"] if t["type"] == "box"]
    assert [len(b["y"]) for b in boxes] == [12] * len(cmp.run_ids)
    spread = next(d.value for d in at.dataframe if "per trial: mean (SD)" in d.value.columns)
    assert list(spread["run"]) == cmp.run_ids and set(spread["trials"].astype(str)) == {"12"}
    at.session_state["bench_tab"] = "Slices"
    at.run()
    at.selectbox(key="bench_slice_field").set_value("mental_state").run()
    at.selectbox(key="bench_slice_cross").set_value("time_span").run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    table = next(d.value for d in at.dataframe if "n (most of any run)" in d.value.columns)
    crossed = cmp.crossed("mental_state", "time_span")
    assert len(table) == crossed[["mental_state", "time_span"]].drop_duplicates().shape[0]
    first = crossed.iloc[0]
    assert table.loc[(first["mental_state"], first["time_span"]), first["run"]].startswith(f"{first['estimate']:.3f} [")
