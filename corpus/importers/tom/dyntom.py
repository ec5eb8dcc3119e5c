"""DynToM trial folders (GAIR-NLP/DynToM, ``synthesize_data/script/data/trial<N>/``), one trial or many.

A trial folder holds ``question_new.json`` (question id -> ``question``, ``options`` as
``"a. text"``, ``true answer`` (a letter), ``question type``, ``option reasons``: what mistake each
option tests, ``short``), ``story.json`` (the five connected scenarios) and one answer file per model
and setting, ``<setting>_answer_<model>.json`` (question id -> letter; ``level1``, ``level1CoT``, ...),
plus the authors' own evaluation files ``<setting>_q_a_<model>.json`` and ``meta.json``, which are
not read.

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
any error in any of its files is refused whole; an error in a question file refuses the import.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd

from corpus.archive import extract_to
from corpus.benchmark import NO_ANSWER, AnswerRun, Benchmark
from corpus.reading import load_json
from corpus.report import DatasetError, Report, describe

QUESTION_FILE = "question_new.json"
STORY_FILE = "story.json"
ANSWER_FILE = re.compile(r"^(?P<setting>[A-Za-z0-9]+)_answer_(?P<model>.+)\.json$")
SUMMARY_KEYS = frozenset({"accuracy", "question_count", "error_list", "error_analysis"})
SLICES = ("question_type", "form", "mental_state", "time_span", "reasoning")
STATES = ("belief", "emotion", "intention", "action")
INFLUENCES = ("belief->emotion", "belief&emotion->intention", "intention->action")
SCENARIOS = 5
_ID = re.compile(r"^type_(?P<type>[a-z])_(?P<form>[a-z]+)_(?P<n>\d+)$")
_OPTION = re.compile(r"^\s*(?P<letter>[A-Za-z])\s*[.)]\s*(?P<text>.*)$", re.S)


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


def _options(value: Any, rel: str, qid: str, report: Report) -> list[tuple[str, str]] | None:
    if not isinstance(value, list) or not value:
        report.add(rel, qid, "options", f"expected a list of options, got {describe(value)}")
        return None
    out = []
    for k, opt in enumerate(value):
        m = _OPTION.match(opt) if isinstance(opt, str) else None
        if m is None:
            report.add(rel, qid, f"options[{k}]", f"expected 'a. text', got {describe(opt)}")
            return None
        out.append((m["letter"], m["text"].strip()))
    return out


def _kinds(options: list[tuple[str, str]], reasons: Any, gold: str) -> list[str]:
    """What each option tests (its ``short`` in ``option reasons``; the true answer's is
    ``true_answer``), "" where the file does not say."""
    by_text: dict[str, str] = {}
    if isinstance(reasons, list):
        for r in reasons:
            if isinstance(r, dict) and isinstance(r.get("option"), str) and isinstance(r.get("short"), str):
                by_text.setdefault(r["option"].strip(), r["short"])
    return ["true_answer" if letter == gold else by_text.get(text, "") for letter, text in options]


def _questions(folder: Path, group: str, rel: str, report: Report) -> list[dict[str, Any]]:
    loaded = load_json(folder / QUESTION_FILE, report, rel)
    if loaded is None:
        return []
    data = loaded[0]
    if isinstance(data, dict) and isinstance(data.get("questions"), dict):  # as the authors' reader allows
        data = data["questions"]
    if not isinstance(data, dict) or not data:
        report.add(rel, "-", "(file)", f"expected an object of questions by id, got {describe(data)}")
        return []
    rows = []
    for qid, q in data.items():
        if not isinstance(q, dict):
            report.add(rel, qid, "(record)", f"expected a question object, got {describe(q)}")
            continue
        question, gold = q.get("question"), q.get("true answer")
        if not isinstance(question, str):
            report.add(rel, qid, "question", f"expected a string, got {describe(question)}")
        if not isinstance(gold, str) or not gold.strip():
            report.add(rel, qid, "true answer", f"expected an option letter, got {describe(gold)}")
            continue
        options = _options(q.get("options"), rel, qid, report)
        if options is None or not isinstance(question, str):
            continue
        if gold not in {letter for letter, _ in options}:
            letters = ", ".join(letter for letter, _ in options)
            report.add(rel, qid, "true answer", f"'{gold}' is not one of the options ({letters})")
            continue
        rows.append(
            {
                "item_id": f"{group}/{qid}",
                "group": group,
                "question_id": qid,
                "question": question,
                "options": [f"{letter}. {text}" for letter, text in options],
                "option_kinds": _kinds(options, q.get("option reasons"), gold),
                "gold": gold,
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
    if loaded is None or not isinstance(loaded[0], dict):
        report.add(rel, "-", "(file)", "cannot be read; the trial is shown without its story", severity="warning")
        return {}
    story = loaded[0]
    scenarios = []
    raw = story.get("story")
    body: dict[str, Any] = raw if isinstance(raw, dict) else {}
    for name, sc in body.items():
        if not isinstance(sc, dict):
            continue
        lines = []
        dialogue = sc.get("dialogue") or []
        if not isinstance(dialogue, list):
            report.add(
                rel,
                str(name),
                "dialogue",
                f"expected a list of turns, got {describe(dialogue)}; the scenario is shown without its dialogue",
                severity="warning",
            )
            dialogue = []
        for turn in dialogue:
            if isinstance(turn, dict):
                lines += [[str(who), str(said)] for who, said in turn.items()]
        scenarios.append({"scenario": str(name), "background": str(sc.get("background", "")), "dialogue": lines})
    return {
        "main_character": str(story.get("main character", "")),
        "characters": str(story.get("characters information", "")),
        "scenarios": scenarios,
    }


def _answers(path: Path, rel: str, questions: set[str], report: Report) -> tuple[dict[str, str], int]:
    """(question id -> answer, unmatched keys) of one answer file; problems go to ``report``."""
    loaded = load_json(path, report, rel)
    if loaded is None:
        return {}, 0
    data = loaded[0]
    if not isinstance(data, dict):
        report.add(rel, "-", "(file)", f"expected an object of answers by question id, got {describe(data)}")
        return {}, 0
    out, unmatched = {}, 0
    for qid, answer in data.items():
        if qid in SUMMARY_KEYS:
            continue
        if qid not in questions:
            unmatched += 1
            continue
        if not isinstance(answer, str):
            report.add(rel, qid, "answer", f"expected an option letter, got {describe(answer)}")
            continue
        out[qid] = answer
    return out, unmatched


def _read_folder(root: Path, label: str) -> tuple[Benchmark, Report]:
    report = Report()
    rows: list[dict[str, Any]] = []
    contexts: dict[str, Any] = {}
    files: dict[tuple[str, str], list[tuple[str, Path, str]]] = defaultdict(list)
    for folder, group in _trial_folders(root):
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
        description=f"DynToM trials read from '{label}'.",
    )
    return bench, report


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
        except DatasetError as exc:  # corpus.archive.ArchiveError: the archive refused
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
