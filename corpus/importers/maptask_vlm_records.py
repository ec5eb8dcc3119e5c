"""The records of Map Task VLM predictions (KamyabAbedi/maptask-vlm) and of the gold sources read beside
them, as typed models, and the reading of the gold (:mod:`corpus.importers.maptask_vlm` describes the
format and builds the benchmark).

A prediction file's record is a :class:`Prediction` (named by its ``case_id``, or ``line <n>`` when it
has none); a cases table's row a :class:`CaseRow` and a landmark catalogue's row (or
``maptask-landmarks.xml`` landmark) a :class:`LandmarkRow`, each validated by
:func:`corpus.benchmark.records.checked`, which names the file, the record and the field of every
problem. What needs more than one record (a file's records naming one model, a case given two
answers, two rows of a case with other statuses) is checked where the records meet.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import pandas as pd
from pydantic import AliasChoices, BeforeValidator, Field, model_validator

from corpus.benchmark.dataset import NO_ANSWER
from corpus.benchmark.records import Released, checked, problem
from corpus.importers.hcrc import parse_xml
from corpus.loading.reading import jsonl_records, read_text
from corpus.loading.report import ERROR, WARNING, Report, describe, shown

FOLLOWER, GIVER = "follower_grounding", "giver_ambiguity"
EXPERIMENTS = (FOLLOWER, GIVER)
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


def prompt_options(experiment: str, prompt: str) -> list[tuple[str, str]]:
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


# ---------------------------------------------------------------------------------------------
# A prediction file's record
# ---------------------------------------------------------------------------------------------


def _case_id(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise problem(f"expected the case's id, got {describe(value)}")
    if parse_case_id(value) is None:
        raise problem("expected <dialogue>_<turn>_<landmark> (e.g. q1ec1_34_fenced_meadow; turns from 1)")
    return value


def _experiment(value: Any) -> Any:
    if value not in EXPERIMENTS:
        raise problem(f"expected one of {', '.join(EXPERIMENTS)}, got {describe(value)}")
    return value


def _worded(expected: str, *, null: bool = False, blank: bool = True) -> BeforeValidator:
    """A text field refused as "expected <expected>, got ..." (null allowed if ``null``; blank text
    only if ``blank``)."""

    def check(value: Any) -> Any:
        if (value is None and null) or (isinstance(value, str) and (blank or value.strip())):
            return value
        raise problem(f"expected {expected}, got {describe(value)}")

    return BeforeValidator(check)


class Prediction(Released):
    """One record of ``vlm_predictions_<model>.jsonl``: a case id ``<dialogue>_<turn>_<landmark>``
    (turns from 1), an experiment, the prompt (a follower's with options ``A) ...``), the response
    (null when inference failed; a leading letter must be one of the options) and, where given, the
    model's name."""

    what = "a JSON object"
    case_id: Annotated[str, BeforeValidator(_case_id)] = Field(default=None, validate_default=True)
    experiment_type: Annotated[str, BeforeValidator(_experiment)] = Field(default=None, validate_default=True)
    prompt: Annotated[str, _worded("the prompt's text")] = Field(default=None, validate_default=True)
    raw_response: Annotated[str | None, _worded("the model's text or null", null=True)] = None
    model: Annotated[str | None, _worded("the model's name", blank=False)] = None

    @model_validator(mode="after")
    def _an_option(self) -> Prediction:
        letters = ", ".join(k for k, _ in self.options)
        if not letters:
            raise ValueError("prompt: no options in the prompt (expected lines 'A) ...', 'B) ...')")
        if self.answer is None:
            assert self.raw_response is not None
            raise ValueError(
                f"raw_response: answers {shown(self.raw_response.strip()[:2])}, not one of the options ({letters})"
            )
        return self

    @property
    def options(self) -> list[tuple[str, str]]:
        return prompt_options(self.experiment_type, self.prompt)

    @property
    def answer(self) -> str | None:
        """The option the response names (:data:`UNREAD` if none, "" when inference failed; None
        when it names a letter that is no option)."""
        if self.raw_response is None:
            return NO_ANSWER
        return read_answer(self.experiment_type, self.raw_response, [k for k, _ in self.options])

    @property
    def case(self) -> tuple[str, int, str]:
        """(dialogue, turn, landmark with spaces) of the case."""
        parsed = parse_case_id(self.case_id)
        assert parsed is not None
        return parsed


# ---------------------------------------------------------------------------------------------
# The gold sources
# ---------------------------------------------------------------------------------------------


def _status(value: Any) -> Any:
    if value and value not in STATUSES:
        raise problem(f"expected one of {', '.join(STATUSES)}, got {shown(value)}")
    return value


def _experiment_or_blank(value: Any) -> Any:
    if value and value not in EXPERIMENTS:
        raise problem(f"expected one of {', '.join(EXPERIMENTS)}, got {shown(value)}")
    return value


def _id_given(value: Any) -> Any:
    if not value:
        raise problem("empty: every case needs its id")
    return value


Status = Annotated[str, BeforeValidator(_status)]  # "" (not given) or a referent status


class CaseRow(Released):
    """A row of a cases table (the authors' ``pilot_cases``): a case id, its experiment (blank: either)
    and its referent statuses (blank where not given); every cell text."""

    case_id: Annotated[str, BeforeValidator(_id_given)] = Field(default="", validate_default=True)
    experiment_type: Annotated[str, BeforeValidator(_experiment_or_blank)] = ""
    referent_status: Status = ""
    follower_referent_status: Status = ""
    giver_referent_status: Status = ""

    def statuses(self, columns: Iterable[str]) -> dict[str, str]:
        return {c: getattr(self, c) for c in columns if getattr(self, c)}


def _count(value: Any) -> Any:
    try:
        n = int(float(value))
        if n < 0 or n != float(value):
            raise ValueError
        return n
    except (TypeError, ValueError):
        raise problem(f"expected a count (0, 1, 2, ...), got {shown(value)}") from None


Count = Annotated[int, BeforeValidator(_count)]  # a count written as text ("2", "2.0")


class LandmarkRow(Released):
    """A landmark of a catalogue (a table's row, or a ``<landmark>`` of maptask-landmarks.xml): its map,
    its name and how often it appears on the giver's and the follower's map."""

    map: str = Field(default="", validation_alias=AliasChoices("map_id", "map"))
    name: str = Field(default="", validation_alias=AliasChoices("landmark_name", "name"))
    giver_map_appears: Count
    follower_map_appears: Count


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

    def take_landmark(self, raw: dict[str, Any], rel: str, record: str, report: Report) -> None:
        row = checked(LandmarkRow, raw, report, rel, record)
        if row is not None and row.map and row.name:
            self.landmarks[(row.map, row.name)] = (row.giver_map_appears, row.follower_map_appears)


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


def _take_cases(frame: pd.DataFrame, rel: str, gold: Gold, report: Report) -> None:
    status_cols = [c for c in ("referent_status", "follower_referent_status", "giver_referent_status") if c in frame]
    for k, raw in enumerate(frame.to_dict("records")):
        record = raw["case_id"] or _row_name(rel, k)
        row = checked(CaseRow, raw, report, rel, record)
        if row is None:
            continue
        statuses = row.statuses(status_cols)
        held = gold.cases.setdefault((row.experiment_type, row.case_id), statuses)
        if held is not statuses and held != statuses:
            report.add(
                rel, row.case_id, status_cols[0] if status_cols else "case_id", "a second row with other statuses"
            )


def _take_xml(path: Path, rel: str, gold: Gold, report: Report) -> bool:
    """maptask-landmarks.xml (``<map id><landmark name giver_map_appears follower_map_appears/>``)
    or maptask-corpus.xml (``<conv id map/>``), as the authors' notebook 02 reads them."""
    root = parse_xml(path, report, rel)
    if root is None:
        return False
    if path.name.lower() == LANDMARKS_XML:
        for map_el in root.iter("map"):
            for lm in map_el.iter("landmark"):
                raw = {"map": map_el.get("id") or "", "name": lm.get("name") or ""}
                for col in ("giver_map_appears", "follower_map_appears"):
                    raw[col] = lm.get(col, "")
                gold.take_landmark(raw, rel, f"landmark {lm.get('id') or lm.get('name') or '?'}", report)
    else:
        for conv in root.iter("conv"):
            if conv.get("id") and conv.get("map"):
                gold.maps[str(conv.get("id"))] = str(conv.get("map"))
    return True


def take_gold_file(path: Path, rel: str, gold: Gold, report: Report, named: bool) -> None:
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
    if _take_table(frame, rel, gold, report, severity):
        gold.sources.append(rel)


def _row_name(rel: str, k: int) -> str:
    """How a report names the ``k``-th record of a table (a CSV's header is row 1)."""
    return f"row {k + 2}" if rel.lower().endswith(".csv") else f"row {k + 1}"


def _take_table(frame: pd.DataFrame, rel: str, gold: Gold, report: Report, severity: str) -> bool:
    """Read a table into ``gold`` by its columns (a cases table, a landmark catalogue or a dialogues'
    maps); False, with an issue of ``severity``, when its columns are none of these."""
    cols = set(frame.columns)
    if "case_id" in cols and cols & {"referent_status", "follower_referent_status", "giver_referent_status"}:
        _take_cases(frame, rel, gold, report)
    elif (
        cols & {"map_id", "map"}
        and cols & {"landmark_name", "name"}
        and {"giver_map_appears", "follower_map_appears"} <= cols
    ):
        for k, raw in enumerate(frame.to_dict("records")):
            gold.take_landmark(raw, rel, _row_name(rel, k), report)
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
        return False
    return True


def gold_paths(gold: str | Path | Sequence[str | Path] | None) -> list[Path]:
    """The files ``gold`` names (a file, a folder searched at any depth for gold sources, or several)."""
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
