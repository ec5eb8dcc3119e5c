"""Requests written in plain language: the rule set that reads a kitchen agent's ``say`` into request
units (action, object, location, target), with the kitchen's own vocabulary.

Collab-Overcooked's agents are asked to write a request for their partner as ``request('op')`` in
their plan and to tell the partner in ``say`` what to do; most runs (the benchmark's own, the TGCO
paper's) say it in plain English: "Please pick up an egg from the ingredient dispenser and place it
on the counter for me." This module reads such a message with the rules below, in this order. Each
rule has an example sentence taken from the real runs (the TGCO paper's repository,
shekharashishraj/Collab-Overcooked) and a test sentence of its own (``tests/test_tgco_language.py``).
A message none of whose clauses is read stays *unstructured* (:mod:`analysis.kitchen.tgco` counts and lists
it, with its text, for a person to code).

**L1 Sentences and clauses.** The message is cut into sentences (at ``.``, ``!``, ``?``, ``;``,
``:``, a line break or a numbered step ``1)``), and each sentence into clauses at a comma, "and", "then",
"or" or "and then", but only where what follows starts a new verb phrase (a verb of L8, a pronoun
subject, a directive of L2-L4, a subordinating word of L7): "Please pick up the potato from the
counter, put it on the chopping board, and cut it into slices." is three clauses; "the bell pepper
and corn" stays one. ``[END]`` and ``[NOTHING]`` are dropped; the run's multi-word names are read as
one word ("bell pepper" is ``bell_pepper``).

**L2 Please.** A clause that starts with "please" (or "kindly"), after fillers ("now", "then",
"also", "great!", an address "Chef,"), asks the partner: "Please place the egg on the counter so I
can start cooking it."

**L3 A question to the partner.** "can / could / would / will you (please) VERB" asks the partner:
"Could you please pick up a potato from the ingredient dispenser so we can start cutting it into
slices?"; so does "should you VERB" (a proposal): "Should you pick it up and serve it directly?".

**L4 The partner's task stated.** "you should / need to / must / have to / can / could / will
need to VERB", "I need you to VERB", "I'd like you to VERB", "make sure to VERB", "go ahead and
VERB", "proceed to / with VERB" ask the partner: "You should deliver the boiled_egg you're holding
instead of soup."; "Please go ahead and cut the potato into slices on the chopping board."; "Please
proceed with picking up the potato slices from the counter". "start", "begin", "keep", "prepare
to", "be ready to" before a verb ask nothing by themselves: the clause's subject decides ("Please
start baking" asks; "I'll ... and start cutting it" does not).

**L5 Imperative.** A sentence whose first clause starts with a verb of L8 asks the partner: "Pick up
the chopped onion from pot0." (L2-L5 are the *directives*.)

**L6 Coordination.** A clause that starts with a verb continues the clause before it in its sentence
and shares its subject: it is a request when that one is ("Please pick up an egg ... and place it
on the counter" gives two), and not when that one is the speaker's own plan ("I'll pick up the
potato slices and put them in the oven" gives none).

**L7 Not a request.** A clause about the speaker ("I'll", "I'm", "we", "let's", "let me"), a
subordinate clause ("once", "after", "when", "if", "before", "until", "while", "as soon as", "so",
"because", "since"), a negated one ("don't", "do not", "stop", "no need to", "never") and a question
about the speaker ("should I", "shall I", "do you want me to", "can I") ask nothing of the partner:
"After you place it on the counter, please cut it into slices" asks for the cut only; "Please don't
get more pumpkin from the ingredient dispenser" asks for nothing.

**L8 The action.** The clause's first verb after its directive, in the benchmark's operation
actions (its prompts' skills): "pick up", "get", "grab", "take", "fetch", "collect", "retrieve",
"remove" -> ``pickup(object, place)``; "place", "put", "leave", "set", "drop", "move", "transfer",
"load", "add", "bring", "return" -> ``place_obj_on_counter()`` when the destination is the counter,
``put_obj_in_utensil(utensil)`` when it is a utensil (a pot, oven, chopping board or blender);
"pass", "hand", "give" -> ``place_obj_on_counter()`` ("Players can only pass items by placing them
on the counter", the benchmark's rules); "fill" -> ``fill_dish_with_food(utensil)``; "cook", "boil"
-> ``cook(pot)``; "bake" -> ``bake(oven)``; "cut", "slice", "chop", "dice" -> ``cut(chopping_board)``;
"stir", "blend", "mash", "mix" -> ``stir(blender)``; "deliver", "serve" -> ``deliver_soup()``; each
also as "-ing" ("proceed with picking up", "start baking"). "Please pick up the egg from the counter." is
``pickup(egg, counter)``. A verb outside these (confirm, clarify, let me know, help) asks for no
operation, and waiting is not read as a request: it names no object (Appendix C's unit is
u = (o, a, j)), so "Please wait for 3 timesteps while the egg cooks." is unstructured. A placing
verb with no destination is not read.

**L9 The object.** The longest name of the run's vocabulary in the clause (the recipe, its
ingredients, every object the run's actions and structured requests name, and ``dish``; plurals
and spaces allowed: "potato slices" is ``potato_slices``). "it", "them", "this", "that", "these",
"those" or "one" name the last object the message named before ("Please pick up an egg ... and
place it on the counter": ``egg``); a bare form word ("the slices", "the soup") names the
vocabulary's name of that form made of the last object ("potato" then "the slices":
``potato_slices``). None: the object is not named, and any object matches it; but a pickup that
names no object is not read (a unit names its object: Appendix C's u = (o, a, j)).

**L10 The place.** The kitchen's places named in the clause ("ingredient dispenser", "dish
dispenser", "counter", "pot", "oven", "chopping board", "blender", or a numbered one, "pot0"): the
place after "from", "off" or "out of" for a pickup (else the first named), the one after "in",
"into", "on", "onto" or "to" for a placing verb. A utensil named by its kind is the kitchen's one
utensil of that kind ("the chopping board" is ``chopping_board0`` in a kitchen with one), else its
kind, which matches any utensil of the kind; a cooking verb with no utensil named takes the kitchen's
one utensil of its kind the same way. A place not named is not known, and any place matches it
("Please pick up the potato slices" is ``pickup(potato_slices, ?)``).

**L11 The target.** The partner (a kitchen has two agents); a sentence that opens by addressing a
role ("Chef, ...", "Assistant, ...") targets that role, so a request addressed to its own sender is
told apart (and found ineffective).

**L12 Once per message.** The same action with the same arguments asked twice in one message is
one request unit.

The rules read English as the runs write it; they are not a parser of English, and what they miss
stays unstructured and listed, not guessed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

ANY = "?"  # an argument the sentence does not name: matches any
PARTNER = ""  # the target of a request that names none: the sender's partner

# L8: the surface verbs of each action (base forms; "-ing" forms are derived).
PICKUP_VERBS = ("pick up", "pickup", "pick-up", "get", "grab", "take", "fetch", "collect", "retrieve", "remove")
PLACING_VERBS = ("place", "put", "leave", "set", "drop", "move", "transfer", "load", "add", "bring", "return")
HANDING_VERBS = ("pass", "hand", "give")
PROCESS_VERBS = {
    "fill": "fill_dish_with_food",
    "cook": "cook",
    "boil": "cook",
    "bake": "bake",
    "cut": "cut",
    "slice": "cut",
    "chop": "cut",
    "dice": "cut",
    "stir": "stir",
    "blend": "stir",
    "mash": "stir",
    "mix": "stir",
    "deliver": "deliver_soup",
    "serve": "deliver_soup",
}
UTENSIL_OF = {"cook": "pot", "bake": "oven", "cut": "chopping_board", "stir": "blender"}
UTENSIL_KINDS = ("pot", "oven", "chopping_board", "blender")
FORM_WORDS = ("slices", "slice", "soup", "stew", "patty")
PRONOUNS = ("it", "them", "this", "that", "these", "those", "one")

_ING = {
    "pick up": "picking up",
    "pickup": "picking up",
    "pick-up": "picking up",
    "get": "getting",
    "put": "putting",
    "set": "setting",
    "cut": "cutting",
    "drop": "dropping",
    "chop": "chopping",
}


def _ing(verb: str) -> str:
    if verb in _ING:
        return _ING[verb]
    if verb.endswith("e") and not verb.endswith("ee"):
        return verb[:-1] + "ing"
    return verb + "ing"


_ALL_VERBS = (*PICKUP_VERBS, *PLACING_VERBS, *HANDING_VERBS, *PROCESS_VERBS, "wait")
_VERB_FORMS: dict[str, str] = {}  # surface form -> base verb
for _v in _ALL_VERBS:
    _VERB_FORMS[_v] = _v
    _VERB_FORMS[_ing(_v)] = _v
_VERB_RE = "|".join(sorted((re.escape(f) for f in _VERB_FORMS), key=len, reverse=True))
_VERB_AT = re.compile(rf"^(?:{_VERB_RE})\b")
_PICK_SPLIT = re.compile(r"^(pick|picking)\s+(?:it|them|this|that|these|those|one|the\s+\w+|an?\s+\w+)\s+up\b")

# L2-L4: directives, each ending where the verb starts.
_DIRECTIVES = [
    ("L2", r"(?:please|kindly)\b"),
    ("L3", r"(?:can|could|would|will)\s+you(?:\s+please)?\b"),
    ("L3", r"should\s+you\b"),
    (
        "L4",
        r"you(?:'ll|\s+will)?\s+(?:should|need\s+to|must|have\s+to|can|could|may\s+want\s+to|will\s+need\s+to)\b",
    ),
    ("L4", r"you'll\s+need\s+to\b"),
    ("L4", r"i(?:'d|\s+would)\s+like\s+you\s+to\b"),
    ("L4", r"i(?:'ll|\s+will)?\s+need\s+you\s+to\b"),
    ("L4", r"make\s+sure\s+(?:to|you)\b"),
    ("L4", r"go\s+ahead\s+and\b"),
    ("L4", r"proceed\s+(?:to|with)\b"),
]
# Words before a verb that say nothing of who is asked ("start cutting", "be ready to take"): the
# clause's subject decides (L2-L7).
_NEUTRAL = re.compile(
    r"^(?:start|begin|continue|keep|try\s+to|remember\s+to|prepare\s+to|get\s+ready\s+to|be\s+ready\s+to)\s+"
)
_DIRECTIVE_RES = [(rule, re.compile(rf"^{pattern}\s*")) for rule, pattern in _DIRECTIVES]
# L7: what asks nothing of the partner.
_SELF = re.compile(
    r"^(?:i|i'll|i'm|i've|i'd|i\s+will|i\s+am|we|we'll|we're|we've|we\s+will|let's|let\s+us|let\s+me|my|our)\b"
)
_SUBORDINATE = re.compile(
    r"^(?:once|after|when|whenever|if|before|until|till|while|as\s+soon\s+as|as\s+long\s+as|"
    r"so(?:\s+that)?\s+(?:i|we|you|it|they|the)|because|since|though|although|which|who|where|than|to)\b"
)
_NEGATED = re.compile(r"^(?:don't|do\s+not|dont|stop|no\s+need\s+to|never|avoid|please\s+(?:don't|do\s+not))\b")
_SELF_QUESTION = re.compile(
    r"^(?:should\s+i|shall\s+i|can\s+i|could\s+i|may\s+i|do\s+you\s+want\s+me\s+to|would\s+you\s+like\s+me\s+to|"
    r"what\s+should|what\s+do|how\s+should|do\s+we|should\s+we|is\s+there|are\s+there|do\s+you\s+need\s+me)\b"
)
_FILLERS = re.compile(
    r"^(?:and|then|now|also|first|firstly|next|just|finally|again|immediately|quickly|right\s+away|"
    r"after\s+that|afterwards|meanwhile|in\s+the\s+meantime|great|good|perfect|ok|okay|yes|thanks|thank\s+you|"
    r"alright|sure|got\s+it|good\s+job|well\s+done|but|or|oh|actually|instead)\b[\s,!:-]*"
)
_ROLES = ("chef", "assistant")
_ADDRESS = re.compile(r"^(chef|assistant)\s*[,:!-]\s*")
_SENTENCES = re.compile(r"(?<=[.!?;:])\s+|\n+|\s+(?=\d\)\s)|(?<=[.!?])(?=[A-Z])")
_NUMBERED = re.compile(r"^\d\)\s*")
_CLAUSE_SPLIT = re.compile(r"\s*,\s*(?:and\s+then|and|then|or)?\s*|\s+(?:and\s+then|and|then|or)\s+")
_STARTS_CLAUSE = re.compile(
    rf"^(?:{_VERB_RE}|please|kindly|can|could|would|will|should|you|you'll|i|i'll|i'm|i've|i'd|we|we'll|let's|"
    r"let|once|after|when|if|before|until|while|as|so|because|since|don't|do|stop|no|never|make|go|proceed|"
    r"prepare|get|be|start|begin|continue|keep|try|remember|chef|assistant)\b"
)
_GLUED = re.compile(r"\b(?:go\s+ahead|try|come)$")
_MARKERS = re.compile(r"\[(?:END|NOTHING|EMPTY)\]", re.IGNORECASE)
_SOURCE_PREP = re.compile(r"\b(?:from|off|out\s+of|in|on|at)\s+(?:the\s+|a\s+|an\s+|your\s+|my\s+)?$")
_DEST_PREP = re.compile(r"\b(?:in|into|inside|on|onto|to|back\s+on|back\s+in)\s+(?:the\s+|a\s+|an\s+|your\s+|my\s+)?$")


@dataclass(frozen=True)
class Vocabulary:
    """The names a run's messages are read with: its objects (foods, ``dish``) and its kitchen's
    places (``counter``, the dispensers, numbered utensils; None when the kitchen is not known)."""

    objects: tuple[str, ...]
    places: tuple[str, ...] | None = None

    def utensil(self, kind: str) -> str:
        """The kitchen's one utensil of ``kind``, or the kind when it has none or several (L10)."""
        if self.places is None:
            return kind
        found = [p for p in self.places if re.fullmatch(rf"{kind}\d+", p)]
        return found[0] if len(found) == 1 else kind


@dataclass(frozen=True)
class Phrase:
    """One request read from a message: the verb and arguments of the operation action asked for
    (:data:`ANY` where the sentence names none), the object and place the clause names ("" when
    none), the role it addresses (:data:`PARTNER` when none), the clause as written and the rules
    that read it."""

    verb: str
    args: tuple[str, ...]
    object: str
    location: str
    target: str
    clause: str
    rules: str

    @property
    def action(self) -> str:
        return f"{self.verb}({', '.join(self.args)})"


def _norm(text: str) -> str:
    text = _MARKERS.sub(" ", text)
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("`", "")
    return re.sub(r"[ \t]+", " ", text).strip()


def _name_re(name: str) -> str:
    words = [re.escape(w) for w in name.split("_") if w]
    if not words:
        return r"(?!x)x"
    return r"[ _-]+".join(words) + r"(?:es|s)?"


class _Names:
    """The vocabulary's objects and places as patterns, longest first (L9, L10)."""

    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        objects = sorted({o for o in vocab.objects if o}, key=lambda o: (-len(o), o))
        self.objects = [(o, re.compile(rf"\b{_name_re(o)}\b")) for o in objects]
        places = ["ingredient_dispenser", "dish_dispenser", "counter", *UTENSIL_KINDS, "dispenser", "board"]
        self.places = [(p, re.compile(rf"\b{_name_re(p)}(\d*)\b")) for p in places]
        self.joined = [(o, pat) for o, pat in self.objects if "_" in o]

    def join(self, text: str) -> str:
        """``text`` with the vocabulary's multi-word names written as one word (L1)."""
        for name, pat in self.joined:
            text = pat.sub(name, text)
        return text

    def object_in(self, text: str) -> tuple[str, int] | None:
        """The first object named in ``text`` (the longest name there) and where it starts, outside
        place names."""
        masked = self._mask_places(text)
        best: tuple[str, int] | None = None
        for name, pat in self.objects:
            m = pat.search(masked)
            if m and (best is None or m.start() < best[1] or (m.start() == best[1] and len(name) > len(best[0]))):
                best = (name, m.start())
        return best

    def _mask_places(self, text: str) -> str:
        for _, pat in self.places:
            text = pat.sub(lambda m: " " * len(m.group(0)), text)
        return text

    def places_in(self, text: str) -> list[tuple[str, int]]:
        """The places named in ``text`` in order: (place as the kitchen names it, where it starts)."""
        found: list[tuple[int, int, str]] = []
        taken: list[tuple[int, int]] = []
        for kind, pat in self.places:
            for m in pat.finditer(text):
                if any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                taken.append((m.start(), m.end()))
                found.append((m.start(), m.end(), self._place(kind, m.group(1))))
        return [(p, start) for start, _, p in sorted(found)]

    def _place(self, kind: str, number: str) -> str:
        if kind == "dispenser":
            return "ingredient_dispenser"
        if kind == "board":
            kind = "chopping_board"
        if kind in UTENSIL_KINDS:
            return f"{kind}{number}" if number else self.vocab.utensil(kind)
        return kind


def _sentences(text: str) -> list[str]:
    out = []
    for part in _SENTENCES.split(text):
        part = _NUMBERED.sub("", part.strip())
        if part:
            out.append(part)
    return out


def _clauses(sentence: str) -> list[str]:
    """L1: the sentence's clauses, cut only where what follows starts a verb phrase."""
    pieces: list[str] = []
    pos = 0
    for m in _CLAUSE_SPLIT.finditer(sentence):
        rest = _FILLERS.sub("", sentence[m.end() :].lower())
        glued = _GLUED.search(sentence[pos : m.start()].lower())  # "go ahead and cut": one phrase
        if m.start() > pos and _STARTS_CLAUSE.match(rest) and not glued:
            pieces.append(sentence[pos : m.start()])
            pos = m.end()
    pieces.append(sentence[pos:])
    return [p.strip(" ,") for p in pieces if p.strip(" ,")]


def _strip_fillers(low: str) -> str:
    while True:
        stripped = _FILLERS.sub("", low, count=1).lstrip(" ,!")
        if stripped == low:
            return low
        low = stripped


def _verb_at(text: str) -> tuple[str, int] | None:
    """The L8 verb ``text`` starts with (its base form) and where the rest of the clause starts."""
    split = _PICK_SPLIT.match(text)
    if split:
        return "pick up", len(split.group(1))
    m = _VERB_AT.match(text)
    if not m:
        return None
    return _VERB_FORMS[m.group(0)], m.end()


@dataclass
class _State:
    last_object: str = ""  # the last object the message named (L9's antecedent)


_DETERMINERS = re.compile(r"^(?:up\s+)?(?:the|a|an|some|another|one\s+more|more|your|my|our|fresh|new)\b\s*")


class Reader:
    """Reads messages with one run's vocabulary."""

    def __init__(self, vocab: Vocabulary):
        self.names = _Names(vocab)
        self.vocab = vocab

    def read(self, text: str) -> tuple[Phrase, ...]:
        """The request units of one message (L1-L12), in order."""
        text = _norm(text)
        if not text:
            return ()
        state = _State()
        out: list[Phrase] = []
        for sentence in _sentences(text):
            target = PARTNER
            joined = self.names.join(sentence.lower())
            m = _ADDRESS.match(joined)
            if m:
                target, joined = m.group(1).capitalize(), joined[m.end() :]
            directed: bool | None = None
            for k, clause in enumerate(_clauses(joined)):
                phrase, directed = self._clause(clause, k == 0, directed, target, state)
                if phrase is not None:
                    out.append(phrase)
                    if phrase.object:
                        state.last_object = phrase.object
                else:
                    found = self.names.object_in(clause)
                    if found is not None:
                        state.last_object = found[0]
        return tuple(_once(out))

    def _clause(
        self, clause: str, first: bool, before: bool | None, target: str, state: _State
    ) -> tuple[Phrase | None, bool]:
        """One clause: the request it makes (or None) and whether it is directed at the partner
        (what a clause that continues it inherits, L6)."""
        low = _strip_fillers(clause)
        m = _ADDRESS.match(low)
        if m:
            target, low = m.group(1).capitalize(), _strip_fillers(low[m.end() :])
        asks_me = re.match(r"^i(?:'d|'ll|\s+would|\s+will)?\s+(?:like|need)\s+you\s+to\b", low)
        if _NEGATED.match(low) or _SELF_QUESTION.match(low) or _SUBORDINATE.match(low):
            return None, False  # L7
        if _SELF.match(low) and not asks_me:
            return None, False  # L7
        rules: list[str] = []
        rest = low
        while True:  # directives may chain: "could you please go ahead and cut it"
            for rule, pattern in _DIRECTIVE_RES:
                dm = pattern.match(rest)
                if dm and dm.end() > 0:
                    rules.append(rule)
                    rest = _strip_fillers(rest[dm.end() :])
                    break
            else:
                break
        rest = _NEUTRAL.sub("", rest)  # noqa: V201 - reached: vulture misses the for-else's break
        verb = _verb_at(rest)
        if rules:
            directed = True
        elif verb is not None and first:
            directed, rules = True, ["L5"]
        elif verb is not None and before is not None:
            directed, rules = before, ["L6"]
        else:
            directed = False
        if not directed or verb is None:
            return None, directed
        return self._phrase(verb[0], rest[verb[1] :], clause, target, rules, state.last_object), True

    def _object(self, tail: str, antecedent: str) -> tuple[str, str]:
        """L9: the object the clause's verb acts on, and how it was found."""
        head = _DETERMINERS.sub("", tail.strip())
        found = self.names.object_in(head)
        first = (re.findall(r"[a-z_']+", head) or [""])[0]
        if found is not None and found[1] == 0:
            return found[0], "L9"
        if first in FORM_WORDS and antecedent:
            made = sorted((o for o, _ in self.names.objects if o.endswith("_" + first) and antecedent in o), key=len)
            return (made[0] if made else antecedent), "L9-form"
        if first in PRONOUNS and antecedent:
            return antecedent, "L9-pronoun"
        if found is not None:
            return found[0], "L9"
        return "", "L9-none"

    def _phrase(
        self, verb: str, tail: str, clause: str, target: str, rules: list[str], antecedent: str
    ) -> Phrase | None:
        obj, how = self._object(tail, antecedent)
        places = self.names.places_in(tail)
        rules = [*rules, "L8", how]
        location = ""
        args: tuple[str, ...]
        if verb in PICKUP_VERBS:
            if not obj:
                return None  # a pickup of nothing named is no unit u = (o, a, j)
            location = self._source(tail, places)
            verb, args = "pickup", (obj, location or ANY)
        elif verb in HANDING_VERBS:
            verb, location, args = "place_obj_on_counter", "counter", ()
        elif verb in PLACING_VERBS:
            location = self._destination(tail, places)
            if location == "counter":
                verb, args = "place_obj_on_counter", ()
            elif location.rstrip("0123456789") in UTENSIL_KINDS:
                verb, args = "put_obj_in_utensil", (location,)
            else:
                return None  # no destination: not read
        elif verb == "wait":
            return None  # waiting names no object: not a request unit
        else:
            verb = PROCESS_VERBS[verb]
            if verb == "fill_dish_with_food":
                utensils = [p for p, _ in places if p.rstrip("0123456789") in UTENSIL_KINDS]
                location = utensils[0] if utensils else ""
                args = (location or ANY,)
            elif verb == "deliver_soup":
                args = ()
            else:
                kind = UTENSIL_OF[verb]
                named = [p for p, _ in places if p.rstrip("0123456789") == kind]
                location = named[0] if named else self.vocab.utensil(kind)
                args = (location,)
        if location:
            rules.append("L10")
        if target:
            rules.append("L11")
        return Phrase(verb, args, obj, location, target, clause, "+".join(rules))

    @staticmethod
    def _source(tail: str, places: Sequence[tuple[str, int]]) -> str:
        for place, start in places:
            if _SOURCE_PREP.search(tail[:start]):
                return place
        return places[0][0] if places else ""

    @staticmethod
    def _destination(tail: str, places: Sequence[tuple[str, int]]) -> str:
        for place, start in places:
            if _DEST_PREP.search(tail[:start]):
                return place
        return places[-1][0] if places else ""


def _once(phrases: Iterable[Phrase]) -> list[Phrase]:
    """L12: each (verb, arguments) once per message, the first kept (with an object a later one
    names, when the first names none)."""
    out: list[Phrase] = []
    for p in phrases:
        same = next((k for k, q in enumerate(out) if (q.verb, q.args, q.target) == (p.verb, p.args, p.target)), None)
        if same is None:
            out.append(p)
        elif not out[same].object and p.object:
            q = out[same]
            out[same] = Phrase(q.verb, q.args, p.object, q.location, q.target, q.clause, q.rules)
    return out


def read_requests(text: str, vocab: Vocabulary) -> tuple[Phrase, ...]:
    """The request units of one plain-language message (see the module's rules)."""
    return Reader(vocab).read(text)


__all__ = ["ANY", "PARTNER", "Vocabulary", "Phrase", "Reader", "read_requests", "UTENSIL_KINDS"]
