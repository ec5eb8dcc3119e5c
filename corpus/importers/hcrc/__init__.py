"""Import HCRC Map Task dialogues as message-only sessions with the HCRC move annotation.

Two source shapes (docs/importers.md):

- ``speaker|text|move`` transcripts, one dialogue per file (``q1ec1.txt``): ``g`` is the
  instruction giver (our guide), ``f`` the follower;
- NXT move files ``<dialogue>.g.moves.xml`` and ``<dialogue>.f.moves.xml`` with either the NXT
  timed units ``<dialogue>.<g|f>.timed-units.xml`` (words and times) or an NXT query transcript
  (``who<TAB>text`` rows in dialogue order) for the words. The archive as distributed keeps the
  moves in ``moves/`` and the query transcripts in ``transcripts/<dialogue>.txt``.

A move of the timed units spans elements of any kind, in document order: words (``<tu>``),
silences (``<sil>``), noises (``<noi type="breath">``) and any other element with an id; a move
may start or end on any of them. Its text is its words with every other element kept as a mark
in parentheses where it is, the noise's type or else the element's name ("(lipsmack) right okay",
"we are (sil) above"); GMMT's expressions are looked for among the words alone.

The corpus's split lists (``train_split.txt``, ``val_split.txt``, ``test_split.txt``: one dialogue
id a line), in the source folder or given as ``split_lists``, give each dialogue its split; without
them the folder a dialogue's file is in (``train/``, ``val/``, ``test/``) does. A transcript of
several dialogues with nothing between them (a set such as Maptask-Corpus's ``test_set.txt``: more
moves than any HCRC dialogue, or named as such a set) is not imported. HCRC's route deviation per
dialogue (``moves_and_deviation.csv``, column ``path dev``), in the source folder or given as
``route_deviation``, becomes the session's ``route_deviation``.

A ``.txt`` file is told by its content: ``speaker|text|move`` lines, or an NXT query transcript
(lines such as ``Found 2 args.`` then a ``who<TAB>...`` header); its dialogue is its name up to
the first dot. Each move becomes one message; its label goes to ``labels/hcrc_moves.csv`` as coder
``hcrc`` (partition ``validation``), the code normalised to the keys of
``corpus.schema.HCRC_MOVES``. The session's condition comes from the dialogue id (``q1ec1``: eye
contact, ``q3nc1``: no eye contact). GMMT annotations of the dialogues, in the source folder or
given as ``gmmt``, become the ``gmmt`` scheme (:mod:`corpus.importers.gmmt`). The HCRC maps are
images, not grids: the session points to a placeholder grid map.

Its parts, one phase or source each: :mod:`.discover` (which file is what), :mod:`.transcripts`
(``speaker|text|move`` and NXT query transcripts), :mod:`.nxt` (NXT move files with their words),
:mod:`.design` (split lists, route deviation scores, conditions), :mod:`.build` (the import, phase
by phase: options, sources, sessions, what was not used).
"""

from corpus.importers.hcrc.build import import_hcrc
from corpus.importers.hcrc.discover import Found, discover
from corpus.importers.hcrc.nxt import parse_xml, read_nxt, without_marks
from corpus.importers.hcrc.transcripts import Move, condition_of, normalise_move, transcript_kind

__all__ = [
    "Found",
    "Move",
    "condition_of",
    "discover",
    "import_hcrc",
    "normalise_move",
    "parse_xml",
    "read_nxt",
    "transcript_kind",
    "without_marks",
]
