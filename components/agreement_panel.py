"""The live agreement panel: refreshes itself (a fragment with ``run_every``) as labels come in.

- For the lead: the panel numbers (:func:`analysis.agreement.panel`) on the human coders, the
  diagnostics of :func:`analysis.agreement.report` (without bootstrap), kappa's drift as coding
  proceeds, the coincidence matrix or one pair's confusion matrix, the most disagreed items,
  progress per coder, and the model coder view (an imported model's Cohen's kappa against gold,
  or the human majority, on the validation partition).
- For a coder: only the aggregate numbers of the latest snapshot the lead shared
  (``Store.shared_snapshot``), never numbers recomputed on the coder's own labels.

A statistic without a value is shown as "undefined, because ...", never as 0 or NaN.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis import agreement as ag
from components import agreement_view as view
from corpus.store import AccessDenied, Store, User

REFRESH_SECONDS = 2
DETAILS_SECONDS = 10
COLS = dict(item_col="item_id", coder_col="coder", label_col="code")
STATS = (
    ("fleiss_kappa", "Fleiss' kappa"),
    ("krippendorff_alpha", "Krippendorff's alpha"),
    ("percent_agreement", "Percent agreement"),
    ("mean_pairwise_cohen_kappa", "Mean pairwise Cohen's kappa"),
    ("gwet_ac1", "Gwet's AC1"),
)


def fmt(v: Any, digits: int = 3) -> str:
    """A statistic as text: a number, or "undefined, because ..."."""
    if isinstance(v, ag.Undefined):
        return str(v)
    if isinstance(v, dict) and "undefined" in v:
        return f"undefined, because {v['undefined']}"
    if v is None:
        return "undefined, because there are no labels yet"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _metric(col, label: str, v: Any, help: str | None = None) -> None:
    if isinstance(v, (ag.Undefined, dict)) or v is None:
        col.metric(label, "undefined", help=help)
        col.caption(fmt(v))
    else:
        col.metric(label, fmt(v), help=help)


def numbers_row(nums: dict[str, Any], who: str = "") -> None:
    """The panel's five statistics as metrics, with the counts they rest on."""
    cols = st.columns(len(STATS))
    for col, (key, label) in zip(cols, STATS):
        _metric(col, label, nums.get(key),
                help=f"on {nums.get('fleiss_items_used', 0)} items coded by every coder" if key == "fleiss_kappa" else None)
    st.caption(
        f"{who}{nums.get('n_labels', 0)} labels from {nums.get('n_coders', 0)} coders on {nums.get('n_items', 0)} items; "
        f"Fleiss' kappa on the {nums.get('fleiss_items_used', 0)} items coded by every coder."
    )


def _empty_numbers() -> dict[str, Any]:
    none = ag.Undefined("there are no labels yet")
    return {"n_items": 0, "n_coders": 0, "n_labels": 0, "fleiss_items_used": 0,
            **{k: none for k, _ in STATS}}


def human_panel(frame: pd.DataFrame) -> dict[str, Any]:
    """Panel numbers on the human coders' labels (what a coder may be shown: numbers only)."""
    humans = frame[frame["coder_kind"] == "human"] if "coder_kind" in frame.columns else frame
    if humans.empty:
        return _empty_numbers()
    return ag.panel(humans, **COLS)


@st.cache_data(show_spinner=False, max_entries=64)
def _lead_details(token: tuple, _humans: pd.DataFrame, drift_step: int) -> dict[str, Any]:
    """The slower parts of the lead's panel; recomputed only when the labels change (``token``)."""
    if _humans.empty:
        return {"report": None, "drift": pd.DataFrame()}
    return {
        "report": ag.report(_humans, n_boot=0, top_disagreements=10, **COLS),
        "drift": ag.kappa_drift(_humans, order="created_at", step=drift_step, **COLS),
    }


def live_labels(store: Store, user: User, task_id: int) -> pd.DataFrame:
    """The task's current labels for this session, read incrementally (only rows added since the
    last refresh), so a refresh costs the same at 50 labels and at 50,000."""
    key = f"live_labels_{task_id}"
    cur = store.refresh_labels(user, task_id, st.session_state.get(key))
    st.session_state[key] = cur
    return cur


def _token(task_id: int, cur: pd.DataFrame) -> tuple:
    return (task_id, len(cur), int(cur["id"].max()) if len(cur) else 0)


def live_numbers(store: Store, user: User, task_id: int) -> tuple[pd.DataFrame, dict[str, Any]]:
    """(current labels, panel numbers on the human coders); the numbers are recomputed only when a
    label has been given since the last refresh."""
    cur = live_labels(store, user, task_id)
    token = _token(task_id, cur)
    held = st.session_state.get(f"live_numbers_{task_id}")
    if held is None or held[0] != token:
        held = (token, human_panel(cur))
        st.session_state[f"live_numbers_{task_id}"] = held
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
    _lead_numbers_fragment(store, user, task_id)
    _lead_details_fragment(store, user, task_id)


@st.fragment(run_every=REFRESH_SECONDS)
def _lead_numbers_fragment(store: Store, user: User, task_id: int) -> None:
    """The headline numbers and progress: refreshed every few seconds, cheap at any task size."""
    cur, nums = live_numbers(store, user, task_id)
    numbers_row(nums)
    counts = cur.groupby("coder").size() if len(cur) else pd.Series(dtype=int)
    n_items = store.task(task_id).n_items
    coders = store.coders(task_id)
    if coders:
        st.caption("Progress: " + " · ".join(f"{u.username} {int(counts.get(u.username, 0))}/{n_items}" for u in coders))


@st.fragment(run_every=DETAILS_SECONDS)
def _lead_details_fragment(store: Store, user: User, task_id: int) -> None:
    """Diagnostics, drift, matrices, most disagreed items and model coders: refreshed less often."""
    task = store.task(task_id)
    cur = live_labels(store, user, task_id)
    humans = cur[cur["coder_kind"] == "human"]
    step = 20 if task.n_items >= 60 else 5
    res = _lead_details(_token(task_id, cur), humans, step)
    rep = res["report"]
    if rep is not None:
        warnings = rep["diagnostics"]["warnings"]
        for w in warnings:
            st.warning(w, icon=":material/warning:")
        if not warnings:
            st.caption("Diagnostics: no prevalence skew, coder bias, sparse categories or shortage of items found.")
        prev = rep["diagnostics"]["prevalence"]
        per_cat = rep.get("per_category") or {}
        with st.expander("Per-category kappa and category shares"):
            uses = rep["diagnostics"]["category_uses"]
            total = max(sum(uses.values()), 1)
            st.dataframe(pd.DataFrame({
                "category": list(uses),
                "labels": list(uses.values()),
                "share": [u / total for u in uses.values()],
                "kappa": [fmt(per_cat.get(c)) for c in uses],
            }), hide_index=True, width="stretch")
            st.caption(f"Most common: {prev.get('category')} ({fmt(prev.get('share'), 2)} of labels).")
    by_version(humans)
    c1, c2 = st.columns(2)
    with c1:
        drift = res["drift"]
        if len(drift):
            undefined = drift[drift["kappa"].isna()]
            st.plotly_chart(drift_figure(drift, step), key=f"drift_{task_id}", width="stretch")
            if len(undefined):
                st.caption("; ".join(f"first {r.n_items}: undefined, because {r.reason}" for r in undefined.itertuples()))
        else:
            st.caption("Kappa's drift appears once items are coded by every coder.")
    with c2:
        coders = sorted(humans["coder"].unique().tolist())
        if len(coders) >= 2:
            pick = st.selectbox("Matrix", ["Coincidence (all coders)"] + [f"{a} vs {b}" for i, a in enumerate(coders) for b in coders[i + 1:]],
                                key=f"adj_matrix_{task_id}")
            if pick.startswith("Coincidence"):
                st.plotly_chart(view.matrix_figure(view.coincidence_frame(rep), "", "", "Coincidence matrix"),
                                key=f"coinc_{task_id}", width="stretch")
            else:
                a, b = pick.split(" vs ")
                cm = ag.confusion_matrix(humans, a, b, **COLS)
                st.plotly_chart(view.matrix_figure(cm, b, a, f"Confusion: {a} (rows) vs {b}"), key=f"conf_{task_id}", width="stretch")
    if rep is not None and rep["most_disagreed"]:
        st.markdown("**Most disagreed items**")
        view.disagreements(rep)
    model_view(store, user, task_id, cur)


def by_version(humans: pd.DataFrame) -> None:
    """Agreement per codebook version, once the task has labels under more than one."""
    versions = sorted(humans["codebook_version"].dropna().unique().tolist()) if len(humans) else []
    if len(versions) < 2:
        return
    rows = []
    for v in versions:
        nums = ag.panel(humans[humans["codebook_version"] == v], **COLS)
        rows.append({"codebook version": v, "labels": nums["n_labels"], "items": nums["n_items"],
                     **{label: fmt(nums.get(key)) for key, label in STATS}})
    st.markdown("**By codebook version** (current labels, by the version each was given under)")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def model_view(store: Store, user: User, task_id: int, cur: pd.DataFrame) -> None:
    """Each model (or externally coded) coder against gold, else the human majority, on validation items."""
    models = sorted(cur.loc[cur["coder_kind"] != "human", "coder"].unique().tolist())
    if not models:
        return
    st.markdown("**Model coders** (on the validation partition)")
    items = store.items(task_id)[["item_id", "partition"]]
    df = cur.merge(items, on="item_id", how="left")
    gold = store.gold(user, task_id)
    gold_map = dict(zip(gold["item_id"], gold["code"])) if not gold.empty else None
    humans_val = df[(df["coder_kind"] == "human") & (df["partition"] == "validation")]
    human_k = ag.panel(humans_val, **COLS)["fleiss_kappa"] if len(humans_val) else ag.Undefined("no human labels on validation items")
    rows = []
    for m in models:
        try:
            r = ag.coder_vs_gold(df, m, gold=gold_map if gold_map else "majority", partition="validation",
                                 exclude_coders=[x for x in models if x != m], **COLS)
        except KeyError as exc:
            rows.append({"coder": m, "against": "-", "items": 0, "cohen_kappa": f"undefined, because {exc.args[0]}",
                         "percent_agreement": ""})
            continue
        rows.append({"coder": m, "against": "gold" if gold_map else r["gold"], "items": r["n_items"],
                     "cohen_kappa": fmt(r["cohen_kappa"]), "percent_agreement": fmt(r["percent_agreement"])})
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
    numbers_row(snap.numbers, who="Team: ")
    st.caption(f"As the lead shared them on {snap.taken_at:%Y-%m-%d %H:%M} UTC.")
