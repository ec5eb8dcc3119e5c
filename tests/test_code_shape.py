"""The shape of the code, as docs/architecture.md states it: no module of the app over 600 lines, and
every function of an importer (corpus/importers/) at a cyclomatic complexity of at most 15, as radon
counts it (an importer goes in phases: discover, read, build, report; a function that needs more
branches is two phases in one)."""

from __future__ import annotations

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
