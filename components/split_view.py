"""The distribution-matched test split: the objective of the chosen subset and its runners-up (and
of the dataset's own split), the Table-8-style comparison of train and test, and what the page
says of the sessions held out in ``val`` (neither train nor test: :func:`analysis.split.candidates`)."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.format import fmt, fmt_count, fmt_mean_sd
from analysis.split import KEPT_APART, SplitResult, candidates, kept_apart
from components.chart import axis_suffix, figure, on_panel, panels
from components.palette import CONDITION, CONDITION_NAMES, CONDITION_SHORT, LIGHT_GREY, ROLE_NAMES, rgba
from corpus import schema
from corpus.escape import md_line

CURRENT = "current"


def split_candidates(sessions: pd.DataFrame) -> pd.DataFrame:
    """The sessions of ``sessions`` the search chooses among: all but the held-out ones."""
    return candidates(sessions)


def held_out_note(sessions: pd.DataFrame) -> None:
    """A caption saying how many of ``sessions`` are held out (``val``) and what the page does
    with them; nothing when there are none."""
    apart = kept_apart(sessions)
    if apart.empty:
        return
    by = ", ".join(
        f"{fmt_count(n)} {CONDITION_NAMES.get(str(c), str(c))}"
        for c, n in apart["condition"].astype(str).value_counts().sort_index().items()
    )
    st.caption(
        md_line(
            f"{fmt_count(len(apart))} session(s) of the selection are in the {' / '.join(KEPT_APART)} split ({by}): "
            "held out for tuning, they are neither train nor test here. They are not candidates of the search, count "
            "on neither side of the dataset's own split, and stay in their split in the dataset with this split."
        )
    )


def objective_data(result: SplitResult, current: dict[str, float]) -> pd.DataFrame:
    """One row per bar: condition, rank (0 for the dataset's own split), test sessions, objective, k, n."""
    rows = []
    for cond, cs in result.by_condition.items():
        k, n = len(cs.test), len(cs.sessions)
        for r in cs.runners_up.itertuples(index=False):
            rows.append(
                {
                    "condition": cond,
                    "rank": int(r.rank),
                    "test_sessions": r.test_sessions,
                    "objective": float(r.objective),
                    "k": k,
                    "n": n,
                }
            )
        if cond in current:
            rows.append(
                {"condition": cond, "rank": 0, "test_sessions": CURRENT, "objective": current[cond], "k": k, "n": n}
            )
    return pd.DataFrame(rows)


def objective_figure(data: pd.DataFrame) -> go.Figure:
    """Per condition: the objective of the best subset (#1), the runners-up, and the dataset's own split."""
    conds = [c for c in schema.CONDITIONS if c in set(data["condition"])]
    traces = []
    layout = panels(len(conds), [CONDITION_NAMES[c] for c in conds], shared_y=False, spacing=0.08)
    for i, cond in enumerate(conds, start=1):
        d = data[data["condition"] == cond]
        d = pd.concat([d[d["rank"] > 0].sort_values("rank"), d[d["rank"] == 0]])
        traces.append(
            on_panel(
                {
                    "type": "bar",
                    "x": [CURRENT if r == 0 else f"#{r}" for r in d["rank"]],
                    "y": d["objective"].tolist(),
                    "showlegend": False,
                    "marker": {
                        "color": [
                            LIGHT_GREY if r == 0 else (CONDITION[cond] if r == 1 else rgba(CONDITION[cond], 0.45))
                            for r in d["rank"]
                        ]
                    },
                    "text": [fmt(v, 2) for v in d["objective"]],
                    "textposition": "outside",
                    "textfont": {"size": 10},
                    "customdata": [
                        [cond, int(r), s, int(k), int(n), fmt(v)]
                        for r, s, k, n, v in zip(d["rank"], d["test_sessions"], d["k"], d["n"], d["objective"])
                    ],
                    "hovertemplate": "test: %{customdata[2]}<br>L = %{customdata[5]}<br>%{customdata[3]} test of n = %{customdata[4]} sessions"
                    "<br>click: list the test sessions<extra></extra>",
                },
                i,
                shared_y=False,
            )
        )
        k, n = int(d["k"].iloc[0]), int(d["n"].iloc[0])
        s = axis_suffix(i)
        layout[f"xaxis{s}"].update(
            title={"text": f"candidate test sets ({k} of n = {n} sessions)"}, type="category", tickangle=0
        )
        layout[f"yaxis{s}"].update(
            rangemode="tozero",
            title={"text": "imbalance L: sum over measures of |mean diff| + |SD diff|" if i == 1 else ""},
        )
    return figure(traces, layout, height=400)


def comparison_view(table: pd.DataFrame) -> pd.DataFrame:
    """Table 8 style: rows (condition, role, dimension, label), train and test as 'mean (SD)' in %."""
    out = table.assign(
        condition=[CONDITION_SHORT.get(str(c), str(c)) for c in table["condition"]],
        role=[ROLE_NAMES.get(str(r), str(r)) for r in table["role"]],
        train=[fmt_mean_sd(m, s) for m, s in zip(table["train_mean"], table["train_sd"])],
        test=[fmt_mean_sd(m, s) for m, s in zip(table["test_mean"], table["test_sd"])],
    )
    return out[["condition", "role", "dimension", "label", "train", "test", "abs_mean_diff", "abs_sd_diff"]]


def search_notes(result: SplitResult) -> None:
    for cond, cs in result.by_condition.items():
        st.caption(
            md_line(
                f"{CONDITION_NAMES[cond]}: test = {', '.join(cs.test)}; L = {fmt(cs.objective, 3)}. Search: {cs.search}."
            )
        )
