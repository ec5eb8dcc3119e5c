"""The coding keypad: a custom component (``assets/keypad.*``) that owns the codes, the note, the
unsure flag and every key of the coding screen in the browser.

A code's key (or a click on it) sends one event, ``{item, code, note, unsure, request_id}``: the
note and the flag as they were when the key was pressed, so a label is saved together with its
note and never with text typed after its key (that text stays in the note field for the item
shown next). :func:`receive_label` writes it to the store at once, under the browser's request id,
so an event delivered twice writes one label, and answers with the request id (``ack``) and
whether the label was saved: until that answer comes, the keypad keeps what is typed for the item
shown next, and sends a code's key pressed meanwhile for that item once it shows. Keys typed into
the note stay there; Enter or Esc gives the keys back to the codes; one key (shown on screen, never
a code's key) opens the note.

A label the database did not take in time (the store waits out contention first) is answered
"not saved", saying why; the keypad puts its note and flag back, and the session keeps the label:
the same label sent again (the code pressed again with the same note and flag) goes under the
first one's request id, so a try that did reach the database is saved once, never twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from functools import cache, partial
from pathlib import Path

import pandas as pd
import streamlit as st

from corpus.codebook import Codebook
from corpus.limits import NOTE_CHARS
from corpus.store import Task, User
from services.coding import give_label

ASSETS = Path(__file__).parent / "assets"
# The key that opens the note and the key that flips "unsure": the first of these no code uses.
NOTE_KEYS = ("n", "/", ".", "`")
UNSURE_KEYS = ("?", "!", "*", "+")
HANDLED_KEPT = 200  # request ids remembered per session (a repeated event is ignored)


@cache
def _asset(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


_mount_keypad = st.components.v2.component(
    "groundwork_coding_keypad",
    html=_asset("keypad.html"),
    css=_asset("keypad.css"),
    js=_asset("keypad.js"),
    isolate_styles=True,
)


def k(task_id: int, name: str) -> str:
    """A session-state key of the coding screen of one task."""
    return f"code_{name}_{task_id}"


def command_keys(codebook: Codebook) -> tuple[str | None, str | None]:
    """(the key that opens the note, the key that flips "unsure"): the first of :data:`NOTE_KEYS`
    and :data:`UNSURE_KEYS` that is no code's key (letters compared without case)."""
    taken = {c.key.lower() for c in codebook.codes}
    free = lambda keys: next((key for key in keys if key not in taken), None)  # noqa: E731
    return free(NOTE_KEYS), free(UNSURE_KEYS)


@dataclass(frozen=True)
class LabelEvent:
    item: str
    code: str
    note: str
    unsure: bool
    request_id: str


def label_event(raw: object, codebook: Codebook, items: list[str]) -> LabelEvent:
    """The keypad's event checked field by field; ValueError names the field that is wrong."""
    if not isinstance(raw, dict):
        raise ValueError("the keypad sent no label")
    request_id, item, code = raw.get("request_id"), raw.get("item"), raw.get("code")
    note, unsure = raw.get("note", ""), raw.get("unsure", False)
    if not isinstance(request_id, str) or not 0 < len(request_id) <= 64:
        raise ValueError("request id: missing or longer than 64 characters")
    if item not in items:
        raise ValueError(f"item: '{item}' is not an item of this task")
    if code not in codebook.code_ids:
        raise ValueError(f"code: '{code}' is not in codebook {codebook.id} v{codebook.version}")
    if not isinstance(note, str):
        raise ValueError("note: not text")
    if not isinstance(unsure, bool):
        raise ValueError("unsure: not true or false")
    return LabelEvent(item, code, note.strip(), unsure, request_id)


def receive_label(user: User, task: Task, order: list[str], key: str) -> None:
    """The keypad's callback: write the label it sent (once per request id), then move on."""
    s = st.session_state
    raw = (s.get(key) or {}).get("label")
    try:
        event = label_event(raw, task.codebook, order)
    except ValueError as exc:
        s[k(task.id, "status")] = {"kind": "error", "text": f"Not saved: {exc}.", "ack": None, "saved": False}
        return
    handled = s.setdefault(k(task.id, "handled"), [])
    if event.request_id in handled:
        return
    handled.append(event.request_id)
    del handled[:-HANDLED_KEPT]
    shown_item, shown_at = s.get(k(task.id, "shown"), (None, None))
    seconds = round(time.time() - shown_at, 2) if shown_item == event.item and shown_at else None
    pos = order.index(event.item)
    # The label of a save the database did not take, sent again: under that save's request id.
    kept: LabelEvent | None = s.get(k(task.id, "unsaved"))
    again = kept if kept is not None and replace(kept, request_id=event.request_id) == event else None
    request_id = again.request_id if again is not None else event.request_id
    outcome = give_label(
        user,
        task.id,
        event.item,
        event.code,
        note=event.note,
        unsure=event.unsure,
        seconds=seconds,
        request_id=request_id,
    )
    code = task.codebook.by_code(event.code)
    if not outcome.saved:
        if outcome.retry:
            s[k(task.id, "unsaved")] = replace(event, request_id=request_id)
            text = (
                f"{outcome.problem[:1].upper()}{outcome.problem[1:]}. Press {code.key} ({code.name}) on item "
                f"{pos + 1} to try again: its note and flag are kept."
            )
        else:
            text = f"Not saved: {outcome.problem}."
        s[k(task.id, "status")] = {"kind": "error", "text": text, "ack": event.request_id, "saved": False}
        return
    if again is not None:
        s.pop(k(task.id, "unsaved"), None)
    name = code.name
    s[k(task.id, "status")] = {
        "kind": "success",
        "text": f"Saved {name} for item {pos + 1}.",
        "ack": event.request_id,
        "saved": True,
    }
    s[k(task.id, "focus")] = event.code
    still_there = s.get(k(task.id, "pos"), pos) == pos  # the coder has not moved on meanwhile
    if s.get("code_autoadvance", True) and still_there and pos + 1 < len(order):
        s[k(task.id, "pos")] = pos + 1


def _code_row(c) -> dict:
    return {
        "code": c.code,
        "name": c.name,
        "key": c.key,
        "definition": c.definition,
        "positive": list(c.positive),
        "negative": list(c.negative),
        "requires_note": c.requires_note,
    }


def keypad_data(
    task: Task,
    item: str,
    current: pd.Series | None,
    enabled: bool,
    disabled_reason: str,
    status: dict | None,
    focus: str | None,
) -> dict:
    """What the keypad receives for one item (``current``: this coder's label of it, if any;
    ``status``: the message to show, and ``ack`` and ``saved``, the answer to the keypad's last
    label, which may come without a message)."""
    cb = task.codebook
    note_key, unsure_key = command_keys(cb)
    needs = [c.name for c in cb.codes if c.requires_note]
    cur = None
    if current is not None:
        code = str(current["code"])
        cur = {
            "code": code,
            "name": cb.by_code(code).name if code in cb.code_ids else code,
            "note": str(current["note"] or ""),
            "unsure": bool(current["unsure"]),
        }
    return {
        "item": item,
        "codes": [_code_row(c) for c in cb.codes],
        "current": cur,
        "enabled": enabled,
        "disabled_reason": disabled_reason,
        "note_key": note_key,
        "unsure_key": unsure_key,
        "note_label": "Note" + (f" · needed for {', '.join(needs)}" if needs else " (optional)"),
        "note_max": NOTE_CHARS,
        "status": {"kind": status["kind"], "text": status["text"]} if status and status["text"] else None,
        "ack": status.get("ack") if status else None,
        "saved": bool(status.get("saved")) if status else False,
        "focus": focus,
    }


def keypad(user: User, task: Task, order: list[str], data: dict) -> None:
    """The keypad of the item in ``data``; a label it sends is saved by :func:`receive_label`."""
    key = k(task.id, "keypad")
    _mount_keypad(
        data=data,
        key=key,
        on_label_change=partial(receive_label, user, task, order, key),
        width="stretch",
        height="content",
    )
