"""Why not aligned: the reasons given with "not on the same page", and what came before.

- :func:`reason_shares`: per condition, the share of not-aligned actions citing each reason n1-n5
  (an action may cite several, so shares need not sum to 1), with n and Wilson 95 % intervals.
- :func:`reason_curves`: the same per progress bin.
- :func:`acts_before`: the grounding act that precedes an annotated action: the latest coded act
  among the ``window`` actions before it in its session (either participant's). Compared between
  actions whose actor reported not being aligned and those reported aligned.
- :func:`checkpoints_beside_labels`: every in-session checkpoint answer (free text) beside the
  action-level labels of the same participant at the same moment (their latest annotation at the
  checkpoint's action).
- :func:`reason_tests` and :func:`acts_before_test`: the tests behind the bars, so a difference
  between two bars is not read into without one: per reason, Fisher's exact test of citing it by
  condition (Holm-adjusted over the reasons; an action may cite several, so one test over all
  reasons would count an action more than once); for the act before a report, the chi-square test
  of independence of the report and the act.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import fisher_exact
from statsmodels.stats.multitest import multipletests

from analysis.codes import as_text, in_session_order
from analysis.contingency import cross_table_test
from analysis.progress import assign_bins, bin_edges, bin_midpoints
from analysis.results import ChiSquare, Estimate, wilson_columns
from corpus import schema
from corpus.loading.dataset import Corpus
from corpus.model import Checkpoint

REASONS = schema.MISALIGNMENT_REASON


def not_aligned(actions: pd.DataFrame) -> pd.DataFrame:
    """The actions whose actor reported not being on the same page."""
    return actions[actions["aligned"].map({True: False, False: True}).fillna(False).astype(bool)]


def reasons_long(actions: pd.DataFrame) -> pd.DataFrame:
    """One row per (not-aligned action, reason it cites); column ``reason``. Each distinct list of
    reasons is split once (a corpus holds a few dozen of them, over hundreds of thousands of
    actions), and each action takes its list's parts: the rows of splitting every action's list
    and exploding it, in the same order."""
    na = not_aligned(actions)
    codes, lists = pd.factorize(na["misalignment_reasons"].fillna("").astype(str))
    parts = [str(text).split(",") for text in lists]
    counts = np.array([len(p) for p in parts], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    flat = np.array([reason for p in parts for reason in p], dtype=object)
    per_row = counts[codes]
    rows = np.repeat(np.arange(len(na)), per_row)
    place = np.arange(len(rows)) - np.repeat(np.cumsum(per_row) - per_row, per_row)  # (0, 1, ... within each action)
    reason = flat[starts[codes[rows]] + place] if len(rows) else np.array([], dtype=object)
    keep = pd.Series(reason, dtype=object).isin(list(REASONS)).to_numpy()
    taken = reason[keep]
    return na.iloc[rows[keep]].assign(reason=pd.array(taken, dtype="str") if len(rows) else taken)  # (as explode gives)


def _shares(long: pd.DataFrame, base: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    k = long.groupby([*keys, "reason"]).size().rename("k").reset_index()
    n = base.groupby(keys).size().rename("n").reset_index()
    grid = n.merge(pd.DataFrame({"reason": list(REASONS)}), how="cross").merge(k, on=[*keys, "reason"], how="left")
    grid["k"] = grid["k"].fillna(0).astype(int)
    grid["share"] = grid["k"] / grid["n"]
    grid["ci_low"], grid["ci_high"] = wilson_columns(grid["k"], grid["n"])
    return grid


def _cited(na: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """:func:`reasons_long` of not-aligned actions ``na`` with only the columns ``keys`` (what the
    shares count by: exploding every column of every action would copy its texts)."""
    return reasons_long(na[[*keys, "aligned", "misalignment_reasons"]])


def reason_shares(actions: pd.DataFrame) -> pd.DataFrame:
    """condition, reason, k (not-aligned actions citing it), n (not-aligned actions), share, CI."""
    na = not_aligned(actions[["condition", "aligned", "misalignment_reasons"]])  # (the columns counted, not the texts)
    na = na.assign(condition=na["condition"].astype(str))
    if na.empty:
        return pd.DataFrame(columns=["condition", "n", "reason", "k", "share", "ci_low", "ci_high"])
    return _shares(_cited(na, ["condition"]), na, ["condition"])


def reason_curves(actions: pd.DataFrame, progress_col: str, bins: int = 5) -> pd.DataFrame:
    """condition, bin, progress (midpoint), reason, k, n (not-aligned actions in the bin), share, CI."""
    na = not_aligned(actions[["condition", progress_col, "aligned", "misalignment_reasons"]])
    na = na.assign(condition=na["condition"].astype(str), bin=assign_bins(na[progress_col].to_numpy(dtype=float), bins))
    na = na[na["bin"] >= 0]
    if na.empty:
        return pd.DataFrame(
            columns=[
                "condition",
                "bin",
                "n",
                "reason",
                "k",
                "share",
                "ci_low",
                "ci_high",
                "progress",
                "bin_low",
                "bin_high",
            ]
        )
    out = _shares(_cited(na, ["condition", "bin"]), na, ["condition", "bin"])
    edges = bin_edges(bins)
    out["progress"] = bin_midpoints(bins)[out["bin"]].round(4)
    out["bin_low"], out["bin_high"] = edges[out["bin"]], edges[out["bin"] + 1]
    return out


def preceding_act(actions: pd.DataFrame, labels: pd.DataFrame, window: int = 3) -> pd.DataFrame:
    """``actions`` (whole sessions, in any order) with ``act_before`` (the latest coded act among the
    ``window`` actions before each one, NaN if none) and ``act_before_index`` (where it was)."""
    df = in_session_order(actions)
    keyed = labels[["session_id", "action_index", "code"]].rename(columns={"action_index": "index"})
    # (joined on the keys alone: the codes land on the rows without a copy of every column)
    code = df[["session_id", "index"]].merge(keyed, on=["session_id", "index"], how="left", validate="one_to_one")
    code = code["code"].set_axis(df.index)
    pos = df["index"].where(code.notna())
    grp = df["session_id"]
    prev_code, prev_pos = code.groupby(grp, sort=False).shift(1), pos.groupby(grp, sort=False).shift(1)
    limit = max(window - 1, 0)
    if limit:
        prev_code = prev_code.groupby(grp, sort=False).ffill(limit=limit)
        prev_pos = prev_pos.groupby(grp, sort=False).ffill(limit=limit)
    return df.assign(act_before=prev_code, act_before_index=prev_pos).reset_index(drop=True)


def summarise_acts_before(with_prev: pd.DataFrame) -> pd.DataFrame:
    """From :func:`preceding_act`'s output: per group ('not aligned' / 'aligned') and act, k
    (annotated actions of the group whose preceding act is that one), n (annotated actions of the
    group with a coded act before them), share and Wilson CI."""
    df = with_prev[with_prev["aligned"].isin([True, False]) & with_prev["act_before"].notna()]
    cols = ["group", "act", "k", "n", "share", "ci_low", "ci_high"]
    if df.empty:
        return pd.DataFrame(columns=cols)
    df = df.assign(group=np.where(df["aligned"].astype(bool), "aligned", "not aligned"))
    k = df.groupby(["group", "act_before"]).size().rename("k").reset_index().rename(columns={"act_before": "act"})
    k["n"] = k.groupby("group")["k"].transform("sum")
    k["share"] = k["k"] / k["n"]
    k["ci_low"], k["ci_high"] = wilson_columns(k["k"], k["n"])
    return k[cols]


def reason_tests(shares: pd.DataFrame, design: tuple[str, str] = schema.CANVAS) -> pd.DataFrame:
    """Per reason (of :func:`reason_shares`' output): does the share of not-aligned actions citing it
    differ between the conditions? Fisher's exact test (two-sided) on the 2 x 2 table (condition x
    cites it or not), the odds ratio (treatment / reference), and the p-values Holm-adjusted over the
    reasons tested. Empty when a condition has no not-aligned action."""
    cols = ["reason", "k_treatment", "n_treatment", "k_reference", "n_reference", "odds_ratio", "p", "p_holm"]
    ref, treat = design
    by = shares.assign(condition=shares["condition"].astype(str)).set_index(["condition", "reason"])
    if not {ref, treat} <= set(by.index.get_level_values(0)):
        return pd.DataFrame(columns=cols)
    rows = []
    for reason in REASONS:
        kt, nt = (int(by.loc[(treat, reason), c]) for c in ("k", "n"))
        kr, nr = (int(by.loc[(ref, reason), c]) for c in ("k", "n"))
        res = fisher_exact([[kt, nt - kt], [kr, nr - kr]])
        rows.append([reason, kt, nt, kr, nr, float(res.statistic), float(res.pvalue)])
    out = pd.DataFrame(rows, columns=cols[:-1])
    out["p_holm"] = multipletests(out["p"], method="holm")[1]
    return out


def acts_before_test(summary: pd.DataFrame) -> tuple[ChiSquare, Estimate]:
    """Is the act before a report independent of the report (aligned / not aligned)? Pearson's
    chi-square test and Cramér's V on :func:`summarise_acts_before`' counts (each report counted once;
    reports of one session are not independent, which the caption says)."""
    table = summary.pivot_table(index="group", columns="act", values="k", aggfunc="sum", fill_value=0)
    reason = None
    if table.shape[0] < 2:
        reason = "only one kind of report has a coded act before it"
    elif table.shape[1] < 2:
        reason = "every report has the same act before it"
    return cross_table_test(
        table.to_numpy(),
        "reports with a coded act before them",
        "the report (aligned or not) and the act before it",
        "reports",
        reason,
    )


def acts_before(actions: pd.DataFrame, labels: pd.DataFrame, window: int = 3) -> pd.DataFrame:
    """:func:`summarise_acts_before` of :func:`preceding_act` on whole sessions."""
    return summarise_acts_before(preceding_act(actions, labels, window))


def _wording(dim: str, code) -> str:
    if not isinstance(code, str) or not code:
        return ""
    if code == schema.OTHER or code not in schema.DIMENSIONS[dim]:
        return code
    return f"{code} {schema.DIMENSIONS[dim][code]}"


CHECKPOINT_COLUMNS = [
    "session_id",
    "condition",
    "role",
    "checkpoint",
    "drawing_progress",
    "step",
    "elapsed_s",
    "answer_team_goal",
    "answer_partner_intent",
    "answer_self_reasoning",
]


def _checkpoints(corpus: Corpus, session_ids, roles: set[str]) -> pd.DataFrame:
    """The checkpoints of ``session_ids`` answered by ``roles``, a row each (columns of
    :data:`CHECKPOINT_COLUMNS`; each session's record read once)."""
    rows = []
    for sid in session_ids:
        meta = corpus.meta(sid)
        condition = meta.condition
        for cp, number in zip(meta.checkpoints, Checkpoint.numbers(meta.checkpoints)):
            if cp.role in roles:
                rows.append(
                    (
                        sid,
                        condition,
                        cp.role,
                        number,
                        cp.progress,
                        int(cp.action_index),
                        cp.elapsed_s,
                        cp.team_goal,
                        cp.partner_intent,
                        cp.self_reasoning,
                    )
                )
    return pd.DataFrame.from_records(rows, columns=CHECKPOINT_COLUMNS)


def _worded(dim: str, codes: pd.Series) -> list[str]:
    """:func:`_wording` of each code, made once per distinct code."""
    numbers, distinct = pd.factorize(codes)
    words = np.array([_wording(dim, c) for c in distinct] + [""], dtype=object)  # (-1, no code: "")
    return list(words[numbers])


def checkpoints_beside_labels(corpus: Corpus, actions: pd.DataFrame) -> pd.DataFrame:
    """Each checkpoint of the sessions in ``actions`` for the roles in it: the answers, and the
    participant's action-level labels at that moment (latest annotation at or before the
    checkpoint's action; none if they had not annotated yet). ``checkpoint`` is the number people
    are shown (1, 2, 3 among that participant's checkpoints), whatever the source's first index."""
    roles = {str(role) for role in actions["role"].dropna().unique()}  # (the distinct ones, not every row's)
    cps = _checkpoints(corpus, actions["session_id"].unique(), roles)
    label_cols = [
        "label_team_goal",
        "label_partner_intent",
        "label_self_reasoning",
        "label_aligned",
        "label_reasons",
        "label_rationale",
    ]
    if cps.empty:
        return pd.DataFrame(columns=[*CHECKPOINT_COLUMNS, "labelled_step", *label_cols])
    # The latest annotation at or before each checkpoint, found on the keys alone (sorting the
    # annotations' texts would copy every one of them), then its labels taken for those rows.
    annotated = np.flatnonzero(actions["team_goal"].notna().to_numpy())
    keys = pd.DataFrame(
        {
            "session_id": as_text(actions["session_id"].iloc[annotated]),
            "role": as_text(actions["role"].iloc[annotated]),
            "labelled_step": actions["index"].to_numpy()[annotated].astype("int64"),
            "at": annotated,
        }
    ).sort_values("labelled_step")
    out = pd.merge_asof(
        cps.sort_values("step"),
        keys,
        left_on="step",
        right_on="labelled_step",
        by=["session_id", "role"],
        direction="backward",
    )
    found = out.pop("at").to_numpy()
    at = np.where(np.isnan(found), -1, found).astype(np.int64)  # (-1: no annotation yet)
    # The labels of the annotations found (the rows of ``actions`` at ``at``), a column each.
    used = np.unique(at[at >= 0])
    rows = np.where(at >= 0, np.searchsorted(used, at), -1)
    ann = actions.iloc[used]
    labels = {
        **{f"label_{dim}": ann[dim] for dim in schema.DIMENSIONS},
        "label_aligned": ann["aligned"].astype(object),
        "label_reasons": ann["misalignment_reasons"].fillna("").astype(str),
        "label_rationale": ann["rationale"].fillna("").astype(str),
    }
    for name, column in labels.items():
        out[name] = pd.Series(column.array.take(rows, allow_fill=True), index=out.index)
    for dim in schema.DIMENSIONS:  # codes with their wording, once per distinct code
        out[f"label_{dim}"] = _worded(dim, out[f"label_{dim}"])
    out["labelled_step"] = out["labelled_step"].astype("Int64")
    return out.sort_values(["session_id", "step", "role"], kind="stable").reset_index(drop=True)
