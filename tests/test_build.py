"""The build: the code passes the linter, the formatter and the type checker configured in
pyproject.toml and holds no dead code (vulture); every package the code imports is declared; requirements.lock pins every declared
dependency within its range (a fresh install takes exactly the lock: `make install`)."""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata as md
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
APP_CODE = ["app.py", "analysis", "components", "corpus", "pages", "reports", "services"]
FIRST_PARTY = {"analysis", "app", "components", "corpus", "pages", "reports", "services"}


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_the_linter_passes():
    out = _run(str(BIN / "ruff"), "check", "--no-cache", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def test_the_code_is_formatted():
    out = _run(str(BIN / "ruff"), "format", "--check", "--no-cache", ".")
    assert out.returncode == 0, out.stdout + out.stderr


def _mypy_cache() -> Path:
    """The type checker's cache, kept with the install (the virtual environment) and one per checkout:
    a module unchanged since the last check, and none of whose imports changed, is not checked again
    (mypy's incremental mode); a fresh install checks everything."""
    return Path(sys.prefix) / ".mypy_cache" / hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]


def test_the_type_checker_passes_on_the_domain_and_the_analysis():
    cache = _mypy_cache()
    out = _run(str(BIN / "mypy"), "--cache-dir", str(cache))
    if out.returncode == 2 and "INTERNAL ERROR" in out.stderr:  # a cache left broken (a run killed while writing it)
        shutil.rmtree(cache, ignore_errors=True)
        out = _run(str(BIN / "mypy"), "--cache-dir", str(cache))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("Success"), out.stdout


# Code that uses the packages' names without being checked itself: the tests (with vulture's
# whitelist, tests/vulture_whitelist.py), the benchmarks and the deployment scripts.
USERS = ["tests", "bench", "deploy"]
# Functions used by name by the library that calls them: pydantic's validators, SQLAlchemy's event
# listeners.
USED_BY_DECORATOR = ["@field_validator", "@model_validator", "@event.listens_for"]
FINDING = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): unused variable ")


def _fields(path: Path) -> set[int]:
    """The lines of ``path`` that declare a field of a record: an annotated name in a class body (a
    pydantic model's, a dataclass's, a NamedTuple's). A record is validated and written whole, its
    fields read by name as data (``model_dump``, ``asdict``, a frame's columns), not as attributes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        item.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
    }


def dead_code(report: str, root: Path = ROOT) -> list[str]:
    """vulture's findings in the packages (not in the code that only uses them), fields of records left
    out; paths are relative to ``root``."""
    found = []
    for line in report.splitlines():
        if line.startswith(tuple(f"{u}/" for u in USERS)):
            continue
        field = FINDING.match(line)
        if field and int(field["line"]) in _fields(root / field["path"]):
            continue
        found.append(line)
    return found


def test_no_dead_code():
    """vulture finds no function, method, class, property, constant or attribute in the packages that
    nothing uses, and no unreachable code (a name a library uses by name is in the whitelist)."""
    out = _run(
        str(BIN / "vulture"),
        *APP_CODE,
        *USERS,
        "--ignore-decorators",
        ",".join(USED_BY_DECORATOR),
        "--exclude",
        "tests/artifacts",
    )
    assert out.returncode in (0, 3), out.stdout + out.stderr  # 3: vulture found something
    dead = dead_code(out.stdout)
    assert not dead, "dead code (remove it, or whitelist a name used by name in tests/vulture_whitelist.py):\n" + (
        "\n".join(dead)
    )


def test_the_dead_code_check_leaves_out_only_fields_of_records(tmp_path):
    """A record's annotated field is data; a constant, a plain class attribute or a function is not;
    what only uses the packages is not checked."""
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "m.py").write_text(
        "LIMIT = 3\n\n\nclass Record(BaseModel):\n    model_config = {}\n    start_s: float\n\n\ndef f():\n    pass\n"
    )
    found = [
        "corpus/m.py:1: unused variable 'LIMIT' (60% confidence)",
        "corpus/m.py:5: unused variable 'model_config' (60% confidence)",
        "corpus/m.py:6: unused variable 'start_s' (60% confidence)",
        "corpus/m.py:9: unused function 'f' (60% confidence)",
        "tests/conftest.py:1: unused function 'g' (60% confidence)",
    ]
    assert dead_code("\n".join(found), tmp_path) == [found[0], found[1], found[3]]


def _declared(extras: tuple[str, ...] = ("test", "similarity")) -> list[Requirement]:
    project = PYPROJECT["project"]
    reqs = [Requirement(r) for r in project["dependencies"]]
    for extra in extras:
        reqs += [Requirement(r) for r in project["optional-dependencies"][extra]]
    return reqs


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_package_is_declared():
    """A package the code imports comes from a declared dependency (or from one of their own
    dependencies that the code names on purpose, listed here with the one that brings it)."""
    brought_by = {
        "packaging": "streamlit",
        "tornado": "streamlit",
        "pydantic_core": "pydantic",
    }  # (pydantic pins its core exactly)
    declared = {_norm(r.name) for r in _declared()}
    distributions = {k: [_norm(d) for d in v] for k, v in md.packages_distributions().items()}
    missing = []
    for part in APP_CODE:
        paths = [ROOT / part] if part.endswith(".py") else sorted((ROOT / part).rglob("*.py"))
        for path in paths:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = []
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    names = [node.module]
                for name in names:
                    top = name.split(".")[0]
                    if top in sys.stdlib_module_names or top in FIRST_PARTY or top == "__future__":
                        continue
                    dists = distributions.get(top, [_norm(top)])
                    if not any(d in declared or brought_by.get(top) in declared for d in dists):
                        missing.append(f"{path.relative_to(ROOT)}: {name} ({', '.join(dists)})")
    assert not missing, "imported but not declared in pyproject.toml:\n" + "\n".join(sorted(set(missing)))


def test_every_dependency_has_an_upper_bound():
    unbounded = [str(r) for r in _declared() if not any(s.operator in ("<", "<=", "==", "~=") for s in r.specifier)]
    assert not unbounded, unbounded


def test_the_lock_pins_every_declared_dependency_within_its_range():
    pins = {}
    for line in (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines():
        m = re.match(r"([A-Za-z0-9_.\-]+)==([^\s;#]+)", line)
        if m:
            pins[_norm(m.group(1))] = m.group(2)
    wrong = []
    for req in _declared(extras=("test",)):
        pinned = pins.get(_norm(req.name))
        if pinned is None or not req.specifier.contains(pinned, prereleases=True):
            wrong.append(f"{req}: lock has {pinned}")
    assert not wrong, "requirements.lock is out of date (make lock):\n" + "\n".join(wrong)
    # What the suite runs on is what the lock says.
    installed = {_norm(d.metadata["Name"]): d.version for d in md.distributions()}
    differs = [f"{n}: lock {v}, installed {installed.get(n)}" for n, v in pins.items() if installed.get(n) != v]
    assert not differs, "the environment is not the lock's (make install):\n" + "\n".join(differs)
