"""The benchmark's prompts, as the ALMANAC paper's Appendix H lays them out, filled from an instance.

The four templates (next action and mental model, for the Follower and the Guide) are the appendix's
text, in ``analysis/compare/appendix_h/`` (its page breaks joined; where the appendix says "the map
image", they say "the map, given below as JSON text": no image is sent); :func:`prompt` fills their
placeholders from an instance of :mod:`analysis.compare.instances`:

- ``PARTICIPANT_ROLE``, ``PARTICIPANT_NAME``: the actor's role and participant id;
- ``{COLLABORATION_PROFILE}``: the persona, demographics and the 14 TeamQ answers with their
  wording (Table 7) and scale ("not recorded" where the dataset has none);
- ``{CURRENT_MAP}``: the actor's own map as JSON (the Guide's with the route; the Follower's without
  it, with its misplaced landmark), and the Follower's drawing where the actor sees it;
- ``{INTERACTION_HISTORY}``: every action before the item, one line each (time, role, what was said
  or drawn); in the ``mental_model`` setting the actor's own earlier mental models follow their
  actions, as the +Mental Model rows of Tables 9 and 10 give them;
- ``{CURRENT_ACTION}`` (mental-model prediction): the action whose mental model is asked for.

:func:`prompt_records` gives one JSON object per instance: its ids, the prompt, and the answer
fields a prediction line carries back (the predictions file of docs/data-format.md), so a lab can
send the prompts to any model and bring the answers back to Compare; a reply written as the prompt
asks (its ``action_content``) reads back as the line's ``content``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from analysis.compare.instances import iter_instances
from corpus import schema
from corpus.loading.dataset import Corpus

TEMPLATES = Path(__file__).parent / "appendix_h"
_PLACEHOLDER = re.compile(r"PARTICIPANT_ROLE|PARTICIPANT_NAME|\{[A-Z_]+\}")
# The sections of a prompt, in the appendix's order (a template's headings are these, in order).
SECTIONS = {
    "next_action": (
        "<Task Description>",
        "<Role Description>",
        "<Game Rules>",
        "<Participant context>",
        "<Action Space>",
        "<Map Interpretation>",
        "<Current Map>",
        "<Response Format>",
        "<Instructions for aligning with human behaviors>",
        "<Interaction History>",
    ),
    "mental_model": (
        "<Task Description>",
        "<Role Description>",
        "<Game Rules>",
        "<Participant context>",
        "<Mental Model Annotation Task>",
        "<Map Interpretation>",
        "<Current Map>",
        "<Current {role} action (you are simulating the mental model behind this action)>",
        "<Response Format>",
        "<Instructions for aligning with human behaviors>",
        "<Interaction History>",
    ),
}


@cache
def template(task: str, role: str) -> str:
    """The appendix's template for ``task`` (next_action, mental_model) and ``role`` (guide, follower)."""
    if task not in SECTIONS or role not in schema.ROLES:
        raise ValueError(f"no prompt for task {task!r} and role {role!r}")
    return (TEMPLATES / f"{task}_{role}.txt").read_text(encoding="utf-8")


def _time(seconds: float) -> str:
    m, s = divmod(int(round(float(seconds))), 60)
    return f"{m:02d}:{s:02d}"


def describe_action(a: dict[str, Any]) -> str:
    """One action as a history line: time, role, and the message as typed or the cells drawn."""
    head = f"[{_time(a['timestamp'])}] {a['role']} {a['type']}"
    content = a.get("content")
    if a["type"] == "message":
        return f"{head}: {json.dumps(content, ensure_ascii=False)}"
    if isinstance(content, list) and content:
        return f"{head}: {json.dumps(content)}"
    return head


def _mental_model_line(mm: dict[str, Any]) -> str:
    parts = [f"{d}: {mm[d]['text']}" for d in schema.DIMENSIONS if isinstance(mm.get(d), dict)]
    if mm.get("rationale"):
        parts.append(f"rationale: {json.dumps(mm['rationale'], ensure_ascii=False)}")
    return "    (my mental model then: " + "; ".join(parts) + ")"


def profile(participant: dict[str, Any]) -> str:
    """The persona as the prompt's collaboration profile."""
    p = participant.get("persona") or {}
    demo = ", ".join(f"{k.replace('_', ' ')}: {p[k]}" for k in ("gender", "age_group", "education") if p.get(k))
    lines = [f"Demographics: {demo or 'not recorded'}."]
    teamq = p.get("teamq")
    if teamq:
        scale = ", ".join(f"{k} = {v}" for k, v in schema.TEAMQ_SCALE.items())
        lines.append(f"Collaboration profile (TeamQ; how often the participant does this, {scale}):")
        lines += [
            f"- {area}: {text} {v} ({schema.TEAMQ_SCALE[v]})" for (area, text), v in zip(schema.TEAMQ_ITEMS, teamq)
        ]
    else:
        lines.append("Collaboration profile (TeamQ): not recorded.")
    return "\n".join(lines)


def current_map(inst: dict[str, Any]) -> str:
    text = json.dumps(inst["map"], ensure_ascii=False)
    canvas = inst.get("canvas")
    if canvas is None:
        return text + "\n\nThe follower's drawing: not visible to you."
    return text + f"\n\nThe follower's drawing now ([row, col] cells): {json.dumps(canvas)}"


def history(inst: dict[str, Any]) -> str:
    """The actions before the item, one line each; with the actor's earlier mental models in the
    ``mental_model`` setting."""
    own = {m["action_index"]: m for m in inst.get("mental_model_history") or []}
    lines = []
    for a in inst["history"]:
        lines.append(describe_action(a))
        if a["index"] in own:
            lines.append(_mental_model_line(own[a["index"]]))
    return "\n".join(lines) if lines else "(no action yet: this is the first action of the session)"


def prompt(inst: dict[str, Any]) -> str:
    """The instance's prompt: the appendix's template for its task and role, filled."""
    role = inst["role"]
    text = template(inst["task"], role)
    fills = {
        "PARTICIPANT_ROLE": role,
        "PARTICIPANT_NAME": str(inst["participant"].get("id", "")),
        "{COLLABORATION_PROFILE}": profile(inst["participant"]),
        "{CURRENT_MAP}": current_map(inst),
        "{INTERACTION_HISTORY}": history(inst),
    }
    if inst["task"] == "mental_model":
        fills["{CURRENT_ACTION}"] = describe_action(inst["current_action"])
    # One pass over the template: text from the data is never read again as a placeholder.
    return _PLACEHOLDER.sub(lambda m: fills.get(m.group(0), m.group(0)), text)


def prompt_records(corpus: Corpus, task: str, split: str = "test", setting: str = "base") -> Iterator[dict[str, Any]]:
    """One record per instance: its ids, its prompt, and the answer its prediction line carries."""
    for inst in iter_instances(corpus, task, split, setting):
        yield {
            "id": inst["id"],
            "task": task,
            "setting": setting,
            "session_id": inst["session_id"],
            "action_index": inst["action_index"],
            "role": inst["role"],
            "prompt": prompt(inst),
            "answer": inst["answer"],
        }


def prompts_jsonl(corpus: Corpus, task: str, split: str = "test", setting: str = "base") -> str:
    return "".join(
        json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n"
        for r in prompt_records(corpus, task, split, setting)
    )
