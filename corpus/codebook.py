"""Codebooks: the codes a coding task uses, with definitions, examples and keyboard keys.

A codebook is a YAML or JSON file::

    id: grounding_acts            # the scheme; labels of one scheme are comparable
    name: Grounding acts (Traum, 1995)
    version: "1.0"                # every label records the version it was given under
    description: ...
    codes:
      - code: initiate            # lowercase letters, digits, underscores
        name: Initiate
        key: "1"                  # one key on the keyboard, unique in the codebook
        definition: ...
        positive: [examples]      # optional
        negative: [examples]      # optional
        requires_note: false      # optional; a label with this code needs a note

The bundled codebooks live in ``corpus/codebooks/``. Loading checks every field (pydantic models
whose validators word each problem: :class:`_Head`, :class:`_CodeList`, :class:`_CodeFields`)
and reports each problem with the file, the record (``codes[3]``) and the field.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import AliasPath, BaseModel, ConfigDict, Field, PlainValidator, ValidationInfo, model_validator

from corpus.loading import jsonsafe
from corpus.loading.reading import json_issue, read_text, validated
from corpus.loading.report import DatasetError, Report
from corpus.modelbase import StrictModel
from corpus.schema import GROUNDING_ACTS_SCHEME

BUNDLED = Path(__file__).parent / "codebooks"
_CODE_RE = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    key: str
    definition: str
    positive: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()
    requires_note: bool = False


@dataclass(frozen=True)
class Codebook:
    id: str
    name: str
    version: str
    description: str
    codes: tuple[Code, ...]
    source: str = field(default="", compare=False)

    @property
    def code_ids(self) -> list[str]:
        return [c.code for c in self.codes]

    def by_code(self, code: str) -> Code:
        for c in self.codes:
            if c.code == code:
                return c
        raise KeyError(
            f"code '{code}' is not in codebook {self.id} v{self.version} (codes: {', '.join(self.code_ids)})"
        )

    def by_key(self, key: str) -> Code | None:
        return next((c for c in self.codes if c.key == key), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "description": self.description,
            "codes": [
                {
                    "code": c.code,
                    "name": c.name,
                    "key": c.key,
                    "definition": c.definition,
                    "positive": list(c.positive),
                    "negative": list(c.negative),
                    "requires_note": c.requires_note,
                }
                for c in self.codes
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)


# -- what a codebook file holds ---------------------------------------------------------------
# Each field's validator decides what it accepts and words the problem it finds; problems are
# reported with the file, the record ("-" for the codebook, "codes[3]" for a code) and the field,
# in the order the fields are declared. Values are taken as the file gives them (a version of
# 1.0 in YAML reads "1.0").

_NULL: Any = None  # the default of a field whose validator also judges a file without it


def _given(v: Any) -> Any:
    if v is None or (isinstance(v, str) and not v.strip()):
        raise ValueError("missing")
    return v


def _given_text(v: Any) -> str:
    return str(_given(v)).strip()


def _identifier(v: Any) -> str:
    text = str(v or "")
    if text and not _CODE_RE.match(text):
        raise ValueError(f"'{text}' must be lowercase letters, digits and underscores")
    return text


def _text(v: Any) -> str:
    return str(v or "").strip()


def _non_empty_list(v: Any) -> list[Any]:
    if not isinstance(v, list) or not v:
        raise ValueError("must be a non-empty list")
    return v


class _Head(BaseModel):
    """The codebook's own fields (any other field of the file is not read)."""

    model_config = ConfigDict(extra="ignore", validate_default=True)

    # The id is checked twice: given (with the name and the version), then its form.
    id: Annotated[Any, PlainValidator(_given)] = _NULL
    name: Annotated[str, PlainValidator(_given_text)] = _NULL
    version: Annotated[str, PlainValidator(_given_text)] = _NULL
    identifier: Annotated[str, PlainValidator(_identifier)] = Field(_NULL, validation_alias=AliasPath("id"))
    description: Annotated[str, PlainValidator(_text)] = _NULL

    @model_validator(mode="before")
    @classmethod
    def _a_mapping(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError("a codebook must be a mapping with id, name, version and codes")
        return data


class _CodeList(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_default=True)

    codes: Annotated[list[Any], PlainValidator(_non_empty_list)] = _NULL


def _unique(info: ValidationInfo, fld: str, value: str) -> str:
    """``value`` when no earlier code of the list has it as its ``fld``; it is then remembered as
    this code's. The validation context holds this code's index and, by field, the first code
    that has each value."""
    first: dict[str, int] = info.context["first"][fld] if info.context else {}
    if value in first:
        j = first[value]
        raise ValueError(
            f"'{value}' repeats codes[{j}]" if fld == "code" else f"'{value}' is already the key of codes[{j}]"
        )
    first[value] = info.context["index"] if info.context else 0
    return value


def _code_id(v: Any, info: ValidationInfo) -> str:
    code = str(v or "").strip()
    if not code:
        raise ValueError("missing")
    if not _CODE_RE.match(code):
        raise ValueError(f"'{code}' must be lowercase letters, digits and underscores")
    return _unique(info, "code", code)


def _key(v: Any, info: ValidationInfo) -> str:
    key = str(v if v is not None else "").strip()
    if len(key) != 1:
        raise ValueError(f"must be one character, got '{key}'")
    return _unique(info, "key", key)


def _required_text(v: Any) -> str:
    text = _text(v)
    if not text:
        raise ValueError("missing")
    return text


def _flag(v: Any) -> bool:
    if not isinstance(v, bool):
        raise ValueError("must be true or false")
    return v


def _strings(v: Any) -> tuple[str, ...]:
    if v is None:
        return ()
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ValueError("must be a list of strings")
    return tuple(v)


class _CodeFields(StrictModel):
    """One code of the list; a field the format does not name is an error."""

    model_config = ConfigDict(validate_default=True)

    code: Annotated[str, PlainValidator(_code_id)] = _NULL
    name: Annotated[str, PlainValidator(_required_text)] = _NULL
    key: Annotated[str, PlainValidator(_key)] = _NULL
    definition: Annotated[str, PlainValidator(_required_text)] = _NULL
    requires_note: Annotated[bool, PlainValidator(_flag)] = False
    positive: Annotated[tuple[str, ...], PlainValidator(_strings)] = _NULL
    negative: Annotated[tuple[str, ...], PlainValidator(_strings)] = _NULL

    @model_validator(mode="before")
    @classmethod
    def _a_mapping(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError("each code must be a mapping")
        return data

    def as_code(self) -> Code:
        return Code(
            code=self.code,
            name=self.name,
            key=self.key,
            definition=self.definition,
            positive=self.positive,
            negative=self.negative,
            requires_note=self.requires_note,
        )


def parse(data: Any, file: str = "<codebook>") -> Codebook:
    """Check a codebook's content; raise DatasetError with every problem found."""
    report = Report()
    head = validated(_Head, data, report, file, "-", whole="-")
    if not isinstance(data, dict):
        raise DatasetError(report)
    listed = validated(_CodeList, data, report, file, "-")
    first: dict[str, dict[str, int]] = {"code": {}, "key": {}}  # a code or key -> the first code with it
    codes = [
        validated(_CodeFields, c, report, file, f"codes[{i}]", context={"index": i, "first": first}, whole="-")
        for i, c in enumerate(listed.codes if listed else [])
    ]
    if head is None or not report.ok:
        raise DatasetError(report)
    return Codebook(
        id=head.identifier,
        name=head.name,
        version=head.version,
        description=head.description,
        codes=tuple(c.as_code() for c in codes if c is not None),
        source=file,
    )


def load(path: str | Path) -> Codebook:
    """Read a codebook file (.yaml, .yml or .json)."""
    path = Path(path)
    report = Report()
    text = read_text(path, report, path.name)
    if text is None:
        raise DatasetError(report)
    return loads(text, path.name)


def loads(text: str, file: str = "<codebook>") -> Codebook:
    """A codebook from a file's text: JSON (read as all JSON from users is) when the file name
    ends in .json, else YAML."""
    report = Report()
    try:
        data = jsonsafe.loads(text) if file.endswith(".json") else yaml.safe_load(text)
    except jsonsafe.JsonError as exc:
        json_issue(report, file, exc)
        raise DatasetError(report) from None
    except yaml.YAMLError as exc:
        report.add(file, "-", "-", f"not valid YAML: {exc}")
        raise DatasetError(report) from None
    except RecursionError:
        report.add(file, "-", "-", "not valid YAML: nested too deeply")
        raise DatasetError(report) from None
    return parse(data, file)


@functools.cache
def _bundled() -> dict[str, Codebook]:
    out = {}
    for p in sorted(BUNDLED.glob("*.yaml")):
        cb = load(p)
        out[cb.id] = cb
    return out


OTHER_DOMAINS = {"tgco": "kitchen"}  # bundled codebooks for another domain's units than Map Task actions


def bundled() -> dict[str, Codebook]:
    """The codebooks shipped with the app, by id (read once; the codebooks are frozen)."""
    return dict(_bundled())


def default() -> Codebook:
    return _bundled()[GROUNDING_ACTS_SCHEME]
