"""The layers as a contract: docs/architecture.md's table says what each layer may import and never
imports; this reads that table and checks every module of every layer against it, so the document
and the code cannot drift apart. Also: components and pages cache nothing of their own, and no
component or page touches the label store (they call services); no number is formatted in a component
or a page (nor by a Plotly template in a report) but through analysis.format."""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
LAYERS = ("corpus", "analysis", "services", "components", "pages", "reports")
FIRST_PARTY = {*LAYERS, "app"}
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
# The two exceptions the document names below its table.
CLI_MAY_IMPORT_LAZILY = {("corpus/cli/__init__.py", "analysis"), ("analysis/cli.py", "reports")}
STORE_RECORDS = {
    "User",
    "Task",
    "AccessDenied",
    "StoreError",
    "SignInRefused",
    "ProofNeeded",
    "FeedbackCounts",
    "Snapshot",
    "LabelImport",
    "ROLES",
    "PHASES",
    "ERROR_TYPES",
    "CODER_VIEWS",
}
CACHES = {"cache_data", "cache_resource"}
FUNCTOOLS_CACHES = {"cache", "lru_cache"}


@dataclass(frozen=True)
class Rule:
    may: frozenset[str]
    never: frozenset[str]


def contract(text: str) -> dict[str, Rule]:
    """The table of docs/architecture.md: per layer, the names in backquotes of its last two columns."""
    rules = {}
    for line in text.splitlines():
        m = re.match(r"\| `(\w+)/` \|", line)
        if not m or m.group(1) not in LAYERS:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        may, never = (frozenset(re.findall(r"`([\w.]+)`", cell)) for cell in cells[-2:])
        rules[m.group(1)] = Rule(may, never)
    return rules


@dataclass(frozen=True)
class Imported:
    module: str
    names: tuple[str, ...]
    line: int
    at_top: bool  # at the module's top level (not inside a function)


def imports(tree: ast.Module) -> list[Imported]:
    found = []
    top = {id(n) for n in tree.body}

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                found.extend(Imported(a.name, (), child.lineno, not in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.append(Imported(child.module, tuple(a.name for a in child.names), child.lineno, not in_function))
            visit(child, inner)

    visit(tree, False)
    assert top is not None
    return found


def _matches(module: str, name: str) -> bool:
    return module == name or module.startswith(name + ".")


def violations(layer: str, rule: Rule, path: Path, tree: ast.Module) -> list[str]:
    rel = path.relative_to(ROOT).as_posix()
    out = []
    for imp in imports(tree):
        top = imp.module.split(".")[0]
        where = f"{rel}:{imp.line}: {imp.module}"
        forbidden = next((n for n in rule.never if _matches(imp.module, n)), None)
        if forbidden == "corpus.store" and layer == "components" and imp.names and set(imp.names) <= STORE_RECORDS:
            forbidden = None  # the store's records and errors, by name
        if forbidden and (rel, forbidden) in CLI_MAY_IMPORT_LAZILY and not imp.at_top:
            continue  # a command line's front door, inside the command
        if forbidden:
            out.append(f"{where}: {layer}/ never imports {forbidden}")
        elif top not in STDLIB and not any(_matches(imp.module, n) for n in rule.may):
            out.append(f"{where}: not among what {layer}/ may import")
    return out


def cache_violations(path: Path, tree: ast.Module) -> list[str]:
    """A Streamlit cache, or a functools cache of a function of data, in a component or a page."""
    rel = path.relative_to(ROOT).as_posix()
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for dec in node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if name in CACHES:
                out.append(f"{rel}:{node.lineno}: {node.name} is cached with st.{name}: caches live in services/")
            elif name in FUNCTOOLS_CACHES:
                args = [a for a in node.args.args if a.arg not in ("self", "cls")]
                if any(a.annotation is None or ast.unparse(a.annotation) != "str" for a in args):
                    out.append(f"{rel}:{node.lineno}: {node.name} caches a function of data: caches live in services/")
    return out


def _modules(layer: str) -> list[Path]:
    return sorted(p for p in (ROOT / layer).rglob("*.py") if "__pycache__" not in p.parts)


RULES = contract(DOC.read_text(encoding="utf-8"))


def test_the_document_states_a_rule_for_every_layer():
    assert sorted(RULES) == sorted(LAYERS)
    assert "streamlit" in RULES["corpus"].never and "corpus.store" in RULES["analysis"].never
    assert "corpus.store" in RULES["components"].never and "corpus.store" in RULES["pages"].never


@pytest.mark.parametrize("layer", LAYERS)
def test_every_module_keeps_its_layers_rule(layer):
    found = []
    for path in _modules(layer):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += violations(layer, RULES[layer], path, tree)
        if layer in ("components", "pages"):
            found += cache_violations(path, tree)
    assert not found, "\n".join(found)


def test_no_component_or_page_holds_the_store():
    """Nothing in components/ or pages/ names the Store or opens it (``get_store``): what they read or
    write goes through a service."""
    found = []
    for layer in ("components", "pages"):
        for path in _modules(layer):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Name) and node.id in ("Store", "get_store"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.id}")
                elif isinstance(node, ast.alias) and node.name in ("Store", "get_store"):
                    found.append(f"{path.relative_to(ROOT)}: imports {node.name}")
    assert not found, "\n".join(found)


def test_the_checks_find_what_they_look_for(tmp_path):
    """The rules catch a violation of each kind (a contract that cannot fail proves nothing)."""
    fake = ROOT / "components" / "fake.py"
    tree = ast.parse(
        "import streamlit as st\nfrom corpus.store import Store, User\nimport statsmodels.api\n"
        "@st.cache_data\ndef f(x):\n    return x\n"
    )
    found = violations("components", RULES["components"], fake, tree) + cache_violations(fake, tree)
    expected = [
        "corpus.store: components/ never imports corpus.store",
        "statsmodels.api: not among what components/ may import",
        "f is cached with st.cache_data: caches live in services/",
    ]
    assert len(found) == len(expected) and all(f.endswith(e) for f, e in zip(found, expected)), found
    ok = ast.parse("from corpus.store import User, AccessDenied\nfrom services import tasks\n")
    assert violations("components", RULES["components"], fake, ok) == []
    lazy = ast.parse("def main():\n    from analysis import split\n")
    assert violations("corpus", RULES["corpus"], ROOT / "corpus" / "cli" / "__init__.py", lazy) == []
    assert violations("corpus", RULES["corpus"], ROOT / "corpus" / "other.py", lazy)


# A Plotly template's value with a d3 format after the colon (``%{y:.0%}``, ``%{customdata[3]:.2f}``):
# a number formatted by Plotly, not by analysis.format. A date's format follows a ``|``, not a colon.
PLOTLY_SPEC = re.compile(r"%\{([^{}:|]+):([^{}]*)\}")
# Attributes that give Plotly a number format for hover text (``hoverformat``, ``xhoverformat``...);
# an axis's ``tickformat`` draws its scale, not a value.
PLOTLY_HOVER_FORMAT = re.compile(r"^[xyz]?hoverformat$")


def _text(node: ast.AST) -> str | None:
    """A string literal's text; an f-string's with each replacement field as its expression's source
    (without braces or colons, so that it reads as part of a Plotly field's name)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(
            v.value if isinstance(v, ast.Constant) else re.sub(r"[{}:]", "", ast.unparse(v.value))
            for v in node.values
            if isinstance(v, ast.Constant | ast.FormattedValue)
        )
    return None


def plotly_format_violations(path: Path, tree: ast.Module) -> list[str]:
    """Hover and text templates that format a number themselves, and hover formats given to Plotly:
    a chart's values reach it already printed by analysis.format (in ``text`` or ``customdata``)."""
    rel = path.relative_to(ROOT).as_posix()
    out = []
    inner = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    for node in ast.walk(tree):
        text = None if id(node) in inner else _text(node)
        if text is not None:
            out += [f"{rel}:{node.lineno}: %{{{m[1]}:{m[2]}}}" for m in PLOTLY_SPEC.finditer(text)]
        if isinstance(node, ast.keyword) and node.arg and PLOTLY_HOVER_FORMAT.match(node.arg):
            out.append(f"{rel}:{node.value.lineno}: {node.arg}=")
        if isinstance(node, ast.Dict):
            for key in node.keys:
                if isinstance(key, ast.Constant) and PLOTLY_HOVER_FORMAT.match(str(key.value)):
                    out.append(f"{rel}:{key.lineno}: {key.value!r}")
    return out


def test_plotly_templates_show_numbers_printed_by_the_formatter():
    """No hover or text template in components/, pages/ or reports/ formats a number (``%{y:.0%}``)
    and no figure sets a hover format: Plotly would print "95% CI 12%-34%" where every other place
    prints "95% CI 12% to 34%", and NaN where the formatter says "undefined"."""
    found = []
    for layer in ("components", "pages", "reports"):
        for path in _modules(layer):
            found += plotly_format_violations(path, ast.parse(path.read_text(encoding="utf-8")))
    assert not found, "\n".join(found)


def test_the_plotly_format_check_finds_what_it_looks_for():
    fake = ROOT / "components" / "fake.py"
    tree = ast.parse(
        'k = 2\nh = "%{x}: %{y:.0%} of " + "n = %{customdata[2]}"\n'
        'f = f"CI %{{customdata[{k + 3}]:.0%}}-%{{customdata[{k + 4}]:.2f}}<extra>{k}</extra>"\n'
        'go.Scatter(hovertemplate="%{text}", yhoverformat=".2f")\n'
        'layout = {"xaxis": {"hoverformat": ",", "tickformat": ".0%"}}\n'
        'd = "%{x|%Y-%m-%d}, %{customdata[0]}"\n'
    )
    assert sorted(f.split(": ", 1)[1] for f in plotly_format_violations(fake, tree)) == [
        "%{customdata[k + 3]:.0%}",
        "%{customdata[k + 4]:.2f}",
        "%{y:.0%}",
        "'hoverformat'",
        "yhoverformat=",
    ]


def test_components_and_pages_format_numbers_only_through_the_formatter():
    """No number is formatted in components/ or pages/ by a format specification (``:.2f``, ``:.0%``,
    ``:,``): through :mod:`analysis.format` every page prints "undefined" and intervals alike."""
    found = []
    for layer in ("components", "pages"):
        for path in _modules(layer):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FormattedValue) and node.format_spec is not None:
                    spec = "".join(v.value for v in node.format_spec.values if isinstance(v, ast.Constant))
                    if re.search(r"[,%fgeFGE]$|^[,.+\d]", spec):
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node.value)}:{spec}")
    assert not found, "\n".join(found)
