"""The kitchen grid as the environment draws it, and one cell of it read back.

Collab-Overcooked logs each step's kitchen as text (``content[i].map``): one line per row of the
kitchen, rows separated by a blank line, every cell 8 characters wide and left-justified. The
drawing is done by ``state_string`` in the benchmark's copy of Overcooked-AI
(``lib/overcooked_ai/overcooked_ai_py/mdp/overcooked_mdp.py``), and ``main.py`` replaces its ``ø``
by ``o``. The rules read from that function:

- a player: an arrow for the way it faces (``↑`` north, ``↓`` south, ``→`` east, ``←`` west), its
  index (0 the Chef, 1 the Assistant), then the first letter of what it holds (``↓0b``);
- a counter with something on it: ``X`` and the thing's first letter (``Xb``);
- a pot with something in it: ``o`` (the drawing's ``ø``) then the cooking time, ``=`` for two
  items or ``-``; a chopping board, blender or oven with something in it: its letter, then the
  same (``O-`` loaded, ``O1``, ``O2``, ``O3`` while it bakes);
- anything else: the layout's letter (a blank cell is floor).

What the letters mean is **inferred**, not documented by the benchmark: from its layout file
(``new_env.layout`` names ``P`` pot, ``C`` chopping board, ``O`` oven, ``B`` blender as utensils)
and from the observation text of the same steps (``X`` counter, ``I`` ingredient dispenser, ``D``
dish dispenser, ``S`` serving spot; see the notes beside the real sample). Overcooked-AI's own
layouts use other letters (``O`` onion and ``T`` tomato dispensers): :data:`OVERCOOKED_AI_TILES`.
The Overcooked-AI reader draws its grids by the same rules, so :func:`grid_cells` and
:func:`parse_cell` read both.
"""

from __future__ import annotations

from typing import NamedTuple

CELL_WIDTH = 8

FACING = {"↑": "north", "↓": "south", "→": "east", "←": "west"}
ARROWS = {(0, -1): "↑", (0, 1): "↓", (1, 0): "→", (-1, 0): "←"}  # Overcooked-AI orientation -> arrow

# Inferred tile letters (see the module's docstring); " " is floor.
COLLAB_TILES = {
    " ": "floor",
    "X": "counter",
    "P": "pot",
    "O": "oven",
    "C": "chopping_board",
    "B": "blender",
    "I": "ingredient_dispenser",
    "D": "dish_dispenser",
    "S": "serving",
}
OVERCOOKED_AI_TILES = {
    " ": "floor",
    "X": "counter",
    "P": "pot",
    "O": "onion_dispenser",
    "T": "tomato_dispenser",
    "D": "dish_dispenser",
    "S": "serving",
}

_STATE_CHARS = frozenset("-=0123456789")


class Cell(NamedTuple):
    """One cell read back: the tile's letter (" " for floor), the player on it (index, or None),
    the way that player faces ("north", "south", "east", "west", or ""), the first letter of what
    the player holds or the counter carries (""), and a utensil's state ("-", "=", a cooking time,
    or "")."""

    tile: str
    agent: int | None = None
    facing: str = ""
    held: str = ""
    state: str = ""


def grid_cells(grid: str) -> list[list[str]]:
    """The grid's rows of cells, each cell's text without its padding ("" for floor).

    Rows are separated by blank lines (a grid without any is read one row per line); each row is cut
    into cells of :data:`CELL_WIDTH` characters."""
    if not grid:
        return []
    lines = grid.split("\n\n") if "\n\n" in grid else grid.split("\n")
    rows = []
    for line in lines:
        if not line.strip("\n"):
            continue
        line = line.strip("\n")
        rows.append([line[k : k + CELL_WIDTH].rstrip() for k in range(0, len(line), CELL_WIDTH)])
    return rows


def parse_cell(text: str) -> Cell:
    """A cell's text (as :func:`grid_cells` gives it) read by the drawing rules of the module's
    docstring: ``"↓0b"`` is Cell(" ", 0, "south", "b", ""), ``"Xb"`` Cell("X", held="b"), ``"O3"``
    Cell("O", state="3"), ``"o-"`` a pot with something in it, Cell("P", state="-")."""
    text = text.strip()
    if not text:
        return Cell(" ")
    first, rest = text[0], text[1:]
    if first in FACING:
        digits = len(rest) - len(rest.lstrip("0123456789"))
        agent = int(rest[:digits]) if digits else None
        return Cell(" ", agent, FACING[first], rest[digits:], "")
    if first in ("o", "ø"):
        return Cell("P", state=rest)
    if rest and set(rest) <= _STATE_CHARS:
        return Cell(first, state=rest)
    return Cell(first, held=rest)


def draw_cell(text: str) -> str:
    """A cell's text padded as ``state_string`` pads it: to 7 characters, then one space."""
    return text.ljust(CELL_WIDTH - 1) + " "
