"""The leaderboard in the ALMANAC paper's table layout (Tables 2/9 and 3/10).

Rows: one per run, grouped by model and ordered by setting (fewest additions first: base,
+mental model, +CoT, ...). Columns: score x condition (C visible, C not visible) x role (G, F),
as the paper prints them; the drawing score is the Follower's only. Every cell carries its n. The
best value of each column is marked with every run the paired test does not separate from it
(:func:`separated_best`, applied by :meth:`analysis.compare.comparison.Comparison.leaderboard`;
:func:`leaderboard` alone marks the top value), and nothing where no run is separated from the best.
Exports: CSV (one row per cell, with interval, n and method) and LaTeX (booktabs).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from analysis.best import marked_best
from analysis.format import csv_cells, fmt, to_json
from corpus.csvsafe import to_csv
from corpus.escape import latex
from corpus.predictions import RunInfo
from corpus.values import Undefined, is_defined

CONDITION_LABELS = {
    "visible": "C visible",
    "not_visible": "C not visible",
    "eye_contact": "eye contact",
    "no_eye_contact": "no eye contact",
    "not_recorded": "condition not recorded",
}
ROLE_LABELS = {"guide": "G", "follower": "F"}
MEASURES = {"accuracy": "Accuracy", "macro_recall": "Macro recall", "macro_f1": "Macro F1", "kappa": "Cohen's kappa"}
DIMENSION_LABELS = {"team_goal": "Team goal", "partner_intent": "Partner intent", "self_reasoning": "Self-reasoning"}


def columns(task: str, measure: str = "accuracy") -> list[tuple[str, str, str, str]]:
    """(column label, metric, dimension, roles) of a task's table, in the paper's order."""
    if task == "next_action":
        return [
            ("Accuracy (action type)", "accuracy", "action_type", "GF"),
            ("Recall (action type)", "macro_recall", "action_type", "GF"),
            ("SBERT (message)", "similarity", "message", "GF"),
            ("ROUGE-L (message)", "rouge_l", "message", "GF"),
            ("Drawing score", "drawing", "drawing", "F"),
        ]
    m = MEASURES[measure]
    return [
        *[
            (f"{label} {m.lower() if measure != 'kappa' else 'kappa'}", measure, dim, "GF")
            for dim, label in DIMENSION_LABELS.items()
        ],
        ("SBERT (rationale)", "similarity", "rationale", "GF"),
        ("ROUGE-L (rationale)", "rouge_l", "rationale", "GF"),
    ]


def setting_rank(setting: str) -> tuple[int, str]:
    parts = [p for p in setting.replace("+", " + ").split("+") if p.strip()]
    base = setting.strip().lower() in ("", "base", "persona", "default")
    return (0 if base else len(parts), setting)


def run_order(infos: dict[str, RunInfo]) -> list[str]:
    return sorted(infos, key=lambda r: (infos[r].model_id, setting_rank(infos[r].setting), r))


@dataclass(frozen=True)
class Leaderboard:
    task: str
    measure: str
    cells: (
        pd.DataFrame
    )  # long: run, model, setting, column, condition, role, metric, dimension, estimate, ci_low, ci_high, n, best
    index: tuple[str, ...]  # row order (run ids)
    column_order: tuple[tuple[str, str, str], ...]

    def _pivot(self, value: str) -> pd.DataFrame:
        df = self.cells.pivot(index=["model", "setting", "run"], columns=["column", "condition", "role"], values=value)
        rows = self.cells.drop_duplicates("run").set_index("run").loc[list(self.index)]
        df = df.reindex(pd.MultiIndex.from_arrays([rows["model"], rows["setting"], rows.index]))
        return df.reindex(columns=pd.MultiIndex.from_tuples(self.column_order, names=["", "condition", "role"]))

    def table(self) -> pd.DataFrame:
        """The printed table: "0.62 (143)" per cell, "undefined" where a score has no value."""
        return self._pivot("text")

    def best_mask(self) -> pd.DataFrame:
        return self._pivot("best").fillna(False).astype(bool)

    def undefined_groups(self) -> dict[str, str]:
        """The score groups no run has a value in (label -> why, as the cells say), which the page
        leaves out with one line instead of a table of "undefined"."""
        out = {}
        for label, g in self.cells.groupby("column", sort=False):
            if not any(is_defined(v) for v in g["estimate"]):
                reasons = sorted({str(v.reason) for v in g["estimate"] if isinstance(v, Undefined)})
                out[str(label)] = "; ".join(reasons) or "no value"
        return out

    def constant_columns(self) -> dict[str, list[str]]:
        """Per score group, its condition-role columns where every run with a value has the same
        score (to 3 decimals) and there are two runs or more: columns that do not separate runs
        (e.g. every run predicts the only action type a role has), marked on the page."""
        out: dict[str, list[str]] = {}
        for (label, cond, role), g in self.cells.groupby(["column", "condition", "role"], sort=False):
            vals = [round(float(v), 3) for v in g["estimate"] if is_defined(v) and not math.isnan(float(v))]
            if len(vals) >= 2 and len(set(vals)) == 1:
                out.setdefault(str(label), []).append(f"{cond} · {role}")
        return out

    def blocks(self) -> list[tuple[str, pd.DataFrame, pd.DataFrame]]:
        """The table cut into its score groups, each (label, cells, best) with one row per run (labelled
        "model · setting") and one column per condition and role ("C visible · G", ...)."""
        table, best = self.table(), self.best_mask()
        rows = [f"{m} · {s}" for m, s, _ in table.index]
        if len(set(rows)) < len(rows):
            rows = [f"{m} · {s} ({r})" for m, s, r in table.index]
        out = []
        for label in dict.fromkeys(c[0] for c in table.columns):
            cols = [c for c in table.columns if c[0] == label]
            flat = [f"{c[1]} · {c[2]}" for c in cols]
            cells = pd.DataFrame(table[cols].to_numpy(), index=pd.Index(rows, name="run"), columns=flat)
            marks = pd.DataFrame(best[cols].to_numpy(), index=cells.index, columns=flat)
            out.append((label, cells, marks))
        return out

    def csv_table(self) -> pd.DataFrame:
        """The long table the CSV download holds (intervals and methods included)."""
        cols = [
            "task",
            "run",
            "model",
            "setting",
            "column",
            "condition",
            "role",
            "metric",
            "dimension",
            "estimate",
            "ci_low",
            "ci_high",
            "n",
            "best",
            "method",
            "interval_method",
            "note",
        ]
        return csv_cells(self.cells.assign(task=self.task)[cols])

    def csv_text(self) -> str:
        """:meth:`csv_table` as spreadsheet-safe CSV."""
        return to_csv(self.csv_table())

    @property
    def marked(self) -> bool:
        """Whether a defined cell carries a warning (its text ends in '!')."""
        return bool(self.cells["text"].str.endswith(" !").any())

    def to_latex(self, caption: str = "") -> str:
        """booktabs LaTeX, one table per score group (runs x condition and role: a page's width,
        where the whole leaderboard side by side is several), the best value of each column in bold;
        a group no run has a value in is left out and named in the first caption. Cells, row and
        column names are escaped by pandas' Styler (``escape="latex"``), captions by
        :func:`corpus.escape.latex`, which escapes the same way."""
        hidden = self.undefined_groups()
        tables: list[str] = []
        for label, cells, best in self.blocks():
            if label in hidden:
                continue
            styler = (
                cells.astype(object)
                .map(str)
                .style.format(escape="latex")
                .format_index(escape="latex", axis=0)
                .format_index(escape="latex", axis=1)
                .apply(lambda col, best=best: ["font-weight: bold" if b else "" for b in best[col.name]], axis=0)
            )
            note = (
                " Not shown, undefined for every run: " + "; ".join(f"{k} ({v})" for k, v in hidden.items()) + "."
                if hidden and not tables
                else ""
            )
            title = ": ".join(filter(None, (caption, label))) + "." + note
            tables.append(
                styler.to_latex(hrules=True, caption=latex(title), position_float="centering", convert_css=True)
            )
        return "\n".join(tables)

    def to_json(self) -> list[dict]:
        return [
            to_json(
                {
                    k: r[k]
                    for k in (
                        "run",
                        "model",
                        "setting",
                        "metric",
                        "dimension",
                        "condition",
                        "role",
                        "estimate",
                        "ci_low",
                        "ci_high",
                        "n",
                        "best",
                        "method",
                        "interval_method",
                        "note",
                    )
                }
            )
            for r in self.cells.to_dict("records")
        ]


def _mark_best(cells: pd.DataFrame) -> pd.Series:
    best = pd.Series(False, index=cells.index)
    for _, g in cells.groupby(["column", "condition", "role"], sort=False):
        vals = {i: v for i, v in g["estimate"].items() if is_defined(v) and not math.isnan(v)}
        if len(vals) < 2:
            continue
        rounded = {i: round(v, 6) for i, v in vals.items()}
        top = max(rounded.values())
        if len(set(rounded.values())) > 1:
            best.loc[[i for i, v in rounded.items() if v == top]] = True
    return best


PairedP = Callable[[str, str, str, str, str, str], Any]  # (run a, run b, condition, role, metric, dimension) -> p


def separated_best(cells: pd.DataFrame, paired_p: PairedP) -> pd.Series:
    """Per column, the best run and every run the paired test does not separate from it, the tests of
    a column Holm-adjusted together (:func:`analysis.best.marked_best`; no test: not separated): they
    share the mark. Where that is every run with a value, no run is marked: the column has no best.
    ``paired_p`` gives the paired test's p-value of two runs' scores on the items both predicted
    (McNemar's exact test for accuracy, the paired bootstrap otherwise)."""
    conditions = {v: k for k, v in CONDITION_LABELS.items()}
    roles = {v: k for k, v in ROLE_LABELS.items()}
    best = pd.Series(False, index=cells.index)
    for _, g in cells.groupby(["column", "condition", "role"], sort=False):
        vals = {i: v for i, v in g["estimate"].items() if is_defined(v) and not math.isnan(v)}
        if not vals:
            continue
        row = g.loc[max(vals, key=lambda i: round(vals[i], 6))]
        cond, role = conditions.get(row["condition"], row["condition"]), roles.get(row["role"], row["role"])

        def p_of(top: Any, i: Any, g: pd.DataFrame = g, cond: Any = cond, role: Any = role, row: Any = row) -> Any:
            return paired_p(g.at[top, "run"], g.at[i, "run"], cond, role, row["metric"], row["dimension"])

        best.loc[marked_best(vals, p_of)] = True
    return best


NOT_PREDICTED = "not predicted"  # a cell of a run that has no predictions of the task


def leaderboard(scores: pd.DataFrame, infos: dict[str, RunInfo], task: str, measure: str = "accuracy") -> Leaderboard:
    """The paper-layout table of one task from the long score table (``EstimateTable.to_frame()``)."""
    order = run_order(infos)
    spec = columns(task, measure)
    want = []
    col_order = []
    sub = scores[(scores["task"] == task) & scores["run"].isin(order)]
    present = [c for c in CONDITION_LABELS if (sub["condition"] == c).any()] or ["visible", "not_visible"]
    for label, metric, dim, roles in spec:
        for cond in present:
            cl = CONDITION_LABELS[cond]
            for role, rl in ROLE_LABELS.items():
                if rl not in roles:
                    continue
                col_order.append((label, cl, rl))
                want.append({"column": label, "metric": metric, "dimension": dim, "condition": cond, "role": role})
    want_df = pd.DataFrame(want)
    rows = []
    for run in order:
        mine = sub[sub["run"] == run].merge(want_df, on=["metric", "dimension", "condition", "role"], how="right")
        info = infos[run]
        mine = mine.assign(run=run, model=info.name, setting=info.setting or "(none)")
        rows.append(mine)
    cells = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame(columns=[*want_df.columns, "run"])
    missing = Undefined("the run has no predictions for this task")
    for c in ("estimate", "ci_low", "ci_high"):
        cells[c] = [
            v if isinstance(v, (float, int, Undefined)) and not (isinstance(v, float) and math.isnan(v)) else missing
            for v in cells[c]
        ]
    cells["n"] = cells["n"].fillna(0).astype(int)
    cells["method"] = cells["method"].fillna("")
    cells["interval_method"] = cells["interval_method"].fillna("")
    cells["condition"] = cells["condition"].map(CONDITION_LABELS)
    cells["role"] = cells["role"].map(ROLE_LABELS)
    cells["best"] = _mark_best(cells)
    cells["note"] = cells["note"].fillna("") if "note" in cells else ""
    predicted = set(sub["run"])  # a run with no predictions of this task: "not predicted", not "undefined"
    cells["text"] = [
        NOT_PREDICTED
        if r not in predicted
        else f"{fmt(v, 2)} ({n}){' !' if note and is_defined(v) else ''}"
        if is_defined(v)
        else "undefined"
        for r, v, n, note in zip(cells["run"], cells["estimate"], cells["n"], cells["note"])
    ]
    return Leaderboard(task=task, measure=measure, cells=cells, index=tuple(order), column_order=tuple(col_order))
