"""The best of a column of scores: the top run and every run a paired test does not separate from it.

A column compares its top run with each other run, one paired test each; those tests are adjusted
together for multiplicity (Holm's step-down method, statsmodels' ``multipletests``), so the chance
that any of a column's marks wrongly leaves a run out stays at :data:`SEPARATED`. A run whose adjusted
p is below it is separated (not marked); runs tied with the top, or with no test, share the mark;
where every run would be marked, the column has no best.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping
from typing import TypeVar

from statsmodels.stats.multitest import multipletests

from corpus.values import Undefined

SEPARATED = 0.05  # the level of a column's tests, adjusted together (Holm)

K = TypeVar("K", bound=Hashable)


def holm(p_values: list[float]) -> list[float]:
    """Holm-adjusted p-values of one family of tests (statsmodels), in the order given."""
    if not p_values:
        return []
    return [float(p) for p in multipletests(p_values, alpha=SEPARATED, method="holm")[1]]


def marked_best(values: Mapping[K, float], paired_p: Callable[[K, K], float | Undefined]) -> list[K]:
    """The keys of ``values`` (one column's runs and scores) to mark best: the top one and every run
    whose paired test against it (``paired_p(top, other)``), Holm-adjusted over the column, is not
    below :data:`SEPARATED`; none when that is every run."""
    if len(values) < 2:
        return []
    top = max(values, key=lambda k: round(values[k], 6))
    marked = {top}
    tested: list[K] = []
    ps: list[float] = []
    for k in values:
        if k == top:
            continue
        if round(values[k], 6) == round(values[top], 6):
            marked.add(k)
            continue
        p = paired_p(top, k)
        if isinstance(p, int | float) and not math.isnan(p):
            tested.append(k)
            ps.append(float(p))
        else:  # no test (undefined): not separated
            marked.add(k)
    marked |= {k for k, p in zip(tested, holm(ps)) if not p < SEPARATED}
    return [k for k in values if k in marked] if len(marked) < len(values) else []
