"""A tile-grid replay: one unit of any domain (a run, an episode, a trial) whose world is a grid of
tiles with agents on it, as the in-browser tile player (:mod:`components.tile_player`) receives it.

Pure (no streamlit). A domain builds a :class:`TilePayload` once per unit, on the server, and the
page hands ``payload.to_json()`` to ``components.tile_player.tile_player(data, key)``; every step is
then shown by the browser, with no round trip to the server. The kitchen's builder is
:func:`analysis.kitchen.replay.payload`; a domain of a few lines builds one like this::

    from analysis.tile_replay import Agent, AgentAt, Grid, MarkKind, Message, MessageKind, Step
    from analysis.tile_replay import TileKind, TilePayload, Timeline

    grid = Grid(width=3, height=2, tiles=("#.#", "..."),
                legend=(TileKind("#", "wall", "grey"), TileKind(".", "floor", "white")))
    steps = (
        Step(0, agents=(AgentAt(1, 0, "east"),), messages=(Message("Ann", "hello", "said"),)),
        Step(1, agents=(AgentAt(1, 1, "east", holding="key"),), panel=(("Score", "1"),), marks=("goal",)),
    )
    payload = TilePayload(
        unit="episode-1", title="Episode 1", grid=grid, agents=(Agent("Ann", 0),), steps=steps,
        timeline=Timeline.count_messages(steps),
        message_kinds=(MessageKind("said", "Said"),), mark_kinds=(MarkKind("goal", "goal reached", "green"),),
    )
    data = payload.to_json()

What a payload holds:

- ``grid``: its ``width`` and ``height`` in tiles and the static tiles, one string of ``width``
  letters per row, top row first (a letter is one character); the ``legend`` says what each
  letter is (:class:`TileKind`: its name, the colour it is filled with, by name from
  :data:`FILLS`, and an optional short label written on each such tile). Every letter used
  anywhere must be in the legend.
- ``agents``: who moves on the grid, each with a name and a colour index (0, 1, ...: the player's
  agent palette, the same for every domain).
- ``steps``, in order; each (:class:`Step`) has the domain's own step number, each agent's place
  (:class:`AgentAt`: row, column, the way it faces, what it holds; None while it is not on the
  grid) in the order of ``agents``, the tiles that changed at the step (:class:`TileChange`: the
  tile's letter and note from this step on; the first step's changes are against the static
  tiles), the step's messages (:class:`Message`: who, the text, its kind, an optional detail),
  a panel of (label, value) rows, its marks (names of ``mark_kinds``: a correction, a completed
  action) and a caption (the line above the grid at that step, also the title of an exported
  frame).
- ``message_kinds``: the kinds a message may have, in the order the player groups them, each with
  the heading of its group; ``mark_kinds``: the marks a step may carry, each with its title, a
  colour from :data:`FILLS` and a symbol from :data:`SYMBOLS` (how the timeline draws it). The
  player offers to jump to the next step with each kind of mark.
- ``timeline``: counts per step (:class:`Series`), the first drawn as bars, every one named when
  the pointer is over a step; the steps' marks are drawn above the bars.
- ``unit`` (its id), ``title`` and ``note`` (shown above the player and in its exports; the note
  says, for instance, that the data is synthetic), ``step_noun`` and ``unit_noun`` (what a step
  and a unit are called: "step", "run").

Everything in a payload that came from data (names, messages, labels, notes) is text: the player
writes it with ``textContent`` or on a canvas with ``fillText``, never as markup. A payload is
checked when it is made: a :class:`TileReplayError` names the unit, the step and the field of the
first problem.

Positions: a step is addressed by its place in ``steps`` (0, 1, ...), the "step" of a replay's
link and of what the player reports (:func:`clean_step`); ``Step.step`` is the number shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field

FORMAT = "tile_grid"
VERSION = 1

# The colours a tile or a mark may be filled with, by name: the player's palette gives each its
# shade (components.tile_player.FILL_COLOURS), the same in the browser and in exported images.
FILLS = ("white", "grey", "blue", "green", "yellow", "orange", "red", "purple", "brown", "black")
FACINGS = ("north", "east", "south", "west", "")
SYMBOLS = ("circle", "square", "diamond", "x", "triangle")


class TileReplayError(ValueError):
    """A payload that cannot be replayed: the message names the unit, the step and the field."""


@dataclass(frozen=True)
class TileKind:
    """What one letter of the grid is: ``name`` in words (the legend), ``fill`` a name from
    :data:`FILLS`, ``label`` a short text written on each such tile ("" for none)."""

    letter: str
    name: str
    fill: str
    label: str = ""


@dataclass(frozen=True)
class Grid:
    """The static grid: ``height`` rows of ``width`` letters, top row first, and their legend."""

    width: int
    height: int
    tiles: tuple[str, ...]
    legend: tuple[TileKind, ...]


@dataclass(frozen=True)
class Agent:
    """One agent: its name and its colour in the player's agent palette (0, 1, ...)."""

    name: str
    colour: int


@dataclass(frozen=True)
class AgentAt:
    """Where an agent is at a step: row and column (from 0, top left), the way it faces (one of
    :data:`FACINGS`, "" for no direction) and what it holds ("" for nothing)."""

    row: int
    col: int
    facing: str = ""
    holding: str = ""


@dataclass(frozen=True)
class TileChange:
    """A tile as it is from this step on: its letter and a note written on it ("" for none: what
    lies on a counter, a pot's cooking time)."""

    row: int
    col: int
    letter: str
    note: str = ""


@dataclass(frozen=True)
class Message:
    """Something said or done at a step: who, the text, its kind (a name of ``message_kinds``) and
    an optional detail shown under it (a request's outcome and why)."""

    who: str
    text: str
    kind: str
    detail: str = ""


@dataclass(frozen=True)
class MessageKind:
    """A kind of message and the heading its group has in the step's panel."""

    name: str
    title: str


@dataclass(frozen=True)
class MarkKind:
    """A kind of mark: its title (legend, hover, jump button), colour (from :data:`FILLS`) and the
    symbol the timeline draws (from :data:`SYMBOLS`)."""

    name: str
    title: str
    fill: str
    symbol: str = "circle"


@dataclass(frozen=True)
class Step:
    """One step: the domain's step number, each agent's place (in the order of the payload's
    ``agents``; None: not on the grid), the tiles that changed, the messages, the panel's
    (label, value) rows, the marks and the caption."""

    step: int
    agents: tuple[AgentAt | None, ...]
    changes: tuple[TileChange, ...] = ()
    messages: tuple[Message, ...] = ()
    panel: tuple[tuple[str, str], ...] = ()
    marks: tuple[str, ...] = ()
    caption: str = ""


@dataclass(frozen=True)
class Series:
    """A count per step (one value per step, in step order)."""

    name: str
    values: tuple[int, ...]


@dataclass(frozen=True)
class Timeline:
    """Counts per step; the first series is drawn as bars. The marks come from the steps."""

    series: tuple[Series, ...] = ()

    @classmethod
    def count_messages(cls, steps: Iterable[Step], name: str = "messages") -> Timeline:
        """One series: the number of messages at each step."""
        return cls((Series(name, tuple(len(s.messages) for s in steps)),))


@dataclass(frozen=True)
class TilePayload:
    """One unit's replay (see the module's docstring); checked when made."""

    unit: str
    title: str
    grid: Grid
    agents: tuple[Agent, ...]
    steps: tuple[Step, ...]
    timeline: Timeline = field(default_factory=Timeline)
    message_kinds: tuple[MessageKind, ...] = ()
    mark_kinds: tuple[MarkKind, ...] = ()
    note: str = ""
    step_noun: str = "step"
    unit_noun: str = "unit"

    def __post_init__(self) -> None:
        _check(self)

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    def to_json(self) -> dict:
        """The payload as the player receives it: plain JSON (lists, strings, numbers, null),
        each step's parts as short lists, and ``next``: for each kind of mark, the place of the next
        step after each step that carries it (-1: none)."""
        steps = [
            {
                "step": s.step,
                "caption": s.caption,
                "agents": [None if a is None else [a.row, a.col, a.facing, a.holding] for a in s.agents],
                "changes": [[c.row, c.col, c.letter, c.note] for c in s.changes],
                "messages": [[m.who, m.text, m.kind, m.detail] for m in s.messages],
                "panel": [[label, value] for label, value in s.panel],
                "marks": list(s.marks),
            }
            for s in self.steps
        ]
        return {
            "format": FORMAT,
            "version": VERSION,
            "unit": self.unit,
            "title": self.title,
            "note": self.note,
            "step_noun": self.step_noun,
            "unit_noun": self.unit_noun,
            "grid": {
                "width": self.grid.width,
                "height": self.grid.height,
                "tiles": list(self.grid.tiles),
                "legend": [asdict(k) for k in self.grid.legend],
            },
            "agents": [asdict(a) for a in self.agents],
            "message_kinds": [asdict(k) for k in self.message_kinds],
            "mark_kinds": [asdict(k) for k in self.mark_kinds],
            "steps": steps,
            "timeline": {"series": [{"name": s.name, "values": list(s.values)} for s in self.timeline.series]},
            "next": {k.name: next_marked(self.steps, k.name) for k in self.mark_kinds},
        }


def next_marked(steps: tuple[Step, ...], mark: str) -> list[int]:
    """For each step, the place of the next step (after it) that carries ``mark``; -1 for none."""
    out = [-1] * len(steps)
    following = -1
    for i in range(len(steps) - 1, -1, -1):
        out[i] = following
        if mark in steps[i].marks:
            following = i
    return out


def tile_states(data: dict) -> Iterator[list[list[tuple[str, str]]]]:
    """The grid of a payload's JSON after each step in turn: rows of (letter, note), the static
    tiles with every change up to that step applied (the same list, updated: copy it to keep it).
    The browser does the same a step at a time; exported images are drawn from this."""
    rows = [[(letter, "") for letter in row] for row in data["grid"]["tiles"]]
    for step in data["steps"]:
        for row, col, letter, note in step["changes"]:
            rows[row][col] = (letter, note)
        yield rows


def clean_step(raw: object, n_steps: int) -> int | None:
    """A position the browser reported or a link asked for (``{"step": n}`` or the step alone),
    clamped to the steps; None if it is not one."""
    if isinstance(raw, dict):
        raw = raw.get("step")
    if raw is None or isinstance(raw, bool):
        return None
    try:
        step = int(raw)  # type: ignore[call-overload]
    except (TypeError, ValueError, OverflowError):
        return None
    return max(0, min(step, max(n_steps - 1, 0)))


# -- checks ------------------------------------------------------------------------------------


def _fail(p: TilePayload, where: str, problem: str) -> None:
    raise TileReplayError(f"tile replay of '{p.unit}': {where}: {problem}")


def _check(p: TilePayload) -> None:
    for name in ("step_noun", "unit_noun"):
        if not getattr(p, name).strip():
            _fail(p, name, "is empty")
    g = p.grid
    if g.width < 0 or g.height < 0:
        _fail(p, "grid", f"size {g.width} x {g.height} is negative")
    if len(g.tiles) != g.height:
        _fail(p, "grid.tiles", f"{len(g.tiles)} rows for a height of {g.height}")
    letters = [k.letter for k in g.legend]
    for k in g.legend:
        if len(k.letter) != 1:
            _fail(p, "grid.legend", f"letter {k.letter!r} is not one character")
        if k.fill not in FILLS:
            _fail(p, f"grid.legend[{k.letter!r}].fill", f"{k.fill!r} is not one of {', '.join(FILLS)}")
    if len(set(letters)) != len(letters):
        _fail(p, "grid.legend", "a letter is listed twice")
    known = set(letters)
    for r, row in enumerate(g.tiles):
        if len(row) != g.width:
            _fail(p, f"grid.tiles[{r}]", f"{len(row)} letters for a width of {g.width}")
        unknown = set(row) - known
        if unknown:
            _fail(p, f"grid.tiles[{r}]", f"letter {sorted(unknown)[0]!r} is not in the legend")
    for i, a in enumerate(p.agents):
        if not isinstance(a.colour, int) or a.colour < 0:
            _fail(p, f"agents[{i}].colour", f"{a.colour!r} is not a whole number from 0")
    kinds = {k.name for k in p.message_kinds}
    marks = {k.name for k in p.mark_kinds}
    for mk in p.mark_kinds:
        if mk.fill not in FILLS:
            _fail(p, f"mark_kinds[{mk.name!r}].fill", f"{mk.fill!r} is not one of {', '.join(FILLS)}")
        if mk.symbol not in SYMBOLS:
            _fail(p, f"mark_kinds[{mk.name!r}].symbol", f"{mk.symbol!r} is not one of {', '.join(SYMBOLS)}")
    for i, s in enumerate(p.steps):
        _check_step(p, i, s, known, kinds, marks)
    for series in p.timeline.series:
        if len(series.values) != len(p.steps):
            _fail(p, f"timeline.{series.name}", f"{len(series.values)} values for {len(p.steps)} steps")


def _inside(p: TilePayload, row: int, col: int) -> bool:
    return 0 <= row < p.grid.height and 0 <= col < p.grid.width


def _check_step(p: TilePayload, i: int, s: Step, letters: set[str], kinds: set[str], marks: set[str]) -> None:
    where = f"step {s.step} (place {i})"
    if len(s.agents) != len(p.agents):
        _fail(p, f"{where} agents", f"{len(s.agents)} places for {len(p.agents)} agents")
    for a, at in zip(p.agents, s.agents):
        if at is None:
            continue
        if not _inside(p, at.row, at.col):
            _fail(
                p,
                f"{where} agent {a.name!r}",
                f"({at.row}, {at.col}) is outside the {p.grid.height} x {p.grid.width} grid",
            )
        if at.facing not in FACINGS:
            _fail(p, f"{where} agent {a.name!r} facing", f"{at.facing!r} is not one of north, east, south, west or ''")
    for c in s.changes:
        if not _inside(p, c.row, c.col):
            _fail(p, f"{where} changes", f"({c.row}, {c.col}) is outside the {p.grid.height} x {p.grid.width} grid")
        if c.letter not in letters:
            _fail(p, f"{where} changes", f"letter {c.letter!r} is not in the legend")
    for m in s.messages:
        if m.kind not in kinds:
            _fail(p, f"{where} messages", f"kind {m.kind!r} is not one of the payload's message kinds")
    for mark in s.marks:
        if mark not in marks:
            _fail(p, f"{where} marks", f"{mark!r} is not one of the payload's mark kinds")
