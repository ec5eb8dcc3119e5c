"""The agreement report: every statistic and diagnostic of a label table as one object.

- :func:`panel` returns a :class:`Headline`: the counts and the five headline statistics (Fleiss'
  kappa, Krippendorff's alpha, percent agreement, mean pairwise Cohen's kappa, Gwet's AC1), no
  per-item information (what may be shown to a coder).
- :func:`report` returns an :class:`AgreementReport`: the headline with intervals, plus pairwise
  kappas, diagnostics, coincidences and the most disagreed items.

Both have ``summary()`` (text tables), ``to_frame()`` (one row per statistic, with n, interval,
procedure and what computed it) and ``to_json()``; the command line, the exports, the Agreement
page and the live panel all read these objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

import pandas as pd

from analysis.agreement.alpha import AlphaResult, coincidences, krippendorff_alpha
from analysis.agreement.diagnostics import Diagnostics, diagnostics, most_disagreed
from analysis.agreement.fleiss import DEFAULT_BOOTSTRAP, FleissResult, fleiss
from analysis.agreement.pairwise import PairwiseCohen, fleiss_generalized, gwet_ac1, pairwise_cohen, percent_agreement
from analysis.agreement.table import LabelTable, LabelTableError
from analysis.format import package_version, to_json
from analysis.results import Estimate

# The live panel shows no statistic resting on fewer complete items than this.
PANEL_MIN_ITEMS = 10

COUNTS = (
    ("n_items", "items with at least one label"),
    ("n_coders", "coders"),
    ("n_labels", "labels"),
    ("n_missing_labels", "rows with an empty label (missing, not a category)"),
)


@dataclass(frozen=True, kw_only=True)
class Headline:
    """The counts and the five headline statistics of a label table."""

    n_items: int
    n_coders: int
    n_labels: int
    n_missing_labels: int
    n_items_complete: int
    n_items_pairable: int  # items with two or more labels
    fleiss: FleissResult
    alpha: AlphaResult
    percent_agreement: Estimate
    mean_cohen: Estimate
    ac1: Estimate

    @property
    def statistics(self) -> tuple[Estimate, ...]:
        return self.fleiss, self.alpha, self.percent_agreement, self.mean_cohen, self.ac1

    def at_least(
        self, minimum: int, generalized: FleissResult | None = None, pairs: PairwiseCohen | None = None
    ) -> Headline:
        """The same numbers, each undefined when it rests on fewer than ``minimum`` items: Fleiss'
        kappa counts the items labelled by every coder ("too few items (n complete)"), the others
        the items with two or more labels, which is all they need. Where too few items are labelled
        by every coder (many coders, a few per item), ``generalized`` (Fleiss' kappa for a varying
        number of coders per item, :func:`analysis.agreement.fleiss_generalized`) takes Fleiss'
        place once it rests on ``minimum`` items; it names itself. Given the coder ``pairs``, the mean
        pairwise Cohen's kappa is taken over the pairs that share ``minimum`` items or more."""
        kappa = self.fleiss.at_least(self.n_items_complete, minimum)
        if self.n_items_complete < minimum and generalized is not None and generalized.n >= minimum:
            kappa = generalized
        gated = {
            f: getattr(self, f).at_least(self.n_items_pairable, minimum, "with two or more labels")
            for f in ("alpha", "percent_agreement", "mean_cohen", "ac1")
        }
        if pairs is not None and self.n_items_pairable >= minimum:
            gated["mean_cohen"] = pairs.mean_over(minimum)
        return replace(self, fleiss=kappa, **gated)

    def count_rows(self) -> list[dict[str, Any]]:
        return [{"statistic": key, "estimate": getattr(self, key), "note": note} for key, note in COUNTS]

    def statistics_rows(self) -> list[Estimate]:
        """Every statistic as an estimate: the headline, then the per-category kappas."""
        return [*self.statistics, *self.fleiss.category_estimates()]

    def to_frame(self) -> pd.DataFrame:
        """One row per count and statistic: estimate, n, interval, procedure, what computed it."""
        rows = self.count_rows() + [e.row() for e in self.statistics_rows()]
        return pd.DataFrame(rows, columns=list(dict.fromkeys(c for r in rows for c in r)), dtype=object)

    def packages(self) -> dict[str, str]:
        """The installed packages that computed the numbers, with their versions."""
        names = {e.package for e in self.statistics_rows()}
        return {name: package_version(name) for name in sorted(names | {"numpy", "pandas"})}

    def summary(self, source: str = "") -> str:
        from analysis.agreement.text import summary

        return summary(self, source)

    def to_json(self) -> dict[str, Any]:
        out = {key: getattr(self, key) for key, _ in COUNTS}
        out["n_items_complete"] = self.n_items_complete
        out["n_items_pairable"] = self.n_items_pairable
        out["statistics"] = {e.key: e.to_json() for e in self.statistics}
        out["packages"] = self.packages()
        return to_json(out)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Headline:
        """The headline read back from :meth:`Headline.to_json` (e.g. a snapshot shared with coders):
        counts and the five statistics with their intervals and provenance."""
        stats = [Estimate.from_json(e) for e in data["statistics"].values()]
        names = ("fleiss", "alpha", "percent_agreement", "mean_cohen", "ac1")
        if len(stats) != len(names):
            raise ValueError(f"statistics: expected {len(names)} statistics, got {len(stats)}")
        counts: dict[str, Any] = {key: int(data[key]) for key in (*(k for k, _ in COUNTS), "n_items_complete")}
        # A snapshot written before the count was kept: the complete items are pairable ones.
        counts["n_items_pairable"] = int(data.get("n_items_pairable", counts["n_items_complete"]))
        statistics: dict[str, Any] = dict(zip(names, stats))
        return Headline(**counts, **statistics)


@dataclass(frozen=True, kw_only=True)
class AgreementReport(Headline):
    """The headline with intervals, plus pairwise kappas, diagnostics, coincidences and the
    most disagreed items."""

    coders: list[str]
    categories: list[str]
    level: str
    n_boot: int
    seed: int | None
    excluded_coders: list[str]
    pairwise: PairwiseCohen
    diagnostics: Diagnostics
    coincidences: pd.DataFrame  # category_a, category_b, value: the non-zero cells
    most_disagreed: pd.DataFrame

    def statistics_rows(self) -> list[Estimate]:
        return [*super().statistics_rows(), *(e for _, _, e in self.pairwise.pairs), self.diagnostics.coder_bias.test]

    def coincidence_frame(self) -> pd.DataFrame:
        """The coincidence matrix as a categories x categories table (for a heatmap)."""
        from analysis.agreement.table import check_matrix_size

        check_matrix_size(len(self.categories), what="the coincidence matrix")
        wide = self.coincidences.pivot_table(index="category_a", columns="category_b", values="value", aggfunc="sum")
        return wide.reindex(index=self.categories, columns=self.categories).fillna(0.0)

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        for f in fields(AgreementReport):
            if f.name not in ("fleiss", "alpha", "percent_agreement", "mean_cohen", "ac1") and f.name not in out:
                out[f.name] = to_json(getattr(self, f.name))
        out["pairwise_cohen_kappa"] = out.pop("pairwise")
        return out


def panel(
    table: LabelTable, *, level: str = "nominal", min_items: int = 0, scale: Sequence[Any] | None = None
) -> Headline:
    """The headline numbers without any bootstrap; each undefined below ``min_items`` items
    (:meth:`Headline.at_least`; the live panel passes :data:`PANEL_MIN_ITEMS`), Fleiss' kappa
    generalized to varying coders per item where too few items are coded by every coder; AC1's Q
    counts the codebook's codes ``scale`` when given."""
    pairs = pairwise_cohen(table)
    head = Headline(**_headline(table, level, 0, 0, pairs, scale))
    return head.at_least(min_items, generalized_kappa(table, min_items, n_boot=0), pairs if min_items else None)


def generalized_kappa(table: LabelTable, minimum: int, *, n_boot: int = 0) -> FleissResult | None:
    """Fleiss' kappa generalized to varying coders per item, when it is the one to show: fewer than
    ``minimum`` items coded by every coder (else None, and nothing is computed)."""
    return fleiss_generalized(table, n_boot=n_boot) if table.n_complete < minimum else None


def _headline(
    table: LabelTable,
    level: str,
    n_boot: int,
    seed: int | None,
    pairs: PairwiseCohen,
    scale: Sequence[Any] | None = None,
) -> dict[str, Any]:
    return dict(
        n_items=table.n_items,
        n_coders=table.n_coders,
        n_labels=table.n_labels,
        n_missing_labels=table.n_missing,
        n_items_complete=table.n_complete,
        n_items_pairable=int((table.n_per_item >= 2).sum()),
        fleiss=fleiss(table, n_boot=n_boot, seed=seed),
        alpha=krippendorff_alpha(table, level=level, n_boot=n_boot, seed=seed),
        percent_agreement=percent_agreement(table),
        mean_cohen=pairs.mean,
        ac1=gwet_ac1(table, scale),
    )


def report(
    table: LabelTable,
    *,
    level: str = "nominal",
    n_boot: int = DEFAULT_BOOTSTRAP,
    seed: int | None = 0,
    exclude_coders: Sequence[str] = (),
    top_disagreements: int = 10,
    scale: Sequence[Any] | None = None,
) -> AgreementReport:
    """Every agreement statistic and diagnostic of ``table`` (without the coders in
    ``exclude_coders``), with bootstrap intervals of ``n_boot`` resamples; AC1's Q counts the
    codebook's codes ``scale`` when given (:func:`analysis.agreement.pairwise.ac1_categories`)."""
    if exclude_coders:
        table = table.subset(coders=[c for c in table.coders if c not in set(exclude_coders)])
        table = table.subset(items=table.n_per_item > 0)
    if level == "ordinal" and not table.categories_given and not pd.api.types.is_numeric_dtype(table.categories.dtype):
        # Word labels have no order of their own: alphabetical order would give another alpha.
        raise LabelTableError(
            "ordinal alpha needs the categories' order, low to high, for labels that are words "
            f"({', '.join(map(str, table.category_names()[:6]))}{', ...' if len(table.categories) > 6 else ''}): "
            "give the order, or choose the nominal level",
            table.label_col,
        )
    pairs = pairwise_cohen(table)
    head = _headline(table, level, n_boot, seed, pairs, scale)
    diag = diagnostics(table, head["fleiss"].estimate, head["percent_agreement"].estimate)
    return AgreementReport(
        **head,
        coders=[str(c) for c in table.coders],
        categories=table.category_names(),
        level=level,
        n_boot=n_boot,
        seed=seed,
        excluded_coders=list(exclude_coders),
        pairwise=pairs,
        diagnostics=diag,
        coincidences=coincidences(table),
        most_disagreed=most_disagreed(table, top_disagreements),
    )
