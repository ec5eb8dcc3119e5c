"""What an archive or folder holds, told from its file names: a Groundwork dataset, the collaboration
platform's session logs or its export bundle, HCRC Map Task dialogues, or kitchen runs (Collab-Overcooked
run logs, Overcooked-AI trajectories).

The upload and ``python -m corpus import`` use it when no format is chosen, and say what they
chose and from which files, so a wrong guess is seen and overridden. Only names are read (a zip's
directory, a folder's listing): nothing is extracted to decide.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

DATASET = "dataset"  # a Groundwork dataset (no importer)

KINDS = {
    DATASET: "a Groundwork dataset",
    "platform-logs": "collaboration platform session logs",
    "platform-bundle": "a collaboration platform export bundle",
    "hcrc": "HCRC Map Task dialogues",
    "overcooked": "kitchen runs (Collab-Overcooked run logs or Overcooked-AI trajectories)",
    "dyntom": "DynToM theory-of-mind trials",
    "maptask-vlm": "Map Task VLM predictions",
}
FORMAT_OF = {
    DATASET: None,
    "platform-logs": "platform",
    "platform-bundle": "platform",
    "hcrc": "hcrc",
    "overcooked": "overcooked",
    "dyntom": "dyntom",
    "maptask-vlm": "maptask-vlm",
}

EXPECTED = (
    "dataset.json (a Groundwork dataset); *.jsonl action logs (the platform's session logs); "
    "*_user_actions.json or *_actions_and_annotations.json (the platform's export bundle); "
    "*.moves.xml, or files named by a dialogue id such as q1ec1.txt (HCRC Map Task); question_new.json (DynToM trials); vlm_predictions_<model>.jsonl (Map Task VLM predictions); other *.json files "
    "(Collab-Overcooked run logs, Overcooked-AI trajectories)"
)

_BUNDLE = re.compile(r"_(user_actions|actions_and_annotations)\.json$", re.IGNORECASE)
_NXT_MOVES = re.compile(r"\.[gf]\.moves\.xml$", re.IGNORECASE)
_HCRC_ID = re.compile(r"^q\d+[ne]c\d+", re.IGNORECASE)


@dataclass(frozen=True)
class Detection:
    """What was recognised, the importer format it needs (None: a Groundwork dataset), and the
    files that told."""

    kind: str
    evidence: str

    @property
    def fmt(self) -> str | None:
        return FORMAT_OF[self.kind]

    @property
    def label(self) -> str:
        return KINDS[self.kind]

    def sentence(self) -> str:
        """Read as ...: for the person who can override it."""
        return f"Read as {self.label} (found {self.evidence})."


class NotRecognised(ValueError):
    """No known format in these files: the message says what was found and what was expected."""


def _visible(names: Iterable[str]) -> list[PurePosixPath]:
    out = []
    for name in names:
        p = PurePosixPath(name.replace("\\", "/"))
        if name.endswith("/") or any(part.startswith((".", "__MACOSX")) for part in p.parts):
            continue
        out.append(p)
    return out


def _some(paths: list[PurePosixPath], what: str) -> str:
    shown = ", ".join(p.name for p in paths[:3])
    more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
    return f"{len(paths)} {what}: {shown}{more}"


# What files tell each kind, in the order they are tried (the first a file matches wins): (kind, the
# test of a file, what the files matched are called).
_RULES: tuple[tuple[str, Callable[[PurePosixPath], bool], str], ...] = (
    ("platform-bundle", lambda p: bool(_BUNDLE.search(p.name)), "export file(s)"),
    (
        "maptask-vlm",
        lambda p: p.name.startswith("vlm_predictions_") and p.suffix.lower() == ".jsonl",
        "VLM prediction file(s)",
    ),
    ("platform-logs", lambda p: p.suffix.lower() == ".jsonl", "action log(s)"),
    ("hcrc", lambda p: bool(_NXT_MOVES.search(p.name)), "NXT move file(s)"),
    ("hcrc", lambda p: bool(_HCRC_ID.match(p.name)), "file(s) named by an HCRC dialogue id"),
    ("dyntom", lambda p: p.name == "question_new.json", "DynToM question file(s)"),
    # The benchmark names a run after its worker (worker9_0_7_<recipe>_...json); any other JSON file
    # left is read as a kitchen run too, and a file that is not one is named by the import.
    ("overcooked", lambda p: p.suffix.lower() == ".json", "JSON run file(s)"),
)


def detect(names: Iterable[str]) -> Detection:
    """The format of the files ``names`` (paths relative to the archive or folder root).

    Raises :class:`NotRecognised` naming what was found and what was expected."""
    paths = _visible(names)
    datasets = [p for p in paths if p.name == "dataset.json" and len(p.parts) <= 2]
    if datasets:
        return Detection(DATASET, str(datasets[0]))
    for kind, matches, what in _RULES:
        found = [p for p in paths if matches(p)]
        if found:
            return Detection(kind, _some(found, what))
    listed = _some(paths, "file(s)") if paths else "no files"
    raise NotRecognised(f"cannot tell what these files are (found {listed}); expected {EXPECTED}")


def detect_zip(data: bytes) -> Detection:
    """The format of the zip archive ``data``, from its member names (raises
    :class:`NotRecognised`, or :class:`zipfile.BadZipFile` for bytes that are not a zip)."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return detect(zf.namelist())


def detect_path(src: Path) -> Detection:
    """The format of a folder, a zip archive or a single file."""
    src = Path(src)
    if src.is_dir():
        return detect(str(p.relative_to(src).as_posix()) for p in src.rglob("*") if p.is_file())
    if src.suffix.lower() == ".zip":
        return detect_zip(src.read_bytes())
    return detect([src.name])
