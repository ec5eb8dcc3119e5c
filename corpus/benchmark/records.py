"""The records of a benchmark dataset (:mod:`corpus.benchmark.dataset`) as typed models, and how their problems
are reported.

A benchmark dataset's files are Groundwork's own, so their records are validated strictly (nothing
coerced, no unknown field): ``dataset.json``'s ``benchmark`` object (:class:`BenchmarkMeta`), each
entry of ``runs.json`` (:class:`RunEntry`) and of ``judged_runs.json`` (:class:`JudgedRunEntry`), and
``contexts.json`` (:class:`ContextsFile`). Its three tables, ``items.csv`` (:class:`ItemsTable`),
``answers.csv`` (:class:`AnswersTable`) and ``judged.csv`` (:class:`JudgedTable`), are validated a
column at a time (:func:`read_table`): each field is a column, the list of its cells in row order, so
that pydantic checks every row of a file in one call (one model per row is some forty times slower on
DynToM's 78,100 items and 468,600 answers), and a problem at element k of a column is reported on
``row k + 2`` (the header is row 1). What needs the rows together (an item id used twice, an answer
to an item the benchmark does not have) is checked by the table's model too, with the rows it names.

The releases a benchmark is imported from have their records modelled beside their importers
(:mod:`corpus.importers.tom.records`, :mod:`corpus.importers.maptask_vlm_records`), on the same parts:
:func:`problem` words a refusal in full; :class:`Record` (Groundwork's own: no unknown field) and
:class:`Released` (a release's: fields it does not name kept), :class:`ArrayFile` and
:class:`ObjectFile` refuse what is not an object or an array as the format calls it; :func:`given_id`
is the id a record is named by; and :func:`checked` reports every problem of a record with its file,
record and field, the place in a list written as an index (``rubrics.correct_resolution[2].criterion``).
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar

import numpy as np
import pandas as pd
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Json,
    PrivateAttr,
    RootModel,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from corpus.loading.reading import validated
from corpus.loading.report import ERROR, Report, describe

M = TypeVar("M", bound=BaseModel)


def problem(message: str, *, row: int | None = None, column: str = "") -> PydanticCustomError:
    """A validator's refusal, worded in full (no field is read from the start of ``message``). A
    table's model names the ``row`` (0 for the first after the header) and ``column`` it found it in."""
    context: dict[str, Any] = {"message": message}
    if row is not None:
        context |= {"row": row, "column": column}
    return PydanticCustomError("record", "{message}", context)


_INDEX = re.compile(r"\.(\d+)(?=\.|$)")


def checked(
    model: type[M],
    obj: Any,
    report: Report,
    file: str,
    record: str,
    *,
    whole: str = "(record)",
    severity: str = ERROR,
    context: dict[str, Any] | None = None,
) -> M | None:
    """``model`` validated from a value read from a file (:func:`corpus.loading.reading.validated`), or None with
    every problem reported at ``severity`` with its file, record and field; a place in a list is written
    as an index (``options[0]``, ``rubrics.correct_resolution[2].criterion``). ``whole`` is the field
    named by a problem of the record as a whole."""
    found = Report()
    out = validated(model, obj, found, file, record, context=context, whole=whole, severity=severity)
    for i in found.issues:
        report.add(i.file, i.record, _INDEX.sub(r"[\1]", i.field), i.message, i.severity)
    report.dropped_errors += found.dropped_errors
    return out


class Record(BaseModel):
    """A record read from a file: every value of its type as the file holds it (``"3"`` is no
    integer, ``true`` no number), no unknown field, no NaN or infinity; a value that is not an object
    is refused as ``what`` names the record."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, populate_by_name=True)
    what: ClassVar[str] = "an object"

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise problem(f"expected {cls.what}, got {describe(data)}")
        return data


class Released(Record):
    """A record as its authors release it: strict types, and fields the format does not name kept."""

    model_config = ConfigDict(extra="allow")


def given_id(record: Any, key: str) -> str | None:
    """The id a record gives under ``key``, when it is a non-empty string (the record is then named
    by it in messages; by its place otherwise)."""
    value = record.get(key) if isinstance(record, dict) else None
    return value if isinstance(value, str) and value.strip() else None


class ArrayFile(RootModel[list[Any]]):
    """A file that holds a JSON array of records (each then validated on its own, named by its place)."""

    what: ClassVar[str] = "a JSON array"

    @model_validator(mode="before")
    @classmethod
    def _an_array(cls, data: Any) -> Any:
        if not isinstance(data, list):
            raise problem(f"expected {cls.what}, got {describe(data)}")
        return data


class ObjectFile(RootModel[dict[str, Any]]):
    """A file that holds a JSON object of records by key (each then validated on its own)."""

    what: ClassVar[str] = "a JSON object"

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise problem(f"expected {cls.what}, got {describe(data)}")
        return data


# ---------------------------------------------------------------------------------------------
# The JSON files
# ---------------------------------------------------------------------------------------------

Count = Annotated[int, Field(ge=0)]


class BenchmarkMeta(Record):
    """``dataset.json``'s ``benchmark``: the format the benchmark was read from, its slice columns in
    order (each a column of items.csv) and the column its intervals cluster on."""

    format: str = ""
    slices: list[str] = []
    cluster: str = "group"


class BenchmarkInfo(Record):
    """``dataset.json`` of a benchmark: its ``benchmark`` object (the rest is what every dataset.json
    holds, :class:`corpus.model.DatasetInfo`, validated on its own)."""

    model_config = ConfigDict(extra="allow")
    what = "a JSON object"
    benchmark: BenchmarkMeta = BenchmarkMeta()


class RunEntry(Record):
    """One run of ``runs.json`` (:meth:`corpus.benchmark.dataset.AnswerRun.as_dict`); ``model`` is the run's id
    where it is not given."""

    run: str
    model: str | None = None
    setting: str = ""
    source: str = ""
    groups: Count = 0
    answered: Count = 0
    no_answer: Count = 0
    unmatched: Count = 0


class JudgedRunEntry(Record):
    """One judged run of ``judged_runs.json`` (:meth:`corpus.benchmark.dataset.JudgedRun.as_dict`)."""

    run: str
    model: str | None = None
    setting: str = ""
    judge: str = ""
    source: str = ""
    scored: Count = 0
    missing: list[str] = []


class RunsFile(ArrayFile):
    what = "a JSON array of runs"


class JudgedRunsFile(ArrayFile):
    what = "a JSON array of judged runs"


class ContextsFile(RootModel[dict[str, dict[str, Any]]]):
    """``contexts.json``: group -> its context, an object (a story's scenarios, a released item)."""

    @model_validator(mode="before")
    @classmethod
    def _an_object(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise problem(f"expected an object of contexts by group, got {describe(data)}")
        return data


# ---------------------------------------------------------------------------------------------
# The tables
# ---------------------------------------------------------------------------------------------


class Table(BaseModel):
    """A CSV table, a column per field: the list of its cells in row order, text as the file holds
    it. Columns the model does not name (a benchmark's slices) are kept, as text."""

    model_config = ConfigDict(strict=True, extra="allow")
    __pydantic_extra__: dict[str, list[str]]


def _json_strings(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    try:
        return handler(value)
    except ValidationError:
        raise problem(f"expected a JSON array of strings, got {describe(value)}") from None


def _whole_number(value: Any) -> Any:
    """A count written in a cell ("3", "3.0"), as an integer."""
    try:
        number = float(value) if isinstance(value, str) else math.nan
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number != round(number) or number < 0:
        raise problem(f"expected a whole number, got {describe(value)}")
    return int(number)


JsonStrings = Annotated[Json[list[str]], WrapValidator(_json_strings)]  # a JSON array of strings in a cell
WholeNumber = Annotated[int, BeforeValidator(_whole_number)]  # a count of 0 or more in a cell


def _unknown_item(item_ids: list[str], info: ValidationInfo) -> np.ndarray | None:
    """The position of each id among the benchmark's items (``info.context["items"]``, a
    ``pd.Index``; None when the items could not be read, and nothing is checked), refusing the first
    id that is none of them."""
    known = (info.context or {}).get("items")
    if known is None:
        return None
    at = known.get_indexer(np.asarray(item_ids, dtype=object)) if item_ids else np.zeros(0, dtype=np.intp)
    if (at < 0).any():
        k = int(np.flatnonzero(at < 0)[0])
        raise problem(f"no such item in items.csv: {describe(item_ids[k])}", row=k, column="item_id")
    return at


class ItemsTable(Table):
    """``items.csv``: one row per item (``options`` and ``option_kinds`` JSON arrays of strings), each
    id once."""

    item_id: list[str]
    group: list[str]
    question_id: list[str]
    question: list[str]
    options: list[JsonStrings]
    option_kinds: list[JsonStrings]
    gold: list[str]

    @model_validator(mode="after")
    def _ids_once(self) -> ItemsTable:
        twice = pd.Index(self.item_id).duplicated()
        if twice.any():
            raise problem("the same item id twice", row=int(twice.argmax()), column="item_id")
        return self


class AnswersTable(Table):
    """``answers.csv``: ``run, item_id, answer``, each an answer to an item of items.csv (validated with
    ``context={"items": <the item ids, a pd.Index>}``); ``at`` is each row's item's position."""

    run: list[str]
    item_id: list[str]
    answer: list[str]
    _at: np.ndarray | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _known_items(self, info: ValidationInfo) -> AnswersTable:
        self._at = _unknown_item(self.item_id, info)
        return self

    @property
    def at(self) -> np.ndarray:
        """Each row's item's position in items.csv (validated with the items in the context)."""
        if self._at is None:
            raise ValueError("the answers were validated without the items (context={'items': ...})")
        return self._at


class JudgedTable(Table):
    """``judged.csv``: ``run, item_id, dimension, score, criteria`` (whole numbers: the criteria met and
    the rubric's criteria on that dimension), each of an item of items.csv (validated with
    ``context={"items": ...}`` as :class:`AnswersTable`)."""

    run: list[str]
    item_id: list[str]
    dimension: list[str]
    score: list[WholeNumber]
    criteria: list[WholeNumber]

    @model_validator(mode="after")
    def _known_items(self, info: ValidationInfo) -> JudgedTable:
        _unknown_item(self.item_id, info)
        return self


def read_table(
    model: type[M],
    path: Path,
    rel: str,
    report: Report,
    required: tuple[str, ...] = (),
    context: dict[str, Any] | None = None,
) -> tuple[M, pd.DataFrame] | None:
    """A CSV table of a benchmark dataset validated by ``model`` (a :class:`Table`) with the columns
    ``required`` beside its own, and the file as read (every cell text); None with every problem in
    ``report``, each naming the file, the row (``header`` for a missing column) and the column."""
    if not path.is_file():
        report.add(rel, "-", "(file)", "missing: a benchmark dataset needs it")
        return None
    try:
        frame = pd.read_csv(path, dtype=object, keep_default_na=False, na_filter=False)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        report.add(rel, "-", "(file)", f"cannot be read as CSV: {exc}")
        return None
    header = f"missing column (the header has {', '.join(map(str, frame.columns))})"
    table = None
    try:
        table = model.model_validate({str(c): frame[c].tolist() for c in frame.columns}, context=context)
    except ValidationError as err:
        for e in err.errors(include_url=False):
            loc, ctx = e["loc"], e.get("ctx") or {}
            if e["type"] == "missing" and len(loc) == 1:
                report.add(rel, "header", str(loc[0]), header)
            elif "row" in ctx:
                report.add(rel, f"row {ctx['row'] + 2}", ctx["column"], e["msg"])
            elif len(loc) >= 2 and isinstance(loc[1], int):
                report.add(rel, f"row {loc[1] + 2}", str(loc[0]), e["msg"])
            else:
                report.add(rel, "-", ".".join(map(str, loc)) or "(file)", e["msg"])
    lacking = [c for c in required if c not in frame.columns]
    for c in lacking:
        report.add(rel, "header", c, header)
    return None if table is None or lacking else (table, frame)
