"""Map Task VLM predictions (KamyabAbedi/maptask-vlm) as a benchmark whose items are moments of HCRC dialogues.

**The released format.** ``results/predictions/vlm_predictions_<model>.jsonl`` (written by the
authors' ``scripts/run_vlm_inference.py``; evaluated by ``notebooks/07_evaluate_results.py``), one
JSON object a line::

    {"case_id": "q1ec1_34_fenced_meadow", "model": "qwen2.5-vl-7b",
     "experiment_type": "follower_grounding", "prompt": "...", "raw_response": "A) ..."}

- ``case_id`` is ``<dialogue>_<turn>_<landmark>`` (``notebooks/05_build_experiment_cases.py``), the
  landmark's spaces written as ``_``. ``<turn>`` is the **1-based row** of the dialogue's HCRC query
  transcript (``Transcripts/<dialogue>.txt`` of the corpus's ``transcripts.zip``: ``Found 2 args.``,
  ``Observation: q1ec1; Result size: 77``, a ``who`` header, then one ``g|f<TAB>words`` row per
  move; ``src/maptask_vlm/loaders.py`` numbers the rows with ``enumerate(..., start=1)``).
- ``experiment_type``: ``follower_grounding`` (the model, shown the follower's map, chooses among the
  prompt's options ``A) ...``, ``B) ...``, ``C) ...``: A = the landmark is there once, B = missing,
  C = ambiguous) or ``giver_ambiguity`` (shown the giver's map: "Answer Yes or No": Yes = ambiguous,
  No = unique). The authors' ``src/maptask_vlm/evaluation.py`` reads the answer from the start of
  ``raw_response`` (``null`` when inference failed).
- There is **no gold answer in these files**. The authors score against their cases table
  (``data/interim/pilot_cases.parquet``: ``referent_status`` for follower_grounding,
  ``giver_referent_status`` for giver_ambiguity), which is not released; its statuses come from the
  corpus's landmark catalogue (``maptask-landmarks.xml``: ``giver_map_appears``,
  ``follower_map_appears`` per map and landmark; 0 = missing, 1 = unique, more = ambiguous,
  ``notebooks/02_clean_validate.py``) and the dialogue's map (``maptask-corpus.xml``, ``<conv id map>``).

**Gold** is therefore read from whichever of these is in the source folder or given as ``gold``
(a file, a folder, or several): a cases table (``.parquet``, ``.csv`` or ``.jsonl`` with ``case_id``
and ``referent_status`` and/or ``giver_referent_status``, ``experiment_type`` optional: the authors'
``pilot_cases``, ``experiment_cases`` or ``evaluation_scored``), or a landmark catalogue
(``maptask-landmarks.xml``, or a table with ``map``/``map_id``, ``name``/``landmark_name``,
``giver_map_appears`` and ``follower_map_appears``, e.g. GMMT's ``landmarks_configuration.csv``) with
the dialogues' maps (``maptask-corpus.xml``, or a ``dialogue_id, map_id`` table such as GMMT's
``dialogue_map_images.csv``). A cases table wins over the catalogue.

**Items.** One per case: ``<experiment_type>__<case_id>`` (the authors' own fix in notebook 07: 17
case ids occur in both experiments), grouped (and clustered) by dialogue, ``question_id``
``<turn>_<landmark>``, the prompt as the question, its options as ``"A. text"`` (``"Yes. ..."``,
``"No. ..."`` for giver_ambiguity), each option's kind the referent status it claims
(``true_answer`` for the gold). Slices: ``question_type`` (the experiment), ``status`` (the gold
referent status), ``condition`` (eye contact or not, from the dialogue id) and ``landmark``. A case
no gold source knows is reported (a warning naming file, case and field) and is not an item.

**Moments.** Turn ``t`` of dialogue ``d`` is action ``t - 1`` of the session imported from ``d``
(:mod:`corpus.importers.hcrc` gives the session the dialogue's id and one action per transcript row
or move, in that order, numbered from 0). ``contexts[d]`` is ``{"dialogue", "session_id",
"checked", "moments": {item_id: action_index}, "unmatched": {item_id: reason}}``; a page opens
``replay?session=<session_id>&step=<action_index>``. Given the imported ``sessions``, a case is
**unmatched** (a warning, once per case, naming file, case id and field; the item is kept and
scored, without a moment) when its dialogue is no session, its turn is beyond the session's
actions, or that action's words do not hold the landmark's (the authors found each case by the
landmark's name in the row's words, so any other action is a different numbering). Without
``sessions`` the moments follow the rule unchecked (``checked`` false).

**Runs.** One per prediction file, named by its ``model``. An answer is read as the authors do: a
leading option letter (``A)``, ``B``; a letter followed by another letter, as in ``Answer: B``, is not
one, where the authors' pattern read an ``A``), or a leading Yes/No. A response that gives none is the
model's answer all the same: scored wrong (as the authors score it) as :data:`UNREAD` and counted
in a warning; ``null`` (inference failed) is no answer. A malformed record refuses its run whole,
with an error naming file, record (case id, or line) and field: not a JSON object, a missing or
ill-formed ``case_id``, an unknown ``experiment_type``, a ``prompt`` or ``raw_response`` of the wrong
type, a ``model`` other than the file's, a follower prompt without options, an option letter
(``D)``) that is not one of the options, or a second answer to one case that differs. The records
and the gold sources are read by their models (:mod:`corpus.importers.maptask_vlm_records`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from corpus.benchmark.dataset import NO_ANSWER, AnswerRun, Benchmark
from corpus.benchmark.records import checked, given_id
from corpus.importers.asciimap import safe_id
from corpus.importers.hcrc import condition_of, without_marks
from corpus.importers.maptask_vlm_records import (
    CORPUS_XML,
    GIVER,
    LANDMARKS_XML,
    LETTER_STATUS,
    STATUS_LETTER,
    STATUS_YES_NO,
    TABLE_SUFFIXES,
    UNREAD,
    YES_NO_STATUS,
    Gold,
    Prediction,
    gold_paths,
    parse_case_id,
    read_answer,
    take_gold_file,
)
from corpus.loading.reading import jsonl_records, read_text
from corpus.loading.report import WARNING, DatasetError, Report, counted, shown

KIND = "maptask_vlm"
PREDICTION_FILE = re.compile(r"^vlm_predictions_(?P<model>.+)\.jsonl$")
SLICES = ("question_type", "status", "condition", "landmark")
_WORD = re.compile(r"[a-z0-9]+")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def says_landmark(text: str, landmark: str) -> bool:
    """Whether ``text`` holds the landmark's words in a row (case, punctuation and spacing aside;
    the marks of silences and noises a move of the timed units holds are not words)."""
    want, have = words(landmark), words(without_marks(text))
    n = len(want)
    return n > 0 and any(have[k : k + n] == want for k in range(len(have) - n + 1))


# ---------------------------------------------------------------------------------------------
# Prediction files
# ---------------------------------------------------------------------------------------------


@dataclass
class Case:
    """One case as a prediction file gives it (the first valid record of it across files)."""

    experiment: str
    case_id: str
    dialogue: str
    turn: int
    landmark: str
    prompt: str
    options: list[tuple[str, str]]
    file: str


@dataclass
class FileRead:
    rel: str
    model: str
    answers: dict[str, str]  # item id -> answer (NO_ANSWER: null response)
    unread: list[str]
    cases: list[Case]
    report: Report


def item_id_of(experiment: str, case_id: str) -> str:
    return f"{experiment}__{case_id}"


def _take_prediction(p: Prediction, first_model: str | None, out: FileRead) -> str | None:
    """Add a valid record's answer (and, the first time, its case) to ``out``, or an error when its
    model is not the file's or it gives a second, different answer to a case; the file's model after it."""
    report, rel = out.report, out.rel
    if p.model is not None and first_model is not None and p.model != first_model:
        report.add(rel, p.case_id, "model", f"{shown(p.model)}, but the file's first record says {shown(first_model)}")
        return first_model
    first_model = first_model or p.model
    answer, item = p.answer, item_id_of(p.experiment_type, p.case_id)
    assert answer is not None  # (a Prediction's response names one of its options)
    held = out.answers.get(item)
    if held is not None and held != answer:
        report.add(rel, p.case_id, "raw_response", f"a second answer to this case: {shown(answer)} after {shown(held)}")
        return first_model
    if held is None:
        out.answers[item] = answer
        if answer == UNREAD:
            out.unread.append(p.case_id)
        dialogue, turn, landmark = p.case
        out.cases.append(Case(p.experiment_type, p.case_id, dialogue, turn, landmark, p.prompt, p.options, rel))
    return first_model


def _read_predictions(path: Path, rel: str) -> FileRead:
    """One prediction file: each record a :class:`corpus.importers.maptask_vlm_records.Prediction`
    (named by its case id, or ``line <n>`` when it has none), its records of one model, one answer to
    a case."""
    report = Report()
    named = PREDICTION_FILE.match(path.name)
    out = FileRead(
        rel=rel, model=named["model"] if named else path.stem, answers={}, unread=[], cases=[], report=report
    )
    text = read_text(path, report, rel)
    if text is None:
        return out
    first_model: str | None = None
    for lineno, obj, _ in jsonl_records(text, report, rel):
        case_id = given_id(obj, "case_id")
        p = checked(Prediction, obj, report, rel, case_id or f"line {lineno}")
        if p is not None:
            first_model = _take_prediction(p, first_model, out)
    if first_model:
        out.model = first_model
    return out


# ---------------------------------------------------------------------------------------------
# Moments
# ---------------------------------------------------------------------------------------------


def _content(action: Any) -> str:
    content = getattr(action, "content", None)
    if content is None and isinstance(action, Mapping):
        content = action.get("content")
    return content if isinstance(content, str) else ""


def _actions(session: Any) -> Sequence[Any]:
    acts = getattr(session, "actions", None)
    if acts is None and isinstance(session, Mapping):
        acts = session.get("actions")
    return acts if isinstance(acts, Sequence) else []


def _link(case: Case, sessions: Mapping[str, Any] | None) -> tuple[str, int | None, str]:
    """(session id, action index or None, why not) of a case's moment."""
    sid = safe_id(case.dialogue)
    index = case.turn - 1
    if sessions is None:
        return sid, index, ""
    session = sessions.get(sid, sessions.get(case.dialogue))
    if session is None:
        return sid, None, f"dialogue {case.dialogue} is not a session of the dataset"
    actions = _actions(session)
    if index >= len(actions):
        return sid, None, f"turn {case.turn} is beyond session {sid}'s {counted(len(actions), 'action')}"
    if not says_landmark(_content(actions[index]), case.landmark):
        return (
            sid,
            None,
            (
                f"action {index} of session {sid} (turn {case.turn}) does not say {shown(case.landmark)}: "
                "the session's actions are not numbered as the transcript rows were"
            ),
        )
    return sid, index, ""


# ---------------------------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------------------------


def _files(source: Path) -> tuple[Path, list[Path], list[Path]]:
    """(root the report names files from, prediction files, other candidate gold files)."""
    if source.is_file():
        return source.parent, [source], []
    found = sorted(
        p
        for p in source.rglob("*")
        if p.is_file() and not any(part.startswith(".") or part == "__MACOSX" for part in p.relative_to(source).parts)
    )
    preds = [p for p in found if PREDICTION_FILE.match(p.name)]
    others = [
        p
        for p in found
        if p not in preds and (p.suffix.lower() in TABLE_SUFFIXES or p.name.lower() in (LANDMARKS_XML, CORPUS_XML))
    ]
    return source, preds, others


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def _empty(name: str) -> Benchmark:
    items = pd.DataFrame(
        columns=["item_id", "group", "question_id", "question", "options", "option_kinds", "gold", *SLICES]
    )
    return Benchmark(name, KIND, items, SLICES, "group", {}, ())


def _read_gold(
    candidates: list[Path], root: Path, gold: str | Path | Sequence[str | Path] | None, label: str, report: Report
) -> Gold:
    """The gold of the candidate files found beside the predictions and of the files given as ``gold``."""
    g = Gold()
    for p in candidates:
        take_gold_file(p, _rel(p, root), g, report, named=False)
    for p in gold_paths(gold):
        if not p.is_file():
            report.add(
                str(p), "-", "gold", "not found: expected a cases table, a landmark catalogue or a folder of them"
            )
            continue
        take_gold_file(p, _rel(p, root), g, report, named=True)
    if g.landmarks and not g.maps:
        report.add(
            g.sources[0],
            "-",
            "(gold)",
            f"a landmark catalogue but no dialogue's map: expected {CORPUS_XML} or a dialogue_id, map_id table",
        )
    if g.empty and report.ok:
        report.add(
            label,
            "-",
            "(gold)",
            "no gold: the prediction files hold none; give the authors' cases table (case_id, referent_status, "
            f"giver_referent_status) or the landmark catalogue ({LANDMARKS_XML} with {CORPUS_XML}, or tables of "
            "them) in the folder or as gold",
        )
    return g


def _gold_key(c: Case, g: Gold, report: Report) -> tuple[str, str] | None:
    """(gold status, gold option key) of a case, or None (and a warning) when it cannot be scored."""
    status = g.status(c.experiment, c.case_id, c.dialogue, c.landmark) if not g.empty else None
    if status is None:
        if not g.empty:
            report.add(
                c.file,
                c.case_id,
                "case_id",
                f"no gold for this case in {', '.join(g.sources)}: not scored",
                WARNING,
            )
        return None
    key = STATUS_YES_NO.get(status) if c.experiment == GIVER else STATUS_LETTER.get(status)
    letters = [k for k, _ in c.options]
    if key is None or key not in letters:
        report.add(
            c.file,
            c.case_id,
            "prompt",
            f"the gold status {status} has no option here (options {', '.join(letters)}): not scored",
            WARNING,
        )
        return None
    return status, key


def _item_row(item: str, c: Case, status: str, key: str) -> dict[str, Any]:
    """The items table's row of a scored case."""
    claims = YES_NO_STATUS if c.experiment == GIVER else LETTER_STATUS
    return {
        "item_id": item,
        "group": c.dialogue,
        "question_id": f"{c.turn}_{c.landmark.replace(' ', '_')}",
        "question": c.prompt,
        "options": [f"{k}. {text}" for k, text in c.options],
        "option_kinds": ["true_answer" if k == key else claims.get(k, "") for k, _ in c.options],
        "gold": key,
        "question_type": c.experiment,
        "status": status,
        "condition": condition_of(c.dialogue),
        "landmark": c.landmark,
    }


def _place_moment(
    item: str, c: Case, sessions: Mapping[str, Any] | None, contexts: dict[str, dict[str, Any]], report: Report
) -> None:
    """Record a scored case's moment (or why it has none) in its dialogue's context."""
    sid, index, why = _link(c, sessions)
    ctx = contexts.setdefault(
        c.dialogue,
        {
            "dialogue": c.dialogue,
            "session_id": sid,
            "checked": sessions is not None,
            "moments": {},
            "unmatched": {},
        },
    )
    if index is None:
        ctx["unmatched"][item] = why
        report.add(c.file, c.case_id, "case_id", f"unmatched: {why}; the case is scored without a moment", WARNING)
    else:
        ctx["moments"][item] = index


def _build_items(
    cases: dict[str, Case], g: Gold, sessions: Mapping[str, Any] | None, report: Report
) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]], list[str]]:
    """(item rows, contexts by dialogue, item ids without gold) of the cases."""
    rows: list[dict[str, Any]] = []
    contexts: dict[str, dict[str, Any]] = {}
    no_gold: list[str] = []
    for item, c in cases.items():
        scored = _gold_key(c, g, report)
        if scored is None:
            no_gold.append(item)
            continue
        rows.append(_item_row(item, c, *scored))
        _place_moment(item, c, sessions, contexts, report)
    if sessions is not None:
        for ctx in contexts.values():
            if not ctx["moments"] and ctx["dialogue"] not in sessions and ctx["session_id"] not in sessions:
                ctx["session_id"] = None
    return rows, contexts, no_gold


def _runs(files: list[FileRead], items: pd.DataFrame) -> list[AnswerRun]:
    """One run per prediction file, its answers to every item (a warning counting unread responses)."""
    known = set(items["item_id"])
    all_items = items["item_id"].tolist()
    group_of = dict(zip(items["item_id"], items["group"], strict=True))
    runs: list[AnswerRun] = []
    names = [f.model for f in files]
    for f in files:
        if f.unread:
            f.report.add(
                f.rel,
                f.unread[0],
                "raw_response",
                f"{counted(len(f.unread), 'response')} name no option ({', '.join(f.unread[:5])}"
                f"{', ...' if len(f.unread) > 5 else ''}): scored wrong, as the authors score them",
                WARNING,
            )
        answers = [f.answers.get(i, NO_ANSWER) for i in all_items]
        run_id = f.model if names.count(f.model) == 1 else f"{f.model} ({f.rel})"
        runs.append(
            AnswerRun(
                run_id=run_id,
                model=f.model,
                setting="",
                answers=pd.DataFrame({"item_id": all_items, "answer": answers}, columns=["item_id", "answer"]),
                source=f.rel,
                report=f.report,
                unmatched=sum(i not in known for i in f.answers),
                no_answer=sum(a == NO_ANSWER for a in answers),
                groups=len({group_of[i] for i in f.answers if i in known}),
            )
        )
    return runs


def _description(
    label: str, n_items: int, contexts: dict[str, dict[str, Any]], g: Gold, no_gold: list[str], checked: bool
) -> str:
    """The benchmark's one-paragraph description: what was read, gold from where, moments how."""
    n_unmatched = sum(len(c["unmatched"]) for c in contexts.values())
    n_moments = sum(len(c["moments"]) for c in contexts.values())
    return (
        f"Map Task VLM predictions (KamyabAbedi/maptask-vlm) read from '{label}': "
        f"{counted(n_items, 'case')} of {counted(len(contexts), 'HCRC dialogue')}, gold from "
        f"{', '.join(g.sources) or 'nothing'}"
        + (f"; {counted(len(no_gold), 'case')} without gold not scored" if no_gold else "")
        + (
            f"; {n_moments} linked to a session moment, {n_unmatched} unmatched."
            if checked
            else "; moments by the transcript-row rule, not checked against sessions."
        )
    )


def read_maptask_vlm(
    source: str | Path,
    sessions: Mapping[str, Any] | None = None,
    gold: str | Path | Sequence[str | Path] | None = None,
) -> tuple[Benchmark, Report]:
    """The cases of the prediction files in ``source`` (a folder searched at any depth for
    ``vlm_predictions_<model>.jsonl``, or one such file) as items linked to moments of the imported
    HCRC ``sessions`` (session id -> session, e.g. ``corpus.loading.dataset.load(path).sessions``), every
    file a run (refused runs included, each with its own report), and the problems of the gold."""
    source = Path(source)
    report = Report()
    label = source.stem if source.is_file() else source.name
    if not source.exists():
        report.add(source.name, "-", "(source)", f"not found: {source}")
        return _empty(label), report
    root, pred_paths, candidates = _files(source)
    if not pred_paths:
        report.add(label, "-", "(source)", "no prediction file found (expected vlm_predictions_<model>.jsonl)")
        return _empty(label), report
    g = _read_gold(candidates, root, gold, label, report)

    files = [_read_predictions(p, _rel(p, root)) for p in pred_paths]
    cases: dict[str, Case] = {}
    for f in files:
        for c in f.cases:
            cases.setdefault(item_id_of(c.experiment, c.case_id), c)

    rows, contexts, no_gold = _build_items(cases, g, sessions, report)
    if cases and not rows and report.ok:
        report.add(label, "-", "(gold)", f"no case has a gold answer in {', '.join(g.sources)}")

    items = pd.DataFrame(rows, columns=list(_empty(label).items.columns))
    bench = Benchmark(
        name=label,
        kind=KIND,
        items=items,
        slices=SLICES,
        cluster="group",
        contexts=contexts,
        runs=tuple(_runs(files, items)),
        description=_description(label, len(items), contexts, g, no_gold, sessions is not None),
    )
    return bench, report


def load_maptask_vlm(
    source: str | Path,
    sessions: Mapping[str, Any] | None = None,
    gold: str | Path | Sequence[str | Path] | None = None,
) -> Benchmark:
    """:func:`read_maptask_vlm`, or :class:`DatasetError` when the gold or the items have an error
    (a refused run is kept, with its report, and is not scored)."""
    bench, report = read_maptask_vlm(source, sessions, gold)
    if not report.ok:
        raise DatasetError(report, str(source))
    return bench


def moments(bench: Benchmark) -> pd.DataFrame:
    """item_id, session_id, action_index of every item linked to a moment."""
    rows = [
        {"item_id": item, "session_id": ctx.get("session_id"), "action_index": int(index)}
        for ctx in bench.contexts.values()
        if isinstance(ctx, Mapping)
        for item, index in (ctx.get("moments") or {}).items()
    ]
    return pd.DataFrame(rows, columns=["item_id", "session_id", "action_index"])


__all__ = ["load_maptask_vlm", "moments", "read_maptask_vlm", "read_answer", "parse_case_id"]
