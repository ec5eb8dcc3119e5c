"""SynchToM's judged runs built from the score files' rows (:mod:`.synchtom` reads them): each score
file checked against the items, the files of one run that score the same item refused, the items a
run has no score for named, and a run's scores put in the items' order.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from corpus.benchmark.dataset import JudgedRun
from corpus.importers.tom.records import DIMENSIONS
from corpus.loading.report import WARNING, Report, shown


def fits_items(
    rel: str,
    g: pd.DataFrame,
    items: pd.DataFrame,
    files: set[str],
    sizes: Mapping[str, Mapping[str, int]],
    report: Report,
) -> bool:
    """Whether one score file's rows score only the items' instances, each dimension on a rubric of
    the item's size (an error for each row that does not)."""
    errors_before = report.error_count
    unknown = sorted(set(g["instance_id"]) - set(items.index))
    for iid in unknown:
        report.add(
            rel,
            f"instance {shown(iid)}",
            "instance_id",
            f"no such item in the benchmark ({len(items)} items from {', '.join(sorted(files)) or 'no file'})",
        )
    for r in g[g["instance_id"].isin(items.index)].itertuples():
        want = sizes[r.instance_id][r.dimension]
        got, where = (
            (r.rubric, f"rubrics.{r.dimension}")
            if r.rubric >= 0
            else (r.max_score, f"evaluation.{r.dimension}.max_score")
        )
        if got >= 0 and got != want:
            report.add(
                rel,
                f"instance {shown(r.instance_id)}",
                where,
                f"{got} criteria here; the item's rubric has {want}: judged against other items?",
            )
    return report.error_count == errors_before


def without_clashes(g: pd.DataFrame, model: str, setting: str, judge: str, report: Report) -> pd.DataFrame:
    """One run's rows without the files that score an item another of its files scores (both refused)."""
    by_file = g.groupby("file")["instance_id"].agg(set)
    clash = [
        (a, b, sorted(by_file[a] & by_file[b]))
        for i, a in enumerate(by_file.index)
        for b in by_file.index[i + 1 :]
        if by_file[a] & by_file[b]
    ]
    refused = set()
    for a, b, common in clash:
        for x, y in ((a, b), (b, a)):
            report.add(
                x,
                f"instance {shown(common[0])}",
                "instance_id",
                f"{model} ({setting or 'no setting'}) judged by {shown(judge)} also has {len(common)} of these "
                f"instances in {y}: keep one of the two files",
            )
        refused |= {a, b}
    return g[~g["file"].isin(refused)]


def missing_items(g: pd.DataFrame, items: pd.DataFrame, run_id: str, report: Report) -> tuple[str, ...]:
    """The items of a run's benchmark files it has no score for (a warning per benchmark file)."""
    scored = set(g["instance_id"])
    covered = sorted(set(g["benchmark"]))
    in_scope = items.index[items["benchmark"].isin(covered)]
    sources = sorted(set(g["file"]))
    for b in covered:
        of_b = items.index[items["benchmark"] == b]
        lacking = [i for i in of_b if i not in scored]
        if lacking:
            report.add(
                ", ".join(sources),
                "-",
                "instance_id",
                f"run {shown(run_id)} has no score for {len(lacking)} of the {len(of_b)} items of {b} "
                f"({', '.join(lacking[:5])}{' ...' if len(lacking) > 5 else ''}); its scores are averaged over "
                "the items it has, as evaluate.py's are",
                WARNING,
            )
    return tuple(i for i in in_scope if i not in scored)


def run_scores(g: pd.DataFrame, items: pd.DataFrame, sizes: Mapping[str, Mapping[str, int]]) -> pd.DataFrame:
    """A run's scores (item_id, dimension, score, criteria) in the items' order, then the dimensions'."""
    scores = pd.DataFrame(
        {
            "item_id": g["instance_id"].to_numpy(),
            "dimension": g["dimension"].to_numpy(),
            "score": g["score"].to_numpy(),
            "criteria": [sizes[i][d] for i, d in zip(g["instance_id"], g["dimension"])],
        }
    )
    order = {iid: k for k, iid in enumerate(items.index)}
    return scores.sort_values(
        ["item_id", "dimension"], key=lambda c: c.map(order) if c.name == "item_id" else c.map(DIMENSIONS.index)
    ).reset_index(drop=True)


def judged_run(
    model: str,
    setting: str,
    judge: str,
    g: pd.DataFrame,
    items: pd.DataFrame,
    sizes: Mapping[str, Mapping[str, int]],
    report: Report,
) -> JudgedRun:
    """The judged run of one model, setting and judge from its checked rows."""
    run_id = f"{model} ({setting}; {judge})" if setting else f"{model} ({judge})"
    missing = missing_items(g, items, run_id, report)
    return JudgedRun(
        run_id=run_id,
        model=model,
        setting=setting,
        judge=judge,
        scores=run_scores(g, items, sizes),
        source=", ".join(sorted(set(g["file"]))),
        missing=missing,
    )
