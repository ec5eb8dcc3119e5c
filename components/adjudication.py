"""Adjudication: the lead turns coder labels into gold.

- Curation progress: items with gold among the labelled items (numbers and a bar).
- Phase controls: coding (blind) -> adjudication (coders may see the labels) -> revealed (closed;
  coders see where gold differs from their label, with the lead's note). Revealing while labelled
  items have no gold asks for a confirmation that says how many.
- One click accepts every unanimous item as gold; a majority threshold accepts more.
- A queue of the remaining items, lowest per-item agreement first; each shows every coder's label,
  note, unsure flag and seconds (names can be hidden: "Coder 1", "Coder 2", ...) beside the item,
  and the lead picks the gold code with a note, an error type and, when the codebook itself is at
  fault, a flag for its revision. Each item shows the history of its gold, and the task's whole
  history is one table (:mod:`components.gold_history`).

Session-state keys start with ``adj_``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis.curation import Curation
from analysis.format import fmt
from components.coding import item_view
from components.gold_history import ERROR_LABELS, item_history, task_history
from corpus.consensus import as_share, describe
from corpus.escape import md_line
from corpus.kitchen.dataset import KitchenCorpus
from corpus.limits import NOTE_CHARS
from corpus.loading.dataset import Corpus
from corpus.store import ERROR_TYPES, PHASES, AccessDenied, StoreError, Task, User
from corpus.values import is_defined
from services import adjudication as svc
from services.adjudication import TaskState

PHASE_LABELS = {"coding": "Coding (blind)", "adjudication": "Adjudication", "revealed": "Revealed (closed)"}


def curation_progress(c: Curation) -> None:
    """Items with gold among the labelled items, as numbers and a bar."""
    share = c.share
    st.progress(share if is_defined(share) else 0.0, text=f"Curation: {c.sentence()}.")


def phase_controls(lead: User, task: Task, c: Curation) -> None:
    """The phase; revealing while labelled items have no gold waits for a confirmation."""
    pending = f"adj_reveal_pending_{task.id}"

    def _set() -> None:
        phase = st.session_state[f"adj_phase_{task.id}"]
        if phase == "revealed" and svc.task_state(lead, task).curation.reveal_warning() is not None:
            st.session_state[pending] = True
            return
        _change(phase)

    def _change(phase: str) -> None:
        st.session_state.pop(pending, None)
        try:
            svc.set_phase(lead, task.id, phase)
        except (AccessDenied, StoreError) as exc:
            st.session_state[f"adj_phase_msg_{task.id}"] = str(exc)

    st.session_state[f"adj_phase_{task.id}"] = task.phase
    st.segmented_control(
        "Phase",
        list(PHASES),
        format_func=PHASE_LABELS.get,
        key=f"adj_phase_{task.id}",
        on_change=_set,
        help="Coding: coders are blind. Adjudication: labels are visible to "
        "the coders of this task. Revealed: the task is closed and coders see their feedback.",
    )
    problem = st.session_state.pop(f"adj_phase_msg_{task.id}", None)
    if problem:
        st.error(md_line(f"The phase was not changed: {problem}"))
    warning = c.reveal_warning()
    if st.session_state.get(pending) and warning is not None and task.phase != "revealed":
        with st.container(border=True, key=f"adj_reveal_confirm_{task.id}"):
            st.warning(f"Not revealed yet. {warning}", icon=":material/warning:")
            b1, b2, _ = st.columns([1, 1, 2])
            what = f"with {c.n_open} item{'s' if c.n_open != 1 else ''} open" if c.n_labelled else "without gold"
            b1.button(
                f"Reveal {what}",
                key=f"adj_reveal_yes_{task.id}",
                type="primary",
                on_click=_change,
                args=("revealed",),
                icon=":material/lock:",
            )
            b2.button(
                "Keep adjudicating",
                key=f"adj_reveal_no_{task.id}",
                on_click=lambda: st.session_state.pop(pending, None),
            )


MAJORITY_SHARES = ("1/2", "3/5", "2/3", "3/4", "4/5")


def consensus_controls(lead: User, task: Task) -> None:
    key = f"adj_msg_{task.id}"

    def _accept(threshold: str) -> None:
        try:
            n = svc.accept_consensus(lead, task.id, threshold)
        except (AccessDenied, StoreError) as exc:
            st.session_state[key] = f"Nothing accepted: {exc}"
            return
        what = "unanimous" if as_share(threshold) == 1 else f"at least {describe(threshold)} of the coders agree"
        st.session_state[key] = f"Accepted {n} item(s) as gold ({what})."

    c1, c2, c3 = st.columns([1.2, 1.6, 1.2])
    c1.button(
        "Accept all unanimous",
        key=f"adj_unanimous_{task.id}",
        on_click=_accept,
        args=("1",),
        icon=":material/done_all:",
        type="primary",
    )
    thr = c2.select_slider(
        "Majority of at least",
        MAJORITY_SHARES,
        value="2/3",
        key=f"adj_threshold_{task.id}",
        help="The share of an item's coders who must give its majority code, compared exactly "
        "(2 of 3 coders reach 2/3; 3 of 5 reach 3/5). A tie at the top never counts.",
    )
    c3.button(f"Accept majority ≥ {thr}", key=f"adj_majority_{task.id}", on_click=_accept, args=(thr,))
    if st.session_state.get(key):
        message = st.session_state[key]
        (st.error if message.startswith("Nothing accepted") else st.success)(md_line(message))


def _save_gold(lead: User, task: Task, item: str, next_item: str | None) -> None:
    s = st.session_state
    try:
        svc.set_gold(
            lead,
            task.id,
            item,
            s[f"adj_code_{task.id}_{item}"],
            note=s.get(f"adj_note_{task.id}_{item}", ""),
            error_type=s.get(f"adj_error_{task.id}_{item}"),
            flag_codebook=bool(s.get(f"adj_flag_{task.id}_{item}", False)),
        )
    except (AccessDenied, StoreError) as exc:
        s[f"adj_gmsg_{task.id}"] = f"Not saved: {exc}"
        return
    s[f"adj_gmsg_{task.id}"] = f"Gold saved for {item}."
    if next_item is not None:
        s[f"adj_item_{task.id}"] = next_item


def adjudication_screen(lead: User, task: Task, corpus: Corpus | KitchenCorpus, state: TaskState) -> None:
    if task.phase == "coding":
        st.info(
            "Coders are still blind. You can adjudicate now; open the adjudication phase when coding is done "
            "so coders may discuss the labels.",
            icon=":material/visibility_off:",
        )
    cur, items, q = state.labels, state.items, state.queue
    if q.empty:
        st.info("No labels yet: nothing to adjudicate.")
        return
    only_open = st.toggle("Only items without gold", value=True, key=f"adj_open_{task.id}")
    hide = st.toggle("Hide coder names (blind adjudication)", value=True, key=f"adj_hide_{task.id}")
    view = q[q["gold"].isna()] if only_open else q
    if view.empty:
        st.success("Every labelled item has gold.")
        return
    ids = view["item_id"].tolist()
    key = f"adj_item_{task.id}"
    if st.session_state.get(key) not in ids:
        st.session_state[key] = ids[0]
    info = view.set_index("item_id")

    def label(i: str) -> str:
        r = info.loc[i]
        a = "one label" if pd.isna(r["agreement"]) else f"agreement {fmt(r['agreement'], 2)}"
        g = f", gold {r['gold']}" if isinstance(r["gold"], str) else ""
        return f"{i} ({a}{g})"

    item = st.selectbox(
        f"Queue ({len(ids)} item{'s' if len(ids) != 1 else ''}, least agreement first)", ids, key=key, format_func=label
    )
    pos = ids.index(item)
    next_item = ids[pos + 1] if pos + 1 < len(ids) else None

    mine = cur[cur["item_id"] == item]
    coder_ids = {c: i + 1 for i, c in enumerate(sorted(cur["coder"].unique()))}
    names = {c.code: c.name for c in task.codebook.codes}
    shown = pd.DataFrame(
        {
            "coder": [f"Coder {coder_ids[c]}" if hide else c for c in mine["coder"]],
            "kind": mine["coder_kind"].tolist(),
            "label": [names.get(c, c) for c in mine["code"]],
            "note": mine["note"].tolist(),
            "unsure": mine["unsure"].tolist(),
            "time": [f"{fmt(v, 1)} s" if is_defined(v) and v == v else "not timed" for v in mine["seconds"]],
        }
    )
    row = items.set_index("item_id").loc[item]
    left, right = st.columns([1, 1], gap="large")
    with left:
        item_view(corpus, task, str(row["session_id"]), int(row["action_index"]), key=f"adj_view_{task.id}")
    with right:
        st.markdown("**Labels**")
        st.dataframe(
            shown,
            hide_index=True,
            width="stretch",
        )
        codes = task.codebook.code_ids
        modal = info.loc[item, "modal_code"]
        ck = f"adj_code_{task.id}_{item}"
        if ck not in st.session_state:
            st.session_state[ck] = modal if modal in codes else codes[0]
        with st.form(f"adj_form_{task.id}_{item}", border=True):
            st.selectbox("Gold code", codes, key=ck, format_func=lambda c: f"{names[c]} ({c})")
            st.text_input("Note for the coders", key=f"adj_note_{task.id}_{item}", max_chars=NOTE_CHARS)
            st.selectbox(
                "Error type", [None, *ERROR_TYPES], key=f"adj_error_{task.id}_{item}", format_func=ERROR_LABELS.get
            )
            st.checkbox("Flag the codebook for revision", key=f"adj_flag_{task.id}_{item}")
            st.form_submit_button("Save gold", type="primary", on_click=_save_gold, args=(lead, task, item, next_item))
        item_history(lead, task, item)
    msg = st.session_state.get(f"adj_gmsg_{task.id}")
    if msg:
        (st.error if msg.startswith("Not saved") else st.success)(md_line(msg))


def gold_summary(lead: User, task: Task, gold: pd.DataFrame) -> None:
    if gold.empty:
        st.caption("No gold labels yet.")
        return
    counts = gold["provenance"].value_counts()
    flagged = int(gold["flag_codebook"].sum())
    st.caption(
        f"Gold: {len(gold)} items · "
        + " · ".join(f"{k} {v}" for k, v in counts.items())
        + (f" · {flagged} flagged for codebook revision" if flagged else "")
    )
    with st.expander("Gold labels"):
        st.dataframe(gold, hide_index=True, width="stretch")
    task_history(lead, task)
