"""Read a dataset directory and report every problem with file, record and field.

A dataset directory (documented in docs/data-format.md)::

    dataset.json
    maps/<map_id>.json
    sessions/<session_id>/session.json
    sessions/<session_id>/actions.jsonl
    labels/<scheme>.csv                         (optional; scheme: grounding_acts, hcrc_moves)
    predictions/<model_id>/model.json           (optional)
    predictions/<model_id>/<task>.jsonl         (optional; task: next_action, mental_model)

:func:`read_dataset` collects every problem instead of stopping at the first; the caller decides
(``corpus.dataset.load`` refuses the whole dataset if any problem is an error).
"""

from __future__ import annotations

import csv
import gc
import io
import json
import re
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

from pydantic import TypeAdapter, BaseModel, ValidationError

from corpus import schema
from corpus.model import Action, DatasetInfo, GridMap, Session, SessionMeta

MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_ISSUES = 2000  # stop collecting past this many (a wholly wrong file would report thousands)

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Issue:
    file: str
    record: str
    field: str
    message: str
    severity: str = ERROR

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass
class Report:
    issues: list[Issue] = field(default_factory=list)

    def add(self, file: str, record: Any, fld: str, message: str, severity: str = ERROR) -> None:
        if len(self.issues) < MAX_ISSUES:
            self.issues.append(Issue(str(file), str(record), fld, message, severity))

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == ERROR]

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == WARNING]

    @property
    def ok(self) -> bool:
        return not self.errors

    def table(self) -> list[dict[str, str]]:
        return [i.as_dict() for i in self.issues]

    def format(self) -> str:
        """A plain-text table for the command line."""
        if not self.issues:
            return "no problems found"
        rows = [("severity", "file", "record", "field", "message")] + [
            (i.severity, i.file, i.record, i.field, i.message) for i in self.issues
        ]
        widths = [min(max(len(r[k]) for r in rows), 48) for k in range(4)]
        lines = []
        for r in rows:
            lines.append("  ".join(r[k].ljust(widths[k]) for k in range(4)) + "  " + r[4])
        return "\n".join(lines)


class DatasetError(Exception):
    """A dataset with at least one error; ``report`` lists them all."""

    def __init__(self, report: Report, source: str = ""):
        self.report = report
        n = len(report.errors)
        first = report.errors[0] if report.errors else None
        detail = f": {first.file} {first.record} {first.field}: {first.message}" if first else ""
        super().__init__(f"{source or 'dataset'} has {n} error(s){detail}")


# ---------------------------------------------------------------------------------------------
# Low-level reading
# ---------------------------------------------------------------------------------------------


_FIELD_PREFIX = re.compile(r"^([A-Za-z_][\w.\[\]]*): (.*)$", re.S)


def _pydantic_issues(report: Report, file: str, record: Any, err: ValidationError, prefix: str = "") -> None:
    for e in err.errors(include_url=False):
        loc = [str(x) for x in e["loc"]]
        msg = e["msg"]
        for lead in ("Value error, ", "Assertion failed, "):
            if msg.startswith(lead):
                msg = msg[len(lead):]
        m = _FIELD_PREFIX.match(msg)
        if m and " " not in m.group(1):
            loc.append(m.group(1))
            msg = m.group(2)
        if e["type"] == "missing":
            msg = "required field is missing"
        elif e["type"] == "extra_forbidden":
            msg = "unknown field"
        elif e["type"] == "literal_error":
            msg = f"{msg} (got {e.get('input')!r})"
        fld = ".".join(x for x in [prefix, *_compact(loc)] if x)
        report.add(file, record, fld or "(record)", msg)


def _compact(loc: list[str]) -> list[str]:
    """Drop pydantic's union-branch names (e.g. 'list[tuple[int, int]]') from a location."""
    return [x for x in loc if not ("[" in x and "]" in x and not x.startswith("route"))]


def read_text(path: Path, report: Report, rel: str) -> str | None:
    """Read a file as UTF-8, refusing oversized files and naming the line of a bad byte."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            report.add(
                rel,
                "-",
                "(file)",
                f"file is {size / 2**20:.1f} MiB; files over {MAX_FILE_BYTES / 2**20:.0f} MiB are refused",
            )
            return None
        data = path.read_bytes()
    except OSError as exc:
        report.add(rel, "-", "(file)", f"cannot read: {exc.strerror}")
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        report.add(rel, f"line {line}", "(encoding)", f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}")
        return None
    return text.removeprefix("\ufeff")


def read_json(path: Path, report: Report, rel: str) -> Any:
    text = read_text(path, report, rel)
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        report.add(rel, f"line {exc.lineno}", "(json)", f"bad JSON: {exc.msg} at line {exc.lineno} column {exc.colno}")
        return None


def iter_jsonl(path: Path, report: Report, rel: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for each non-blank line; bad lines are reported."""
    text = read_text(path, report, rel)
    if text is None:
        return
    yield from _jsonl_records(text, report, rel)


def _jsonl_records(text: str, report: Report, rel: str) -> Iterator[tuple[int, Any]]:
    """:func:`iter_jsonl` on the text of a file already read."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            report.add(rel, f"line {lineno}", "(json)", f"bad JSON: {exc.msg} at column {exc.colno}")
            continue
        if not isinstance(obj, dict):
            report.add(rel, f"line {lineno}", "(json)", f"expected a JSON object, got {type(obj).__name__}")
            continue
        yield lineno, obj


def parse(model: type[BaseModel], obj: Any, report: Report, rel: str, record: Any, prefix: str = ""):
    if not isinstance(obj, dict):
        report.add(rel, record, prefix or "(record)", f"expected a JSON object, got {type(obj).__name__}")
        return None
    try:
        return model.model_validate(obj)
    except ValidationError as err:
        _pydantic_issues(report, rel, record, err, prefix)
        return None


# ---------------------------------------------------------------------------------------------
# The dataset
# ---------------------------------------------------------------------------------------------


@dataclass
class RawDataset:
    """What :func:`read_dataset` parsed; complete only when the report has no errors."""

    root: Path
    info: DatasetInfo | None = None
    maps: dict[str, GridMap] = field(default_factory=dict)
    sessions: dict[str, Session] = field(default_factory=dict)
    labels: list[dict[str, Any]] = field(default_factory=list)
    invalid_maps: set[str] = field(default_factory=set)
    predictions: dict[str, Any] = field(default_factory=dict)  # run id -> corpus.predictions.Run


@contextmanager
def collector_paused(freeze: bool = False) -> Iterator[None]:
    """Pause Python's cyclic collector while a dataset is read.

    Reading builds about ten objects per action, and all of them stay alive until the read ends.
    The collector would scan the growing heap again and again (half the time at 100,000 actions)
    and could free nothing, so :func:`read_dataset` always runs with it paused.

    With ``freeze`` (``corpus.dataset.load_dir``, the one caller that keeps what was read), once
    the body has succeeded everything then alive, the loaded corpus included, is moved out of the
    collector's sight (``gc.freeze``): a loaded corpus lives as long as it is shown, and is freed
    by reference counting when it is dropped. A read kept only for its report is not frozen.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if freeze:
            gc.freeze()
    finally:
        if was_enabled:
            gc.enable()


def read_dataset(root: str | Path) -> tuple[RawDataset, Report]:
    with collector_paused():
        return _read_dataset(Path(root))


def _read_dataset(root: Path) -> tuple[RawDataset, Report]:
    report = Report()
    raw = RawDataset(root=root)
    if not root.is_dir():
        report.add(str(root), "-", "(path)", "not a directory (give a dataset directory or a .zip)")
        return raw, report
    info_path = root / "dataset.json"
    if not info_path.is_file():
        report.add("dataset.json", "-", "(file)", "missing: a dataset directory needs dataset.json")
    else:
        obj = read_json(info_path, report, "dataset.json")
        if obj is not None:
            raw.info = parse(DatasetInfo, obj, report, "dataset.json", "-")

    _read_maps(root, raw, report)
    _read_sessions(root, raw, report)
    _read_grounding(root, raw, report)
    from corpus.predictions import read_dataset_runs  # imported here: it builds on this module's readers

    raw.predictions = read_dataset_runs(root, raw.sessions, raw.maps, report)
    return raw, report


def _read_maps(root: Path, raw: RawDataset, report: Report) -> None:
    map_dir = root / "maps"
    if not map_dir.is_dir():
        report.add("maps/", "-", "(folder)", "missing: a dataset directory needs a maps/ folder")
        return
    for path in sorted(map_dir.glob("*.json")):
        rel = f"maps/{path.name}"
        obj = read_json(path, report, rel)
        if obj is None:
            continue
        gm = parse(GridMap, obj, report, rel, f"map {obj.get('id', path.stem) if isinstance(obj, dict) else path.stem}")
        if gm is None:
            raw.invalid_maps.add(path.stem)
            continue
        if gm.id != path.stem:
            report.add(rel, f"map {gm.id}", "id", f"map id '{gm.id}' does not match the file name '{path.stem}.json'")
        raw.maps[gm.id] = gm


def _read_sessions(root: Path, raw: RawDataset, report: Report) -> None:
    sess_dir = root / "sessions"
    if not sess_dir.is_dir():
        report.add("sessions/", "-", "(folder)", "missing: a dataset directory needs a sessions/ folder")
        return
    dirs = sorted(p for p in sess_dir.iterdir() if p.is_dir())
    if not dirs:
        report.add("sessions/", "-", "(folder)", "no sessions: sessions/ holds no session folders")
    for d in dirs:
        session = _read_session(root, d, raw, report)
        if session is not None:
            raw.sessions[session.id] = session


_ACTION_LIST = TypeAdapter(list[Action])


def _parse_actions(path: Path, report: Report, rel: str) -> list[tuple[int, Action | None]]:
    """(line number, Action or None) for each record of an actions file.

    The whole file is validated in one pass by pydantic's JSON parser; only when that fails is the
    text parsed again line by line, so every bad record gets its own message with its line number.
    """
    text = read_text(path, report, rel)
    if text is None:
        return []
    numbered = [(i, line) for i, line in enumerate(text.splitlines(), start=1) if line.strip()]
    try:
        actions = _ACTION_LIST.validate_json("[" + ",".join(line for _, line in numbered) + "]")
        return [(i, a) for (i, _), a in zip(numbered, actions)]
    except ValueError:  # pydantic's ValidationError included
        pass
    out: list[tuple[int, Action | None]] = []
    for lineno, obj in _jsonl_records(text, report, rel):
        out.append((lineno, parse(Action, obj, report, rel, f"line {lineno}")))
    return out


def _read_session(root: Path, d: Path, raw: RawDataset, report: Report) -> Session | None:
    maps = raw.maps
    rel_meta = f"sessions/{d.name}/session.json"
    rel_actions = f"sessions/{d.name}/actions.jsonl"
    meta = None
    if not (d / "session.json").is_file():
        report.add(rel_meta, "-", "(file)", "missing: every session folder needs session.json")
    else:
        obj = read_json(d / "session.json", report, rel_meta)
        if obj is not None:
            meta = parse(SessionMeta, obj, report, rel_meta, f"session {d.name}")
    if meta is not None and meta.id != d.name:
        report.add(rel_meta, f"session {meta.id}", "id", f"session id '{meta.id}' does not match its folder '{d.name}'")

    grid_map = None
    if meta is not None:
        grid_map = maps.get(meta.map_id)
        if grid_map is None and meta.map_id in raw.invalid_maps:
            report.add(rel_meta, f"session {meta.id}", "map_id", f"map '{meta.map_id}' has errors (see maps/{meta.map_id}.json)")
        elif grid_map is None:
            known = ", ".join(sorted(maps)) or "none"
            report.add(rel_meta, f"session {meta.id}", "map_id", f"map '{meta.map_id}' not found in maps/ (known: {known})")

    actions: list[Action] = []
    if not (d / "actions.jsonl").is_file():
        report.add(rel_actions, "-", "(file)", "missing: every session folder needs actions.jsonl")
    else:
        seen: dict[int, int] = {}
        last_t = -1.0
        parsed = _parse_actions(d / "actions.jsonl", report, rel_actions)
        n_records = len(parsed)
        for lineno, a in parsed:
            if a is None:
                continue
            rec = f"line {lineno} (action {a.index})"
            if a.index in seen:
                report.add(rel_actions, rec, "index", f"duplicate action index {a.index} (also on line {seen[a.index]})")
                continue
            seen[a.index] = lineno
            if a.timestamp < last_t:
                report.add(
                    rel_actions, rec, "timestamp",
                    f"timestamp goes backwards: {a.timestamp:g} s after {last_t:g} s on the previous action",
                )
            last_t = max(last_t, a.timestamp)
            if grid_map is not None and a.cells:
                rows, cols = grid_map.grid_size
                for k, (r, c) in enumerate(a.cells):
                    if not (0 <= r < rows and 0 <= c < cols):
                        report.add(rel_actions, rec, f"content[{k}]", f"cell [{r}, {c}] is outside the {rows}x{cols} grid of map '{grid_map.id}'")
                        break
            if a.type != "message" and a.role == "guide":
                report.add(rel_actions, rec, "role", f"the guide performed a {a.type} action; only the follower draws", WARNING)
            actions.append(a)
        if actions:
            indices = [a.index for a in actions]
            if indices != list(range(len(indices))) and len(set(indices)) == len(indices):
                first_bad = next(i for i, x in enumerate(indices) if x != i)
                report.add(
                    rel_actions, f"action {indices[first_bad]}", "index",
                    f"action indices must run 0, 1, 2, ... in file order; expected {first_bad} here",
                )
        elif n_records == 0 and not any(i.file == rel_actions for i in report.issues):
            report.add(rel_actions, "-", "(file)", "no actions: the file holds no action records")

    if meta is None:
        return None
    if actions:
        last = actions[-1].timestamp
        if last > meta.duration_s + 1:
            report.add(rel_meta, f"session {meta.id}", "duration_s",
                       f"duration {meta.duration_s:g} s is shorter than the last action's timestamp {last:g} s", WARNING)
    for k, cp in enumerate(meta.checkpoints):
        if actions and cp.action_index >= len(actions):
            report.add(rel_meta, f"session {meta.id}", f"checkpoints[{k}].action_index",
                       f"checkpoint at action {cp.action_index}, but the session has {len(actions)} actions")
    return Session.model_construct(**{k: getattr(meta, k) for k in SessionMeta.model_fields}, actions=actions)


def _read_grounding(root: Path, raw: RawDataset, report: Report) -> None:
    """Coded labels: labels/<scheme>.csv with session_id, action_index, coder, code[, partition, coder_kind]."""
    label_dir = root / "labels"
    if not label_dir.is_dir():
        return
    for path in sorted(label_dir.glob("*.csv")):
        scheme_id = path.stem
        rel = f"labels/{path.name}"
        codes = schema.CODING_SCHEMES.get(scheme_id)
        if codes is None:
            report.add(rel, "-", "(file)", f"unknown coding scheme '{scheme_id}' (expected one of {', '.join(schema.CODING_SCHEMES)})")
            continue
        text = read_text(path, report, rel)
        if text is None:
            continue
        reader = csv.DictReader(io.StringIO(text))
        need = {"session_id", "action_index", "coder", "code"}
        missing = need - set(reader.fieldnames or [])
        if missing:
            report.add(rel, "line 1", "(header)", f"missing column(s): {', '.join(sorted(missing))}")
            continue
        seen: dict[tuple[str, int, str], int] = {}
        kinds: dict[str, tuple[str, int]] = {}
        for lineno, row in enumerate(reader, start=2):
            rec = f"line {lineno}"
            sid = row["session_id"]
            try:
                idx = int(row["action_index"])
            except (TypeError, ValueError):
                report.add(rel, rec, "action_index", f"not an integer: {row['action_index']!r}")
                continue
            s = raw.sessions.get(sid)
            if s is None:
                report.add(rel, rec, "session_id", f"unknown session '{sid}'")
                continue
            if not 0 <= idx < len(s.actions):
                report.add(rel, rec, "action_index", f"session '{sid}' has no action {idx}")
                continue
            code = (row["code"] or "").strip().lower()
            if code not in codes:
                report.add(rel, rec, "code", f"unknown {scheme_id} code '{row['code']}' (expected one of {', '.join(codes)})")
                continue
            partition = (row.get("partition") or "").strip()
            if partition and partition not in schema.GROUNDING_PARTITIONS:
                report.add(rel, rec, "partition", f"unknown partition '{partition}' (expected one of {', '.join(schema.GROUNDING_PARTITIONS)} or empty)")
                continue
            coder = (row["coder"] or "").strip()
            if not coder:
                report.add(rel, rec, "coder", "empty coder name")
                continue
            kind = (row.get("coder_kind") or "").strip().lower() or schema.HUMAN
            if kind not in schema.CODER_KINDS:
                report.add(rel, rec, "coder_kind", f"unknown coder kind '{row['coder_kind']}' (expected one of {', '.join(schema.CODER_KINDS)}, or empty for {schema.HUMAN})")
                continue
            first_kind = kinds.setdefault(coder, (kind, lineno))
            if first_kind[0] != kind:
                report.add(rel, rec, "coder_kind", f"coder '{coder}' is '{kind}' here but '{first_kind[0]}' on line {first_kind[1]}")
                continue
            key = (sid, idx, coder)
            if key in seen:
                report.add(rel, rec, "coder", f"coder '{coder}' labels action {sid}:{idx} twice (also line {seen[key]})")
                continue
            seen[key] = lineno
            raw.labels.append(
                {"scheme": scheme_id, "session_id": sid, "action_index": idx, "coder": coder, "coder_kind": kind,
                 "code": code, "partition": partition}
            )
