"""The lead's task administration: new tasks, coders, sharing, imports and exports (accounts:
:mod:`components.accounts_admin`).

The pure parts (choosing items, building the agreement report) are in :mod:`analysis.coding`, the
reads and writes in :mod:`services.tasks`; this module collects the choices and shows the results.
Every problem is shown with the file, line and field at fault; nothing is half-created.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import pandas as pd
import streamlit as st

from analysis import coding as ac
from analysis.format import fmt_time
from analysis.kitchen import coding as ac_kitchen
from analysis.kitchen.agreement import RULE
from analysis.kitchen.tgco import OUTCOMES
from components.accounts_admin import add_account_form
from components.dataset import show_report
from components.download import csv_bytes
from components.label_source import GOLD_MIN_ITEMS
from corpus import codebook as cbm
from corpus.escape import md_line, md_text
from corpus.kitchen.dataset import DOMAIN as KITCHEN
from corpus.kitchen.dataset import KitchenCorpus
from corpus.limits import CODEBOOK_BYTES, ID_LIST_BYTES, LABELS_CSV_BYTES, NAME_CHARS
from corpus.loading.dataset import Corpus
from corpus.loading.validate import DatasetError
from corpus.server.uploads import mib
from corpus.store import AccessDenied, StoreError, Task, User
from services import accounts, tasks
from services import kitchen as kitchen_svc
from services.coding import labels_version, task_report

UPLOAD = "Upload a codebook (YAML or JSON)"
# The exports say within this many seconds that labels came in since they were built (one row read).
EXPORTS_CHECK_SECONDS = 2.0


def coders_picker(lead: User, key: str) -> tuple[list[User], list[str]]:
    """The human coder accounts and the usernames chosen; with none yet, a button that opens the
    form to add one."""
    coders = accounts.human_coders()
    if not coders:
        c1, c2 = st.columns([3, 1], vertical_alignment="center")
        c1.info(
            "No coder accounts yet: add coder accounts first (the task can also get its coders later).",
            icon=":material/group_off:",
        )
        c2.button(
            "Add a coder account",
            key=f"{key}_add",
            icon=":material/person_add:",
            on_click=lambda: st.session_state.update({f"{key}_adding": True}),
        )
        if st.session_state.get(f"{key}_adding"):
            st.caption("Coders label the task's items on the Code page. Add each one, then choose them for the task.")
            add_account_form(lead, f"{key}_form")
        return coders, []
    st.session_state.pop(f"{key}_adding", None)
    return coders, st.multiselect("Coders", [u.username for u in coders], key=key)


# -- a new task ---------------------------------------------------------------------------------


def _uploaded_codebook(key: str) -> cbm.Codebook | None:
    """A codebook from an uploaded YAML/JSON file, or None (its problems shown as a table)."""
    up = st.file_uploader(
        "Codebook file",
        type=["yaml", "yml", "json"],
        key=f"{key}_cbfile",
        max_upload_size=max(1, CODEBOOK_BYTES // 2**20),
    )
    if up is None:
        st.caption("Codebook format: see `corpus/codebooks/grounding_acts.yaml`.")
        return None
    if up.size > CODEBOOK_BYTES:
        st.error(f"{md_text(up.name)} is {mib(up.size)}; a codebook file is at most {mib(CODEBOOK_BYTES)}.")
        return None
    try:
        return cbm.loads(up.getvalue().decode("utf-8", errors="replace"), up.name)
    except DatasetError as exc:
        st.error(f"{md_text(up.name)} is not a usable codebook: {len(exc.report.errors)} problem(s).")
        show_report(exc.report)
        return None


def _codebook_choice(key: str, domain: str) -> cbm.Codebook | None:
    """The bundled codebooks for the units of ``domain`` ("map_task" or "kitchen"), or an upload."""
    books = {k: b for k, b in cbm.bundled().items() if cbm.OTHER_DOMAINS.get(k, "map_task") == domain}
    choice = st.selectbox(
        "Codebook",
        [*books, UPLOAD],
        key=f"{key}_cb",
        format_func=lambda k: k if k == UPLOAD else f"{books[k].name} v{books[k].version}",
    )
    if choice != UPLOAD:
        return books[choice]
    return _uploaded_codebook(key)


def _item_choice(units: pd.DataFrame, noun: str, stratify: tuple[str, ...], key: str, seed: int) -> list[dict] | None:
    """The task's items from ``units`` (columns session_id, index and the ``stratify`` columns: the
    dataset's actions or request units): a seeded sample, all of them, or an uploaded id list."""
    modes = ("Random sample", f"All {noun}", "Uploaded id list")
    mode = st.radio("Items", modes, horizontal=True, key=f"{key}_mode")
    try:
        if mode == modes[0]:
            c1, c2 = st.columns(2)
            n = c1.number_input(
                f"Number of {noun}", 1, max(len(units), 1), min(180, max(len(units), 1)), key=f"{key}_n"
            )
            strat = c2.multiselect("Stratify by", list(stratify), key=f"{key}_strat")
            return ac.sample_items(units, int(n), seed, strat)
        if mode == modes[1]:
            return ac.all_items(units)
        up = st.file_uploader(
            "Id list (CSV with session_id,action_index or item_id)",
            type=["csv"],
            key=f"{key}_ids",
            max_upload_size=ID_LIST_BYTES // 2**20,
        )
        if up is not None and up.size > ID_LIST_BYTES:
            raise ValueError(f"{up.name} is {mib(up.size)}; an id list is at most {mib(ID_LIST_BYTES)}")
        if up is not None:
            known = {f"{s}:{i}" for s, i in zip(units["session_id"], units["index"])}
            return ac.items_from_csv(up.getvalue(), up.name, known)
    except (ValueError, ac.ItemListError) as exc:
        st.error(md_line(exc))
    return None


def new_task_form(lead: User, corpus: Corpus | KitchenCorpus) -> Task | None:
    """Create a coding task on the current dataset: its actions (Map Task) or its request units
    (kitchen runs, with the TGCO rule as a model coder when asked). Returns once it is created."""
    key = "ta_new"
    kitchen = corpus.domain == KITCHEN
    if kitchen:
        units = kitchen_svc.coding_units(corpus)
        noun, stratify, context = "request units", ac_kitchen.STRATIFY, "messages before the unit"
        st.caption(
            f"Items are the request units of the dataset shown in the sidebar: **{md_text(corpus.info.name)}** "
            f"({len(units)} request units in {len(corpus.runs)} runs). Coders see each unit with its message, "
            "the run's trace and the acceptance window (level-normalized), never the rule's outcome."
        )
    else:
        units = corpus.actions_df
        noun, stratify, context = "actions", ac.STRATIFY_COLUMNS, "actions before the item"
        st.caption(
            f"Items come from the dataset shown in the sidebar: **{md_text(corpus.info.name)}** "
            f"({len(corpus.actions_df)} actions in {len(corpus.sessions)} sessions)."
        )
    codebook = _codebook_choice(key, "kitchen" if kitchen else "map_task")
    c1, c2 = st.columns(2)
    name = c1.text_input(
        "Task name",
        key=f"{key}_name",
        placeholder="e.g. TGCO audit, round 1" if kitchen else "e.g. grounding acts, round 1",
        max_chars=NAME_CHARS,
    )
    seed = c2.number_input(
        "Seed",
        0,
        2**31 - 1,
        180,
        key=f"{key}_seed",
        help="Fixes the sample, the few-shot split and every coder's order.",
    )
    items = _item_choice(units, noun, stratify, key, int(seed))
    c1, c2, c3 = st.columns(3)
    few = c1.number_input(
        "Few-shot items",
        0,
        1000,
        8,
        key=f"{key}_few",
        help="Kept apart as examples (e.g. for prompting a model); the rest is the validation partition.",
    )
    k = c2.number_input(f"Context: {context}", 0, 20, 3, key=f"{key}_k")
    canvas = c3.toggle("Show the kitchen grid" if kitchen else "Show the canvas", True, key=f"{key}_canvas")
    rule = False
    if kitchen:
        tgco = codebook is not None and set(codebook.code_ids) <= set(OUTCOMES)
        rule = st.toggle(
            f"Code the items with the TGCO rule too (model coder '{RULE}')",
            tgco,
            key=f"{key}_rule",
            disabled=not tgco,
            help="The audit's decision rule gives each unit its outcome; its agreement with the people is "
            "shown on the live panel like any model coder's. Needs a codebook with the TGCO outcome codes.",
        )
    _, chosen = coders_picker(lead, f"{key}_coders")
    if items is not None:
        st.caption(f"{len(items)} items, {min(int(few), len(items))} few-shot.")
    if st.button(
        "Create task",
        key=f"{key}_create",
        type="primary",
        disabled=items is None or codebook is None,
        icon=":material/add_task:",
    ):
        try:
            task = tasks.create_task(
                lead,
                name,
                corpus,
                codebook,
                items,
                int(few),
                chosen,
                seed=int(seed),
                context_k=int(k),
                show_canvas=bool(canvas),
                model_labels=kitchen_svc.rule_labels(corpus, items) if rule and kitchen else None,
            )
        except (ValueError, StoreError, AccessDenied) as exc:
            st.error(md_line(exc))
            return None
        st.session_state["ta_msg"] = f"Created task '{task.name}' with {task.n_items} items."
        st.session_state["ta_task"] = task.id
        st.rerun()
    return None


# -- one task -----------------------------------------------------------------------------------


def task_settings(lead: User, task: Task) -> None:
    """Coders, sharing of the agreement numbers, and the task's numbers."""
    assigned = tasks.coders(task.id)
    people = [u for u in accounts.accounts(include_inactive=False) if u.role in ("coder", "lead") and u.kind == "human"]
    have = {u.id for u in assigned}
    add = st.multiselect("Add coders", [u.username for u in people if u.id not in have], key=f"ta_add_{task.id}")
    if add and st.button("Assign", key=f"ta_assign_{task.id}"):
        tasks.assign(lead, task.id, add)
        st.rerun()
    st.caption(
        "Coders: "
        + (
            ", ".join(md_text(u.username) + (f" ({u.kind})" if u.kind != "human" else "") for u in assigned)
            or "none yet"
        )
    )
    _setting(
        st.toggle,
        "Show coders the team's agreement numbers (snapshots you take)",
        f"ta_share_{task.id}",
        task.share_agreement,
        lambda v: tasks.set_sharing(lead, task.id, v),
    )
    if task.share_agreement:
        _setting(
            st.number_input,
            "Shown to coders once a snapshot rests on this many items",
            f"ta_min_{task.id}",
            task.share_min_items,
            lambda v: tasks.set_sharing(lead, task.id, True, min_items=v),
            min_value=1,
        )
        share_snapshot(lead, task)
    _setting(
        st.radio,
        "From adjudication on, coders see",
        f"ta_view_{task.id}",
        task.coder_view,
        lambda v: tasks.set_coder_view(lead, task.id, v),
        options=list(CODER_VIEW_NAMES),
        format_func=CODER_VIEW_NAMES.get,
        horizontal=True,
        help="Never another coder's labels. Labels freeze when adjudication starts.",
    )
    if task.dataset_hash and task.codebook.id != "tgco":  # the Map Task analysis pages read the reference
        _setting(
            st.toggle,
            "This task's gold is the dataset's reference grounding acts",
            f"ta_reference_{task.id}",
            tasks.reference_task(task.dataset_hash) == task.id,
            lambda v: tasks.set_reference(lead, task.id, v),
            help="Once the task is revealed, the analysis pages open on its gold instead of the coders' majority, "
            f"if it covers at least {GOLD_MIN_ITEMS} actions (otherwise they open on the source covering the most "
            "actions). One task per dataset: marking another replaces this one.",
        )


CODER_VIEW_NAMES = {
    "own_disagreements": "their own disagreements with gold, after the reveal",
    "nothing": "nothing beyond their own labels",
}


def _setting(widget, label: str, key: str, value, save, **options) -> None:  # noqa: ANN001
    """A widget showing one setting of a task; a change is saved at once."""
    st.session_state[key] = value
    widget(label, key=key, on_change=lambda: save(st.session_state[key]), **options)


def share_snapshot(lead: User, task: Task) -> None:
    """Coders see only numbers the lead takes as a snapshot, never numbers recomputed on demand."""
    try:
        latest = tasks.latest_snapshot(lead, task.id)
        st.caption(
            f"Coders see the snapshot of {fmt_time(latest.taken_at)} UTC on {latest.n_items} items "
            f"(shown to them from {task.share_min_items} items)."
        )
    except AccessDenied:
        st.caption(
            f"No snapshot yet: coders see the numbers once you take one on at least {task.share_min_items} items."
        )
    if st.button(
        "Share the current numbers with the coders", key=f"ta_snapshot_{task.id}", icon=":material/photo_camera:"
    ):
        snap = tasks.share_snapshot(lead, task.id)
        if snap is None:
            st.warning("There is nothing to share yet: no coder has given a label.")
            return
        st.success(f"Shared a snapshot on {snap.n_items} items coded by two or more coders.")


def revise_codebook(lead: User, task: Task) -> None:
    """Move the task to a revised codebook (same id, new version); labels keep their version."""
    cb = task.codebook
    st.caption(
        f"Now coding with **{md_text(cb.name)}** ({md_text(cb.id)}) v{md_text(cb.version)}. Upload the revised file with the same "
        "id and a new version: labels given from then on record the new version, and agreement is "
        "reported per version."
    )
    key = f"ta_revise_{task.id}"
    new = _uploaded_codebook(key)
    if new is not None and st.button(f"Code from now on with v{md_line(new.version)}", key=f"{key}_go", type="primary"):
        try:
            tasks.revise_codebook(lead, task.id, new)
        except (StoreError, AccessDenied) as exc:
            st.error(md_line(exc))
        else:
            st.session_state["ta_msg"] = f"Task '{task.name}' now codes with {new.name} v{new.version}."
            st.rerun()


def import_labels(lead: User, task: Task) -> None:
    """Labels coded elsewhere (an LLM, another tool) as more coders of this task; all or nothing."""
    up = st.file_uploader(
        "Labels CSV (columns item, coder, label)",
        type=["csv"],
        key=f"ta_import_{task.id}",
        max_upload_size=LABELS_CSV_BYTES // 2**20,
    )
    create = st.checkbox("Create unknown coders as model coders", value=True, key=f"ta_import_create_{task.id}")
    if up is not None and st.button("Import labels", key=f"ta_import_go_{task.id}"):
        try:
            done = tasks.import_labels(lead, task.id, up.getvalue(), up.name, create)
        except (StoreError, AccessDenied) as exc:
            st.error(md_line(exc))
        else:
            st.success(md_line(f"Imported {done.summary()} from {up.name}."))  # coder and file names


@dataclass(frozen=True)
class BuiltExports:
    """A task's exports as built at one labels version: the files are fixed once built, so a page
    that runs again (a coder's new label reruns the lead's page) offers the very same files, and a
    click never asks for a file an earlier run replaced."""

    version: tuple[int, int]
    n_boot: int
    built_at: datetime
    long: bytes  # CSV, written once when built (the page runs again at every label)
    jsonl: str
    wide: bytes
    gold: bytes
    markdown: str
    report: bytes


def _build_exports(lead: User, task: Task, n_boot: int) -> BuiltExports:
    version = labels_version(task.id)
    long = tasks.labels_long(lead, task.id)
    cb = task.codebook
    meta = ac.ReportMeta(
        task=task.name,
        dataset=task.dataset,
        codebook_id=cb.id,
        codebook_name=cb.name,
        codebook_version=cb.version,
        n_items_in_task=task.n_items,
    )
    report = task_report(lead, task.id, int(n_boot))
    return BuiltExports(
        version,
        int(n_boot),
        datetime.now(UTC),
        csv_bytes(long),
        ac.long_jsonl(long),
        csv_bytes(tasks.labels_wide(lead, task.id)),
        csv_bytes(tasks.gold(lead, task.id)),
        ac.report_markdown(report, meta),
        csv_bytes(ac.report_table(report, meta)),
    )


@st.fragment(run_every=EXPORTS_CHECK_SECONDS)
def _built_note(task_id: int, built: BuiltExports) -> None:
    """When the exports were built and from how many labels, and whether labels came in since (a
    label no longer runs the page again: this note looks for itself)."""
    changed = labels_version(task_id) != built.version
    st.caption(
        f"Built {fmt_time(built.built_at)} UTC from {built.version[0]} labels, {built.n_boot} bootstrap resamples."
        + (" Labels have changed since: build them again for the current state." if changed else "")
    )


_WIDE_HELP = "Items x coders, ready for R's irr package."


def exports(lead: User, task: Task) -> None:
    """Downloads: labels long (CSV, JSONL), wide (items x coders), gold, and the agreement report,
    built when the lead asks (the report's bootstrap takes seconds) and then kept as built."""
    key = f"ta_exports_{task.id}"
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in task.name)
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    n_boot = c1.select_slider(
        "Bootstrap resamples for the report's intervals", [0, 200, 1000, 2000], 1000, key=f"ta_boot_{task.id}"
    )
    built: BuiltExports | None = st.session_state.get(key)
    if c2.button(
        "Build the exports" if built is None else "Build them again",
        key=f"ta_build_{task.id}",
        icon=":material/build:",
        width="stretch",
        help="Reads the task's labels and gold now and computes the agreement report.",
    ):
        with st.spinner("Building the exports..."):
            built = st.session_state[key] = _build_exports(lead, task, int(n_boot))
    if built is None:
        st.caption(
            "The labels (long, JSONL, wide), the gold and the agreement report, as of the moment you build them."
        )
        return
    _built_note(task.id, built)
    files = [  # (label, data, file name, type, key, icon, help), four to a row
        ("Labels, long (CSV)", built.long, "labels_long.csv", "text/csv", "long", "download", None),
        ("Labels, long (JSONL)", built.jsonl, "labels.jsonl", "application/jsonl", "jsonl", "download", None),
        ("Labels, wide (CSV)", built.wide, "labels_wide.csv", "text/csv", "wide", "download", _WIDE_HELP),
        ("Gold (CSV)", built.gold, "gold.csv", "text/csv", "gold", "download", None),
        ("Agreement report (Markdown)", built.markdown, "agreement.md", "text/markdown", "md", "description", None),
        ("Agreement report (CSV)", built.report, "agreement.csv", "text/csv", "repcsv", "description", None),
    ]
    for k, (label, data, name, mime, suffix, icon, help_text) in enumerate(files):
        if k % 4 == 0:
            row = st.columns(4)
        row[k % 4].download_button(
            label,
            data,
            f"{safe}_{name}",
            mime,
            key=f"ta_dl_{suffix}_{task.id}",
            on_click="ignore",
            icon=f":material/{icon}:",
            help=help_text,
        )
