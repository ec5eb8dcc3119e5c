"""The one rule that turns several coders' labels of an item into one label.

- The **majority label** of an item is its most frequent label when exactly one label is most
  frequent; a tie at the top (2-2, 1-1-1) gives the item no majority label, and it is left out.
  Every place that needs "the coders' label" of an item uses :func:`majority`: the analysis pages
  (labels of the dataset's coders), a model coder scored against the humans, gold accepted by
  consensus in a coding task, and the sample generator.
- A majority **reaches** a required share when ``k`` of ``n`` coders agree and ``k / n`` is at
  least the share, compared as exact fractions (:func:`reaches`): 2 of 3 reaches 2/3, 3 of 5
  reaches 3/5, and no rounding of 0.67 can exclude 2-of-3 by accident.

Pure pandas; nothing here touches the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import pandas as pd

UNANIMOUS = Fraction(1)


def as_share(value: Fraction | float | int | str) -> Fraction:
    """A required share as an exact fraction: ``"2/3"``, ``Fraction(2, 3)``, ``1``, ``0.6`` (read as
    its decimal text, so 0.6 is 3/5). Must lie in (0, 1]."""
    try:
        share = value if isinstance(value, Fraction) else Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"share: {value!r} is not a fraction such as 2/3 or a number such as 0.6") from None
    if not 0 < share <= 1:
        raise ValueError(f"share: {value!r} must be above 0 and at most 1")
    return share


def reaches(k: int, n: int, share: Fraction | float | str) -> bool:
    """Whether ``k`` agreeing coders out of ``n`` make at least ``share`` of them (exact)."""
    s = as_share(share)
    return n > 0 and k * s.denominator >= s.numerator * n


def describe(share: Fraction | float | str) -> str:
    """A share as people say it: "unanimous", "2/3", "3/5"."""
    s = as_share(share)
    return "unanimous" if s == UNANIMOUS else f"{s.numerator}/{s.denominator}"


def majority(
    long: pd.DataFrame,
    keys: Sequence[str] = ("session_id", "action_index"),
    *,
    label: str = "code",
    coder: str = "coder",
    exclude_coders: Sequence[str] = (),
) -> pd.DataFrame:
    """One row per item that has a majority label (see the module docstring).

    ``long`` holds one row per (item, coder) label; ``keys`` name the item columns. Coders in
    ``exclude_coders`` (e.g. model coders scored against the humans) do not vote; rows with an empty
    label do not count. Returns the key columns, ``label``, ``k`` (coders who gave it),
    ``n_coders`` (coders who labelled the item) and ``support`` (k / n_coders), in the order items
    first appear.
    """
    keys = list(keys)
    cols = [*keys, label, "k", "n_coders", "support"]
    df = long
    if exclude_coders:
        df = df[~df[coder].isin(list(exclude_coders))]
    df = df[df[label].notna() & (df[label].astype(str).str.strip() != "")]
    if df.empty:
        return pd.DataFrame(columns=cols)
    order = df[keys].drop_duplicates().reset_index(drop=True).reset_index().rename(columns={"index": "_order"})
    counts = df.groupby([*keys, label], sort=False, observed=True).size().rename("k").reset_index()
    counts["n_coders"] = counts.groupby(keys, sort=False, observed=True)["k"].transform("sum")
    top = counts.groupby(keys, sort=False, observed=True)["k"].transform("max")
    leaders = counts[counts["k"] == top]
    unique = leaders.groupby(keys, sort=False, observed=True)[label].transform("size") == 1
    best = leaders[unique].merge(order, on=keys).sort_values("_order", kind="stable")
    best = best.assign(support=best["k"] / best["n_coders"])
    return best[cols].reset_index(drop=True)
