"""Every score of every run, per condition and role (and over all of them): the long table the
leaderboard, the command line and the exports are cut from.

Keys: ``run``, ``task`` (``next_action`` / ``mental_model``), ``metric`` (``accuracy``,
``macro_recall``, ``macro_f1``, ``kappa``, ``rouge_l``, ``similarity``, ``drawing``),
``dimension`` (``team_goal``, ``partner_intent``, ``self_reasoning``, ``action_type``,
``rationale``, ``message``, ``drawing``), ``condition`` and ``role`` (each also ``all``).
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import numpy as np
import pandas as pd

from analysis.compare import text
from analysis.compare.items import ACTION_TYPE, CATEGORIES, TEXTS, Parts, RunItems, add_rouge
from analysis.compare.metrics import (
    CATEGORY_METRICS,
    ITEMS,
    NAMES,
    category_estimates,
    confusion,
    mean_estimate,
    ratio_estimate,
)
from analysis.results import Estimate, EstimateTable
from corpus import schema
from corpus.predictions import DIMENSIONS
from corpus.server.processes import processors

ALL = "all"
CONDITIONS = (*schema.CONDITIONS, ALL)
ROLES = (*schema.ROLES, ALL)
KEYS = ("run", "task", "metric", "dimension", "condition", "role")
DRAWING_METHOD = "mean over predicted ink cells of 1 / 2/3 / 1/3 / 0 by Chebyshev distance to the route (Sec. 4.2)"


def scopes(df: pd.DataFrame, margins: bool = True) -> Iterator[tuple[str, str, np.ndarray]]:
    """(condition, role, row mask) for every condition x role, each also over all (the margins:
    left out with ``margins=False``)."""
    everything = np.ones(len(df), bool)
    by_condition = {c: _equals(df["condition"], c) for c in schema.CONDITIONS}
    by_role = {r: _equals(df["role"], r) for r in schema.ROLES}
    for c in (*(c for c in schema.CONDITIONS if by_condition[c].any()), *((ALL,) if margins else ())):
        mc = everything if c == ALL else by_condition[c]
        for r in ROLES if margins else schema.ROLES:
            yield c, r, mc & (everything if r == ALL else by_role[r])


def _equals(column: pd.Series, value: str) -> np.ndarray:
    """Where ``column`` holds ``value`` (compared as the column stores it: no copy as text)."""
    return (column == value).to_numpy(dtype=bool, na_value=False)


TASK_DIMENSIONS = {"mental_model": DIMENSIONS, "next_action": (ACTION_TYPE,)}


def _category_rows(
    parts: Parts, run_ids: list[str], tasks: tuple[str, ...] = tuple(TASK_DIMENSIONS), margins: bool = True
):
    for run in run_ids:
        for task, dim in ((t, d) for t in tasks for d in TASK_DIMENSIONS[t]):
            df = parts.get((run, dim))
            if df is None or df.empty:
                continue
            t, p, k = df["t_code"].to_numpy(), df["p_code"].to_numpy(), len(CATEGORIES[dim])
            for c, r, m in scopes(df, margins):
                for metric, est in category_estimates(confusion(t[m], p[m], k)).items():
                    yield {"run": run, "task": task, "metric": metric, "dimension": dim, "condition": c, "role": r}, est


def _text_rows(df: pd.DataFrame, run: str, task: str, dim: str, ok: str, sim_missing: str | None, margins: bool):
    rouge, sim = f"rouge_{dim}", f"sim_{dim}"
    for c, r, m in scopes(df, margins):
        key = {"run": run, "task": task, "dimension": dim, "condition": c, "role": r}
        sel = m & df[ok].to_numpy()
        yield (
            {**key, "metric": "rouge_l"},
            mean_estimate(
                "rouge_l",
                df.loc[sel, rouge].to_numpy(),
                text.ROUGE_METHOD,
                "analysis.compare.text.rouge_l",
                "rouge-score",
            ),
        )
        if sim_missing is not None:
            yield (
                {**key, "metric": "similarity"},
                Estimate.undefined(
                    sim_missing,
                    key="similarity",
                    statistic=NAMES["similarity"],
                    n=int(sel.sum()),
                    n_of=ITEMS,
                    method=text.SBERT_METHOD,
                    computed_by="analysis.compare.text.sbert_similarity",
                    package=text.SBERT_PACKAGE,
                ),
            )
        else:
            yield (
                {**key, "metric": "similarity"},
                mean_estimate(
                    "similarity",
                    df.loc[sel, sim].to_numpy(),
                    text.SBERT_METHOD,
                    "analysis.compare.text.sbert_similarity",
                    text.SBERT_PACKAGE,
                ),
            )


def _drawing_rows(it: RunItems, margins: bool):
    na = it.na
    drawn = na["draw_score"].notna().to_numpy()
    score, cells = na["draw_score"].to_numpy(), na["draw_cells"].to_numpy()
    # Only the Follower draws: a condition's Follower rows and all its rows are the same drawings,
    # and their bootstrap (the slowest part of a large comparison) is run once, and kept with the
    # run's items (a table without the margins and one with them share it).
    for c, r, m in scopes(na, margins):
        sel = m & drawn
        est = it.memo.once(
            ("drawing", np.packbits(sel).tobytes()),
            partial(
                ratio_estimate,
                "drawing",
                score[sel],
                cells[sel],
                DRAWING_METHOD,
                "analysis.compare.metrics.ratio_estimate (cell scores: corpus.metrics)",
            ),
        )
        yield (
            {
                "run": it.run_id,
                "task": "next_action",
                "metric": "drawing",
                "dimension": "drawing",
                "condition": c,
                "role": r,
            },
            est,
        )


def _item_rows(it: RunItems, sim_missing: str | None, tasks: tuple[str, ...], margins: bool, drawing: list) -> list:
    """One run's text scores of ``tasks``, the next action's followed by its ``drawing`` rows
    (:func:`_drawing_rows`)."""
    out = []
    for task in (t for t in TEXTS if t in tasks and not it.frame(t).empty):
        _, _, ok, dim = TEXTS[task]
        out += _text_rows(it.text_scores(task), it.run_id, task, dim, ok, sim_missing, margins)
        if task == "next_action":
            out += drawing
    return out


TITLE = "Scores per run, condition and role"


def score_table(
    items: list[RunItems],
    parts: Parts,
    sim_missing: str | None,
    tasks: tuple[str, ...] = tuple(TASK_DIMENSIONS),
    margins: bool = True,
) -> EstimateTable:
    """Every score of every run on ``tasks`` (both, unless told; see the module docstring);
    ``parts``: the category table by run and dimension
    (:func:`analysis.compare.items.category_parts`); ``margins=False``: per condition and role
    only, none over all conditions or roles (what the leaderboard shows). Each run's scores are
    made on one of a few threads (their bootstraps are array work, done outside Python's lock),
    in the table's order: every run's category scores, then each run's text and drawing scores.
    Meanwhile this thread scores every run's texts (:func:`analysis.compare.items.add_rouge`:
    Python's work, which the threads' array work leaves room for)."""
    drawn = "next_action" in tasks
    with ThreadPoolExecutor(max_workers=max(1, min(processors(), len(items)))) as pool:
        category = [
            pool.submit(lambda it: list(_category_rows(parts, [it.run_id], tasks, margins)), it) for it in items
        ]
        drawing = [
            pool.submit(lambda it: list(_drawing_rows(it, margins)) if drawn and not it.na.empty else [], it)
            for it in items
        ]
        for task in tasks:
            add_rouge(items, task)
        other = [_item_rows(it, sim_missing, tasks, margins, d.result()) for it, d in zip(items, drawing)]
        rows = [row for made in (*(c.result() for c in category), *other) for row in made]
    return EstimateTable.build(rows, KEYS, title=TITLE)


METRICS = (*CATEGORY_METRICS, "rouge_l", "similarity", "drawing")
