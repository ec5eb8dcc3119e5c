"""The Compare views of a benchmark (DynToM trials and the like): coverage, the leaderboard by any
slice, accuracy across a slice's values, what each run chose (confusions), settings against each
other (ablation), and every instance with its question, options, answers and story. A benchmark
judged on rubrics (SynchToM) has views of its own: each judged run's scores per dimension as the
paper's Table 3, and every item with its scenario, rubric and trajectory."""

from __future__ import annotations

import math

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.benchmark import ALL, BenchmarkComparison
from analysis.compare.judges import dimension_scores, paper_table
from analysis.format import fmt, fmt_count, fmt_p, fmt_share
from components.compare.common import PALETTE, figure_layout, plain
from components.dataset import synthetic_banner
from components.download import csv_button
from corpus.escape import md_line, md_text
from corpus.importers.tom.synchtom_items import DIMENSIONS, benchmark_order

BEST = "font-weight: 700; background-color: rgba(28, 131, 225, 0.12)"
FIELD_NAMES = {
    "question_type": "question type",
    "form": "question form",
    "mental_state": "mental state",
    "time_span": "time span",
    "reasoning": "reason / not reason",
}
MAX_ROWS = 2000


def field_name(f: str) -> str:
    return FIELD_NAMES.get(f, f.replace("_", " "))


def _cell(r: pd.Series) -> str:
    if r["n"] == 0 or math.isnan(r["estimate"]):
        return "undefined"
    ci = "" if math.isnan(r["ci_low"]) else f" [{fmt(r['ci_low'], 2)}, {fmt(r['ci_high'], 2)}]"
    return f"{fmt(r['estimate'], 3)}{ci}"


def coverage(cmp: BenchmarkComparison) -> None:
    bench = cmp.bench
    n_trials = bench.items["group"].nunique()
    st.caption(
        f"{fmt_count(len(bench.items))} questions in {fmt_count(n_trials)} trial(s); "
        f"{len(cmp.run_ids)} run(s) scored"
        + (f", {len(bench.refused)} refused" if bench.refused else "")
        + ". A question a run's file leaves out counts as wrong, as in the benchmark's own evaluation."
    )
    with st.expander("Runs and coverage"):
        st.dataframe(cmp.coverage(), hide_index=True, width="stretch")
        st.caption(
            "trials: trials with the run's answer file; no_answer: questions of those trials the file leaves out "
            "(scored wrong); unmatched: answers to ids the trial has no question for (not scored)."
        )
        for run in bench.refused:
            st.error(f"Run {md_line(run.run_id)} refused: {md_line(run.report.format()[:500])}")


def leaderboard_frame(cmp: BenchmarkComparison, by: str) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(the cells, the table as printed: one row per run, one column per value of ``by`` with its n,
    and where each cell is the best as the paired test allows); all three empty when no run is scored."""
    if not cmp.run_ids:
        empty = pd.DataFrame(index=pd.Index([], name="run"))
        return pd.DataFrame(columns=["run", "field", "value", "n", "estimate", "best", "text"]), empty, empty
    cells = cmp.leaderboard(by)
    cells = cells.assign(text=cells.apply(_cell, axis=1))
    order = [ALL, *[v for v in dict.fromkeys(cells["value"]) if v != ALL]]
    table = cells.pivot(index="run", columns="value", values="text").reindex(index=cmp.run_ids, columns=order)
    best = cells.pivot(index="run", columns="value", values="best").reindex(index=cmp.run_ids, columns=order)
    best = best.fillna(False).astype(bool)
    n = cells.groupby("value")["n"].max().reindex(order)
    table.columns = [f"{'overall' if v == ALL else v} (n {fmt_count(n[v])})" for v in order]
    best.columns = table.columns
    return cells, table, best


def leaderboard(cmp: BenchmarkComparison) -> None:
    fields = cmp.slice_fields
    by = st.selectbox("Columns", fields, format_func=field_name, key="bench_lb_field")
    cells, table, best = leaderboard_frame(cmp, by)
    table.index = [md_line(r) for r in table.index]  # st.table reads Markdown in its cells: names stay text
    best.index = table.index
    table.columns = best.columns = [md_line(c) for c in table.columns]  # and its headers: a slice's values
    st.table(table.style.apply(lambda col: [BEST if b else "" for b in best[col.name]], axis=0))
    st.caption(
        f"Accuracy [95% interval] by {md_line(field_name(by))}; n: the most items any run has in the column. "
        f"Interval: {md_line(cells['interval_method'].iloc[0])}. Bold: the best run in its column and every run "
        "McNemar's exact test does not separate from it (Holm-adjusted p >= 0.05 over the column's tests, on the items both "
        "answered); nothing is bold "
        "where no run is separated from the best."
    )
    csv_button("Download CSV", cells.drop(columns="text"), f"benchmark_accuracy_{by}.csv", key="bench_lb_csv")
    st.plotly_chart(_dots(cmp, cells[cells["value"] != ALL], plain(field_name(by))), key="bench_lb_chart")


def _dots(cmp: BenchmarkComparison, cells: pd.DataFrame, x_title: str) -> go.Figure:
    fig = go.Figure()
    for k, run in enumerate(cmp.run_ids):
        d = cells[cells["run"] == run]
        if d.empty:
            continue
        fig.add_trace(
            go.Scatter(
                x=[plain(v) for v in d["value"]],  # a slice's values: data
                y=d["estimate"],
                mode="lines+markers",
                name=plain(run),
                marker_color=PALETTE[k % len(PALETTE)],
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": (d["ci_high"] - d["estimate"]).fillna(0),
                    "arrayminus": (d["estimate"] - d["ci_low"]).fillna(0),
                },
                customdata=d["n"],
                text=[fmt(v) for v in d["estimate"]],
                hovertemplate="%{x}<br>accuracy %{text}<br>n = %{customdata}<extra></extra>",
            )
        )
    fig.update_yaxes(title_text="accuracy", range=[0, 1.05])
    fig.update_xaxes(title_text=x_title, type="category")
    figure_layout(fig, height=420)
    return fig


def slices(cmp: BenchmarkComparison) -> None:
    fields = cmp.slice_fields
    default = fields.index("mental_state") if "mental_state" in fields else 0
    left, right = st.columns(2)
    by = left.selectbox("Slice", fields, index=default, format_func=field_name, key="bench_slice_field")
    other = right.selectbox(
        "Crossed with",
        [None, *(f for f in fields if f != by)],
        format_func=lambda f: "nothing" if f is None else field_name(f),
        key="bench_slice_cross",
        help="Two slices crossed, as the benchmark's authors tabulate them (e.g. mental state x time span).",
    )
    if other is not None:
        _crossed(cmp, by, other)
        return
    cells = cmp.accuracy(by)
    st.plotly_chart(_dots(cmp, cells, plain(field_name(by))), key="bench_slice_chart")
    wide = cells.pivot(index="value", columns="run", values="estimate").reindex(
        index=list(dict.fromkeys(cells["value"])), columns=cmp.run_ids
    )
    st.dataframe(wide.round(3), width="stretch")
    st.caption(
        f"Accuracy by {md_line(field_name(by))}, pooled over items of every trial (the benchmark's own evaluation pools "
        f"counts the same way). Interval: {md_line(cells['interval_method'].iloc[0])}."
    )
    csv_button("Download CSV", cells, f"benchmark_slice_{by}.csv", key="bench_slice_csv")


def _crossed(cmp: BenchmarkComparison, a: str, b: str) -> None:
    """Accuracy in each cell of two slices crossed, per run, with the cell's question count."""
    cells = cmp.crossed(a, b)
    shown = cells.assign(text=[_cell(r) for _, r in cells.iterrows()])
    wide = shown.pivot(index=[a, b], columns="run", values="text").reindex(columns=cmp.run_ids)
    n = cells.groupby([a, b])["n"].max().rename("n (most of any run)")
    st.dataframe(wide.join(n), width="stretch")
    st.caption(
        f"Accuracy [95% interval] in each cell of {md_line(field_name(a))} x {md_line(field_name(b))}; questions "
        f"that have no value in either are left out. Interval: {md_line(cells['interval_method'].iloc[0])}."
        if len(cells)
        else "No question has a value in both."
    )
    csv_button("Download CSV", cells, f"benchmark_crossed_{a}_{b}.csv", key="bench_cross_csv")


def per_trial(cmp: BenchmarkComparison) -> None:
    """How each run's accuracy spreads over the trials (the authors' per-trial files), beside its
    accuracy over all items with the interval over trials."""
    trials = cmp.per_trial()
    fig = go.Figure(
        [
            go.Box(
                y=trials.loc[trials["run"] == run, "estimate"].tolist(),
                name=plain(run),
                boxpoints="all",
                jitter=0.4,
                marker={"color": PALETTE[i % len(PALETTE)], "size": 5},
                text=[
                    f"{plain(t)}: {fmt_share(v)} ({c} of {n})"
                    for t, v, c, n in trials.loc[
                        trials["run"] == run, ["trial", "estimate", "correct", "n"]
                    ].itertuples(index=False)
                ],
                hovertemplate="%{text}<extra></extra>",
            )
            for i, run in enumerate(cmp.run_ids)
        ]
    )
    fig.update_yaxes(title_text="accuracy in a trial", tickformat=".0%", range=[0, 1.02])
    figure_layout(fig, height=380)
    st.plotly_chart(fig, key="bench_trial_chart")
    spread = cmp.trial_spread()
    view = pd.DataFrame(
        {
            "run": spread["run"],
            "trials": spread["trials"].map(fmt_count),
            "accuracy [95% interval]": [
                f"{fmt(r.accuracy, 3)} [{fmt(r.ci_low, 3)}, {fmt(r.ci_high, 3)}]" for r in spread.itertuples()
            ],
            "per trial: mean (SD)": [f"{fmt(r.mean, 3)} ({fmt(r.sd, 3)})" for r in spread.itertuples()],
            "min / median / max": [
                f"{fmt(r.min, 3)} / {fmt(r.median, 3)} / {fmt(r.max, 3)}" for r in spread.itertuples()
            ],
        }
    )
    st.dataframe(view, hide_index=True, width="stretch")
    st.caption(
        "Each point: one trial's accuracy over its questions (Wilson intervals in the CSV). Accuracy: over every "
        f"question, its interval: {md_line(spread['interval_method'].iloc[0]) if len(spread) else 'none'}."
    )
    csv_button("Download CSV", trials, "benchmark_per_trial.csv", key="bench_trial_csv")


def confusions(cmp: BenchmarkComparison) -> None:
    run = st.selectbox("Run", cmp.run_ids, key="bench_conf_run")
    table = cmp.confusion(run)
    shares = table / table.sum(axis=0)
    fig = go.Figure(
        go.Heatmap(
            z=shares.to_numpy(),
            x=[plain(c) for c in table.columns],
            y=[plain(r) for r in table.index],
            text=table.to_numpy(),
            texttemplate="%{text}",
            colorscale="Blues",
            zmin=0,
            zmax=1,
            colorbar={"title": "share"},
            hovertemplate="%{y}<br>%{x}: %{text} answers<extra></extra>",
        )
    )
    fig.update_xaxes(title_text="question type")
    fig.update_yaxes(automargin=True)
    figure_layout(fig, height=140 + 28 * len(table))
    st.plotly_chart(fig, key="bench_conf_chart")
    st.caption(
        "What the run chose, per question type: the true answer, or the mistake the chosen distractor tests (the "
        "question file's option reasons). Colour: share of the column's answers; numbers: answers."
    )
    csv_button("Download CSV", table.reset_index(), "benchmark_confusion.csv", key="bench_conf_csv")


def ablation(cmp: BenchmarkComparison) -> None:
    table = cmp.ablation()
    if table.empty:
        st.info("No model has runs in two settings (e.g. level1 and level1CoT), so there is nothing to set against.")
        return
    shown = pd.DataFrame(
        {
            "model": table["model"],
            "setting": table["setting"] + " vs " + table["against"],
            "items": table["n"],
            "accuracy": [f"{fmt(a, 3)} vs {fmt(b, 3)}" for a, b in zip(table["accuracy_a"], table["accuracy_b"])],
            "difference [95% interval]": [
                f"{fmt(d, 3, signed=True)} [{fmt(lo, 3)}, {fmt(hi, 3)}]"
                for d, lo, hi in zip(table["difference"], table["ci_low"], table["ci_high"])
            ],
            "McNemar p": [fmt_p(p) for p in table["p_value"]],
        }
    )
    st.dataframe(shown, hide_index=True, width="stretch")
    st.caption(
        "Each setting of a model against its first setting, on the questions both runs have: McNemar's exact test "
        "and a paired bootstrap of the difference (over trials when there are 10 or more, else over items)."
    )


def _story(context: dict, span: str) -> None:
    scenarios = context.get("scenarios") or []
    if not scenarios:
        st.caption("The trial has no story file.")
        return
    wanted = {s for s in span.replace("->", " ").split()} if span else set()
    st.markdown(f"**Main character:** {md_text(context.get('main_character', ''))}")
    for k, sc in enumerate(scenarios, start=1):
        relevant = str(k) in wanted
        with st.expander(
            f"{md_line(sc.get('scenario', k))}" + (" (asked about)" if relevant else ""), expanded=relevant
        ):
            st.markdown(md_text(sc.get("background", "")))
            for who, said in sc.get("dialogue", []):
                st.markdown(f"**{md_line(who)}:** {md_text(said)}")


def instances(cmp: BenchmarkComparison) -> None:
    table = cmp.instances()
    c1, c2 = st.columns([1, 1])
    qtypes = ["(any)", *sorted(table["question_type"].unique())] if "question_type" in table else ["(any)"]
    qt = c1.selectbox("Question type", qtypes, key="bench_inst_type")
    wrong_only = c2.toggle("Only questions some run got wrong", value=True, key="bench_inst_wrong")
    view = table
    if qt != "(any)":
        view = view[view["question_type"] == qt]
    if wrong_only:
        view = view[view["runs_wrong"] > 0]
    st.caption(
        f"{fmt_count(len(view))} question(s)"
        + (f"; the first {fmt_count(MAX_ROWS)} shown (the CSV holds all)" if len(view) > MAX_ROWS else "")
        + ". Choose one below the table to read it with its options, every run's answer and the story."
    )
    shown = view.drop(columns=["group", "question_id"]).head(MAX_ROWS).reset_index(drop=True)
    st.dataframe(shown, hide_index=True, width="stretch", key="bench_inst_table")
    csv_button("Download CSV", lambda: view, "benchmark_instances.csv", key="bench_inst_csv")
    if shown.empty:
        return
    item_id = st.selectbox("Question", shown["item_id"].tolist(), key="bench_inst_item")
    if item_id is not None:
        _detail(cmp, item_id)


def _detail(cmp: BenchmarkComparison, item_id: str) -> None:
    rec = cmp.item(item_id)
    st.subheader(md_line(item_id))
    st.markdown(md_text(rec["question"]))
    chosen: dict[str, list[str]] = {}
    for run, answer in rec["answers"].items():
        chosen.setdefault(answer, []).append(run)
    lines = []
    for opt, kind in zip(rec["options"], rec["option_kinds"]):
        letter = opt.split(".", 1)[0]
        mark = "**gold** " if letter == rec["gold"] else ""
        who = chosen.get(letter, [])
        parts = [opt]
        if kind and kind != "true_answer":
            parts.append(f"tests: {kind}")
        if who:
            parts.append(f"chosen by {len(who)} run(s): {', '.join(who)}")
        lines.append(f"- {mark}{md_line(' | '.join(parts))}")
    st.markdown("\n".join(lines))
    missing = chosen.get("", [])
    if missing:
        st.caption(f"No answer in the file of: {md_line(', '.join(missing))}")
    context = rec["context"]
    if "moments" in context:
        _moment(context, item_id)
    else:
        _story(context, str(rec.get("time_span", "")))


def _moment(context: dict, item_id: str) -> None:
    """The session moment an item asks about, opening Replay in a new tab (on the dataset of the
    sessions, when the import named it)."""
    from urllib.parse import urlencode

    step = context.get("moments", {}).get(item_id)
    why = context.get("unmatched", {}).get(item_id)
    if step is None:
        st.caption(f"Not linked to a session moment: {md_line(why or 'no moment for this item')}")
        return
    params = {"session": context.get("session_id", ""), "step": int(step)}
    if context.get("dataset"):
        params["dataset"] = context["dataset"]
    st.link_button(
        f"Open action {int(step) + 1} of {md_line(context.get('session_id', ''))} in Replay",  # a label: Markdown
        f"replay?{urlencode(params)}",
        icon=":material/play_circle:",
    )
    if not context.get("checked", True):
        st.caption("The moment follows the transcript-row rule; it was not checked against imported sessions.")


def banner(bench) -> None:
    """What the benchmark is, and that it is synthetic when it is (its name is data: shown as text)."""
    st.caption(md_text(bench.description or f"A {bench.kind} benchmark."))
    synthetic_banner(bench)


# -- a benchmark judged on rubrics (SynchToM) --------------------------------------------------------

TURN_FLAGS = {
    "red_herring": "red herring",
    "interpretation": "interpretation",
    "observation_hidden_context": "hidden context",
}
GROUND_TRUTH = {
    "user_latent_belief": "User's latent belief",
    "true_latent_state": "True latent state",
    "root_cause_of_misconception": "Root cause of the misconception",
    "user_profile": "User profile",
    "misconception_type": "Misconception type",
}


def rubric_benchmark(bench) -> None:
    """The Compare views of a benchmark whose outputs are judged on each item's rubric (SynchToM):
    what it holds, each judged run's scores per dimension as the paper reports them, and every item
    with its scenario, rubric and trajectory."""
    counts = bench.items["benchmark"].value_counts()
    per = ", ".join(f"{md_line(b)} {fmt_count(counts[b])}" for b in benchmark_order(counts.index))
    st.caption(
        f"{fmt_count(len(bench.items))} items ({per}); {fmt_count(len(bench.judged))} judged run(s). Each model's "
        "output is judged on the item's rubric: a score per dimension is the share of its criteria met."
    )
    if bench.judged:
        with st.expander("Judged runs and coverage"):
            st.dataframe(_judged_runs(bench), hide_index=True, width="stretch")
            st.caption(
                "scored: items the run's score files have; missing: items of the run's benchmark files they do not "
                "(evaluate.py leaves out an instance whose judging failed); its scores are averaged over the items it has."
            )
    views = {"Scores": _rubric_scores, "Items": _rubric_items} if bench.judged else {"Items": _rubric_items}
    tabs = st.tabs(list(views), key="synchtom_tab", on_change="rerun")
    for tab, render in zip(tabs, views.values()):
        if tab.open:
            with tab:
                render(bench)


def _judged_runs(bench) -> pd.DataFrame:
    """One row per judged run: who, in which setting, by which judge, its items and where it came from."""
    keys = ("run", "model", "setting", "judge", "scored")
    return pd.DataFrame(
        [{**{k: r.as_dict()[k] for k in keys}, "missing": len(r.missing), "source": r.source} for r in bench.judged]
    )


def rubric_scores_frame(bench, judge: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the long scores of ``judge``'s runs, the paper's Table 3 as printed: a row per model and
    dimension, a column per benchmark and setting)."""
    scores = dimension_scores(bench)
    mine = scores[scores["judge"] == judge]
    table = paper_table(mine)
    if table.empty:
        return mine, table
    table.columns = [f"{b} · {c}" for b, c in table.columns]
    return mine, table.reset_index().drop(columns="judge")


def _rubric_scores(bench) -> None:
    judges = sorted({r.judge for r in bench.judged})
    judge = st.selectbox("Judge", judges, key="synchtom_judge") if len(judges) > 1 else judges[0]
    scores, table = rubric_scores_frame(bench, judge)
    st.dataframe(table, hide_index=True, width="stretch", key="synchtom_scores")
    n = scores.drop_duplicates(["run", "benchmark"])
    short = n[n["n"] < n["items"]]
    st.caption(
        f"Judge {md_line(judge)}. Each cell: the mean over the benchmark file's items of the criteria met as a "
        "share of the item's rubric's criteria, in percent (evaluate.py's normalisation); Belief, Profile and "
        "Solution are the dimensions latent_belief_explanation, user_profile_modeling and correct_resolution, "
        "AVG their mean, as in the SynchToM paper's Table 3; vanilla: no trajectory (step0), N-Turn: its first N "
        "turns."
        + (
            " Some runs have fewer items than their benchmark files (see Judged runs and coverage)."
            if len(short)
            else ""
        )
    )
    csv_button("Download CSV", scores, "synchtom_scores.csv", key="synchtom_scores_csv")


def _rubric_items(bench) -> None:
    items = bench.items
    which = st.selectbox("Benchmark", ["(any)", *benchmark_order(items["benchmark"].unique())], key="synchtom_bench")
    view = items if which == "(any)" else items[items["benchmark"] == which]
    shown = view[["item_id", "benchmark", "domain", "misconception_type", "question"]].rename(
        columns={"question": "explicit instruction"}
    )
    st.dataframe(shown.reset_index(drop=True), hide_index=True, width="stretch", key="synchtom_items")
    st.caption(
        f"{fmt_count(len(view))} item(s). Choose one below the table to read its scenario, rubric and trajectory."
    )
    item_id = st.selectbox("Item", view["item_id"].tolist(), key="synchtom_item")
    if item_id is not None:
        _rubric_item(bench, item_id)


def _rubric_item(bench, item_id: str) -> None:
    ctx = bench.contexts.get(item_id, {})
    item = ctx.get("item", {})
    st.subheader(md_line(item_id))
    st.caption(f"{md_line(ctx.get('file', ''))} · {md_line(item.get('domain', ''))}")
    st.markdown(f"**Observation:** {md_text(item.get('observation', ''))}")
    st.markdown(f"**Explicit instruction:** {md_text(item.get('explicit_instruction', ''))}")
    with st.expander("Ground truth (what the model is to infer)"):
        for key, title in GROUND_TRUTH.items():
            st.markdown(f"**{title}:** {md_text(item.get(key, ''))}")
    with st.expander("Rubric"):
        for dim in DIMENSIONS:
            criteria = item.get("rubrics", {}).get(dim, [])
            st.markdown(f"**{md_line(dim)}** ({len(criteria)} criteria)")
            st.markdown("\n".join(f"{k}. {md_line(c.get('criterion', ''))}" for k, c in enumerate(criteria, 1)))
    turns = ctx.get("trajectory", {}).get("trajectory", [])
    with st.expander(f"Trajectory ({len(turns)} turns)", expanded=True):
        for t in turns:
            st.markdown(f"**Turn {md_line(t.get('turn', ''))}.** {md_text(t.get('action', ''))}")
            if "observation" in t:
                st.caption(md_text(t["observation"]))
            else:
                st.caption("(no observation: the model is given an empty one)")
            flags = [f"{name}: {t[key]}" for key, name in TURN_FLAGS.items() if key in t]
            if flags:
                st.caption(f"Not shown to the model: {md_line('; '.join(flags))}")
    rows = []
    for r in bench.judged:
        s = r.scores[r.scores["item_id"] == item_id]
        if len(s):
            rows.append(
                {"run": r.run_id, **{d: f"{sc} / {cr}" for d, sc, cr in zip(s["dimension"], s["score"], s["criteria"])}}
            )
    if rows:
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="synchtom_item_scores")
        st.caption("Criteria met / the rubric's criteria, per judged run and dimension.")
