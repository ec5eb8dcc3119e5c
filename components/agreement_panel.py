"""The live agreement panel: refreshes itself (a fragment with ``run_every``) as labels come in.

- For the lead: one refresh computes one :class:`analysis.agreement.AgreementReport` on the human
  coders' current labels (with a bootstrap interval for kappa) and kappa's drift; the headline
  numbers, their interval, the diagnostics, the matrices and the most disagreed items all come
  from it, so they always rest on the same labels. Below :data:`analysis.agreement.PANEL_MIN_ITEMS`
  items coded by every coder a statistic reads "too few items (n complete)" instead of a number.
  Then progress per coder, agreement per codebook version, and the model coders (an imported
  model's Cohen's kappa against gold, or the human majority, on the validation partition).
- For a coder: only the aggregate numbers of the latest snapshot the lead shared
  (``Store.shared_snapshot``), never numbers recomputed on the coder's own labels.

A statistic without a value is shown as "undefined, because ...", never as 0 or NaN.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis import agreement as ag
from analysis.format import fmt, fmt_share
from components import agreement_view as view
from corpus.store import AccessDenied, Store, User

REFRESH_SECONDS = 2
PANEL_BOOTSTRAP = 200  # resamples for the live interval (the exports use 1,000)
COLS = dict(item="item_id", coder="coder", label="code")
LABELS = ("Fleiss' kappa", "Krippendorff's alpha", "Percent agreement", "Mean pairwise Cohen's kappa", "Gwet's AC1")
NO_LABELS = "there are no labels yet"


def human_labels(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["coder_kind"] == "human"] if "coder_kind" in frame.columns else frame


def human_panel(frame: pd.DataFrame) -> ag.Headline | None:
    """Headline numbers on the human coders' labels (what a coder may be shown: numbers only);
    None when there is no label yet."""
    humans = human_labels(frame)
    if humans.empty:
        return None
    return ag.panel(ag.LabelTable(humans, **COLS), min_items=ag.PANEL_MIN_ITEMS)


def numbers_row(head: ag.Headline | None, who: str = "") -> None:
    """The five statistics as tiles, with kappa's interval and the counts they rest on."""
    cols = st.columns(len(LABELS))
    if head is None:
        for col, label in zip(cols, LABELS):
            col.metric(label, "undefined")
            col.caption(f"undefined, because {NO_LABELS}")
        return
    for col, est, label in zip(cols, head.statistics, LABELS):
        view.metric(col, est, label, digits=3)
    st.caption(f"{who}{head.n_labels} labels from {head.n_coders} coders on {head.n_items} items; "
               f"Fleiss' kappa on the {head.n_items_complete} items coded by every coder "
               f"(numbers shown from {ag.PANEL_MIN_ITEMS} such items on).")


@dataclass(frozen=True)
class LiveAgreement:
    """One refresh of the lead's panel: everything it shows rests on these labels."""

    humans: pd.DataFrame
    report: ag.AgreementReport | None  # None: no human label yet
    headline: ag.Headline | None
    drift: pd.DataFrame
    step: int


def lead_refresh(cur: pd.DataFrame, n_items_in_task: int) -> LiveAgreement:
    """The lead panel's numbers on the current labels (pure: no Streamlit, no store)."""
    humans = human_labels(cur)
    step = 20 if n_items_in_task >= 60 else 5
    if humans.empty:
        return LiveAgreement(humans, None, None, pd.DataFrame(), step)
    table = ag.LabelTable(humans, **COLS)
    # The panel shows kappa's interval: only kappa is resampled.
    rep = replace(ag.report(table, n_boot=0, top_disagreements=10), fleiss=ag.fleiss(table, n_boot=PANEL_BOOTSTRAP))
    drift = ag.kappa_drift(table, order="created_at", step=step)
    return LiveAgreement(humans, rep, rep.at_least(ag.PANEL_MIN_ITEMS), drift, step)


def live_labels(store: Store, user: User, task_id: int) -> pd.DataFrame:
    """The task's current labels for this session, read incrementally (only rows added since the
    last refresh), so a refresh costs the same at 50 labels and at 50,000."""
    key = f"live_labels_{task_id}"
    cur = store.refresh_labels(user, task_id, st.session_state.get(key))
    st.session_state[key] = cur
    return cur


def live_agreement(store: Store, user: User, task_id: int) -> tuple[pd.DataFrame, LiveAgreement]:
    """(current labels, their agreement); recomputed only when a label was given since the last
    refresh (the session keeps the last result with the labels' count and newest id)."""
    cur = live_labels(store, user, task_id)
    token = (task_id, len(cur), int(cur["id"].max()) if len(cur) else 0)
    held = st.session_state.get(f"live_agreement_{task_id}")
    if held is None or held[0] != token:
        held = (token, lead_refresh(cur, store.task(task_id).n_items))
        st.session_state[f"live_agreement_{task_id}"] = held
    return cur, held[1]


def drift_figure(drift: pd.DataFrame, step: int) -> go.Figure:
    fig = go.Figure(go.Scatter(x=drift["n_items"], y=drift["kappa"], mode="lines+markers", name="Fleiss' kappa",
                               hovertemplate="first %{x} items: kappa %{y:.3f}<extra></extra>"))
    fig.update_layout(
        height=260, margin={"l": 40, "r": 10, "t": 30, "b": 40},
        title={"text": f"Kappa as coding proceeds (first {step}, {2 * step}, ... complete items)", "font": {"size": 13}},
        xaxis_title="items coded by every coder", yaxis_title="Fleiss' kappa", yaxis_range=[-0.2, 1.0],
    )
    fig.add_hline(y=0.8, line_dash="dot", line_color="#16a34a", annotation_text="0.8", annotation_position="bottom left")
    return fig


# -- the lead's panel ---------------------------------------------------------------------------


def lead_panel(store: Store, user: User, task_id: int) -> None:
    st.subheader("Live agreement")
    _lead_fragment(store, user, task_id)


@st.fragment(run_every=REFRESH_SECONDS)
def _lead_fragment(store: Store, user: User, task_id: int) -> None:
    """Headline numbers, progress and details from one refresh."""
    cur, live = live_agreement(store, user, task_id)
    numbers_row(live.headline)
    counts = cur.groupby("coder").size() if len(cur) else pd.Series(dtype=int)
    n_items = store.task(task_id).n_items
    coders = store.coders(task_id)
    if coders:
        st.caption("Progress: " + " · ".join(f"{u.username} {int(counts.get(u.username, 0))}/{n_items}" for u in coders))
    if live.report is not None:
        details(live, task_id)
    model_view(store, user, task_id, cur)


def details(live: LiveAgreement, task_id: int) -> None:
    """Diagnostics, per-category kappa, per-version numbers, drift, matrices, most disagreed items."""
    rep = live.report
    for w in rep.diagnostics.warnings:
        st.warning(w, icon=":material/warning:")
    if not rep.diagnostics.warnings:
        st.caption("Diagnostics: no prevalence skew, coder bias, sparse categories or shortage of items found.")
    with st.expander("Per-category kappa and category shares"):
        uses = rep.diagnostics.category_uses
        total = max(sum(uses.values()), 1)
        per_cat = live.headline.fleiss.per_category
        st.dataframe(pd.DataFrame({"category": list(uses), "labels": list(uses.values()),
                                   "share": [u / total for u in uses.values()],
                                   "kappa": [fmt(per_cat.get(c)) for c in uses]}), hide_index=True, width="stretch")
        st.caption(f"Most common: {rep.diagnostics.prevalence_category} "
                   f"({fmt_share(rep.diagnostics.prevalence_share)} of labels).")
    by_version(live.humans)
    c1, c2 = st.columns(2)
    with c1:
        drift = live.drift
        if len(drift):
            st.plotly_chart(drift_figure(drift, live.step), key=f"drift_{task_id}", width="stretch")
            undefined = drift[drift["kappa"].isna()]
            if len(undefined):
                st.caption("; ".join(f"first {r.n_items}: undefined, because {r.reason}" for r in undefined.itertuples()))
        else:
            st.caption("Kappa's drift appears once items are coded by every coder.")
    with c2:
        matrices(live, task_id)
    if not rep.most_disagreed.empty:
        st.markdown("**Most disagreed items**")
        view.disagreements(rep)


def matrices(live: LiveAgreement, task_id: int) -> None:
    """The coincidence matrix, or one pair of coders' confusion matrix."""
    coders = live.report.coders
    if len(coders) < 2:
        return
    pick = st.selectbox("Matrix", ["Coincidence (all coders)"] + [f"{a} vs {b}" for i, a in enumerate(coders) for b in coders[i + 1:]],
                        key=f"adj_matrix_{task_id}")
    if pick.startswith("Coincidence"):
        view.matrix(view.coincidence_table(live.report), "", "", "Coincidence matrix", key=f"coinc_{task_id}")
        return
    a, b = pick.split(" vs ")
    try:
        cm = ag.confusion_matrix(ag.LabelTable(live.humans, **COLS), a, b)
    except ag.MatrixTooLarge as exc:
        cm = exc
    view.matrix(cm, b, a, f"Confusion: {a} (rows) vs {b}", key=f"conf_{task_id}")


def by_version(humans: pd.DataFrame) -> None:
    """Agreement per codebook version, once the task has labels under more than one."""
    versions = sorted(humans["codebook_version"].dropna().unique().tolist()) if len(humans) else []
    if len(versions) < 2:
        return
    table = ag.LabelTable(humans, **COLS)
    rows = []
    for v in versions:
        head = ag.panel(table.where(humans["codebook_version"] == v), min_items=ag.PANEL_MIN_ITEMS)
        rows.append({"codebook version": v, "labels": head.n_labels, "items": head.n_items,
                     **{label: fmt(est.estimate) for label, est in zip(LABELS, head.statistics)}})
    st.markdown("**By codebook version** (current labels, by the version each was given under)")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def model_view(store: Store, user: User, task_id: int, cur: pd.DataFrame) -> None:
    """Each model (or externally coded) coder against gold, else the human majority, on validation items."""
    models = sorted(cur.loc[cur["coder_kind"] != "human", "coder"].unique().tolist())
    if not models:
        return
    st.markdown("**Model coders** (on the validation partition)")
    df = cur.merge(store.items(task_id)[["item_id", "partition"]], on="item_id", how="left")
    gold = store.gold(user, task_id)
    gold_map = dict(zip(gold["item_id"], gold["code"])) if not gold.empty else None
    humans_val = df[(df["coder_kind"] == "human") & (df["partition"] == "validation")]
    human_k = ag.panel(ag.LabelTable(humans_val, **COLS)).fleiss.estimate if len(humans_val) \
        else ag.Undefined("no human labels on validation items")
    table = ag.LabelTable(df, **COLS)
    rows = []
    for m in models:
        try:
            r = ag.coder_vs_gold(table, m, gold=gold_map if gold_map else "majority", partition="validation",
                                 exclude_coders=[x for x in models if x != m])
        except KeyError as exc:
            rows.append({"coder": m, "against": "-", "items": 0, "cohen_kappa": f"undefined, because {exc.args[0]}",
                         "percent_agreement": ""})
            continue
        rows.append({"coder": m, "against": "gold" if gold_map else r.gold, "items": r.cohen.n,
                     "cohen_kappa": fmt(r.cohen.estimate), "percent_agreement": fmt(r.percent_agreement.estimate)})
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    st.caption(f"Humans among themselves on the same partition: Fleiss' kappa {fmt(human_k)}.")


# -- a coder's view ----------------------------------------------------------------------------


def coder_panel(store: Store, user: User, task_id: int) -> None:
    """Aggregate numbers for a coder, if the lead shares them (never per-item information)."""
    task = store.task(task_id)
    if not task.share_agreement:
        return
    st.subheader("Team agreement")
    _coder_fragment(store, user, task_id)


@st.fragment(run_every=REFRESH_SECONDS * 3)
def _coder_fragment(store: Store, user: User, task_id: int) -> None:
    try:
        snap = store.shared_snapshot(user, task_id)
    except AccessDenied as exc:
        st.info(str(exc))
        return
    numbers_row(ag.Headline.from_json(snap.numbers), who="Team: ")
    st.caption(f"As the lead shared them on {snap.taken_at:%Y-%m-%d %H:%M} UTC.")
