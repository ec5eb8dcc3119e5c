"""Export layouts of a task's labels (the CSV they are written as: :mod:`corpus.csvsafe`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from corpus.store.base import StoreBase, User


def long_table(current: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """One row per current label, with the item's session, action and partition."""
    out = current.merge(items[["item_id", "session_id", "action_index", "partition"]], on="item_id", how="left")
    return out[
        [
            "item_id",
            "session_id",
            "action_index",
            "partition",
            "coder",
            "code",
            "note",
            "unsure",
            "seconds",
            "codebook_version",
            "source",
            "created_at",
        ]
    ]


def wide_table(current: pd.DataFrame, items: pd.DataFrame) -> pd.DataFrame:
    """Items x coders, one code per cell (blank where not coded): the layout R's irr expects."""
    wide = current.pivot(index="item_id", columns="coder", values="code")
    return wide.reindex(items["item_id"]).reset_index()


class Exports(StoreBase):
    long_table = staticmethod(long_table)
    wide_table = staticmethod(wide_table)

    if TYPE_CHECKING:  # the other parts of Store this one uses

        def labels(self, user: User, task_id: int) -> pd.DataFrame: ...
        def items(self, task_id: int) -> pd.DataFrame: ...

    def export_long(self, actor: User, task_id: int) -> pd.DataFrame:
        return long_table(self.labels(actor, task_id), self.items(task_id))

    def export_wide(self, actor: User, task_id: int) -> pd.DataFrame:
        return wide_table(self.labels(actor, task_id), self.items(task_id))
