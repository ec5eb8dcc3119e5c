"""Request units read from a kitchen run's messages, by the rules R1-R4 of :mod:`analysis.kitchen.tgco`
(whose text states them): ``Collab(...)`` primitives (R1), ``request(...)`` calls of a plan or a say
(R2), plain language read by the rule set of :mod:`analysis.kitchen.language` (R3), and one unit
however often a turn writes it (R4).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from analysis.kitchen.language import ANY, PARTNER, Phrase, Reader, Vocabulary
from corpus.kitchen.run import ROLES, Turn
from corpus.values import Undefined

PRIMITIVES = ("request", "seek", "deny", "ack")
COLLAB, PLAN, SAY = "collab", "plan", "say"  # how a request unit was written (R1, R2, R3)


# -- reading a message ---------------------------------------------------------------------------

_QUOTES = "\"'"
_CALL = re.compile(r"([A-Za-z_]\w*)\s*\(")
_PARENS = re.compile(r"[()]")
_ACTION_PREFIX = re.compile(r"^action\s*:\s*", re.IGNORECASE)
_FENCE = re.compile(r"(\s*```)+\s*$")
_PUNCT_SPACE = re.compile(r"\s*([(),])\s*")
_SPACES = re.compile(r"\s+")
_SPECIAL = re.compile(r"[();,]")


def _outside_quotes(text: str) -> list[bool] | None:
    """Per character: True outside quoted text. A quote opens a string only at the start of a value
    (after "(", ",", ";" or the start, spaces aside), so the apostrophe of "I'll" opens nothing; a
    string opened by an escaped quote (``\\"``) closes at the next escaped quote, any other at the
    same quote not preceded by a backslash. None when a string is left open."""
    mask = [True] * len(text)
    if not any(q in text for q in _QUOTES):  # most actions: nothing quoted
        return mask
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        escaped = c == "\\" and i + 1 < n and text[i + 1] in _QUOTES
        if (c in _QUOTES or escaped) and text[:i].rstrip()[-1:] in ("", "(", ",", ";"):
            if escaped:
                end = text.find("\\" + text[i + 1], i + 2)
                if end < 0:
                    return None
                end += 1
            else:
                end = i + 1
                while end < n and text[end] != c:
                    end += 2 if text[end] == "\\" else 1
                if end >= n:
                    return None
            for k in range(i, end + 1):
                mask[k] = False
            i = end + 1
            continue
        i += 1
    return mask


def _split_top(text: str, sep: str) -> list[str] | None:
    """``text`` split at ``sep`` outside parentheses and quotes (parts stripped); None when the
    parentheses do not balance or a quote is left open."""
    mask = _outside_quotes(text)
    if mask is None:
        return None
    parts, depth, start = [], 0, 0
    for m in _SPECIAL.finditer(text):  # only the characters that matter, not every one
        i, c = m.start(), m.group()
        if not mask[i]:
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif c == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if depth != 0:
        return None
    parts.append(text[start:].strip())
    return parts


def _call(text: str) -> tuple[str, str] | None:
    """``name(inner)`` -> (name, inner) when the whole text is one call; else None."""
    text = text.strip()
    m = _CALL.match(text)
    if not m or not text.endswith(")"):
        return None
    mask = _outside_quotes(text)
    if mask is None:
        return None
    depth = 0
    for p in _PARENS.finditer(text, m.end() - 1):
        i = p.start()
        if not mask[i]:
            continue
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return (m.group(1), text[m.end() : i]) if i == len(text) - 1 else None
    return None


def _unquote(text: str) -> str:
    text = text.strip()
    for q in ('\\"', "\\'", '"', "'"):
        if len(text) >= 2 * len(q) and text.startswith(q) and text.endswith(q):
            return text[len(q) : -len(q)].strip()
    return text


def clean_message(text: str) -> str:
    """A message as sent, without a leading ``Action:``, the source's trailing code fence and the
    ``[NOTHING]`` of an agent that said nothing."""
    text = (text or "").strip()
    text = _ACTION_PREFIX.sub("", text)
    text = _FENCE.sub("", text).strip()
    return "" if text == "[NOTHING]" else text


def normalize_arg(arg: str) -> str:
    """An argument as compared: quotes dropped, case folded, spaces around parentheses and commas
    dropped, other runs of spaces one ``_`` ("Bell Pepper" -> "bell_pepper")."""
    a = _unquote(arg).lower()
    a = _PUNCT_SPACE.sub(r"\1", a)
    return _SPACES.sub("_", a.strip())


@dataclass(frozen=True)
class OpAction:
    """An operation action: a verb and its normalised arguments."""

    verb: str
    args: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        return f"{self.verb}({', '.join(self.args)})"

    def __str__(self) -> str:
        return self.text


@functools.lru_cache(maxsize=8192)  # a pure function of the text; runs repeat the same messages
def parse_op_action(text: str) -> OpAction | None:
    """``pickup( Bell_Pepper , ingredient_dispenser )`` -> OpAction("pickup", ("bell_pepper",
    "ingredient_dispenser")); None when the text is not ``verb(arguments)``."""
    call = _call(_unquote(clean_message(text)))
    if call is None:
        return None
    verb, inner = call
    if not inner.strip():
        return OpAction(verb.lower())
    args = _split_top(inner, ",")
    if args is None or any(not a for a in args):
        return None
    return OpAction(verb.lower(), tuple(normalize_arg(a) for a in args))


@dataclass(frozen=True)
class Primitive:
    """One primitive of a ``Collab(...)``: its name as written in lower case ("" when the part is
    not a call) and its top-level arguments as written."""

    name: str
    args: tuple[str, ...]
    text: str


@functools.lru_cache(maxsize=8192)  # a pure function of the text; runs repeat the same messages
def parse_collab(text: str) -> tuple[Primitive, ...] | None:
    """The primitives of a ``Collab(...)`` message, in order; None when the text is not one."""
    call = _call(clean_message(text).rstrip(" .;"))
    if call is None or call[0].lower() != "collab":
        return None
    parts = _split_top(call[1], ";")
    if parts is None:
        return None
    out = []
    for part in (p for p in parts if p):
        inner = _call(part)
        args = _split_top(inner[1], ",") if inner else None
        if inner is None or args is None:
            out.append(Primitive("", (), part))
        else:
            out.append(Primitive(inner[0].lower(), tuple(a for a in args if a), part))
    return tuple(out)


def agent_of(name: str) -> int | None:
    """The agent a receiver names: "Chef" 0, "Assistant" 1, "player 0" / "player_1" (case and
    spacing aside); None for anything else."""
    n = re.sub(r"[\s_]+", " ", _unquote(name).lower()).strip()
    roles = [r.lower() for r in ROLES]
    if n in roles:
        return roles.index(n)
    m = re.fullmatch(r"player ?(\d+)", n)
    return int(m.group(1)) if m else None


@dataclass(frozen=True)
class RequestUnit:
    """One ``request(receiver, op_action)`` of a message."""

    run_id: str
    turn: int  # index of the turn in run.turns
    index: int  # index among the message's request units
    step: int  # when the message was sent
    sender: int
    receiver: str  # as written; "" when the request names none
    target: int | Undefined  # the agent the receiver names
    action: OpAction | Undefined
    text: str  # the unit as written
    object: str = ""  # the thing asked about ("" when not named): pickup's first argument, or the sentence's
    location: str = ""  # the place the unit names ("" when none)
    shape: str = COLLAB  # how it was written: COLLAB, PLAN or SAY
    rule: str = ""  # the rules that read it (the module's R1-R4, and analysis.kitchen.language's L1-L12)

    @property
    def id(self) -> tuple[str, int, int]:
        return (self.run_id, self.turn, self.index)


@dataclass(frozen=True)
class Message:
    """A turn that said something or requested something: ``structured`` when a request unit or a
    Collab primitive was read from it (by any of R1-R4), else *unstructured*, kept with its text."""

    run_id: str
    turn: int
    step: int
    sender: int
    text: str
    structured: bool
    primitives: tuple[str, ...] = ()  # the names of its Collab primitives, in order
    units: tuple[RequestUnit, ...] = ()


def message_text(turn: Turn) -> str:
    """What a turn said: its ``say``, or a ``Collab(...)`` in its ``action`` when ``say`` is empty
    or not a Collab while the action is; "" when the turn said nothing (a physical action)."""
    say, action = clean_message(turn.say), clean_message(turn.action)
    if say and parse_collab(say) is not None:
        return say
    if action.lower().startswith("collab") and (not say or parse_collab(action) is not None):
        return action
    return say


_PLAN_HEAD = re.compile(r"^\s*(?:\w+\s+)?plan\s*:\s*", re.IGNORECASE)


def _split_plan(text: str) -> list[str] | None:
    """A plan's calls, split at the ``;`` outside parentheses (quotes in a plan only wrap a request's
    argument, and a request's text may hold an apostrophe); None when the parentheses do not balance."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                return None
        elif c == ";" and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    if depth != 0:
        return None
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def plan_requests(goal: str) -> tuple[Primitive, ...]:
    """R2: the ``request(...)`` calls of a plan (``Chef plan: request('pickup(egg,
    ingredient_dispenser)'); wait(1)``), each a primitive with its one argument, the op-action
    (quoted or not); () when the text is not a plan of calls (a CookPandar log's free-text goal)."""
    text = _PLAN_HEAD.sub("", (goal or "").strip()).replace("\n", " ")
    if "request" not in text.lower():
        return ()
    parts = _split_plan(text)
    if parts is None:
        return ()
    out = []
    for part in parts:
        m = re.match(r"^request\s*\((.*)\)\s*$", part, flags=re.IGNORECASE | re.DOTALL)
        if m:
            out.append(Primitive("request", (m.group(1).strip(),), part))
    return tuple(out)


def say_requests(text: str) -> tuple[tuple[Primitive, ...], str]:
    """R2 in a say: the ``request(...)`` calls a message writes among its ``;``-separated parts
    ("request('wait(3)'); Please wait while the egg cooks"), and the rest of its text."""
    if "request" not in text.lower():
        return (), text
    parts = _split_plan(text)
    if parts is None:
        return (), text
    calls, rest = [], []
    for part in parts:
        m = re.match(r"^request\s*\((.*)\)\s*$", part, flags=re.IGNORECASE | re.DOTALL)
        if m:
            calls.append(Primitive("request", (m.group(1).strip(),), part))
        else:
            rest.append(part)
    return tuple(calls), "; ".join(rest)


def _unit(run_id: str, turn_index: int, index: int, turn: Turn, prim: Primitive) -> RequestUnit:
    receiver, op = ("", prim.args[0]) if len(prim.args) == 1 else (prim.args + ("", ""))[:2]
    target: int | Undefined
    if not receiver:
        target = Undefined("the request names no receiver")
    else:
        who = agent_of(receiver)
        target = who if who is not None else Undefined(f"{receiver!r} is not an agent of the run")
    action: OpAction | Undefined
    parsed = parse_op_action(op) if op else None
    if len(prim.args) > 2:
        action = Undefined(f"the request has {len(prim.args)} arguments, not (receiver, op_action)")
    elif parsed is None:
        action = Undefined(f"{op or prim.text!r} is not an operation action verb(arguments)")
    else:
        action = parsed
    obj = _object_of(action)
    return RequestUnit(
        run_id,
        turn_index,
        index,
        turn.step,
        turn.agent,
        receiver,
        target,
        action,
        prim.text,
        obj,
        _place_of(action),
        COLLAB,
        "R1",
    )


def _object_of(action: OpAction | Undefined) -> str:
    """The object an op-action names: pickup's first argument ("" for the others)."""
    if isinstance(action, OpAction) and action.verb == "pickup" and action.args and action.args[0] != ANY:
        return action.args[0]
    return ""


def _place_of(action: OpAction | Undefined) -> str:
    """The place an op-action names: pickup's second argument, a utensil action's utensil."""
    if not isinstance(action, OpAction) or not action.args:
        return ""
    place = action.args[1] if action.verb == "pickup" and len(action.args) > 1 else action.args[-1]
    return "" if place == ANY else place


def _partner(sender: int) -> int | Undefined:
    return 1 - sender if sender in (0, 1) else Undefined(f"agent {sender} has no single partner")


def _plan_unit(run_id: str, turn_index: int, index: int, turn: Turn, prim: Primitive) -> RequestUnit:
    """R2: a plan's request: the benchmark's ``request(operation_action)`` skill appends the action to
    the teammate's plan, so its target is the sender's partner."""
    op = _unquote(prim.args[0]) if prim.args else ""
    parsed = parse_op_action(op) if op else None
    action: OpAction | Undefined = (
        parsed if parsed is not None else Undefined(f"{op or prim.text!r} is not an operation action verb(arguments)")
    )
    return RequestUnit(
        run_id,
        turn_index,
        index,
        turn.step,
        turn.agent,
        "",
        _partner(turn.agent),
        action,
        prim.text,
        _object_of(action),
        _place_of(action),
        PLAN,
        "R2",
    )


def _say_unit(run_id: str, turn_index: int, index: int, turn: Turn, phrase: Phrase) -> RequestUnit:
    """R3: a request read from plain language (:mod:`analysis.kitchen.language`)."""
    if phrase.target == PARTNER:
        target = _partner(turn.agent)
    else:
        who = agent_of(phrase.target)
        target = who if who is not None else Undefined(f"{phrase.target!r} is not an agent of the run")
    return RequestUnit(
        run_id,
        turn_index,
        index,
        turn.step,
        turn.agent,
        phrase.target,
        target,
        OpAction(phrase.verb, phrase.args),
        phrase.clause,
        phrase.object,
        phrase.location,
        SAY,
        "R3:" + phrase.rules,
    )


def _covers(unit: RequestUnit, other: RequestUnit) -> bool:
    """R4: whether ``unit`` (structured) asks for what ``other`` (read from the same turn's say)
    asks: the same verb, arguments that agree where both are named, the same target."""
    a, b = unit.action, other.action
    if not isinstance(a, OpAction) or not isinstance(b, OpAction) or a.verb != b.verb or len(a.args) != len(b.args):
        return False
    if unit.target != other.target:
        return False
    return all(x == y or ANY in (x, y) or place_kind(x) == y or place_kind(y) == x for x, y in zip(a.args, b.args))


def place_kind(place: str) -> str:
    """A place's kind, its name without a trailing number (``pot1``: ``pot``)."""
    return re.sub(r"\d+$", "", place)


def _structured_units(
    run_id: str, turn_index: int, turn: Turn, known: list[Primitive], said: str
) -> tuple[list[RequestUnit], str]:
    """R1 and R2: the units of a turn's ``Collab`` requests, of its plan's and its say's ``request(...)``
    calls; with the rest of the say, to be read as plain language."""
    units: list[RequestUnit] = []
    for p in (p for p in known if p.name == "request"):  # R1
        units.append(_unit(run_id, turn_index, len(units), turn, p))
    for p in plan_requests(turn.goal):  # R2
        units.append(_plan_unit(run_id, turn_index, len(units), turn, p))
    if said:  # R2 in a say that is not a Collab(...): its request(...) calls; R3: the rest of it
        calls, said = say_requests(said)
        for p in calls:
            units.append(_plan_unit(run_id, turn_index, len(units), turn, p))
    return units, said


def _add_said(units: list[RequestUnit], run_id: str, turn_index: int, turn: Turn, phrases: Iterable[Phrase]) -> None:
    """R3 and R4: each unit plain language asks for added to ``units``, or, when a structured unit of
    the turn asks the same, that unit with the object the say names."""
    for phrase in phrases:
        unit = _say_unit(run_id, turn_index, len(units), turn, phrase)
        same = next((k for k, u in enumerate(units) if _covers(u, unit)), None)
        if same is None:
            units.append(unit)
        elif not units[same].object and unit.object:  # R4: one unit, with the object the say names
            units[same] = replace(units[same], object=unit.object, rule=units[same].rule + "+R4")


def read_message(run_id: str, turn_index: int, turn: Turn, reader: Reader | None = None) -> Message | None:
    """The message of one turn, with its request units (R1-R4); None when the turn neither said nor
    requested anything. ``reader`` reads plain language with the run's vocabulary (without one, with
    no vocabulary: objects are then not recognised)."""
    text = message_text(turn)
    prims = parse_collab(text) if text else None
    known = [p for p in prims or () if p.name in PRIMITIVES]
    units, said = _structured_units(run_id, turn_index, turn, known, text if prims is None else "")
    if said:
        _add_said(units, run_id, turn_index, turn, (reader or Reader(Vocabulary(()))).read(said))
    if not text and not units:
        return None
    shown = text or "; ".join(p.text for p in plan_requests(turn.goal))
    return Message(
        run_id,
        turn_index,
        turn.step,
        turn.agent,
        shown,
        bool(known) or bool(units),
        tuple(p.name for p in prims or ()) if known else (),
        tuple(units),
    )


def pickups(actions: Iterable[OpAction | None]) -> tuple[str, ...]:
    """The objects the ``pickup`` actions among ``actions`` pick up (None: a text that is no action)."""
    return tuple(a.args[0] for a in actions if a is not None and a.verb == "pickup" and a.args)


def plan_pickups(goal: str) -> tuple[str, ...]:
    """The objects a turn's plan picks up, in its ``request(...)`` calls and in its own calls."""
    requested = (parse_op_action(_unquote(p.args[0])) for p in plan_requests(goal) if p.args)
    own = (parse_op_action(part) for part in _split_plan(_PLAN_HEAD.sub("", goal or "").replace("\n", " ")) or ())
    return pickups((*requested, *own))


__all__ = [
    "PRIMITIVES",
    "COLLAB",
    "PLAN",
    "SAY",
    "OpAction",
    "Primitive",
    "RequestUnit",
    "Message",
    "clean_message",
    "normalize_arg",
    "parse_op_action",
    "parse_collab",
    "agent_of",
    "message_text",
    "plan_requests",
    "say_requests",
    "place_kind",
    "read_message",
    "pickups",
    "plan_pickups",
]
