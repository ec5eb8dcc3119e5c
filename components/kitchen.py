"""The Kitchen screen's parts: what the runs are, the coordination metrics per pairing or level,
the TGCO outcome composition per level (the paper's Fig. 3, left), and the request units behind a
bar with why each was coded as it was. Every text from the runs (model names, actions, reasons) is
shown as text: dataframe cells, or Plotly strings through :func:`corpus.escape.plotly_text`."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.format import fmt, fmt_count, fmt_interval
from analysis.kitchen_metrics import METRICS, RunMetrics
from analysis.results import EstimateTable
from components.chart import figure
from components.palette import OUTCOME, OUTCOME_PATTERN
from corpus.escape import plotly_text
from corpus.kitchen_dataset import KitchenCorpus
from corpus.values import is_defined
from services import datasets

BAR_TEXT = "#000000"  # the count inside a composition bar
BAR_TEXT_HALO = "0 0 2px #FFFFFF, 0 0 3px #FFFFFF"
SHOWN = ("follow_rate", "comm_cost", "adr", "idensity", "mor", "validator_corrections", "success", "tokens", "steps")


def overview(kitchen: KitchenCorpus, metrics: tuple[RunMetrics, ...]) -> None:
    """Counts of the runs: runs, directed pairings, levels, request units, success."""
    c = st.columns(5)
    c[0].metric("Runs", fmt_count(len(kitchen.runs)))
    c[1].metric(
        "Pairings", fmt_count(len({m.pairing for m in metrics})), help="Directed: Chef model -> Assistant model"
    )
    levels = sorted({m.level for m in metrics if m.level is not None})
    c[2].metric("Levels", ", ".join(map(str, levels)) or "unknown")
    c[3].metric("Request units", fmt_count(sum(m.requests for m in metrics)))
    c[4].metric("Success", f"{fmt_count(sum(m.success for m in metrics))} of {fmt_count(len(metrics))}")


def _cell(row: dict) -> str:
    """One metric as printed: mean [interval] (n)."""
    if not is_defined(row["estimate"]):
        return fmt(row["estimate"])
    interval = (row["ci_low"], row["ci_high"])
    shown = fmt_interval(interval) if all(is_defined(v) for v in interval) else "no interval"
    return f"{fmt(row['estimate'], 2)} {shown} (n = {row['n']})"


def metric_view(table: EstimateTable, by: tuple[str, ...]) -> pd.DataFrame:
    """The table as a reader scans it: one row per group, one column per metric."""
    rows: dict[tuple, dict[str, str]] = {}
    for r in table.rows:
        if r["metric"] not in SHOWN:
            continue
        key = tuple(r[b] for b in by)
        rows.setdefault(key, dict(zip(by, map(str, key))))[METRICS[r["metric"]][0]] = _cell(r)
    return pd.DataFrame(list(rows.values()))


def show_metrics(table: EstimateTable, by: tuple[str, ...], key: str) -> None:
    st.dataframe(metric_view(table, by), hide_index=True, width="stretch", key=key)
    st.caption(
        "Each cell: the mean over runs, its 95% interval over runs (percentile bootstrap, 2,000 resamples, seed 0) "
        "and n, the runs with a value. "
        + " ".join(f"{METRICS[k][0]}: {METRICS[k][2]}." for k in SHOWN)
        + " "
        + _notes(table.notes)
    )


def _notes(notes: tuple[str, ...]) -> str:
    """The table's notes as sentences, each label said once: the notes "window: level-normalized
    window: a" and "window: level-normalized window: b" read "Level-normalized window: a; b.", the
    note "window: fixed window of 20 steps" reads "Fixed window of 20 steps."."""
    said: dict[str, list[str]] = {}
    for note in notes:
        head, _, rest = note.partition(": ")
        if head == "window" and "window" in rest:  # the rule names the window itself
            head, _, rest = rest.partition(": ")
        said.setdefault(head, []).append(rest)
    return " ".join(
        f"{head[:1].upper()}{head[1:]}" + (": " + "; ".join(r for r in rests if r) if any(rests) else "") + "."
        for head, rests in said.items()
    )


def composition_figure(comp: pd.DataFrame) -> go.Figure:
    """Stacked shares of the four outcomes per level, the count inside each bar."""
    traces = []
    levels = [str(v) for v in dict.fromkeys(comp["level"])]
    for outcome, colour in OUTCOME.items():
        mine = comp[comp["outcome"] == outcome]
        d = mine.set_index(mine["level"].astype(str)).reindex(levels)
        traces.append(
            {
                "type": "bar",
                "name": outcome,
                "x": [f"level {plotly_text(v)}" for v in levels],
                "y": [float(v) if is_defined(v) and not pd.isna(v) else None for v in d["estimate"]],
                "text": ["" if pd.isna(k) or not k else fmt_count(int(k)) for k in d["count"]],
                "textposition": "inside",
                "insidetextanchor": "middle",
                "textangle": 0,
                # Black reads on each of the four fills (contrast 5.4:1 on vermillion, 6.1:1 on green,
                # 9:1 or more on sky blue and orange); the light halo keeps it clear of the pattern.
                "textfont": {"color": BAR_TEXT, "shadow": BAR_TEXT_HALO},
                "marker": {
                    "color": colour,
                    # A faint pattern: it tells the outcomes apart in greyscale without hiding the count.
                    "pattern": {"shape": OUTCOME_PATTERN[outcome], "fgopacity": 0.35, "size": 10},
                },
                "customdata": [[lv, outcome] for lv in levels],
                "hovertemplate": "%{x}, " + outcome + ": %{y:.0%} of request units (%{text})<br>click: list them"
                "<extra></extra>",
            }
        )
    layout = {
        "barmode": "stack",
        # A count that does not fit its segment at this size is left off (its hover still gives it).
        "uniformtext": {"minsize": 12, "mode": "hide"},
        "yaxis": {"title": {"text": "request units (%)"}, "tickformat": ".0%", "range": [0, 1]},
        "xaxis": {"title": {"text": "task level"}},
    }
    return figure(traces, layout, height=380)


def units_table(units: pd.DataFrame, key: str) -> None:
    st.dataframe(
        units,
        hide_index=True,
        width="stretch",
        key=key,
        column_config={
            "reason": st.column_config.TextColumn(width="large"),
            "replay": st.column_config.LinkColumn("replay", display_text="open at this step"),
        },
    )


def replay_controls(kitchen: KitchenCorpus, run_ids: list[str]) -> tuple[str, int]:
    """The run and the step (its place in the run) to show: picked here, or from the link
    (``?run=...&step=...``) on the first visit; the link follows what is shown."""
    state, params = st.session_state, st.query_params
    if "kitchen_run" not in state:
        wanted = params.get("run")
        state["kitchen_run"] = wanted if wanted in run_ids else run_ids[0]
        try:
            state["kitchen_step"] = max(int(params.get("step", 0)), 0)
        except ValueError:
            state["kitchen_step"] = 0
    runs = {r.id: r for r in kitchen.runs}
    run_col, step_col = st.columns([2, 3], vertical_alignment="bottom")
    run_id = run_col.selectbox(
        "Run",
        run_ids,
        key="kitchen_run",
        format_func=lambda r: f"{r} · {runs[r].pairing} · {runs[r].recipe}",
        on_change=lambda: state.update(kitchen_step=0),
    )
    last = runs[run_id].n_steps - 1
    state["kitchen_step"] = min(int(state.get("kitchen_step", 0)), last)
    # The same keys as the Map Task replay: Left / Right a step, Home / End the first and the last.
    # A row that sizes each button to its label, so no label is cut at 1280 or 1440 wide.
    nav = st.container(horizontal=True, key="kitchen_nav")
    nav.button(
        "First",
        key="kitchen_first",
        shortcut="Home",
        icon=":material/first_page:",
        on_click=lambda: state.update(kitchen_step=0),
    )
    nav.button(
        "Previous",
        key="kitchen_prev",
        shortcut="Left",
        icon=":material/chevron_left:",
        on_click=lambda: state.update(kitchen_step=max(state["kitchen_step"] - 1, 0)),
    )
    nav.button(
        "Next",
        key="kitchen_next",
        shortcut="Right",
        icon=":material/chevron_right:",
        on_click=lambda: state.update(kitchen_step=min(state["kitchen_step"] + 1, last)),
    )
    nav.button(
        "Last",
        key="kitchen_last",
        shortcut="End",
        icon=":material/last_page:",
        on_click=lambda: state.update(kitchen_step=last),
    )
    index = step_col.slider("Step", 0, max(last, 1), key="kitchen_step", disabled=last < 1)
    params.update(datasets.link_params(datasets.current_source()))
    params["run"], params["step"] = run_id, str(index)
    return run_id, min(index, last)
