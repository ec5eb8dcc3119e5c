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
