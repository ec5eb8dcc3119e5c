"""The analysis pages' computations, cached per (dataset content, label sources, filters, options).

A :class:`Scope` is what every chart on an analysis page shares: the dataset, the filters and the
label sources. Its :meth:`Scope.key` (the dataset's content hash, the filters, the source keys and
a digest of the gold labels) is part of every cache key here, so a rerun that changed nothing
computes nothing again (in particular the regression is not refitted), and a change of data,
labels or filters never shows a stale result. Each computation logs one line at INFO level when it
actually runs (logger ``groundwork.services``).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd
import streamlit as st

from analysis import alignment, contingency, dyads, label_sources, outcomes, progress_model, reasons, split
from analysis.alignment import MEASURES  # noqa: F401 - the pages' vocabulary, re-exported
from analysis.drilldown import actions_behind
from analysis.filters import Filters
from analysis.label_sources import Labels, act_labels, mental_model_labels, with_mental_models
from analysis.outcomes import TESTS  # noqa: F401
from analysis.progress import COLUMNS, PROGRESS_KINDS, default_progress, progress_table  # noqa: F401
from analysis.progress_model import METHODS  # noqa: F401
from corpus.loading.dataset import Corpus
from corpus.schema import CONDITIONS  # noqa: F401

log = logging.getLogger("groundwork.services")


def gold_digest(gold: pd.DataFrame | None) -> str:
    """A short digest of the gold labels' content (empty or None: "none")."""
    if gold is None or gold.empty:
        return "none"
    return hashlib.sha256(pd.util.hash_pandas_object(gold, index=False).to_numpy().tobytes()).hexdigest()[:16]


@dataclass(frozen=True, eq=False)
class Scope:
    """The dataset, filters and label sources that every chart of a page uses."""

    corpus: Corpus
    filters: Filters = Filters()
    mm: str = "participants"  # mental-model source key (analysis.label_sources)
    acts: str | None = None  # grounding-act source key, None when the dataset has none
    gold: pd.DataFrame | None = field(default=None, repr=False)

    def key(self) -> tuple:
        return (self.corpus.content_hash, self.filters.key(), self.mm, self.acts, gold_digest(self.gold))


@st.cache_data(max_entries=16, show_spinner=False)
def _source_sizes(content_hash: str, digest: str, _corpus: Corpus, _gold: pd.DataFrame | None) -> dict[str, int]:
    return label_sources.source_sizes(_corpus, _gold)


def act_source_default(corpus: Corpus, gold: pd.DataFrame | None, sources: dict[str, str], minimum: int) -> str | None:
    """The grounding-act source the pages open on (:func:`analysis.label_sources.default_act_source`):
    the gold a lead marked as the dataset's reference when it covers ``minimum`` actions, else the
    source covering the most actions."""
    sizes = _source_sizes(corpus.content_hash, gold_digest(gold), corpus, gold)
    reference = None
    if gold is not None and not gold.empty and "reference" in gold:
        marked = gold.loc[gold["reference"].astype(bool), "task_id"].unique()
        reference = f"gold:{marked[0]}" if len(marked) else None
    return label_sources.default_act_source(sources, sizes, reference, minimum)


# -- the per-action table --------------------------------------------------------------------


@st.cache_resource(max_entries=8, show_spinner="Preparing the analysis table...")
def _frame(_corpus: Corpus, content_hash: str, mm: str) -> pd.DataFrame:
    log.info("building the analysis table of %s (%s)", content_hash[:12], mm)
    base = _corpus.actions_df.merge(
        progress_table(_corpus), on=["session_id", "index"], how="left", validate="one_to_one"
    )
    return with_mental_models(base, _mental_models(_corpus, content_hash, mm))


def frame(scope: Scope) -> pd.DataFrame:
    """Every action with its three progress measures and the mental models of the chosen source
    (shared, read-only: do not modify it)."""
    return _frame(scope.corpus, scope.corpus.content_hash, scope.mm)


def selected(scope: Scope, roles: bool = True) -> pd.DataFrame:
    """The actions the filters select (``roles=False``: both roles)."""
    return scope.filters.apply(frame(scope), roles=roles)


@st.cache_resource(max_entries=8, show_spinner=False)
def _mental_models(_corpus: Corpus, content_hash: str, mm: str) -> Labels:
    return mental_model_labels(_corpus, mm)


def mental_models(scope: Scope) -> Labels:
    """The mental-model labels of the chosen source (shared, read-only)."""
    return _mental_models(scope.corpus, scope.corpus.content_hash, scope.mm)


@st.cache_data(max_entries=16, show_spinner=False)
def _act_labels(_scope: Scope, key: tuple) -> Labels:
    return act_labels(_scope.corpus, _scope.acts, _scope.gold)


def grounding_acts(scope: Scope) -> Labels | None:
    return None if scope.acts is None else _act_labels(scope, scope.key())


# -- alignment over progress -----------------------------------------------------------------


@st.cache_data(max_entries=32, show_spinner=False)
def _curves(_scope: Scope, key: tuple, progress: str, bins: int) -> pd.DataFrame:
    log.info("progress curves %s %s %s", key[1:4], progress, bins)
    return alignment.progress_curves(selected(_scope), COLUMNS[progress], bins)


def progress_curves(scope: Scope, progress: str, bins: int) -> pd.DataFrame:
    return _curves(scope, scope.key(), progress, bins)


@st.cache_data(max_entries=32, show_spinner="Fitting the model...")
def _model(_scope: Scope, key: tuple, measure: str, progress: str, method: str, small: bool | None):
    log.info("fitting the progress model %s %s %s %s %s", key[1:4], measure, progress, method, small)
    return progress_model.fit_progress_model(
        selected(_scope), measure, COLUMNS[progress], method, small, design=_scope.corpus.design
    )


def fit_model(scope: Scope, measure: str, progress: str, method: str = "glm", small: bool | None = None):
    """The progress x condition model (analysis.progress_model), fitted once per key."""
    return _model(scope, scope.key(), measure, progress, method, small)


def curve_actions(scope: Scope, progress: str, bins: int, measure: str, condition: str, bin_index: int) -> pd.DataFrame:
    """The actions behind one point of a progress curve, with Replay links."""
    df = selected(scope)
    df = df[(df["condition"].astype(str) == condition) & alignment.in_bin(df, COLUMNS[progress], bins, bin_index)]
    ind = alignment.grounded_indicators(df)[measure]
    df = df[ind.notna()].assign(grounded=np.where(ind[ind.notna()] == 1, "yes", "no"))
    return actions_behind(scope.corpus, df, {"grounded": "grounded", measure: measure})


# -- grounding acts --------------------------------------------------------------------------


@st.cache_data(max_entries=16, show_spinner=False)
def _acts(_scope: Scope, key: tuple):
    log.info("grounding acts by condition %s", key[1:4])
    labels = grounding_acts(_scope).frame
    df = selected(_scope)
    coded = alignment.with_acts(labels, df)
    return (
        alignment.act_shares(labels, df),
        alignment.alignment_by_act(labels, df),
        contingency.independence_test(coded[["session_id", "condition", "code"]]),
    )


def acts_by_condition(scope: Scope):
    """(shares, alignment within each act, the independence test); None without act labels."""
    return None if scope.acts is None else _acts(scope, scope.key())


def act_actions(scope: Scope, condition: str, code: str) -> pd.DataFrame:
    """The coded actions of one act in one condition, with Replay links."""
    coded = alignment.with_acts(grounding_acts(scope).frame, selected(scope))
    rows = coded[(coded["condition"].astype(str) == condition) & (coded["code"] == code)]
    return actions_behind(scope.corpus, rows, {"code": "act", "partner_intent": "partner_intent"})


# -- dyadic alignment ------------------------------------------------------------------------


@st.cache_data(max_entries=16, show_spinner=False)
def _dyads(_scope: Scope, key: tuple, progress: str, bins: int):
    log.info("dyadic alignment %s %s %s", key[1:4], progress, bins)
    m = dyads.dyad_moments(selected(_scope, roles=False))
    curves, overall = dyads.dyad_curves(m, COLUMNS[progress], bins), dyads.dyad_share_by_condition(m)
    return curves, overall, dyads.dyad_condition_test(m, _scope.corpus.design)


def dyad_alignment(scope: Scope, progress: str, bins: int):
    """(share agreeing per condition x progress bin, overall share per condition, the test of the
    condition difference by session)."""
    return _dyads(scope, scope.key(), progress, bins)


def dyad_actions(scope: Scope, progress: str, bins: int, condition: str, bin_index: int) -> pd.DataFrame:
    m = dyads.dyad_moments(selected(scope, roles=False))
    m = m[(m["condition"].astype(str) == condition) & dyads.in_dyad_bin(m, COLUMNS[progress], bins, bin_index)]
    return actions_behind(scope.corpus, m, {"guide_code": "guide team goal", "follower_code": "follower team goal"})


# -- outcomes --------------------------------------------------------------------------------


def selected_sessions(scope: Scope) -> pd.DataFrame:
    s = scope.corpus.sessions_df
    return s[scope.filters.sessions_mask(s)]


@st.cache_data(max_entries=16, show_spinner=False)
def _outcomes(_scope: Scope, key: tuple, test: str):
    log.info("outcomes %s %s", key[1:3], test)
    return outcomes.compare_outcomes(selected_sessions(_scope), test, groups=outcomes.groups_of(_scope.corpus.design))


def session_outcomes(scope: Scope, test: str) -> dict:
    return _outcomes(scope, scope.key(), test)


def session_actions(scope: Scope, session_id: str) -> pd.DataFrame:
    df = frame(scope)
    return actions_behind(
        scope.corpus, df[df["session_id"] == session_id], {"team_goal": "team_goal", "aligned": "aligned"}
    )


# -- why not aligned -------------------------------------------------------------------------


@st.cache_data(max_entries=16, show_spinner=False)
def _reasons(_scope: Scope, key: tuple, progress: str, bins: int):
    log.info("misalignment reasons %s %s %s", key[1:4], progress, bins)
    df = selected(_scope)
    shares = reasons.reason_shares(df)
    return (
        shares,
        reasons.reason_curves(df, COLUMNS[progress], bins),
        reasons.reason_tests(shares, _scope.corpus.design),
    )


def misalignment_reasons(scope: Scope, progress: str, bins: int):
    """(shares per condition, shares per condition x progress bin, the test per reason)."""
    return _reasons(scope, scope.key(), progress, bins)


def reason_actions(
    scope: Scope,
    condition: str,
    reason: str,
    progress: str | None = None,
    bins: int | None = None,
    bin_index: int | None = None,
) -> pd.DataFrame:
    df = reasons.reasons_long(selected(scope))
    df = df[(df["condition"].astype(str) == condition) & (df["reason"] == reason)]
    if bin_index is not None:
        df = df[alignment.in_bin(df, COLUMNS[progress], bins, bin_index)]
    return actions_behind(
        scope.corpus,
        df.drop_duplicates(["session_id", "index"]),
        {"misalignment_reasons": "reasons", "rationale": "rationale"},
    )


@st.cache_data(max_entries=16, show_spinner=False)
def _acts_before(_scope: Scope, key: tuple, window: int) -> pd.DataFrame:
    log.info("acts before alignment reports %s %s", key[1:4], window)
    # The act before an action may be either participant's: look back in whole sessions, then
    # keep the actions the filters select.
    with_prev = reasons.preceding_act(selected(_scope, roles=False), grounding_acts(_scope).frame, window)
    return reasons.summarise_acts_before(_scope.filters.apply(with_prev))


def acts_before(scope: Scope, window: int) -> pd.DataFrame | None:
    return None if scope.acts is None else _acts_before(scope, scope.key(), window)


def acts_before_test(summary: pd.DataFrame):
    """The chi-square test of the report and the act before it (cheap: on the summary's counts)."""
    return reasons.acts_before_test(summary)


@st.cache_data(max_entries=16, show_spinner=False)
def _checkpoints(_scope: Scope, key: tuple) -> pd.DataFrame:
    log.info("checkpoints beside labels %s", key[1:3])
    return reasons.checkpoints_beside_labels(_scope.corpus, selected(_scope))


def checkpoints(scope: Scope) -> pd.DataFrame:
    return _checkpoints(scope, scope.key())


# -- the test split --------------------------------------------------------------------------


def split_candidates(scope: Scope) -> pd.DataFrame:
    """The sessions a test split is chosen among: the condition and session filters apply, the
    role and split filters do not (a session is described by both roles; its split is the output)."""
    s = scope.corpus.sessions_df
    return s[replace(scope.filters, roles=(), splits=()).sessions_mask(s)]


@st.cache_data(max_entries=8, show_spinner="Searching for the test split...")
def _split(_scope: Scope, key: tuple, sizes: tuple[tuple[str, int], ...], seed: int):
    log.info("test split %s %s %s", key[1:3], sizes, seed)
    sessions = split_candidates(_scope)
    actions = frame(_scope)
    actions = actions[actions["session_id"].isin(sessions["session_id"])]
    return split.distribution_matched_split(actions, sessions, dict(sizes), seed)


def test_split(scope: Scope, sizes: dict[str, int], seed: int) -> split.SplitResult:
    return _split(scope, scope.key(), tuple(sorted(sizes.items())), seed)


def current_split_objectives(scope: Scope, result: split.SplitResult) -> dict[str, float]:
    """L of the dataset's own test sessions in each condition (for comparison with the chosen ones)."""
    s = split_candidates(scope)
    out = {}
    for cond, cs in result.by_condition.items():
        current = s.loc[
            (s["condition"].astype(str) == cond) & (s["split"].astype(str) == "test"), "session_id"
        ].tolist()
        if 2 <= len(current) <= len(cs.sessions) - 2:
            out[cond] = split.split_objective(result.features.reindex(list(cs.sessions)).fillna(0.0), current)
    return out


def dataset_with_split_zip(scope: Scope, assignment: dict[str, str]) -> bytes:
    """A .zip of a copy of the dataset with ``assignment`` as its split (other sessions unchanged)."""
    import io
    import tempfile
    import zipfile
    from pathlib import Path

    from corpus.splits import write_with_splits

    with tempfile.TemporaryDirectory() as tmp:
        name = f"{Path(str(scope.corpus.root)).stem}-resplit"
        out = write_with_splits(scope.corpus.root, Path(tmp) / name, assignment)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for path in sorted(out.rglob("*")):
                if path.is_file():
                    z.write(path, f"{name}/{path.relative_to(out).as_posix()}")
        return buf.getvalue()


def acts_before_actions(scope: Scope, window: int, group: str, act: str) -> pd.DataFrame:
    """The reports of one group ('aligned' / 'not aligned') whose preceding act is ``act``."""
    with_prev = reasons.preceding_act(selected(scope, roles=False), grounding_acts(scope).frame, window)
    df = scope.filters.apply(with_prev)
    want = group == "aligned"
    df = df[(df["act_before"] == act) & df["aligned"].isin([True, False])]
    df = df[df["aligned"].astype(bool) == want]
    return actions_behind(
        scope.corpus, df, {"act_before": "act before", "act_before_index": "act at step", "aligned": "aligned"}
    )


def session_starts(scope: Scope, session_ids: list[str]) -> pd.DataFrame:
    """The first action of each of the sessions, with a Replay link (a session's row in a list)."""
    df = frame(scope)
    first = df[df["session_id"].isin(session_ids)].groupby("session_id", sort=False).head(1)
    return actions_behind(scope.corpus, first, {"condition": "condition", "split": "split now"})


def split_comparison(result: split.SplitResult) -> pd.DataFrame:
    return split.comparison_table(result)
