"""A dataset and a coding round whose every text field holds markup that would run script or
inject elements if any page rendered it as HTML or Markdown.

The markers: script sets ``window.__pwned`` (or calls ``alert``), injected elements carry the class
``pwn``, an ``iframe[srcdoc]`` or an ``img[onerror]``; ``**md**`` and a ``javascript:`` link show
whether Markdown was interpreted; Streamlit's colon syntax (``:material/lock:``, ``:red[x]``,
``:smile:``) whether Markdown made an icon, a coloured span or an emoji of it; an ``<a href>`` whether
Plotly (which reads a few tags) made a link; bare addresses (``https://evil.example/bare``, ``www.``, an
e-mail) whether data text became a link; the text starts with a spreadsheet formula
(``=HYPERLINK(...)``), which no CSV download may leave live.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from helpers import mm, tiny_map, tiny_session

from analysis import coding as ac
from corpus import codebook as cbm
from corpus.benchmark.dataset import load_benchmark, write_benchmark_dataset
from corpus.loading.dataset import load
from corpus.loading.write import write_dataset
from corpus.model import Checkpoint, DatasetInfo, Label, Landmark, Participant, Persona
from corpus.store import Store, User

COLON_SYNTAX = ":material/lock: :red[x] :smile:"
HOSTILE = (
    f'=HYPERLINK("https://evil.example/f","x") {COLON_SYNTAX} <img src=x onerror="window.__pwned=1">'
    '<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>'
    "<b class=pwn>x</b> **md** [l](javascript:alert(1)) "
    '<a href="https://evil.example/a">a</a> https://evil.example/bare www.evil.example mail@evil.example'
)
# A task's name and a dataset's name (as the sidebar offers it) are at most 200 characters: the same
# without the iframe and the bare addresses.
HOSTILE_NAME = HOSTILE.replace('<iframe srcdoc="<script>parent.__pwned=1</script>"></iframe>', "").replace(
    " https://evil.example/bare www.evil.example mail@evil.example", ""
)
# A session id names a folder: the same attack without a slash.
HOSTILE_ID = '<img src=x onerror="window.__pwned=2"><b class=pwn>s:red[x]'
# Account names are at most 64 characters.
HOSTILE_USER = "<b class=pwn>coder<img src=x onerror=alert(3)> :red[x] :smile:"
CODER_PASSWORD = "coder-password"
LEAD_PASSWORD = "lead-password"


def _hostile_sessions():
    hostile = tiny_session(HOSTILE_ID, condition="visible")
    hostile.notes = HOSTILE
    hostile.actions[0].content = HOSTILE
    hostile.actions[2].mental_model = mm(False, rationale=HOSTILE)
    hostile.actions[4].mental_model = mm(True, team_goal=Label(code="other", other_text=HOSTILE), rationale=HOSTILE)
    hostile.participants = [
        Participant(role="guide", id=HOSTILE, persona=Persona(gender="Female", teamq=[2] * 14)),
        Participant(role="follower", id=HOSTILE + " (follower)"),
    ]
    hostile.checkpoints = [
        Checkpoint(
            role="guide",
            index=1,
            progress=0.25,
            action_index=1,
            elapsed_s=5.0,
            team_goal=HOSTILE,
            partner_intent=HOSTILE,
            self_reasoning=HOSTILE,
        )
    ]
    other = tiny_session("s2", condition="not_visible")
    other.actions[3].content = HOSTILE
    return [hostile, other]


def _prediction_run(sessions) -> dict:
    rows = [
        {
            "session_id": s.id,
            "action_index": a.index,
            "role": a.role,
            "team_goal": "t3",
            "partner_intent": "p1",
            "self_reasoning": "r1",
            "rationale": HOSTILE,
            "question_type": HOSTILE,
        }
        for s in sessions
        for a in s.actions[1:]
        if a.mental_model is not None
    ]
    return {
        "hostile_run": {
            "info": {"name": HOSTILE, "setting": HOSTILE, "description": HOSTILE, "simulated": True},
            "mental_model": rows,
        }
    }


def write_hostile_dataset(dest: Path) -> Path:
    """The dataset: markup in its name and description, a session id, participant ids, messages,
    rationales, an "other" answer's own words, landmark names, checkpoint answers, session notes,
    coder names of its labels, and a prediction run's name, setting, rationales and extra field."""
    m = tiny_map()
    m.landmarks[HOSTILE] = Landmark(cells=[(8, 8)])
    m.follower_landmarks[HOSTILE] = Landmark(cells=[(8, 9)])
    sessions = _hostile_sessions()
    labels = [
        {
            "scheme": "grounding_acts",
            "session_id": s.id,
            "action_index": a.index,
            "coder": coder,
            "code": code,
            "partition": "validation",
        }
        for s in sessions
        for a in s.actions
        for coder, code in ((HOSTILE, "initiate"), ("b", "initiate" if a.index % 2 else "continue"))
    ]
    return write_dataset(
        dest,
        DatasetInfo(name=HOSTILE_NAME, description=HOSTILE, synthetic=True),
        [m],
        sessions,
        labels=labels,
        predictions=_prediction_run(sessions),
    )


def write_hostile_benchmark(dest: Path) -> Path:
    """A theory-of-mind benchmark (the first trial of the bundled synthetic one, with its runs'
    answers): markup in its name and description, every question, every option after its letter,
    what each distractor tests, the question type of one form of question (a slice: a leaderboard
    column), and the story's main character, scenario names and dialogue."""
    bench = load_benchmark(Path(__file__).resolve().parent.parent / "samples" / "dyntom-synthetic")
    group = bench.items["group"].iloc[0]
    items = bench.items[bench.items["group"] == group].copy()
    items["question"] = HOSTILE
    items["options"] = [[f"{opt.split('.', 1)[0]}. {HOSTILE}" for opt in options] for options in items["options"]]
    items["option_kinds"] = [[k if k == "true_answer" else HOSTILE for k in kinds] for kinds in items["option_kinds"]]
    items.loc[items["form"] == items["form"].iloc[0], "question_type"] = HOSTILE
    story = bench.contexts[group]
    scenarios = [
        {**sc, "scenario": HOSTILE, "dialogue": [[HOSTILE, HOSTILE] for _ in sc["dialogue"]]}
        for sc in story["scenarios"]
    ]
    runs = tuple(
        dataclasses.replace(r, answers=r.answers[r.answers["item_id"].isin(items["item_id"])]) for r in bench.runs
    )
    return write_benchmark_dataset(
        dest,
        dataclasses.replace(
            bench,
            name=HOSTILE_NAME,
            description=HOSTILE,
            items=items.reset_index(drop=True),
            contexts={group: {**story, "main_character": HOSTILE, "scenarios": scenarios}},
            runs=runs,
        ),
    )


def hostile_codebook() -> cbm.Codebook:
    codes = [
        {
            "code": code,
            "name": f"{HOSTILE} {i}",
            "key": str(i + 1),
            "definition": HOSTILE,
            "positive": [HOSTILE],
            "negative": [HOSTILE],
        }
        for i, code in enumerate(("initiate", "continue", "repair"))
    ]
    return cbm.parse(
        {"id": "grounding_acts", "name": HOSTILE, "version": "1.0", "description": HOSTILE, "codes": codes}
    )


def coding_round(store: Store, dataset: Path) -> tuple[User, User, int]:
    """A lead, a coder named with markup and a plain one, and a task (named with markup) on every
    action of the dataset: both coders label every item but one (the hostile session's second
    action, whose context is the hostile message), with notes; the lead sets gold with notes on
    the items both coders labelled. Returns (lead, coder, task id)."""
    corpus = load(dataset)
    lead = store.create_user("lead", LEAD_PASSWORD, "lead", display_name=HOSTILE[:128])
    coder = store.create_user(HOSTILE_USER, CODER_PASSWORD, "coder", display_name=HOSTILE[:128])
    plain = store.create_user("plain", CODER_PASSWORD, "coder")
    items = ac.assign_partitions(ac.sample_items(corpus.actions_df, len(corpus.actions_df), seed=1), 0, seed=1)
    task = store.create_task(
        lead,
        HOSTILE_NAME,
        corpus.info.name,
        hostile_codebook(),
        items,
        [coder, plain],
        seed=1,
        dataset_hash=corpus.content_hash,
    )
    left_open = f"{HOSTILE_ID}:1"
    for n, item in enumerate(store.items(task.id)["item_id"]):
        if item == left_open:
            continue
        store.add_label(coder, task.id, item, "initiate", note=HOSTILE)
        store.add_label(plain, task.id, item, ("initiate", "continue", "repair")[n % 3], note=HOSTILE)
        if n % 2:
            store.set_gold(lead, task.id, item, "initiate", note=HOSTILE)
    return lead, coder, task.id
