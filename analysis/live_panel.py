"""The live agreement panel's numbers: one refresh computes everything the lead's panel shows.

- :func:`lead_refresh`: one :class:`analysis.agreement.AgreementReport` on the human coders'
  current labels (with a bootstrap interval for kappa only) and kappa's drift; the headline, its
  interval, the diagnostics, the matrices and the most disagreed items all come from it, so they
  always rest on the same labels. Below :data:`analysis.agreement.PANEL_MIN_ITEMS` items coded by
  every coder Fleiss' kappa is undefined ("too few items (n complete)"), and below as many items
  with two or more labels the other statistics are; with many coders and a few per item, Fleiss'
  kappa generalized to a varying number of coders per item takes its place, named as such.
- :func:`human_panel`: the headline numbers alone (what a lead may share with coders).
- :func:`model_coders`: each model (or externally coded) coder against gold, else the human
  majority, on the validation partition.

Pure: DataFrames in, results out; nothing here imports streamlit or the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pandas as pd

from analysis import agreement as ag

PANEL_BOOTSTRAP = 200  # resamples for the live interval (the exports use 1,000)
COLS = dict(item="item_id", coder="coder", label="code")


def human_labels(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["coder_kind"] == "human"] if "coder_kind" in frame.columns else frame


def human_panel(frame: pd.DataFrame, scale: Sequence[str] | None = None) -> ag.Headline | None:
    """Headline numbers on the human coders' labels (what a coder may be shown: numbers only), AC1's
    Q counting the codebook's codes ``scale``; None when there is no label yet."""
    humans = human_labels(frame)
    if humans.empty:
        return None
    return ag.panel(ag.LabelTable(humans, **COLS), min_items=ag.PANEL_MIN_ITEMS, scale=scale)


@dataclass(frozen=True)
class LiveAgreement:
    """One refresh of the lead's panel: everything it shows rests on these labels."""

    humans: pd.DataFrame
    report: ag.AgreementReport | None  # None: no human label yet
    headline: ag.Headline | None
    drift: pd.DataFrame
    step: int
    # Per codebook version (only when labels were given under more than one): version -> headline.
    by_version: dict[str, ag.Headline] = field(default_factory=dict)

    def confusion(self, coder_a: str, coder_b: str) -> pd.DataFrame | ag.MatrixTooLarge:
        """Two coders' confusion matrix on the items both coded (or why it is not drawn)."""
        try:
            return ag.confusion_matrix(ag.LabelTable(self.humans, **COLS), coder_a, coder_b)
        except ag.MatrixTooLarge as exc:
            return exc


def lead_refresh(cur: pd.DataFrame, n_items_in_task: int, scale: Sequence[str] | None = None) -> LiveAgreement:
    """The lead panel's numbers on the current labels (AC1's Q: the codebook's codes ``scale``)."""
    humans = human_labels(cur)
    step = 20 if n_items_in_task >= 60 else 5
    if humans.empty:
        return LiveAgreement(humans, None, None, pd.DataFrame(), step)
    table = ag.LabelTable(humans, **COLS)
    # The panel shows kappa's interval: only kappa is resampled.
    rep = replace(
        ag.report(table, n_boot=0, top_disagreements=10, scale=scale), fleiss=ag.fleiss(table, n_boot=PANEL_BOOTSTRAP)
    )
    drift = panel_drift(ag.kappa_drift(table, order="created_at", step=step))
    general = ag.generalized_kappa(table, ag.PANEL_MIN_ITEMS, n_boot=PANEL_BOOTSTRAP)
    head = rep.at_least(ag.PANEL_MIN_ITEMS, general, rep.pairwise)
    if head.fleiss is general:  # the diagnostics speak of the kappa the panel shows
        diag = ag.diagnostics(table, general.estimate, rep.percent_agreement.estimate, generalized=True)
        rep = replace(rep, diagnostics=diag)
    return LiveAgreement(humans, rep, head, drift, step, _by_version(humans, table, scale))


def panel_drift(drift: pd.DataFrame) -> pd.DataFrame:
    """Kappa's drift under the panel's own rule: a point on fewer than
    :data:`analysis.agreement.PANEL_MIN_ITEMS` complete items is undefined, as the tiles beside it
    are (the chart does not plot a kappa the tiles call undefined)."""
    if drift.empty:
        return drift
    few = drift["n_items"] < ag.PANEL_MIN_ITEMS
    return drift.assign(
        kappa=drift["kappa"].where(~few),
        reason=drift["reason"].where(~few, f"too few items (under {ag.PANEL_MIN_ITEMS} complete)"),
    )


def _by_version(
    humans: pd.DataFrame, table: ag.LabelTable, scale: Sequence[str] | None = None
) -> dict[str, ag.Headline]:
    """The headline numbers per codebook version, once labels were given under more than one."""
    versions = sorted(humans["codebook_version"].dropna().unique().tolist()) if "codebook_version" in humans else []
    if len(versions) < 2:
        return {}
    return {
        str(v): ag.panel(table.where(humans["codebook_version"] == v), min_items=ag.PANEL_MIN_ITEMS, scale=scale)
        for v in versions
    }


@dataclass(frozen=True)
class ModelCoders:
    """Model coders against gold (or the human majority) on the validation partition."""

    rows: pd.DataFrame  # coder, against, items, cohen_kappa, percent_agreement (formatted)
    humans_kappa: object  # Fleiss' kappa of the humans on the same partition (a float or Undefined)


def model_coders(cur: pd.DataFrame, items: pd.DataFrame, gold: pd.DataFrame) -> ModelCoders | None:
    """Each coder whose kind is not human against gold, else the human majority; None if there is none."""
    models = sorted(cur.loc[cur["coder_kind"] != "human", "coder"].unique().tolist())
    if not models:
        return None
    df = cur.merge(items[["item_id", "partition"]], on="item_id", how="left")
    gold_map = dict(zip(gold["item_id"], gold["code"])) if not gold.empty else None
    humans_val = df[(df["coder_kind"] == "human") & (df["partition"] == "validation")]
    human_k = (
        ag.panel(ag.LabelTable(humans_val, **COLS), min_items=ag.PANEL_MIN_ITEMS).fleiss.estimate
        if len(humans_val)
        else ag.Undefined("no human labels on validation items")
    )
    table = ag.LabelTable(df, **COLS)
    rows = []
    if not gold_map and humans_val.empty:  # nothing to set the models against yet
        why = "undefined, because no person has labelled a validation item yet"
        rows = [
            {"coder": m, "against": "the people's majority", "items": 0, "cohen_kappa": why, "percent_agreement": ""}
            for m in models
        ]
        return ModelCoders(pd.DataFrame(rows), human_k)
    for m in models:
        try:
            r = ag.coder_vs_gold(
                table,
                m,
                gold=gold_map if gold_map else "majority",
                partition="validation",
                exclude_coders=[x for x in models if x != m],
            )
        except KeyError as exc:
            rows.append(
                {
                    "coder": m,
                    "against": "none",
                    "items": 0,
                    "cohen_kappa": f"undefined, because {exc.args[0]}",
                    "percent_agreement": "",
                }
            )
            continue
        rows.append(
            {
                "coder": m,
                "against": "gold" if gold_map else r.gold,
                "items": r.cohen.n,
                "cohen_kappa": ag.fmt(r.cohen.estimate),
                "percent_agreement": ag.fmt(r.percent_agreement.estimate),
            }
        )
    return ModelCoders(pd.DataFrame(rows), human_k)
