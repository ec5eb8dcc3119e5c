"""The build: the code passes the linter, the formatter and the type checker configured in
pyproject.toml; every package the code imports is declared; requirements.lock pins every declared
dependency within its range (a fresh install takes exactly the lock: `make install`)."""

from __future__ import annotations

import ast
import importlib.metadata as md
import re
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


def test_the_type_checker_passes_on_the_domain_and_the_analysis():
    out = _run(str(BIN / "mypy"), "--no-incremental")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith("Success"), out.stdout


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
