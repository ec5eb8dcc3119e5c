"""DynToM trial folders (GAIR-NLP/DynToM, ``synthesize_data/script/data/trial<N>/``), one trial or many.

A trial folder holds ``question_new.json`` (question id -> ``question``, ``options`` as
``"a. text"``, ``true answer`` (a letter), ``question type``, ``option reasons``: what mistake each
option tests, ``short``), ``story.json`` (the five connected scenarios) and one answer file per model
and setting, ``<setting>_answer_<model>.json`` (question id -> letter; ``level1``, ``level1CoT``, ...),
plus the authors' own evaluation files ``<setting>_q_a_<model>.json``, which are not read, and
``meta.json``, of which one field is: trials whose ``generate_model`` is ``"synthetic"`` (what
Groundwork's generator, :mod:`corpus.generate.tom`, writes there) make a benchmark marked synthetic.

**Items.** One per question, id ``<trial>/<question id>``, grouped (and clustered) by trial. The
slices follow the authors' evaluation code (``analysis/analysis_question.py``), derived from the
question id:

- ``question_type``: ``type_d`` if the id contains it, else ``type_c``, else ``type_a``;
- ``form``: the word after the type (what, how, why, whether);
- ``mental_state`` and ``time_span``: ``type_a_what_n`` asks about belief (n = 1-5), emotion (6-10),
  intention (11-15), action (16-20) in scenario (n - 1) mod 5 + 1; ``type_d_why_n`` and
  ``type_d_whether_n`` about the change of belief (1-4), emotion (5-8), intention (9-12), action
  (13-16) over the span k -> k+1, k = (n - 1) mod 4 + 1; ``type_c_how_n`` about the influence
  belief->emotion (1-5), belief&emotion->intention (6-10), intention->action (11-15) in scenario
  (n - 1) mod 5 + 1. ``type_d_how`` questions (a state's whole trajectory) have neither, as in the
  authors' code, and are counted only in the question-type and overall accuracy.
- ``reasoning``: ``reason`` for why and how(c) questions, ``not_reason`` for whether and what,
  blank for ``type_d_how``.

**Runs.** Every answer file is a run named ``<model> (<setting>)``; a run's files across trials are
one run. A question its file leaves out is scored wrong (the authors' rule); keys of the file that
are not questions of the trial are counted as unmatched, except the file's own summary
(``accuracy``, ``question_count``, ``error_list``, ``error_analysis``), which is ignored. A run with
any error in any of its files is refused whole; an error in a question file refuses the import. The
records are validated by their models (:mod:`corpus.importers.tom.records`: a question, an answer, a
story), each problem naming the file, the question and the field.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from corpus.benchmark.dataset import NO_ANSWER, AnswerRun, Benchmark
from corpus.benchmark.records import checked
from corpus.importers.tom.records import AnswerFile, QuestionFile, Scenario, Story
from corpus.loading.reading import load_json
from corpus.loading.report import WARNING, DatasetError, Report
from corpus.server.archive import extract_to

QUESTION_FILE = "question_new.json"
GENERATED_MARK = "synthetic"  # meta.json's generate_model in trials of corpus.generate.tom
STORY_FILE = "story.json"
ANSWER_FILE = re.compile(r"^(?P<setting>[A-Za-z0-9]+)_answer_(?P<model>.+)\.json$")
SUMMARY_KEYS = frozenset({"accuracy", "question_count", "error_list", "error_analysis"})
SLICES = ("question_type", "form", "mental_state", "time_span", "reasoning")
STATES = ("belief", "emotion", "intention", "action")
INFLUENCES = ("belief->emotion", "belief&emotion->intention", "intention->action")
_ID = re.compile(r"^type_(?P<type>[a-z])_(?P<form>[a-z]+)_(?P<n>\d+)$")


def question_slices(qid: str) -> dict[str, str]:
    """The slices of a question, derived from its id as the authors' evaluation code does."""
    qtype = "type_d" if "type_d" in qid else "type_c" if "type_c" in qid else "type_a"
    out = {"question_type": qtype, "form": "", "mental_state": "", "time_span": "", "reasoning": ""}
    m = _ID.match(qid)
    if not m:
        return out
    form, n = m["form"], int(m["n"])
    out["form"] = form
    if qtype == "type_a" and form == "what" and 1 <= n <= 20:
        out["mental_state"], out["time_span"] = STATES[(n - 1) // 5], str((n - 1) % 5 + 1)
    elif qtype == "type_d" and form in ("why", "whether") and 1 <= n <= 16:
        k = (n - 1) % 4 + 1
        out["mental_state"], out["time_span"] = STATES[(n - 1) // 4], f"{k}->{k + 1}"
    elif qtype == "type_c" and form == "how" and 1 <= n <= 15:
        out["mental_state"], out["time_span"] = INFLUENCES[(n - 1) // 5], str((n - 1) % 5 + 1)
    if out["mental_state"]:
        out["reasoning"] = "reason" if form in ("why", "how") else "not_reason"
    return out


def _trial_folders(root: Path) -> Iterator[tuple[Path, str]]:
    """(folder, group id) of every folder under ``root`` that holds a question file, in name order;
    the group id is the folder's name, or its path under ``root`` when two share a name."""
    found = sorted(
        p.parent
        for p in root.rglob(QUESTION_FILE)
        if p.is_file() and not any(part.startswith(".") or part == "__MACOSX" for part in p.relative_to(root).parts)
    )
    names = [f.name for f in found]
    for f in found:
        group = f.name if names.count(f.name) == 1 else (f.relative_to(root).as_posix() or f.name)
        yield f, group


def is_dyntom(source: str | Path) -> bool:
    """Whether ``source`` (a folder) holds at least one DynToM trial (a question_new.json)."""
    source = Path(source)
    if source.is_file():
        return source.name == QUESTION_FILE
    return source.is_dir() and next(_trial_folders(source), None) is not None


def _questions(folder: Path, group: str, rel: str, report: Report) -> list[dict[str, Any]]:
    """The items of a trial's question file, each only when it has no error (:class:`.records.Question`)."""
    loaded = load_json(folder / QUESTION_FILE, report, rel)
    found = None if loaded is None else checked(QuestionFile, loaded[0], report, rel, "-", whole="(file)")
    if found is None:
        return []
    rows = []
    for qid, q in found.questions(report, rel).items():
        rows.append(
            {
                "item_id": f"{group}/{qid}",
                "group": group,
                "question_id": qid,
                "question": q.question,
                "options": [f"{letter}. {text}" for letter, text in q.options],
                "option_kinds": q.kinds(),
                "gold": q.gold,
                **question_slices(qid),
            }
        )
    return rows


def _story(folder: Path, rel: str, report: Report) -> dict[str, Any]:
    """The trial's context: main character, characters and each scenario's background and dialogue
    (an unreadable story is a warning: the items are still scored)."""
    path = folder / STORY_FILE
    if not path.is_file():
        return {}
    side = Report()
    loaded = load_json(path, side, rel)
    story = None if loaded is None else checked(Story, loaded[0], side, rel, "-")
    if story is None:
        report.add(rel, "-", "(file)", "cannot be read; the trial is shown without its story", severity=WARNING)
        return {}
    scenarios = []
    for name, raw in story.story.items():
        if not isinstance(raw, dict):
            continue
        sc = checked(Scenario, raw, report, rel, str(name), severity=WARNING) or Scenario.model_validate(
            {**raw, "dialogue": []}
        )
        scenarios.append({"scenario": str(name), "background": sc.background, "dialogue": sc.dialogue})
    return {"main_character": story.main_character, "characters": story.characters, "scenarios": scenarios}


def _answers(path: Path, rel: str, questions: set[str], report: Report) -> tuple[dict[str, str], int]:
    """(question id -> answer, unmatched keys) of one answer file; problems go to ``report``."""
    loaded = load_json(path, report, rel)
    found = None if loaded is None else checked(AnswerFile, loaded[0], report, rel, "-", whole="(file)")
    if found is None:
        return {}, 0
    unmatched = sum(qid not in questions and qid not in SUMMARY_KEYS for qid in found.root)
    return found.answers(questions - SUMMARY_KEYS, report, rel), unmatched


def _read_folder(root: Path, label: str) -> tuple[Benchmark, Report]:
    report = Report()
    rows: list[dict[str, Any]] = []
    contexts: dict[str, Any] = {}
    files: dict[tuple[str, str], list[tuple[str, Path, str]]] = defaultdict(list)
    generated: list[bool] = []
    for folder, group in _trial_folders(root):
        generated.append(_generated(folder))
        prefix = folder.relative_to(root).as_posix()
        prefix = "" if prefix == "." else prefix + "/"
        rows += _questions(folder, group, prefix + QUESTION_FILE, report)
        story = _story(folder, prefix + STORY_FILE, report)
        if story:
            contexts[group] = story
        for path in sorted(folder.glob("*_answer_*.json")):
            m = ANSWER_FILE.match(path.name)
            if m:
                files[(m["model"], m["setting"])].append((group, path, prefix + path.name))
    if not rows and report.ok:
        report.add(label, "-", "(source)", f"no DynToM trial found (a trial folder holds {QUESTION_FILE})")
    items = pd.DataFrame(rows)
    runs = []
    if rows:
        by_group: dict[str, list[str]] = defaultdict(list)
        for r in rows:
            by_group[r["group"]].append(r["question_id"])
        for (model, setting), found in sorted(files.items()):
            run_report, parts, unmatched, no_answer = Report(), [], 0, 0
            for group, path, rel in found:
                qids = by_group.get(group, [])
                got, extra = _answers(path, rel, set(qids), run_report)
                unmatched += extra
                no_answer += sum(q not in got for q in qids)
                parts += [(f"{group}/{q}", got.get(q, NO_ANSWER)) for q in qids]
            runs.append(
                AnswerRun(
                    run_id=f"{model} ({setting})",
                    model=model,
                    setting=setting,
                    answers=pd.DataFrame(parts, columns=["item_id", "answer"]),
                    source=f"{setting}_answer_{model}.json in {len(found)} trial(s)",
                    report=run_report,
                    unmatched=unmatched,
                    no_answer=no_answer,
                    groups=len(found),
                )
            )
    bench = Benchmark(
        name=label,
        kind="dyntom",
        items=items,
        slices=SLICES,
        cluster="group",
        contexts=contexts,
        runs=tuple(runs),
        description=f"DynToM trials read from '{label}'." + _synthetic_note(generated),
        synthetic=bool(_synthetic_note(generated)),
    )
    return bench, report


def _synthetic_note(generated: list[bool]) -> str:
    """The description's note when every trial is Groundwork's own (else "")."""
    return " Synthetic: generated by Groundwork, not the release's." if generated and all(generated) else ""


def _generated(folder: Path) -> bool:
    """Whether the trial's meta.json says Groundwork's generator made it (``generate_model``:
    ``"synthetic"``); a trial without one, or with any other value, is not."""
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(meta, dict) and meta.get("generate_model") == GENERATED_MARK


def _empty(name: str) -> Benchmark:
    return Benchmark(name, "dyntom", pd.DataFrame(columns=["item_id", "group", *SLICES]), SLICES, "group", {}, ())


def read_dyntom(source: str | Path) -> tuple[Benchmark, Report]:
    """The trials in ``source`` (a trial folder, a folder of them at any depth, or a .zip) with every
    run, refused runs included (each with its own report), and the problems of the questions."""
    source = Path(source)
    if source.is_file() and source.suffix.lower() == ".zip":
        tmp = Path(tempfile.mkdtemp(prefix="groundwork-tom-"))
        try:
            extract_to(source, tmp / "trials")
            return _read_folder(tmp / "trials", source.name)
        except DatasetError as exc:  # corpus.server.archive.ArchiveError: the archive refused
            return _empty(source.name), exc.report
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    if source.is_file() and source.name == QUESTION_FILE:
        source = source.parent
    if not source.is_dir():
        report = Report()
        report.add(source.name, "-", "(source)", f"not found: {source}")
        return _empty(source.name), report
    return _read_folder(source, source.name)


def load_dyntom(source: str | Path) -> Benchmark:
    """The trials in ``source``, or :class:`DatasetError` when a question file has an error (an
    import is all or nothing; a refused run is kept, with its report, and is not scored)."""
    bench, report = read_dyntom(source)
    if not report.ok:
        raise DatasetError(report, str(source))
    return bench
