"""The sizes of what a person types or sends that the server keeps or works through: one place, so
the store, the pages and docs/security.md state the same numbers.

Free text a coder or lead writes (a label's note, a gold decision's note, a task's name, a draft's
name) is refused past its limit by the store, and the pages stop the typing there
(``max_chars``). Files sent to the server have their own limits beside the code that reads them
(datasets: :mod:`corpus.server.archive`, :mod:`corpus.loading.reading`; map images: :mod:`corpus.mapedit.image`);
the ones a page sends straight to a reader are here.
"""

from __future__ import annotations

NOTE_CHARS = 2_000  # a label's note, a gold decision's note to the coders
NAME_CHARS = 200  # a task's name, a map draft's name
DISPLAY_NAME_CHARS = 128  # an account's display name (usernames: 64)

CODEBOOK_BYTES = 1 * 2**20  # an uploaded codebook file (YAML or JSON)
LABELS_CSV_BYTES = 16 * 2**20  # an uploaded label file to import into a task
ID_LIST_BYTES = 4 * 2**20  # an uploaded list of items for a new task
DESIGN_TABLE_BYTES = 1 * 2**20  # a design table (each session's condition and split) given to an import

# Model predictions uploaded on the Compare page (each run, each file).
PREDICTION_UPLOAD_BYTES = 64 * 2**20  # one uploaded .zip or .jsonl (what a .zip holds counts too)
PREDICTION_LINES = 500_000  # lines of one predictions file
PREDICTION_ERRORS = 50  # problems listed before the rest of a refused run is no longer read

# Map editor drafts, per account.
DRAFTS_PER_ACCOUNT = 50
DRAFT_BYTES_PER_ACCOUNT = 200 * 2**20


def too_long(field: str, text: str, limit: int) -> str | None:
    """The message for ``text`` over ``limit`` characters, or None."""
    if len(text) <= limit:
        return None
    return f"{field}: {len(text):,} characters; at most {limit:,}"
