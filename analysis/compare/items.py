"""Predictions set against what people did and reported, one row per predicted item.

The people's side comes from the dataset: for next-action prediction the action itself (its type,
its message), for mental-model prediction the actor's own annotation of that action (the three
labels and the rationale). A **benchmark instance** is an action with at least one action before
it (the first action of a session has no history to predict from) in a session of the chosen
split; for mental-model prediction it must also carry the actor's annotation.

For every run and task: the scored items, the predictions that have no human label to compare
against (``unmatched``, listed with the reason) and the instances of the run's split(s) that the
run did not predict (``missing``). Neither is dropped in silence: the page and the command line
say how many.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from itertools import chain
from typing import cast

import numpy as np
import pandas as pd

from analysis.codes import as_text, category_codes
from analysis.compare import text
from analysis.memo import Memo
from corpus import schema
from corpus.loading.dataset import Corpus
from corpus.metrics import DISTANCE_WEIGHTS, chebyshev_distance
from corpus.predictions import DIMENSIONS, Run
from corpus.server.processes import on_threads

ACTION_TYPE = "action_type"
CATEGORIES: dict[str, list[str]] = {
    **{d: [*schema.DIMENSIONS[d], schema.OTHER] for d in DIMENSIONS},
    ACTION_TYPE: list(schema.ACTION_TYPES),
}
PROGRESS_BINS = ("0-25%", "25-50%", "50-75%", "75-100%")
BASE_SLICES = ("role", "condition", "progress", "split")


def truth_frame(corpus: Corpus) -> pd.DataFrame:
    """One row per action of the dataset: what the person did and reported, and where it sits
    (``h_row``: the row's own position, which every item joined to it keeps). Role and condition
    are categories: the scores select by them again and again, and compare codes, not texts."""
    a = corpus.actions_df
    df = pd.DataFrame(
        {
            "session_id": as_text(a["session_id"]),
            "action_index": a["index"].astype(int),
            "h_row": np.arange(len(a), dtype=np.int64),
            "role": as_text(a["role"]).astype("category"),
            "condition": as_text(a["condition"]).astype("category"),
            "split": as_text(a["split"]),
            "h_action_type": as_text(a["type"]),
            "h_text": a["text"],
            "h_rationale": a["rationale"],
            "progress": pd.Categorical.from_codes(
                np.minimum((a["progress"].to_numpy() * 4).astype(int), 3), categories=list(PROGRESS_BINS)
            ),
            "annotated": a["team_goal"].notna(),
        }
    )
    for d in DIMENSIONS:
        df[f"h_{d}"] = a[d]
    return df


def _instances(truth: pd.DataFrame, task: str, splits: Iterable[str]) -> np.ndarray:
    """Which rows of ``truth`` are benchmark instances of a task in the given splits."""
    keep = truth["split"].isin(list(splits)).to_numpy() & (truth["action_index"] >= 1).to_numpy()
    if task == "mental_model":
        keep &= truth["annotated"].to_numpy(dtype=bool)
    return keep


def instance_keys(truth: pd.DataFrame, task: str, splits: Iterable[str]) -> pd.DataFrame:
    """The benchmark instances of a task in the given splits (session_id, action_index, ...)."""
    return truth[_instances(truth, task, splits)]


@dataclass(frozen=True)
class TruthRows:
    """Where each (session_id, action_index) sits in a truth frame: each session's position in
    ``sessions`` times ``stride`` plus the action's index is an integer key, one per row (a lookup
    of integers instead of a join on a text and a number)."""

    sessions: pd.Index
    stride: int
    keys: pd.Index
    # (task, digest of the rows found) -> what :meth:`taken` made of them
    _taken: Memo = field(default_factory=Memo, repr=False, compare=False)

    @classmethod
    def of(cls, truth: pd.DataFrame) -> TruthRows:
        codes, sessions = pd.factorize(truth["session_id"])
        index = truth["action_index"].to_numpy(dtype=np.int64)
        stride = int(index.max()) + 1 if len(index) and index.min() >= 0 else 0
        return cls(pd.Index(sessions), stride, pd.Index(codes.astype(np.int64) * stride + index))

    def taken(self, truth: pd.DataFrame, task: str, found: np.ndarray) -> tuple[pd.DataFrame, pd.DataFrame]:
        """The people's side of the rows ``found`` of ``truth`` (a task's columns, :func:`_join`),
        without the keys and numbered from 0, and the task's instances of their splits that are not
        among them (:func:`_missing`): made once for every run that predicted the same items in the
        same order (the runs of one benchmark export do) and kept; never changed after (pages read
        them at once)."""

        def make() -> tuple[pd.DataFrame, pd.DataFrame]:
            predicted = np.zeros(len(truth), dtype=bool)
            predicted[found] = True
            side = truth.drop(columns=_KEYS).iloc[found].reset_index(drop=True)
            return side, _missing(truth, task, truth["split"].iloc[found].unique(), predicted)

        return self._taken.once((task, hashlib.blake2b(found.tobytes(), digest_size=16).digest()), make)

    def rows(self, preds: pd.DataFrame) -> np.ndarray | None:
        """The truth row of each prediction; None unless each is found once and no two are one
        (then the rows are joined by key, which says what is wrong)."""
        if not self.stride or not self.keys.is_unique:
            return None
        index = preds["action_index"].to_numpy(dtype=np.int64)
        # Each distinct session id looked up once (a missing one's code -1 reads the -1 appended).
        codes, named = pd.factorize(preds["session_id"])
        session = np.append(self.sessions.get_indexer(named), -1)[codes]
        if (session < 0).any() or (index < 0).any() or (index >= self.stride).any():
            return None
        rows = self.keys.get_indexer(session.astype(np.int64) * self.stride + index)
        if (rows < 0).any() or not pd.Index(rows).is_unique:
            return None
        return rows


# task -> (the person's text, the run's text, whether both hold text, the text's dimension)
TEXTS = {
    "mental_model": ("h_rationale", "p_rationale", "rationale_ok", "rationale"),
    "next_action": ("h_text", "p_content", "message_ok", "message"),
}


@dataclass
class RunItems:
    """One run's predictions joined to the people's side."""

    run_id: str
    mm: pd.DataFrame  # one row per scored mental-model prediction
    na: pd.DataFrame  # one row per scored next-action prediction
    unmatched: pd.DataFrame  # task, session_id, action_index, line, reason
    missing: pd.DataFrame  # task, session_id, action_index, role, condition
    slice_fields: dict[str, list[str]]  # task -> extra fields of the prediction lines
    _rouge: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    # What is made of these items and read more than once (a scope's rows, a bootstrap), kept.
    memo: Memo = field(default_factory=Memo, repr=False, compare=False)

    def frame(self, task: str) -> pd.DataFrame:
        return self.mm if task == "mental_model" else self.na

    def rouge(self, task: str) -> np.ndarray:
        """ROUGE-L of each of the task's items (NaN where a side has no text), made when first asked
        for (a page that shows one task does not wait for the other's texts; :func:`add_rouge`
        makes every run's at once) and kept; the item tables themselves are never changed after
        they are made (pages read them at once)."""
        add_rouge([self], task)
        return self._rouge[task]

    def _texts(self, task: str) -> tuple[np.ndarray, pd.Series, pd.Series]:
        """Which of the task's items both sides gave text for, and those texts (person's, run's)."""
        df = self.frame(task)
        ref, pred, ok, _ = TEXTS[task]
        usable = df[ok].to_numpy(dtype=bool) if len(df) else np.zeros(0, dtype=bool)
        if not usable.any():
            return usable, pd.Series([], dtype=object), pd.Series([], dtype=object)
        return usable, df.loc[usable, ref], df.loc[usable, pred]

    def text_scores(self, task: str) -> pd.DataFrame:
        """The task's items with their ROUGE-L as the column ``rouge_<rationale|message>`` (a new
        frame: the item table is not changed)."""
        return self.frame(task).assign(**{f"rouge_{TEXTS[task][3]}": self.rouge(task)})


_ROUGE = threading.Lock()  # (one run's texts are scored once, whoever asks first)


def add_rouge(items: Iterable[RunItems], task: str) -> None:
    """ROUGE-L of the task's items (:meth:`RunItems.rouge`) for every run not scored yet, in one
    call of :func:`text.rouge_l`: the person's texts, the same for every run, are tokenized once,
    and a (person, run) pair that repeats across runs is scored once."""
    with _ROUGE:
        todo = list({id(it): it for it in items if task not in it._rouge}.values())
        texts = [it._texts(task) for it in todo]
        refs = pd.concat([r for _, r, _ in texts], ignore_index=True) if texts else pd.Series([], dtype=object)
        preds = pd.concat([p for _, _, p in texts], ignore_index=True) if texts else pd.Series([], dtype=object)
        scores = text.rouge_l(refs, preds) if len(refs) else np.zeros(0)
        at = 0
        for it, (usable, r, _) in zip(todo, texts):
            values = np.full(len(usable), np.nan)
            values[usable] = scores[at : at + len(r)]
            at += len(r)
            it._rouge[task] = values


_KEYS = ["session_id", "action_index"]
# The people's side each task's items carry: where the action sits, and what the task is scored on.
_WHERE = ["h_row", "role", "condition", "split", "progress", "annotated"]
_SIDE = {
    "mental_model": ["h_rationale", *(f"h_{d}" for d in DIMENSIONS)],
    "next_action": ["h_action_type", "h_text"],
}


def _join(
    run: Run, task: str, truth: pd.DataFrame, at: TruthRows | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(scored rows, unmatched, missing) of one task of one run; ``at``: where the predictions'
    items sit in ``truth`` (made here when not given). The rows carry the people's side of that
    task only (the other task's texts are not copied for every run)."""
    truth = truth[[*_KEYS, *_WHERE, *_SIDE[task]]]
    preds = run.table(task)
    empty = pd.DataFrame(columns=["task", *_KEYS, "line", "reason"])
    if preds.empty:
        return pd.DataFrame(), empty, pd.DataFrame(columns=["task", *_KEYS, "role", "condition"])
    extras = run.extra_fields(task)
    pred = preds.rename(columns={c: f"p_{c}" for c in preds.columns if c not in [*_KEYS, "line", *extras]})
    pred = pred.drop(columns=["p_role"], errors="ignore")
    shared = set(pred.columns).intersection(truth.columns).difference(_KEYS)
    at = None if shared else at or TruthRows.of(truth)
    found = None if at is None else at.rows(preds)
    if at is None or found is None:  # (a prediction of no action, two of one, a field named as one of truth's)
        rows = pred.merge(truth, on=_KEYS, how="left", validate="one_to_one")
        splits = truth.loc[truth["session_id"].isin(preds["session_id"].unique()), "split"].unique()
        done = pd.MultiIndex.from_frame(preds[_KEYS])
        missing = _missing(truth, task, splits, pd.MultiIndex.from_frame(truth[_KEYS]).isin(done))
    else:  # the left join, made by taking the rows found (the same frame, a test holds it)
        side, missing = at.taken(truth, task, found)
        rows = pd.concat([pred.reset_index(drop=True), side], axis=1)
    unmatched = empty
    if task == "mental_model":
        no_label = ~rows["annotated"].astype(bool)
        unmatched = rows.loc[no_label, [*_KEYS, "line"]].assign(
            task=task, reason="the actor did not annotate this action (no human label)"
        )[empty.columns]
        rows = rows[~no_label]
    return rows.reset_index(drop=True), unmatched.reset_index(drop=True), missing


def _missing(truth: pd.DataFrame, task: str, splits: np.ndarray, predicted: np.ndarray) -> pd.DataFrame:
    """The task's instances of ``splits`` in ``truth`` that are not ``predicted`` (task, keys, role, condition)."""
    missing = truth[[*_KEYS, "role", "condition"]][_instances(truth, task, splits) & ~predicted]
    return missing.assign(task=task)[["task", *_KEYS, "role", "condition"]].reset_index(drop=True)


_THIRDS = np.rint(DISTANCE_WEIGHTS * 3)  # each distance's weight in thirds: 3, 2, 1, 0


BITMAP_KEYS = 1 << 25  # distinct keys below this many are found by marking them, not by sorting


def _distinct(keys: np.ndarray, size: int) -> np.ndarray:
    """The distinct values of ``keys`` (integers in [0, size)), in order."""
    if size > BITMAP_KEYS:
        return np.unique(keys)
    seen = np.zeros(size, dtype=bool)
    seen[keys] = True
    return np.flatnonzero(seen)


def _drawing_scores(corpus: Corpus, na: pd.DataFrame) -> None:
    """The distance-weighted score of each predicted drawing (Sec. 4.2): the mean weight of the
    distinct cells it fills (:func:`corpus.metrics.distance_weighted_score`), and their number.
    Made for all the drawings on one map at once; a test holds them equal to the metric's, drawing
    by drawing."""
    score = np.full(len(na), np.nan)
    cells_n = np.zeros(len(na))
    draws = np.flatnonzero((na["p_action_type"] == "draw").to_numpy())
    sessions, cells = na["session_id"].to_numpy()[draws], na["p_cells"].to_numpy()[draws]
    map_of = {sid: corpus.meta(sid).map_id for sid in dict.fromkeys(sessions.tolist())}
    map_codes, map_ids = pd.factorize(np.array([map_of[sid] for sid in sessions.tolist()], dtype=object))
    # Every drawing's cells at once, as (row, column) pairs, and the drawing each belongs to.
    counts = np.fromiter((len(x) for x in cells), dtype=np.int64, count=len(cells))
    rc = np.fromiter(chain.from_iterable(chain.from_iterable(cells)), dtype=np.int64, count=2 * int(counts.sum()))
    rc, drawing = rc.reshape(-1, 2), np.repeat(np.arange(len(cells)), counts)
    local = np.zeros(len(cells), dtype=np.int64)  # each drawing's position among those on its map
    for code in range(len(map_ids)):
        on_map = np.flatnonzero(map_codes == code)
        route = corpus.route_mask(sessions[on_map[0]])
        if not route.any():
            continue
        dist = chebyshev_distance(route, max_distance=3).ravel()
        width = route.shape[1]
        local[on_map] = np.arange(len(on_map))
        mine = map_codes[drawing] == code
        # Each drawing's distinct cells, as (drawing, cell) keys: a cell drawn twice counts once.
        keys = _distinct(local[drawing[mine]] * dist.size + rc[mine, 0] * width + rc[mine, 1], len(on_map) * dist.size)
        owner, cell = np.divmod(keys, dist.size)
        n = np.bincount(owner, minlength=len(on_map))
        # Summed in thirds (whole numbers, exact in any order) and divided once: drawings with as
        # many cells at each distance score the same bits whichever cells they are, and are one row
        # of the drawing score's bootstrap (metrics.bootstrap_sums).
        thirds = np.bincount(owner, weights=_THIRDS[dist[cell]], minlength=len(on_map))
        score[draws[on_map]] = thirds / (3 * n)
        cells_n[draws[on_map]] = n
    na["draw_score"] = score
    na["draw_cells"] = cells_n


def _has_text(s: pd.Series) -> pd.Series:
    """Whether each value is text with more than whitespace in it (``str.strip()`` leaves some).
    A column of pandas strings is checked by its own string methods, without making a Python
    string of each value (their whitespace is Python's: a test checks every character)."""
    if isinstance(s.dtype, pd.StringDtype):
        filled = s.fillna("")
        return (filled.str.len() > 0) & ~filled.str.isspace()
    values = s.to_numpy(dtype=object)
    return pd.Series(
        np.fromiter((isinstance(v, str) and bool(v.strip()) for v in values), dtype=bool, count=len(values)),
        index=s.index,
    )


def run_items(corpus: Corpus, run: Run, truth: pd.DataFrame, at: TruthRows | None = None) -> RunItems:
    """One run's items (``at``: :meth:`TruthRows.of` ``truth``, made once for every run)."""
    at = at or TruthRows.of(truth)
    mm, un_mm, miss_mm = _join(run, "mental_model", truth, at)
    na, un_na, miss_na = _join(run, "next_action", truth, at)
    if not mm.empty:
        mm["rationale_ok"] = _has_text(mm["h_rationale"]) & _has_text(mm["p_rationale"])
    if not na.empty:
        na["message_ok"] = (
            (na["h_action_type"] == "message")
            & (na["p_action_type"] == "message")
            & _has_text(na["h_text"])
            & _has_text(na["p_content"])
        )
        _drawing_scores(corpus, na)
    return RunItems(
        run_id=run.run_id,
        mm=mm,
        na=na,
        unmatched=pd.concat([un_mm, un_na], ignore_index=True),
        missing=pd.concat([miss_mm, miss_na], ignore_index=True),
        slice_fields={t: run.extra_fields(t) for t in ("mental_model", "next_action")},
    )


def add_similarity(items: list[RunItems]) -> str | None:
    """SBERT similarity columns for every run at once (one embedding per distinct text); returns the
    reason when similarity cannot be computed (the columns are then left out)."""
    status = text.similarity_status()
    if status is not None:
        return status.reason
    jobs = [(it.mm, "h_rationale", "p_rationale", "rationale_ok", "sim_rationale") for it in items if not it.mm.empty]
    jobs += [(it.na, "h_text", "p_content", "message_ok", "sim_message") for it in items if not it.na.empty]
    refs, preds = [], []
    for df, r, p, ok, _ in jobs:
        refs += df.loc[df[ok], r].tolist()
        preds += df.loc[df[ok], p].tolist()
    sims = cast(np.ndarray, text.sbert_similarity(refs, preds))  # the model is present: status was None
    pos = 0
    for df, _, _, ok, out in jobs:
        k = int(df[ok].sum())
        df[out] = np.nan
        df.loc[df[ok], out] = sims[pos : pos + k]
        pos += k
    return None


Parts = Mapping[tuple[str, str], pd.DataFrame]  # (run, dimension) -> that part of the category table

LONG_COLUMNS = [
    "run",
    "dimension",
    *_KEYS,
    "h_row",
    "role",
    "condition",
    "split",
    "progress",
    "truth",
    "pred",
    "t_code",
    "p_code",
    "correct",
]


def category_parts(items: list[RunItems]) -> dict[tuple[str, str], pd.DataFrame]:
    """The category table in parts by run and dimension, in its order: one row per (item,
    dimension) of a run with the person's and the model's label and integer codes, for the three
    mental-model dimensions and the next action's type. The scores and every pair of runs a
    leaderboard tests read these; the long table (:func:`long_table`) is made of them only when a
    view asks. Each run's parts are made on one of a few threads."""
    return {key: part for made in on_threads(_category_parts, items) for key, part in made.items()}


def _category_parts(it: RunItems) -> dict[tuple[str, str], pd.DataFrame]:
    """One run's parts of :func:`category_parts`."""
    parts: dict[tuple[str, str], pd.DataFrame] = {}
    extras = set(it.slice_fields["mental_model"]) | set(it.slice_fields["next_action"])
    for df, dims in ((it.mm, DIMENSIONS), (it.na, (ACTION_TYPE,))):
        if df.empty:
            continue
        base = df[[*_KEYS, "h_row", "role", "condition", "split", "progress", *(c for c in df.columns if c in extras)]]
        for d in dims:
            cats = CATEGORIES[d]
            h, p = df[f"h_{d}"].astype(str), df[f"p_{d}"].astype(str)
            parts[(it.run_id, d)] = base.assign(
                run=it.run_id,
                dimension=d,
                truth=h,
                pred=p,
                t_code=category_codes(h, cats),
                p_code=category_codes(p, cats),
                correct=(h == p).to_numpy(),
            )
    return parts


def long_table(parts: Parts) -> pd.DataFrame:
    """The parts of :func:`category_parts` as one table, in order."""
    if not parts:
        return pd.DataFrame(columns=LONG_COLUMNS)
    return pd.concat(list(parts.values()), ignore_index=True)
