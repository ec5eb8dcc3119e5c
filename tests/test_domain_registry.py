"""The domain registry (corpus.domain) as a contract: every dataset class offers the protocol, the
app asks a dataset's domain and the registry, never ``isinstance`` on a dataset class; the catalog's
entry names the domain (a rerun reads no dataset.json); a domain the server does not read is
refused by name; and a fourth domain, added as a lab adds one (tests/toy_domain.py: a reader, a
replay hook and one Domain), gets Home and the Replay screen with no other change. The browser's
side of the fourth domain: tests/test_browser_toy_domain.py."""

from __future__ import annotations

import ast
import json
import pathlib
import shutil
import sys
from pathlib import Path

import pytest
import toy_domain
from streamlit.testing.v1 import AppTest

from corpus import domain as registry
from corpus.benchmark.dataset import load_benchmark
from corpus.kitchen.dataset import load_kitchen
from corpus.loading.catalog import datasets_under, key_of
from corpus.loading.dataset import SAMPLE_DATA, content_hash, load_dir
from corpus.settings import SAMPLES

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
LAYERS = ("corpus", "analysis", "services", "components", "pages", "reports")
DATASET_CLASSES = {"Corpus", "KitchenCorpus", "Benchmark", "Dataset"}
REGISTRY = "corpus/domain.py"  # the one module that may tell dataset classes apart
KITCHEN = SAMPLES / "kitchen-synthetic"
BENCHMARK = SAMPLES / "dyntom-synthetic"


# -- no isinstance on dataset classes outside the registry ---------------------------------------------


def _named(node: ast.AST) -> set[str]:
    """The class names an isinstance's second argument (or a ``type(x) is`` comparison) names."""
    names = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            names.add(n.id)
        elif isinstance(n, ast.Attribute):
            names.add(n.attr)
    return names


def asks_the_class(tree: ast.AST) -> list[tuple[int, str]]:
    """Where code asks which dataset class it holds: ``isinstance(x, Corpus)`` (a tuple or union of
    them too), ``issubclass``, or ``type(x) is/== KitchenCorpus``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("isinstance", "issubclass"):
            hit = _named(node.args[1]) & DATASET_CLASSES if len(node.args) > 1 else set()
            if hit:
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Compare) and isinstance(node.left, ast.Call):
            if getattr(node.left.func, "id", "") == "type":
                hit = set().union(*(_named(c) for c in node.comparators)) & DATASET_CLASSES
                if hit:
                    found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def _sources() -> list[Path]:
    files = [ROOT / "app.py"]
    for layer in LAYERS:
        files += sorted(p for p in (ROOT / layer).rglob("*.py") if "__pycache__" not in p.parts)
    return files


def test_no_code_outside_the_registry_asks_which_dataset_class_it_holds():
    """Services, components, pages and reports dispatch on ``data.domain`` through the registry
    (and each layer's table keyed by its names), never on the class of the dataset."""
    found = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        if rel == REGISTRY:
            continue
        found += [f"{rel}:{line}: {code}" for line, code in asks_the_class(ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, "\n".join(found)


def test_the_check_finds_what_it_looks_for():
    planted = ast.parse(
        "if isinstance(d, KitchenCorpus): pass\n"
        "x = 1 if isinstance(d, Benchmark | KitchenCorpus) else 2\n"
        "y = isinstance(d, (Corpus, str))\n"
        "z = type(d) is corpus.loading.dataset.Corpus\n"
        "ok = isinstance(d, dict) or isinstance(d, Report)\n"
    )
    assert [line for line, _ in asks_the_class(planted)] == [1, 2, 3, 4]


# -- the protocol -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def samples():
    return {
        "map_task": load_dir(SAMPLE_DATA),
        "kitchen": load_kitchen(KITCHEN),
        "benchmark": load_benchmark(BENCHMARK),
    }


@pytest.mark.parametrize(
    ("name", "root", "noun", "n_units"),
    [("map_task", SAMPLE_DATA, "session", 25), ("kitchen", KITCHEN, "run", 48), ("benchmark", BENCHMARK, "trial", 12)],
)
def test_every_dataset_class_offers_what_the_protocol_says(samples, name, root, noun, n_units):
    data = samples[name]
    meta = json.loads((root / "dataset.json").read_text(encoding="utf-8"))
    assert data.domain == name and registry.of(data).name == name
    assert data.name == meta["name"] and data.synthetic is True
    assert data.root == root and data.dataset_id == key_of(root)
    assert data.content_hash == content_hash(root)
    assert data.provenance["description"] == meta["description"]
    assert data.unit_noun == noun == registry.of(data).unit
    units = data.units
    assert list(units.columns[:3]) == [registry.UNIT_ID, *registry.DESIGN_COLUMNS]
    assert len(units) == n_units and units[registry.UNIT_ID].is_unique


def test_the_units_carry_each_domains_design(samples):
    sessions = samples["map_task"].units.set_index(registry.UNIT_ID)
    assert sessions.loc["S01", "condition"] == "not_visible" and sessions.loc["S01", "split"] == "train"
    assert sessions.loc["S01", "map_id"] == "map_a"
    assert set(sessions["condition"]) == {"not_visible", "visible"}
    runs = samples["kitchen"].units
    first = samples["kitchen"].runs[0]
    assert runs.iloc[0][registry.UNIT_ID] == first.id and runs.iloc[0]["condition"] == first.pairing
    assert runs["condition"].nunique() == 4 and set(runs["split"]) == {"not_recorded"}
    assert runs.iloc[0]["level"] == first.level and runs.iloc[0]["recipe"] == first.recipe
    trials = samples["benchmark"].units
    assert trials["items"].sum() == len(samples["benchmark"].items)
    assert samples["map_task"].provenance["generated by"] == "corpus.generate, version 4, seed 7, n sessions 25"
    assert samples["benchmark"].provenance["format"] == "dyntom"


def test_each_domain_reads_and_validates_through_its_entry(tmp_path):
    for name, root in (("map_task", SAMPLE_DATA), ("kitchen", KITCHEN), ("benchmark", BENCHMARK)):
        assert registry.read(name, root).domain == name
        assert registry.get(name).validate(root).ok, name
    broken = shutil.copytree(KITCHEN, tmp_path / "kitchen")
    run = sorted((broken / "runs").glob("*.json"))[0]
    record = json.loads(run.read_text(encoding="utf-8"))
    record["score"] = "lots"
    run.write_text(json.dumps(record), encoding="utf-8")
    problems = registry.get("kitchen").validate(broken).errors
    assert [(p.file, p.field) for p in problems] == [(f"runs/{run.name}", "score")]


def test_each_domain_names_screens_of_the_menu():
    """The built-in Map Task domain shows every screen (the Kitchen screen on a Map Task dataset says
    how to read kitchen runs); each domain's screens are screens of the menu, Home among them."""
    import app

    files = [s.file for screens in app.PAGES.values() for s in screens]
    assert list(registry.SCREENS) == files
    for d in registry.domains():
        assert "home" in d.pages and set(d.pages) <= set(files), d.name
        assert d.main_page in d.pages, d.name
    assert registry.get("kitchen").pages == ("home", "kitchen", "report", "code", "adjudicate", "tasks")
    assert registry.get("benchmark").pages == ("home", "compare", "report")


# -- the catalog names the domain; an unknown one is refused by name ---------------------------------


def _unknown(folder: Path) -> Path:
    folder.mkdir(parents=True)
    meta = {"name": "From elsewhere", "synthetic": False, "domain": "orbital"}
    (folder / "dataset.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder


def test_a_domain_the_server_does_not_read_is_refused_naming_the_field(tmp_path):
    folder = _unknown(tmp_path / "roots" / "orbit")
    [entry] = datasets_under([tmp_path / "roots"])
    assert entry.domain == "orbital"  # listed as it says, not read as Map Task sessions
    with pytest.raises(registry.UnknownDomain) as refused:
        registry.read(entry.domain, folder)
    [problem] = refused.value.report.errors
    assert (problem.file, problem.record, problem.field) == ("dataset.json", "-", "domain")
    assert problem.message.startswith("this server reads no domain 'orbital' (it reads benchmark, kitchen, map_task")


def open_page(tmp_path, monkeypatch, page: str, dataset: Path) -> AppTest:
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GROUNDWORK_DATASET_ROOTS", str(dataset.parent))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["dataset"] = key_of(dataset)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_page_on_a_dataset_of_an_unknown_domain_says_what_is_wrong(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/home.py", _unknown(tmp_path / "roots" / "orbit"))
    assert [e.value for e in at.error] == ["The dataset From elsewhere \\(orbit\\) has 1 error(s) and was not loaded."]
    [row] = at.table[0].value.to_dict("records")
    assert (row["file"], row["field"]) == ("dataset.json", "domain")
    assert "this server reads no domain" in row["message"] and "orbital" in row["message"]


def test_a_rerun_reads_no_dataset_json(tmp_path, monkeypatch):
    """The domain of the dataset shown is its catalog entry's, listed once per change of the files:
    a rerun of a page asks no dataset.json again (it used to read it twice more on every rerun)."""
    at = open_page(tmp_path, monkeypatch, "pages/home.py", KITCHEN)
    read = []
    real = pathlib.Path.read_text

    def read_text(self, *args, **kwargs):
        if self.name == "dataset.json":
            read.append(str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(pathlib.Path, "read_text", read_text)
    at.run()
    assert not at.exception and [t.value for t in at.title] == ["Groundwork"]
    assert read == []


# -- the front door names every domain ------------------------------------------------------------------


def test_home_names_the_three_domains(tmp_path, monkeypatch):
    at = open_page(tmp_path, monkeypatch, "pages/home.py", KITCHEN)
    door = at.markdown[0].value
    assert "three kinds of data: Map Task sessions, kitchen runs and theory-of-mind benchmarks" in door, door
    assert at.markdown[1].value.startswith("On **kitchen runs**")


# -- a fourth domain --------------------------------------------------------------------------------------


@pytest.fixture
def toy(monkeypatch, tmp_path) -> Path:
    """The toy domain registered in this process (for this test only), and a toy dataset."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register(toy_domain.DOMAIN)
    return toy_domain.write_toy_dataset(tmp_path / "roots" / "toy")


def test_a_fourth_domain_gets_home_from_its_entry(tmp_path, monkeypatch, toy):
    at = open_page(tmp_path, monkeypatch, "pages/home.py", toy)
    assert not at.error, [e.value for e in at.error]
    texts = [m.value for m in at.markdown]
    assert "four kinds of data: Map Task sessions, kitchen runs, theory-of-mind benchmarks and toy episodes" in texts[0]
    assert texts[1] == toy_domain.DOMAIN.introduction
    assert "**Dataset in use:** Toy walks: 2 episodes (another dataset: the sidebar)." in texts
    assert any(i.value.startswith("**Toy walks** is synthetic") for i in at.info)
    assert [link.proto.page for link in at.get("page_link")] == ["replay"]


def test_a_fourth_domain_replays_in_the_tile_player(tmp_path, monkeypatch, toy):
    at = open_page(tmp_path, monkeypatch, "pages/replay.py", toy)
    assert not at.error, [e.value for e in at.error]
    assert [t.value for t in at.title] == ["Replay"]
    picker = at.selectbox(key="replay_unit")
    assert picker.value == "e1" and picker.options == ["e1", "e2"]
    assert at.query_params["unit"] == "e1" and at.query_params["step"] == "0"
    picker.set_value("e2").run()
    assert not at.exception and at.query_params["unit"] == "e2"
    assert not at.error, [e.value for e in at.error]


def test_a_screen_of_another_domain_says_what_it_reads_on_a_fourth_domain(tmp_path, monkeypatch, toy):
    at = open_page(tmp_path, monkeypatch, "pages/alignment.py", toy)
    [told] = [i.value for i in at.info]
    assert told.startswith("The dataset Toy walks \\(toy\\) holds toy episodes. This screen reads Map Task sessions: ")
    assert told.endswith("The **Replay** screen replays its episodes.")
    assert [link.proto.page for link in at.get("page_link")] == ["replay"]


def test_domains_come_from_installed_entry_points(tmp_path, monkeypatch, caplog):
    """A package names its Domain in the entry point group ``groundwork.domains``; one that fails to
    load is left out, logged and said, and the others are read."""
    site = toy_domain.install(tmp_path / "site")
    broken = site / "broken_domain-0.1.dist-info"
    broken.mkdir()
    (broken / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-domain\nVersion: 0.1\n", encoding="utf-8")
    (broken / "entry_points.txt").write_text("[groundwork.domains]\nbroken = no_such_module:DOMAIN\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    monkeypatch.setattr(registry, "_plugin_problems", [])
    monkeypatch.delitem(sys.modules, "toy_domain", raising=False)
    assert [d.name for d in registry.domains()] == ["map_task", "kitchen", "benchmark", "toy"]
    [problem] = registry.plugin_problems()
    assert problem.startswith("the domain plugin 'broken' (no_such_module:DOMAIN) was not loaded: ModuleNotFoundError")
    assert problem in caplog.text
    dataset = registry.read("toy", toy_domain.write_toy_dataset(tmp_path / "toy"))
    assert dataset.units[registry.UNIT_ID].tolist() == ["e1", "e2"]


# -- the command lines go through the registry ------------------------------------------------------------


def test_the_command_lines_read_a_fourth_domain_by_its_entry(toy, capsys, tmp_path):
    """`corpus validate` and `corpus stats` read a toy dataset with the toy domain's validator and
    reader (not as Map Task sessions); `analysis report` says that no report is made of it."""
    from analysis.cli import main as analysis_main
    from corpus.cli import main

    assert main(["validate", str(toy), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"ok": True, "domain": "toy", "issues": []}
    (toy / "steps.csv").write_text("episode,step\ne1,0\n", encoding="utf-8")
    assert main(["validate", str(toy), "--json"]) == 1
    issues = json.loads(capsys.readouterr().out)["issues"]
    assert [(i["file"], i["field"]) for i in issues] == [("steps.csv", c) for c in ("walker", "row", "col", "said")]
    toy_domain.write_toy_dataset(toy)
    assert main(["stats", str(toy), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "domain": "toy",
        "dataset": {"name": "Toy walks", "synthetic": True},
        "overall": {"n_episodes": 2},
        "by_condition": {"not_recorded": {"n_episodes": 2}},
        "by_split": {"not_recorded": {"n_episodes": 2}},
    }
    assert analysis_main(["report", str(toy), str(tmp_path / "out")]) == 1
    assert "no report is made of toy episodes" in capsys.readouterr().err


def test_validate_names_a_domain_the_server_does_not_read(tmp_path, capsys):
    from corpus.cli import main

    folder = _unknown(tmp_path / "orbit")
    assert main(["validate", str(folder), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["domain"] == "orbital" and [(i["file"], i["field"]) for i in out["issues"]] == [
        ("dataset.json", "domain")
    ]
