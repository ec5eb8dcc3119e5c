"""The platform's export of one session (its script ``backend/scripts/export_session_data.py``):
the two JSON files it writes, read as a platform session.

- ``<name>_<id8>_user_actions.json``: ``{session_name, session_id, count, human_actions}``, the
  participants' actions as the platform stored them: the same rows as the JSON-lines logs.
- ``<name>_<id8>_actions_and_annotations.json``, the bundle: ``session_name``, ``session_id``,
  ``participant_ids``, ``participant_names``, ``participant_name_by_id`` ({participant_id: name}),
  ``human_actions_all`` (the same actions), ``in_session_annotations_all`` ({name: {"checkpoint
  <index>": transcription}}), ``post_session_annotations`` ({name: timeline}) and
  ``by_participant`` ({name: {human_actions, in_session_annotations, post_session_annotations_timeline}}).

The bundle comes in two shapes. The export script's: ``in_session_annotations`` are the checkpoint
rows as the platform's database returns them (``participant_id``, ``checkpoint_index``,
``transcription``, ``created_at``, ``elapsed_seconds``), ``[]`` for none. The newer export's, the
shape the ALMANAC release ships: ``by_participant.<name>`` also carries the participant's
``participant_id``, and ``in_session_annotations`` is an object, the answers by checkpoint as
``in_session_annotations_all`` gives them ({"checkpoint <index>": transcription}), ``{}`` for none.
Both are read, and a participant's id is taken from either place (they must agree).
A timeline has one entry per action of the participant, in the order of ``human_actions_all`` (the
order the platform stored them in, by time): ``{action_timestamp, action_type, action_content,
annotation: {explanation_transcription, task_model_q1, partner_model_q2, self_model_q3,
alignment_q4}}``, with q1-q3 as texts and without the reasons of a "no".
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from corpus.importers.platform.annotations import (
    AnswerTally,
    CheckpointRow,
    checkpoint_row,
    is_blank,
    timeline_mental_model,
    timeline_unanswered,
)
from corpus.importers.platform.rows import Row, _read_row
from corpus.loading.reading import read_json
from corpus.loading.report import WARNING, Report, clipped, counted, describe, shown
from corpus.model import MentalModel

# Where the platform's schedule asks checkpoints 0, 1 and 2: at 20, 45 and 70 % of the session
# (of its time, or of the route drawn on maps with a ground-truth route).
PLATFORM_SCHEDULE = (0.20, 0.45, 0.70)


@dataclass
class ListedRow(Row):
    """A row of one of the export's lists of actions: its record is its place in that list."""

    list_name: str = "human_actions_all"

    @property
    def where(self) -> str:
        return f"{self.list_name}[{self.line - 1}]"


@dataclass
class ExportRead:
    """What the export files of a folder hold: action rows, mental models by action id (with the
    file and record each was read from), checkpoint rows, and the bundle files read."""

    rows: list[Row] = field(default_factory=list)
    annotations: dict[str, tuple[MentalModel, str, str]] = field(default_factory=dict)
    checkpoints: list[CheckpointRow] = field(default_factory=list)
    bundles: list[str] = field(default_factory=list)


def read_exports(
    bundles: list[Path],
    user_actions: list[Path],
    root: Path,
    report: Report,
    order: int,
    tally: AnswerTally | None = None,
) -> ExportRead:
    """The bundles and user_actions files under ``root``; ``order`` is the position of the last
    row read before (rows keep their order over all files); ``tally`` hears of every action the
    bundles' timelines answer."""
    out = ExportRead()
    for path in bundles:
        rel = str(path.relative_to(root))
        obj = _export_object(path, report, rel, "human_actions_all")
        if obj is None:
            continue
        out.bundles.append(rel)
        rows = _rows(obj["human_actions_all"], "human_actions_all", rel, path.parent, obj["session_id"], report, order)
        order += len(obj["human_actions_all"])
        out.rows.extend(rows)
        names = _participant_names(obj, report, rel)
        if names is None:
            continue
        out.annotations.update(_timelines(obj, names, report, rel, tally if tally is not None else AnswerTally()))
        out.checkpoints.extend(_checkpoints(obj, names, report, rel))
    for path in user_actions:
        rel = str(path.relative_to(root))
        obj = _export_object(path, report, rel, "human_actions")
        if obj is None:
            continue
        count, actions = obj.get("count"), obj["human_actions"]
        if count is not None and count != len(actions):
            report.add(
                rel,
                "-",
                "count",
                f"count is {describe(count)} but human_actions holds {len(actions)} actions; all of them are read",
                WARNING,
            )
        out.rows.extend(_rows(actions, "human_actions", rel, path.parent, obj["session_id"], report, order))
        order += len(actions)
    return out


def merge_rows(logs: list[Row], exported: list[Row]) -> list[Row]:
    """The logs' rows, then the export's rows of actions the logs do not hold. The export's actions
    are the logs' rows as the platform stored them, so an action in both (same session and
    ``action_id``) is read once, from the log."""
    seen = {(r.session_id, r.action_id) for r in logs}
    out = list(logs)
    for r in exported:
        if (r.session_id, r.action_id) not in seen:
            seen.add((r.session_id, r.action_id))
            out.append(r)
    return out


def inkless_export_stroke(row: Row) -> bool:
    """Whether a row is one of the export's strokes on an image map whose ink image is not there.
    The export does not carry the ink images (``files/<action_id>_map_image.png``) a stroke's cells
    come from: such strokes are counted once for the import instead of reported one by one."""
    return (
        isinstance(row, ListedRow)
        and row.kind == "stroke"
        and row.filled is None
        and bool(row.map_image)
        and not (row.folder / str(row.map_image)).is_file()
    )


def _export_object(path: Path, report: Report, rel: str, actions_key: str) -> dict[str, Any] | None:
    """An export file's object, with its ``session_id`` and its list of actions checked; None
    (reported) when either is wrong."""
    obj = read_json(path, report, rel)
    if obj is None:
        return None
    if not isinstance(obj, dict):
        report.add(rel, "-", "(file)", f"expected the export's JSON object, got {describe(obj)}")
        return None
    ok = True
    sid = obj.get("session_id")
    if not isinstance(sid, str) or not sid.strip():
        report.add(rel, "-", "session_id", f"expected the session's id, got {describe(sid)}")
        ok = False
    if not isinstance(obj.get(actions_key), list):
        report.add(rel, "-", actions_key, f"expected a list of action rows, got {describe(obj.get(actions_key))}")
        ok = False
    return obj if ok else None


def _relabel(report: Report, start: int, rel: str, old: str, new: str) -> None:
    """Issues reported since ``start`` for record ``old`` of ``rel``, named ``new`` instead."""
    for k in range(start, len(report.issues)):
        issue = report.issues[k]
        if issue.file == rel and issue.record == old:
            report.issues[k] = replace(issue, record=new)


def _rows(items: list[Any], key: str, rel: str, folder: Path, session_id: str, report: Report, order: int) -> list[Row]:
    """The usable action rows of one of the export's lists, read as the logs' rows are; every
    problem named by the row's place in the list (``human_actions_all[3]``)."""
    out: list[Row] = []
    last_tool: dict[str, str] = {}
    for k, obj in enumerate(items):
        rec = f"{key}[{k}]"
        if not isinstance(obj, dict):
            report.add(rel, rec, "(record)", f"expected an action row (a JSON object), got {describe(obj)}")
            continue
        start = len(report.issues)
        row = _read_row(obj, rel, k + 1, order + k + 1, folder, report, last_tool)
        _relabel(report, start, rel, f"line {k + 1}", rec)
        if row is None:
            continue
        if row.session_id != session_id:
            report.add(
                rel, rec, "session_id", f"{shown(row.session_id)} is not the file's session_id {shown(session_id)}"
            )
            continue
        out.append(ListedRow(**vars(row), list_name=key))
    return out


def _participant_names(obj: dict[str, Any], report: Report, rel: str) -> dict[str, str] | None:
    """participant name -> participant_id, from ``participant_name_by_id`` and the
    ``participant_id`` of each ``by_participant.<name>`` where the export gives one (the newer
    export's shape); None (reported) when neither says, or when they disagree."""
    by_id = obj.get("participant_name_by_id")
    names: dict[str, str] = {}
    if by_id is not None:
        if not isinstance(by_id, dict) or not all(isinstance(v, str) for v in by_id.values()):
            report.add(rel, "-", "participant_name_by_id", f"expected {{participant_id: name}}, got {describe(by_id)}")
            return None
        names = {name: str(pid) for pid, name in by_id.items()}
    ok = True
    by_participant = obj.get("by_participant")
    for name, entry in (by_participant if isinstance(by_participant, dict) else {}).items():
        pid = entry.get("participant_id") if isinstance(entry, dict) else None
        if pid is None:
            continue
        where = f"by_participant.{clipped(name)}"
        if not isinstance(pid, str) or not pid.strip():
            report.add(rel, where, "participant_id", f"expected the participant's id, got {describe(pid)}")
            ok = False
        elif names.get(name, pid) != pid:
            report.add(
                rel,
                where,
                "participant_id",
                f"{shown(pid)} is not the id participant_name_by_id gives {shown(name)} ({shown(names[name])})",
            )
            ok = False
        else:
            names[name] = pid
    if not ok:
        return None
    if not names:
        report.add(
            rel,
            "-",
            "participant_name_by_id",
            "expected {participant_id: name}, or a participant_id in each by_participant.<name>; found neither",
        )
        return None
    return names


def _section(obj: dict[str, Any], key: str, report: Report, rel: str) -> dict[str, Any]:
    """One of the bundle's objects keyed by participant name ({} when absent)."""
    value = obj.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        report.add(rel, "-", key, f"expected an object keyed by participant name, got {describe(value)}")
        return {}
    return value


def _participant_timeline(name: str, by_participant: dict[str, Any], top: dict[str, Any]) -> tuple[Any, str] | None:
    """A participant's post-session timeline and where in the bundle it is; None when there is none."""
    entry = by_participant.get(name)
    if isinstance(entry, dict) and "post_session_annotations_timeline" in entry:
        return entry[
            "post_session_annotations_timeline"
        ], f"by_participant.{clipped(name)}.post_session_annotations_timeline"
    if name in top:
        return top[name], f"post_session_annotations.{clipped(name)}"
    return None


def _timeline_models(
    timeline: list[Any],
    actions: list[tuple[int, Any]],
    report: Report,
    rel: str,
    where: str,
    tally: AnswerTally,
    out: dict[str, tuple[MentalModel, str, str]],
) -> None:
    """The mental model of each entry of one participant's timeline, read against the action it
    follows, added to ``out`` by action id; ``tally`` hears of every action an entry answers."""
    for k, (item, (pos, action)) in enumerate(zip(timeline, actions)):
        rec = f"{where}[{k}]"
        action_id = str(action.get("action_id") or f"{rel}:{pos + 1}")
        annotation = item.get("annotation") if isinstance(item, dict) else None
        if isinstance(annotation, dict) and not is_blank(annotation):
            tally.answered.add(action_id)
            if timeline_unanswered(annotation):
                tally.partial.add(action_id)
        model = _timeline_entry(item, action, pos, report, rel, rec)
        if model is not None:
            out[action_id] = (model, rel, rec)


def _timelines(
    obj: dict[str, Any], names: dict[str, str], report: Report, rel: str, tally: AnswerTally
) -> dict[str, tuple[MentalModel, str, str]]:
    """action_id -> (mental model, file, record) from each participant's post-session timeline:
    ``by_participant.<name>.post_session_annotations_timeline``, or ``post_session_annotations.<name>``
    where by_participant has none. Entry k belongs to the participant's k-th action of
    ``human_actions_all``; its timestamp, type and content must be that action's. ``tally`` hears
    of every action an entry answers."""
    by_participant = _section(obj, "by_participant", report, rel)
    top = _section(obj, "post_session_annotations", report, rel)
    out: dict[str, tuple[MentalModel, str, str]] = {}
    for name in dict.fromkeys([*by_participant, *top]):
        found = _participant_timeline(name, by_participant, top)
        if found is None:
            continue
        timeline, where = found
        if name not in names:
            report.add(rel, where, "(participant)", f"{shown(name)} is not a name in participant_name_by_id")
            continue
        if not isinstance(timeline, list):
            report.add(rel, where, "(timeline)", f"expected a list of timeline entries, got {describe(timeline)}")
            continue
        actions = [
            (k, a)
            for k, a in enumerate(obj["human_actions_all"])
            if isinstance(a, dict) and str(a.get("participant_id")) == names[name]
        ]
        if len(timeline) != len(actions):
            report.add(
                rel,
                where,
                "(timeline)",
                f"{len(timeline)} timeline entr{'y' if len(timeline) == 1 else 'ies'} but the participant has "
                f"{counted(len(actions), 'action')} in human_actions_all: the timeline has one entry per action, "
                "in the same order",
            )
            continue
        _timeline_models(timeline, actions, report, rel, where, tally, out)
    return out


_MATCHED = (("action_timestamp", "timestamp"), ("action_type", "action_type"), ("action_content", "action_content"))


def _timeline_entry(
    item: Any, action: dict[str, Any], pos: int, report: Report, rel: str, rec: str
) -> MentalModel | None:
    """The mental model of one timeline entry, once it is known to describe ``action``; None for
    a blank annotation and (reported) for an entry with errors."""
    if not isinstance(item, dict) or not isinstance(item.get("annotation"), dict):
        report.add(rel, rec, "annotation", f"expected an entry with an annotation object, got {describe(item)}")
        return None
    for entry_key, action_key in _MATCHED:
        found, expected = item.get(entry_key) or "", action.get(action_key) or ""
        if found != expected:
            report.add(
                rel,
                rec,
                entry_key,
                f"{shown(found)} does not match human_actions_all[{pos}] (action "
                f"{shown(str(action.get('action_id') or ''))}, {action_key} {shown(expected)}): the entries must "
                "follow the participant's actions in order",
            )
            return None
    if is_blank(item["annotation"]):
        return None
    return timeline_mental_model(item["annotation"], report, rel, rec)


def _checkpoint_rows(rows: list[Any], where: str, sid: str, report: Report, rel: str) -> list[CheckpointRow]:
    """A participant's list of checkpoint rows, each read with :func:`checkpoint_row` (rows with errors left out)."""
    out = []
    for k, item in enumerate(rows):
        row = checkpoint_row(item, report, rel, f"{where}[{k}]", session_id=sid)
        if row is not None:
            out.append(row)
    return out


def _checkpoint_answers(
    texts: dict[str, Any], pid: str, where: str, sid: str, report: Report, rel: str
) -> list[CheckpointRow]:
    """A participant's answers by checkpoint (``{'checkpoint <index>': text}``) as rows placed on the
    platform's schedule; keys and answers that do not read are reported and left out."""
    out = []
    for key, text in texts.items():
        parts = key.split()
        index = int(parts[1]) if len(parts) == 2 and parts[0] == "checkpoint" and parts[1].isdigit() else None
        if index is None or index >= len(PLATFORM_SCHEDULE):
            report.add(
                rel,
                where,
                clipped(key),
                f"expected 'checkpoint 0', 'checkpoint 1' or 'checkpoint 2' (the platform's checkpoints), got {shown(key)}",
            )
            continue
        if not isinstance(text, str):
            report.add(rel, where, clipped(key), f"expected the answer's text, got {describe(text)}")
            continue
        out.append(
            CheckpointRow(
                participant_id=pid,
                index=index,
                transcription=text.strip(),
                file=rel,
                record=f"{where}.{clipped(key)}",
                session_id=sid,
                share=PLATFORM_SCHEDULE[index],
            )
        )
    return out


def _report_untimed(fallback: Counter[str], report: Report, rel: str) -> None:
    """The checkpoint answers read without a time, once for the file by the field they came from."""
    for source, n in fallback.items():
        report.add(
            rel,
            "-",
            source.removeprefix("by_participant.<name>."),
            f"{counted(n, 'checkpoint answer')} taken from {source}, which gives no time (by_participant has "
            "no in_session_annotations rows for them): each is placed where the platform's schedule asks that "
            "checkpoint (0 at 20 %, 1 at 45 %, 2 at 70 % of the session), not where it was answered",
            WARNING,
        )


def _checkpoints(obj: dict[str, Any], names: dict[str, str], report: Report, rel: str) -> list[CheckpointRow]:
    """Each participant's checkpoint rows, ``by_participant.<name>.in_session_annotations`` (a list
    of rows; ``[]`` or ``{}`` for none); for a participant without rows, the answers by checkpoint
    that the newer export writes there, or else those of ``in_session_annotations_all.<name>``,
    which carry no time: placed where the platform's schedule asks them, and said so once for the
    file."""
    sid = str(obj["session_id"])
    by_participant = _section(obj, "by_participant", report, rel)
    answers = _section(obj, "in_session_annotations_all", report, rel)
    out: list[CheckpointRow] = []
    fallback: Counter[str] = Counter()  # answers without a time, by the field they were read from
    for name in dict.fromkeys([*by_participant, *answers]):
        entry = by_participant.get(name)
        rows = entry.get("in_session_annotations") if isinstance(entry, dict) else None
        where = f"by_participant.{clipped(name)}.in_session_annotations"
        if rows is not None and not isinstance(rows, (list, dict)):
            report.add(
                rel,
                where,
                "(rows)",
                "expected a list of checkpoint rows, or an object of the answers by checkpoint "
                f"({{'checkpoint <index>': text}}; [] or {{}} for none), got {describe(rows)}",
            )
            continue
        if isinstance(rows, list) and rows:
            out += _checkpoint_rows(rows, where, sid, report, rel)
            continue
        if isinstance(rows, dict) and rows:
            texts: Any = rows
            source = "by_participant.<name>.in_session_annotations"
        else:
            texts = answers.get(name)
            where = f"in_session_annotations_all.{clipped(name)}"
            source = "in_session_annotations_all"
        if not texts:
            continue
        if name not in names:
            report.add(rel, where, "(participant)", f"{shown(name)} is not a name in participant_name_by_id")
            continue
        if not isinstance(texts, dict):
            report.add(rel, where, "(answers)", f"expected {{'checkpoint <index>': text}}, got {describe(texts)}")
            continue
        answered = _checkpoint_answers(texts, names[name], where, sid, report, rel)
        if answered:
            fallback[source] += len(answered)
            out += answered
    _report_untimed(fallback, report, rel)
    return out
