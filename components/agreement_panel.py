"""The live agreement panel: it follows the labels as they come in (a fragment with ``run_every``).

- For the lead: every :data:`CHECK_SECONDS` a watch asks the store for the task's labels version
  (one cheap query); only when it changed does the page run again, and the panel recompute and
  redraw. One refresh (:func:`services.coding.live_panel`, computed by
  :func:`analysis.live_panel.lead_refresh`) gives the headline numbers, their interval, the
  progress, the diagnostics, the matrices, the most disagreed items and the model coders, so they
  always rest on the same labels.
  Below :data:`analysis.agreement.PANEL_MIN_ITEMS` items coded by every coder a statistic reads
  "too few items (n complete)" instead of a number.
  Then progress per coder, agreement per codebook version, and the model coders (an imported
  model's Cohen's kappa against gold, or the human majority, on the validation partition).
- For a coder: only the aggregate numbers of the latest snapshot the lead shared
  (``Store.shared_snapshot``), never numbers recomputed on the coder's own labels.

A statistic without a value is shown as "undefined, because ...", never as 0 or NaN.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis import agreement as ag
from analysis.format import fmt, fmt_share, fmt_time
from analysis.live_panel import LiveAgreement, ModelCoders
from components import agreement_view as view
from corpus.escape import md_text
from corpus.store import AccessDenied, Task, User
from services import tasks
from services.coding import labels_version, live_panel

# The lead's panel checks the labels version this often (one cheap query) and is redrawn only when a
# label came in, so a new label shows within a fraction of a second.
CHECK_SECONDS = 0.3
# A coder's view shows only snapshots the lead takes: read now and then.
CODER_REFRESH_SECONDS = 6
LABELS = ("Fleiss' kappa", "Krippendorff's alpha", "Percent agreement", "Mean Cohen's kappa", "Gwet's AC1")
NO_LABELS = "there are no labels yet"
GENERALIZED = "fleiss_kappa_generalized"
GENERALIZED_LABEL = "Fleiss' kappa (generalized)"


def numbers_row(head: ag.Headline | None, who: str = "") -> None:
    """The five statistics as tiles, with kappa's interval and the counts they rest on."""
    cols = st.columns(len(LABELS))
    if head is None:
        for col, label in zip(cols, LABELS):
            col.metric(label, "undefined")
            col.caption(f"undefined, because {NO_LABELS}")
        return
    general = head.fleiss.key == GENERALIZED
    for col, est, label in zip(cols, head.statistics, LABELS):
        view.metric(col, est, GENERALIZED_LABEL if est.key == GENERALIZED else label, digits=3)
    kappa = (
        f"Fleiss' kappa generalized to a varying number of coders per item (fewer than {ag.PANEL_MIN_ITEMS} "
        "items are coded by every coder)"
        if general
        else f"Fleiss' kappa on the {head.n_items_complete} items coded by every coder"
    )
    pairable = "" if general else ", the others"
    st.caption(
        f"{who}{head.n_labels} labels from {head.n_coders} coders on {head.n_items} items; {kappa}{pairable} on the "
        f"{head.n_items_pairable} items with two or more labels (each number shown from {ag.PANEL_MIN_ITEMS} "
        "such items on)."
    )


def drift_figure(drift: pd.DataFrame, step: int) -> go.Figure:
    fig = go.Figure(
        go.Scatter(
            x=drift["n_items"],
            y=drift["kappa"],
            mode="lines+markers",
            name="Fleiss' kappa",
            hovertemplate="first %{x} items: kappa %{y:.3f}<extra></extra>",
        )
    )
    fig.update_layout(
        height=260,
        margin={"l": 40, "r": 10, "t": 30, "b": 40},
        title={
            "text": f"Kappa as coding proceeds (first {step}, {2 * step}, ... complete items)",
            "font": {"size": 13},
        },
        xaxis_title="items coded by every coder",
        yaxis_title="Fleiss' kappa",
        yaxis_range=[-0.2, 1.0],
    )
    fig.add_hline(
        y=0.8, line_dash="dot", line_color="#16a34a", annotation_text="0.8", annotation_position="bottom left"
    )
    return fig


# -- the lead's panel ---------------------------------------------------------------------------


def lead_panel(user: User, task: Task) -> None:
    """The panel, from one refresh (the page ran: gold or coders may have changed), and a watch on
    the task's labels that runs the page again when a label comes in."""
    st.subheader("Live agreement")
    live = live_panel(user, task.id, task.n_items, fresh=True)
    coders = tasks.coders(task.id)
    numbers_row(live.agreement.headline)
    cur = live.labels
    counts = cur.groupby("coder").size() if len(cur) else pd.Series(dtype=int)
    if coders:
        st.caption(
            "Progress: " + " · ".join(f"{u.username} {int(counts.get(u.username, 0))}/{task.n_items}" for u in coders)
        )
    if live.agreement.report is not None:
        details(live.agreement, task.id, {c.code: c.name for c in task.codebook.codes})
    model_view(live.models)
    _follow_labels(task.id, live.version)


@st.fragment(run_every=CHECK_SECONDS)
def _follow_labels(task_id: int, version: tuple) -> None:
    """Every :data:`CHECK_SECONDS`, one cheap query: the task's labels version. When it differs from
    the one the panel was drawn from, the page runs again; until then nothing is drawn or sent, so an
    open panel costs next to nothing while no one codes."""
    if labels_version(task_id) != version:
        st.rerun()


def details(live: LiveAgreement, task_id: int, names: dict[str, str]) -> None:
    """Diagnostics, per-category kappa, per-version numbers, drift, matrices, most disagreed items."""
    rep = live.report
    for w in rep.diagnostics.warnings:
        st.warning(w[0].upper() + w[1:], icon=":material/warning:")
    if not rep.diagnostics.warnings:
        st.caption("Diagnostics: no prevalence skew, coder bias, sparse categories or shortage of items found.")
    with st.expander("Per-category kappa and category shares"):
        uses = rep.diagnostics.category_uses
        total = max(sum(uses.values()), 1)
        per_cat = live.headline.fleiss.per_category
        st.dataframe(
            pd.DataFrame(
                {
                    "category": [names.get(c, c) for c in uses],
                    "labels": list(uses.values()),
                    "share": [u / total for u in uses.values()],
                    "kappa": [fmt(per_cat.get(c)) for c in uses],
                }
            ),
            hide_index=True,
            width="stretch",
        )
        st.caption(
            f"Most common: {md_text(names.get(rep.diagnostics.prevalence_category, rep.diagnostics.prevalence_category))} "
            f"({fmt_share(rep.diagnostics.prevalence_share)} of labels)."
        )
    by_version(live.by_version)
    c1, c2 = st.columns(2)
    with c1:
        drift = live.drift
        if len(drift) and drift["kappa"].notna().any():
            st.plotly_chart(drift_figure(drift, live.step), key=f"drift_{task_id}", width="stretch")
            undefined = drift[drift["kappa"].isna()]
            if len(undefined):
                st.caption(
                    "; ".join(f"first {r.n_items}: undefined, because {r.reason}" for r in undefined.itertuples())
                )
        else:
            st.caption(f"Kappa's drift appears once {ag.PANEL_MIN_ITEMS} items are coded by every coder.")
    with c2:
        matrices(live, task_id, names)
    if not rep.most_disagreed.empty:
        st.markdown("**Most disagreed items**")
        view.disagreements(rep, names)


def matrices(live: LiveAgreement, task_id: int, names: dict[str, str]) -> None:
    """The coincidence matrix, or one pair of coders' confusion matrix."""
    coders = live.report.coders
    if len(coders) < 2:
        return
    pick = st.selectbox(
        "Matrix",
        ["Coincidence (all coders)"] + [f"{a} vs {b}" for i, a in enumerate(coders) for b in coders[i + 1 :]],
        key=f"adj_matrix_{task_id}",
    )
    if pick.startswith("Coincidence"):
        view.matrix(
            view.coincidence_table(live.report), "", "", "Coincidence matrix", key=f"coinc_{task_id}", names=names
        )
        return
    a, b = pick.split(" vs ")
    view.matrix(live.confusion(a, b), b, a, f"Confusion: {a} (rows) vs {b}", key=f"conf_{task_id}", names=names)


def by_version(heads: dict[str, ag.Headline]) -> None:
    """Agreement per codebook version, once the task has labels under more than one."""
    if not heads:
        return
    rows = []
    for v, head in heads.items():
        rows.append(
            {
                "codebook version": v,
                "labels": head.n_labels,
                "items": head.n_items,
                **{label: fmt(est.estimate) for label, est in zip(LABELS, head.statistics)},
            }
        )
    st.markdown("**By codebook version** (current labels, by the version each was given under)")
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


def model_view(found: ModelCoders | None) -> None:
    """Each model (or externally coded) coder against gold, else the human majority, on validation items."""
    if found is None:
        return
    st.markdown("**Model coders** (on the validation partition)")
    st.dataframe(found.rows, hide_index=True, width="stretch")
    st.caption(f"Humans among themselves on the same partition: Fleiss' kappa {ag.fmt(found.humans_kappa)}.")


# -- a coder's view ----------------------------------------------------------------------------


def coder_panel(user: User, task_id: int) -> None:
    """Aggregate numbers for a coder, if the lead shares them (never per-item information)."""
    if not tasks.task(task_id).share_agreement:
        return
    st.subheader("Team agreement")
    _coder_fragment(user, task_id)


@st.fragment(run_every=CODER_REFRESH_SECONDS)
def _coder_fragment(user: User, task_id: int) -> None:
    try:
        snap = tasks.latest_snapshot(user, task_id)
    except AccessDenied as exc:
        st.info(str(exc))
        return
    numbers_row(ag.Headline.from_json(snap.numbers), who="Team: ")
    st.caption(f"As the lead shared them on {fmt_time(snap.taken_at)} UTC.")
