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
(``D)``) that is not one of the options, or a second answer to one case that differs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from corpus.benchmark import NO_ANSWER, AnswerRun, Benchmark
from corpus.importers.asciimap import safe_id
from corpus.importers.hcrc import condition_of, parse_xml, without_marks
from corpus.reading import jsonl_records, read_text
from corpus.report import ERROR, WARNING, DatasetError, Report, counted, describe, shown

KIND = "maptask_vlm"
PREDICTION_FILE = re.compile(r"^vlm_predictions_(?P<model>.+)\.jsonl$")
FOLLOWER, GIVER = "follower_grounding", "giver_ambiguity"
EXPERIMENTS = (FOLLOWER, GIVER)
SLICES = ("question_type", "status", "condition", "landmark")
STATUSES = ("unique", "missing", "ambiguous")
UNREAD = "(no option)"  # a response that names no option: the model's answer, scored wrong
CASE_ID = re.compile(r"^(?P<dialogue>[^_\s]+)_(?P<turn>\d+)_(?P<landmark>\S.*)$")
# The authors' reading of a follower answer (evaluation.py): the letter's status.
LETTER_STATUS = {"A": "unique", "B": "missing", "C": "ambiguous"}
STATUS_LETTER = {v: k for k, v in LETTER_STATUS.items()}
# giver_ambiguity: "Yes" = ambiguous, "No" = unique (evaluation.parse_yes_no_response).
GIVER_OPTIONS = (
    ("Yes", "ambiguous: the name appears more than once on my map"),
    ("No", "not ambiguous: it does not appear more than once"),
)
YES_NO_STATUS = {"Yes": "ambiguous", "No": "unique"}
STATUS_YES_NO = {v: k for k, v in YES_NO_STATUS.items()}
_OPTION_LINE = re.compile(r"^\s*(?P<letter>[A-Z])\)\s*(?P<text>\S.*?)\s*$", re.M)
_LETTER_PAREN = re.compile(r"^\s*(?P<letter>[A-Z])\)")
_LETTER_ALONE = re.compile(r"^\s*(?P<letter>[A-Z])(?![A-Za-z])")
_YES_NO = re.compile(r"^\s*(?P<word>yes|no)\b", re.I)
_WORD = re.compile(r"[a-z0-9]+")
TABLE_SUFFIXES = (".csv", ".jsonl", ".parquet")
LANDMARKS_XML, CORPUS_XML = "maptask-landmarks.xml", "maptask-corpus.xml"
CASE_STATUS_COLUMNS = {FOLLOWER: ("referent_status", "follower_referent_status"), GIVER: ("giver_referent_status",)}


def status_of(count: int) -> str:
    """A landmark's referent status from how often it appears on one map (the authors' rule)."""
    return "missing" if count == 0 else "ambiguous" if count > 1 else "unique"


def parse_case_id(case_id: str) -> tuple[str, int, str] | None:
    """(dialogue, turn, landmark with spaces) of a case id, or None when it is not of that form."""
    m = CASE_ID.match(case_id)
    if m is None or int(m["turn"]) < 1:
        return None
    return m["dialogue"], int(m["turn"]), m["landmark"].replace("_", " ")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def says_landmark(text: str, landmark: str) -> bool:
    """Whether ``text`` holds the landmark's words in a row (case, punctuation and spacing aside;
    the marks of silences and noises a move of the timed units holds are not words)."""
    want, have = words(landmark), words(without_marks(text))
    n = len(want)
    return n > 0 and any(have[k : k + n] == want for k in range(len(have) - n + 1))


# ---------------------------------------------------------------------------------------------
# Gold
# ---------------------------------------------------------------------------------------------


@dataclass
class Gold:
    """What the gold sources say: statuses by (experiment or "", case id) from cases tables, and
    the landmark catalogue with the dialogues' maps."""

    cases: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    landmarks: dict[tuple[str, str], tuple[int, int]] = field(default_factory=dict)  # (map, name) -> (giver, follower)
    maps: dict[str, str] = field(default_factory=dict)  # dialogue -> map
    sources: list[str] = field(default_factory=list)

    def status(self, experiment: str, case_id: str, dialogue: str, landmark: str) -> str | None:
        for key in ((experiment, case_id), ("", case_id)):
            row = self.cases.get(key)
            if row is not None:
                for col in CASE_STATUS_COLUMNS[experiment]:
                    if row.get(col):
                        return row[col]
        counts = self.landmarks.get((self.maps.get(dialogue, ""), landmark))
        if counts is None:
            return None
        return status_of(counts[0] if experiment == GIVER else counts[1])

    @property
    def empty(self) -> bool:
        return not self.cases and not (self.landmarks and self.maps)


def _read_table(path: Path, rel: str, report: Report) -> pd.DataFrame | None:
    """A .csv, .jsonl or .parquet file as text columns ("" for empty cells)."""
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        text = read_text(path, report, rel)
        if text is None:
            return None
        rows = [obj for _, obj, _ in jsonl_records(text, report, rel)]
        frame = pd.DataFrame(rows)
    else:
        try:
            if suffix == ".parquet":
                frame = pd.read_parquet(path)
            else:
                frame = pd.read_csv(path, dtype=object, keep_default_na=False, na_filter=False)
        except (ValueError, OSError, UnicodeDecodeError, ImportError) as exc:
            report.add(rel, "-", "(file)", f"cannot be read as a table: {exc}")
            return None
    frame = frame.astype(object).where(frame.notna(), "")
    return frame.map(lambda v: v.strip() if isinstance(v, str) else str(v))


def _column(frame: pd.DataFrame, *names: str) -> str | None:
    return next((n for n in names if n in frame.columns), None)


def _count(value: str, rel: str, rec: str, col: str, report: Report) -> int | None:
    try:
        n = int(float(value))
        if n < 0 or n != float(value):
            raise ValueError
        return n
    except ValueError:
        report.add(rel, rec, col, f"expected a count (0, 1, 2, ...), got {shown(value)}")
        return None


def _take_cases(frame: pd.DataFrame, rel: str, gold: Gold, report: Report) -> None:
    etype = _column(frame, "experiment_type")
    status_cols = [c for c in ("referent_status", "follower_referent_status", "giver_referent_status") if c in frame]
    for k, row in enumerate(frame.to_dict("records")):
        rec = f"row {k + 2}" if rel.lower().endswith(".csv") else f"row {k + 1}"
        case_id = row["case_id"]
        if not case_id:
            report.add(rel, rec, "case_id", "empty: every case needs its id")
            continue
        experiment = row[etype] if etype else ""
        if experiment and experiment not in EXPERIMENTS:
            report.add(
                rel, case_id, "experiment_type", f"expected one of {', '.join(EXPERIMENTS)}, got {shown(experiment)}"
            )
            continue
        statuses = {}
        for col in status_cols:
            value = row[col]
            if value and value not in STATUSES:
                report.add(rel, case_id, col, f"expected one of {', '.join(STATUSES)}, got {shown(value)}")
                continue
            if value:
                statuses[col] = value
        held = gold.cases.setdefault((experiment, case_id), statuses)
        if held is not statuses and held != statuses:
            report.add(rel, case_id, status_cols[0] if status_cols else "case_id", "a second row with other statuses")


def _take_landmarks(frame: pd.DataFrame, rel: str, gold: Gold, report: Report) -> None:
    map_col = _column(frame, "map_id", "map")
    name_col = _column(frame, "landmark_name", "name")
    assert map_col is not None and name_col is not None
    for k, row in enumerate(frame.to_dict("records")):
        rec = f"row {k + 2}" if rel.lower().endswith(".csv") else f"row {k + 1}"
        giver = _count(row["giver_map_appears"], rel, rec, "giver_map_appears", report)
        follower = _count(row["follower_map_appears"], rel, rec, "follower_map_appears", report)
        if giver is not None and follower is not None and row[map_col] and row[name_col]:
            gold.landmarks[(row[map_col], row[name_col])] = (giver, follower)


def _take_xml(path: Path, rel: str, gold: Gold, report: Report) -> bool:
    """maptask-landmarks.xml (``<map id><landmark name giver_map_appears follower_map_appears/>``)
    or maptask-corpus.xml (``<conv id map/>``), as the authors' notebook 02 reads them."""
    root = parse_xml(path, report, rel)
    if root is None:
        return False
    if path.name.lower() == LANDMARKS_XML:
        for map_el in root.iter("map"):
            for lm in map_el.iter("landmark"):
                rec = f"landmark {lm.get('id') or lm.get('name') or '?'}"
                giver = _count(lm.get("giver_map_appears", ""), rel, rec, "giver_map_appears", report)
                follower = _count(lm.get("follower_map_appears", ""), rel, rec, "follower_map_appears", report)
                if giver is not None and follower is not None and map_el.get("id") and lm.get("name"):
                    gold.landmarks[(str(map_el.get("id")), str(lm.get("name")))] = (giver, follower)
    else:
        for conv in root.iter("conv"):
            if conv.get("id") and conv.get("map"):
                gold.maps[str(conv.get("id"))] = str(conv.get("map"))
    return True


def _take_gold_file(path: Path, rel: str, gold: Gold, report: Report, named: bool) -> None:
    """Read ``path`` into ``gold`` if it is a gold source; one that is not is an error when it was
    named as gold, a warning when it only lies in the source folder."""
    severity = ERROR if named else WARNING
    if path.name.lower() in (LANDMARKS_XML, CORPUS_XML):
        if _take_xml(path, rel, gold, report):
            gold.sources.append(rel)
        return
    if path.suffix.lower() not in TABLE_SUFFIXES:
        if named:
            report.add(
                rel,
                "-",
                "(file)",
                f"not a gold source: expected a {', '.join(TABLE_SUFFIXES)} table or {LANDMARKS_XML}",
            )
        return
    side = Report()
    frame = _read_table(path, rel, side if not named else report)
    if frame is None:
        if not named:
            report.add(rel, "-", "(file)", "not read: " + "; ".join(i.message for i in side.issues[:1]), WARNING)
        return
    cols = set(frame.columns)
    if "case_id" in cols and cols & {"referent_status", "follower_referent_status", "giver_referent_status"}:
        _take_cases(frame, rel, gold, report)
    elif (
        cols & {"map_id", "map"}
        and cols & {"landmark_name", "name"}
        and {"giver_map_appears", "follower_map_appears"} <= cols
    ):
        _take_landmarks(frame, rel, gold, report)
    elif {"dialogue_id", "map_id"} <= cols:
        for row in frame.to_dict("records"):
            if row["dialogue_id"] and row["map_id"]:
                gold.maps[row["dialogue_id"]] = row["map_id"]
    else:
        report.add(
            rel,
            "header",
            "(columns)",
            f"not a gold source (columns {', '.join(map(str, frame.columns[:8]))}): expected case_id with "
            "referent_status or giver_referent_status; or map_id, landmark_name, giver_map_appears, "
            "follower_map_appears; or dialogue_id, map_id",
            severity,
        )
        return
    gold.sources.append(rel)


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


def _prompt_options(experiment: str, prompt: str) -> list[tuple[str, str]]:
    if experiment == GIVER:
        return list(GIVER_OPTIONS)
    return [(m["letter"], m["text"]) for m in _OPTION_LINE.finditer(prompt)]


def read_answer(experiment: str, raw: str, letters: Iterable[str]) -> str | None:
    """The option a response names (:data:`UNREAD` when it names none), or None when it names a
    letter that is not an option (``D)``)."""
    if experiment == GIVER:
        m = _YES_NO.match(raw)
        return m["word"].capitalize() if m else UNREAD
    letters = set(letters)
    m = _LETTER_PAREN.match(raw)
    if m:
        return m["letter"] if m["letter"] in letters else None
    m = _LETTER_ALONE.match(raw)
    return m["letter"] if m and m["letter"] in letters else UNREAD


def _read_predictions(path: Path, rel: str) -> FileRead:
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
        line = f"line {lineno}"
        case_id = obj.get("case_id")
        if not isinstance(case_id, str) or not case_id.strip():
            report.add(rel, line, "case_id", f"expected the case's id, got {describe(case_id)}")
            continue
        parsed = parse_case_id(case_id)
        if parsed is None:
            report.add(
                rel,
                case_id,
                "case_id",
                "expected <dialogue>_<turn>_<landmark> (e.g. q1ec1_34_fenced_meadow; turns from 1)",
            )
            continue
        experiment, prompt, raw, model = (obj.get(k) for k in ("experiment_type", "prompt", "raw_response", "model"))
        bad = False
        if experiment not in EXPERIMENTS:
            report.add(
                rel, case_id, "experiment_type", f"expected one of {', '.join(EXPERIMENTS)}, got {describe(experiment)}"
            )
            bad = True
        if not isinstance(prompt, str):
            report.add(rel, case_id, "prompt", f"expected the prompt's text, got {describe(prompt)}")
            bad = True
        if raw is not None and not isinstance(raw, str):
            report.add(rel, case_id, "raw_response", f"expected the model's text or null, got {describe(raw)}")
            bad = True
        if "model" in obj:
            if not isinstance(model, str) or not model.strip():
                report.add(rel, case_id, "model", f"expected the model's name, got {describe(model)}")
                bad = True
            elif first_model is None:
                first_model = model
            elif model != first_model:
                report.add(
                    rel, case_id, "model", f"{shown(model)}, but the file's first record says {shown(first_model)}"
                )
                bad = True
        if bad:
            continue
        assert isinstance(experiment, str) and isinstance(prompt, str)
        options = _prompt_options(experiment, prompt)
        if not options:
            report.add(rel, case_id, "prompt", "no options in the prompt (expected lines 'A) ...', 'B) ...')")
            continue
        answer = NO_ANSWER
        if isinstance(raw, str):
            read = read_answer(experiment, raw, [k for k, _ in options])
            if read is None:
                letters = ", ".join(k for k, _ in options)
                report.add(
                    rel,
                    case_id,
                    "raw_response",
                    f"answers {shown(raw.strip()[:2])}, not one of the options ({letters})",
                )
                continue
            answer = read
        item = item_id_of(experiment, case_id)
        held = out.answers.get(item)
        if held is not None and held != answer:
            report.add(
                rel, case_id, "raw_response", f"a second answer to this case: {shown(answer)} after {shown(held)}"
            )
            continue
        if held is None:
            out.answers[item] = answer
            if answer == UNREAD:
                out.unread.append(case_id)
            dialogue, turn, landmark = parsed
            out.cases.append(Case(experiment, case_id, dialogue, turn, landmark, prompt, options, rel))
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


def _gold_paths(gold: str | Path | Sequence[str | Path] | None) -> list[Path]:
    if gold is None:
        return []
    named = [gold] if isinstance(gold, str | Path) else list(gold)
    out: list[Path] = []
    for g in map(Path, named):
        if g.is_dir():
            out += sorted(
                p
                for p in g.rglob("*")
                if p.is_file() and (p.suffix.lower() in TABLE_SUFFIXES or p.name.lower() in (LANDMARKS_XML, CORPUS_XML))
            )
        else:
            out.append(g)
    return out


def _empty(name: str) -> Benchmark:
    items = pd.DataFrame(
        columns=["item_id", "group", "question_id", "question", "options", "option_kinds", "gold", *SLICES]
    )
    return Benchmark(name, KIND, items, SLICES, "group", {}, ())


def read_maptask_vlm(
    source: str | Path,
    sessions: Mapping[str, Any] | None = None,
    gold: str | Path | Sequence[str | Path] | None = None,
) -> tuple[Benchmark, Report]:
    """The cases of the prediction files in ``source`` (a folder searched at any depth for
    ``vlm_predictions_<model>.jsonl``, or one such file) as items linked to moments of the imported
    HCRC ``sessions`` (session id -> session, e.g. ``corpus.dataset.load(path).sessions``), every
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
    g = Gold()
    for p in candidates:
        _take_gold_file(p, _rel(p, root), g, report, named=False)
    for p in _gold_paths(gold):
        if not p.is_file():
            report.add(
                str(p), "-", "gold", "not found: expected a cases table, a landmark catalogue or a folder of them"
            )
            continue
        _take_gold_file(p, _rel(p, root), g, report, named=True)
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

    files = [_read_predictions(p, _rel(p, root)) for p in pred_paths]
    cases: dict[str, Case] = {}
    for f in files:
        for c in f.cases:
            cases.setdefault(item_id_of(c.experiment, c.case_id), c)

    rows: list[dict[str, Any]] = []
    contexts: dict[str, dict[str, Any]] = {}
    no_gold: list[str] = []
    for item, c in cases.items():
        status = g.status(c.experiment, c.case_id, c.dialogue, c.landmark) if not g.empty else None
        if status is None:
            no_gold.append(item)
            if not g.empty:
                report.add(
                    c.file,
                    c.case_id,
                    "case_id",
                    f"no gold for this case in {', '.join(g.sources)}: not scored",
                    WARNING,
                )
            continue
        key = STATUS_YES_NO.get(status) if c.experiment == GIVER else STATUS_LETTER.get(status)
        letters = [k for k, _ in c.options]
        if key is None or key not in letters:
            no_gold.append(item)
            report.add(
                c.file,
                c.case_id,
                "prompt",
                f"the gold status {status} has no option here (options {', '.join(letters)}): not scored",
                WARNING,
            )
            continue
        claims = YES_NO_STATUS if c.experiment == GIVER else LETTER_STATUS
        rows.append(
            {
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
        )
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
    if sessions is not None:
        for ctx in contexts.values():
            if not ctx["moments"] and ctx["dialogue"] not in sessions and ctx["session_id"] not in sessions:
                ctx["session_id"] = None
    if cases and not rows and report.ok:
        report.add(label, "-", "(gold)", f"no case has a gold answer in {', '.join(g.sources)}")

    items = pd.DataFrame(rows, columns=list(_empty(label).items.columns))
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
    n_unmatched = sum(len(c["unmatched"]) for c in contexts.values())
    n_moments = sum(len(c["moments"]) for c in contexts.values())
    bench = Benchmark(
        name=label,
        kind=KIND,
        items=items,
        slices=SLICES,
        cluster="group",
        contexts=contexts,
        runs=tuple(runs),
        description=(
            f"Map Task VLM predictions (KamyabAbedi/maptask-vlm) read from '{label}': "
            f"{counted(len(items), 'case')} of {counted(len(contexts), 'HCRC dialogue')}, gold from "
            f"{', '.join(g.sources) or 'nothing'}"
            + (f"; {counted(len(no_gold), 'case')} without gold not scored" if no_gold else "")
            + (
                f"; {n_moments} linked to a session moment, {n_unmatched} unmatched."
                if sessions is not None
                else "; moments by the transcript-row rule, not checked against sessions."
            )
        ),
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
