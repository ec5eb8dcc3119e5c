"""An agreement report as readable text tables (``summary()``; what the command line prints)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from analysis.format import fmt, fmt_interval, fmt_share, p_clause

if TYPE_CHECKING:
    from analysis.agreement.report import Headline


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _statistics(head: Headline) -> list[str]:
    rows: list[tuple[str, str, str, str]] = []  # name, value, interval, note
    for e in head.statistics:
        if not e.defined:
            rows.append((e.statistic, fmt(e.estimate), "", ""))
            continue
        with_ci = bool(e.interval_method)
        rows.append((e.statistic, fmt(e.estimate), fmt_interval(e.interval) if with_ci else "", f"n = {e.n} {e.n_of}"))
        if with_ci:
            rows.append(("  standard error", fmt(e.se), "", e.interval_method))
    w = max(len(name) for name, *_ in rows)
    lines = [f"{'statistic'.ljust(w)}  {'value':>8}  {f'{head.fleiss.confidence:.0%} CI':<18}  note"]
    for name, value, ci, note in rows:
        if value.startswith("undefined"):
            lines.append(f"{name.ljust(w)}  {value}")
        else:
            lines.append(f"{name.ljust(w)}  {value:>8}  {ci:<18}  {note}".rstrip())
    return lines


def _per_category(head: Headline) -> list[str]:
    uses = getattr(head, "diagnostics", None)
    uses = uses.category_uses if uses is not None else {}
    per_cat = head.fleiss.per_category
    cw = max([len(c) for c in per_cat] + [8])
    lines = ["", "Per-category kappa (Fleiss 1971)", f"  {'category'.ljust(cw)}  {'kappa':>8}  {'uses':>6}"]
    lines += [f"  {c.ljust(cw)}  {fmt(k):>8}  {uses.get(c, 0):>6}" for c, k in per_cat.items()]
    return lines


def _details(rep) -> list[str]:
    lines = []
    if rep.pairwise.pairs:
        lines += ["", "Pairwise Cohen's kappa (items both coded)"]
        lines += [f"  {a} x {b}: {fmt(e.estimate)}  ({e.n} items)" for a, b, e in rep.pairwise.pairs]
    d = rep.diagnostics
    lines += ["", "Diagnostics"]
    if d.prevalence_category is not None:
        lines.append(f"  most common category: {d.prevalence_category} ({fmt_share(d.prevalence_share)} of labels)")
    test = d.coder_bias.test
    if test.defined:
        lines.append(f"  coder x category chi-square: {fmt(test.estimate, 2)}, df {test.dof}, {p_clause(test.p_value)}")
    else:
        lines.append(f"  coder x category chi-square: {fmt(test.estimate)}")
    lines += [f"  warning: {w}" for w in d.warnings] or ["  no warnings"]
    lines += ["", "Items with the most disagreement"]
    if rep.most_disagreed.empty:
        lines.append("  none: no item has two different labels")
    for row in rep.most_disagreed.itertuples(index=False):
        lines.append(f"  {row.item}: agreement {fmt(row.agreement, 2)}  {row.labels}")
    return lines


def summary(head: Headline, source: str = "") -> str:
    """The report (or headline) as text: counts, statistics with intervals, per-category kappa,
    pairs, diagnostics, the most disagreed items, and what computed each number."""
    n_cat = len(head.fleiss.per_category)
    coders = getattr(head, "coders", None)
    lines = [
        (f"{source}: " if source else "")
        + f"{head.n_items} items, {_plural(head.n_coders, 'coder', 'coders')}"
        + (f" ({', '.join(coders)})" if coders else "")
        + f", {head.n_labels} labels ({head.n_missing_labels} missing), {_plural(n_cat, 'category', 'categories')}",
        "",
        *_statistics(head),
        *_per_category(head),
    ]
    if hasattr(head, "diagnostics"):
        lines += _details(head)
    lines += ["", "Computed by"]
    lines += [f"  {e.statistic}: {e.provenance()}" for e in head.statistics]
    lines.append("  packages: " + ", ".join(f"{k} {v}" for k, v in head.packages().items()))
    return "\n".join(lines)
