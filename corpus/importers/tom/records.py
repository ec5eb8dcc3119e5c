"""The records of the theory-of-mind releases as typed models: what :mod:`.dyntom`, :mod:`.synchtom_items`
and :mod:`.synchtom` accept, and how each refusal is worded.

Each record is validated on its own by :func:`corpus.benchmark.records.checked`, which names the file,
the record (a question id, ``item '<id>'``, ``turn <n>``, ``instance '<id>'``, or ``record <n>`` when
the record has no usable id) and the field of every problem. The types are strict (``"1"`` is no
integer, ``true`` no criterion score), and a field the release does not name is kept, not refused.
What needs more than one record (an id used twice, a trajectory file inside the source folder, a score
file's judge named in a summary) is checked by the importers where the records meet.

- DynToM (GAIR-NLP/DynToM): a trial's ``question_new.json`` (:class:`QuestionFile` of
  :class:`Question`), its answer files (:class:`AnswerFile`, each answer an :class:`Answer`) and its
  ``story.json`` (:class:`Story`, read leniently: a story is context, and a problem in it is a warning).
- SynchToM (THUNLP-MT/SynchToM): a benchmark file (:class:`ItemsFile` of :class:`ReleasedItem`, with
  its :class:`Rubrics`), a trajectory file (:class:`TrajectoryFile` of :class:`Turn`), a score file of
  ``evaluate.py`` (:class:`ScoreFile` of :class:`ScoredInstance`, each dimension a
  :class:`DimensionScore`) and the entries of its ``evaluation_summary.json`` (:class:`SummaryEntry`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import (
    BeforeValidator,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from corpus.benchmark.records import ArrayFile, ObjectFile, Record, Released, checked, problem
from corpus.loading.report import Report, describe

DIMENSIONS = ("latent_belief_explanation", "user_profile_modeling", "correct_resolution")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _text(value: Any) -> Any:
    if not isinstance(value, str):
        raise problem(f"expected text, got {describe(value)}")
    return value


def _id(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise problem(f"expected a non-empty string, got {describe(value)}")
    return value


Text = Annotated[str, BeforeValidator(_text)]  # SynchToM's text fields: "expected text, got ..."
Id = Annotated[str, BeforeValidator(_id)]
Shown = Annotated[str, BeforeValidator(str)]  # a story's text, shown as it reads (any value as text)


# ---------------------------------------------------------------------------------------------
# DynToM
# ---------------------------------------------------------------------------------------------

_OPTION = re.compile(r"^\s*(?P<letter>[A-Za-z])\s*[.)]\s*(?P<text>.*)$", re.S)


def _options(value: Any) -> Any:
    if not isinstance(value, list) or not value:
        raise problem(f"expected a list of options, got {describe(value)}")
    return value


def _option(value: Any) -> Any:
    m = _OPTION.match(value) if isinstance(value, str) else None
    if m is None:
        raise problem(f"expected 'a. text', got {describe(value)}")
    return (m["letter"], m["text"].strip())


def _letter(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise problem(f"expected an option letter, got {describe(value)}")
    return value


def _reasons(value: Any) -> dict[str, str]:
    """Option text -> what it tests (``short``), from the entries of ``option reasons`` that give
    both as text (the first for a text; others are not used)."""
    by_text: dict[str, str] = {}
    for r in value if isinstance(value, list) else []:
        if isinstance(r, dict) and isinstance(r.get("option"), str) and isinstance(r.get("short"), str):
            by_text.setdefault(r["option"].strip(), r["short"])
    return by_text


Letter = Annotated[str, BeforeValidator(_letter)]
Option = Annotated[tuple[str, str], BeforeValidator(_option)]  # "a. text" as (letter, text)


class Question(Released):
    """One question of a trial's ``question_new.json``: its text, its options (``"a. text"``, at least
    one), ``true answer`` (one of the options' letters) and ``option reasons`` (what mistake each
    option tests; entries without text are not used)."""

    what = "a question object"
    question: str = Field(default=None, validate_default=True)
    options: Annotated[list[Option], BeforeValidator(_options)]
    gold: Letter = Field(default=None, alias="true answer", validate_default=True)
    reasons: Annotated[dict[str, str], BeforeValidator(_reasons)] = Field(default={}, alias="option reasons")

    @field_validator("gold")
    @classmethod
    def _one_of_the_options(cls, gold: str, info: ValidationInfo) -> str:
        letters = [letter for letter, _ in info.data.get("options", [])]
        if letters and gold not in letters:
            raise problem(f"'{gold}' is not one of the options ({', '.join(letters)})")
        return gold

    def kinds(self) -> list[str]:
        """What each option tests (its ``short`` in ``option reasons``; the true answer's is
        ``true_answer``), "" where the file does not say."""
        return ["true_answer" if letter == self.gold else self.reasons.get(text, "") for letter, text in self.options]


_QUESTIONS: TypeAdapter[dict[str, Question]] = TypeAdapter(dict[str, Question])


class QuestionFile(ObjectFile):
    """A trial's ``question_new.json``: question id -> question, at least one (wrapped in
    ``{"questions": ...}`` too, as the authors' reader allows)."""

    what = "an object of questions by id"

    def questions(self, report: Report, rel: str) -> dict[str, Question]:
        """Question id -> question, in file order, validated in one call; where any is refused, each
        is validated on its own (record: its question id) to name its problems, and left out."""
        try:
            return _QUESTIONS.validate_python(self.root)
        except ValidationError:
            found = {qid: checked(Question, q, report, rel, qid) for qid, q in self.root.items()}
            return {qid: q for qid, q in found.items() if q is not None}

    @model_validator(mode="before")
    @classmethod
    def _unwrapped(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("questions"), dict):
            data = data["questions"]
        if not data:
            raise problem(f"expected {cls.what}, got {describe(data)}")
        return data


def _answer(value: Any) -> Any:
    if not isinstance(value, str):
        raise problem(f"expected an option letter, got {describe(value)}")
    return value


AnswerText = Annotated[str, BeforeValidator(_answer)]


class Answer(Record):
    """One answer of an answer file, to a question of the trial: an option letter (any text: one that
    is no option's letter is scored wrong)."""

    answer: AnswerText


_ANSWERS: TypeAdapter[dict[str, str]] = TypeAdapter(dict[str, AnswerText])


class AnswerFile(ObjectFile):
    """``<setting>_answer_<model>.json``: question id -> answer, beside the file's own summary."""

    what = "an object of answers by question id"

    def answers(self, questions: set[str], report: Report, rel: str) -> dict[str, str]:
        """Question id -> answer of the file's answers to ``questions``, in file order, validated in one
        call; where any is refused, each is validated as an :class:`Answer` (record: its question id)
        to name it, and a refused answer is left out."""
        given = {q: a for q, a in self.root.items() if q in questions}
        try:
            return _ANSWERS.validate_python(given)
        except ValidationError:
            found = {q: checked(Answer, {"answer": a}, report, rel, q) for q, a in given.items()}
            return {q: a.answer for q, a in found.items() if a is not None}


def _dialogue(value: Any) -> Any:
    if not value:
        return []
    if not isinstance(value, list):
        raise problem(f"expected a list of turns, got {describe(value)}; the scenario is shown without its dialogue")
    return [[str(who), str(said)] for turn in value if isinstance(turn, dict) for who, said in turn.items()]


class Scenario(Released):
    """One scenario of a story: its background and its dialogue, each turn ``{speaker: words}`` as a
    line ``[speaker, words]`` (a turn that is no object is left out)."""

    background: Shown = ""
    dialogue: Annotated[list[list[str]], BeforeValidator(_dialogue)] = []


class Story(Released):
    """A trial's ``story.json``: the main character, the characters and the scenarios by name (a
    ``story`` that is no object has none; a scenario that is no object is left out)."""

    what = "a JSON object"
    main_character: Shown = Field(default="", alias="main character")
    characters: Shown = Field(default="", alias="characters information")
    story: Annotated[dict[str, Any], BeforeValidator(lambda v: v if isinstance(v, dict) else {})] = {}


# ---------------------------------------------------------------------------------------------
# SynchToM's items and trajectories
# ---------------------------------------------------------------------------------------------


def _criterion(value: Any) -> Any:
    if not isinstance(value, dict):
        raise ValueError(f"criterion: expected the criterion's text, got {describe(value)}")
    return value


def _criterion_text(value: Any) -> Any:
    if not isinstance(value, str) or not value.strip():
        raise problem(f"expected the criterion's text, got {describe(value)}")
    return value


def _criteria(value: Any) -> Any:
    if value is None:
        raise problem(
            "missing: an item has criteria for each of the three dimensions (evaluate.py would tell the judge a "
            "maximum of 5 for a dimension the rubric lacks)"
        )
    if not isinstance(value, list) or not value:
        raise problem(f"expected a non-empty list of criteria, got {describe(value)}")
    return value


def _not_a_dimension(value: Any) -> Any:
    raise problem(f"not one of SynchToM's three dimensions ({', '.join(DIMENSIONS)})")


class Criterion(Released):
    """A criterion of a rubric: ``{"criterion": text}``."""

    criterion: Annotated[str, BeforeValidator(_criterion_text)] = Field(default=None, validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, data: Any) -> Any:
        return _criterion(data)


Criteria = Annotated[list[Criterion], BeforeValidator(_criteria)]


class Rubrics(Released):
    """An item's rubric: a non-empty list of criteria for each of the three dimensions, and no other."""

    latent_belief_explanation: Criteria = Field(default=None, validate_default=True)
    user_profile_modeling: Criteria = Field(default=None, validate_default=True)
    correct_resolution: Criteria = Field(default=None, validate_default=True)
    __pydantic_extra__: dict[str, Annotated[Any, BeforeValidator(_not_a_dimension)]]


def _trajectory_path(value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        raise problem(f"expected the path of the item's trajectory file, got {describe(value)}")
    return _text(value)


class ReleasedItem(Released):
    """One item of a SynchToM benchmark file, its fields in the order the release writes them: every
    one present, as text (``trajectory`` the path of the item's trajectory file), and ``rubrics``."""

    what = "a JSON object"
    id: Id
    domain: Text
    true_latent_state: Text
    user_latent_belief: Text
    misconception_type: Text
    root_cause_of_misconception: Text
    observation: Text
    explicit_instruction: Text
    trajectory: Annotated[str, BeforeValidator(_trajectory_path)]
    user_profile: Text
    rubrics: Rubrics

    @classmethod
    def unknown(cls, raw: Any) -> list[str]:
        """The fields of a raw item that the release does not write (kept with the item, not used)."""
        return [k for k in raw if k not in cls.model_fields] if isinstance(raw, dict) else []


class ItemsFile(ArrayFile):
    what = "a JSON array of items"


def _flag(value: Any) -> Any:
    if not isinstance(value, bool):
        raise problem(f"expected a boolean, got {describe(value)}")
    return value


class Turn(Released):
    """One turn of a trajectory: its number, the user's action and (but on a last turn) what the user
    observed; the simulation's flags where given."""

    turn: int
    action: Text
    observation: Text = ""
    red_herring: Annotated[bool, BeforeValidator(_flag)] = False
    interpretation: Text = ""
    observation_hidden_context: Text = ""


def _turns(value: Any) -> Any:
    if not isinstance(value, list):
        raise problem(f"expected a list of turns, got {describe(value)}")
    return value


class TrajectoryFile(Released):
    """A trajectory file: an object whose ``trajectory`` lists the turns (each then a :class:`Turn`)."""

    what = "an object with a 'trajectory' list"
    trajectory: Annotated[list[Any], BeforeValidator(_turns)]


# ---------------------------------------------------------------------------------------------
# SynchToM's judge scores (evaluate.py)
# ---------------------------------------------------------------------------------------------


def _zero_or_one(value: Any) -> Any:
    if not (_is_int(value) and value in (0, 1)):
        raise problem(f"expected 0 or 1, got {describe(value)}")
    return value


def _given(value: Any) -> Any:
    return value if _is_int(value) else None


class DimensionScore(Released):
    """The judge's score of one dimension: ``criterion_scores`` (0 or 1 each) and ``total_score``, their
    sum (either may be absent, not both), 0 to the rubric's criteria (``max_score``, else the number of
    criteria scored). A ``max_score`` that is no integer is not used."""

    criterion_scores: dict[str, Annotated[int, BeforeValidator(_zero_or_one)]] | None = None
    total_score: int | None = None
    max_score: Annotated[int | None, BeforeValidator(_given)] = None

    @model_validator(mode="after")
    def _the_sum_in_range(self) -> DimensionScore:
        met, total = self.met, self.total_score
        if total is None and met is None:
            raise ValueError("total_score: required field is missing (and there are no criterion_scores)")
        if met is not None and total is not None and total != met:
            raise ValueError(f"total_score: is {total} but {met} criteria are met (evaluate.py writes their sum)")
        if self.score < 0 or (self.top is not None and self.score > self.top):
            raise ValueError(f"total_score: score {self.score} is outside 0-{self.top} (the rubric's criteria)")
        return self

    @property
    def met(self) -> int | None:
        return None if self.criterion_scores is None else sum(self.criterion_scores.values())

    @property
    def score(self) -> int:
        """The criteria met: the criterion scores' sum, else ``total_score``."""
        score = self.met if self.met is not None else self.total_score
        assert score is not None
        return score

    @property
    def top(self) -> int | None:
        """The highest score: ``max_score``, else the number of criteria scored (None if neither)."""
        if self.max_score is not None:
            return self.max_score
        return None if self.criterion_scores is None else len(self.criterion_scores)

    def warnings(self) -> list[tuple[str, str]]:
        """(field, message) of what evaluate.py lets through: a judge scoring a different number of
        criteria than the rubric has."""
        crit, top = self.criterion_scores, self.max_score
        if crit is not None and top is not None and len(crit) != top:
            return [("criterion_scores", f"the judge scored {len(crit)} criteria; the rubric has {top} (max_score)")]
        return []


class Evaluation(Released):
    """The judge's reply to one instance: a score per dimension (one absent is a warning, not an error)."""

    latent_belief_explanation: DimensionScore | None = None
    user_profile_modeling: DimensionScore | None = None
    correct_resolution: DimensionScore | None = None

    @field_validator(*DIMENSIONS, mode="before")
    @classmethod
    def _not_null(cls, value: Any) -> Any:
        if value is None:
            raise problem("expected an object, got null")
        return value


def _rubric_sizes(value: Any) -> dict[str, int]:
    return {str(d): len(c) for d, c in value.items() if isinstance(c, list)} if isinstance(value, dict) else {}


class ScoredInstance(Released):
    """One record of a score file: the instance's id, the judge's ``evaluation`` and the ``rubrics`` it
    was judged on (only their sizes are read: the number of criteria per dimension)."""

    what = "a JSON object"
    instance_id: Id
    evaluation: Evaluation
    rubrics: Annotated[dict[str, int], BeforeValidator(_rubric_sizes)] = {}


class ScoreFile(ArrayFile):
    what = "a JSON array of scored instances"


class SummaryFile(ArrayFile):
    what = "a JSON array of run summaries"


class SummaryEntry(Released):
    """An entry of ``evaluation_summary.json``: the score file a run wrote and its judge."""

    output_file: str
    judge_model: Annotated[str, Field(min_length=1)]
