"""The shape of the code, as docs/architecture.md states it: no module of the app over 600 lines, and
every function of an importer (corpus/importers/) at a cyclomatic complexity of at most 15, as radon
counts it (an importer goes in phases: discover, read, build, report; a function that needs more
branches is two phases in one)."""

from __future__ import annotations

import re
from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("corpus", "analysis", "services", "components", "pages", "reports", "deploy")
MAX_LINES = 600
MAX_IMPORTER_COMPLEXITY = 15


def modules() -> list[Path]:
    found = [ROOT / "app.py"]
    for package in PACKAGES:
        found += sorted((ROOT / package).rglob("*.py"))
    return found


def too_long(paths: list[Path], root: Path = ROOT, limit: int = MAX_LINES) -> list[str]:
    """Each module of ``paths`` over ``limit`` lines, with its count (paths relative to ``root``)."""
    counts = {p: len(p.read_text(encoding="utf-8").splitlines()) for p in paths}
    return [f"{p.relative_to(root)}: {n} lines" for p, n in counts.items() if n > limit]


def too_complex(paths: list[Path], root: Path = ROOT, limit: int = MAX_IMPORTER_COMPLEXITY) -> list[str]:
    """Each function or method of ``paths`` whose cyclomatic complexity is over ``limit`` (a class's
    own number, the sum of its methods', is not a function's)."""
    found = []
    for path in paths:
        for f in cc_visit(path.read_text(encoding="utf-8")):  # functions and methods, then classes
            if not hasattr(f, "methods") and f.complexity > limit:
                found.append(f"{path.relative_to(root)}:{f.lineno} {f.fullname}: {f.complexity}")
    return found


def test_no_module_is_over_600_lines():
    assert too_long(modules()) == []


def test_every_importer_function_is_at_most_15_branches():
    assert too_complex(sorted((ROOT / "corpus" / "importers").rglob("*.py"))) == []


def _branches(n: int, indent: str) -> str:
    """A body of ``n`` ifs, each a branch: complexity ``n + 1``."""
    return "".join(f"{indent}if x == {i}:\n{indent}    return {i}\n" for i in range(n)) + f"{indent}return -1\n"


def test_the_checks_find_what_they_look_for(tmp_path):
    """A module one line too long and a function or method one branch too many are found; those at
    the limit are not."""
    long, short = tmp_path / "long.py", tmp_path / "short.py"
    long.write_text("x = 1\n" * 601)
    short.write_text("x = 1\n" * 600)
    assert too_long([long, short], tmp_path) == ["long.py: 601 lines"]
    code = tmp_path / "code.py"
    code.write_text(
        "def f(x):\n"
        + _branches(15, "    ")
        + "\n\ndef ok(x):\n"
        + _branches(14, "    ")
        + "\n\nclass C:\n    def g(self, x):\n"
        + _branches(15, "        ")
        + "\n    def h(self, x):\n"
        + _branches(14, "        ")
    )
    g = code.read_text().splitlines().index("    def g(self, x):") + 1
    assert too_complex([code], tmp_path) == ["code.py:1 f: 16", f"code.py:{g} C.g: 16"]


def _layer_rows() -> dict[str, str]:
    """docs/architecture.md's table: each layer's description (the row's second cell)."""
    rows = {}
    for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `(\w+)/` \|", line)
        if m:
            rows[m.group(1)] = [c.strip() for c in line.strip().strip("|").split("|")][1]
    return rows


def unnamed_parts(rows: dict[str, str], root: Path = ROOT) -> list[str]:
    """Each sub-package of a layer that its row of the table does not name (as `name/`), and each
    top-level module of corpus/ its row does not name (as `name`)."""
    missing = []
    for layer, description in rows.items():
        for init in sorted((root / layer).glob("*/__init__.py")):
            if f"`{init.parent.name}/`" not in description:
                missing.append(f"{layer}/{init.parent.name}/")
    for module in sorted((root / "corpus").glob("*.py")):
        if module.stem not in {"__init__", "__main__"} and f"`{module.stem}`" not in rows.get("corpus", ""):
            missing.append(f"corpus/{module.name}")
    return missing


def test_the_architecture_table_names_every_package_of_every_layer():
    """The table of docs/architecture.md names each layer's sub-packages and each module left at the
    top of corpus/: a newcomer finds every part of the code in it."""
    rows = _layer_rows()
    assert set(rows) >= {"corpus", "analysis", "services", "components", "pages", "reports"}
    assert unnamed_parts(rows) == []


def test_the_table_check_finds_an_unnamed_package(tmp_path):
    (tmp_path / "corpus" / "loading").mkdir(parents=True)
    (tmp_path / "corpus" / "loading" / "__init__.py").write_text("")
    (tmp_path / "corpus" / "stray.py").write_text("")
    (tmp_path / "corpus" / "named.py").write_text("")
    assert unnamed_parts({"corpus": "the domain (`named`)"}, tmp_path) == ["corpus/loading/", "corpus/stray.py"]
    assert unnamed_parts({"corpus": "`loading/` and `named`, `stray`"}, tmp_path) == []
