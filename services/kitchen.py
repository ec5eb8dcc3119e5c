"""The Kitchen screen's computations, once per (dataset content, window) and kept: every run's
TGCO audit and coordination metrics (:mod:`analysis.kitchen.metrics`), the tables per pairing,
scaffold and level and the Table 4 view, the outcome composition, the request units behind a cell,
the messages no unit was read from, the agreement with an uploaded reference audit (the TGCO
authors' own, :mod:`analysis.kitchen.reference`), and a run's replay as the tile player receives it
(once per dataset content, window and run). A scaffold filter keeps the runs where an agent has
one of the chosen scaffolds."""

from __future__ import annotations

import logging

import pandas as pd
import streamlit as st

from analysis.kitchen import metrics as km
from analysis.kitchen.tgco import FIXED_WINDOW, LEVEL_WINDOW, OUTCOME_NAMES
from analysis.results import EstimateTable
from corpus.kitchen.dataset import KitchenCorpus
from corpus.kitchen.run import ROLES

log = logging.getLogger("groundwork.services")

WINDOWS = {"level": LEVEL_WINDOW, "fixed": FIXED_WINDOW}


@st.cache_resource(max_entries=8, show_spinner="Auditing the runs' requests...")
def _metrics(content_hash: str, window: str, _kitchen: KitchenCorpus) -> tuple[km.RunMetrics, ...]:
    log.info("kitchen metrics %s %s", content_hash[:12], window)
    return km.kitchen_metrics(_kitchen.runs, WINDOWS[window])


NO_SCAFFOLD = km.NOT_RECORDED  # the filter's name for a run whose scaffold is not recorded
Scaffolds = tuple[str, ...] | None  # the scaffolds kept (None: every run)


def metrics(kitchen: KitchenCorpus, window: str, scaffolds: Scaffolds = None) -> tuple[km.RunMetrics, ...]:
    """Every run's metrics under the acceptance window ``window`` ("level" or "fixed"); with
    ``scaffolds``, only the runs where an agent has one of them (:func:`scaffold_choices`)."""
    every = _metrics(kitchen.content_hash, window, kitchen)
    if scaffolds is None:
        return every
    keep = set(scaffolds)
    scaffold_of = {r.id: r.scaffolds for r in kitchen.runs}
    return tuple(m for m in every if {s or NO_SCAFFOLD for s in scaffold_of[m.run_id]} & keep)


def scaffold_choices(kitchen: KitchenCorpus) -> list[str]:
    """The scaffolds the runs' agents have, in name order (:data:`NO_SCAFFOLD` for a run with none)."""
    return sorted({s or NO_SCAFFOLD for r in kitchen.runs for s in r.scaffolds})


@st.cache_data(max_entries=16, show_spinner=False)
def _table(
    content_hash: str, window: str, by: tuple[str, ...], scaffolds: Scaffolds, _kitchen: KitchenCorpus
) -> EstimateTable:
    return km.metric_table(metrics(_kitchen, window, scaffolds), by=by)


def metric_table(
    kitchen: KitchenCorpus, window: str, by: tuple[str, ...], scaffolds: Scaffolds = None
) -> EstimateTable:
    """Each metric's mean over runs per group ``by`` (pairing, models, scaffold, level or several),
    with n, interval and warnings."""
    return _table(kitchen.content_hash, window, by, scaffolds, kitchen)


@st.cache_data(max_entries=16, show_spinner=False)
def _table4(content_hash: str, window: str, scaffolds: Scaffolds, _kitchen: KitchenCorpus) -> EstimateTable:
    return km.scaffold_table(metrics(_kitchen, window, scaffolds))


def table4(kitchen: KitchenCorpus, window: str, scaffolds: Scaffolds = None) -> EstimateTable:
    """Success and ADR per model pairing, scaffold and level (the paper's Table 4)."""
    return _table4(kitchen.content_hash, window, scaffolds, kitchen)


@st.cache_data(max_entries=16, show_spinner=False)
def _composition(content_hash: str, window: str, scaffolds: Scaffolds, _kitchen: KitchenCorpus) -> pd.DataFrame:
    return km.outcome_composition(metrics(_kitchen, window, scaffolds)).to_frame()


def composition(kitchen: KitchenCorpus, window: str, scaffolds: Scaffolds = None) -> pd.DataFrame:
    """The outcome shares per level (Fig. 3, left), one row per level and outcome, with counts."""
    return _composition(kitchen.content_hash, window, scaffolds, kitchen)


def unstructured(kitchen: KitchenCorpus, window: str, scaffolds: Scaffolds = None) -> pd.DataFrame:
    """Every message no request unit was read from, with its text and a link to its step (for a
    person to code)."""
    rows = [
        {
            "run": m.run_id,
            "step": msg.step,
            "sender": ROLES[msg.sender] if msg.sender in (0, 1) else str(msg.sender),
            "said": msg.text,
        }
        for m in metrics(kitchen, window, scaffolds)
        for msg in m.audit.unstructured
    ]
    out = pd.DataFrame(rows, columns=["run", "step", "sender", "said"])
    link = replay_links(kitchen)
    out["replay"] = [link(r, s) for r, s in zip(out["run"], out["step"])]
    return out


def runs_frame(kitchen: KitchenCorpus, window: str) -> pd.DataFrame:
    return km.runs_frame(metrics(kitchen, window))


def units(
    kitchen: KitchenCorpus,
    window: str,
    level: object = None,
    outcome: str | None = None,
    scaffolds: Scaffolds = None,
) -> pd.DataFrame:
    """The request units (of one level and outcome, when given): run, step, who asked whom for what,
    how it was written, the outcome, why, and a link to the replay at its step. Built once per
    (content, window, cell): the page lists every unit on each of its runs."""
    return _units(kitchen.content_hash, window, None if level is None else str(level), outcome, scaffolds, kitchen)


@st.cache_data(max_entries=32, show_spinner=False)
def _units(
    content_hash: str,
    window: str,
    level: str | None,
    outcome: str | None,
    scaffolds: Scaffolds,
    _kitchen: KitchenCorpus,
):
    kitchen = _kitchen
    want = {v: k for k, v in OUTCOME_NAMES.items()}.get(outcome or "", outcome)
    rows = []
    for m in metrics(kitchen, window, scaffolds):
        if level is not None and str(m.level if m.level is not None else km.UNKNOWN_LEVEL) != str(level):
            continue
        rows += [
            {**r, "pairing": m.pairing, "level": m.level} for r in m.audit.rows() if not want or r["outcome"] == want
        ]
    cols = [
        "run",
        "pairing",
        "level",
        "step",
        "sender",
        "receiver",
        "action",
        "object",
        "written as",
        "outcome",
        "reason",
        "replay",
    ]
    if not rows:
        return pd.DataFrame(columns=cols)
    out = pd.DataFrame(rows)
    out["sender"] = [ROLES[s] if s in (0, 1) else str(s) for s in out["sender"]]
    # A plan's or a plain-language request names no receiver: the one it targets is shown.
    out["receiver"] = [r or (ROLES[t] if t in (0, 1) else "") for r, t in zip(out["receiver"], out["target"])]
    out["outcome"] = out["outcome"].map(OUTCOME_NAMES)
    link = replay_links(kitchen)
    out["replay"] = [link(r, s) for r, s in zip(out["run"], out["step"])]
    return out.rename(columns={"shape": "written as"})[cols]


# -- the TGCO authors' own audit as a reference ---------------------------------------------------


def reference(kitchen: KitchenCorpus, window: str, data: bytes, name: str):
    """The uploaded reference audit (their ``tgco_request_units.csv``) against this audit:
    :class:`analysis.kitchen.reference.ReferenceAgreement`, or the :class:`corpus.loading.report.Report` of the
    file's problems (nothing compared). Kept per (dataset, window, file content)."""
    import hashlib

    return _reference(kitchen.content_hash, window, hashlib.sha256(data).hexdigest(), name, data, kitchen)


@st.cache_data(max_entries=8, show_spinner="Matching the reference audit's request units...")
def _reference(content_hash: str, window: str, digest: str, name: str, _data: bytes, _kitchen: KitchenCorpus):
    from analysis.kitchen.reference import compare, read_csv_bytes, read_reference

    frame, report = read_csv_bytes(_data, name)
    if frame is None:
        return report
    rows, report = read_reference(frame, name)
    if not report.ok:
        return report
    every = metrics(_kitchen, window)
    by_id = {m.run_id: m for m in every}
    log.info("kitchen reference audit %s %s: %d rows", content_hash[:12], digest[:12], len(rows))
    return compare(
        [(r, by_id[r.id].audit.units) for r in _kitchen.runs], rows, windows=sorted({m.window_rule for m in every})
    )


def reference_disagreements(kitchen: KitchenCorpus, agreement) -> pd.DataFrame:
    """Every disagreement of the two audits, each with a link that opens its step in the replay."""
    out = agreement.disagreements()
    link = replay_links(kitchen)
    out["replay"] = [link(r, s) for r, s in zip(out["run"], out["step"])]
    return out


def replay_links(kitchen: KitchenCorpus):
    """A function (run id, environment step) -> the link that opens the Kitchen screen's replay of
    that run at that step (the dataset's key and each run's step places worked out once)."""
    from urllib.parse import urlencode

    from corpus.loading.catalog import key_of

    key = key_of(kitchen.root)
    places = {r.id: {s.step: i for i, s in enumerate(r.steps)} for r in kitchen.runs}

    def link(run_id: str, step: int) -> str:
        return "kitchen?" + urlencode({"dataset": key, "run": run_id, "step": places[run_id].get(step, 0)})

    return link


def run_ids(kitchen: KitchenCorpus) -> list[str]:
    return [r.id for r in kitchen.runs]


def _run_metrics(kitchen: KitchenCorpus, window: str, run_id: str) -> km.RunMetrics:
    return next(m for m in metrics(kitchen, window) if m.run_id == run_id)


SYNTHETIC_NOTE = "Synthetic data: generated runs, not recordings of agents."


def replay_payload(kitchen: KitchenCorpus, window: str, run_id: str) -> dict:
    """The run as the tile player receives it (:func:`analysis.kitchen.replay.payload`, as JSON),
    with its request units audited under ``window``; built once per (dataset content, window, run)
    and shared, so never changed in place (the player adds its start and palette to a copy)."""
    return _replay_payload(kitchen.content_hash, window, run_id, kitchen)


@st.cache_resource(max_entries=32, show_spinner="Preparing the replay...")
def _replay_payload(content_hash: str, window: str, run_id: str, _kitchen: KitchenCorpus) -> dict:
    from dataclasses import replace

    from analysis.kitchen.replay import payload

    built = payload(run_of(_kitchen, run_id), _run_metrics(_kitchen, window, run_id).audit)
    log.info("kitchen replay %s %s %s: %d steps", content_hash[:12], window, run_id, built.n_steps)
    return replace(built, note=SYNTHETIC_NOTE if _kitchen.info.synthetic else "").to_json()


def run_of(kitchen: KitchenCorpus, run_id: str):
    return next(r for r in kitchen.runs if r.id == run_id)


def tile_names(run) -> dict[str, str]:
    from analysis.kitchen.replay import tile_names as names

    return names(run)


def agent_names(run) -> tuple[str, str]:
    from analysis.kitchen.replay import agent_name

    return agent_name(0, run), agent_name(1, run)


# -- coding tasks over request units (the level-normalized window, the audit's own) -------------

CODING_WINDOW = "level"


@st.cache_data(max_entries=8, show_spinner=False)
def _coding_units(content_hash: str, _kitchen: KitchenCorpus) -> pd.DataFrame:
    from analysis.kitchen.coding import unit_table

    return unit_table(metrics(_kitchen, CODING_WINDOW))


def coding_units(kitchen: KitchenCorpus) -> pd.DataFrame:
    """Every request unit as a coding item (:func:`analysis.kitchen.coding.unit_table`), with the
    rule's outcome under the level-normalized window."""
    return _coding_units(kitchen.content_hash, kitchen)


def rule_labels(kitchen: KitchenCorpus, items: list[dict]) -> dict[str, dict[str, str]]:
    """The TGCO rule's code of each item, as the model coder's labels of a new task."""
    from analysis.kitchen.agreement import RULE
    from analysis.kitchen.coding import rule_codes

    return {RULE: rule_codes(coding_units(kitchen), items)}


def unit_context(kitchen: KitchenCorpus, run_id: str, index: int, before: int):
    """What a coder sees of the run's ``index``-th request unit, or why it cannot be shown
    (:func:`analysis.kitchen.coding.unit_context`); kept, as the coding screen runs again at every key."""
    return _unit_context(kitchen.content_hash, run_id, int(index), int(before), kitchen)


@st.cache_resource(max_entries=256, show_spinner=False)
def _unit_context(content_hash: str, run_id: str, index: int, before: int, _kitchen: KitchenCorpus):
    from analysis.kitchen.coding import unit_context as context

    found = next((m for m in metrics(_kitchen, CODING_WINDOW) if m.run_id == run_id), None)
    if found is None:
        return f"run '{run_id}' is not in the dataset '{_kitchen.name}'"
    return context(run_of(_kitchen, run_id), found, index, before)
