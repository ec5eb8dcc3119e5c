"""The live agreement panel: it follows the labels as they come in (a fragment with ``run_every``).

- For the lead: the headline numbers follow every label. Every :data:`CHECK_SECONDS` a fragment
  asks whether a label came in: on PostgreSQL from memory (the notices the store sends with every
  label, :mod:`corpus.store.notify`), elsewhere from the task's labels version (one cheap query);
  only when one did does it read
  the agreement sums the store keeps with every label (:func:`services.coding.panel_numbers`: a few
  rows whatever the task's size) and redraw the numbers and the progress; the page does not run
  again. Below :data:`analysis.agreement.PANEL_MIN_ITEMS` items a statistic reads "too few items
  (n complete)" instead of a number.
  The details need the labels (:func:`services.coding.live_panel`, computed by
  :func:`analysis.live_panel.lead_refresh`): kappa's bootstrap interval, the diagnostics, the drift,
  the matrices, the most disagreed items, agreement per codebook version and the model coders (an
  imported model's Cohen's kappa against gold, or the human majority, on the validation
  partition). They are computed off the label path: when the page opens, on request, and every
  ``panel_details_seconds`` (a setting, 30 s by default) while labels come in, and they say when and
  on how many labels.
- For a coder: only the aggregate numbers of the latest snapshot the lead shared
  (``Store.shared_snapshot``), never numbers recomputed on the coder's own labels.

A statistic without a value is shown as "undefined, because ...", never as 0 or NaN.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from analysis import agreement as ag
from analysis.format import fmt, fmt_clock, fmt_share, fmt_short, fmt_time
from analysis.live_panel import LiveAgreement, ModelCoders
from components import agreement_view as view
from corpus.escape import md_line, md_text
from corpus.store import AccessDenied, Task, User
from services import tasks
from services.coding import LivePanel, PanelNumbers, label_changes, labels_version, live_panel, panel_numbers
from services.settings import settings

# The lead's panel checks the labels version this often (one cheap query) and reads the numbers again
# only when a label came in, so a new label shows within a fraction of a second.
CHECK_SECONDS = 0.3
# Where the store's notices say when a label came in (PostgreSQL), the version is still read this often.
VERIFY_SECONDS = 5.0
# The details (from the labels, with a bootstrap) follow the labels as often as the settings say
# (``panel_details_seconds``) while they come in, and are computed again at least this often.
DETAILS_MAX_SECONDS = 300
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
            text=[fmt(v) for v in drift["kappa"]],
            hovertemplate="first %{x} items: kappa %{text}<extra></extra>",
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
    """The panel. Its headline numbers follow every label: a fragment checks the task's labels
    version every :data:`CHECK_SECONDS` and, when it moved, reads the agreement sums the store keeps
    (a few rows, whatever the task's size) and redraws the numbers alone. The details (kappa's
    interval, diagnostics, drift, matrices, most disagreed items, model coders) need the labels:
    they are computed when the page opens, on request, and every ``panel_details_seconds`` while
    labels come in, and say when."""
    st.subheader("Live agreement")
    every = settings().panel_details_seconds
    numbers = st.container()  # drawn after the details, shown above them: the tiles get kappa's interval
    st.fragment(_details, run_every=every)(user, task, {c.code: c.name for c in task.codebook.codes}, every)
    with numbers:
        _numbers(user, task, [u.username for u in tasks.coders(task.id)], every)


@st.fragment(run_every=CHECK_SECONDS)
def _numbers(user: User, task: Task, coders: list[str], every: float) -> None:
    """The headline numbers and the progress, read again only when a label came in (one cheap
    query per check otherwise)."""
    key, mark_key = f"panel_numbers_{task.id}", f"panel_mark_{task.id}"
    held: PanelNumbers | None = st.session_state.get(key)
    # On PostgreSQL the store's notices say from memory whether a label came in; elsewhere one row.
    # Every VERIFY_SECONDS the version is read all the same: a notice lost on the way (a pooler that
    # drops LISTEN) delays a label by that much at worst, never forever.
    mark, checked_key = label_changes(task.id), f"panel_checked_{task.id}"
    verify = time.monotonic() - st.session_state.get(checked_key, 0.0) >= VERIFY_SECONDS
    if held is None:
        moved = True
    elif mark is not None and not verify:
        moved = mark != st.session_state.get(mark_key)
    else:
        moved = labels_version(task.id) != held.version
        st.session_state[checked_key] = time.monotonic()
    if moved:
        held = panel_numbers(user, task.id, scale=task.codebook.code_ids)  # (the task held: no read of it)
        st.session_state[key], st.session_state[mark_key] = held, mark
    details: LivePanel | None = st.session_state.get(_details_key(task.id))
    numbers_row(_with_interval(held, details))
    newer = held.version[0] - details.version[0] if details is not None else 0
    if newer > 0:
        st.caption(
            f"{newer} label{'s' if newer != 1 else ''} came in since the details below were computed: the numbers "
            f"count {'them' if newer != 1 else 'it'}; the details follow within {fmt_short(every, 0 if float(every).is_integer() else 1)} s, or at once on "
            "Recompute now."
        )
    if coders:
        st.caption(
            "Progress: "
            + " · ".join(f"{md_text(name)} {int(held.progress.get(name, 0))}/{task.n_items}" for name in coders)
        )


def _with_interval(numbers: PanelNumbers, details: LivePanel | None) -> ag.Headline | None:
    """The live numbers, with kappa's interval when the details rest on the same labels (the same
    numbers, tested equal, computed from the labels with a bootstrap)."""
    if details is not None and details.version == numbers.version and details.agreement.headline is not None:
        return details.agreement.headline
    return numbers.headline


def _details_key(task_id: int) -> str:
    return f"live_panel_{task_id}"


def _details(user: User, task: Task, names: dict[str, str], every: float) -> None:
    """The details from the labels (a fragment that runs every ``every`` seconds): computed on the
    first run, on request, when labels came in and the last computation is ``every`` seconds old, and
    at least every :data:`DETAILS_MAX_SECONDS` (gold may have changed on the Adjudicate page)."""
    head, button = st.columns([5, 1], vertical_alignment="center")
    asked = button.button("Recompute now", key=f"panel_recompute_{task.id}", icon=":material/refresh:")
    held: LivePanel | None = st.session_state.get(_details_key(task.id))
    version = labels_version(task.id)
    age = time.time() - held.at if held is not None else None
    if held is None or asked or age >= DETAILS_MAX_SECONDS or (held.version != version and age >= every - 1):
        held = live_panel(user, task.id, task.n_items, fresh=held is None or asked or age >= DETAILS_MAX_SECONDS)
    at = fmt_clock(datetime.fromtimestamp(held.at, UTC))
    head.caption(
        f"Interval, diagnostics, drift, matrices and model coders as computed at {at} UTC on {len(held.labels)} labels."
    )
    if held.agreement.report is not None:
        details(held.agreement, task.id, names)
    model_view(held.models)


def details(live: LiveAgreement, task_id: int, names: dict[str, str]) -> None:
    """Diagnostics, per-category kappa, per-version numbers, drift, matrices, most disagreed items."""
    rep = live.report
    for w in rep.diagnostics.warnings:
        st.warning(md_line(w[0].upper() + w[1:]), icon=":material/warning:")  # they name categories
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
        st.info(md_line(exc))  # it names the account or the task
        return
    numbers_row(ag.Headline.from_json(snap.numbers), who="Team: ")
    st.caption(f"As the lead shared them on {fmt_time(snap.taken_at)} UTC.")
