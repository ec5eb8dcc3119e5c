"""What a report is, whatever it reports on: its sections of lines, tables and figures, and the
provenance block that says what made it (:func:`provenance_block`). Each domain's report
(:mod:`reports.reproduction`) is made of these; :mod:`reports.html` writes one into a file."""

from __future__ import annotations

import functools
import hashlib
import platform
import re
import subprocess
import sys
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

from analysis.format import package_version
from corpus.codebook import bundled
from corpus.loading.dataset_cache import add_sources
from corpus.schema import CODING_SCHEMES

# Every package whose code computes or draws a number of a report (rouge-score: ROUGE-L of the leaderboards).
PACKAGES = (
    "groundwork",
    "numpy",
    "pandas",
    "scipy",
    "statsmodels",
    "scikit-learn",
    "krippendorff",
    "rouge-score",
    "plotly",
)


@dataclass(frozen=True)
class Table:
    name: str  # its file's name in the zip, without ".csv"
    title: str
    frame: pd.DataFrame
    index: bool = False  # whether the row labels are part of the table (Tables 1 and 8)
    view: pd.DataFrame | None = None  # what the page shows, when not the whole table (the CSV has it all)


@dataclass(frozen=True)
class Figure:
    name: str
    title: str
    figure: go.Figure
    data: pd.DataFrame  # the numbers behind it, one row per bar or point
    columns: int = 1  # one or two paper columns wide


@dataclass(frozen=True)
class Section:
    title: str
    lines: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()
    figures: tuple[Figure, ...] = ()


CREATED = "created"  # the provenance entry of the moment a report was made


@dataclass(frozen=True)
class Reproduction:
    title: str
    synthetic: bool
    sections: tuple[Section, ...]
    provenance: dict[str, str] = field(default_factory=dict)
    drawn: dict[str, Future[str]] = field(default_factory=dict, compare=False)  # figures drawn ahead, by name

    def tables(self) -> list[Table]:
        """Every table, and every figure's numbers as a table, in the report's order."""
        out: list[Table] = []
        for s in self.sections:
            out += list(s.tables)
            out += [Table(f"{f.name}_data", f"Numbers behind: {f.title}", f.data) for f in s.figures]
        # The page says when it was made; the tables leave the moment out, so that two builds on the
        # same inputs give the same bytes whenever they run.
        kept = [(k, v) for k, v in self.provenance.items() if k != CREATED]
        out.append(Table("provenance", "Provenance", pd.DataFrame(kept, columns=["what", "value"])))
        return out


ROOT = Path(__file__).resolve().parent.parent
CODE_DIRS = ("analysis", "components", "corpus", "pages", "reports", "services")


@functools.cache
def code_revision() -> str:
    """The code that made a report: the commit of the checkout it runs from (and whether files
    differ from it), else the package's version and a content hash of its code (an installed copy,
    or a checkout with no git)."""
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--", *CODE_DIRS, "app.py"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return f"groundwork {package_version('groundwork')}, code sha256 {code_hash()[:16]}"
    return f"git {head}" + (f" with uncommitted changes (code sha256 {code_hash()[:16]})" if changed else "")


def code_hash() -> str:
    """A digest of every Python module of the app's layers (paths and bytes)."""
    h = hashlib.sha256()
    add_sources(h, ROOT, CODE_DIRS)
    return h.hexdigest()


def file_part(label: str) -> str:
    """A score group's label as part of a file name: "ROUGE-L (message)" -> "rouge_l_message"."""
    return re.sub(r"[^a-z0-9]+", "_", label.lower()).strip("_")


def codebooks_used(schemes: set[str]) -> str:
    """Each coding scheme of the labels with its codebook's name, version and codes (a scheme the app
    ships no codebook for: its codes as the schema lists them)."""
    books = bundled()
    parts = []
    for k, codes in CODING_SCHEMES.items():
        if k not in schemes:
            continue
        book = books.get(k)
        parts.append(
            f"{k}: {book.name} v{book.version} ({len(book.code_ids)} codes)"
            if book is not None
            else f"{k} ({len(codes)} codes, no codebook file)"
        )
    return "; ".join(parts) or "none"


def provenance_block(
    name: str,
    content_hash: str,
    synthetic: bool,
    command: str,
    when: datetime | None,
    *,
    choices: dict[str, str],
    seeds: str,
    extra: dict[str, str] | None = None,
) -> dict[str, str]:
    """What made a report: the data, the choices made for it, the seeds, the software."""
    return {
        "dataset": name,
        "dataset content hash": content_hash,
        "synthetic": "yes" if synthetic else "no",
        **choices,
        "seeds": seeds,
        CREATED: (when or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC"),
        "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
        "regenerate with": command,
        "code revision": code_revision(),
        **(extra or {}),
        **{f"package {p}": package_version(p) for p in PACKAGES},
    }
