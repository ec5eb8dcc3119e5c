"""Synthetic DynToM trials, in the released format exactly (``question_new.json``, ``story.json``,
``<setting>_answer_<model>.json`` with the files' own summary keys, ``meta.json``): for the bundled
sample benchmark, the tests and the benchmarks of speed. Generated text, not a story anyone wrote.

Each trial has the released design's 71 questions (type_a what 1-20, type_c how 1-15, type_d how 1-4,
why 1-16, whether 1-16), with options that each test one mistake (``option reasons``). Each model
answers with its own skill, lower on harder question types and on changes than on states, higher in
the CoT setting; a few answers are left out of a file, as real files do.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from corpus.importers.tom.dyntom import GENERATED_MARK, INFLUENCES, STATES

NAMES = ("Ana Ruiz", "Ben Okafor", "Chloe Park", "Dev Patel", "Elif Kaya", "Femi Adeyemi", "Greta Lind", "Hiro Sato")
FRIENDS = ("Sam", "Jo", "Lee", "Max", "Noor", "Kit")
STATE_WORDS = {
    "belief": (
        "the plan is fair",
        "the friend is hiding something",
        "the trip is at risk",
        "the team needs help",
        "the project can succeed",
        "the rumour was false",
        "the deadline is fixed",
    ),
    "emotion": ("curiosity", "worry", "frustration", "guilt", "hope", "relief", "pride"),
    "intention": (
        "ask for details",
        "offer help",
        "keep distance",
        "apologise",
        "make a plan",
        "celebrate",
        "set a boundary",
    ),
    "action": (
        "asks a question",
        "sends a message",
        "stays silent",
        "apologises",
        "proposes a plan",
        "joins in",
        "leaves early",
    ),
}
KINDS = {
    ("a", "what"): ("type_a_what_time_stage", "type_a_what_recognize_belief_emotion_intention_action"),
    ("c", "how"): ("type_c_how_time_stage", "type_c_how_recognizae_influence_between_not_belief_emotion"),
    ("d", "how"): ("type_d_how_time_order", "type_d_how_recognize_time_stage_completeness"),
    ("d", "why"): ("type_d_why_time_stage", "type_d_why_recognize_belief_emotion_intention_action"),
    ("d", "whether"): ("type_d_whether_time_stage", "type_d_whether_recognize_if_change"),
}
DIFFICULTY = {"type_a": 0.0, "type_c": 0.6, "type_d": 1.1}  # logits taken off a model's skill
COT_GAIN = 0.4
MODELS = {"synth-large": 1.6, "synth-medium": 0.6, "synth-small": -0.3}
SETTINGS = ("level1", "level1CoT")
LETTERS = "abcdefghijklmnop"


def _question_ids() -> list[tuple[str, str, str, int]]:
    """(id, type letter, form, n) of the 71 questions, in the released files' order."""
    out = [(f"type_d_how_{n}", "d", "how", n) for n in range(1, 5)]
    out += [(f"type_d_why_{n}", "d", "why", n) for n in range(1, 17)]
    out += [(f"type_d_whether_{n}", "d", "whether", n) for n in range(1, 17)]
    out += [(f"type_c_how_{n}", "c", "how", n) for n in range(1, 16)]
    out += [(f"type_a_what_{n}", "a", "what", n) for n in range(1, 21)]
    return out


def _subject(t: str, form: str, n: int, who: str) -> str:
    if t == "a":
        return f"What is the {STATES[(n - 1) // 5]} of {who} in scenario {(n - 1) % 5 + 1}?"
    if t == "c":
        return f"How does the {INFLUENCES[(n - 1) // 5]} influence work for {who} in scenario {(n - 1) % 5 + 1}?"
    if form == "how":
        return f"How does the {STATES[n - 1]} of {who} change across the 5 scenarios?"
    k = (n - 1) % 4 + 1
    verb = "Why does" if form == "why" else "Does"
    return f"{verb} the {STATES[(n - 1) // 4]} of {who} change from scenario {k} to scenario {k + 1}?"


def _trial(rng: np.random.Generator, k: int) -> tuple[dict, dict]:
    who = NAMES[k % len(NAMES)]
    friend = FRIENDS[k % len(FRIENDS)]
    states = {s: [str(rng.choice(STATE_WORDS[s])) for _ in range(5)] for s in STATES}
    questions = {}
    for qid, t, form, n in _question_ids():
        n_opt = int(rng.integers(4, 9))
        gold_at = int(rng.integers(0, n_opt))
        texts, reasons = [], []
        for i in range(n_opt):
            if i == gold_at:
                text, short = f"answer {qid} (trial {k})", "true_answer"
            else:
                short = KINDS[(t, form)][i % 2]
                text = f"option {i} of {qid}: {rng.choice(STATE_WORDS[STATES[i % 4]])}"
            texts.append(text)
            reasons.append({"option": text, "reason": short, "explain": short, "short": short})
        questions[qid] = {
            "question": _subject(t, form, n, who),
            "true answer": LETTERS[gold_at],
            "options": [f"{LETTERS[i]}. {x}" for i, x in enumerate(texts)],
            "question type": f"type_{t}",
            "option reasons": reasons,
        }
    story = {
        "main character": who,
        "scenario numbers": 5,
        "characters information": f"**Main Character**: {who}. **Supporting Characters**: {friend}, a friend.",
        "sketch": {
            "mental states analysis in every scenario": {
                f"scenario {i + 1}": {s: states[s][i] for s in STATES} for i in range(5)
            }
        },
        "story": {
            f"scenario {i + 1}": {
                "background": f"Scenario {i + 1}: {who} believes {states['belief'][i]} and feels "
                f"{states['emotion'][i]}.",
                "dialogue": [
                    {who.split()[0]: f"I want to {states['intention'][i]}.", friend: "Tell me more."},
                    {who.split()[0]: f"So {who.split()[0]} {states['action'][i]}.", friend: "I see."},
                ],
            }
            for i in range(5)
        },
    }
    return questions, story


def _answers(rng: np.random.Generator, questions: dict, skill: float) -> dict:
    out: dict = {}
    errors = []
    for qid, q in questions.items():
        if rng.random() < 0.01:  # a question the model's file leaves out
            continue
        p = 1 / (1 + math.exp(-(skill - DIFFICULTY[q["question type"]])))
        letters = [o.split(".", 1)[0] for o in q["options"]]
        if rng.random() < p:
            out[qid] = q["true answer"]
        else:
            wrong = [x for x in letters if x != q["true answer"]]
            out[qid] = str(rng.choice(wrong))
            errors.append({"id": qid, "answer": out[qid], "truth": q["true answer"]})
    return {
        **out,
        "accuracy": (len(questions) - len(errors) - (len(questions) - len(out))) / len(questions),
        "question_count": len(questions),
        "error_list": errors,
        "error_analysis": {"total": len(errors)},
    }


def write_dyntom_trials(
    out: str | Path, n_trials: int = 12, models: dict[str, float] | None = None, seed: int = 0, first: int = 1
) -> Path:
    """Write ``n_trials`` trial folders ``trial<first>..`` under ``out`` (created), each with its
    question file, story, meta and one answer file per model and setting."""
    out = Path(out)
    rng = np.random.default_rng(seed)
    models = models or MODELS
    for k in range(first, first + n_trials):
        folder = out / f"trial{k}"
        folder.mkdir(parents=True, exist_ok=True)
        questions, story = _trial(rng, k)
        (folder / "question_new.json").write_text(json.dumps(questions, indent=4), encoding="utf-8")
        (folder / "story.json").write_text(json.dumps(story, indent=4), encoding="utf-8")
        meta = {"generate_model": GENERATED_MARK}  # read back: a benchmark of these trials is synthetic
        (folder / "meta.json").write_text(json.dumps(meta, indent=4), encoding="utf-8")
        for model, skill in models.items():
            for s, setting in enumerate(SETTINGS):
                answers = _answers(rng, questions, skill + COT_GAIN * s)
                (folder / f"{setting}_answer_{model}.json").write_text(json.dumps(answers, indent=4), encoding="utf-8")
    return out


SAMPLE_NAME = "ToM benchmark (synthetic, DynToM format)"


def write_sample_benchmark(dest: str | Path, n_trials: int = 12, seed: int = 0, overwrite: bool = False) -> Path:
    """The bundled sample benchmark: synthetic trials written in the released format, read back by
    the DynToM importer and written as a benchmark dataset marked synthetic."""
    import tempfile
    from dataclasses import replace

    from corpus.benchmark.dataset import write_benchmark_dataset
    from corpus.importers.tom import load_dyntom

    with tempfile.TemporaryDirectory(prefix="groundwork-tom-") as tmp:
        bench = load_dyntom(write_dyntom_trials(Path(tmp) / "trials", n_trials, seed=seed))
    bench = replace(
        bench,
        name=SAMPLE_NAME,
        synthetic=True,
        description=(
            f"Synthetic: {n_trials} generated trials of 71 questions in the DynToM release's format, answered by three "
            "simulated models in two settings (level1, level1CoT). Generated by: python -m corpus generate-tom."
        ),
    )
    return write_benchmark_dataset(dest, bench, overwrite=overwrite)
