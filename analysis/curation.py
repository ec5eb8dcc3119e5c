"""How far the lead's curation of a coding task has come: items with gold among the items the human
coders labelled (what the Adjudicate page's bar shows and what revealing a task with open items
asks to confirm), and the order in which the open items are adjudicated (:func:`adjudication_queue`).

Pure: the task's current labels and gold in, counts out; nothing here imports streamlit or the store.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis import agreement as ag
from corpus.values import Undefined


@dataclass(frozen=True)
class Curation:
    """Counts of one task: its items, the items a human coder labelled, and those of them with gold."""

    n_items: int
    n_labelled: int
    n_gold: int

    @property
    def n_open(self) -> int:
        """Labelled items still without gold."""
        return self.n_labelled - self.n_gold

    @property
    def share(self) -> float | Undefined:
        """Share of the labelled items that have gold."""
        if self.n_labelled == 0:
            return Undefined("no item has a label yet")
        return self.n_gold / self.n_labelled

    def sentence(self) -> str:
        """E.g. "14 of 23 labelled items have gold (9 open); 40 items in the task"."""
        open_ = f" ({self.n_open} open)" if self.n_open else ""
        return f"{self.n_gold} of {self.n_labelled} labelled items have gold{open_}; {self.n_items} items in the task"

    def reveal_warning(self) -> str | None:
        """Why revealing now needs a confirmation, or None when every labelled item has gold."""
        if self.n_labelled == 0:
            return "No item has a label yet: revealing closes the task with no gold at all."
        if self.n_open == 0:
            return None
        verb = "has" if self.n_open == 1 else "have"
        return (
            f"{self.n_open} of {self.n_labelled} labelled items {verb} no gold yet. Revealing closes the task: "
            f"no label or gold can be added, and the analysis pages will use the gold of {self.n_gold} "
            f"item{'s' if self.n_gold != 1 else ''} only."
        )


def curation(labels: pd.DataFrame, gold: pd.DataFrame, n_items: int) -> Curation:
    """Counts from a task's current ``labels`` (columns item_id, coder_kind) and ``gold`` (item_id):
    labelled means labelled by a human coder, as in the adjudication queue."""
    humans = labels[labels["coder_kind"] == "human"] if "coder_kind" in labels.columns else labels
    labelled = set(humans["item_id"])
    with_gold = labelled & set(gold["item_id"]) if len(gold) else set()
    return Curation(n_items=int(n_items), n_labelled=len(labelled), n_gold=len(with_gold))


def adjudication_queue(labels: pd.DataFrame, gold: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Every labelled item (of the current ``labels``), least agreement among the human coders
    first (items with one label last), with its gold code and provenance if it has gold."""
    humans = labels[labels["coder_kind"] == "human"]
    q = ag.item_agreement(ag.LabelTable(humans, item="item_id", label="code"))
    q = q.merge(gold[["item_id", "code", "provenance"]].rename(columns={"code": "gold"}), on="item_id", how="left")
    q = q.merge(items[["item_id", "position"]], on="item_id", how="left")
    q["single"] = q["agreement"].isna()
    return q.sort_values(["single", "agreement", "position"], kind="stable").reset_index(drop=True)
