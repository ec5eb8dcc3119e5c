"""Where the labels an analysis reads come from, and the labels themselves.

Two kinds of labels feed the analysis pages:

- **Grounding acts** (one act per action): the gold of a closed coding task (given as a frame, as
  the label store returns it), the majority label of the dataset's human coders
  (:func:`corpus.consensus.majority`; ties left out), or the labels of one coder, a person or a
  model (``coder_kind`` says which; never the coder's name).
- **Mental models** (team goal, partner intent, self-reasoning, perceived alignment and reasons):
  the participants' own annotations in the dataset, or the predictions of one model run
  (``predictions/<run>/mental_model.jsonl``). A model run predicts the three label dimensions only:
  perceived alignment and its reasons do not exist for it. A dataset with the ``gmmt`` scheme
  (GMMT's understanding state of the landmark reference expressions said in each action, e.g. an
  HCRC import) offers each of its coders as a source of ``aligned`` alone: an action holding
  expressions is aligned when its state is ``aligned``, not aligned when it is ``pending`` or
  ``misunderstood``; actions without expressions are not part of it.

A source is named by a key (``majority``, ``coder:NAME``, ``gold:TASK_ID``; ``participants``,
``run:RUN_ID``, ``gmmt:CODER``) so it can be part of a cache key, and every frame comes with a
sentence saying where its labels come from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import pandas as pd

from corpus import schema
from corpus.consensus import majority
from corpus.loading.dataset import Corpus

SCHEME = schema.GROUNDING_ACTS_SCHEME
GMMT_SCHEME = schema.GMMT_SCHEME
PARTICIPANTS = "participants"
MAJORITY = "majority"
GMMT_PREFIX = "gmmt:"
MM_COLUMNS = ["team_goal", "partner_intent", "self_reasoning", "aligned", "misalignment_reasons", "rationale"]


@dataclass(frozen=True)
class Labels:
    """Labels from one source: the frame and a sentence saying where they come from."""

    key: str
    title: str
    frame: pd.DataFrame
    description: str


# -- grounding acts --------------------------------------------------------------------------


def act_sources(corpus: Corpus, gold: pd.DataFrame | None = None) -> dict[str, str]:
    """Every grounding-act source available for ``corpus``: key -> title, gold first."""
    out: dict[str, str] = {}
    if gold is not None and not gold.empty:
        for task_id, task in gold[["task_id", "task"]].drop_duplicates().itertuples(index=False):
            out[f"gold:{task_id}"] = f"Gold of the coding task '{task}'"
    coded = corpus.coded(SCHEME)
    if not coded.empty:
        if (coded["coder_kind"] == schema.HUMAN).any():
            out[MAJORITY] = "The dataset's coders (majority)"
        kinds = coded.drop_duplicates("coder").set_index("coder")["coder_kind"]
        for coder in sorted(kinds.index):
            out[f"coder:{coder}"] = f"One coder: {coder} ({kinds[coder]})"
    return out


def act_labels(corpus: Corpus, key: str, gold: pd.DataFrame | None = None) -> Labels:
    """One grounding act per action (session_id, action_index, code) from the source ``key``."""
    titles = act_sources(corpus, gold)
    if key not in titles:
        raise KeyError(f"no grounding-act source '{key}' for dataset '{corpus.info.name}'")
    title = titles[key]
    if key.startswith("gold:"):
        gold = cast(pd.DataFrame, gold)  # act_sources lists a gold source only when gold is given
        g = gold[gold["task_id"].astype(str) == key.removeprefix("gold:")]
        how = ", ".join(f"{n} {p}" for p, n in g["provenance"].value_counts().items())
        frame = g[["session_id", "action_index", "code"]].reset_index(drop=True)
        return Labels(
            key,
            title,
            frame,
            f"Gold labels of the closed coding task '{g['task'].iloc[0]}' on {len(g)} actions ({how}).",
        )
    coded = corpus.coded(SCHEME)
    if key == MAJORITY:
        models = corpus.model_coders(SCHEME)
        humans = sorted(set(coded["coder"]) - set(models))
        frame = majority(coded, exclude_coders=models)[["session_id", "action_index", "code"]]
        return Labels(
            key,
            title,
            frame,
            f"Majority label of the human coders ({', '.join(humans)}) on {len(frame)} actions; "
            "items without a majority are left out.",
        )
    coder = key.removeprefix("coder:")
    mine = coded[coded["coder"] == coder]
    frame = mine[["session_id", "action_index", "code"]].reset_index(drop=True)
    return Labels(
        key, title, frame, f"Labels of the coder {coder} ({mine['coder_kind'].iloc[0]}) on {len(frame)} actions."
    )


def source_sizes(corpus: Corpus, gold: pd.DataFrame | None = None) -> dict[str, int]:
    """How many actions each grounding-act source labels (:func:`act_sources`' keys)."""
    out: dict[str, int] = {}
    if gold is not None and not gold.empty:
        for task_id, n in gold.groupby("task_id")["item_id"].nunique().items():
            out[f"gold:{task_id}"] = int(n)
    coded = corpus.coded(SCHEME)
    if not coded.empty:
        if (coded["coder_kind"] == schema.HUMAN).any():
            out[MAJORITY] = len(majority(coded, exclude_coders=corpus.model_coders(SCHEME)))
        for coder, n in (
            coded.groupby("coder")[["session_id", "action_index"]].apply(lambda d: len(d.drop_duplicates())).items()
        ):
            out[f"coder:{coder}"] = int(n)
    return out


def default_act_source(
    sources: dict[str, str],
    sizes: dict[str, int] | None = None,
    reference: str | None = None,
    minimum: int = 0,
) -> str | None:
    """The source the analysis pages open on: the gold a lead marked as the dataset's reference
    (``reference``) when it labels at least ``minimum`` actions; else, of the sources that pool
    several people (the coders' majority, a task's gold), the one that labels the most actions
    (``sizes``; the majority first at equal size); a single coder only when there is nothing else. A
    gold source never becomes the default only for being newest: a small test round must not take
    over everyone's charts."""
    if not sources:
        return None
    sizes = sizes or {}
    if reference in sources and sizes.get(reference, 0) >= minimum:
        return reference
    pooled = [k for k in sources if k == MAJORITY or k.startswith("gold:")] or list(sources)
    return max(pooled, key=lambda k: (sizes.get(k, 0), k == MAJORITY))


# -- mental models ---------------------------------------------------------------------------


def mental_model_sources(corpus: Corpus) -> dict[str, str]:
    """The participants' annotations, then every model run that predicts mental models, then each
    coder of the ``gmmt`` scheme when the dataset has it."""
    out = {PARTICIPANTS: "The participants' own annotations"}
    for run_id, run in corpus.predictions.items():
        if run.ok and not run.table("mental_model").empty:
            out[f"run:{run_id}"] = f"Model run: {run.info.name or run_id}"
    coded = corpus.coded(GMMT_SCHEME)
    if not coded.empty:
        kinds = coded.drop_duplicates("coder").set_index("coder")["coder_kind"]
        for coder in sorted(kinds.index):
            out[f"{GMMT_PREFIX}{coder}"] = f"GMMT reference expressions: {coder} ({kinds[coder]}), aligned = grounded"
    return out


def _gmmt_labels(corpus: Corpus, key: str, title: str) -> Labels:
    """Perceived alignment from GMMT's state of each action holding reference expressions."""
    coder = key.removeprefix(GMMT_PREFIX)
    coded = corpus.coded(GMMT_SCHEME)
    mine = coded[coded["coder"] == coder]
    frame = pd.DataFrame(
        {
            "session_id": mine["session_id"].astype(str),
            "index": mine["action_index"].astype("int64"),
            **{dim: None for dim in schema.DIMENSIONS},
            "aligned": (mine["code"] == schema.GMMT_GROUNDED).astype(object),
            "misalignment_reasons": "",
            "rationale": "",
        }
    ).reset_index(drop=True)
    counts = mine["code"].value_counts()
    states = ", ".join(f"{int(counts.get(code, 0))} {code}" for code in reversed(schema.GMMT_SEVERITY))
    return Labels(
        key,
        title,
        frame,
        (
            f"GMMT's understanding state of the landmark reference expressions (coder {coder}, "
            f"{mine['coder_kind'].iloc[0] if len(mine) else 'unknown'}) on {len(frame)} actions of "
            f"{frame['session_id'].nunique()} sessions ({states}; an action holding several expressions has the most "
            "severe state): the 'aligned' measure counts an action as grounded when its state is aligned. Actions "
            "without a reference expression are left out; GMMT has no team goal, partner intent or self-reasoning."
        ),
    )


def mental_model_labels(corpus: Corpus, key: str = PARTICIPANTS) -> Labels:
    """Per action (session_id, index) the mental-model columns of ``MM_COLUMNS`` from source ``key``.

    For a model run, only the actions it predicts are present, and ``aligned`` /
    ``misalignment_reasons`` are missing (None / empty): a model run does not predict them.
    """
    sources = mental_model_sources(corpus)
    if key not in sources:
        raise KeyError(f"no mental-model source '{key}' for dataset '{corpus.info.name}'")
    if key.startswith(GMMT_PREFIX):
        return _gmmt_labels(corpus, key, sources[key])
    if key == PARTICIPANTS:
        frame = corpus.actions_df[["session_id", "index", *MM_COLUMNS]]
        n = int(frame["team_goal"].notna().sum())
        return Labels(
            key, sources[key], frame, f"Mental models as the participants annotated them ({n} annotated actions)."
        )
    run = key.removeprefix("run:")
    prediction_run = corpus.predictions[run]
    rows = prediction_run.table("mental_model")
    frame = pd.DataFrame(
        {
            "session_id": rows["session_id"].astype(str),
            "index": rows["action_index"].astype("int64"),
            **{dim: rows[dim] if dim in rows else None for dim in schema.DIMENSIONS},
            "aligned": None,
            "misalignment_reasons": "",
            "rationale": rows.get("rationale", ""),
        }
    )
    n_sessions = frame["session_id"].nunique()
    return Labels(
        key,
        sources[key],
        frame,
        (
            f"Mental models predicted by the model run '{prediction_run.info.name or run}' on {len(frame)} actions of "
            f"{n_sessions} sessions; a model run does not predict perceived alignment or its reasons."
        ),
    )


def with_mental_models(actions: pd.DataFrame, labels: Labels) -> pd.DataFrame:
    """``actions`` with its mental-model columns taken from ``labels`` (actions the source does not
    cover are dropped when the source is a model run or GMMT)."""
    if labels.key == PARTICIPANTS:
        return actions
    base = actions.drop(columns=[c for c in MM_COLUMNS if c in actions.columns])
    return base.merge(labels.frame, on=["session_id", "index"], how="inner", validate="one_to_one")
