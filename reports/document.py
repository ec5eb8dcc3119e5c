"""What a report is, whatever it reports on: its sections of lines, tables and figures, and the
provenance block that says what made it (:func:`provenance_block`). Each domain's report
(:mod:`reports.reproduction`) is made of these; :mod:`reports.html` writes one into a file."""

from __future__ import annotations

import platform
import sys
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime

import pandas as pd
import plotly.graph_objects as go

from analysis.format import package_version

PACKAGES = ("groundwork", "numpy", "pandas", "scipy", "statsmodels", "scikit-learn", "krippendorff", "plotly")


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
        **(extra or {}),
        **{f"package {p}": package_version(p) for p in PACKAGES},
    }
