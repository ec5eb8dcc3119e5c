"""One coder (e.g. a model) against gold labels: Cohen's kappa, percent agreement, confusions.

Gold is another coder, given labels (item key -> label), or the majority of the other coders by
the one rule of :mod:`corpus.consensus` (an item whose top label is tied has no majority and is
left out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from analysis.agreement.pairwise import cohen, cohen_kappa_codes
from analysis.agreement.table import LabelTable, check_matrix_size, is_missing, item_keys
from analysis.format import to_json
from analysis.results import OURS, Estimate
from corpus.consensus import majority


@dataclass(frozen=True)
class GoldComparison:
    coder: str
    gold: str  # what the gold labels are: a coder, "majority of ...", "given labels"
    partition: str | None
    n_unmatched: int  # the coder's labels on items without a gold label
    cohen: Estimate
    percent_agreement: Estimate
    confusion: pd.DataFrame  # label, gold, count: the non-zero cells

    def confusion_matrix(self) -> pd.DataFrame:
        """Categories x categories counts (rows: the coder's label, columns: gold)."""
        names = sorted(set(self.confusion["label"]) | set(self.confusion["gold"]))
        check_matrix_size(len(names), what="the confusion matrix")
        out = self.confusion.pivot_table(index="label", columns="gold", values="count", aggfunc="sum", fill_value=0)
        out = out.reindex(index=names, columns=names, fill_value=0).astype(int)
        return out.rename_axis(index=self.coder, columns="gold")

    def summary(self) -> str:
        where = f" on partition {self.partition}" if self.partition else ""
        return "\n".join(
            [
                f"{self.coder} against {self.gold}{where} ({self.n_unmatched} of its labels had no gold)",
                self.cohen.summary(),
                self.percent_agreement.summary(),
            ]
        )

    def to_frame(self) -> pd.DataFrame:
        return pd.concat([self.cohen.to_frame(), self.percent_agreement.to_frame()], ignore_index=True)

    def to_json(self) -> dict[str, Any]:
        return {
            "coder": self.coder,
            "gold": self.gold,
            "partition": self.partition,
            "n_unmatched": self.n_unmatched,
            "cohen_kappa": self.cohen.to_json(),
            "percent_agreement": self.percent_agreement.to_json(),
            "confusion": to_json(self.confusion),
        }


def _one_label_per_item(keys: pd.Series, labels: pd.Series) -> pd.Series:
    s = pd.Series(labels.to_numpy(), index=keys.to_numpy())
    return s[~s.index.duplicated(keep="last")]


def coder_vs_gold(
    table: LabelTable,
    coder: str,
    gold: str | Mapping[Any, Any] | pd.Series = "majority",
    partition: str | None = None,
    *,
    partition_col: str = "partition",
    exclude_coders: Sequence[str] = (),
) -> GoldComparison:
    """Cohen's kappa of one coder against gold labels, on one partition.

    ``gold`` is another coder's name, a mapping item key -> label, or ``"majority"``: per item the
    label most of the other coders (not ``coder`` and not ``exclude_coders``) gave.
    ``partition`` keeps only rows whose ``partition_col`` equals it.
    """
    df = table.frame
    if partition is not None:
        df = df[table.column(partition_col) == partition]
    label_col, coder_col = table.label_col, table.coder_col
    df = df[~is_missing(df[label_col])]
    keys = item_keys(df, table.item_cols)
    where = f" in partition {partition!r}" if partition else ""
    mine = (df[coder_col] == coder).to_numpy()
    if not mine.any():
        raise KeyError(f"coder {coder!r} has no labels{where}")
    pred = _one_label_per_item(keys[mine], df.loc[mine, label_col])
    if isinstance(gold, str) and gold == "majority":
        others = ~df[coder_col].isin([coder, *exclude_coders]).to_numpy()
        votes = pd.DataFrame(
            {
                "item": keys[others].to_numpy(),
                "coder": df.loc[others, coder_col].to_numpy(),
                "label": df.loc[others, label_col].to_numpy(),
            }
        )
        best = majority(votes, keys=["item"], label="label")
        truth = pd.Series(best["label"].to_numpy(), index=best["item"].to_numpy())
        gold_name = "majority of " + (", ".join(map(str, sorted(df.loc[others, coder_col].unique()))) or "no coder")
    elif isinstance(gold, str):
        theirs = (df[coder_col] == gold).to_numpy()
        if not theirs.any():
            raise KeyError(f"gold coder {gold!r} has no labels{where}")
        truth, gold_name = _one_label_per_item(keys[theirs], df.loc[theirs, label_col]), gold
    else:
        truth, gold_name = pd.Series(gold), "given labels"

    common = pred.index.intersection(truth.index)
    a, b = pred.loc[common], truth.loc[common]
    codes, cats = pd.factorize(pd.concat([a, b], ignore_index=True).astype(str), sort=True)
    ia, ib = codes[: len(a)], codes[len(a) :]
    kappa, n = cohen_kappa_codes(ia, ib, len(cats))
    kappa_est = cohen(
        kappa,
        n,
        "cohen_kappa",
        f"Cohen's kappa, {coder} against {gold_name}",
        "Cohen (1960) kappa of the coder's labels against the gold labels",
    )
    base: dict[str, Any] = dict(
        key="percent_agreement",
        statistic="Percent agreement with gold",
        n=n,
        n_of="items with both labels",
        method="share of items where the coder's label equals gold",
        computed_by="analysis.agreement.coder_vs_gold",
        package=OURS,
    )
    pa = (
        Estimate(**base, estimate=float((ia == ib).mean()))
        if n
        else Estimate.undefined("no item has both a label and a gold label", **base)
    )
    cells = pd.DataFrame({"label": np.asarray(cats)[ia], "gold": np.asarray(cats)[ib]})
    confusion = cells.groupby(["label", "gold"], sort=True).size().rename("count").reset_index()
    return GoldComparison(str(coder), gold_name, partition, int(len(pred) - n), kappa_est, pa, confusion)
