"""A :class:`reports.reproduction.Reproduction` as one self-contained HTML file (it opens offline:
no script, no style sheet, font or image fetched; figures are SVG inside the page) and a zip of its
tables as CSV.

Every text from the data (dataset, coder and session names, codes) is escaped; the figures are drawn
by the screens' own figure builders, restyled for print and rendered by Plotly's kaleido
(:func:`components.chart.figure_bytes`). The tables are written by :func:`corpus.csvsafe.to_csv`, so
two builds on the same inputs give byte-identical CSV files.
"""

from __future__ import annotations

import html
import io
import zipfile
from pathlib import Path

import pandas as pd

from analysis.format import csv_cells
from corpus.csvsafe import to_csv
from reports.figures import svg
from reports.reproduction import Figure, Reproduction, Table

STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; max-width: 1480px; margin: 2rem auto; padding: 0 1.5rem;
       color: #1f2328; line-height: 1.45; }
h1 { font-size: 1.8rem; } h2 { font-size: 1.35rem; margin-top: 2.2rem; border-bottom: 1px solid #ccc; }
.synthetic { background: #eef5ff; border: 1px solid #9cc1ee; padding: .6rem .9rem; border-radius: 6px; }
table { border-collapse: collapse; font-size: .82rem; margin: .6rem 0 1.2rem; }
th, td { border: 1px solid #d0d7de; padding: .25rem .5rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
figure { margin: 1rem 0 1.6rem; } figcaption { font-size: .9rem; color: #444; }
figure svg { max-width: 100%; height: auto; }
pre { font-family: Menlo, Consolas, 'DejaVu Sans Mono', monospace; font-size: .82rem; line-height: 1.35;
      background: #f6f8fa; border: 1px solid #d0d7de; padding: .5rem .75rem; overflow-x: auto; }
@media print { pre { white-space: pre-wrap; } }
"""


def _svg(report: Reproduction, fig: Figure) -> str:
    ahead = report.drawn.get(fig.name)
    return ahead.result() if ahead is not None else svg(fig.figure, fig.columns)


def _table_html(t: Table) -> str:
    frame = t.view if t.view is not None else csv_cells(t.frame) if not t.index else t.frame
    return frame.to_html(index=t.index and t.view is None, escape=True, border=0, na_rep="")


def _blocks(text: str) -> list[list[str]]:
    """The text's runs of non-blank lines."""
    blocks: list[list[str]] = [[]]
    for row in text.split("\n"):
        if row.strip():
            blocks[-1].append(row.rstrip())
        elif blocks[-1]:
            blocks.append([])
    return [b for b in blocks if b]


def _text(line: str) -> list[str]:
    """A section's line as HTML. A text of several lines (aligned tables, as the command line prints
    them) is cut at its blank lines: a block that is one plain sentence becomes a paragraph, any other
    a preformatted block, so that its columns stay aligned."""
    esc = html.escape
    several = "\n" in line.strip()
    out = []
    for rows in _blocks(line):
        aligned = several and (len(rows) > 1 or rows[0].startswith(" ") or "  " in rows[0])
        out.append("<pre>" + esc("\n".join(rows)) + "</pre>" if aligned else f"<p>{esc(rows[0])}</p>")
    return out


def render(report: Reproduction) -> str:
    """The report as one HTML page."""
    esc = html.escape
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(report.title)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{esc(report.title)}</h1>",
    ]
    if report.synthetic:
        out.append(
            '<p class="synthetic">This dataset is synthetic: generated sessions, not recordings of people. Its '
            "numbers show what the analyses compute, not findings.</p>"
        )
    for section in report.sections:
        out.append(f"<h2>{esc(section.title)}</h2>")
        out += [block for line in section.lines for block in _text(line)]
        for fig in section.figures:
            out.append(
                f"<figure>{_svg(report, fig)}<figcaption>{esc(fig.title)} (numbers: {esc(fig.name)}_data.csv)</figcaption></figure>"
            )
        for t in section.tables:
            if t.view is not None and t.view.empty:  # in the zip only
                out.append(f"<p>{esc(t.title)}: {esc(t.name)}.csv in the tables' zip.</p>")
                continue
            out.append(f"<h3>{esc(t.title)}</h3>{_table_html(t)}")
    out.append("<h2>Provenance</h2><table>")
    out += [f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in report.provenance.items()]
    out.append("</table></body></html>")
    return "\n".join(out)


def table_csv(t: Table) -> str:
    frame = t.frame.reset_index() if t.index else t.frame
    return to_csv(frame)


def tables_zip(report: Reproduction) -> bytes:
    """Every table as CSV (``NAME.csv``), in a zip whose entries carry a fixed date, so that the same
    report gives the same bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for t in report.tables():
            info = zipfile.ZipInfo(f"{t.name}.csv", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, table_csv(t))
    return buf.getvalue()


def files(report: Reproduction) -> tuple[bytes, bytes]:
    """(the HTML page, the zip of its tables) as bytes."""
    return render(report).encode("utf-8"), tables_zip(report)


def write(report: Reproduction, out: Path) -> tuple[Path, Path]:
    """``OUT.html`` and ``OUT_tables.zip`` (``out`` without its suffix), written whole or not at all."""
    out = Path(out)
    stem = out.with_suffix("") if out.suffix in (".html", ".zip") else out
    stem.parent.mkdir(parents=True, exist_ok=True)
    page, tables = files(report)
    html_path, zip_path = stem.with_name(stem.name + ".html"), stem.with_name(stem.name + "_tables.zip")
    for path, data in ((html_path, page), (zip_path, tables)):
        tmp = path.with_name(path.name + ".part")
        tmp.write_bytes(data)
        tmp.replace(path)
    return html_path, zip_path


__all__ = ["files", "render", "table_csv", "tables_zip", "write", "pd"]
