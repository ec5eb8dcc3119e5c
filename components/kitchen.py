"""The Kitchen screen's parts: what the runs are, the coordination metrics per pairing (with each
agent's scaffold), model pairing, scaffold or level, with a ``!`` on every estimate that rests on
fewer than 10 units or whose interval has no width; the paper's Table 4 view (success and ADR per
model pairing, scaffold and level); the TGCO outcome composition per level (the paper's Fig. 3,
left) and the request units behind a bar with why each was coded as it was; the messages no unit
was read from; and an uploaded reference audit (the TGCO authors' own) set against this one, every
disagreement opening its step in the replay. Every text from the runs (model names, actions,
reasons, messages) is shown as text: dataframe cells, Markdown through :func:`corpus.escape.md_text`,
or Plotly strings through :func:`corpus.escape.plotly_text`."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis.format import fmt, fmt_count, fmt_interval, fmt_share
from analysis.kitchen.metrics import METRICS, MIN_UNITS, RunMetrics
from analysis.results import EstimateTable, wilson
from components.chart import figure
from components.palette import OUTCOME, OUTCOME_PATTERN
from corpus.escape import md_line, plotly_text
from corpus.kitchen.dataset import KitchenCorpus
from corpus.loading.report import Report
from corpus.store import User
from corpus.values import is_defined
from services import datasets, sessions, uploads
from services import kitchen as svc

BAR_TEXT = "#000000"  # the count inside a composition bar
BAR_TEXT_HALO = "0 0 2px #FFFFFF, 0 0 3px #FFFFFF"
SHOWN = ("follow_rate", "comm_cost", "adr", "idensity", "mor", "validator_corrections", "success", "tokens", "steps")


def overview(kitchen: KitchenCorpus, metrics: tuple[RunMetrics, ...]) -> None:
    """Counts of the runs shown: runs, directed pairings (scaffolds with models), scaffolds, levels,
    request units, success (with its Wilson interval over runs)."""
    c = st.columns(6)
    c[0].metric("Runs", fmt_count(len(metrics)), help=f"of {fmt_count(len(kitchen.runs))} in the dataset")
    c[1].metric(
        "Pairings",
        fmt_count(len({m.pairing for m in metrics})),
        help="Directed, each agent's scaffold with its model: Chef -> Assistant",
    )
    named = {s.strip() for m in metrics for s in m.scaffold.split(" -> ")} - {"", "?"}
    c[2].metric("Scaffolds", fmt_count(len(named)), help="The agent frameworks the runs' agents have")
    levels = sorted({m.level for m in metrics if m.level is not None})
    c[3].metric("Levels", ", ".join(map(str, levels)) or "unknown")
    c[4].metric("Request units", fmt_count(sum(m.requests for m in metrics)))
    won = sum(m.success for m in metrics)
    share = wilson(won, len(metrics))
    c[5].metric(
        "Success",
        f"{fmt_count(won)} of {fmt_count(len(metrics))}",
        help=f"Wilson 95% interval {fmt_interval(share.interval)}" if share.defined else None,
    )


SCAFFOLDS_KEY = "kitchen_scaffolds"


def scaffold_filter(choices: list[str]) -> tuple[str, ...] | None:
    """The scaffolds whose runs are shown (every one at first; None when all are chosen). A choice
    kept from another dataset that this one lacks is dropped, not refused."""
    state = st.session_state
    if SCAFFOLDS_KEY in state:
        held = list(state[SCAFFOLDS_KEY])
        kept = [c for c in held if c in choices]
        state[SCAFFOLDS_KEY] = kept if kept or not held else list(choices)
    chosen = st.multiselect(
        "Scaffolds",
        choices,
        default=None if SCAFFOLDS_KEY in state else choices,
        key=SCAFFOLDS_KEY,
        help="Keep the runs where an agent has one of these scaffolds (the agent framework each run names).",
    )
    return None if set(chosen) == set(choices) else tuple(sorted(chosen))


WARNED = " !"  # after a cell whose estimate carries a warning (few units, a zero-width interval)


def _cell(row: dict) -> str:
    """One metric as printed: mean [interval] (n), and ``!`` when it carries a warning."""
    if not is_defined(row["estimate"]):
        return fmt(row["estimate"])
    interval = (row["ci_low"], row["ci_high"])
    shown = fmt_interval(interval) if all(is_defined(v) for v in interval) else "no interval"
    return f"{fmt(row['estimate'], 2)} {shown} (n = {row['n']})" + (WARNED if row.get("note") else "")


def metric_view(table: EstimateTable, by: tuple[str, ...]) -> pd.DataFrame:
    """The table as a reader scans it: one row per group, one column per metric, and the warnings
    of the group's marked cells, each after its metric's name."""
    rows: dict[tuple, dict[str, str]] = {}
    warned: dict[tuple, list[str]] = {}
    for r in table.rows:
        if r["metric"] not in SHOWN:
            continue
        key = tuple(r[b] for b in by)
        name = METRICS[r["metric"]][0]
        rows.setdefault(key, dict(zip(by, map(str, key))))[name] = _cell(r)
        if is_defined(r["estimate"]) and r.get("note"):
            warned.setdefault(key, []).append(f"{name}: {r['note']}")
    for key, row in rows.items():
        row["warnings"] = "; ".join(warned.get(key, []))
    return pd.DataFrame(list(rows.values()))


def show_metrics(table: EstimateTable, by: tuple[str, ...], key: str) -> None:
    st.dataframe(
        metric_view(table, by),
        hide_index=True,
        width="stretch",
        key=key,
        column_config={"warnings": st.column_config.TextColumn(width="large")},
    )
    st.caption(
        "Each cell: the mean over runs, its 95% interval over runs (percentile bootstrap, 2,000 resamples, seed 0) "
        "and n, the runs with a value; success is the share of runs with its Wilson interval. "
        f"! marks an estimate that rests on fewer than {MIN_UNITS} units (request units, trigger actions, "
        "accepted dependencies or runs) or whose interval has no width: the warnings column says which. "
        + " ".join(f"{METRICS[k][0]}: {METRICS[k][2]}." for k in SHOWN)
        + " "
        + _notes(table.notes)
    )


def table4_view(table: EstimateTable) -> pd.DataFrame:
    """The paper's Table 4 as a reader scans it: one row per model pairing and scaffold, success and
    ADR per level beside each other, and the warnings of the marked cells."""
    rows: dict[tuple, dict[str, str]] = {}
    warned: dict[tuple, list[str]] = {}
    levels = sorted({r["level"] for r in table.rows}, key=lambda v: (not isinstance(v, int), str(v)))
    for r in table.rows:
        key = (r["models"], r["scaffold"])
        row = rows.setdefault(key, {"models": str(key[0]), "scaffold": str(key[1])})
        name = f"level {r['level']} {'success' if r['metric'] == 'success' else 'ADR'}"
        row[name] = _cell(r)
        if is_defined(r["estimate"]) and r.get("note"):
            warned.setdefault(key, []).append(f"{name}: {r['note']}")
    cols = ["models", "scaffold"] + [f"level {lv} {m}" for lv in levels for m in ("success", "ADR")]
    for key, row in rows.items():
        row["warnings"] = "; ".join(warned.get(key, []))
    return pd.DataFrame(list(rows.values()), columns=[*cols, "warnings"]).fillna("")


def show_table4(table: EstimateTable, key: str) -> None:
    st.dataframe(
        table4_view(table),
        hide_index=True,
        width="stretch",
        key=key,
        column_config={"warnings": st.column_config.TextColumn(width="large")},
    )
    st.caption(
        "The paper's Table 4: per model pairing (Chef -> Assistant) and scaffold, the share of runs that succeeded "
        "(Wilson interval over runs) and ADR (mean over runs, percentile bootstrap) at each task level, n the runs. "
        "A scaffold not recorded in the runs reads '(not recorded)'. ! as above."
    )


def unstructured_view(frame: pd.DataFrame, key: str) -> None:
    """The messages no request unit was read from, in an expander: each with its text and a link to
    its step."""
    with st.expander(f"Unstructured messages: {fmt_count(len(frame))}"):
        _unstructured(frame, key)


def _unstructured(frame: pd.DataFrame, key: str) -> None:
    st.caption(
        f"{fmt_count(len(frame))} message(s) from which no request unit was read: left out of FollowRate, listed so "
        "a person can code them (the rules that read messages are in docs/analysis.md)."
    )
    _with_replay_links(frame, key, wide="said")


# -- a reference audit ---------------------------------------------------------------------------

REFERENCE_UPLOAD = "kitchen_reference_csv"
REFERENCE_CHARGED = "kitchen_reference_charged"  # the file ids already counted against the allowance


def reference_upload(user: User | None) -> tuple[bytes, str] | None:
    """The reference audit a visitor uploads (a CSV, within the upload policy and allowance), or None."""
    from analysis.kitchen.reference import MAX_BYTES

    why = uploads.refusal(user, datasets=False)
    if why is not None:
        st.caption(md_line(why))
        return None
    sessions.watch()  # the file goes when this session ends
    up = st.file_uploader(
        "The authors' audit (tgco_request_units.csv)",
        type=["csv"],
        key=REFERENCE_UPLOAD,
        max_upload_size=max(1, MAX_BYTES // 2**20),
        help="One row per request unit: source_file, message_timestep, speaker, target_agent, request_action, "
        "request_object, tgco_label (as scripts/analysis/tgco_audit.py of the TGCO paper's repository writes it).",
    )
    allowance = st.empty()
    found = None
    if up is not None:
        data = up.getvalue()
        charged = st.session_state.setdefault(REFERENCE_CHARGED, set())
        over = None if up.file_id in charged else uploads.refusal_of_bytes(user, len(data))
        if over is not None:
            st.error(md_line(over))
        else:
            if up.file_id not in charged:
                uploads.charge(user, len(data))
                charged.add(up.file_id)
            found = data, up.name
    allowance.caption(uploads.session_allowance_text(user))
    return found


def show_reference(kitchen: KitchenCorpus, found, key: str) -> None:
    """The agreement of this audit with the reference, its confusion, and every disagreement with a
    link to its step; or the file's problems."""
    from components.dataset import show_report

    if isinstance(found, Report):
        st.error(
            f"The reference audit has {found.error_count} problem(s); nothing was compared. Each is listed with its "
            "file, row and field.",
            icon=":material/error:",
        )
        show_report(found)
        return
    k = found.kappa
    c = st.columns(4)
    c[0].metric("Matched units", fmt_count(found.matched), help="Request units both audits found")
    c[1].metric("Only ours", fmt_count(len(found.only_ours)))
    c[2].metric("Only theirs", fmt_count(len(found.only_theirs)))
    c[3].metric(
        "Cohen's kappa",
        fmt(k.estimate, 2) + (WARNED if k.defined and k.warnings else ""),
        help=(f"95% interval {fmt_interval(k.interval)} ({k.interval_method}); " if k.defined else "")
        + f"{found.agreeing} of {found.matched} matched units given the same outcome"
        + ("; " + "; ".join(k.warnings) if k.defined and k.warnings else ""),
    )
    if k.defined:
        st.markdown(
            f"**Agreement:** Cohen's kappa {fmt(k.estimate, 3)}, 95% interval {fmt_interval(k.interval)}, over "
            f"{fmt_count(found.matched)} matched units on {fmt_count(len(found.runs))} run(s) "
            f"({fmt_count(found.agreeing)} given the same outcome)."
        )
    else:
        st.info(md_line(f"No kappa: {k.estimate}."))
    if found.other_runs:
        st.caption(
            f"{fmt_count(sum(found.other_runs.values()))} row(s) of the file name {fmt_count(len(found.other_runs))} "
            "run(s) that are not in this dataset: left out."
        )
    left, right = st.columns([2, 3])
    with left:
        st.markdown("**Confusion** (ours in rows, theirs in columns)")
        st.dataframe(found.confusion(), width="stretch", key=f"{key}_confusion")
    with right:
        st.caption(
            "This audit follows the paper's Appendix C; the authors' script departs from it in places (its window "
            "of 5 steps after the message, redundancy by the target only, one completion credited to one request, "
            "validator errors up to the match, no relevance check, its own reading of messages). Each disagreement "
            "says which rule explains it, where one does."
        )
    dis = svc.reference_disagreements(kitchen, found)
    box = st.container(key=f"{key}_disagreements_box")
    box.markdown(f"**Disagreements: {fmt_count(len(dis))}**")
    box.dataframe(
        dis,
        hide_index=True,
        width="stretch",
        key=f"{key}_disagreements",
        column_config={
            "replay": st.column_config.LinkColumn("replay", display_text="open at this step"),
            "why ours": st.column_config.TextColumn(width="large"),
            "why theirs": st.column_config.TextColumn(width="large"),
            "said": st.column_config.TextColumn(width="large"),
        },
        column_order=["replay", *[c for c in dis.columns if c != "replay"]],
    )
    with st.expander(f"Only ours: {fmt_count(len(found.only_ours))} request unit(s) their audit did not find"):
        st.dataframe(found.only_ours_frame(), hide_index=True, width="stretch", key=f"{key}_only_ours")
    with st.expander(f"Only theirs: {fmt_count(len(found.only_theirs))} request unit(s) this audit did not find"):
        st.dataframe(found.only_theirs_frame(), hide_index=True, width="stretch", key=f"{key}_only_theirs")


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
                "customdata": [[lv, outcome, fmt_share(v)] for lv, v in zip(levels, d["estimate"])],
                "hovertemplate": f"%{{x}}, {outcome}: %{{customdata[2]}} of request units (%{{text}})<br>"
                "click: list them<extra></extra>",
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
    _with_replay_links(units, key, wide="reason")


def _with_replay_links(frame: pd.DataFrame, key: str, wide: str) -> None:
    """A table of request units or messages, its column ``wide`` given room, its replay links opening
    the step."""
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        key=key,
        column_config={
            wide: st.column_config.TextColumn(width="large"),
            "replay": st.column_config.LinkColumn("replay", display_text="open at this step"),
        },
    )


RUN_KEY = "kitchen_run"


def replay_controls(kitchen: KitchenCorpus, run_ids: list[str]) -> str:
    """The run to replay: picked here, or from the link (``?run=...``) on the first visit; the link
    follows what is shown. (The step is the player's: :func:`components.tile_player.tile_player`,
    with the same keys as the Map Task replay.)"""
    state, params = st.session_state, st.query_params
    if RUN_KEY not in state or state[RUN_KEY] not in run_ids:
        wanted = params.get("run")
        state[RUN_KEY] = wanted if wanted in run_ids else run_ids[0]
    runs = {r.id: r for r in kitchen.runs}
    run_id = st.selectbox(
        "Run",
        run_ids,
        key=RUN_KEY,
        format_func=lambda r: f"{r} · {runs[r].pairing} · {runs[r].recipe} · {runs[r].n_steps} steps",
    )
    params.update(datasets.link_params(datasets.current_source()))
    params["run"] = run_id
    return run_id
