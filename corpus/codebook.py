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

The bundled codebooks live in ``corpus/codebooks/``. Loading checks every field and reports each
problem with the file, the record (``codes[3]``) and the field.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from corpus.validate import DatasetError, Report, read_text

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


def _strings(value: Any, report: Report, file: str, record: str, fld: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        report.add(file, record, fld, "must be a list of strings")
        return ()
    return tuple(value)


def _unique(
    report: Report,
    file: str,
    record: str,
    fld: str,
    value: str,
    i: int,
    seen: dict[str, int],
    invalid: str | None,
    repeated: Callable[[int], str],
) -> None:
    """Report ``invalid`` (when given), or ``repeated(j)`` when code ``j`` already has ``value``;
    else remember that code ``i`` has it."""
    if invalid:
        report.add(file, record, fld, invalid)
    elif value in seen:
        report.add(file, record, fld, repeated(seen[value]))
    else:
        seen[value] = i


def parse(data: Any, file: str = "<codebook>") -> Codebook:
    """Check a codebook's content; raise DatasetError with every problem found."""
    report = Report()
    if not isinstance(data, dict):
        report.add(file, "-", "-", "a codebook must be a mapping with id, name, version and codes")
        raise DatasetError(report)
    for key in ("id", "name", "version"):
        v = data.get(key)
        if v is None or (isinstance(v, str) and not v.strip()):
            report.add(file, "-", key, "missing")
    cid = str(data.get("id") or "")
    if cid and not _CODE_RE.match(cid):
        report.add(file, "-", "id", f"'{cid}' must be lowercase letters, digits and underscores")
    codes_raw = data.get("codes")
    codes: list[Code] = []
    if not isinstance(codes_raw, list) or not codes_raw:
        report.add(file, "-", "codes", "must be a non-empty list")
        codes_raw = []
    seen_codes: dict[str, int] = {}
    seen_keys: dict[str, int] = {}
    for i, c in enumerate(codes_raw):
        rec = f"codes[{i}]"
        if not isinstance(c, dict):
            report.add(file, rec, "-", "each code must be a mapping")
            continue
        unknown = set(c) - {"code", "name", "key", "definition", "positive", "negative", "requires_note"}
        for u in sorted(unknown):
            report.add(file, rec, u, "unknown field")
        code = str(c.get("code") or "").strip()
        bad_code = (
            "missing"
            if not code
            else (None if _CODE_RE.match(code) else f"'{code}' must be lowercase letters, digits and underscores")
        )
        _unique(
            report,
            file,
            rec,
            "code",
            code,
            i,
            seen_codes,
            bad_code,
            lambda j, code=code: f"'{code}' repeats codes[{j}]",
        )
        name = str(c.get("name") or "").strip()
        if not name:
            report.add(file, rec, "name", "missing")
        key = str(c.get("key") if c.get("key") is not None else "").strip()
        bad_key = None if len(key) == 1 else f"must be one character, got '{key}'"
        _unique(
            report,
            file,
            rec,
            "key",
            key,
            i,
            seen_keys,
            bad_key,
            lambda j, key=key: f"'{key}' is already the key of codes[{j}]",
        )
        definition = str(c.get("definition") or "").strip()
        if not definition:
            report.add(file, rec, "definition", "missing")
        rn = c.get("requires_note", False)
        if not isinstance(rn, bool):
            report.add(file, rec, "requires_note", "must be true or false")
            rn = False
        codes.append(
            Code(
                code=code,
                name=name,
                key=key,
                definition=definition,
                positive=_strings(c.get("positive"), report, file, rec, "positive"),
                negative=_strings(c.get("negative"), report, file, rec, "negative"),
                requires_note=rn,
            )
        )
    if not report.ok:
        raise DatasetError(report)
    return Codebook(
        id=cid,
        name=str(data["name"]).strip(),
        version=str(data["version"]).strip(),
        description=str(data.get("description") or "").strip(),
        codes=tuple(codes),
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
    report = Report()
    try:
        data = json.loads(text) if file.endswith(".json") else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as exc:
        report.add(file, "-", "-", f"not valid {'JSON' if file.endswith('.json') else 'YAML'}: {exc}")
        raise DatasetError(report) from None
    return parse(data, file)


@functools.cache
def _bundled() -> dict[str, Codebook]:
    out = {}
    for p in sorted(BUNDLED.glob("*.yaml")):
        cb = load(p)
        out[cb.id] = cb
    return out


def bundled() -> dict[str, Codebook]:
    """The codebooks shipped with the app, by id (read once; the codebooks are frozen)."""
    return dict(_bundled())


def default() -> Codebook:
    return _bundled()["grounding_acts"]
